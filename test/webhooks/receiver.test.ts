import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { examplePayload, formEncode } from '../../src/sandbox/webhooks.js';
import { startReceiver, type Receiver, type ReceivedEvent, type RejectedRequest } from '../../src/webhooks/receiver.js';

let receiver: Receiver | undefined;
afterEach(async () => {
  await receiver?.close();
  receiver = undefined;
});

async function start(opts: { authToken?: string; maxBodyBytes?: number; onEvent?: (e: ReceivedEvent) => void } = {}) {
  const events: ReceivedEvent[] = [];
  const rejected: RejectedRequest[] = [];
  const errors: unknown[] = [];
  receiver = await startReceiver({
    host: '127.0.0.1',
    port: 0,
    authToken: opts.authToken,
    maxBodyBytes: opts.maxBodyBytes,
    onEvent: opts.onEvent ?? ((e) => events.push(e)),
    onRejected: (r) => rejected.push(r),
    onError: (e) => errors.push(e),
  });
  return { url: receiver.url, events, rejected, errors };
}

async function post(url: string, body: string | Buffer, contentType?: string): Promise<{ status: number; body: string }> {
  const res = await fetch(url, { method: 'POST', body, headers: contentType ? { 'content-type': contentType } : {} });
  return { status: res.status, body: await res.text() };
}

