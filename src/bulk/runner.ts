// The bulk runner shared by `create --csv`, `cancel` and `skus import`: bounded concurrency, a journal that
// makes reruns resume exactly once, settling of unknown outcomes before any resend, and bounded retries.
//
// Order: onResult is called in INPUT order by default (`order: 'input'`, a small reorder buffer; the runner
// stops starting new tasks while that buffer is full, so memory stays bounded), or in completion order
// (`order: 'completion'`). onResult calls never overlap. Results are not kept: the runner returns counts and
// the first few failures only.
//
// Journal protocol per key: "sending" (durable before the request leaves; for fresh tasks written a little
// ahead, in group commits, so the disk never holds up a free slot) → "done" with the result summary, or
// "failed" with the error and whether its outcome is unknown. A reservation that was never used is closed
// with "unsent". On a rerun: done → skipped with the stored result; sending (or failed with unknown outcome)
// → settle() first, then send only if absent (or, with verifyByResend, also when found but perhaps no longer
// live: the service's refusal of a duplicate then says it is); failed → sent again.
//
// Credentials refused (an AuthError: 401/403): every other task would be refused the same way, so the run
// stops as on Ctrl-C: nothing new starts, tasks in flight finish and are journalled, reservations of tasks
// not started are closed "unsent" (a rerun sends them as fresh). A refused task is a failed result (its
// journal record is a known failure, sent again on a rerun) counted as `rejected`, not `failed`: the row
// itself is fine, so commands keep it out of FILE.failed.csv. The summary carries the error (`authStop`).
//
// API unreachable (a NetworkError saying the connection was refused or the host name does not resolve, after
// the task's retries): every other task would wait out the same retries only to fail the same way (a
// 10,000-row run against a wrong base URL would take half an hour), so the run stops the same way. Such a
// request never left, so the task's record is a known failure and a rerun simply sends it (`unreachable`);
// counted as `rejected`, as a refused task is (its row is fine).
//
// A local failure every later task would meet too (hooks.stopsRun: the disk holding the labels is full): the
// run stops the same way rather than go on creating shipments whose labels cannot be kept (`localStop`).
//
// Failures of the service or the network (isServiceFailure: 5xx or 429 after the retries, timeouts, resets) are
// counted apart (`serviceFailed`): a run in which every task failed so says "the service is down", not "some
// rows are bad" (bulk/command.ts). They do not stop the run: a service failing now and then still does the rest.
import { ApiError, AuthError, Interrupted, NetworkError, NotFoundError, ShipError, ValidationError } from '../errors.js';
import { getMaxListeners, setMaxListeners } from 'node:events';
import { abortableSleep } from '../util/sleep.js';
import type { Journal, JournalEntry, StoredError } from './journal.js';
import type { ProgressReporter } from './progress.js';

/** One unit of bulk work (e.g. one shipment made of one or more CSV rows). */
export interface BulkTask<I> {
  /** Unique idempotency key (e.g. the shipment_reference); the journal is keyed by it. */
  key: string;
  /** 1-based CSV line numbers this task came from (header is line 1); empty when not from a CSV. */
  rows: number[];
  /** The original CSV records (cells in header order), one per row, for FILE.failed.csv and --results. */
  records?: string[][];
  input: I;
}

/** The run stopped before its end: Ctrl-C, credentials refused, the API unreachable, or a local stop. */
export function stoppedEarly(s: Pick<BulkSummary, 'interrupted' | 'authStop' | 'unreachable' | 'localStop'>): boolean {
  return s.interrupted || s.authStop !== undefined || s.unreachable !== undefined || s.localStop !== undefined;
}

/**
 * What settle() found out about a task whose previous attempt has an unknown outcome: done (it exists: its
 * summary), absent, or found (with `existsOnly`: something has its key, perhaps not live — a cancelled object
 * whose key was given again; see verifyByResend).
 */
export type Outcome<R> = { status: 'done'; result: R } | { status: 'absent' } | { status: 'found' };

