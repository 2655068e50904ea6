// Outbound webhooks (issue 3, item 5), rule by rule from the API document's Events section, delivered to a
// loopback receiver on 127.0.0.1.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import {
  WEBHOOK_EVENTS,
  WebhookDispatcher,
  WebhookSubscriptionError,
  examplePayload,
  formEncode,
  trackingEventsFor,
  type DispatcherOptions,
  type ShipmentEventData,
  type TrackingEventData,
} from '../../src/sandbox/webhooks.js';

interface Received {
  at: number;
  headers: IncomingHttpHeaders;
  body: string;
  json: Record<string, unknown> | null;
}

/** A loopback handler that records requests and answers with scripted statuses (then `fallback`). */
class Receiver {
  readonly requests: Received[] = [];
  script: number[] = [];
  fallback = 200;
  hang = false;
  private server!: Server;
  private waiters: Array<{ n: number; resolve: () => void }> = [];
  url = '';

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        let json: Record<string, unknown> | null = null;
        if (String(req.headers['content-type']).startsWith('application/json')) json = JSON.parse(body);
        this.requests.push({ at: performance.now(), headers: req.headers, body, json });
        this.waiters = this.waiters.filter((w) => (this.requests.length >= w.n ? (w.resolve(), false) : true));
        if (this.hang) return;
        res.statusCode = this.script.shift() ?? this.fallback;
        res.end('ok');
      });
    });
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hooks`;
    return this;
  }

  /** Resolves once n requests have arrived (fails the test after 5 s). */
  waitFor(n: number): Promise<void> {
    if (this.requests.length >= n) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const t = setTimeout(() => reject(new Error(`expected ${n} requests, got ${this.requests.length}`)), 5000);
      this.waiters.push({ n, resolve: () => (clearTimeout(t), resolve()) });
    });
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((r) => this.server.close(() => r()));
  }
}

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

async function setup(opts: DispatcherOptions = {}): Promise<{ rx: Receiver; d: WebhookDispatcher }> {
  const rx = await new Receiver().start();
  const d = new WebhookDispatcher({ baseDelayMs: 20, timeoutMs: 1000, ...opts });
  cleanups.push(() => rx.stop(), () => d.close());
  return { rx, d };
}

function shipment(ref = 'SHIP-1', over: Partial<ShipmentEventData> = {}): ShipmentEventData {
  return {
    shipment_reference: ref,
    parcel_references: [`${ref}-P1`, `${ref}-P2`],
    source: 'my-shop',
    order_reference: 'ORD-9',
    carrier: 'Royal Parcels',
    carrier_account: 'royal-parcels-main',
    tracking_numbers: ['RP1GB', 'RP2GB'],
    custom_fields: { gift_message: 'Happy birthday', priority: 2 },
    recipient: { name: 'Jane Q Smith', email_address: 'jane@example.com', telephone: '07700900123' },
    ...over,
  };
}

function tracking(type: string, name: string): TrackingEventData {
  return {
    shipment_reference: 'SHIP-1',
    parcel_reference: 'SHIP-1-P1',
    source: 'my-shop',
    order_reference: 'ORD-9',
    carrier: 'Royal Parcels',
    carrier_account: 'royal-parcels-main',
    tracking_number: 'RP1GB',
    tracking_event_code: 'DL',
    tracking_event_type: type,
    tracking_event_name: name,
    tracking_event_description: 'Delivered to the front door',
    tracking_event_time: '2026-11-21 10:00:00',
    tracking_url: 'http://track.example/RP1GB',
    tracking_url_carrier: 'http://carrier.example/RP1GB',
    recipient: { name: 'Jane Smith', email_address: 'jane@example.com', telephone: '07700900123' },
  };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('payloads', () => {
  it('created/cancelled payload in JSON carries the documented fields and the webhook auth_token', async () => {
    const { rx, d } = await setup();
    const sub = d.subscribe({ url: rx.url, auth_token: 'tok-123', format: 'json' });
    d.emit('SHIPMENT_CREATED', shipment());
    await rx.waitFor(1);
    const r = rx.requests[0];
    expect(r.headers['content-type']).toBe('application/json');
    expect(r.json).toEqual({
      auth_token: 'tok-123',
      request_token: expect.stringMatching(UUID),
      event: 'SHIPMENT_CREATED',
      shipment_reference: 'SHIP-1',
      parcel_references: ['SHIP-1-P1', 'SHIP-1-P2'],
      source: 'my-shop',
      order_reference: 'ORD-9',
      carrier: 'Royal Parcels',
      carrier_account: 'royal-parcels-main',
      tracking_numbers: ['RP1GB', 'RP2GB'],
      custom_fields: [
        { key: 'gift_message', value: 'Happy birthday' },
        { key: 'priority', value: '2' },
      ],
      recipient: {
        recipient_full_name: 'Jane Q Smith',
        recipient_first_name: 'Jane',
        recipient_last_name: 'Q Smith',
        recipient_email: 'jane@example.com',
        recipient_telephone: '07700900123',
      },
    });
    expect(sub.status).toBe('active');
  });

  it('form-encoded payload uses bracket notation for nested objects and arrays and parses back', async () => {
    const { rx, d } = await setup();
    d.subscribe({ url: rx.url, auth_token: 'tok-form', format: 'form' });
    d.emit('SHIPMENT_CANCELLED', shipment('SHIP-Ü&=1'));
    await rx.waitFor(1);
    const r = rx.requests[0];
    expect(r.headers['content-type']).toBe('application/x-www-form-urlencoded');
    const f = new URLSearchParams(r.body);
    expect(f.get('auth_token')).toBe('tok-form');
    expect(f.get('event')).toBe('SHIPMENT_CANCELLED');
    expect(f.get('request_token')).toMatch(UUID);
    expect(f.get('shipment_reference')).toBe('SHIP-Ü&=1');
    expect(f.get('parcel_references[0]')).toBe('SHIP-Ü&=1-P1');
    expect(f.get('parcel_references[1]')).toBe('SHIP-Ü&=1-P2');
    expect(f.get('tracking_numbers[1]')).toBe('RP2GB');
    expect(f.get('custom_fields[0][key]')).toBe('gift_message');
    expect(f.get('custom_fields[0][value]')).toBe('Happy birthday');
    expect(f.get('recipient[recipient_email]')).toBe('jane@example.com');
    expect(f.get('recipient[recipient_first_name]')).toBe('Jane');
    expect(f.get('carrier_account')).toBe('royal-parcels-main');
  });

  it('tracking payload (per parcel) carries the tracking fields with the stage name as tracking_event_type', async () => {
    const { rx, d } = await setup();
    d.subscribe({ url: rx.url, auth_token: 't', events: ['TRACKING_DELIVERED'] });
    d.emitTracking(tracking('DELIVERED', 'Delivered'));
    await rx.waitFor(1);
    expect(rx.requests[0].json).toMatchObject({
      auth_token: 't',
      event: 'TRACKING_DELIVERED',
      shipment_reference: 'SHIP-1',
      parcel_reference: 'SHIP-1-P1',
      tracking_number: 'RP1GB',
      tracking_event_code: 'DL',
      tracking_event_type: 'Delivered',
      tracking_event_name: 'Delivered',
      tracking_event_description: 'Delivered to the front door',
      tracking_event_time: '2026-11-21 10:00:00',
      tracking_url: 'http://track.example/RP1GB',
      tracking_url_carrier: 'http://carrier.example/RP1GB',
      recipient: { recipient_full_name: 'Jane Smith', recipient_last_name: 'Smith' },
    });
  });

  it('a tracking change emits TRACKING_UPDATED plus the specific kind; event filters pick what each webhook gets', async () => {
    expect(trackingEventsFor('COLLECTED')).toEqual(['TRACKING_UPDATED', 'TRACKING_COLLECTED']);
    expect(trackingEventsFor('IN_TRANSIT', 'Out for delivery')).toEqual(['TRACKING_UPDATED', 'TRACKING_OUT_FOR_DELIVERY']);
    expect(trackingEventsFor('DELIVERY_FAILED')).toEqual(['TRACKING_UPDATED', 'TRACKING_DELIVERY_FAILED']);
    expect(trackingEventsFor('MANIFESTED')).toEqual(['TRACKING_UPDATED']);
    const { rx, d } = await setup();
    d.subscribe({ url: rx.url, events: [] });
    d.subscribe({ url: rx.url + '?only=updated', events: ['TRACKING_UPDATED'] });
    d.emitTracking(tracking('IN_TRANSIT', 'In transit'));
    await rx.waitFor(3);
    await d.drain(2000);
    const events = rx.requests.map((r) => r.json!.event).sort();
    expect(events).toEqual(['TRACKING_IN_TRANSIT', 'TRACKING_UPDATED', 'TRACKING_UPDATED']);
    // Each event gets its own request token.
    expect(new Set(rx.requests.map((r) => r.json!.request_token)).size).toBe(3);
  });

  it('label variants: a string for ZPL/PDF, an array of base64 strings for PNG; labels rendered once, only when wanted', async () => {
    const { rx, d } = await setup();
    d.subscribe({ url: rx.url, labels: true, events: ['SHIPMENT_CREATED'] });
    d.subscribe({ url: rx.url + '?form', labels: true, format: 'form', events: ['SHIPMENT_CREATED'] });
    d.subscribe({ url: rx.url + '?plain', events: ['SHIPMENT_CREATED'] });
    let renders = 0;
    d.emit('SHIPMENT_CREATED', shipment('S-ZPL', { labels: { format: 'ZPL', content: '^XA^XZ' } }));
    d.emit(
      'SHIPMENT_CREATED',
      shipment('S-PNG', {
        labels: () => {
          renders++;
          return { format: 'PNG', content: ['iVBORw0KGgo1', 'iVBORw0KGgo2'] };
        },
      }),
    );
    await rx.waitFor(6);
    const json = rx.requests.filter((r) => r.json);
    const zpl = json.find((r) => r.json!.shipment_reference === 'S-ZPL' && 'labels' in r.json!)!;
    expect(zpl.json!.labels).toBe('^XA^XZ');
    const png = json.find((r) => r.json!.shipment_reference === 'S-PNG' && 'labels' in r.json!)!;
    expect(png.json!.labels).toEqual(['iVBORw0KGgo1', 'iVBORw0KGgo2']);
    expect(json.filter((r) => !('labels' in r.json!))).toHaveLength(2);
    const form = rx.requests.filter((r) => !r.json).map((r) => new URLSearchParams(r.body));
    expect(form.find((f) => f.get('shipment_reference') === 'S-PNG')!.get('labels[1]')).toBe('iVBORw0KGgo2');
    expect(form.find((f) => f.get('shipment_reference') === 'S-ZPL')!.get('labels')).toBe('^XA^XZ');
    expect(renders).toBe(1);
  });

  it('examplePayload gives a documented example of each of the 8 event kinds, with editable references', () => {
    expect(WEBHOOK_EVENTS).toHaveLength(8);
    for (const e of WEBHOOK_EVENTS) {
      const p = examplePayload(e, { shipment_reference: 'MY-REF', order_reference: 'MY-ORDER', parcel_reference: 'MY-PARCEL', auth_token: 'abc' }) as unknown as Record<string, unknown>;
      expect(p.event).toBe(e);
      expect(p.auth_token).toBe('abc');
      expect(p.request_token).toMatch(UUID);
      expect(p.shipment_reference).toBe('MY-REF');
      expect(p.order_reference).toBe('MY-ORDER');
      expect(Object.keys(p.recipient as object).sort()).toEqual(
        ['recipient_email', 'recipient_first_name', 'recipient_full_name', 'recipient_last_name', 'recipient_telephone'],
      );
      for (const k of ['source', 'carrier', 'carrier_account']) expect(typeof p[k]).toBe('string');
      if (e.startsWith('SHIPMENT_')) {
        expect(p.parcel_references).toEqual(['MY-PARCEL']);
        expect(Array.isArray(p.tracking_numbers)).toBe(true);
        expect(p.custom_fields).toEqual([{ key: expect.any(String), value: expect.any(String) }]);
      } else {
        expect(p.parcel_reference).toBe('MY-PARCEL');
        for (const k of ['tracking_number', 'tracking_event_code', 'tracking_event_type', 'tracking_event_name', 'tracking_event_description', 'tracking_event_time', 'tracking_url', 'tracking_url_carrier'])
          expect(p[k], `${e} ${k}`).toEqual(expect.any(String));
      }
    }
    expect((examplePayload('TRACKING_OUT_FOR_DELIVERY') as { tracking_event_type: string }).tracking_event_type).toBe('Out for Delivery');
    expect((examplePayload('SHIPMENT_CREATED', { labels: { format: 'PNG', content: ['a'] } }) as { labels: unknown }).labels).toEqual(['a']);
  });

  it('formEncode writes nested arrays of objects in bracket notation', () => {
    expect(formEncode({ a: 1, b: [{ k: 'x y' }], c: { d: null, e: true } })).toBe('a=1&b%5B0%5D%5Bk%5D=x%20y&c%5Bd%5D=&c%5Be%5D=1');
  });
});

describe('delivery', () => {
  it('emit returns at once without waiting for the handler', async () => {
    const { rx, d } = await setup();
    d.subscribe({ url: rx.url });
    const n = d.emit('SHIPMENT_CREATED', shipment());
    expect(n).toBe(1);
    expect(rx.requests).toHaveLength(0);
    expect(d.deliveries()).toHaveLength(0);
    await rx.waitFor(1);
  });

  it('retries failed requests with exponential back-off, keeping the request_token, until a 2xx', async () => {
    const { rx, d } = await setup({ baseDelayMs: 40 });
    rx.script = [500, 503];
    const sub = d.subscribe({ url: rx.url, retries: 3 });
    d.emit('SHIPMENT_CREATED', shipment());
    await rx.waitFor(3);
    await d.drain(2000);
    const tokens = rx.requests.map((r) => r.json!.request_token);
    expect(new Set(tokens).size).toBe(1);
    const gap1 = rx.requests[1].at - rx.requests[0].at;
    const gap2 = rx.requests[2].at - rx.requests[1].at;
    expect(gap1).toBeGreaterThanOrEqual(35);
    expect(gap2).toBeGreaterThanOrEqual(75);
    const log = d.deliveries();
    expect(log.map((x) => [x.attempt, x.status, x.ok])).toEqual([
      [1, 500, false],
      [2, 503, false],
      [3, 200, true],
    ]);
    expect(log.every((x) => x.subscription_id === sub.id && x.request_token === tokens[0] && x.event === 'SHIPMENT_CREATED')).toBe(true);
    expect(log[0].error).toBe('HTTP 500');
    expect(d.subscription(sub.id)!.status).toBe('active');
    expect(rx.requests).toHaveLength(3);
  });

  it('gives up on an event after `retries` retries and moves on to the next one', async () => {
    const { rx, d } = await setup();
    rx.script = [500, 500, 500];
    d.subscribe({ url: rx.url, retries: 2 });
    d.emit('SHIPMENT_CREATED', shipment('A'));
    d.emit('SHIPMENT_CREATED', shipment('B'));
    await rx.waitFor(4);
    await d.drain(2000);
    expect(rx.requests.map((r) => r.json!.shipment_reference)).toEqual(['A', 'A', 'A', 'B']);
    expect(d.subscriptions()[0].consecutive_failures).toBe(0);
  });

  it('delivers each subscription’s events in order, a retrying event holding back the ones after it', async () => {
    const { rx, d } = await setup();
    rx.script = [500];
    d.subscribe({ url: rx.url, retries: 3 });
    for (let i = 0; i < 15; i++) d.emit('SHIPMENT_CREATED', shipment(`S${i}`));
    await rx.waitFor(16);
    await d.drain(2000);
    const refs = rx.requests.map((r) => r.json!.shipment_reference);
    expect(refs).toEqual(['S0', ...Array.from({ length: 15 }, (_, i) => `S${i}`)]);
  });

  it('pauses a webhook after repeated failed events; paused means no deliveries; resume reinstates it', async () => {
    const changes: string[] = [];
    const { rx, d } = await setup({ pauseAfterFailedEvents: 3, onSubscriptionChange: (s) => changes.push(s.status) });
    rx.fallback = 500;
    const sub = d.subscribe({ url: rx.url, retries: 1 });
    for (let i = 0; i < 5; i++) d.emit('SHIPMENT_CREATED', shipment(`F${i}`));
    await rx.waitFor(6);
    await d.drain(2000);
    const s = d.subscription(sub.id)!;
    expect(s.status).toBe('paused');
    expect(s.paused_at).not.toBeNull();
    expect(s.last_error).toContain('HTTP 500');
    expect(changes).toEqual(['paused']);
    // Three events, two attempts each; the two events still queued were not attempted.
    expect(rx.requests).toHaveLength(6);
    expect(s.skipped).toBe(2);
    expect(d.emit('SHIPMENT_CREATED', shipment('while-paused'))).toBe(0);
    await new Promise((r) => setTimeout(r, 60));
    expect(rx.requests).toHaveLength(6);

    rx.fallback = 200;
    expect(d.resume(sub.id)!.status).toBe('active');
    d.emit('SHIPMENT_CREATED', shipment('after-resume'));
    await rx.waitFor(7);
    expect(rx.requests[6].json!.shipment_reference).toBe('after-resume');
  });

  it('pauses a webhook whose handler is unreachable, recording the connection error', async () => {
    const dead = await new Receiver().start();
    const url = dead.url;
    await dead.stop();
    const d = new WebhookDispatcher({ baseDelayMs: 10, pauseAfterUnreachable: 3 });
    cleanups.push(() => d.close());
    const sub = d.subscribe({ url, retries: 5 });
    d.emit('SHIPMENT_CREATED', shipment());
    await d.drain(3000);
    expect(d.subscription(sub.id)!.status).toBe('paused');
    const log = d.deliveries();
    expect(log).toHaveLength(3);
    expect(log.every((x) => x.status === null && x.ok === false && x.error === 'ECONNREFUSED')).toBe(true);
  });

  it('an attempt that gets no answer within the timeout counts as failed', async () => {
    const { rx, d } = await setup({ timeoutMs: 100 });
    rx.hang = true;
    d.subscribe({ url: rx.url, retries: 0 });
    d.emit('SHIPMENT_CREATED', shipment());
    await d.drain(3000);
    expect(d.deliveries().map((x) => [x.status, x.error])).toEqual([[null, 'timeout']]);
  });

  it('close() stops pending retries; reset() drops subscriptions and the delivery log', async () => {
    const { rx, d } = await setup({ baseDelayMs: 300 });
    rx.fallback = 500;
    d.subscribe({ url: rx.url, retries: 3 });
    d.emit('SHIPMENT_CREATED', shipment());
    await rx.waitFor(1);
    const t0 = performance.now();
    await d.close();
    // It does not sleep through the 300 ms back-off, and the retry never happens.
    expect(performance.now() - t0).toBeLessThan(250);
    await new Promise((r) => setTimeout(r, 450));
    expect(rx.requests).toHaveLength(1);
    expect(d.emit('SHIPMENT_CREATED', shipment())).toBe(0);

    const d2 = new WebhookDispatcher({ baseDelayMs: 10 });
    cleanups.push(() => d2.close());
    d2.subscribe({ url: rx.url, retries: 0 });
    d2.emit('SHIPMENT_CREATED', shipment());
    await d2.drain(2000);
    expect(d2.deliveries()).toHaveLength(1);
    d2.reset();
    expect(d2.subscriptions()).toEqual([]);
    expect(d2.deliveries()).toEqual([]);
  });
});

describe('subscriptions', () => {
  it('refuses non-http(s) URLs, unknown events, bad formats and retry counts with field messages', () => {
    const d = new WebhookDispatcher();
    const errorsOf = (input: Parameters<WebhookDispatcher['subscribe']>[0]) => {
      try {
        d.subscribe(input);
      } catch (e) {
        expect(e).toBeInstanceOf(WebhookSubscriptionError);
        return (e as WebhookSubscriptionError).errors;
      }
      throw new Error('expected a WebhookSubscriptionError');
    };
    expect(Object.keys(errorsOf({ url: 'ftp://127.0.0.1/x' }))).toEqual(['url']);
    expect(Object.keys(errorsOf({ url: 'file:///etc/passwd' }))).toEqual(['url']);
    expect(Object.keys(errorsOf({ url: 'not a url' }))).toEqual(['url']);
    expect(errorsOf({ url: '' }).url).toEqual(['The url field is required.']);
    expect(Object.keys(errorsOf({ url: 'http://127.0.0.1/', events: ['SHIPMENT_EXPLODED'] }))).toEqual(['events.0']);
    expect(Object.keys(errorsOf({ url: 'http://127.0.0.1/', format: 'xml' as never }))).toEqual(['format']);
    expect(Object.keys(errorsOf({ url: 'http://127.0.0.1/', retries: -1 }))).toEqual(['retries']);
    expect(d.subscriptions()).toEqual([]);
  });

  it('fills defaults: json, all events, 3 retries, a generated auth token; restore() brings saved ones back', () => {
    const d = new WebhookDispatcher();
    const s = d.subscribe({ url: 'https://127.0.0.1:9/hook', name: 'mine' });
    expect(s).toMatchObject({ format: 'json', events: [], retries: 3, status: 'active', name: 'mine', labels: false });
    expect(s.auth_token).toMatch(/^whk_[0-9a-f]{32}$/);
    const d2 = new WebhookDispatcher();
    d2.restore(d.subscriptions());
    expect(d2.subscriptions()).toEqual([s]);
    expect(d2.unsubscribe(s.id)).toBe(true);
    expect(d2.subscriptions()).toEqual([]);
  });
});
