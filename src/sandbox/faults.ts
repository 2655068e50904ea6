// Injected faults for reliability tests: failure rate and status, latency, connection resets, and a rate limit
// answered with 429 and Retry-After. Applied to API routes only, never to the control endpoints.
import { Errors, int, isObject, num } from './validation.js';

/** The fault settings, as POST /__sandbox/faults takes them. */
export interface FaultConfig {
  fail_rate: number;
  status: number;
  latency_ms: number;
  reset_rate: number;
  rate_limit_per_s: number | null;
}

/** What to do with one request. */
export type FaultAction = { kind: 'none' } | { kind: 'reset' } | { kind: 'fail'; status: number } | { kind: 'limit'; retryAfter: number };

const NONE: FaultAction = { kind: 'none' };

/** Fault state of a running sandbox. */
export class Faults {
  config: FaultConfig = Faults.cleared();
  private windowStart = 0;
  private windowCount = 0;

  /** Settings with every fault off. */
  static cleared(): FaultConfig {
    return { fail_rate: 0, status: 503, latency_ms: 0, reset_rate: 0, rate_limit_per_s: null };
  }

  /** True when any fault is configured (the hot path skips everything otherwise). */
  get active(): boolean {
    const c = this.config;
    return c.fail_rate > 0 || c.latency_ms > 0 || c.reset_rate > 0 || c.rate_limit_per_s !== null;
  }

  /** Replaces the settings from a request body (`{}` clears them); throws a 400 validation error on bad values. */
  set(body: unknown): FaultConfig {
    const b = isObject(body) ? body : {};
    const e = new Errors();
    const c = Faults.cleared();
    c.fail_rate = num(e, b.fail_rate, 'fail_rate', { min: 0, max: 1 }) ?? 0;
    c.status = int(e, b.status, 'status', { min: 400, max: 599 }) ?? 503;
    c.latency_ms = int(e, b.latency_ms, 'latency_ms', { min: 0, max: 60_000 }) ?? 0;
    c.reset_rate = num(e, b.reset_rate, 'reset_rate', { min: 0, max: 1 }) ?? 0;
    c.rate_limit_per_s = int(e, b.rate_limit_per_s, 'rate_limit_per_s', { min: 1 }) ?? null;
    e.throwIfAny();
    this.config = c;
    this.windowStart = 0;
    this.windowCount = 0;
    return c;
  }

  /** Clears every fault. */
  clear(): void {
    this.config = Faults.cleared();
  }

  /** Decides the fate of one request: rate limit first, then reset, then failure. */
  decide(nowMs: number): FaultAction {
    const c = this.config;
    if (c.rate_limit_per_s !== null) {
      if (nowMs - this.windowStart >= 1000) {
        this.windowStart = nowMs;
        this.windowCount = 0;
      }
      this.windowCount++;
      if (this.windowCount > c.rate_limit_per_s) {
        return { kind: 'limit', retryAfter: Math.max(1, Math.ceil((this.windowStart + 1000 - nowMs) / 1000)) };
      }
    }
    if (c.reset_rate > 0 && Math.random() < c.reset_rate) return { kind: 'reset' };
    if (c.fail_rate > 0 && Math.random() < c.fail_rate) return { kind: 'fail', status: c.status };
    return NONE;
  }
}
