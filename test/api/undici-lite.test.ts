// exchange(): the thin handler the API client sends every request through (Dispatcher#dispatch), against a real
// loopback server and a MockAgent: bodies in pieces, byte-order marks, headers, aborts, and one abort listener
// per caller signal however many requests use it.
import { createServer, type Server } from 'node:http';
import { getEventListeners } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import { Agent, MockAgent } from 'undici';
import { exchange, headerValue } from '../../src/api/undici-lite.js';

let server: Server | undefined;
let agent: Agent | undefined;
afterEach(async () => {
  await agent?.close();
  agent = undefined;
  await new Promise((r) => (server ? server.close(r) : r(undefined)));
  server = undefined;
});

/** A loopback server answering every request with `handle`; resolves to its origin. */
async function serve(handle: Parameters<typeof createServer>[1]): Promise<string> {
  server = createServer(handle);
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  const addr = server.address();
  if (!addr || typeof addr === 'string') throw new Error('no address');
  agent = new Agent();
  return `http://127.0.0.1:${addr.port}`;
}

const opts = { method: 'GET' as const, headers: {}, headersTimeout: 5_000, bodyTimeout: 5_000 };

describe('exchange', () => {
  it('collects a body sent in pieces, with status and headers', async () => {
    const origin = await serve((_req, res) => {
      res.writeHead(201, { 'content-type': 'application/json', 'X-Thing': 'a' });
      res.write('{"message":"ok","da');
      setTimeout(() => res.end('ta":"é€😀"}'), 20);
    });
    const r = await exchange(agent!, `${origin}/v1.2/x?q=1`, opts).answer;
    expect(r.status).toBe(201);
    expect(JSON.parse(r.text)).toEqual({ message: 'ok', data: 'é€😀' });
    expect(headerValue(r.rawHeaders, 'content-type')).toBe('application/json');
    expect(headerValue(r.rawHeaders, 'x-thing')).toBe('a');
    expect(headerValue(r.rawHeaders, 'retry-after')).toBeUndefined();
  });

  it('drops a UTF-8 byte-order mark, as undici body.text() does', async () => {
    const origin = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"a":1}')]));
    });
    const r = await exchange(agent!, `${origin}/`, opts).answer;
    expect(r.text).toBe('{"a":1}');
  });

  it('sends the method, headers and body as given', async () => {
    let seen: { method?: string; type?: string; body: string } = { body: '' };
    const origin = await serve((req, res) => {
      let body = '';
      req.on('data', (d) => (body += d));
      req.on('end', () => {
        seen = { method: req.method, type: req.headers['content-type'], body };
        res.end('');
      });
    });
    const r = await exchange(agent!, `${origin}/shipments`, { ...opts, method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"x":"ü"}' }).answer;
    expect(r.text).toBe('');
    expect(seen).toEqual({ method: 'POST', type: 'application/json', body: '{"x":"ü"}' });
  });

  it('repeated headers are joined, names matched in any case', () => {
    const raw = [Buffer.from('Set-Thing'), Buffer.from('a'), 'set-thing', 'b', Buffer.from('Other'), Buffer.from('c')];
    expect(headerValue(raw, 'set-thing')).toBe('a, b');
    expect(headerValue(raw, 'other')).toBe('c');
  });

  it('the answer is a plain promise, its abort beside it (with a property of its own on the promise, every response lived on into the old generation)', async () => {
    const origin = await serve((_req, res) => res.end('{}'));
    const pending = exchange(agent!, `${origin}/`, opts);
    expect(Object.getPrototypeOf(pending.answer)).toBe(Promise.prototype);
    expect(Reflect.ownKeys(pending.answer)).toEqual([]);
    expect(typeof pending.abort).toBe('function');
    await pending.answer;
  });

  it('abort(reason) fails a request under way with that reason', async () => {
    const origin = await serve(() => {
      // never answers
    });
    const pending = exchange(agent!, `${origin}/slow`, opts);
    const reason = new Error('timed out after 50 ms');
    setTimeout(() => pending.abort(reason), 50);
    await expect(pending.answer).rejects.toBe(reason);
  });

  it('a caller signal already aborted fails at once, nothing sent', async () => {
    let requests = 0;
    const origin = await serve((_req, res) => {
      requests++;
      res.end('{}');
    });
    const ac = new AbortController();
    ac.abort(new Error('stop'));
    await expect(exchange(agent!, `${origin}/`, { ...opts, signal: ac.signal }).answer).rejects.toThrow('stop');
    expect(requests).toBe(0);
  });

  it('one abort listener per caller signal, however many requests use it; aborting fails those in flight', async () => {
    let held = 0;
    const origin = await serve((req, res) => {
      if (req.url === '/hang') held++;
      else res.end('{}');
    });
    const ac = new AbortController();
    for (let i = 0; i < 20; i++) await exchange(agent!, `${origin}/quick`, { ...opts, signal: ac.signal }).answer;
    expect(getEventListeners(ac.signal, 'abort')).toHaveLength(1);
    const hanging = [exchange(agent!, `${origin}/hang`, { ...opts, signal: ac.signal }).answer, exchange(agent!, `${origin}/hang`, { ...opts, signal: ac.signal }).answer];
    while (held < 2) await new Promise((r) => setTimeout(r, 5));
    expect(getEventListeners(ac.signal, 'abort')).toHaveLength(1);
    ac.abort(new Error('interrupted'));
    for (const h of hanging) await expect(h).rejects.toThrow('interrupted');
  });

  it('sequential requests reuse one keep-alive connection', async () => {
    const sockets = new Set<unknown>();
    const origin = await serve((req, res) => {
      sockets.add(req.socket);
      res.end('{}');
    });
    for (let i = 0; i < 5; i++) await exchange(agent!, `${origin}/`, opts).answer;
    expect(sockets.size).toBe(1);
  });

  it('works over a MockAgent (tests and offline users)', async () => {
    const mock = new MockAgent();
    mock.disableNetConnect();
    mock.get('http://api.test.invalid').intercept({ path: '/v1.2/users', method: 'GET' }).reply(429, { message: 'slow down' }, { headers: { 'Retry-After': '3' } });
    const r = await exchange(mock, 'http://api.test.invalid/v1.2/users', opts).answer;
    expect(r.status).toBe(429);
    expect(JSON.parse(r.text)).toEqual({ message: 'slow down' });
    expect(headerValue(r.rawHeaders, 'retry-after')).toBe('3');
    await mock.close();
  });

  it('a connection refused fails with undici\'s error', async () => {
    const origin = await serve(() => undefined);
    await new Promise((r) => server!.close(r));
    server = undefined;
    await expect(exchange(agent!, `${origin}/`, opts).answer).rejects.toMatchObject({ code: 'ECONNREFUSED' });
  });
});
