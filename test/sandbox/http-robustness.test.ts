// The sandbox as an HTTP server under abuse: bodies over the limit, requests node:http cannot parse, and a close
// while requests are in flight. Every answer is the API's envelope; nothing resets a connection it could answer.
import { connect } from 'node:net';
import { Readable } from 'node:stream';
import { request } from 'undici';
import { describe, expect, it } from 'vitest';
import { isJsonMediaType } from '../../src/sandbox/server.js';
import { startTestSandbox } from '../helpers/sandbox.js';
import { call, sandboxSuite } from './client.js';

const { sb, api } = await sandboxSuite();

/** Writes raw bytes on a fresh connection; resolves to everything read until the server closes it. */
function raw(port: number, data: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = connect(port, '127.0.0.1');
    let out = '';
    s.setEncoding('latin1');
    s.on('data', (d: string) => (out += d));
    s.on('error', () => undefined);
    s.on('close', () => resolve(out));
    const t = setTimeout(() => {
      s.destroy();
      reject(new Error(`no close; read so far: ${out}`));
    }, 5000);
    s.on('close', () => clearTimeout(t));
    s.write(data, 'latin1');
  });
}

function envelopeOf(answer: string): { status: number; body: any } {
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1]);
  return { status, body: JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)) };
}

const BIG = 21 * 1024 * 1024;

describe('request bodies over the 20 MiB limit', () => {
  it('a declared Content-Length over the limit gets 413 with the envelope (no reset)', async () => {
    const r = await request(`${sb.baseUrl}/shipments`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-service-api-key': sb.apiKey },
      body: Buffer.alloc(BIG, 0x20),
    });
    expect(r.statusCode).toBe(413);
    expect(await r.body.json()).toEqual({ message: expect.stringContaining('larger than'), data: null });
  });

  it('a chunked body that grows past the limit gets 413 with the envelope (no reset)', async () => {
    let sent = 0;
    const body = Readable.from(
      (async function* () {
        while (sent < BIG) {
          sent += 1024 * 1024;
          yield Buffer.alloc(1024 * 1024, 0x20);
        }
      })(),
    );
    const r = await request(`${sb.baseUrl}/shipments`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-service-api-key': sb.apiKey },
      body,
    });
    expect(r.statusCode).toBe(413);
    expect(((await r.body.json()) as { data: unknown }).data).toBeNull();
    // The server is still fine.
    expect((await fetch(`${sb.url}/__sandbox/health`)).status).toBe(200);
  });

  it('Expect: 100-continue with a body over the limit is refused before the body is sent', async () => {
    const answer = await raw(
      sb.port,
      `POST /v1.2/shipments HTTP/1.1\r\nHost: x\r\ncontent-type: application/json\r\ncontent-length: ${BIG}\r\nexpect: 100-continue\r\n\r\n`,
    );
    expect(answer).not.toContain('100 Continue');
    expect(envelopeOf(answer).status).toBe(413);
  });
});

describe('requests node:http cannot parse', () => {
  it('a malformed request line gets 400 with the envelope', async () => {
    const { status, body } = envelopeOf(await raw(sb.port, 'GARBAGE\r\n\r\n'));
    expect(status).toBe(400);
    expect(body).toEqual({ message: expect.any(String), data: null });
  });

  it('a malformed chunked body gets 400 with the envelope', async () => {
    const { status, body } = envelopeOf(
      await raw(sb.port, `POST /v1.2/tokens HTTP/1.1\r\nHost: x\r\ntransfer-encoding: chunked\r\n\r\nzz\r\n`),
    );
    expect(status).toBe(400);
    expect(body.data).toBeNull();
  });

  it('a very long URL gets 431 with the envelope, and the server goes on', async () => {
    const { status, body } = envelopeOf(await raw(sb.port, `GET /v1.2/${'a'.repeat(100_000)} HTTP/1.1\r\nHost: x\r\n\r\n`));
    expect(status).toBe(431);
    expect(body).toEqual({ message: expect.any(String), data: null });
    expect((await fetch(`${sb.url}/__sandbox/health`)).status).toBe(200);
  });
});

