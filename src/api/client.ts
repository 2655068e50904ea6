// HTTP mechanics of the API layer: one keep-alive undici Agent per Api, headers, time limits, retries of safe
// requests only, --verbose traces with secrets masked, and HTTP failures turned into src/errors.ts errors.
import type { Dispatcher } from 'undici';
import type { ApiOptions } from './index.js';
import { Agent, exchange, headerValue } from './undici-lite.js';
import { ApiError, AuthError, NetworkError, NotFoundError, REJECTED_CREDENTIALS_HINT, UsageError, ValidationError, type HttpErrorInfo } from '../errors.js';
import { mask, redact, redactDeep } from '../output/redact.js';
import { abortableSleep } from '../util/sleep.js';

declare const __SHIP_VERSION__: string;
/** The package version, inlined at build time (0.0.0-dev when running from source). */
const VERSION: string = typeof __SHIP_VERSION__ === 'string' ? __SHIP_VERSION__ : '0.0.0-dev';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'HEAD';

/** Methods that are safe to send twice: only these are retried. PATCH and POST never are. */
const RETRYABLE_METHODS: ReadonlySet<HttpMethod> = new Set(['GET', 'PUT', 'DELETE', 'HEAD']);
const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([429, 502, 503, 504]);
const DEFAULT_TIMEOUT_MS = 30_000;
const DEFAULT_MAX_RETRIES = 3;
const BACKOFF_BASE_MS = 250;
const BACKOFF_CAP_MS = 8_000;
/** Longest wait a Retry-After header may ask of us. */
export const RETRY_AFTER_CAP_MS = 60_000;
const TRACE_BODY_LIMIT = 2048;
const TRACE_STRING_LIMIT = 200;

/** Settings of the HTTP client: ApiOptions but for what the API layer above it handles. */
export type ClientOptions = Omit<ApiOptions, 'onWarning'>;

/** One API call, described by the resource modules. */
export interface RequestSpec {
  method: HttpMethod;
  /** Path relative to the base URL, segments already percent-encoded (use `apiPath`). */
  path: string;
  query?: Record<string, string | number | undefined>;
  /** An absolute URL to call instead of base + path (pagination links; origin checked by the caller). */
  url?: string;
  body?: unknown;
  /**
   * The body as JSON text, sent byte for byte instead of serialising `body` (a bulk run holds its validated
   * bodies as text; parsing each only to serialise it again cost ~10 µs per request).
   */
  bodyText?: string;
  /** false for POST /tokens, which carries the API key only. */
  sendToken?: boolean;
  /**
   * The answer carries a credential (POST /tokens: the new token): kept as it is, even when it repeats the one
   * in use (a service may issue the same token again), where any other answer quoting a credential is masked.
   */
  issuesCredential?: boolean;
  /**
   * Never sent twice, whatever its method: a PUT whose every call acts again (PUT /shipments/:ref/print prints
   * the labels each time), so a lost answer is reported, not retried.
   */
  once?: boolean;
  /** The caller retries failures itself (CallOptions.callerRetries): a POST's 429 is not retried here. */
  callerRetries?: boolean;
  /** Names the thing for a 404 message, e.g. `shipment "ABC-1"`. */
  what?: string;
  /** Hint for a 401 on this call (login needs a different one). */
  authHint?: string;
  signal?: AbortSignal;
}

/** A successful (2xx) response: status and parsed JSON body (null when empty). */
export interface HttpResponse {
  status: number;
  body: unknown;
  /** Attempts it took (1 = no retry). */
  attempts: number;
}

/** Builds a path from a template, percent-encoding every interpolated segment: apiPath`/shipments/${ref}/events`. */
export function apiPath(strings: TemplateStringsArray, ...segments: string[]): string {
  let out = strings[0];
  segments.forEach((seg, i) => {
    if (typeof seg !== 'string' || seg.trim() === '') {
      throw new UsageError(`a non-empty reference is required (got ${JSON.stringify(seg)})`);
    }
    // URL parsing collapses dot segments (even percent-encoded ones), so `..` would address another resource.
    if (seg === '.' || seg === '..') throw new UsageError(`${JSON.stringify(seg)} is not a valid reference`);
    out += encodeURIComponent(seg) + strings[i + 1];
  });
  return out;
}

