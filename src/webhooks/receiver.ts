// The HTTP receiver behind `ship webhooks listen`: accepts JSON and form-encoded webhook POSTs, checks their
// auth_token, answers at once, and hands each accepted event to a callback. Bounded, and never throws at a client.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { tokenMatches } from './auth.js';
import { Deduper } from './dedupe.js';
import { FormError, parseForm } from './form.js';

/**
 * Request bodies larger than this are refused with 413. A delivery with labels carries one per parcel, base64
 * (a 4×6 PNG is ~50 KB): 32 MB holds a few hundred parcels' worth; 1 MB refused a 30-parcel shipment's.
 */
export const MAX_BODY_BYTES = 32 * 1024 * 1024;
/** An oversized body is read and discarded up to this much (so the client sees the 413), then the socket is cut. */
const DRAIN_LIMIT_BYTES = 40 * 1024 * 1024;

/** One accepted webhook delivery. */
export interface ReceivedEvent {
  /** 1 for the first accepted request, counting repeats. */
  seq: number;
  receivedAt: Date;
  encoding: 'json' | 'form';
  /** The request's Content-Type header as sent (forwarded unchanged). */
  contentType: string;
  /** The body bytes as received (forwarded unchanged). */
  body: Buffer;
  payload: Record<string, unknown>;
  event: string;
  requestToken?: string;
  path: string;
  remoteAddress?: string;
  /** Set when this request carries a request_token already seen: what the first delivery of it was. */
  repeatOf?: FirstSeen;
}

/** What is remembered of a first delivery for repeat detection (small: thousands are kept, bodies are not). */
export interface FirstSeen {
  seq: number;
  receivedAt: Date;
  event: string;
  shipmentReference: string;
}

/** A request answered with an error status (not an event). */
export interface RejectedRequest {
  status: number;
  reason: string;
  remoteAddress?: string;
  path: string;
}

export interface ReceiverOptions {
  host: string;
  port: number;
  /** The expected auth_token; when absent every payload is accepted. */
  authToken?: string;
  maxBodyBytes?: number;
  /** How many request tokens to remember for repeat detection. */
  dedupeLimit?: number;
  /** Called after the 200 answer has been written, once per accepted request (repeats included). */
  onEvent(e: ReceivedEvent): void;
  onRejected?(r: RejectedRequest): void;
  /** Called when a callback throws; the receiver keeps running. */
  onError?(err: unknown): void;
}

/** A running receiver. */
export interface Receiver {
  /** e.g. http://127.0.0.1:34567/ */
  readonly url: string;
  readonly port: number;
  /** Stops accepting, ends open connections, resolves when the server is closed. */
  close(): Promise<void>;
}

