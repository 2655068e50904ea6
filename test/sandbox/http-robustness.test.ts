// The sandbox as an HTTP server under abuse: bodies over the limit, requests node:http cannot parse, and a close
// while requests are in flight. Every answer is the API's envelope; nothing resets a connection it could answer.
import { connect } from 'node:net';
import { Readable } from 'node:stream';
import { request } from 'undici';
import { describe, expect, it } from 'vitest';
import { startTestSandbox } from '../helpers/sandbox.js';
import { sandboxSuite } from './client.js';

const { sb } = await sandboxSuite();

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
