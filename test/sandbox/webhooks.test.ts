// Conformance: outbound webhooks through the control endpoint, delivered to a loopback receiver (Events: event
// kinds, payloads, label variants, handler behaviour: retries with back-off, automatic pause).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { sandboxSuite, shipment, waitFor } from './client.js';

interface Received {
  contentType: string;
  body: string;
  json: any;
  form: URLSearchParams | null;
}

let receiver: Server;
let hookUrl: string;
let received: Received[] = [];
/** Status codes the receiver answers in turn (then 200). */
let script: number[] = [];

beforeAll(async () => {
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const contentType = String(req.headers['content-type'] ?? '');
      const rec: Received = { contentType, body, json: null, form: null };
      if (contentType.includes('json')) rec.json = JSON.parse(body);
      else rec.form = new URLSearchParams(body);
      received.push(rec);
      res.statusCode = script.length ? script.shift()! : 200;
      res.end('ok');
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
});
// Registered before the sandbox's hooks, so it runs after the sandbox has closed (afterAll hooks run in reverse).
afterAll(async () => {
  await new Promise((r) => receiver.close(r));
});

const { sb, api } = await sandboxSuite({ webhooks: { baseDelayMs: 5, maxDelayMs: 20, timeoutMs: 2000, pauseAfterFailedEvents: 3, pauseAfterUnreachable: 3 } });
beforeEach(() => {
  received = [];
  script = [];
});

const deliveries = async () => (await sb.control('GET webhooks/deliveries')).data as any[];
const jsonOf = (event: string) => received.filter((r) => r.json?.event === event).map((r) => r.json);

describe('Subscriptions (control endpoint)', () => {
  it('POST /__sandbox/webhooks subscribes and answers the subscription with its auth_token', async () => {
    const r = await sb.control('webhooks', { url: hookUrl, auth_token: 'secret-1', events: ['SHIPMENT_CREATED'] });
    expect(r.data).toMatchObject({ url: hookUrl, auth_token: 'secret-1', format: 'json', events: ['SHIPMENT_CREATED'], status: 'active' });
    const list = await sb.control('GET webhooks');
    expect(list.data).toHaveLength(1);
  });

  it('bad subscriptions → 400 with field messages', async () => {
    const res = await fetch(`${sb.url}/__sandbox/webhooks`, { method: 'POST', body: JSON.stringify({ url: 'ftp://x', events: ['NOPE'], format: 'xml' }) });
    expect(res.status).toBe(400);
    const body = (await res.json()) as any;
    expect(body.message).toBe('The given data failed to pass validation.');
    expect(Object.keys(body.data).sort()).toEqual(['events.0', 'format', 'url']);
  });

  it('reset drops subscriptions', async () => {
    await sb.control('webhooks', { url: hookUrl });
    await sb.reset();
    expect((await sb.control('GET webhooks')).data).toEqual([]);
  });
});