/** Parses Retry-After (delta seconds or an HTTP-date) into milliseconds from `now`, or undefined. */
export function parseRetryAfter(value: string | string[] | undefined, now = Date.now()): number | undefined {
  const v = Array.isArray(value) ? value[0] : value;
  if (v === undefined) return undefined;
  const t = v.trim();
  if (/^\d+(\.\d+)?$/.test(t)) return Math.round(Number(t) * 1000);
  const date = Date.parse(t);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}

/** Maps a failure of undici/Node to the NetworkError kind we report. */
export function networkKind(err: unknown): 'timeout' | 'reset' | 'refused' | 'dns' | 'other' {
  const codes: string[] = [];
  const collect = (e: unknown, depth: number) => {
    if (!e || typeof e !== 'object' || depth > 4) return;
    const x = e as { code?: unknown; name?: unknown; cause?: unknown; errors?: unknown; message?: unknown };
    if (typeof x.code === 'string') codes.push(x.code);
    if (typeof x.name === 'string') codes.push(x.name);
    if (typeof x.message === 'string' && /other side closed|socket hang up/i.test(x.message)) codes.push('ECONNRESET');
    collect(x.cause, depth + 1);
    if (Array.isArray(x.errors)) for (const s of x.errors) collect(s, depth + 1);
  };
  collect(err, 0);
  const has = (...c: string[]) => codes.some((x) => c.includes(x));
  if (has('UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'ETIMEDOUT', 'TimeoutError')) return 'timeout';
  if (has('ECONNREFUSED')) return 'refused';
  if (has('ENOTFOUND', 'EAI_AGAIN', 'EAI_NONAME', 'EAI_FAIL')) return 'dns';
  if (has('ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED', 'ECONNABORTED')) return 'reset';
  return 'other';
}

const NETWORK_MESSAGES: Record<string, string> = {
  timeout: 'the request timed out',
  reset: 'the connection was closed before the response arrived',
  refused: 'the connection was refused',
  dns: 'the host name could not be resolved',
  other: 'the request failed',
};

/** Keys whose values never reach a trace, whatever they hold. */
const SECRET_KEYS = /(?:^|[_-])(?:password|passwd|token|api[_-]?key|secret)$/i;

/** A one-line JSON summary of a body for traces: long strings shortened, secret keys masked, ~2 KB at most. */
export function summariseBody(body: unknown, secrets: ReadonlyArray<string | undefined>): string {
  if (body === undefined) return '';
  // A value under a secret's key (the new token in POST /tokens' answer, not yet one of ours) is a secret
  // wherever else the body repeats it, its message say.
  const known = [...secrets, ...valuesUnderSecretKeys(body)];
  let s: string;
  try {
    s = JSON.stringify(body, (k, v: unknown) => {
      if (typeof v === 'string') {
        if (k && SECRET_KEYS.test(k)) return mask(v);
        // Masked before it is cut short: a secret across the cut would be masked nowhere, its first part shown.
        const shown = redact(v, known);
        if (shown.length > TRACE_STRING_LIMIT) return `${shown.slice(0, 40)}… (${v.length} chars)`;
        return shown;
      }
      return v;
    });
  } catch {
    s = String(body);
  }
  s = redact(s ?? '', known);
  return s.length > TRACE_BODY_LIMIT ? `${s.slice(0, TRACE_BODY_LIMIT)}… (${s.length} chars)` : s;
}

/** The strings of a parsed body found under keys that name a secret (token, password…), at any depth. */
function valuesUnderSecretKeys(body: unknown, found: string[] = [], depth = 0): string[] {
  if (depth > 8 || !body || typeof body !== 'object') return found;
  for (const [k, v] of Object.entries(body as Record<string, unknown>)) {
    if (typeof v === 'string') {
      if (SECRET_KEYS.test(k)) found.push(v);
    } else valuesUnderSecretKeys(v, found, depth + 1);
  }
  return found;
}

/** JSON text parsed, or the text itself when it is not JSON (for traces). */
function parseOr(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** Whether a body is a `{field: [messages]}` map, as 400 responses carry. */
function fieldMap(data: unknown): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  if (!data || typeof data !== 'object' || Array.isArray(data)) return out;
  for (const [k, v] of Object.entries(data as Record<string, unknown>)) {
    if (Array.isArray(v)) out[k] = v.map((m) => (typeof m === 'string' ? m : JSON.stringify(m)));
    else if (typeof v === 'string') out[k] = [v];
  }
  return out;
}

/** The API's message from an error body, if it has one. */
function messageOf(body: unknown): string | undefined {
  if (body && typeof body === 'object' && !Array.isArray(body)) {
    const m = (body as { message?: unknown }).message;
    if (typeof m === 'string' && m.trim() !== '') return m;
  }
  return undefined;
}

/** The HTTP client shared by every resource of one Api. */
export class HttpClient {
  private readonly base: URL;
  private readonly baseHref: string;
  private readonly dispatcher: Dispatcher;
  private readonly ownsDispatcher: boolean;
  private readonly timeoutMs: number;
  private readonly maxRetries: number;
  private readonly userAgent: string;
  private readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  private readonly random: () => number;
  private closed = false;

  constructor(private readonly opts: ClientOptions) {
    let base: URL;
    try {
      base = new URL(opts.baseUrl);
    } catch {
      throw new UsageError(`invalid base URL ${JSON.stringify(opts.baseUrl)}`, { hint: 'give the full URL, e.g. http://127.0.0.1:4010/v1.2' });
    }
    if (base.protocol !== 'http:' && base.protocol !== 'https:') {
      throw new UsageError(`invalid base URL ${JSON.stringify(opts.baseUrl)}: only http and https are supported`);
    }
    base.search = '';
    base.hash = '';
    this.base = base;
    this.baseHref = base.href.replace(/\/+$/, '');
    this.timeoutMs = opts.timeoutMs && opts.timeoutMs > 0 ? opts.timeoutMs : DEFAULT_TIMEOUT_MS;
    this.maxRetries = Math.max(0, opts.maxRetries ?? DEFAULT_MAX_RETRIES);
    this.userAgent = opts.userAgent ?? `ship/${VERSION} (node ${process.versions.node}; ${process.platform})`;
    this.sleep = opts.sleep ?? abortableSleep;
    this.random = opts.random ?? Math.random;
    if (opts.dispatcher) {
      this.dispatcher = opts.dispatcher;
      this.ownsDispatcher = false;
    } else {
      // One pool of keep-alive connections for every request of this Api (bulk runs reuse sockets).
      this.dispatcher = new Agent({
        keepAliveTimeout: 10_000,
        keepAliveMaxTimeout: 60_000,
        headersTimeout: this.timeoutMs,
        bodyTimeout: this.timeoutMs,
        connect: { timeout: Math.min(this.timeoutMs, 10_000) },
      });
      this.ownsDispatcher = true;
    }
  }

  /** The origin of the base URL (pagination links must stay on it). */
  get origin(): string {
    return this.base.origin;
  }

  /** Absolute URL for a path relative to the base URL (the base path, e.g. /v1.2, is kept). */
  urlFor(path: string, query?: RequestSpec['query']): string {
    let url = this.baseHref + (path.startsWith('/') ? path : `/${path}`);
    if (query) {
      const q = new URLSearchParams();
      for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== '') q.set(k, String(v));
      const qs = q.toString();
      if (qs) url += `?${qs}`;
    }
    return url;
  }

  /** The path of a URL relative to the base URL, for error info (never headers or the host). */
  private relativePath(url: string): string {
    // A bulk run asks this of the same URL thousands of times.
    if (url === this.lastRelative[0]) return this.lastRelative[1];
    const p = this.computeRelativePath(url);
    this.lastRelative = [url, p];
    return p;
  }

  private lastRelative: [string, string] = ['', ''];

  private computeRelativePath(url: string): string {
    const u = new URL(url);
    const basePath = this.base.pathname.replace(/\/+$/, '');
    const p = basePath && u.pathname.startsWith(basePath) ? u.pathname.slice(basePath.length) || '/' : u.pathname;
    return p + u.search;
  }

  private secrets(): string[] {
    return [this.opts.apiKey, this.opts.token, ...(this.opts.secrets ?? [])].filter((s): s is string => Boolean(s));
  }

  private trace(line: string): void {
    if (this.opts.trace) this.opts.trace(redact(line, this.secrets()));
  }

  /** Sends a request, retrying safe ones, and resolves to a 2xx response; anything else rejects with a typed error. */
  send(spec: RequestSpec): Promise<HttpResponse> {
    const onWait = this.opts.onWait;
    if (!onWait) return this.sendNow(spec);
    const done = onWait();
    const sent = this.sendNow(spec);
    sent.then(done, done);
    return sent;
  }

  private async sendNow(spec: RequestSpec): Promise<HttpResponse> {
    if (this.closed) throw new ApiError('the API client was closed');
    const url = spec.url ?? this.urlFor(spec.path, spec.query);
    const http: HttpErrorInfo = { method: spec.method, path: this.relativePath(url) };
    const retryable = RETRYABLE_METHODS.has(spec.method) && spec.once !== true;
    // A 429 is a refusal before any work (a rate limit), so any request may be sent again after it: a POST, a
    // PATCH, even a print sent once (nothing printed yet). A caller that retries itself (a bulk runner) does.
    const rateLimitRetryable = retryable || spec.callerRetries !== true;
    const attemptsAllowed = retryable ? this.maxRetries + 1 : 1;
    const attemptsOn429 = rateLimitRetryable ? this.maxRetries + 1 : 1;
    const headers: Record<string, string> = { accept: 'application/json', 'user-agent': this.userAgent };
    if (this.opts.apiKey) headers['x-service-api-key'] = this.opts.apiKey;
    if (this.opts.token && spec.sendToken !== false) headers['x-service-token'] = this.opts.token;
    let payload: string | undefined;
    if (spec.bodyText !== undefined) {
      headers['content-type'] = 'application/json';
      payload = spec.bodyText;
    } else if (spec.body !== undefined) {
      headers['content-type'] = 'application/json';
      payload = JSON.stringify(spec.body);
    }

    for (let attempt = 1; ; attempt++) {
      if (spec.signal?.aborted) throw spec.signal.reason;
      if (this.opts.trace) {
        // Built only for someone reading the trace (a bulk run sends thousands of requests).
        const attemptNote = attempt > 1 ? ` (attempt ${attempt}/${attemptsOn429})` : '';
        const authNote = [
          headers['x-service-api-key'] ? `X-SERVICE-API-KEY: ${mask(headers['x-service-api-key'])}` : '',
          headers['x-service-token'] ? `X-SERVICE-TOKEN: ${mask(headers['x-service-token'])}` : '',
        ].filter(Boolean).join(', ');
        const traced = spec.bodyText !== undefined ? parseOr(spec.bodyText) : spec.body;
        const bodyNote = traced !== undefined ? ` ${summariseBody(traced, this.secrets())}` : '';
        this.trace(`→ ${spec.method} ${url}${attemptNote}${authNote ? ` [${authNote}]` : ''}${bodyNote}`);
      }

      const started = performance.now();
      let status: number;
      let rawHeaders: ReadonlyArray<Buffer | string>;
      let text: string;
      let timedOut = false;
      // The attempt's whole time limit (undici's own limits apply to the wait for headers and between body
      // pieces); the caller's signal is wired in by exchange().
      const pending = exchange(this.dispatcher, url, {
        method: spec.method,
        headers,
        body: payload,
        headersTimeout: this.timeoutMs,
        bodyTimeout: this.timeoutMs,
        signal: spec.signal,
      });
      const timer = setTimeout(() => {
        timedOut = true;
        pending.abort(new Error(`timed out after ${this.timeoutMs} ms`));
      }, this.timeoutMs);
      try {
        ({ status, rawHeaders, text } = await pending.answer);
      } catch (err) {
        if (spec.signal?.aborted) throw spec.signal.reason;
        const kind = timedOut ? 'timeout' : networkKind(err);
        const ms = Math.round(performance.now() - started);
        const cause = err instanceof Error ? err.message : String(err);
        this.trace(`← network error: ${kind} (${ms} ms): ${cause}`);
        // A name that does not resolve will not resolve a second later either.
        if (attempt < attemptsAllowed && kind !== 'dns') {
          const delay = this.backoff(attempt);
          this.trace(`  retrying in ${delay} ms (attempt ${attempt + 1}/${attemptsAllowed})`);
          await this.sleep(delay, spec.signal);
          continue;
        }
        const base = NETWORK_MESSAGES[kind];
        const tries = attempt > 1 ? ` (after ${attempt} attempts)` : '';
        const limit = kind === 'timeout' ? ` after ${this.timeoutMs / 1000} s` : '';
        throw new NetworkError(`${spec.method} ${http.path}: ${base}${limit}${tries} (${this.base.host})`, kind, attempt > 1 ? { ...http, attempts: attempt } : http, {
          cause: err,
          // A refused connection or an unknown host means the request never left, whatever its method.
          hint:
            kind === 'refused' || kind === 'dns'
              ? 'check the base URL (--base-url or SHIP_BASE_URL) and that the service is running'
              : spec.method === 'POST' || spec.method === 'PATCH' || spec.once
                ? 'the request may or may not have been processed; check before sending it again'
                : kind === 'timeout'
                  ? 'raise the limit with --timeout SECONDS'
                  : undefined,
        });
      } finally {
        clearTimeout(timer);
      }

      const ms = Math.round(performance.now() - started);
      // Read only for messages (a successful answer never needs it).
      // The server's words reach messages, FILE.failed.csv and the journal: a secret it echoes is masked there.
      const contentType = () => redact(headerValue(rawHeaders, 'content-type') ?? '', this.secrets());
      let body: unknown = null;
      let parsed = true;
      if (text.trim() !== '') {
        try {
          body = JSON.parse(text);
        } catch {
          parsed = false;
        }
      }
      // Summarising a body costs as much as parsing it: only when someone reads the trace.
      if (this.opts.trace) {
        this.trace(`← ${status} (${ms} ms)${text.trim() === '' ? '' : ` ${parsed ? summariseBody(body, this.secrets()) : `[${contentType() || 'no content-type'}, ${text.length} chars]`}`}`);
      }

      const allowed = status === 429 ? attemptsOn429 : attemptsAllowed;
      if (RETRYABLE_STATUSES.has(status) && attempt < allowed) {
        const after = parseRetryAfter(headerValue(rawHeaders, 'retry-after'));
        // After Retry-After, spread over up to a quarter of it more (1 s at most): requests refused together (a
        // command's parallel look-ups) are not all sent again in the same instant, to be refused together again.
        const delay = after !== undefined ? Math.min(after, RETRY_AFTER_CAP_MS) + Math.round(this.random() * Math.min(after / 4, 1000)) : this.backoff(attempt);
        this.trace(`  retrying in ${delay} ms${after !== undefined ? ' (Retry-After)' : ''} (attempt ${attempt + 1}/${allowed})`);
        await this.sleep(delay, spec.signal);
        continue;
      }

      if (status >= 200 && status < 300) {
        if (!parsed) {
          throw new ApiError(`${spec.method} ${http.path}: the API answered ${status} with a ${contentType() || 'body without content-type'} body, not JSON`, { ...http, status });
        }
        // A success that quotes a credential back (a message naming the token, a user record holding it) goes on
        // to stdout, results and journals as any answer does: masked here, once (errors are, in errorFor). Looked
        // for in the text first, so an answer without one costs a substring search only.
        if (!spec.issuesCredential && this.echoesSecret(text)) body = redactDeep(body, this.echoableCredentials());
        return { status, body, attempts: attempt };
      }
      throw this.errorFor(status, parsed ? body : undefined, parsed ? undefined : contentType(), { ...http, status, ...(attempt > 1 ? { attempts: attempt } : {}) }, spec, rawHeaders, attempt);
    }
  }

  /** Whether a body's text holds one of the credentials, as it is or as JSON escapes it. */
  private echoesSecret(text: string): boolean {
    for (const needle of this.secretNeedles()) if (text.includes(needle)) return true;
    return false;
  }

  /**
   * What echoesSecret looks for: the API key and the token (the credentials a server may quote back; not other
   * secrets such as a password, which may be part of data the CLI acts on, a user's e-mail address say), each as
   * it is and in the forms redact() masks (JSON-escaped, percent-encoded in upper or lower case hex, form-encoded).
   * Kept: every answer of a bulk run is looked at.
   */
  private secretNeedles(): string[] {
    const secrets = this.echoableCredentials();
    const key = secrets.join('\u0000');
    if (this.needles?.key !== key) {
      const forms = (s: string) => {
        const encoded = [encodeURIComponent(s), new URLSearchParams({ s }).toString().slice(2)];
        return [s, JSON.stringify(s).slice(1, -1), ...encoded, ...encoded.map((e) => e.replace(/%[0-9A-F]{2}/g, (h) => h.toLowerCase()))];
      };
      this.needles = { key, list: [...new Set(secrets.flatMap(forms))] };
    }
    return this.needles.list;
  }

  private needles: { key: string; list: string[] } | undefined;

  /** The credentials masked in a success's body (redact() masks their encoded forms itself). */
  private echoableCredentials(): string[] {
    return [this.opts.apiKey, this.opts.token].filter((s): s is string => typeof s === 'string' && s.length >= 4);
  }

  /** Full-jitter exponential back-off before attempt `attempt + 1`. */
  private backoff(attempt: number): number {
    const ceiling = Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** (attempt - 1));
    return Math.round(this.random() * ceiling);
  }

  private errorFor(
    status: number,
    body: unknown,
    nonJsonType: string | undefined,
    http: HttpErrorInfo,
    spec: RequestSpec,
    rawHeaders: ReadonlyArray<Buffer | string>,
    attempts: number,
  ): ApiError {
    // A server may echo the request (its headers, the login's password) in an error body; whatever the error
    // carries goes on to stdout lines, FILE.failed.csv and the journal, so the secrets are masked here, once.
    body = redactDeep(body, this.secrets());
    const apiMessage = messageOf(body);
    if (apiMessage) http.apiMessage = apiMessage;
    const where = `${spec.method} ${http.path}`;
    const notJson = nonJsonType !== undefined ? ` (a ${nonJsonType || 'body without content-type'} body, not JSON)` : '';

    if (status === 401) {
      return new AuthError(`unauthorised (401)${apiMessage ? `: ${apiMessage}` : ''}`, http, {
        hint: spec.authHint ?? REJECTED_CREDENTIALS_HINT,
      });
    }
    if (status === 403) {
      return new AuthError(`not allowed: ${apiMessage ?? 'insufficient privileges for this action'} (403)`, http, {
        hint: "your user's access level does not allow this action",
      });
    }
    if (nonJsonType !== undefined) {
      return new ApiError(`${where}: the API answered ${status} with a ${nonJsonType || 'body without content-type'} body, not JSON`, http, {
        hint: status === 404 ? 'check the base URL (it must include the version, e.g. /v1.2)' : undefined,
      });
    }
    if (status === 400 || status === 422) {
      const data = body && typeof body === 'object' ? (body as { data?: unknown }).data : undefined;
      return new ValidationError(apiMessage ?? 'the API rejected the request', fieldMap(data), http);
    }
    if (status === 404) {
      // A base URL that does not end with the version ship speaks (/v1.2: none, or /v1.1) finds nothing by any
      // reference: said, rather than let a script believe its references do not exist.
      const basePath = this.base.pathname.replace(/\/$/, '');
      if (spec.what && !/\/v1\.2$/.test(basePath)) {
        return new NotFoundError(`${spec.what} not found`, http, {
          hint: `check the base URL (${this.base.origin}${basePath}): it must end with the API version ship speaks, …/v1.2; with another, nothing is found`,
        });
      }
      if (spec.what) return new NotFoundError(`${spec.what} not found`, http);
      // Nothing named was asked for (a list, a fixed route): the address itself is wrong.
      return new NotFoundError(`${where}: not found${apiMessage ? ` (${apiMessage})` : ''}`, http, {
        hint: `check the base URL (${this.base.origin}${this.base.pathname.replace(/\/$/, '')}): it must end with the API version, e.g. …/v1.2`,
      });
    }
    if (status === 429) {
      const after = parseRetryAfter(headerValue(rawHeaders, 'retry-after'));
      if (after !== undefined) http.retryAfterMs = after;
      return new ApiError(`${where}: rate limited (429)${attempts > 1 ? ` after ${attempts} attempts` : ''}${apiMessage ? `: ${apiMessage}` : ''}`, http, {
        hint: after !== undefined ? `the API asks to wait ${Math.ceil(after / 1000)} s` : 'slow down (e.g. a lower --concurrency)',
      });
    }
    if (status >= 300 && status < 400) {
      const location = redact(String(headerValue(rawHeaders, 'location') ?? ''), this.secrets()) || undefined;
      return new ApiError(`${where}: the API answered ${status} (a redirect${location ? ` to ${String(location)}` : ''}); redirects are not followed`, http, {
        hint: 'use the final address as the base URL (--base-url or SHIP_BASE_URL)',
      });
    }
    // The count before the API's own message, which may end a sentence ("… on purpose.").
    const tries = attempts > 1 ? ` after ${attempts} attempts` : '';
    // A request not sent again after a 5xx (a POST, a PATCH, a print) says so: the service may have acted on it.
    const notResent = status >= 500 && (!RETRYABLE_METHODS.has(spec.method) || spec.once === true) && spec.callerRetries !== true;
    return new ApiError(`${where}: the API answered ${status}${tries}${apiMessage ? `: ${apiMessage}` : ''}`, http, notResent ? { hint: `not sent again: the service may have acted on it before failing; check (list or show what it made) before running the command again` } : undefined);
  }

  /** Closes the keep-alive connections (only those of an Agent this client created). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.ownsDispatcher) await this.dispatcher.close();
  }
}