describe('webhook receiver', () => {
  it('accepts JSON and form payloads with the right token and keeps the bytes', async () => {
    const { url, events } = await start({ authToken: 'tok-123456789' });
    const a = examplePayload('SHIPMENT_CREATED', { auth_token: 'tok-123456789', request_token: 'r1' });
    const b = examplePayload('TRACKING_DELIVERED', { auth_token: 'tok-123456789', request_token: 'r2', shipment_reference: 'FORM-1' });
    expect((await post(url, JSON.stringify(a), 'application/json; charset=utf-8')).status).toBe(200);
    const formBody = formEncode(b);
    expect((await post(`${url}hooks/ship?x=1`, formBody, 'application/x-www-form-urlencoded')).status).toBe(200);
    expect(events.map((e) => [e.event, e.encoding, e.requestToken])).toEqual([
      ['SHIPMENT_CREATED', 'json', 'r1'],
      ['TRACKING_DELIVERED', 'form', 'r2'],
    ]);
    expect(events[1].payload.shipment_reference).toBe('FORM-1');
    expect(events[1].body.toString()).toBe(formBody);
    expect(events[1].contentType).toBe('application/x-www-form-urlencoded');
    expect(events[1].path).toBe('/hooks/ship');
    expect(events[0].contentType).toBe('application/json; charset=utf-8');
    expect(events.every((e) => !e.repeatOf)).toBe(true);
  });

  it('answers 401 to a wrong or missing auth_token and does not pass the event on', async () => {
    const { url, events, rejected } = await start({ authToken: 'right-token' });
    const wrong = examplePayload('SHIPMENT_CREATED', { auth_token: 'wrong-token' });
    const missing: Record<string, unknown> = { ...examplePayload('SHIPMENT_CANCELLED') };
    delete missing.auth_token;
    expect((await post(url, JSON.stringify(wrong), 'application/json')).status).toBe(401);
    expect((await post(url, JSON.stringify(missing), 'application/json')).status).toBe(401);
    expect((await post(url, formEncode(wrong), 'application/x-www-form-urlencoded')).status).toBe(401);
    expect(events).toHaveLength(0);
    expect(rejected.map((r) => [r.status, r.reason])).toEqual([
      [401, 'wrong auth_token'],
      [401, 'missing auth_token'],
      [401, 'wrong auth_token'],
    ]);
    expect(JSON.stringify(rejected)).not.toContain('wrong-token');
  });

  it('accepts everything when no token is configured', async () => {
    const { url, events } = await start();
    expect((await post(url, JSON.stringify({ event: 'SHIPMENT_CREATED' }), 'application/json')).status).toBe(200);
    expect(events).toHaveLength(1);
  });

  it('marks a repeated request_token as a repeat of the first delivery', async () => {
    const { url, events } = await start({ authToken: 't' });
    const p = JSON.stringify(examplePayload('TRACKING_COLLECTED', { auth_token: 't', request_token: 'same' }));
    for (let i = 0; i < 3; i++) expect((await post(url, p, 'application/json')).status).toBe(200);
    expect(events).toHaveLength(3);
    expect(events[0].repeatOf).toBeUndefined();
    const first = { seq: events[0].seq, receivedAt: events[0].receivedAt, event: 'TRACKING_COLLECTED', shipmentReference: 'EXAMPLE-1001' };
    expect(events[1].repeatOf).toEqual(first);
    expect(events[2].repeatOf).toEqual(first);
    // Only a small record of the first delivery is kept, never its body.
    expect(events[1].repeatOf).not.toHaveProperty('body');
  });

  it('answers 400 to malformed bodies and keeps running', async () => {
    const { url, events, rejected } = await start();
    const bad: Array<[string | Buffer, string | undefined]> = [
      ['{"event": "SHIPMENT_CREATED",', 'application/json'],
      ['[1,2,3]', 'application/json'],
      ['"just a string"', 'application/json'],
      ['{"no_event": true}', 'application/json'],
      ['{"event": 42}', 'application/json'],
      ['shipment_reference=X', 'application/x-www-form-urlencoded'],
      ['', 'application/json'],
      [Buffer.from([0x7b, 0xff, 0xfe, 0x7d]), 'application/json'],
      ['{garbage', undefined],
    ];
    for (const [body, type] of bad) expect((await post(url, body, type)).status, String(body)).toBe(400);
    expect((await post(url, 'event=X', 'multipart/form-data; boundary=x')).status).toBe(415);
    expect(rejected.filter((r) => r.status === 400)).toHaveLength(bad.length);
    // Still alive, and content sniffing works without a type.
    expect((await post(url, '{"event":"SHIPMENT_CREATED"}', undefined)).status).toBe(200);
    expect((await post(url, 'event=SHIPMENT_CANCELLED&recipient[recipient_email]=a%40b.c', 'text/plain')).status).toBe(200);
    expect(events.map((e) => e.encoding)).toEqual(['json', 'form']);
    expect(events[1].payload.recipient).toEqual({ recipient_email: 'a@b.c' });
  });

  it('refuses bodies over the limit with 413, declared or streamed', async () => {
    const { url, events } = await start({ maxBodyBytes: 1024 });
    const big = JSON.stringify({ event: 'SHIPMENT_CREATED', pad: 'x'.repeat(2000) });
    expect((await post(url, big, 'application/json')).status).toBe(413);
    // Chunked, so the size is only known while reading.
    const status = await new Promise<number>((resolve, reject) => {
      const req = httpRequest(url, { method: 'POST', headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.write('{"event":"SHIPMENT_CREATED","pad":"');
      for (let i = 0; i < 4; i++) req.write('y'.repeat(512));
      req.end('"}');
    });
    expect(status).toBe(413);
    expect(events).toHaveLength(0);
    expect((await post(url, '{"event":"SHIPMENT_CREATED"}', 'application/json')).status).toBe(200);
  });

  it('has a 32 MB default limit', async () => {
    const { url, events } = await start();
    const justUnder = JSON.stringify({ event: 'SHIPMENT_CREATED', pad: 'x'.repeat(32 * 1024 * 1024 - 100) });
    const over = JSON.stringify({ event: 'SHIPMENT_CREATED', pad: 'x'.repeat(32 * 1024 * 1024 + 10) });
    expect((await post(url, justUnder, 'application/json')).status).toBe(200);
    expect((await post(url, over, 'application/json')).status).toBe(413);
    expect(events).toHaveLength(1);
  });

  it('answers 200 before the event callback finishes, survives callbacks that throw, and GET says hello', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let handled = 0;
    const { url, errors } = await start({
      onEvent: (e) => {
        if (e.event === 'BOOM') throw new Error('callback failed');
        void gate.then(() => handled++);
      },
    });
    expect((await post(url, '{"event":"SHIPMENT_CREATED"}', 'application/json')).status).toBe(200);
    expect(handled).toBe(0);
    release();
    expect((await post(url, '{"event":"BOOM"}', 'application/json')).status).toBe(200);
    expect(errors).toHaveLength(1);
    expect((await fetch(url)).status).toBe(200);
    expect((await fetch(url, { method: 'PUT', body: 'x' })).status).toBe(405);
    expect(handled).toBe(1);
  });

  it('answers garbage on the wire with 400 and keeps serving', async () => {
    const { url } = await start();
    const { port } = new URL(url);
    const reply = await new Promise<string>((resolve) => {
      const sock = connect(Number(port), '127.0.0.1', () => sock.write('NOT HTTP AT ALL\r\n\r\n'));
      let data = '';
      sock.on('data', (d) => (data += d));
      sock.on('close', () => resolve(data));
      sock.on('error', () => resolve(data));
    });
    expect(reply).toMatch(/^HTTP\/1.1 400/);
    expect((await post(url, '{"event":"SHIPMENT_CREATED"}', 'application/json')).status).toBe(200);
  });
});