describe('SHIPMENT_CREATED / SHIPMENT_CANCELLED payloads (Events: Payload: created and cancelled)', () => {
  it('SHIPMENT_CREATED carries the documented fields, auth_token and custom_fields with defaults, FIXED and MAPPED values', async () => {
    await api.post('/custom-fields', { name: 'PO', key: 'po_number', entity: 'SHIPMENT', data_type: 'TEXT', source: 'MAPPED', mapped_to: 'order_reference' });
    await api.post('/custom-fields', { name: 'Postcode', key: 'dest_postcode', entity: 'SHIPMENT', data_type: 'TEXT', source: 'MAPPED', mapped_to: 'to_address.postcode' });
    // "MAPPED (mapped to the attribute or custom field named in mapped_to)": any attribute of the shipment.
    await api.post('/custom-fields', { name: 'VAT', key: 'vat_copy', entity: 'SHIPMENT', data_type: 'TEXT', source: 'MAPPED', mapped_to: 'recipient_vat_number' });
    await sb.control('webhooks', { url: hookUrl, auth_token: 'tok-A', events: ['SHIPMENT_CREATED'] });
    const d = (
      await api.post('/shipments', shipment('WH-1', { recipient_vat_number: 'GB123456789', custom_fields: { gift_message: 'Enjoy', channel: 'ignored' }, parcels: [{ weight: 1 }, { weight: 2 }] }))
    ).body.data;
    await waitFor(() => jsonOf('SHIPMENT_CREATED').length === 1);
    const p = jsonOf('SHIPMENT_CREATED')[0];
    expect(p).toMatchObject({
      auth_token: 'tok-A',
      event: 'SHIPMENT_CREATED',
      shipment_reference: 'WH-1',
      parcel_references: [d[0].parcel_reference, d[1].parcel_reference],
      source: expect.any(String),
      order_reference: 'ORD-WH-1',
      carrier: 'Royal Mail',
      carrier_account: expect.any(String),
      tracking_numbers: [d[0].tracking_reference, d[1].tracking_reference],
      recipient: { recipient_full_name: 'Jane Smith', recipient_first_name: 'Jane', recipient_last_name: 'Smith', recipient_email: 'jane@example.com', recipient_telephone: '07700900123' },
    });
    expect(p.request_token).toBeTruthy();
    expect(p).not.toHaveProperty('labels');
    const cf = Object.fromEntries(p.custom_fields.map((f: any) => [f.key, f.value]));
    expect(cf).toMatchObject({ gift_message: 'Enjoy', priority: 'standard', channel: 'sandbox', po_number: 'ORD-WH-1', dest_postcode: 'N1 1AA', vat_copy: 'GB123456789' });
  });

  it('SHIPMENT_CANCELLED is emitted on cancel; events not subscribed are not sent', async () => {
    await sb.control('webhooks', { url: hookUrl, events: ['SHIPMENT_CANCELLED'] });
    await api.post('/shipments', shipment('WH-2'));
    await api.del('/shipments/WH-2');
    await waitFor(() => received.length >= 1);
    await new Promise((r) => setTimeout(r, 50));
    expect(received.map((r) => r.json.event)).toEqual(['SHIPMENT_CANCELLED']);
    expect(received[0].json.shipment_reference).toBe('WH-2');
  });

  it('label variant: a subscription with labels gets the ZPL as a string (Payload variants with labels)', async () => {
    await sb.control('webhooks', { url: hookUrl, events: ['SHIPMENT_CREATED'], labels: true });
    const d = (await api.post('/shipments', shipment('WH-3'))).body.data[0];
    await waitFor(() => received.length === 1);
    expect(typeof received[0].json.labels).toBe('string');
    expect(received[0].json.labels).toBe(d.zpl);
  });

  it('label variant with PNG labels: an array of base64 PNG strings', async () => {
    await sb.control('webhooks', { url: hookUrl, events: ['SHIPMENT_CREATED'], labels: true });
    await api.post('/shipments', shipment('WH-4', { format: 'PNG', parcels: [{ weight: 1 }, { weight: 1 }] }));
    await waitFor(() => received.length === 1, 10_000);
    const labels = received[0].json.labels;
    expect(Array.isArray(labels)).toBe(true);
    expect(labels).toHaveLength(2);
    expect(Buffer.from(labels[0], 'base64').subarray(1, 4).toString()).toBe('PNG');
  });

  it('form-encoded payloads (Configuration: JSON or HTTP form-encoded)', async () => {
    await sb.control('webhooks', { url: hookUrl, format: 'form', auth_token: 'tok-F', events: ['SHIPMENT_CREATED'] });
    await api.post('/shipments', shipment('WH-5'));
    await waitFor(() => received.length === 1);
    const f = received[0].form!;
    expect(received[0].contentType).toContain('application/x-www-form-urlencoded');
    expect(f.get('auth_token')).toBe('tok-F');
    expect(f.get('event')).toBe('SHIPMENT_CREATED');
    expect(f.get('shipment_reference')).toBe('WH-5');
    expect(f.get('recipient[recipient_full_name]')).toBe('Jane Smith');
    expect(f.get('parcel_references[0]')).toBe('WH-5-P1');
  });
});

