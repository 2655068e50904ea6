// The embedded sandbox: an HTTP server (node:http) that emulates the whole Parcel Shipping Service API v1.2 under
// /v1.2, with control endpoints under /__sandbox for tests. Start it with startSandbox().
import { createServer, STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { MIMEType } from 'node:util';
import { SandboxApp } from './app.js';
import { controlRouter, handleControl, type ControlContext } from './control.js';
import { Faults } from './faults.js';
import { HttpError, type ApiRequest, type ApiResponse } from './http.js';
import { StateFile } from './persistence.js';
import { Router, unroutedMethod } from './router.js';
import { Store } from './store.js';
import { startAutoAdvance } from './tracking.js';
import type { DispatcherOptions } from './webhooks.js';
import { checkToken, createToken, revokeToken } from './routes/tokens.js';
import { cancelShipment, createShipment, getServices, printShipment, shipmentEvents, shipmentInvoice } from './routes/shipments.js';
import { parcelEvents, parcelLabel } from './routes/parcels.js';
import { listUsers } from './routes/users.js';
import { getLocation, listLocations } from './routes/locations.js';
import { getBrand, listBrands } from './routes/brands.js';
import { listServices } from './routes/services.js';
import { createCustomField, getCustomField, listCustomFields } from './routes/custom-fields.js';
import { getPackagingOptions } from './routes/packaging.js';
import { createSku, getSku, listSkus, patchSku, replaceSku } from './routes/skus.js';
import {
  closeContainer,
  createContainer,
  deleteContainer,
  getContainer,
  getContainerDocuments,
  getContainerInvoice,
  getContainerLabel,
  getContainerShipments,
} from './routes/containers.js';

/** How to run a sandbox. */
export interface SandboxOptions {
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 4010; 0 picks a free port. */
  port?: number;
  /** The API key accepted in X-SERVICE-API-KEY. Default `sandbox-api-key`. */
  apiKey?: string;
  /** The seeded MERCHANT_ADMIN user's login. Default `demo@example.com` / `demo-password`. */
  username?: string;
  password?: string;
  /** Keep state in this file across restarts (saved atomically). Default: memory only. */
  stateFile?: string;
  /**
   * Move each live shipment's tracking one stage forward every this many seconds, counted from its creation
   * (startAutoAdvance). Off when absent or 0 (tests advance with the control endpoint); `ship sandbox` turns it on.
   */
  autoAdvanceSeconds?: number;
  /** Where the sandbox reports unknown routes, server errors and (with logRequests) every request. */
  log?: (line: string) => void;
  /** Log one line per request. */
  logRequests?: boolean;
  /** The clock for timestamps. */
  clock?: () => Date;
  /** Webhook delivery tuning (tests shorten the back-off). */
  webhooks?: DispatcherOptions;
  /** How long a client may take and how many connections may be open (defaults: SERVER_LIMITS; tests shorten them). */
  limits?: Partial<ServerLimits>;
}

/** Timeouts and the connection cap that keep a stuck or greedy client from holding the sandbox. */
export interface ServerLimits {
  /** The request line and headers must arrive within this (else 408 with the envelope). */
  headersMs: number;
  /** The whole request, body included, must arrive within this (else 408 with the envelope). */
  requestMs: number;
  /** An idle keep-alive connection is closed after this (announced in `Keep-Alive: timeout=`). */
  keepAliveMs: number;
  /** A connection with no traffic either way for this long is closed (a client that stopped reading an answer). */
  idleMs: number;
  /** How often node checks the header and request timeouts (they fire up to this late). */
  checkIntervalMs: number;
  /** Connections open at once; more are closed as they arrive. */
  maxConnections: number;
}

/**
 * Generous for scripts and for the benchmarks (64 keep-alive connections), short enough that a client that
 * stalls lets go of its connection in seconds rather than node's defaults (5 minutes per request, no cap).
 */
export const SERVER_LIMITS: ServerLimits = {
  headersMs: 10_000,
  requestMs: 60_000,
  // Above ship's own keep-alive (10 s), so the sandbox is not the side closing a connection the client reuses.
  keepAliveMs: 30_000,
  idleMs: 120_000,
  checkIntervalMs: 1_000,
  maxConnections: 1024,
};

/** A started sandbox. */
export interface RunningSandbox {
  /** `http://HOST:PORT` */
  url: string;
  /** `url + '/v1.2'`: what SHIP_BASE_URL should be. */
  baseUrl: string;
  host: string;
  port: number;
  /** Stops listening, stops webhook deliveries and writes the state file. */
  close(): Promise<void>;
}

const API_PREFIX = '/v1.2';

/**
 * The body's strings trimmed, as the framework the service is built on does to every request (Laravel's
 * TrimStrings: Unicode white space, zero-width space and left-to-right mark at either end; passwords untouched):
 * `"S1 "` is the reference `S1` (and a duplicate of it), `" GB"` the country GB. (A JSON.parse reviver.)
 */
function trimStrings(key: string, value: unknown): unknown {
  if (typeof value !== 'string' || UNTRIMMED_KEYS.has(key)) return value;
  return value.replace(/^[\s\u200B\u200E]+|[\s\u200B\u200E]+$/g, '');
}
const UNTRIMMED_KEYS = new Set(['password', 'password_confirmation', 'current_password']);
const CONTROL_PREFIX = '/__sandbox';
const MAX_BODY = 20 * 1024 * 1024;
/** How long close() lets requests in flight finish before dropping their connections. */
const CLOSE_GRACE_MS = 5000;
const JSON_HEADERS = 'application/json; charset=utf-8';

function apiRouter(): Router<SandboxApp> {
  return new Router<SandboxApp>()
    .add('POST', '/tokens', createToken)
    .add('GET', '/tokens', checkToken)
    .add('DELETE', '/tokens', revokeToken)
    .add('POST', '/shipments', createShipment)
    .add('POST', '/shipments/get-services', getServices)
    .add('DELETE', '/shipments/:ref', cancelShipment)
    .add('GET', '/shipments/:ref/events', shipmentEvents)
    .add('PUT', '/shipments/:ref/print', printShipment)
    .add('GET', '/shipments/:ref/commercial-invoice', shipmentInvoice)
    .add('GET', '/parcels/:ref/events', parcelEvents)
    .add('GET', '/parcels/:ref/label', parcelLabel)
    .add('GET', '/users', listUsers)
    .add('GET', '/locations', listLocations)
    .add('GET', '/locations/:ref', getLocation)
    .add('GET', '/brands', listBrands)
    .add('GET', '/brands/:ref', getBrand)
    .add('GET', '/services', listServices)
    .add('GET', '/custom-fields', listCustomFields)
    .add('GET', '/custom-fields/:ref', getCustomField)
    .add('POST', '/custom-fields', createCustomField)
    .add('GET', '/packaging-options', getPackagingOptions)
    .add('POST', '/skus', createSku)
    .add('GET', '/skus', listSkus)
    .add('GET', '/skus/:ref', getSku)
    .add('PUT', '/skus/:ref', replaceSku)
    .add('PATCH', '/skus/:ref', patchSku)
    .add('POST', '/containers', createContainer)
    .add('GET', '/containers/:ref', getContainer)
    .add('GET', '/containers/:ref/label', getContainerLabel)
    .add('GET', '/containers/:ref/documents', getContainerDocuments)
    .add('GET', '/containers/:ref/commercial-invoice', getContainerInvoice)
    .add('GET', '/containers/:ref/shipments', getContainerShipments)
    .add('PATCH', '/containers/:ref/close', closeContainer)
    .add('DELETE', '/containers/:ref', deleteContainer);
}

function send(res: ServerResponse, r: ApiResponse): void {
  const text = JSON.stringify(r.body);
  const headers: Record<string, string | number> = { 'content-type': JSON_HEADERS, 'content-length': Buffer.byteLength(text) };
  if (r.headers) Object.assign(headers, r.headers);
  res.writeHead(r.status, headers);
  // A HEAD answer has GET's headers, content-length included, and no body.
  if (res.req?.method === 'HEAD') res.end();
  else res.end(text);
}

/** True for `application/json` and `application/…+json`, with any parameters (`; charset=utf-8`), any letter case. */
export function isJsonMediaType(contentType: string | undefined): boolean {
  if (!contentType) return false;
  // Every request of a client sends the same header: parsed once (the sandbox's CPU is shared with the client's).
  if (contentType === lastMediaType[0]) return lastMediaType[1];
  const json = parseJsonMediaType(contentType);
  lastMediaType = [contentType, json];
  return json;
}

let lastMediaType: [string, boolean] = ['', false];

function parseJsonMediaType(contentType: string): boolean {
  let mime: MIMEType;
  try {
    mime = new MIMEType(contentType);
  } catch {
    // ERR_INVALID_MIME_SYNTAX: not a media type at all ("json", "application/json, text/plain").
    return false;
  }
  // MIMEType lowercases type and subtype; `+json` is the structured syntax suffix of RFC 6839.
  return mime.type === 'application' && (mime.subtype === 'json' || (mime.subtype.endsWith('+json') && mime.subtype.length > '+json'.length));
}

/** The 400 message for a body sent without a JSON Content-Type (the header shown, cut short). */
function notJsonTypeMessage(contentType: string | undefined): string {
  const shown = contentType === undefined ? 'no Content-Type' : `Content-Type ${JSON.stringify(contentType.length > 80 ? `${contentType.slice(0, 80)}…` : contentType)}`;
  return `The request body must be JSON, sent with Content-Type: application/json (this one came with ${shown}).`;
}

function tooLarge(): HttpError {
  return new HttpError(413, `The request body is larger than ${MAX_BODY} bytes.`);
}

/**
 * Reads the whole body. Past MAX_BODY it answers 413 at once but keeps reading (and dropping) the rest, so the
 * client, still sending, gets the answer instead of a reset connection.
 */
function readBody(req: IncomingMessage): Promise<string> {
  if (Number(req.headers['content-length']) > MAX_BODY) {
    req.resume();
    return Promise.reject(tooLarge());
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let over = false;
    req.on('data', (c: Buffer) => {
      if (over) return;
      size += c.length;
      if (size > MAX_BODY) {
        over = true;
        chunks.length = 0;
        reject(tooLarge());
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => resolve(chunks.length === 1 ? chunks[0].toString('utf8') : Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/** The enveloped answer to a request node:http could not parse (its default answer has no body). */
function clientErrorReply(err: NodeJS.ErrnoException): string {
  const [status, message] =
    err.code === 'HPE_HEADER_OVERFLOW'
      ? [431, 'The request line or headers are too large.']
      : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, 'The request was not received in time.']
        : err.code === 'HPE_CHUNK_EXTENSIONS_OVERFLOW'
          ? [413, 'The request body is too large.']
          : [400, 'The request is not valid HTTP.'];
  return rawReply(status, message);
}

/** An enveloped answer written straight to a socket (node:http has no response object for it), closing it. */
function rawReply(status: number, message: string): string {
  const text = JSON.stringify({ message, data: null });
  return (
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\ncontent-type: ${JSON_HEADERS}\r\ncontent-length: ${Buffer.byteLength(text)}\r\n` +
    `connection: close\r\n\r\n${text}`
  );
}

/**
 * The path and query of a request target. A target in absolute form (`GET http://host/v1.2/brands`, as a client
 * sends it through a proxy; servers must accept it, RFC 9112 §3.2.2) routes like its path.
 */
export function originFormOf(target: string): string {
  if (target.charCodeAt(0) === 47 /* / */) return target;
  const origin = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i.exec(target);
  if (!origin) return target;
  const rest = target.slice(origin[0].length);
  return rest.startsWith('/') ? rest : `/${rest}`;
}

/**
 * The path with its `.` and `..` segments resolved (RFC 3986 §5.2.4), as HTTP stacks do before a service sees the
 * path: `/v1.2/shipments/./events` is `/v1.2/shipments/events`. Only literal dots: a percent-encoded one (`%2E`) is
 * data, so a reference `.` or `..` (the document does not forbid them) is addressed as `%2E` or `%2E%2E`.
 */
export function removeDotSegments(path: string): string {
  if (!path.includes('/.')) return path;
  const segs = path.split('/');
  const out: string[] = [];
  for (let i = 1; i < segs.length; i++) {
    const seg = segs[i];
    const last = i === segs.length - 1;
    if (seg === '.' || seg === '..') {
      if (seg === '..') out.pop();
      // A dot segment at the end leaves a trailing slash: `/a/b/..` is `/a/`.
      if (last) out.push('');
      continue;
    }
    out.push(seg);
  }
  return `/${out.join('/')}`;
}

function header(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/** Starts the sandbox and resolves once it listens. */
export async function startSandbox(opts: SandboxOptions = {}): Promise<RunningSandbox> {
  const host = opts.host ?? '127.0.0.1';
  const apiKey = opts.apiKey ?? 'sandbox-api-key';
  const log = opts.log ?? ((line: string) => process.stderr.write(line + '\n'));
  const clock = opts.clock ?? (() => new Date());
  const appOpts = {
    apiKey,
    username: opts.username ?? 'demo@example.com',
    password: opts.password ?? 'demo-password',
    clock,
    webhooks: opts.webhooks,
    log,
  };

  let stateFile: StateFile | undefined;
  let store: Store | undefined;
  let app: SandboxApp;
  if (opts.stateFile) {
    stateFile = new StateFile(opts.stateFile, () => {
      app.store.webhooks = app.dispatcher.subscriptions();
      return app.store.snapshot();
    }, log);
    await stateFile.lock();
    try {
      const snap = await stateFile.load();
      if (snap) store = Store.fromSnapshot(snap);
      app = new SandboxApp(appOpts, store);
      // Written once now, so a file that cannot be written stops the start instead of losing every change later.
      await stateFile.saveOrThrow();
    } catch (err) {
      await stateFile.unlock();
      throw err;
    }
    const sf = stateFile;
    app.onChange = () => sf.schedule();
  } else {
    app = new SandboxApp(appOpts, store);
  }

  const faults = new Faults();
  const api = apiRouter();
  const control = controlRouter();
  const controlCtx: ControlContext = { app, faults };
  let origin = '';

  const handleApi = async (req: IncomingMessage, res: ServerResponse, path: string, query: string): Promise<void> => {
    if (faults.active) {
      const action = faults.decide(Date.now());
      if (faults.config.latency_ms > 0) await new Promise((r) => setTimeout(r, faults.config.latency_ms));
      if (action.kind === 'reset') {
        req.socket.destroy();
        return;
      }
      if (action.kind === 'limit') {
        await readBody(req).catch(() => '');
        send(res, { status: 429, body: { message: 'Too Many Requests.', data: null }, headers: { 'retry-after': String(action.retryAfter) } });
        return;
      }
      if (action.kind === 'fail') {
        await readBody(req).catch(() => '');
        send(res, { status: action.status, body: { message: `Injected fault: the sandbox answered ${action.status} on purpose.`, data: null } });
        return;
      }
    }
    const method = req.method ?? 'GET';
    // HEAD runs the GET route; send() leaves the body out.
    const m = api.match(method === 'HEAD' ? 'GET' : method, path);
    if (!m) {
      await readBody(req).catch(() => '');
      log(`sandbox: 404 unknown route ${method} ${API_PREFIX}${path}`);
      throw new HttpError(404, `Unknown API route: ${method} ${API_PREFIX}${path}. See the API document for the endpoints of version 1.2.`);
    }
    if ('allowed' in m) {
      await readBody(req).catch(() => '');
      const answer = unroutedMethod(method, API_PREFIX + path, m.allowed);
      if (answer instanceof HttpError) {
        log(`sandbox: 405 ${method} ${API_PREFIX}${path} (allowed: ${m.allowed.join(', ')})`);
        throw answer;
      }
      send(res, answer);
      return;
    }
    const text = method === 'GET' || method === 'HEAD' ? '' : await readBody(req);

    const key = header(req, 'x-service-api-key');
    if (!key) throw new HttpError(401, 'Unauthenticated: the X-SERVICE-API-KEY header is missing.');
    if (key !== apiKey) throw new HttpError(401, 'Unauthenticated: the API key supplied is not valid.');
    const areq: ApiRequest = {
      method,
      path,
      params: m.params,
      query: new URLSearchParams(query),
      body: undefined,
      headers: req.headers,
      origin: `http://${req.headers.host ?? origin}`,
    };
    if (!(method === 'POST' && path === '/tokens')) {
      const token = header(req, 'x-service-token');
      if (!token) throw new HttpError(401, 'Unauthenticated: the X-SERVICE-TOKEN header is missing; get a token with POST /tokens.');
      const rec = app.store.tokens.get(token);
      if (!rec || !app.store.users.has(rec.user_id)) throw new HttpError(401, 'Unauthenticated: the token is not valid or has been revoked.');
      areq.userId = rec.user_id;
      areq.token = token;
    }
    if (text.length > 0) {
      // Conventions: "POST and PUT (and PATCH) bodies are JSON", sent with Content-Type: application/json. A
      // form-encoded or text/plain body is refused, not guessed at; a bodiless request needs no Content-Type.
      const type = header(req, 'content-type');
      if (!isJsonMediaType(type)) throw new HttpError(400, notJsonTypeMessage(type), null);
      try {
        areq.body = JSON.parse(text, trimStrings);
      } catch {
        throw new HttpError(400, 'The request body is not valid JSON.', null);
      }
    }
    const out = m.handler(app, areq);
    send(res, out instanceof Promise ? await out : out);
  };

  const handleControlReq = async (req: IncomingMessage, res: ServerResponse, path: string, query: string): Promise<void> => {
    const method = req.method ?? 'GET';
    const text = method === 'GET' ? '' : await readBody(req);
    let body: unknown;
    if (text.length > 0) {
      try {
        body = JSON.parse(text);
      } catch {
        throw new HttpError(400, 'The request body is not valid JSON.', null);
      }
    }
    const areq: ApiRequest = { method, path, params: {}, query: new URLSearchParams(query), body, headers: req.headers, origin: `http://${req.headers.host ?? origin}` };
    send(res, await handleControl(control, controlCtx, areq));
  };

  // Requests being answered, so close() lets them finish; once closing, each answer closes its connection.
  const inFlight = new Set<ServerResponse>();
  let closingStarted = false;
  let onIdle: (() => void) | null = null;

  const limits: ServerLimits = { ...SERVER_LIMITS, ...opts.limits };
  const server = createServer({ headersTimeout: limits.headersMs, requestTimeout: limits.requestMs, connectionsCheckingInterval: limits.checkIntervalMs }, (req, res) => {
    inFlight.add(res);
    if (closingStarted) res.setHeader('connection', 'close');
    res.on('close', () => {
      inFlight.delete(res);
      if (inFlight.size === 0) onIdle?.();
    });
    const started = opts.logRequests ? performance.now() : 0;
    const url = originFormOf(req.url ?? '/');
    const q = url.indexOf('?');
    const fullPath = removeDotSegments(q < 0 ? url : url.slice(0, q));
    const query = q < 0 ? '' : url.slice(q + 1);
    let p: Promise<void>;
    if (fullPath.startsWith(API_PREFIX + '/') || fullPath === API_PREFIX) {
      p = handleApi(req, res, fullPath.slice(API_PREFIX.length) || '/', query);
    } else if (fullPath.startsWith(CONTROL_PREFIX + '/')) {
      p = handleControlReq(req, res, fullPath.slice(CONTROL_PREFIX.length), query);
    } else {
      log(`sandbox: 404 unknown route ${req.method} ${fullPath}`);
      p = Promise.reject(
        new HttpError(404, `Unknown route: ${req.method} ${fullPath}. The sandbox serves the API under ${API_PREFIX} (versions 1.0 and 1.1 are not emulated) and control endpoints under ${CONTROL_PREFIX}.`),
      );
    }
    p.catch((err: unknown) => {
      if (res.headersSent || req.socket.destroyed) return;
      if (err instanceof HttpError) {
        send(res, { status: err.status, body: { message: err.message, data: err.data }, headers: err.headers });
        return;
      }
      log(`sandbox: 500 on ${req.method} ${fullPath}: ${(err as Error)?.stack ?? String(err)}`);
      send(res, { status: 500, body: { message: `Server error: ${(err as Error)?.message ?? String(err)}`, data: null } });
    }).finally(() => {
      // The query shown as ?****: a client may put a key or a token there, and logs are kept and shared.
      if (opts.logRequests) log(`${req.method} ${fullPath}${query ? '?****' : ''} → ${res.statusCode} ${(performance.now() - started).toFixed(1)}ms`);
    });
  });
  server.keepAliveTimeout = limits.keepAliveMs;
  server.timeout = limits.idleMs;
  server.maxConnections = limits.maxConnections;
  // Unparsable requests, headers too large, slow requests: answered with the envelope, as every other error.
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Socket) => {
    const pending = (socket as Socket & { _httpMessage?: ServerResponse })._httpMessage;
    if (err.code !== 'ECONNRESET' && socket.writable && (!pending || !pending.headersSent)) socket.end(clientErrorReply(err));
    socket.destroy();
  });
  // CONNECT (a proxy tunnel) reaches no route: 405 with the envelope, where node would drop the connection unanswered.
  server.on('connect', (req: IncomingMessage, socket: Socket) => {
    log(`sandbox: 405 CONNECT ${req.url}`);
    if (socket.writable) socket.end(rawReply(405, 'Method CONNECT is not allowed: the sandbox is not a proxy.'));
    socket.destroySoon();
  });
  // `Expect: 100-continue` with a body over the limit: refused before the client sends it.
  server.on('checkContinue', (req: IncomingMessage, res: ServerResponse) => {
    if (Number(req.headers['content-length']) > MAX_BODY) {
      const err = tooLarge();
      res.setHeader('connection', 'close');
      send(res, { status: 413, body: { message: err.message, data: null } });
      return;
    }
    res.writeContinue();
    server.emit('request', req, res);
  });

  const sockets = new Set<Socket>();
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });

  await new Promise<void>((resolve, reject) => {
    const onError = (err: NodeJS.ErrnoException) => {
      reject(err.code === 'EADDRINUSE' ? new Error(`port ${opts.port ?? 4010} on ${host} is already in use; pass --port 0 for a free port`) : err);
    };
    server.once('error', onError);
    server.listen(opts.port ?? 4010, host, () => {
      server.off('error', onError);
      resolve();
    });
  }).catch(async (err: unknown) => {
    await stateFile?.unlock();
    throw err;
  });
  const port = (server.address() as AddressInfo).port;
  const hostForUrl = host.includes(':') ? `[${host}]` : host;
  origin = `${hostForUrl}:${port}`;
  const url = `http://${origin}`;

  const stopAdvancing = opts.autoAdvanceSeconds && opts.autoAdvanceSeconds > 0 ? startAutoAdvance(app, opts.autoAdvanceSeconds) : undefined;

  let closing: Promise<void> | undefined;
  return {
    url,
    baseUrl: url + API_PREFIX,
    host,
    port,
    close() {
      closing ??= (async () => {
        stopAdvancing?.();
        closingStarted = true;
        for (const res of inFlight) if (!res.headersSent) res.setHeader('connection', 'close');
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeIdleConnections();
        // Requests in flight may finish (each answer then closes its connection); then every socket goes,
        // including idle keep-alive ones and requests never completed.
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, CLOSE_GRACE_MS);
          onIdle = () => {
            clearTimeout(timer);
            resolve();
          };
          if (inFlight.size === 0) onIdle();
        });
        for (const s of sockets) s.destroy();
        await closed;
        await app.dispatcher.close(500);
        await stateFile?.flush();
        await stateFile?.unlock();
      })();
      return closing;
    },
  };
}
