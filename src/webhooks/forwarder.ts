// Relays accepted webhooks, byte for byte and in order, to a local handler: one at a time, retrying with
// back-off while the handler is down, holding up to a bound of events meanwhile and reporting any it drops.

// Static on purpose: esbuild turns a dynamic import of this CommonJS package into a default-only chunk.
import { request } from 'undici';
import { abortableSleep as sleep } from '../util/sleep.js';

/** One event waiting to be relayed. */
export interface ForwardItem<T = unknown> {
  body: Buffer;
  contentType: string;
  /** Whatever the caller wants back in reports (the received event). */
  meta: T;
}

/** What happened to a forwarded event, or to one attempt at it. */
export type ForwardReport<T = unknown> =
  | { type: 'delivered'; item: ForwardItem<T>; status: number; attempts: number; ms: number }
  | { type: 'gave_up'; item: ForwardItem<T>; status: number; attempts: number }
  | {
      type: 'attempt_failed';
      item: ForwardItem<T>;
      attempt: number;
      /** The handler's status, when it answered. */
      status?: number;
      /** Why no answer came (refused, timeout, …), when it did not. */
      error?: string;
      retryInMs: number;
      queued: number;
    }
  | { type: 'dropped'; item: ForwardItem<T>; queued: number };

/** Sends one request and resolves to the handler's status; rejects when no answer came. */
export type PostFn = (url: string, body: Buffer, contentType: string, signal: AbortSignal) => Promise<number>;

export interface ForwarderOptions<T> {
  url: string;
  onReport(r: ForwardReport<T>): void;
  /** Most events held while the handler is down; more are dropped (and reported). Default 1000. */
  maxQueue?: number;
  /** Most body bytes held in all; beyond it events are dropped too. Default 64 MiB. */
  maxQueueBytes?: number;
  /** First retry delay, doubled per attempt up to maxDelayMs. Defaults 250 and 5000. */
  initialDelayMs?: number;
  maxDelayMs?: number;
  /**
   * Attempts for an event the handler answers with a definite refusal (4xx other than 408/429) before
   * moving on to the next; an unreachable handler, 5xx, 408 and 429 are retried until delivered. Default 5.
   */
  maxRejections?: number;
  /** Time limit of one attempt. Default 10 s. */
  timeoutMs?: number;
  post?: PostFn;
}

/** The relay queue of `ship webhooks listen --forward-to`. */
export class Forwarder<T = unknown> {
  private readonly queue: ForwardItem<T>[] = [];
  private readonly stopper = new AbortController();
  private running: Promise<void> | undefined;
  private readonly idleWaiters: Array<() => void> = [];
  private readonly maxQueue: number;
  private readonly maxQueueBytes: number;
  private queuedBytes = 0;
  private readonly post: PostFn;

  constructor(private readonly opts: ForwarderOptions<T>) {
    this.maxQueue = opts.maxQueue ?? 1000;
    this.maxQueueBytes = opts.maxQueueBytes ?? 64 * 1024 * 1024;
    this.post = opts.post ?? undiciPost(opts.timeoutMs ?? 10_000);
  }

  /** Events waiting, including the one being sent. */
  get pending(): number {
    return this.queue.length;
  }

  /** Adds an event behind the others; false (and a `dropped` report) when the queue is full or stopped. */
  enqueue(item: ForwardItem<T>): boolean {
    const full = this.queue.length >= this.maxQueue || (this.queue.length > 0 && this.queuedBytes + item.body.length > this.maxQueueBytes);
    if (this.stopper.signal.aborted || full) {
      this.opts.onReport({ type: 'dropped', item, queued: this.queue.length });
      return false;
    }
    this.queue.push(item);
    this.queuedBytes += item.body.length;
    this.kick();
    return true;
  }

  private kick(): void {
    if (this.running) return;
    this.running = this.drain().finally(() => {
      this.running = undefined;
      // An event queued between the loop's last check and now still needs a sender.
      if (this.queue.length > 0 && !this.stopper.signal.aborted) return this.kick();
      this.idleWaiters.splice(0).forEach((w) => w());
    });
  }

  /** Resolves when nothing is waiting (or the forwarder was stopped). */
  idle(): Promise<void> {
    if (!this.running) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Stops sending (an attempt in flight is abandoned) and resolves to the events never delivered. */
  async stop(): Promise<ForwardItem<T>[]> {
    this.stopper.abort();
    await this.running?.catch(() => {});
    this.queuedBytes = 0;
    return this.queue.splice(0);
  }

  private dequeue(): void {
    const item = this.queue.shift();
    if (item) this.queuedBytes -= item.body.length;
  }

  private async drain(): Promise<void> {
    const signal = this.stopper.signal;
    const initial = this.opts.initialDelayMs ?? 250;
    const maxDelay = this.opts.maxDelayMs ?? 5000;
    const maxRejections = this.opts.maxRejections ?? 5;
    while (this.queue.length > 0 && !signal.aborted) {
      const item = this.queue[0];
      const started = Date.now();
      let attempts = 0;
      let rejections = 0;
      for (;;) {
        attempts++;
        let status: number | undefined;
        let error: string | undefined;
        try {
          status = await this.post(this.opts.url, item.body, item.contentType, signal);
        } catch (err) {
          if (signal.aborted) return;
          error = describeNetworkError(err);
        }
        if (status !== undefined && status >= 200 && status < 300) {
          this.dequeue();
          this.opts.onReport({ type: 'delivered', item, status, attempts, ms: Date.now() - started });
          break;
        }
        const definite = status !== undefined && status >= 400 && status < 500 && status !== 408 && status !== 429;
        if (definite && ++rejections >= maxRejections) {
          this.dequeue();
          this.opts.onReport({ type: 'gave_up', item, status: status as number, attempts });
          break;
        }
        const delay = Math.min(maxDelay, initial * 2 ** Math.min(attempts - 1, 20));
        // Jitter so several listeners restarting together do not hit a handler in lockstep.
        const retryInMs = Math.round(delay * (0.8 + Math.random() * 0.4));
        this.opts.onReport({ type: 'attempt_failed', item, attempt: attempts, status, error, retryInMs, queued: this.queue.length });
        try {
          await sleep(retryInMs, signal);
        } catch {
          return;
        }
      }
    }
  }
}


/** A short reason for a failed request: ECONNREFUSED → "refused", and so on. */
export function describeNetworkError(err: unknown): string {
  const e = err as { code?: string; cause?: { code?: string }; name?: string; message?: string };
  const code = e?.code ?? e?.cause?.code;
  switch (code) {
    case 'ECONNREFUSED':
      return 'connection refused';
    case 'ECONNRESET':
    case 'UND_ERR_SOCKET':
      return 'connection reset';
    case 'UND_ERR_HEADERS_TIMEOUT':
    case 'UND_ERR_BODY_TIMEOUT':
    case 'UND_ERR_CONNECT_TIMEOUT':
    case 'ETIMEDOUT':
      return 'timed out';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'host not found';
    default:
      if (e?.name === 'TimeoutError') return 'timed out';
      return code ? String(code) : (e?.message ?? String(err));
  }
}

/** The default PostFn: undici, with a per-attempt time limit. */
function undiciPost(timeoutMs: number): PostFn {
  return async (url, body, contentType, signal) => {
    const res = await request(url, {
      method: 'POST',
      body,
      headers: { 'content-type': contentType, 'user-agent': 'ship-webhooks-listen' },
      signal: AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]),
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
    });
    await res.body.dump().catch(() => {});
    return res.statusCode;
  };
}
