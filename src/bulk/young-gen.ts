// Keeps V8's young generation of a long bulk run at a moderate size. V8 grows it (by doubling) while objects
// keep surviving, and a bulk run's steady allocation (a parsed response, a label and a few lines per task)
// takes it to the maximum: on Node 20 (V8 11) 2 × 16 MB, 32 MB of the ~150 MB peak of a 10,000-shipment run;
// on Node 24 (V8 13) far more: up to 134 MB of young generation, for a peak of 180–255 MB. Stopped at 16 MB,
// the run scavenges more often at about the same total GC time (each scavenge copies the same few in-flight
// objects) and peaks ~30 MB lower on Node 20 and at ~137 MB on Node 24, no slower (bench/create-csv.mjs).
// `--max-semi-space-size` only takes effect at start-up; the growth factor is read at each growth, so setting
// it to 1 once the young generation reached the size we want stops it there.
// A worker thread starting during the run (the label thread) also has the old generation collected once and
// kept closer to what survives (tightenOldGeneration), which kept Node 24 under 150 MB with the thread.
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { Worker } from 'node:worker_threads';
import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';

/** Young-generation size (both semi-spaces) at which growth is stopped. */
const CAP_BYTES = 16 * 1024 * 1024;

/**
 * Stops the young generation's growth once it reaches 16 MB (measured on V8 11 and 13, Node 20 and 24; an
 * engine that no longer knows the flag ignores it). Returns a function that stops watching (call it when the
 * run ends).
 */
export function capYoungGeneration(): () => void {
  const check = (): boolean => {
    const young = getHeapSpaceStatistics().find((s) => s.space_name === 'new_space');
    if (!young || young.space_size < CAP_BYTES) return false;
    setFlagsFromString('--semi-space-growth-factor=1');
    capped = true;
    return true;
  };
  // Put back once each worker thread runs (see onWorker).
  subscribe('worker_threads', onWorker);
  watching = true;
  const stop = (timer?: NodeJS.Timeout) => () => {
    clearInterval(timer);
    unsubscribe('worker_threads', onWorker);
    capped = false;
    watching = false;
    if (oldGrowthSet) setFlagsFromString('--heap-growing-percent=0');
    oldGrowthSet = false;
  };
  if (check()) return stop();
  // Growth happens at scavenges, a few times a second at most: a 5 ms look catches it at the size wanted.
  const timer = setInterval(() => {
    if (check()) clearInterval(timer);
  }, 5);
  timer.unref();
  return stop(timer);
}

/** The cap is in force (capYoungGeneration reached its size, and was not undone). */
let capped = false;

/**
 * Puts the cap back once a worker thread runs. V8 sets the growth factor back to its default (2) whenever it
 * configures a new isolate's heap (it takes no less), and a worker thread is a new isolate: a run whose label
 * files went to a thread (src/labels/index.ts LabelWorker) grew its young generation to 32 MB again. Put back
 * on the thread's `online` event (its heap is configured by then), 3 paired 10,000-shipment runs with the thread
 * on Node 20 peaked at 126–146 MB against 151–166. Node publishes every new Worker on this channel.
 */
function onWorker(message: unknown): void {
  (message as { worker: Worker }).worker.once('online', () => {
    if (capped) setFlagsFromString('--semi-space-growth-factor=1');
    if (watching) tightenOldGeneration();
  });
}

/** Between capYoungGeneration() and its stop: a bulk run is going on. */
let watching = false;
/** tightenOldGeneration() changed V8's old-generation growth (put back to its default when the run ends). */
let oldGrowthSet = false;

/** The old generation may grow this much over what survives a full collection, once a thread runs (V8: up to 4×). */
const OLD_GROWTH_PERCENT = 30;

/**
 * Collects the old generation once, and lets it grow only OLD_GROWTH_PERCENT over what survived, from then on. Called when a
 * worker thread comes online in a run (the label thread: src/labels/index.ts LabelWorker). The thread's isolate
 * costs ~17 MB (Node 24), and the run's tasks then wait longer for their labels, so more of what they allocate
 * outlives two scavenges and is promoted; the old generation filled with it up to the limit V8 set at the CSV
 * load's last full collection (~2× the data kept), and nothing collected it before the run ended: 10,000
 * shipments peaked at 157–164 MB on Node 24, 42 MB of it old generation (26 MB without the thread). With this:
 * 141–144 MB (Node 20: 112–113 against 127–133), one ~11 ms collection and a few more later: the main thread
 * ~20 µs a shipment busier, the bulk phase as fast within the noise of such a slow disk (8 paired runs). V8
 * reads the growth at each full collection, hence the one forced now (no API triggers one: `gc` is exposed to
 * a new context for it, then the flag is put back).
 */
function tightenOldGeneration(): void {
  setFlagsFromString(`--heap-growing-percent=${OLD_GROWTH_PERCENT}`);
  oldGrowthSet = true;
  let collect = (globalThis as { gc?: () => void }).gc;
  if (!collect) {
    setFlagsFromString('--expose-gc');
    try {
      collect = process.getBuiltinModule('node:vm').runInNewContext('gc') as (() => void) | undefined;
    } catch {
      // No `gc` to be had (an engine without the flag): the growth applies from V8's next full collection.
    } finally {
      setFlagsFromString('--no-expose-gc');
    }
  }
  collect?.();
}