describe('close() with requests in flight', () => {
  it('lets a slow request finish (answered, with Connection: close) instead of resetting it', async () => {
    const own = await startTestSandbox();
    let closed: Promise<void> | undefined;
    try {
      await own.control('faults', { latency_ms: 600 });
      const pending = request(`${own.baseUrl}/brands`, { headers: { 'x-service-api-key': own.apiKey } });
      await new Promise((r) => setTimeout(r, 100));
      closed = own.close();
      const r = await pending;
      expect(r.statusCode).toBe(401);
      expect(r.headers.connection).toBe('close');
      expect(((await r.body.json()) as { data: unknown }).data).toBeNull();
    } finally {
      await (closed ?? own.close());
    }
  });

  it('does not wait for idle keep-alive connections', async () => {
    const own = await startTestSandbox();
    const r = await request(`${own.url}/__sandbox/health`);
    await r.body.dump();
    const t0 = performance.now();
    await own.close();
    expect(performance.now() - t0).toBeLessThan(1500);
  });
});

describe('methods: HEAD, OPTIONS, 405', () => {
  it('HEAD on a GET route answers as GET would: same status and headers, content-length of the GET body, no body', async () => {
    const token = await sb.login();
    for (const path of ['/brands', '/skus?page=2', '/locations/NOPE']) {
      const got = await call(sb, 'GET', path, undefined, { token });
      const head = await request(`${sb.baseUrl}${path}`, { method: 'HEAD', headers: { 'x-service-api-key': sb.apiKey, 'x-service-token': token } });
      const body = await head.body.text();
      expect(head.statusCode, path).toBe(got.status);
      expect(body).toBe('');
      expect(head.headers['content-type']).toBe(got.headers.get('content-type'));
      expect(Number(head.headers['content-length'])).toBe(Buffer.byteLength(JSON.stringify(got.body)));
    }
    // Credentials are checked as for GET.
    const anon = await request(`${sb.baseUrl}/brands`, { method: 'HEAD' });
    await anon.body.dump();
    expect(anon.statusCode).toBe(401);
  });

  it('HEAD on a path without a GET route is 405; control endpoints answer HEAD too', async () => {
    const head = await request(`${sb.baseUrl}/tokens/x`, { method: 'HEAD', headers: { 'x-service-api-key': sb.apiKey } });
    await head.body.dump();
    expect(head.statusCode).toBe(404);
    const post = await request(`${sb.baseUrl}/shipments/get-services`, { method: 'HEAD', headers: { 'x-service-api-key': sb.apiKey } });
    await post.body.dump();
    expect(post.statusCode).toBe(405);
    expect(post.headers.allow).toBe('POST, OPTIONS'); // a fixed path: DELETE /shipments/:ref does not take it
    const health = await request(`${sb.url}/__sandbox/health`, { method: 'HEAD' });
    expect(await health.body.text()).toBe('');
    expect(health.statusCode).toBe(200);
  });

  it('a method a path has no route for is 405 with Allow listing its methods (HEAD beside GET, OPTIONS)', async () => {
    const token = await sb.login();
    const r = await call(sb, 'PUT', '/tokens', {}, { token });
    expect(r.status).toBe(405);
    expect(r.headers.get('allow')).toBe('POST, GET, HEAD, DELETE, OPTIONS');
    expect(r.body).toEqual({ message: expect.stringContaining('PUT is not allowed'), data: null });
    const skus = await call(sb, 'DELETE', '/skus/X', undefined, { token });
    expect(skus.status).toBe(405);
    expect(skus.headers.get('allow')).toBe('GET, HEAD, PUT, PATCH, OPTIONS');
    const control = await fetch(`${sb.url}/__sandbox/reset`, { method: 'GET' });
    expect(control.status).toBe(405);
    expect(control.headers.get('allow')).toBe('POST, OPTIONS');
  });

  it('a request target in absolute form (as sent through a proxy) routes like its path', async () => {
    const token = await sb.login();
    const answer = await raw(
      sb.port,
      `GET http://127.0.0.1:${sb.port}/v1.2/brands?x=1 HTTP/1.1\r\nHost: 127.0.0.1:${sb.port}\r\nx-service-api-key: ${sb.apiKey}\r\nx-service-token: ${token}\r\nConnection: close\r\n\r\n`,
    );
    const { status, body } = envelopeOf(answer);
    expect(status).toBe(200);
    expect(body.data.length).toBeGreaterThan(0);
    const { originFormOf } = await import('../../src/sandbox/server.js');
    expect(originFormOf('http://h:1')).toBe('/');
    expect(originFormOf('HTTP://h:1?q=1')).toBe('/?q=1');
    expect(originFormOf('/v1.2/brands')).toBe('/v1.2/brands');
  });

  it('CONNECT gets 405 with the envelope instead of a dropped connection', async () => {
    const { status, body } = envelopeOf(await raw(sb.port, 'CONNECT 127.0.0.1:80 HTTP/1.1\r\nHost: 127.0.0.1:80\r\n\r\n'));
    expect(status).toBe(405);
    expect(body).toEqual({ message: expect.stringContaining('CONNECT'), data: null });
    expect((await fetch(`${sb.url}/__sandbox/health`)).status).toBe(200);
  });

  it('OPTIONS answers 200 with Allow and the envelope, without credentials; unknown paths stay 404', async () => {
    const r = await fetch(`${sb.baseUrl}/shipments/ABC/events`, { method: 'OPTIONS' });
    expect(r.status).toBe(200);
    expect(r.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
    expect(await r.json()).toEqual({ message: 'Allowed methods: GET, HEAD, OPTIONS.', data: null });
    expect((await fetch(`${sb.baseUrl}/nowhere`, { method: 'OPTIONS' })).status).toBe(404);
  });
});

describe('request Content-Type (Conventions: bodies are JSON, Content-Type: application/json)', () => {
  const login = JSON.stringify({ username: 'demo@example.com', password: 'demo-password' });
  const post = (path: string, body: string, headers: Record<string, string>) =>
    request(`${sb.baseUrl}${path}`, { method: 'POST', headers: { 'x-service-api-key': sb.apiKey, ...headers }, body });

  it('a body sent form-encoded, as text/plain or without a Content-Type is refused: 400 with the envelope, nothing created', async () => {
    const cases: Array<[Record<string, string>, string]> = [
      [{ 'content-type': 'application/x-www-form-urlencoded' }, 'username=demo%40example.com&password=demo-password'],
      [{ 'content-type': 'text/plain;charset=UTF-8' }, login],
      [{}, login],
    ];
    for (const [headers, body] of cases) {
      const r = await post('/tokens', body, headers);
      expect(r.statusCode, JSON.stringify(headers)).toBe(400);
      const answer = (await r.body.json()) as { message: string; data: unknown };
      expect(answer).toEqual({ message: expect.stringContaining('must be JSON, sent with Content-Type: application/json'), data: null });
      expect(answer.message).toContain(headers['content-type'] ?? 'no Content-Type');
    }
    const token = await sb.login();
    const sent = await request(`${sb.baseUrl}/shipments`, {
      method: 'POST',
      headers: { 'x-service-api-key': sb.apiKey, 'x-service-token': token, 'content-type': 'text/plain' },
      body: JSON.stringify({ shipment_reference: 'CT-1', to_address: { name: 'A', line_1: 'B', city: 'C', postcode: 'D', country: 'GB' }, parcels: [{ weight: 100 }] }),
    });
    await sent.body.dump();
    expect(sent.statusCode).toBe(400);
    expect((await api.get('/shipments/CT-1/events')).status).toBe(404);
  });

  it('accepts application/json with parameters and in any letter case, and +json types', async () => {
    for (const type of ['application/json', 'application/json; charset=utf-8', 'Application/JSON;charset=UTF-8', 'application/vnd.api+json', 'application/json;', 'application/json; charset="utf-8"', 'application/problem+json; charset=utf-8']) {
      const r = await post('/tokens', login, { 'content-type': type });
      expect(r.statusCode, type).toBe(200);
      await r.body.dump();
    }
  });

  it('refuses a JSON body under a type that only looks like JSON, or under a header that is no media type', async () => {
    for (const type of ['text/json', 'application/jsonx', 'application/+json', 'application/json+xml', 'json', 'application/json, text/plain', 'application /json', 'application/json garbage']) {
      const r = await post('/tokens', login, { 'content-type': type });
      expect(r.statusCode, type).toBe(400);
      expect(((await r.body.json()) as { message: string }).message, type).toContain('must be JSON, sent with Content-Type: application/json');
    }
  });

  it('isJsonMediaType: application/json and application/…+json with any parameters; anything else, or no header, is not', () => {
    for (const yes of ['application/json', 'APPLICATION/JSON', 'application/json;charset=utf-8', 'application/vnd.api+json', 'application/a+b+json', ' application/json ']) {
      expect(isJsonMediaType(yes), yes).toBe(true);
    }
    for (const no of [undefined, '', ' ', 'application', 'application/', '/json', 'application/json/x', 'text/plain', 'application/json-patch', 'multipart/form-data; boundary=x', 'application/*']) {
      expect(isJsonMediaType(no), String(no)).toBe(false);
    }
  });

  it('a bodiless request needs no Content-Type (PUT print without a body, DELETE)', async () => {
    const token = await sb.login();
    const h = { 'x-service-api-key': sb.apiKey, 'x-service-token': token };
    const created = await api.post('/shipments', { shipment_reference: 'CT-2', to_address: { name: 'A', line_1: 'B', city: 'C', postcode: 'D', country: 'GB' }, parcels: [{ weight: 100 }] });
    expect(created.status).toBe(201);
    const print = await request(`${sb.baseUrl}/shipments/CT-2/print`, { method: 'PUT', headers: h });
    expect(print.statusCode).toBe(200);
    await print.body.dump();
    const cancel = await request(`${sb.baseUrl}/shipments/CT-2`, { method: 'DELETE', headers: { ...h, 'content-type': 'text/plain' } });
    expect(cancel.statusCode).toBe(200);
    await cancel.body.dump();
  });
});

describe('server limits (a stuck or greedy client cannot hold the sandbox)', () => {
  /** Opens a connection, writes `data`, and resolves with what came back and when the server closed it. */
  function stalled(port: number, data: string): Promise<{ answer: string; ms: number }> {
    return new Promise((resolve) => {
      const t0 = performance.now();
      const s = connect(port, '127.0.0.1');
      let answer = '';
      s.setEncoding('latin1');
      s.on('data', (d: string) => (answer += d));
      s.on('error', () => undefined);
      s.on('close', () => resolve({ answer, ms: performance.now() - t0 }));
      if (data) s.write(data, 'latin1');
    });
  }

  it('defaults: headers within 10 s, a whole request within 60 s, 30 s keep-alive, at most 1024 connections', async () => {
    const { SERVER_LIMITS } = await import('../../src/sandbox/server.js');
    expect(SERVER_LIMITS).toMatchObject({ headersMs: 10_000, requestMs: 60_000, keepAliveMs: 30_000, maxConnections: 1024 });
    const r = await request(`${sb.url}/__sandbox/health`);
    await r.body.dump();
    expect(r.headers['keep-alive']).toBe('timeout=30');
  });

  it('a client that sends nothing, stops inside its headers or inside its body gets 408 with the envelope, and loses the connection', async () => {
    const own = await startTestSandbox({ limits: { headersMs: 300, requestMs: 700, checkIntervalMs: 50 } });
    try {
      const cases = [
        ['nothing', ''],
        ['half the headers', 'GET /v1.2/brands HTTP/1.1\r\nHost: x\r\n'],
        ['half the body', 'POST /v1.2/tokens HTTP/1.1\r\nHost: x\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{"user'],
      ] as const;
      const results = await Promise.all(cases.map(([, data]) => stalled(own.port, data)));
      results.forEach(({ answer, ms }, i) => {
        expect(envelopeOf(answer), cases[i][0]).toEqual({ status: 408, body: { message: 'The request was not received in time.', data: null } });
        expect(ms, cases[i][0]).toBeLessThan(3000);
      });
      // The stuck body took longer than stuck headers: the request timeout, not the headers one, ended it.
      expect(results[2].ms).toBeGreaterThan(600);
      expect((await fetch(`${own.url}/__sandbox/health`)).status).toBe(200);
    } finally {
      await own.close();
    }
  });

  it('an idle keep-alive connection outlives the headers timeout: the next request on it is served (ship reuses them)', async () => {
    const own = await startTestSandbox({ limits: { headersMs: 200, requestMs: 400, checkIntervalMs: 50, keepAliveMs: 3000 } });
    const s = connect(own.port, '127.0.0.1');
    try {
      let out = '';
      s.setEncoding('latin1');
      s.on('data', (d: string) => (out += d));
      s.write('GET /__sandbox/health HTTP/1.1\r\nHost: x\r\n\r\n');
      await new Promise((r) => setTimeout(r, 800));
      s.write('GET /__sandbox/health HTTP/1.1\r\nHost: x\r\n\r\n');
      for (let i = 0; i < 40 && (out.match(/HTTP\/1\.1 /g) ?? []).length < 2; i++) await new Promise((r) => setTimeout(r, 25));
      expect(out.match(/HTTP\/1\.1 \d+/g)).toEqual(['HTTP/1.1 200', 'HTTP/1.1 200']);
    } finally {
      s.destroy();
      await own.close();
    }
  });

  it('connections past the cap are closed as they arrive; one freed, the sandbox serves again', async () => {
    const own = await startTestSandbox({ limits: { maxConnections: 2 } });
    const held = [connect(own.port, '127.0.0.1'), connect(own.port, '127.0.0.1')];
    try {
      await Promise.all(held.map((s) => new Promise((r) => s.once('connect', r))));
      await new Promise((r) => setTimeout(r, 50));
      const refused = await stalled(own.port, 'GET /__sandbox/health HTTP/1.1\r\nHost: x\r\n\r\n');
      expect(refused.answer).toBe('');
      held[0].destroy();
      await new Promise((r) => setTimeout(r, 50));
      const served = await stalled(own.port, 'GET /__sandbox/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
      expect(served.answer).toMatch(/^HTTP\/1\.1 200 /);
    } finally {
      for (const s of held) s.destroy();
      await own.close();
    }
  });
});

describe('--log-requests', () => {
  it('logs each request without its query (a client may put a key or a token there)', async () => {
    const { startSandbox } = await import('../../src/sandbox/server.js');
    const lines: string[] = [];
    const sb = await startSandbox({ port: 0, logRequests: true, log: (l) => lines.push(l) });
    try {
      const r = await request(`${sb.baseUrl}/tokens?api_key=QUERYSECRET`, { method: 'POST' });
      await r.body.text();
      await new Promise((res) => setTimeout(res, 20));
      expect(lines.join('\n')).not.toContain('QUERYSECRET');
      expect(lines).toContainEqual(expect.stringMatching(/^POST \/v1\.2\/tokens\?\*{4} → 401 /));
    } finally {
      await sb.close();
    }
  });
});
