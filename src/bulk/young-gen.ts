// Keeps V8's young generation of a long bulk run at a moderate size. V8 grows it (by doubling) while objects
// keep surviving, and a bulk run's steady allocation (a parsed response, a label and a few lines per task)
// takes it to the maximum: on Node 20 (V8 11) 2 × 16 MB, 32 MB of the ~150 MB peak of a 10,000-shipment run;
// on Node 24 (V8 13) far more: up to 134 MB of young generation, for a peak of 180–255 MB. Stopped at 16 MB,
// the run scavenges more often at about the same total GC time (each scavenge copies the same few in-flight
// objects) and peaks ~30 MB lower on Node 20 and at ~137 MB on Node 24, no slower (bench/create-csv.mjs).
// `--max-semi-space-size` only takes effect at start-up; the growth factor is read at each growth, so setting
// it to 1 once the young generation reached the size we want stops it there.
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
  const stop = (timer?: NodeJS.Timeout) => () => {
    clearInterval(timer);
    unsubscribe('worker_threads', onWorker);
    capped = false;
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
  });
}