class HttpProblem extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** Starts the receiver and resolves once it listens. */
export async function startReceiver(opts: ReceiverOptions): Promise<Receiver> {
  const maxBody = opts.maxBodyBytes ?? MAX_BODY_BYTES;
  const dedupe = new Deduper<FirstSeen>(opts.dedupeLimit ?? 10_000);
  let seq = 0;
  const safely = (fn: () => void) => {
    try {
      fn();
    } catch (err) {
      try {
        opts.onError?.(err);
      } catch {
        // a failing error reporter must not take the server down either
      }
    }
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = (req.url ?? '/').split('?')[0];
    const remoteAddress = req.socket.remoteAddress;
    const reject = (status: number, reason: string) => {
      reply(res, status, { message: reason });
      safely(() => opts.onRejected?.({ status, reason, remoteAddress, path }));
    };

    if (req.method === 'GET' || req.method === 'HEAD') {
      // Lets a person or a health check see that the listener is up.
      reply(res, 200, { message: 'ship webhooks listen: POST webhook events here' });
      req.resume();
      return;
    }
    if (req.method !== 'POST') {
      res.setHeader('Allow', 'GET, HEAD, POST');
      reject(405, `method ${req.method} not allowed`);
      req.resume();
      return;
    }

    let body: Buffer;
    try {
      body = await readBody(req, maxBody);
    } catch (err) {
      if (err instanceof HttpProblem) {
        res.setHeader('Connection', 'close');
        reject(err.status, err.message);
        drainThenCut(req);
        return;
      }
      throw err;
    }

    let parsed: { encoding: 'json' | 'form'; payload: Record<string, unknown> };
    try {
      parsed = parseBody(body, req.headers['content-type']);
    } catch (err) {
      if (err instanceof HttpProblem) return reject(err.status, err.message);
      throw err;
    }
    const { payload, encoding } = parsed;

    if (opts.authToken !== undefined && !tokenMatches(opts.authToken, payload.auth_token)) {
      return reject(401, payload.auth_token === undefined ? 'missing auth_token' : 'wrong auth_token');
    }

    reply(res, 200, { message: 'OK' });
    const requestToken = typeof payload.request_token === 'string' ? payload.request_token : undefined;
    const received: ReceivedEvent = {
      seq: ++seq,
      receivedAt: new Date(),
      encoding,
      contentType: req.headers['content-type'] ?? (encoding === 'json' ? 'application/json' : 'application/x-www-form-urlencoded'),
      body,
      payload,
      event: payload.event as string,
      requestToken,
      path,
      remoteAddress,
    };
    const ref = payload.shipment_reference;
    received.repeatOf = dedupe.check(requestToken, {
      seq: received.seq,
      receivedAt: received.receivedAt,
      event: received.event,
      shipmentReference: typeof ref === 'string' || typeof ref === 'number' ? String(ref) : '',
    });
    safely(() => opts.onEvent(received));
  };

  const server: Server = createServer({ requestTimeout: 30_000, headersTimeout: 10_000 }, (req, res) => {
    handle(req, res).catch((err: unknown) => {
      safely(() => opts.onError?.(err));
      if (!res.headersSent) reply(res, 500, { message: 'internal error' });
    });
  });
  server.on('clientError', (_err: Error, socket: Socket) => {
    // Garbage on the wire (not HTTP): answer 400 if we still can, never crash.
    if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
    else socket.destroy();
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  server.on('error', (err) => safely(() => opts.onError?.(err)));

  const port = (server.address() as AddressInfo).port;
  const hostForUrl = opts.host.includes(':') ? `[${opts.host}]` : opts.host;
  return {
    url: `http://${hostForUrl}:${port}/`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function reply(res: ServerResponse, status: number, body: unknown): void {
  if (res.headersSent) return;
  const text = JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}

/** Reads the whole body, refusing (413) as soon as it is known to exceed `max` bytes. */
function readBody(req: IncomingMessage, max: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > max) {
    return Promise.reject(new HttpProblem(413, `body larger than ${max} bytes`));
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > max) {
        done = true;
        req.off('data', onData);
        reject(new HttpProblem(413, `body larger than ${max} bytes`));
        return;
      }
      chunks.push(chunk);
    };
    req.on('data', onData);
    req.once('end', () => {
      if (!done) resolve(Buffer.concat(chunks));
    });
    req.once('error', (err) => {
      if (!done) reject(new HttpProblem(400, `could not read body: ${err.message}`));
      done = true;
    });
  });
}

/** Discards the rest of a refused body so the client can read our answer, but never more than a bound. */
function drainThenCut(req: IncomingMessage): void {
  let drained = 0;
  req.on('data', (chunk: Buffer) => {
    drained += chunk.length;
    if (drained > DRAIN_LIMIT_BYTES) req.socket.destroy();
  });
  req.on('error', () => {});
  req.resume();
}

/** Decodes a body by its Content-Type (sniffing when absent or text/plain); throws HttpProblem 400/415. */
function parseBody(body: Buffer, contentType: string | undefined): { encoding: 'json' | 'form'; payload: Record<string, unknown> } {
  const type = (contentType ?? '').split(';')[0].trim().toLowerCase();
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(body);
  } catch {
    throw new HttpProblem(400, 'body is not valid UTF-8');
  }
  let encoding: 'json' | 'form';
  if (type === 'application/json' || type.endsWith('+json')) encoding = 'json';
  else if (type === 'application/x-www-form-urlencoded') encoding = 'form';
  else if (type === '' || type === 'text/plain') encoding = text.trimStart().startsWith('{') ? 'json' : 'form';
  else throw new HttpProblem(415, `unsupported content type ${type}: send application/json or application/x-www-form-urlencoded`);

  let payload: unknown;
  if (encoding === 'json') {
    try {
      payload = JSON.parse(text);
    } catch (err) {
      throw new HttpProblem(400, `malformed JSON: ${(err as Error).message}`);
    }
  } else {
    try {
      payload = parseForm(text);
    } catch (err) {
      if (err instanceof FormError) throw new HttpProblem(400, `malformed form body: ${err.message}`);
      throw err;
    }
  }
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) {
    throw new HttpProblem(400, 'payload is not an object');
  }
  const event = (payload as Record<string, unknown>).event;
  if (typeof event !== 'string' || event === '') throw new HttpProblem(400, 'payload has no event field');
  return { encoding, payload: payload as Record<string, unknown> };
}
