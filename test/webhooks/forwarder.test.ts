import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { Forwarder, type ForwardReport } from '../../src/webhooks/forwarder.js';
import { freePort } from '../helpers/net.js';

interface Handler {
  url: string;
  received: Array<{ body: string; contentType: string | undefined }>;
  close(): Promise<void>;
}

const servers: Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

/** A local handler on `port` (0 = any) answering with `status(n)` for its n-th request. */
async function handler(status: (n: number, req: IncomingMessage) => number = () => 200, port = 0): Promise<Handler> {
  const received: Handler['received'] = [];
  let n = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const s = status(++n, req);
      if (s >= 200 && s < 300) received.push({ body: Buffer.concat(chunks).toString(), contentType: req.headers['content-type'] });
      res.writeHead(s).end();
    });
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(port, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    received,
    close: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

const item = (i: number, type = 'application/json') => ({ body: Buffer.from(`{"n":${i}}`), contentType: type, meta: i });

describe('Forwarder', () => {
  it('relays bodies unchanged, in order, with their content type', async () => {
    const h = await handler();
    const reports: ForwardReport<number>[] = [];
    const f = new Forwarder<number>({ url: h.url, onReport: (r) => reports.push(r) });
    f.enqueue(item(1));
    f.enqueue({ body: Buffer.from('event=X&a%5B0%5D=1'), contentType: 'application/x-www-form-urlencoded', meta: 2 });
    f.enqueue(item(3));
    await f.idle();
    expect(h.received).toEqual([
      { body: '{"n":1}', contentType: 'application/json' },
      { body: 'event=X&a%5B0%5D=1', contentType: 'application/x-www-form-urlencoded' },
      { body: '{"n":3}', contentType: 'application/json' },
    ]);
    expect(reports.map((r) => [r.type, r.item.meta, 'status' in r ? r.status : null])).toEqual([
      ['delivered', 1, 200],
      ['delivered', 2, 200],
      ['delivered', 3, 200],
    ]);
    expect(f.pending).toBe(0);
  });

  it('holds events while the handler is down and delivers all, in order, once it is up', async () => {
    const port = await freePort();
    const reports: ForwardReport<number>[] = [];
    const f = new Forwarder<number>({ url: `http://127.0.0.1:${port}/hook`, initialDelayMs: 20, maxDelayMs: 60, onReport: (r) => reports.push(r) });
    for (let i = 1; i <= 5; i++) f.enqueue(item(i));
    await new Promise((r) => setTimeout(r, 200));
    expect(f.pending).toBe(5);
    const failed = reports.filter((r) => r.type === 'attempt_failed');
    expect(failed.length).toBeGreaterThan(1);
    expect(failed.every((r) => r.type === 'attempt_failed' && r.item.meta === 1 && r.error === 'connection refused')).toBe(true);
    const h = await handler(() => 200, port);
    await f.idle();
    expect(h.received.map((r) => r.body)).toEqual([1, 2, 3, 4, 5].map((i) => `{"n":${i}}`));
    const delivered = reports.filter((r) => r.type === 'delivered');
    expect(delivered.map((r) => r.item.meta)).toEqual([1, 2, 3, 4, 5]);
    expect(delivered[0].type === 'delivered' && delivered[0].attempts).toBeGreaterThan(1);
  });

  it('retries 5xx until the handler accepts, and gives up on repeated 4xx', async () => {
    const h = await handler((n) => (n <= 2 ? 503 : n <= 7 ? 400 : 200));
    const reports: ForwardReport<number>[] = [];
    const f = new Forwarder<number>({ url: h.url, initialDelayMs: 5, maxDelayMs: 10, maxRejections: 5, onReport: (r) => reports.push(r) });
    f.enqueue(item(1));
    f.enqueue(item(2));
    await f.idle();
    // Item 1: 503, 503, then 400 ×5 → gave up after 7 attempts; item 2 then delivered at once.
    const final = reports.filter((r) => r.type !== 'attempt_failed');
    expect(final.map((r) => [r.type, r.item.meta, 'attempts' in r ? r.attempts : 0])).toEqual([
      ['gave_up', 1, 7],
      ['delivered', 2, 1],
    ]);
    expect(h.received.map((r) => r.body)).toEqual(['{"n":2}']);
  });

  it('drops (and reports) events beyond the queue bound, keeping the order of the rest', async () => {
    const port = await freePort();
    const reports: ForwardReport<number>[] = [];
    const f = new Forwarder<number>({ url: `http://127.0.0.1:${port}/`, maxQueue: 3, initialDelayMs: 10, maxDelayMs: 20, onReport: (r) => reports.push(r) });
    const accepted = [1, 2, 3, 4, 5].map((i) => f.enqueue(item(i)));
    expect(accepted).toEqual([true, true, true, false, false]);
    expect(reports.filter((r) => r.type === 'dropped').map((r) => r.item.meta)).toEqual([4, 5]);
    const h = await handler(() => 200, port);
    await f.idle();
    expect(h.received.map((r) => r.body)).toEqual(['{"n":1}', '{"n":2}', '{"n":3}']);
  });

  it('also bounds the bytes it holds', async () => {
    const port = await freePort();
    const reports: ForwardReport<number>[] = [];
    const f = new Forwarder<number>({ url: `http://127.0.0.1:${port}/`, maxQueueBytes: 1000, initialDelayMs: 1000, onReport: (r) => reports.push(r) });
    const big = (i: number) => ({ body: Buffer.alloc(400, 120), contentType: 'application/json', meta: i });
    expect([1, 2, 3].map((i) => f.enqueue(big(i)))).toEqual([true, true, false]);
    expect(reports.filter((r) => r.type === 'dropped').map((r) => r.item.meta)).toEqual([3]);
    await f.stop();
  });

  it('stop() abandons retries and returns what was not delivered', async () => {
    const port = await freePort();
    const f = new Forwarder<number>({ url: `http://127.0.0.1:${port}/`, initialDelayMs: 1000, onReport: () => {} });
    f.enqueue(item(1));
    f.enqueue(item(2));
    await new Promise((r) => setTimeout(r, 50));
    const t0 = Date.now();
    const left = await f.stop();
    expect(Date.now() - t0).toBeLessThan(500);
    expect(left.map((i) => i.meta)).toEqual([1, 2]);
    expect(f.enqueue(item(3))).toBe(false);
  });
});
