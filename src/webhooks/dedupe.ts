// Remembers recent request tokens so a redelivered webhook is shown as a repeat, not as a new event.

/** A bounded first-seen memory: the oldest keys are forgotten once `limit` is reached. */
export class Deduper<T> {
  private readonly seen = new Map<string, T>();
  constructor(private readonly limit = 10_000) {}

  /**
   * Returns what was first recorded for `key`, or records `value` and returns undefined when `key`
   * is new. An empty key is never a repeat (payloads without a request token cannot be matched).
   */
  check(key: string | undefined, value: T): T | undefined {
    if (!key) return undefined;
    const first = this.seen.get(key);
    if (first !== undefined) return first;
    this.seen.set(key, value);
    if (this.seen.size > this.limit) {
      const oldest = this.seen.keys().next().value;
      if (oldest !== undefined) this.seen.delete(oldest);
    }
    return undefined;
  }

  /** How many keys are remembered. */
  get size(): number {
    return this.seen.size;
  }
}