describe('TRACKING_* payloads (Events: tracking events, sent per parcel)', () => {
  it('each advance sends TRACKING_UPDATED plus the specific kind, per parcel, with the documented fields', async () => {
    await sb.control('webhooks', { url: hookUrl, auth_token: 'tok-T' });
    const d = (await api.post('/shipments', shipment('TR-1', { parcels: [{ weight: 1 }, { weight: 1 }] }))).body.data;
    await waitFor(() => jsonOf('SHIPMENT_CREATED').length === 1);
    await sb.control('tracking/advance', { shipment_reference: 'TR-1' }); // MANIFESTED: updated only
    await sb.control('tracking/advance', { shipment_reference: 'TR-1' }); // COLLECTED
    await waitFor(() => jsonOf('TRACKING_COLLECTED').length === 2);
    expect(jsonOf('TRACKING_UPDATED')).toHaveLength(4);
    const p = jsonOf('TRACKING_COLLECTED').find((x) => x.tracking_number === d[1].tracking_reference);
    expect(p).toMatchObject({
      auth_token: 'tok-T',
      event: 'TRACKING_COLLECTED',
      shipment_reference: 'TR-1',
      parcel_reference: d[1].parcel_reference,
      order_reference: 'ORD-TR-1',
      carrier: 'Royal Mail',
      tracking_number: d[1].tracking_reference,
      tracking_event_type: 'Collected',
      tracking_event_time: expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/),
      recipient: expect.objectContaining({ recipient_full_name: 'Jane Smith' }),
    });
    for (const k of ['request_token', 'source', 'carrier_account', 'tracking_event_code', 'tracking_event_name', 'tracking_event_description', 'tracking_url', 'tracking_url_carrier']) expect(p).toHaveProperty(k);
  });

  it('every tracking kind can be produced: IN_TRANSIT, OUT_FOR_DELIVERY, DELIVERED, DELIVERY_FAILED', async () => {
    await sb.control('webhooks', { url: hookUrl, events: ['TRACKING_IN_TRANSIT', 'TRACKING_OUT_FOR_DELIVERY', 'TRACKING_DELIVERED', 'TRACKING_DELIVERY_FAILED'] });
    await api.post('/shipments', shipment('TR-2'));
    await api.post('/shipments', shipment('TR-3'));
    await sb.control('tracking/advance', { shipment_reference: 'TR-2', to: 'IN_TRANSIT' });
    await sb.control('tracking/advance', { shipment_reference: 'TR-2', to: 'OUT_FOR_DELIVERY' });
    await sb.control('tracking/advance', { shipment_reference: 'TR-2' });
    await sb.control('tracking/advance', { shipment_reference: 'TR-3', to: 'DELIVERY_FAILED' });
    await waitFor(() => received.length === 4);
    expect(received.map((r) => r.json.event).sort()).toEqual(['TRACKING_DELIVERED', 'TRACKING_DELIVERY_FAILED', 'TRACKING_IN_TRANSIT', 'TRACKING_OUT_FOR_DELIVERY']);
  });
});

describe('Handler behaviour: retries and pause (Events: Handler behaviour; States: Webhook subscription)', () => {
  it('a failed request is retried with the same request_token until it succeeds; deliveries record every attempt', async () => {
    script = [500, 503];
    await sb.control('webhooks', { url: hookUrl, events: ['SHIPMENT_CREATED'], retries: 3 });
    await api.post('/shipments', shipment('RT-1'));
    await waitFor(() => received.length === 3);
    const ds = await waitFor(async () => {
      const list = await deliveries();
      return list.length === 3 ? list : null;
    });
    expect(ds.map((d) => [d.attempt, d.status, d.ok])).toEqual([
      [1, 500, false],
      [2, 503, false],
      [3, 200, true],
    ]);
    expect(new Set(ds.map((d) => d.request_token)).size).toBe(1);
    expect(new Set(received.map((r) => r.json.request_token)).size).toBe(1);
  });

  it('after repeated failed events the subscription is paused and later events are not sent; resume reinstates it', async () => {
    script = Array(20).fill(500);
    const sub = (await sb.control('webhooks', { url: hookUrl, events: ['SHIPMENT_CREATED'], retries: 1 })).data;
    for (let i = 0; i < 3; i++) await api.post('/shipments', shipment(`PA-${i}`));
    const paused = await waitFor(async () => {
      const s = (await sb.control('GET webhooks')).data[0];
      return s.status === 'paused' ? s : null;
    });
    expect(paused.consecutive_failures).toBe(3);
    const before = received.length;
    expect(before).toBe(6); // 3 events × (1 attempt + 1 retry)
    await api.post('/shipments', shipment('PA-after'));
    await new Promise((r) => setTimeout(r, 100));
    expect(received.length).toBe(before);

    script = [];
    const resumed = await sb.control(`webhooks/${sub.id}/resume`, {});
    expect(resumed.data.status).toBe('active');
    await api.post('/shipments', shipment('PA-resumed'));
    await waitFor(() => received.some((r) => r.json.shipment_reference === 'PA-resumed'));
  });

  it('an unreachable handler pauses the subscription', async () => {
    const dead = createServer();
    await new Promise<void>((r) => dead.listen(0, '127.0.0.1', r));
    const deadUrl = `http://127.0.0.1:${(dead.address() as AddressInfo).port}/gone`;
    await new Promise((r) => dead.close(r));
    await sb.control('webhooks', { url: deadUrl, events: ['SHIPMENT_CREATED'], retries: 5 });
    await api.post('/shipments', shipment('UN-1'));
    const s = await waitFor(async () => {
      const x = (await sb.control('GET webhooks')).data[0];
      return x.status === 'paused' ? x : null;
    });
    expect(s.last_error).toMatch(/unreachable/);
    const ds = await deliveries();
    expect(ds.every((d) => d.status === null && !d.ok)).toBe(true);
  });
});
