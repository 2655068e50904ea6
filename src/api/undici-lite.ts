// The piece of undici the API client uses (a keep-alive Agent; requests go through its `dispatch`), imported from
// its own file: undici's index also loads fetch, WebSocket, caches, mocks and proxies, which cost every API command
// ~30–80 ms of start-up for nothing (see bench/startup.mjs).
import { setFlagsFromString } from 'node:v8';
import type { Dispatcher } from 'undici';
// Typed in undici-internals.d.ts: the same class undici's index exports.
import AgentClass from 'undici/lib/dispatcher/agent.js';

// undici parses HTTP with llhttp compiled to WebAssembly. On Node 20 (V8 11), its one huge parser function is
// tiered up to TurboFan after the first response, and the process then waits at exit for that background
// compile: 50–100 ms added to every API command on a 2-core machine (bench/startup.mjs; `--wasm-tiering-budget`
// on the command line removes it too). A larger budget keeps short runs on the baseline compiler while long
// ones (bulk runs) still tier up. The flag is read when the module is compiled, on the first connection.
// Node 22/24 (V8 12/13) do not wait like this, and the flag's name is only known to hold for V8 11.
if (process.versions.v8.startsWith('11.')) setFlagsFromString('--wasm-tiering-budget=100000000');

/** undici's Agent (the same class as `import { Agent } from 'undici'`). */
export const Agent = AgentClass;

/** One HTTP exchange as the API client needs it: the final status, the raw response headers, the body as text. */
export interface Exchange {
  status: number;
  /** Name, value, name, value… as undici hands them over (Buffers from a socket, strings or Buffers from a mock). */
  rawHeaders: ReadonlyArray<Buffer | string>;
  text: string;
}

/** What one exchange is sent with. */
export interface ExchangeOptions {
  method: Dispatcher.HttpMethod;
  headers: Record<string, string>;
  body?: string;
  /** Waiting for the response headers, and then for each piece of the body (undici's own timers). */
  headersTimeout: number;
  bodyTimeout: number;
  /** The caller's signal: aborting it fails the exchange with its reason. */
  signal?: AbortSignal;
}

/**
 * Sends one request through `dispatcher` and collects its answer. A thin handler on Dispatcher#dispatch instead
 * of undici's `request()`: that one builds an async-hooks resource, a Readable stream and a parsed header object
 * for every response, and wires an abort listener per request: ~30 µs of CPU per request that a bulk run of
 * 10,000 shipments, CPU-bound on its main thread, paid for nothing (bench/create-csv.mjs). The handler speaks
 * undici's own (v7 "legacy") handler protocol, which every Dispatcher accepts, MockAgent included.
 *
 * Returns the answer's promise and `abort(reason)`, which fails the request with `reason` (a time limit). They
 * come as two fields, not as a method added to the promise: with an `abort` property of its own on the promise,
 * every response stayed alive long enough to reach V8's old generation (measured: 52 MB promoted instead of 8 in
 * a microbenchmark; a 10,000-shipment run peaked at ~190 MB instead of ~140 on Node 24). Keep the promise plain.
 */
export function exchange(dispatcher: Dispatcher, url: string, opts: ExchangeOptions): PendingExchange {
  const { origin, path } = split(url);
  const collector = new Collector(opts.signal);
  if (opts.signal?.aborted) {
    collector.fail(opts.signal.reason);
    return collector;
  }
  try {
    dispatcher.dispatch(
      { origin, path, method: opts.method, headers: opts.headers, body: opts.body, headersTimeout: opts.headersTimeout, bodyTimeout: opts.bodyTimeout },
      collector as unknown as Dispatcher.DispatchHandler,
    );
  } catch (err) {
    collector.fail(err);
  }
  return collector;
}

/** An exchange under way: its answer, and a way to abort it. */
export interface PendingExchange {
  readonly answer: Promise<Exchange>;
  abort(reason: unknown): void;
}

