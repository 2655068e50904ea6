// A loopback proxy in front of the sandbox that records every request (method, path, JSON body), so tests can
// assert on exactly what `ship` sent — or that it sent nothing.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeEach } from 'vitest';
import { startTestSandbox, type TestSandbox } from '../../helpers/sandbox.js';

/** One request as the proxy saw it. */
export interface Recorded {
  method: string;
  path: string;
  body: any;
  /** The target's answer status (unset when the proxy answered itself or the request failed). */
  status?: number;
}

/** A running recording proxy. */
export interface RecordingProxy {
  /** Base URL to give `ship` (same path as the target's, e.g. http://127.0.0.1:PORT/v1.2). */
  baseUrl: string;
  requests: Recorded[];
  /** Bodies of POST /shipments, in arrival order. */
  creates(): any[];
  /** Bodies of the POST /shipments the target created (answered 2xx): a resend refused as a duplicate is not one. */
  created(): any[];
  /** The next N successful POST /shipments are forwarded, then the client's connection is cut: created, answer lost. */
  dropNextCreates: number;
  /** The next N POST /shipments are answered 503 by the proxy, never forwarded: nothing created, outcome unknown to the client. */
  failNextCreates: number;
  close(): Promise<void>;
}

/** Optional hooks for tests that need more than recording (e.g. acting on the target mid-run). */
export interface RecordingProxyHooks {
  /** Called as each request arrives, after it is recorded and before it is forwarded. */
  onRequest?(rec: Recorded): void;
  /** Called with the target's answer before it is passed on; `headers` are the ones forwarded. Throwing cuts the connection. */
  onResponse?(rec: Recorded, status: number, headers: Record<string, string>): void | Promise<void>;
  /** Called after onRequest; an answer returned here is sent as JSON instead of forwarding (the target never sees it). */
  respond?(rec: Recorded): { status: number; body: unknown } | undefined;
}

/** Starts a proxy on 127.0.0.1:0 forwarding to `targetBaseUrl` (e.g. the sandbox's http://127.0.0.1:N/v1.2). */
export async function startRecordingProxy(targetBaseUrl: string, hooks: RecordingProxyHooks = {}): Promise<RecordingProxy> {
  const target = new URL(targetBaseUrl);
  const requests: Recorded[] = [];
  const self = { dropNextCreates: 0, failNextCreates: 0 } as RecordingProxy;
  const server: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks);
    let body: unknown = undefined;
    if (raw.length) {
      try {
        body = JSON.parse(raw.toString('utf8'));
      } catch {
        body = raw.toString('utf8');
      }
    }
    const rec: Recorded = { method: req.method ?? 'GET', path: req.url ?? '/', body };
    requests.push(rec);
    hooks.onRequest?.(rec);
    if (req.method === 'POST' && /\/shipments$/.test((req.url ?? '').split('?')[0]) && self.failNextCreates > 0) {
      self.failNextCreates--;
      res.writeHead(503, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ message: 'Service Unavailable' }));
      return;
    }
    const canned = hooks.respond?.(rec);
    if (canned) {
      res.writeHead(canned.status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(canned.body));
      return;
    }
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers)) {
      if (typeof v === 'string' && !['host', 'connection', 'content-length', 'transfer-encoding'].includes(k)) headers[k] = v;
    }
    try {
      const up = await fetch(`${target.origin}${req.url}`, {
        method: req.method,
        headers,
        body: req.method === 'GET' || req.method === 'HEAD' ? undefined : raw,
      });
      const out = Buffer.from(await up.arrayBuffer());
      rec.status = up.status;
      await hooks.onResponse?.(rec, up.status, headers);
      const isCreate = req.method === 'POST' && /\/shipments$/.test((req.url ?? '').split('?')[0]);
      if (isCreate && up.status < 300 && self.dropNextCreates > 0) {
        self.dropNextCreates--;
        req.socket.destroy();
        return;
      }
      const h: Record<string, string> = {};
      up.headers.forEach((v, k) => {
        if (!['content-length', 'transfer-encoding', 'connection', 'content-encoding', 'keep-alive'].includes(k)) h[k] = v;
      });
      res.writeHead(up.status, h);
      res.end(out);
    } catch {
      req.socket.destroy();
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  Object.assign(self, {
    baseUrl: `http://127.0.0.1:${port}${target.pathname.replace(/\/$/, '')}`,
    requests,
    creates: () => requests.filter((r) => r.method === 'POST' && /\/shipments$/.test(r.path.split('?')[0])).map((r) => r.body),
    created: () => requests.filter((r) => r.method === 'POST' && /\/shipments$/.test(r.path.split('?')[0]) && r.status !== undefined && r.status < 300).map((r) => r.body),
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections?.();
        server.close(() => r());
      }),
  });
  return self;
}

/** A sandbox behind a recording proxy, logged in, for one test file. */
export interface ProxiedSandbox {
  sb: TestSandbox;
  proxy: RecordingProxy;
  /** Points ship at the proxy with the sandbox's API key and a fresh token. */
  env: { SHIP_BASE_URL: string; SHIP_API_KEY: string; SHIP_TOKEN: string };
}

/**
 * Starts a sandbox and a recording proxy in front of it for the calling test file: closed after the file,
 * recorded requests cleared before each test. Await it at the top level (`const { sb, proxy, env } = await …`).
 */
export function proxiedSandboxForFile(): Promise<ProxiedSandbox> {
  const started = (async (): Promise<ProxiedSandbox> => {
    const sb = await startTestSandbox();
    const proxy = await startRecordingProxy(sb.baseUrl);
    return { sb, proxy, env: { SHIP_BASE_URL: proxy.baseUrl, SHIP_API_KEY: sb.apiKey, SHIP_TOKEN: await sb.login() } };
  })();
  // Registered before any await, so the hooks belong to the file being collected.
  afterAll(async () => {
    const { sb, proxy } = await started;
    await proxy.close();
    await sb.close();
  });
  beforeEach(async () => {
    (await started).proxy.requests.length = 0;
  });
  return started;
}