/** What the runner asks of the command. R must be JSON-serialisable: it is stored in the journal. */
export interface BulkHooks<I, R> {
  /**
   * Does the work once (e.g. POST /shipments, then write labels) and returns a small JSON summary. `release()`
   * says the part that needs a concurrency slot (the request) is over: the next task may start while this one
   * finishes (its label files written in a batch). Not calling it keeps the slot to the end. Either way the
   * task is journaled and reported only once this resolves.
   */
  execute(task: BulkTask<I>, signal: AbortSignal, release: () => void): Promise<R>;
  /**
   * Asked before resending a task whose previous attempt's outcome is unknown (journal says "sending" with
   * no outcome, or it failed with a timeout/reset/5xx) and after isAlreadyDone(): does it exist already?
   * Without settle, a task with an unknown outcome is resent only when `idempotent` is true. `existsOnly`
   * (see verifyByResend): only whether something has the key, answered `found` or `absent`; nothing fetched.
   */
  settle?(task: BulkTask<I>, signal: AbortSignal, sent: { bySelf: boolean; existsOnly?: boolean }): Promise<Outcome<R>>;
  /**
   * A failed task's error that every later task would meet too (a full disk): the error to stop the run with
   * (no new task starts; those in flight finish), or undefined to go on.
   */
  stopsRun?(err: unknown): ShipError | undefined;
  /** An error meaning "this already exists" (duplicate reference): settle() then fetches it and the task is done. */
  isAlreadyDone?(err: unknown): boolean;
  /** Repeating execute() is harmless (e.g. a GET); unknown outcomes are then resent without settle(). */
  idempotent?: boolean;
  /**
   * Whether a task whose outcome is unknown, found by its look-up, is sent again to learn whether what was found
   * is live (given the task's journal record from earlier runs, if any): the service refuses a live duplicate
   * (isAlreadyDone; settle() then fetches it), and creates the task's own object when the one found was
   * cancelled. For keys that may be given again once their object is cancelled (a shipment reference): a
   * look-up finds the cancelled one too, and could not tell it from one the unknown attempt created. A task
   * whose input changed since that attempt is sent with its new values: created, the one found was cancelled;
   * refused, the live one is reported as the earlier run's, changed. Needs isAlreadyDone and settle.
   */
  verifyByResend?(entry: JournalEntry | undefined): boolean;
  /**
   * Whether a "done" record's stored result is one execute() returns. One that is not (a journal edited by hand,
   * a record with no result) is taken as an outcome unknown: settled, never trusted nor resent blindly.
   */
  isResult?(stored: unknown): boolean;
  /** A fingerprint of the task's input; a rerun that skips a done task whose input changed reports `changed`. */
  fingerprint?(task: BulkTask<I>): string;
  /**
   * A done task whose input changed since is run again instead of skipped (an upsert, such as a SKU import:
   * sending the new values is what the edit asks for, and never makes a second object).
   */
  redoChanged?: boolean;
  /**
   * A task an earlier run did (skipped from the journal): brings its stored summary up to date for this run
   * (e.g. its labels fetched again in the format this run asks for, or when their files are gone). Undefined:
   * the stored summary stands. A new summary replaces the stored one in the journal. A throw fails the task in
   * this run (its error reported, the run's exit 3), while the journal keeps it done: the next run brings it up
   * to date again, never doing it a second time.
   */
  refresh?(task: BulkTask<I>, stored: R, signal: AbortSignal): Promise<R | undefined>;
  /** Called once per task, in the order chosen by `order`; awaited (backpressure: printing, writing files). */
  onResult?(r: BulkResult<I, R>): void | Promise<void>;
  /** The status a task done by this run counts under in `byStatus` (e.g. 'created' or 'updated'; default 'created'). */
  statusOf?(result: R): string;
}

/** Status of one task after the run: created by this run, skipped (done before or already existed), or failed. */
export type BulkStatus = 'created' | 'skipped' | 'failed';

/** The outcome of one task, handed to onResult. */
export interface BulkResult<I, R> {
  task: BulkTask<I>;
  /** 0-based position of the task in the input. */
  index: number;
  status: BulkStatus;
  /** For created and skipped: the summary (for skipped from the journal or settle()). */
  result?: R;
  /** For failed: the error (a ShipError, or a StoredError rebuilt from the journal). */
  error?: unknown;
  /**
   * Why it was skipped: done by an earlier run ('journal': journaled done, or journaled as sent and found on
   * the service) or found to exist already though this journal never sent it ('exists').
   */
  skipReason?: 'journal' | 'exists';
  /** Skipped task whose input fingerprint differs from the one that created it. */
  changed?: boolean;
  /** Attempts made in this run (0 when skipped from the journal). */
  attempts: number;
  /** The failure's outcome is unknown (it may exist); the next run settles it before resending. */
  unknownOutcome?: boolean;
  /**
   * Ctrl-C came while it waited to try again (after a 429, a 503, a reset): not finished rather than failed. It
   * is not reported (onResult never sees it) nor counted as failed, but among the tasks not started, and the
   * next run takes it up (settling it first when its outcome is unknown).
   */
  unfinished?: true;
}

