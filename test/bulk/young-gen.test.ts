// The young-generation cap of a bulk run (src/bulk/young-gen.ts), and a worker thread starting: V8 puts its
// growth factor back to the default when it configures a new isolate, so the cap is set again once it runs.
import { constants, PerformanceObserver, type PerformanceEntry } from 'node:perf_hooks';
import { getHeapSpaceStatistics } from 'node:v8';
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { capYoungGeneration } from '../../src/bulk/young-gen.js';

const youngMb = () => getHeapSpaceStatistics().find((s) => s.space_name === 'new_space')!.space_size / 1048576;

/** Allocates objects that survive a scavenge or two (what makes V8 grow its young generation), for `ms`. */
async function churn(ms: number): Promise<void> {
  let keep: unknown[] = [];
  const until = performance.now() + ms;
  while (performance.now() < until) {
    for (let i = 0; i < 20_000; i++) {
      keep.push({ i, s: `x${i}` });
      if (keep.length > 60_000) keep = [];
    }
    await new Promise((r) => setImmediate(r));
  }
}

/** Runs `fn` in a fresh process-like setting: the cap is process-wide, so it is undone after. */
async function withCap(fn: () => Promise<void>): Promise<void> {
  const uncap = capYoungGeneration();
  try {
    await fn();
  } finally {
    uncap();
  }
}

describe('young-generation cap', () => {
  // Runs in vitest's own worker: its young generation may already be larger than the cap; then it is skipped.
  it('stays at its size after a worker thread starts (put back on its online event)', async (ctx) => {
    await withCap(async () => {
      await churn(400);
      const capped = youngMb();
      if (capped > 16) ctx.skip(); // already grown before this test: the cap cannot shrink it
      expect(capped).toBe(16);
      const worker = new Worker('setInterval(() => {}, 1000)', { eval: true });
      await new Promise((r) => worker.once('online', r));
      await churn(600);
      expect(youngMb()).toBe(16);
      await worker.terminate();
    });
  }, 20_000);

  /** Full collections (their start times) while a worker thread starts and comes online. */
  async function fullCollectionsAroundWorkerStart(): Promise<{ since: number; fulls: number[] }> {
    const fulls: number[] = [];
    const observer = new PerformanceObserver((list) => {
      for (const e of list.getEntries()) if (((e as PerformanceEntry & { detail?: { kind?: number } }).detail)?.kind === constants.NODE_PERFORMANCE_GC_MAJOR) fulls.push(e.startTime);
    });
    observer.observe({ entryTypes: ['gc'] });
    const since = performance.now();
    const worker = new Worker('setInterval(() => {}, 1000)', { eval: true });
    await new Promise((r) => worker.once('online', r));
    // GC entries are delivered a little later.
    await new Promise((r) => setTimeout(r, 100));
    observer.disconnect();
    await worker.terminate();
    return { since, fulls: fulls.filter((t) => t >= since) };
  }

  // The label thread's isolate, and more promoted garbage while tasks wait for it, took a 10,000-shipment run on
  // Node 24 over 150 MB: the old generation is collected once when a thread comes online during a run.
  it('collects the old generation once when a worker thread comes online during a run', async () => {
    await withCap(async () => {
      const { fulls } = await fullCollectionsAroundWorkerStart();
      expect(fulls.length).toBeGreaterThanOrEqual(1);
    });
  }, 20_000);

  it('leaves the old generation alone for a worker started outside a run', async () => {
    const { fulls } = await fullCollectionsAroundWorkerStart();
    expect(fulls).toEqual([]);
  }, 20_000);
});
