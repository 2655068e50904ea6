// A loopback proxy in front of the sandbox for smoke tests: records every request and can fail or delay
// chosen ones, so a test can break exactly one step (e.g. the label) and watch the cleanup happen.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';

/** One request that went through the proxy. */
export interface ProxiedRequest {
  method: string;
  path: string;
  status: number;
}

/** What to do with a request instead of (or before) passing it on. */
export interface ProxyAction {
  /** Answer with this status (and an API-style error body) instead of forwarding. */
  status?: number;
  /** Wait this long first. */
  delayMs?: number;
  /** Pass the request on, but answer the client with this status instead (an answer lost on the way back). */
  loseAnswer?: number;
}

export interface TestProxy {
  /** Base URL with the same path as the target's (…/v1.2). */
  baseUrl: string;
  log: ProxiedRequest[];
  /** Called for each request; return an action to fail or delay it. */
  rule: (method: string, path: string) => ProxyAction | undefined;
  close(): Promise<void>;
}

/** Starts a proxy on 127.0.0.1 in front of `targetBaseUrl` (e.g. the sandbox's http://127.0.0.1:PORT/v1.2). */
export async function startProxy(targetBaseUrl: string): Promise<TestProxy> {
  const target = new URL(targetBaseUrl);
  const proxy: TestProxy = { baseUrl: '', log: [], rule: () => undefined, close: async () => {} };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const method = req.method ?? 'GET';
        const path = (req.url ?? '/').split('?')[0];
        const action = proxy.rule(method, path);
        if (action?.delayMs) await new Promise((r) => setTimeout(r, action.delayMs));
        if (action?.status) {
          proxy.log.push({ method, path, status: action.status });
          res.writeHead(action.status, { 'content-type': 'application/json' }).end(JSON.stringify({ message: 'injected by the test proxy', data: null }));
          return;
        }
        const headers: Record<string, string> = {};
        for (const [k, v] of Object.entries(req.headers)) if (k !== 'host' && k !== 'connection' && typeof v === 'string') headers[k] = v;
        try {
          const up = await request(`${target.origin}${req.url}`, { method: method as 'GET', headers, body: chunks.length ? Buffer.concat(chunks) : undefined });
          const body = Buffer.from(await up.body.arrayBuffer());
          proxy.log.push({ method, path, status: up.statusCode });
          if (action?.loseAnswer) {
            res.writeHead(action.loseAnswer, { 'content-type': 'application/json' }).end(JSON.stringify({ message: 'answer lost by the test proxy', data: null }));
            return;
          }
          const out: Record<string, string> = {};
          for (const [k, v] of Object.entries(up.headers)) if (typeof v === 'string' && k !== 'transfer-encoding' && k !== 'connection') out[k] = v;
          out['content-length'] = String(body.length);
          res.writeHead(up.statusCode, out).end(body);
        } catch {
          proxy.log.push({ method, path, status: 502 });
          res.writeHead(502).end();
        }
      })();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  proxy.baseUrl = `http://127.0.0.1:${port}${target.pathname.replace(/\/+$/, '')}`;
  proxy.close = () =>
    new Promise<void>((r) => {
      server.closeAllConnections();
      server.close(() => r());
    });
  return proxy;
}