/** Options of one bulk run. */
export interface BulkOptions {
  /** Tasks in flight at once (default 8). */
  concurrency: number;
  /** Resume journal; without it the run is not resumable (fine for cancel). */
  journal?: Journal;
  /** Aborted on Ctrl-C: no new task starts; tasks in flight finish; the run returns interrupted: true. */
  signal: AbortSignal;
  progress?: ProgressReporter;
  /** onResult order (default 'input'). */
  order?: 'input' | 'completion';
  /** Extra attempts for transient failures (network, 429, 502/503/504) within this run (default 3). */
  retries?: number;
  /** First retry delay in ms, doubled each time, capped at 10 s; Retry-After wins when larger (default 250). */
  retryDelayMs?: number;
  /** Sleeps between retries (injectable for tests); must reject when the signal aborts. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** The clock, in ms (injectable for tests; default Date.now). */
  now?: () => number;
  /**
   * How long the run goes on waiting out a rate limit (429s) while none of its requests gets through (default
   * 2 min): a 429 is a refusal before any work, waited out and sent again as often as it takes, outside the
   * `retries`, as long as other requests are answered.
   */
  rateLimitPatienceMs?: number;
  /** Told once, at the run's first 429, with the wait the service asked for. */
  onRateLimited?: (waitMs: number) => void;
  /** Number of tasks, when known up front (progress bar, and counting what an interrupt left undone). */
  total?: number;
  /** Most results held back waiting for an earlier one when order is 'input' (default max(256, 32×concurrency)). */
  reorderWindow?: number;
}

/** Counts of a finished (or interrupted) run; per-task details went to onResult. */
export interface BulkSummary {
  total: number;
  created: number;
  skipped: number;
  failed: number;
  /** Tasks done by this run (`created`), split by hooks.statusOf(); without it, all under 'created'. */
  byStatus: Record<string, number>;
  /** Tasks whose request was refused for its credentials (401/403): not in `failed`; sent again on a rerun. */
  rejected: number;
  /** Tasks never started because the run was interrupted or stopped by `authStop`, `unreachable` or `localStop`. */
  notStarted: number;
  /** Of `failed`, those that failed for the service or the network (isServiceFailure), not for their own data. */
  serviceFailed: number;
  interrupted: boolean;
  /** The first AuthError of the run: it stopped the run early (see the header comment). */
  authStop?: AuthError;
  /** The API could not be reached (refused, unknown host) after a task's retries: the run stopped early. */
  unreachable?: NetworkError;
  /** A local failure every later task would meet (hooks.stopsRun): the run stopped early. */
  localStop?: ShipError;
  /** Seconds from start to end. */
  elapsedS: number;
  /** The first failures (at most 20), for the summary table. */
  firstFailures: Array<{ key: string; rows: number[]; message: string }>;
}

/** How a failure should be handled: retried within the run, and whether the work may have happened anyway. */
export interface FailureClass {
  /** Worth another attempt in this run (network trouble, 429, 502/503/504). */
  retriable: boolean;
  /** The request may have been processed (timeout, reset, 5xx, a local failure after sending): settle first. */
  unknownOutcome: boolean;
  /** The server asked us to wait this long (Retry-After). */
  retryAfterMs?: number;
  /** A 429: the service limits the request rate (refused before any work). */
  rateLimited?: boolean;
}

/**
 * Classifies an error thrown by execute() or settle(). A failure the API layer already retried with back-off
 * (`http.attempts` > 1: a safe method) is not retried again here: attempts would multiply (4 × 4 per task
 * against a server that is down) for nothing the first round of waiting did not already give.
 */
export function classifyFailure(err: unknown): FailureClass {
  const cls = classifyOnce(err);
  // (Not a 429: a rate limit is waited out as long as the run gets requests through; see rateLimitPatienceMs.)
  if (cls.retriable && !cls.rateLimited && err instanceof ApiError && (err.http.attempts ?? 1) > 1) return { ...cls, retriable: false };
  return cls;
}

function classifyOnce(err: unknown): FailureClass {
  if (err instanceof NetworkError) {
    // Refused or unresolvable: the request never left, so it is safe to resend without asking.
    const neverSent = err.kind === 'refused' || err.kind === 'dns';
    return { retriable: true, unknownOutcome: !neverSent, retryAfterMs: err.http.retryAfterMs };
  }
  if (err instanceof ValidationError || err instanceof AuthError || err instanceof NotFoundError) {
    return { retriable: false, unknownOutcome: false };
  }
  if (err instanceof ApiError) {
    const st = err.http.status;
    if (st === 429) return { retriable: true, unknownOutcome: false, retryAfterMs: err.http.retryAfterMs, rateLimited: true };
    if (st === 502 || st === 503 || st === 504) return { retriable: true, unknownOutcome: true, retryAfterMs: err.http.retryAfterMs };
    if (st !== undefined && st >= 400 && st < 500) return { retriable: false, unknownOutcome: false };
    // 500 or an unreadable answer: the server may well have done it; the next run settles before resending.
    return { retriable: false, unknownOutcome: true };
  }
  if (err instanceof ShipError) return { retriable: false, unknownOutcome: false };
  // Anything else (a label file that could not be written after the shipment was created…) may have
  // happened after the request succeeded: never resend it blindly.
  return { retriable: false, unknownOutcome: true };
}