/** The value of response header `name` (lower case), or undefined; repeated headers are joined with ", ". */
export function headerValue(rawHeaders: ReadonlyArray<Buffer | string>, name: string): string | undefined {
  let out: string | undefined;
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    if (String(rawHeaders[i]).toLowerCase() !== name) continue;
    const v = String(rawHeaders[i + 1]);
    out = out === undefined ? v : `${out}, ${v}`;
  }
  return out;
}

/** The caller signals in use, each with the exchanges it must abort: one listener per signal, not per request. */
const watched = new WeakMap<AbortSignal, Set<Collector>>();

function watch(signal: AbortSignal, c: Collector): void {
  let set = watched.get(signal);
  if (!set) {
    const collectors = new Set<Collector>();
    set = collectors;
    watched.set(signal, collectors);
    signal.addEventListener('abort', () => {
      for (const x of collectors) x.abort(signal.reason);
      collectors.clear();
    }, { once: true });
  }
  set.add(c);
}

/** undici's handler protocol (onConnect, onHeaders, onData, onComplete, onError), collecting the answer whole. */
class Collector implements PendingExchange {
  readonly answer: Promise<Exchange>;
  private resolve!: (x: Exchange) => void;
  private reject!: (e: unknown) => void;
  private status = 0;
  private rawHeaders: ReadonlyArray<Buffer | string> = [];
  private chunks: Buffer[] = [];
  private undiciAbort: ((reason: unknown) => void) | undefined;
  private abortReason: unknown;
  private aborting = false;
  private settled = false;

  constructor(private readonly signal: AbortSignal | undefined) {
    this.answer = new Promise<Exchange>((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
    if (signal && !signal.aborted) watch(signal, this);
  }

  /** Fails the exchange with `reason`: at once if undici has it under way, else as soon as it starts it. */
  abort(reason: unknown): void {
    if (this.settled || this.aborting) return;
    this.aborting = true;
    this.abortReason = reason;
    // undici then calls onError(reason).
    if (this.undiciAbort) this.undiciAbort(reason);
  }

  /** Settles the exchange as failed (undici never saw it, or reported an error). */
  fail(err: unknown): void {
    if (this.settled) return;
    this.settled = true;
    this.unwatch();
    this.reject(err);
  }

  onConnect(abort: (reason: unknown) => void): void {
    if (this.aborting) abort(this.abortReason);
    else this.undiciAbort = abort;
  }

  onHeaders(status: number, rawHeaders: ReadonlyArray<Buffer | string>): boolean {
    // 1xx (100 Continue…) are not the answer.
    if (status < 200) return true;
    this.status = status;
    this.rawHeaders = rawHeaders ?? [];
    return true;
  }

  onData(chunk: Buffer): boolean {
    this.chunks.push(chunk);
    return true;
  }

  onComplete(): void {
    if (this.settled) return;
    this.settled = true;
    this.unwatch();
    const exchange: Exchange = { status: this.status, rawHeaders: this.rawHeaders, text: decode(this.chunks) };
    this.chunks = [];
    // undici frees a keep-alive socket one event-loop turn after a response ends (it checks the idle socket
    // first, with a setImmediate queued once this returns); answering after that turn lets the caller's next
    // request reuse it instead of opening another. The microtask runs once undici's handler has returned.
    queueMicrotask(() => setImmediate(this.resolve, exchange));
  }

  onError(err: unknown): void {
    this.fail(err);
  }

  private unwatch(): void {
    if (this.signal) watched.get(this.signal)?.delete(this);
  }
}

/** The body as UTF-8 text, without a byte-order mark (as undici's body.text() gives it). */
function decode(chunks: Buffer[]): string {
  if (chunks.length === 0) return '';
  const buf = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
  const start = buf.length >= 3 && buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf ? 3 : 0;
  return buf.toString('utf8', start);
}

let lastSplit: { url: string; origin: string; path: string } | undefined;

/** The origin and path of a URL; the last one is remembered (a bulk run sends thousands to the same URL). */
function split(url: string): { origin: string; path: string } {
  if (lastSplit?.url === url) return lastSplit;
  const u = new URL(url);
  lastSplit = { url, origin: u.origin, path: u.search ? `${u.pathname}${u.search}` : u.pathname };
  return lastSplit;
}
