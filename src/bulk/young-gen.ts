// Keeps V8's young generation of a long bulk run at a moderate size. V8 grows it (by doubling, up to 2 × 16 MB
// on 64-bit) while objects keep surviving, and a bulk run's steady allocation (a parsed response, a label and
// a few lines per task) takes it to the maximum: 32 MB of the ~150 MB peak of a 10,000-shipment run. Stopped at
// 16 MB, the run scavenges about twice as often at the same total GC time (each scavenge copies the same few
// in-flight objects) and peaks ~30 MB lower (bench/create-csv.mjs). `--max-semi-space-size` only takes
// effect at start-up; the growth factor is read at each growth, so setting it to 1 once the young generation
// reached the size we want stops it there.
import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';

/** Young-generation size (both semi-spaces) at which growth is stopped. */
const CAP_BYTES = 16 * 1024 * 1024;

/**
 * Stops the young generation's growth once it reaches 16 MB (V8 11, Node 20, where it was measured: the flag's
 * effect is an engine detail). Returns a function that stops watching (call it when the run ends).
 */
export function capYoungGeneration(): () => void {
  if (!process.versions.v8.startsWith('11.')) return () => undefined;
  const check = (): boolean => {
    const young = getHeapSpaceStatistics().find((s) => s.space_name === 'new_space');
    if (!young || young.space_size < CAP_BYTES) return false;
    setFlagsFromString('--semi-space-growth-factor=1');
    return true;
  };
  if (check()) return () => undefined;
  // Growth happens at scavenges, a few times a second at most: a 5 ms look catches it at the size wanted.
  const timer = setInterval(() => {
    if (check()) clearInterval(timer);
  }, 5);
  timer.unref();
  return () => clearInterval(timer);
}