/**
 * A failed task whose request never reached the service, for no fault of its row: its credentials refused, or
 * the API unreachable before anything was sent (not while settling a request that did leave, whose outcome is
 * unknown). Counted as `rejected`, kept out of FILE.failed.csv, sent as new on a rerun.
 */
export function refusedBeforeSending(r: Pick<BulkResult<unknown, unknown>, 'status' | 'error' | 'unknownOutcome'>): boolean {
  return r.status === 'failed' && (r.error instanceof AuthError || (isUnreachable(r.error) && !r.unknownOutcome));
}

/**
 * The API could not be reached at all (connection refused, host name unknown): the request never left, and
 * the next one would fare no better. Not a problem of the task's own rows.
 */
export function isUnreachable(err: unknown): err is NetworkError {
  return err instanceof NetworkError && (err.kind === 'refused' || err.kind === 'dns');
}

/**
 * The service or the network failed, not the task's own data: a timeout, reset, refusal or unknown host, a 5xx
 * (after the retries) or a 429 the retries did not outlast. Not a 400/422 (the data), a 404 (the reference), a
 * 401/403 (the credentials), nor a local failure (a label file not written).
 */
export function isServiceFailure(err: unknown): boolean {
  if (err instanceof NetworkError) return true;
  if (!(err instanceof ApiError) || err instanceof ValidationError || err instanceof AuthError || err instanceof NotFoundError) return false;
  const st = err.http.status;
  return st !== undefined && (st >= 500 || st === 429);
}

/** An error as the journal stores it. */
export function toStoredError(err: unknown): StoredError {
  const out: StoredError = { message: err instanceof Error ? err.message : String(err) };
  if (err instanceof Error) out.type = err.name;
  if (err instanceof ApiError && err.http.status !== undefined) out.status = err.http.status;
  if (err instanceof ValidationError) out.fields = err.fields;
  return out;
}

/** A one-line message for an error, with the API's field messages (for tables, JSON lines and failed.csv). */
export function errorMessage(err: unknown): string {
  if (err instanceof ValidationError && Object.keys(err.fields).length) {
    return Object.entries(err.fields)
      .map(([f, msgs]) => `${f}: ${msgs.join(' ')}`)
      .join('; ');
  }
  if (err instanceof Error) return err.message;
  return String(err);
}

/** How long a 429 without Retry-After holds the run's requests. */
const RATE_LIMIT_WAIT_MS = 1000;
/**
 * The shortest and longest hold after a 429 whatever Retry-After says: 0 (or a date past) would have every task
 * send again at once, over and over; an hour would hold the run past any patience (the API client's cap).
 */
const RATE_LIMIT_MIN_WAIT_MS = 250;
const RATE_LIMIT_MAX_WAIT_MS = 60_000;

