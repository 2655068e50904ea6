// A loopback HTTP server for API-layer tests: routes registered per test, every request recorded,
// unknown routes answered loudly (599) so a wrong path fails the test instead of passing by accident.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface Recorded {
  method: string;
  /** The raw request target, exactly as sent (percent-encoding preserved). */
  url: string;
  headers: IncomingHttpHeaders;
  /** Parsed JSON body, or the raw text when it is not JSON, or undefined when empty. */
  body: unknown;
  rawBody: string;
  /** Which TCP connection carried it (1-based, in order of connection). */
  connection: number;
}

export interface Reply {
  status?: number;
  body?: unknown;
  /** Sent as is instead of JSON. */
  raw?: string;
  headers?: Record<string, string>;
  /** Destroy the socket without answering. */
  destroy?: boolean;
  /** Wait before answering. */
  delayMs?: number;
}

type Handler = (req: Recorded) => Reply | Promise<Reply>;

export interface ScenarioServer {
  baseUrl: string;
  origin: string;
  requests: Recorded[];
  connections: number;
  /** Registers a reply for METHOD + raw path (with query). A function gets the recorded request. */
  on(method: string, path: string, reply: Reply | Handler | Reply[]): void;
  close(): Promise<void>;
}

/** Starts a scenario server on 127.0.0.1, port 0; the API base URL is `${origin}/v1.2`. */
export async function startScenarioServer(): Promise<ScenarioServer> {
  const routes = new Map<string, Handler>();
  const requests: Recorded[] = [];
  const sockets = new Set<Socket>();
  const socketIds = new WeakMap<Socket, number>();
  let connections = 0;

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const rawBody = Buffer.concat(chunks).toString('utf8');
      let body: unknown;
      if (rawBody !== '') {
        try {
          body = JSON.parse(rawBody);
        } catch {
          body = rawBody;
        }
      }
      const rec: Recorded = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body,
        rawBody,
        connection: socketIds.get(req.socket) ?? 0,
      };
      requests.push(rec);
      const handler = routes.get(`${rec.method} ${rec.url}`);
      const reply: Reply = handler ? await handler(rec) : { status: 599, body: { message: `no route for ${rec.method} ${rec.url}` } };
      if (reply.delayMs) await new Promise((r) => setTimeout(r, reply.delayMs));
      if (reply.destroy) {
        req.socket.destroy();
        return;
      }
      const headers: Record<string, string> = { ...(reply.headers ?? {}) };
      let payload = '';
      if (reply.raw !== undefined) payload = reply.raw;
      else if (reply.body !== undefined) {
        payload = JSON.stringify(reply.body);
        headers['content-type'] ??= 'application/json';
      }
      res.writeHead(reply.status ?? 200, headers);
      res.end(payload);
    });
  });
  server.on('connection', (s: Socket) => {
    connections++;
    socketIds.set(s, connections);
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;

  return {
    baseUrl: `${origin}/v1.2`,
    origin,
    requests,
    get connections() {
      return connections;
    },
    on(method, path, reply) {
      let handler: Handler;
      if (typeof reply === 'function') handler = reply;
      else if (Array.isArray(reply)) {
        // A sequence: each request takes the next reply; the last one repeats.
        let i = 0;
        handler = () => reply[Math.min(i++, reply.length - 1)];
      } else handler = () => reply;
      routes.set(`${method} ${path}`, handler);
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
