// A scenario server for command tests: routes registered per test on 127.0.0.1:0, every request recorded,
// unknown routes answered loudly (599) so a test never passes on a request it did not expect.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface StubRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  body: unknown;
}

export interface StubReply {
  status?: number;
  body?: unknown;
}

export type StubHandler = (req: StubRequest) => StubReply | Promise<StubReply>;

export interface StubServer {
  /** Base URL including /v1.2. */
  baseUrl: string;
  requests: StubRequest[];
  /** Registers (or replaces) the handler of `METHOD /path` (path relative to /v1.2). */
  on(route: string, handler: StubHandler | StubReply): void;
  close(): Promise<void>;
}

/** Starts a stub API on a free loopback port. */
export async function startStub(routes: Record<string, StubHandler | StubReply> = {}): Promise<StubServer> {
  const table = new Map<string, StubHandler>();
  const on = (route: string, h: StubHandler | StubReply) => table.set(route, typeof h === 'function' ? h : () => h);
  for (const [r, h] of Object.entries(routes)) on(r, h);
  const requests: StubRequest[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const url = new URL(req.url ?? '/', 'http://x');
      const text = Buffer.concat(chunks).toString('utf8');
      const path = url.pathname.replace(/^\/v1\.2/, '');
      const r: StubRequest = { method: req.method ?? 'GET', path, query: url.searchParams, headers: req.headers, body: text ? JSON.parse(text) : undefined };
      requests.push(r);
      const h = table.get(`${r.method} ${path}`);
      const reply = h ? await h(r) : { status: 599, body: { message: `stub: no route for ${r.method} ${path}`, data: null } };
      res.writeHead(reply.status ?? 200, { 'content-type': 'application/json', connection: 'close' });
      res.end(reply.body === undefined ? '' : JSON.stringify(reply.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1.2`,
    requests,
    on,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A closed loopback port: something to point --base-url at for "unreachable". */
export async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const { port } = s.address() as AddressInfo;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}