/** Runs every task with bounded concurrency, journalled and resumable; resolves when all are done or interrupted. */
export async function runBulk<I, R>(
  tasks: AsyncIterable<BulkTask<I>> | Iterable<BulkTask<I>>,
  hooks: BulkHooks<I, R>,
  opts: BulkOptions,
): Promise<BulkSummary> {
  const concurrency = Math.max(1, Math.floor(opts.concurrency) || 1);
  const order = opts.order ?? 'input';
  const window = Math.max(1, opts.reorderWindow ?? Math.max(256, 32 * concurrency));
  const retries = Math.max(0, opts.retries ?? 3);
  const baseDelay = opts.retryDelayMs ?? 250;
  const sleep = opts.sleep ?? defaultSleep;
  const now = opts.now ?? Date.now;
  const patience = opts.rateLimitPatienceMs ?? 120_000;
  // A rate limit (429) holds every task's next request until the time the service asked to wait (Retry-After),
  // so that the run slows down to the rate the service takes instead of sending into the limit; the tasks it
  // refused wait it out and are sent again as long as requests keep getting through (see rateLimitPatienceMs).
  let rateLimitedUntil = 0;
  // When a request last got through the rate limit (an answer other than a 429).
  let lastThrough = now();
  let rateLimitSaid = false;
  /**
   * Waits until rateLimitedUntil, and a little more (so the tasks held are not all sent in the same instant), again
   * if another 429 moved it meanwhile; false on Ctrl-C.
   */
  const holdForRateLimit = async (): Promise<boolean> => {
    for (let hold = rateLimitedUntil - now(); hold > 0; hold = rateLimitedUntil - now()) {
      try {
        await sleep(hold + Math.round(Math.random() * Math.min(hold / 4, 1000)), opts.signal);
      } catch {
        if (opts.signal.aborted) return false;
      }
    }
    return true;
  };
  const journal = opts.journal;
  const progress = opts.progress;
  const started = Date.now();
  // Work in flight is never cancelled by Ctrl-C (it is let finish); this signal exists for execute()'s API.
  const workSignal = new AbortController().signal;
  // Every task in flight (up to 64) listens to both: a request on workSignal, a retry's back-off on Ctrl-C's.
  // Node's leak warning at 11 listeners would be noise on stderr.
  setMaxListeners(concurrency + 16, workSignal);
  if (concurrency + 16 > getMaxListeners(opts.signal)) setMaxListeners(concurrency + 16, opts.signal);

  const summary: BulkSummary = {
    total: 0,
    created: 0,
    skipped: 0,
    failed: 0,
    byStatus: {},
    rejected: 0,
    notStarted: 0,
    serviceFailed: 0,
    interrupted: false,
    elapsedS: 0,
    firstFailures: [],
  };
  const active = new Set<Promise<void>>();
  // Tasks holding a concurrency slot (the rest of `active` have released theirs: see BulkHooks.execute). The
  // tasks finishing without one are bounded too, so a slow finish (a disk) holds up new requests in the end.
  let slotsInUse = 0;
  const maxActive = concurrency + Math.max(128, 16 * concurrency);
  // The outcome record of a result (done/failed) is written in the background; onResult waits for it.
  const durable = new WeakMap<BulkResult<I, R>, Promise<void>>();
  const held = new Map<number, BulkResult<I, R>>();
  let nextEmit = 0;
  let emitQueued = 0;
  let emitChain: Promise<void> = Promise.resolve();
  let fatal: { error: unknown } | undefined;
  let wake: (() => void) | undefined;
  const poke = () => {
    const w = wake;
    wake = undefined;
    w?.();
  };

  // Credentials refused, the API unreachable or a local stop: nothing new starts (see the header comment).
  const stopped = () => summary.authStop !== undefined || summary.unreachable !== undefined || summary.localStop !== undefined;
  const report = () =>
    progress?.update({ created: summary.created, skipped: summary.skipped, failed: summary.failed, active: slotsInUse });

  const emit = (r: BulkResult<I, R>) => {
    emitQueued++;
    emitChain = emitChain
      .then(async () => {
        await durable.get(r);
        if (fatal || !hooks.onResult || r.unfinished) return;
        await hooks.onResult(r);
      })
      .catch((e: unknown) => {
        // A failing consumer (printer gone, disk full) stops the run: nothing more is started.
        fatal ??= { error: e };
      })
      .finally(() => {
        emitQueued--;
        poke();
      });
  };

  const complete = (r: BulkResult<I, R>) => {
    if (r.unfinished) {
      // Counted among the tasks not started (notStarted), and passed over in the output.
      summary.total--;
      if (order === 'completion') emit(r);
      else queueInOrder(r);
      poke();
      return;
    }
    if (r.status === 'failed' && r.error instanceof AuthError) {
      summary.rejected++;
      summary.authStop ??= r.error;
    } else if (refusedBeforeSending(r)) {
      // As for refused credentials: the request never left, and the row itself is fine.
      summary.rejected++;
    } else summary[r.status]++;
    // (Unreachable while settling a request that did leave: the run stops too, the task failed with its outcome unknown.)
    if (r.status === 'failed' && isUnreachable(r.error)) summary.unreachable ??= r.error;
    if (r.status === 'failed' && isServiceFailure(r.error) && !refusedBeforeSending(r)) summary.serviceFailed++;
    if (r.status === 'failed' && hooks.stopsRun && summary.localStop === undefined) summary.localStop = hooks.stopsRun(r.error);
    if (r.status === 'created') {
      const st = r.result !== undefined && hooks.statusOf ? hooks.statusOf(r.result) : 'created';
      summary.byStatus[st] = (summary.byStatus[st] ?? 0) + 1;
    }
    if (r.status === 'failed' && !(r.error instanceof AuthError) && summary.firstFailures.length < 20) {
      summary.firstFailures.push({ key: r.task.key, rows: r.task.rows, message: errorMessage(r.error) });
    }
    report();
    if (order === 'completion') emit(r);
    else queueInOrder(r);
    poke();
  };
  // Input order: a result waits for those before it.
  const queueInOrder = (r: BulkResult<I, R>) => {
    held.set(r.index, r);
    while (held.has(nextEmit)) {
      const next = held.get(nextEmit)!;
      held.delete(nextEmit);
      nextEmit++;
      emit(next);
    }
  };

  const runTask = async (task: BulkTask<I>, index: number, prior: Prior, slot: Slot): Promise<BulkResult<I, R>> => {
    const { fp, entry, reserved } = prior;
    // A "done" record without the summary this command stores (a journal edited by hand): its outcome is unknown.
    const doneBefore = entry?.state === 'done' && (hooks.isResult?.(entry.result) ?? true);
    if (doneBefore) {
      const changed = fp !== undefined && entry.fp !== undefined && fp !== entry.fp;
      if (!(changed && hooks.redoChanged)) {
        let result = entry.result as R;
        let fresh: R | undefined;
        if (hooks.refresh) {
          try {
            fresh = await hooks.refresh(task, result, workSignal);
          } catch (error) {
            const r: BulkResult<I, R> = { task, index, status: 'failed', error, attempts: 0 };
            if (changed) r.changed = true;
            return r;
          }
        }
        if (fresh !== undefined) result = fresh;
        const r: BulkResult<I, R> = { task, index, status: 'skipped', result, skipReason: 'journal', attempts: 0 };
        if (changed) r.changed = true;
        // Still the values that created it: a later run still tells a changed row.
        if (fresh !== undefined && journal) durable.set(r, journal.append({ key: task.key, state: 'done', result: fresh, fp: entry.fp }));
        return r;
      }
    }
    // An earlier run sent it and never learnt the outcome: ask before sending again.
    let needSettle = entry !== undefined && (entry.state === 'sending' || (entry.state === 'failed' && entry.unknown === true) || (entry.state === 'done' && !doneBefore));
    // True once this run itself may have created it, so a later "exists" counts as created by us.
    let maybeOurs = false;
    let attempts = 0;
    let failures = 0;
    let lastUnknown = needSettle;
    // An earlier run's attempt found by the look-up, and sent again to tell whether it is live (verifyByResend):
    // from a row changed since, what is live may be made from either values, so the journal keeps the earlier
    // send's fingerprint and a duplicate refusal is reported as the earlier run's, changed (a spurious "changed"
    // warning is safer than a lost one).
    let earlierUnresolved = false;
    const changedSince = fp !== undefined && entry?.fp !== undefined && fp !== entry.fp;

    // Outcome records need not hold a concurrency slot: the next request may leave while they are
    // written. onResult waits for them, and a crash before they land only costs a settle() on rerun.
    const record = (r: BulkResult<I, R>, entry: Parameters<Journal['append']>[0]): BulkResult<I, R> => {
      if (journal) durable.set(r, journal.append(entry));
      return r;
    };
    const fail = async (error: unknown, unknownOutcome: boolean): Promise<BulkResult<I, R>> => {
      if (!classifyFailure(error).rateLimited) lastThrough = now();
      const r: BulkResult<I, R> = { task, index, status: 'failed', error, attempts, unknownOutcome: unknownOutcome || undefined };
      // Refused before anything could be created (credentials refused, service unreachable): journaled as never
      // sent, so what an earlier run recorded of the task (a failure and its error) still stands.
      if (!unknownOutcome && (error instanceof AuthError || isUnreachable(error))) return record(r, { key: task.key, state: 'unsent' });
      // Still unknown since an earlier run's send: the journal keeps the fingerprint of the values that send
      // carried, so the run that finds the shipment can tell whether the row changed since.
      const sentFp = unknownOutcome && (!maybeOurs || earlierUnresolved) && entry?.fp !== undefined ? entry.fp : fp;
      return record(r, { key: task.key, state: 'failed', error: toStoredError(error), unknown: unknownOutcome || undefined, fp: sentFp });
    };
    const done = async (result: R, how: 'created' | 'earlier' | 'exists'): Promise<BulkResult<I, R>> => {
      lastThrough = now();
      // An earlier run's shipment, sent from values that differ from the row's now: said, and the journal keeps
      // the values it was made from, so later runs say it too.
      const sentFp = how === 'earlier' && entry?.fp !== undefined ? entry.fp : fp;
      const r: BulkResult<I, R> =
        how === 'created'
          ? { task, index, status: 'created', result, attempts }
          : { task, index, status: 'skipped', result, skipReason: how === 'earlier' ? 'journal' : 'exists', attempts };
      if (fp !== undefined && sentFp !== fp) r.changed = true;
      return record(r, { key: task.key, state: 'done', result, fp: sentFp });
    };
    // Waits before another try: 'retry', 'exhausted' (no tries left), or 'interrupted' (Ctrl-C came first).
    const backoff = async (cls: FailureClass): Promise<'retry' | 'exhausted' | 'interrupted'> => {
      if (cls.rateLimited) {
        // Refused before any work: waited out, outside the retries, while the run gets requests through.
        if (now() - lastThrough > patience) return 'exhausted';
        if (opts.signal.aborted) return 'interrupted';
        // Within the patience left: a run that gets nothing through is failed when it runs out, not an hour later.
        const patienceLeft = Math.max(RATE_LIMIT_MIN_WAIT_MS, patience - (now() - lastThrough));
        const wait = Math.min(Math.max(cls.retryAfterMs ?? RATE_LIMIT_WAIT_MS, RATE_LIMIT_MIN_WAIT_MS), RATE_LIMIT_MAX_WAIT_MS, patienceLeft);
        if (!rateLimitSaid) {
          rateLimitSaid = true;
          opts.onRateLimited?.(wait);
        }
        rateLimitedUntil = Math.max(rateLimitedUntil, now() + wait);
        return (await holdForRateLimit()) ? 'retry' : 'interrupted';
      }
      failures++;
      if (failures > retries) return 'exhausted';
      if (opts.signal.aborted) return 'interrupted';
      const exp = Math.min(10_000, baseDelay * 2 ** (failures - 1));
      const jittered = exp * (0.8 + Math.random() * 0.4);
      try {
        await sleep(Math.max(jittered, cls.retryAfterMs ?? 0), opts.signal);
        return 'retry';
      } catch {
        return opts.signal.aborted ? 'interrupted' : 'exhausted';
      }
    };
    // Stopped by Ctrl-C while waiting to try again: the journal says what the next run must do (settle it when
    // its outcome is unknown, else send it), and the run reports it as not finished rather than failed.
    const unfinished = async (error: unknown, unknownOutcome: boolean): Promise<BulkResult<I, R>> => {
      const r = unknownOutcome ? await fail(error, true) : record({ task, index, status: 'failed', error, attempts }, { key: task.key, state: 'unsent' });
      r.error = new Interrupted(`interrupted while waiting to try again (${errorMessage(error)})`);
      r.unfinished = true;
      return r;
    };

    for (;;) {
      // Another try after the slot was given back (rare: what follows a release seldom fails in a way worth a
      // retry) takes one again at once, without waiting for it: concurrency is exceeded by that task, briefly.
      slot.take();
      if (needSettle) {
        if (hooks.settle) {
          // Found, it may be a cancelled one whose key was given again: sent again below to tell (verifyByResend).
          const existsOnly = hooks.isAlreadyDone !== undefined && (hooks.verifyByResend?.(entry) ?? false);
          let outcome: Outcome<R>;
          try {
            outcome = await hooks.settle(task, workSignal, { bySelf: true, existsOnly });
          } catch (e) {
            const cls = classifyFailure(e);
            const next = cls.retriable ? await backoff(cls) : 'exhausted';
            if (next === 'retry') continue;
            // Still unknown: keep it marked so the next run asks again.
            return next === 'interrupted' ? unfinished(e, true) : fail(e, true);
          }
          // Found, and the journal says an earlier run sent it: that run's work, not someone else's.
          if (outcome.status === 'done') return done(outcome.result, maybeOurs ? 'created' : entry !== undefined ? 'earlier' : 'exists');
          needSettle = false;
          // Found but perhaps not live: a refusal of the resend as a duplicate is the earlier attempt's work.
          lastUnknown = outcome.status === 'found';
          if (lastUnknown && entry !== undefined && !maybeOurs) earlierUnresolved = true;
        } else if (!hooks.idempotent) {
          return fail(
            new ShipError('an earlier attempt may have succeeded and there is no way to check; not resent', 1),
            true,
          );
        }
      }

      // The service asked for a pause (a 429 to another task): not sent into it. Ctrl-C meanwhile: not sent, and an
      // earlier attempt whose outcome is still unknown (found by the look-up, to be verified) stays so in the journal.
      if (rateLimitedUntil > now() && !(await holdForRateLimit())) {
        return unfinished(new ShipError('the service limits the request rate (429): not sent yet', 1), lastUnknown && !hooks.idempotent);
      }
      attempts++;
      // The "sending" record is durable before the request leaves (reserved ahead of time for fresh tasks).
      if (attempts === 1 && reserved) await reserved;
      else await journal?.append({ key: task.key, state: 'sending', attempt: attempts, fp: earlierUnresolved && changedSince ? entry!.fp : fp });
      try {
        const result = await hooks.execute(task, workSignal, slot.release);
        return await done(result, 'created');
      } catch (e) {
        if (hooks.isAlreadyDone?.(e) && hooks.settle) {
          let outcome: Outcome<R> | undefined;
          try {
            outcome = await hooks.settle(task, workSignal, { bySelf: maybeOurs || lastUnknown });
          } catch (e2) {
            return fail(e2, true);
          }
          // Found by the look-up before this resend (verifyByResend), and now known live: the earlier attempt's work.
          if (outcome.status === 'done') return done(outcome.result, earlierUnresolved && changedSince ? 'earlier' : maybeOurs ? 'created' : lastUnknown ? 'earlier' : 'exists');
          return fail(e, false);
        }
        const cls = classifyFailure(e);
        if (cls.unknownOutcome) {
          maybeOurs = true;
          lastUnknown = true;
        }
        const next = cls.retriable ? await backoff(cls) : 'exhausted';
        if (next === 'retry') {
          needSettle = cls.unknownOutcome && !hooks.idempotent;
          continue;
        }
        if (next === 'interrupted') return unfinished(e, cls.unknownOutcome && !hooks.idempotent);
        return fail(e, cls.unknownOutcome && !hooks.idempotent);
      }
    }
  };

  // A plain iterable (a command's task list or generator) is read without a promise and a turn per task.
  const syncIterator = Symbol.asyncIterator in tasks ? undefined : (tasks as Iterable<BulkTask<I>>)[Symbol.iterator]();
  const asyncIterator = syncIterator ? undefined : (tasks as AsyncIterable<BulkTask<I>>)[Symbol.asyncIterator]();
  let exhausted = false;
  // With a journal, the "sending" records of the next few fresh tasks are written ahead, while earlier
  // requests are in flight, so a free slot never waits for the disk. A reservation never used (Ctrl-C,
  // a kill) costs at most one settle() on the next run.
  const lookAhead = journal ? Math.max(128, 16 * concurrency) : 1;
  const ready: Array<{ task: BulkTask<I>; index: number; prior: Prior }> = [];
  const accept = (next: IteratorResult<BulkTask<I>>): void => {
    if (next.done) {
      exhausted = true;
      return;
    }
    const task = next.value;
    const prior: Prior = { entry: journal?.get(task.key), fp: hooks.fingerprint?.(task) };
    const fresh = !prior.entry || (prior.entry.state === 'failed' && !prior.entry.unknown);
    if (journal && fresh) {
      prior.reserved = journal.append({ key: task.key, state: 'sending', attempt: 1, fp: prior.fp });
      prior.reserved.catch(() => undefined); // awaited (and its error raised) by the task itself
    }
    ready.push({ task, index: index++, prior });
  };
  progress?.start(opts.total);
  let index = 0;
  // Ctrl-C must wake the loop while it waits for a free slot.
  opts.signal.addEventListener('abort', poke);
  try {
    for (;;) {
      while (!exhausted && !fatal && !stopped() && !opts.signal.aborted && ready.length < lookAhead) {
        accept(syncIterator ? syncIterator.next() : await asyncIterator!.next());
      }
      if (ready.length === 0) break;
      while (!fatal && !stopped() && !opts.signal.aborted && (slotsInUse >= concurrency || active.size >= maxActive || held.size + emitQueued >= window)) {
        await new Promise<void>((r) => (wake = r));
      }
      if (fatal || stopped()) break;
      if (opts.signal.aborted) {
        summary.interrupted = true;
        break;
      }
      const { task, index: i, prior } = ready.shift()!;
      summary.total++;
      let holding = false;
      const slot: Slot = {
        take: () => {
          if (holding) return;
          holding = true;
          slotsInUse++;
        },
        release: () => {
          if (!holding) return;
          holding = false;
          slotsInUse--;
          poke();
        },
      };
      slot.take();
      const p: Promise<void> = runTask(task, i, prior, slot)
        .then(complete, (e: unknown) => {
          // Only the journal itself failing gets here (disk full…): stop the run.
          fatal ??= { error: e };
        })
        .finally(() => {
          slot.release();
          active.delete(p);
          poke();
        });
      active.add(p);
    }
  } finally {
    while (active.size) await Promise.race(active);
    await emitChain;
    // Reservations of tasks that never started: say so, so the next run sends them without asking first.
    const unused = ready.filter((r) => r.prior.reserved);
    if (journal && unused.length) {
      await Promise.all(unused.map((r) => r.prior.reserved!.then(() => journal.append({ key: r.task.key, state: 'unsent' })))).catch(
        () => undefined,
      );
    }
    opts.signal.removeEventListener('abort', poke);
    progress?.stop();
    if (opts.signal.aborted) summary.interrupted = true;
    if (stoppedEarly(summary) && opts.total !== undefined) summary.notStarted = Math.max(0, opts.total - summary.total);
    summary.elapsedS = (Date.now() - started) / 1000;
    if (!exhausted) {
      try {
        syncIterator?.return?.();
        await asyncIterator?.return?.();
      } catch {
        // closing the source is best effort
      }
    }
  }
  if (fatal) throw fatal.error;
  return summary;
}

/** A task's concurrency slot: taken when it starts, given back by execute's release() or when it ends. */
interface Slot {
  take(): void;
  release(): void;
}

/** What the runner knew about a task before it started: its journal record, fingerprint, reservation. */
interface Prior {
  entry?: JournalEntry;
  fp?: string;
  reserved?: Promise<void>;
}

function defaultSleep(ms: number, signal?: AbortSignal): Promise<void> {
  // A signal aborted without a reason still stops the run as an interruption.
  return abortableSleep(ms, signal).catch((reason: unknown) => Promise.reject(reason ?? new Interrupted()));
}
