// The progress line of bulk commands: one line on stderr redrawn with \r, at most ~10 times a second, with
// counts, rate and ETA. Only on an interactive terminal outside --json; otherwise a no-op.
import type { Writable } from 'node:stream';

/** Counts shown by the progress line. */
export interface ProgressCounts {
  created: number;
  skipped: number;
  failed: number;
  /** Tasks in flight. */
  active?: number;
}

/** What the runner reports progress to. */
export interface ProgressReporter {
  /** Starts the line; total may be unknown (streamed input). */
  start(total?: number): void;
  /** New counts (cheap to call often: redraws are throttled). */
  update(counts: ProgressCounts): void;
  /** Sets the total once it is known. */
  setTotal(total: number): void;
  /** Erases the line (before printing other text on stderr, and at the end). */
  stop(): void;
  /**
   * Draws the line again after stop() mid-run (a line printed on stderr), its rate and ETA moving on, rather than
   * only at the next count: a run held by a rate limit has none for a while.
   */
  resume(): void;
  /** Whether anything is drawn at all. */
  readonly enabled: boolean;
}

/** Options of createProgress(). */
export interface ProgressOptions {
  stream: Writable;
  /** Draw at all: interactive terminal and not --json (the caller decides, from ctx.mode). */
  enabled: boolean;
  /** Noun for the counts, e.g. "shipments". */
  label?: string;
  /** Word for the first count (default "created"). */
  createdWord?: string;
  /** Terminal width (the line is cut to it): a function is asked at every redraw, so a resized window is followed. */
  columns?: number | (() => number | undefined);
  /** Milliseconds between redraws (default 100). */
  intervalMs?: number;
  /** Clock, injectable for tests. */
  now?: () => number;
  /**
   * Work of the run beyond its tasks, shown after the counts (create --printer: the labels sent, which go on
   * after the last shipment is created); asked at every redraw.
   */
  note?: () => string | undefined;
}

/** A reporter that draws nothing (not a TTY, --json, --quiet). */
export const noProgress: ProgressReporter = {
  enabled: false,
  start() {},
  update() {},
  setTotal() {},
  stop() {},
  resume() {},
};

/** Creates the progress line for a bulk run; a no-op reporter when not enabled. */
export function createProgress(opts: ProgressOptions): ProgressReporter {
  if (!opts.enabled) return noProgress;
  const now = opts.now ?? Date.now;
  const interval = opts.intervalMs ?? 100;
  const label = opts.label ?? 'tasks';
  let total: number | undefined;
  let counts: ProgressCounts = { created: 0, skipped: 0, failed: 0 };
  let started = 0;
  /** start() was called (resume() draws only a line that was started). */
  let begun = false;
  let lastDraw = -Infinity;
  let drawn = false;
  let timer: NodeJS.Timeout | undefined;

  // When the last task was done: the rate is of the tasks, not of what comes after them (see note).
  let finished: number | undefined;
  const draw = () => {
    lastDraw = now();
    const done = counts.created + counts.skipped + counts.failed;
    if (total !== undefined && done >= total) finished ??= lastDraw;
    const elapsed = Math.max(0.001, ((finished ?? lastDraw) - started) / 1000);
    // Rate over work actually done in this run; skipped tasks cost nothing and would inflate it.
    const worked = counts.created + counts.failed;
    const rate = worked / elapsed;
    const counts_ = `${opts.createdWord ?? 'created'} ${counts.created} skipped ${counts.skipped} failed ${counts.failed}`;
    const tail = [`${rate.toFixed(1)}/s`];
    if (total !== undefined && rate > 0 && done < total) tail.push(`ETA ${formatDuration((total - done) / rate)}`);
    const of = total !== undefined && total > 0 ? `${done}/${total} ${label}` : `${done} ${label}`;
    let bar = '';
    if (total !== undefined && total > 0) {
      const width = 16;
      const filled = Math.round(Math.min(1, done / total) * width);
      bar = `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] `;
    }
    const cols = ((typeof opts.columns === 'function' ? opts.columns() : opts.columns) || 80) - 1;
    // Narrow terminals lose the bar first, then the counts that are 0, then the breakdown (failures stay), then
    // the noun: how far, how fast and how long to go stay to the last (cutting the end lost rate and ETA first).
    const breakdown = [
      [opts.createdWord ?? 'created', counts.created],
      ['skipped', counts.skipped],
      ['failed', counts.failed],
    ] as const;
    const nonZero = breakdown.filter(([, n]) => n > 0).map(([w, n]) => `${w} ${n}`).join(' ');
    const bare = total !== undefined && total > 0 ? `${done}/${total}` : `${done}`;
    const note = opts.note?.() ?? '';
    const candidates = [
      [bar + of, counts_, note, ...tail],
      [of, counts_, note, ...tail],
      [of, nonZero, note, ...tail],
      [bar + of, counts_, ...tail],
      [of, counts_, ...tail],
      [of, nonZero, ...tail],
      [of, counts.failed ? `failed ${counts.failed}` : '', ...tail],
      [bare, counts.failed ? `failed ${counts.failed}` : '', ...tail],
      [bare, ...tail],
      [bare, ...tail.slice(1)],
    ].map((parts) => parts.filter(Boolean).join(' · '));
    let line = candidates.find((l) => l.length <= cols) ?? candidates[candidates.length - 1];
    if (line.length > cols) line = line.slice(0, cols);
    opts.stream.write(`\r${line}\x1b[K`);
    drawn = true;
  };

  return {
    enabled: true,
    start(t) {
      total = t;
      started = now();
      begun = true;
      draw();
      // Keeps rate and ETA moving while a slow request holds the counts still.
      timer = setInterval(draw, 1000);
      timer.unref?.();
    },
    setTotal(t) {
      total = t;
    },
    update(c) {
      counts = { ...c };
      if (now() - lastDraw >= interval) draw();
    },
    stop() {
      if (timer) clearInterval(timer);
      timer = undefined;
      if (drawn) opts.stream.write('\r\x1b[K');
      drawn = false;
    },
    resume() {
      if (!begun || timer) return;
      draw();
      timer = setInterval(draw, 1000);
      timer.unref?.();
    },
  };
}

/**
 * Seconds as "1h02m", "3m05s" or "12s"; with `tenths`, a time under 10 s as "3.2s", and under 1 s as
 * "0.04s" (a summary of a short run saying "in 0s" tells nothing; an ETA needs no such precision).
 */
export function formatDuration(seconds: number, opts: { tenths?: boolean } = {}): string {
  if (opts.tenths && seconds < 0.995) return `${Math.max(0, seconds).toFixed(2)}s`;
  if (opts.tenths && seconds < 9.95) return `${seconds.toFixed(1)}s`;
  const s = Math.max(0, Math.round(seconds));
  if (s >= 3600) return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
  if (s >= 60) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  return `${s}s`;
}
