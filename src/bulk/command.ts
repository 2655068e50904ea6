// What every bulk command shares around the runner: Ctrl-C handling, the journal and its lock, the progress
// line, JSON lines or text lines per task, FILE.failed.csv, --results FILE.csv, the closing summary and the
// exit code (3 when some failed, 1 when every one failed for the service or the network, 130 when interrupted,
// 4 when the API refused the credentials).
//
// Every task failed, each for the service or the network (5xx after the retries, timeouts, resets: runner.ts
// isServiceFailure), none for its data: that is the service down, which a cron job must tell from rows to fix, so
// exit 1 (ServiceFailure) as one request would, after the same summary and FILE.failed.csv as for exit 3. Tasks
// skipped as done by an earlier run sent nothing, so a rerun whose every request failed so exits 1 too. Any mix
// (some created, or some refused as invalid or not found) stays exit 3.
//
// Credentials refused (401/403) stop the run (runner.ts). Such tasks, and the ones never started, are NOT
// written to FILE.failed.csv: nothing is wrong with those rows, and FILE.failed.csv is the file to fix and
// run. They are counted as "refused" and "not started" in the summary instead, which tells the user to run
// `ship login` and rerun the same command: the journal then skips what was done and sends the rest.
//
// How `create --csv` uses it (sketch):
//   const journalPath = journalPathFor(outputDir, csvPath);             // ./labels/.ship-journal-orders.csv-1a2b3c4d.jsonl
//   const namer = new LabelNamer();
//   await runBulkCommand(ctx, {
//     noun: 'shipments', tasks, total, concurrency, journalPath,
//     failedCsv: { path: failedCsvPathFor(csvPath), header },             // header: the CSV's header cells as read
//     resultsCsv: opts.results ? { path: opts.results, header, columns: (r) => ({ status: r.status, … }) } : undefined,
//     hooks: {
//       execute: async (t) => { const res = await api.shipments.create(t.input); return { id, tracking_reference,
//                                 label_paths: writeLabels(perParcelLabels, { dir, shipmentRef: t.key, format, namer }) }; },
//       settle: async (t) => /* GET /shipments/:ref/events: 404 → absent; found → fetch labels, write, done */,
//       isAlreadyDone: (e) => e instanceof ValidationError && /already been taken/i.test(e.fields.shipment_reference?.join(' ') ?? ''),
//       fingerprint: (t) => hash(JSON.stringify(t.input)),
//       onResult: async (r) => { if (printer && r.status === 'created') await sendLabels(printer, …) },  // input order
//     },
//     jsonLine: (r) => ({ row: r.task.rows[0], shipment_reference: r.task.key, status: r.status, … }),
//     textLine: (r) => [r.status, r.task.key, r.result?.tracking_reference ?? errorMessage(r.error)].join('\t'),
//     quietLine: (r) => r.result?.tracking_reference,
//   });
import type { Ctx } from '../context.js';
import { Interrupted, PartialFailure, ServiceFailure } from '../errors.js';
import { renewCredentials } from '../config/settings.js';
import { animationsAllowed } from '../output/output.js';
import { inertData } from '../output/inert.js';
import { FailedRowsWriter, ResultsWriter, type ResultColumns } from './csv-out.js';
import { Journal } from './journal.js';
import { createProgress, formatDuration } from './progress.js';
import { errorMessage, refusedBeforeSending, runBulk, stoppedEarly, type BulkHooks, type BulkResult, type BulkSummary, type BulkTask } from './runner.js';

/** Everything runBulkCommand needs; the hooks do the work, the rest is output. */
export interface BulkCommandOptions<I, R> {
  /** Plural noun for messages: "shipments", "cancellations", "SKUs". */
  noun: string;
  tasks: AsyncIterable<BulkTask<I>> | Iterable<BulkTask<I>>;
  /** Number of tasks when known (progress bar with ETA). */
  total?: number;
  hooks: BulkHooks<I, R>;
  concurrency: number;
  /** Journal file: makes the run resumable and locks it against a second run. */
  journalPath?: string;
  /** Settled journal records to drop when it is opened (JournalOpenOptions.forget). */
  journalForget?: (key: string) => boolean;
  /** fdatasync the journal (default true; SHIP_JOURNAL_FSYNC=0 turns it off, e.g. on tmpfs or for benchmarks). */
  journalSync?: boolean;
  /** FILE.failed.csv: the input's header and where to write. */
  failedCsv?: { path: string; header: readonly string[]; bom?: boolean };
  /**
   * A failed task's error in the user's terms, for FILE.failed.csv and the failure lines on stderr (e.g. the
   * API's field messages placed at the row and the file's own column); default errorMessage.
   */
  errorText?: (r: BulkResult<I, R>) => string;
  /** --results FILE.csv: the input's header, where to write, and the columns for a result's rows. */
  resultsCsv?: { path: string; header: readonly string[]; columns: (r: BulkResult<I, R>, rowIndex: number) => ResultColumns };
  /** The --json line of a task (printed on stdout, one per task, in input order). */
  jsonLine: (r: BulkResult<I, R>) => Record<string, unknown>;
  /** The text line of a task on stdout without --json (TSV-friendly); undefined prints nothing. */
  textLine?: (r: BulkResult<I, R>) => string | undefined;
  /** The line of a task with --quiet (e.g. just the tracking reference); undefined prints nothing. */
  quietLine?: (r: BulkResult<I, R>) => string | undefined;
  /**
   * Writes the command's own row files once the run is over, before the summary, which names them (in the
   * `--json` summary line too): for a command that writes FILE.failed.csv and --results itself (create --csv).
   */
  rowFiles?: (s: BulkSummary) => Promise<{ failedPath?: string; resultsPath?: string }>;
  /** Extra lines for the closing summary (e.g. "labels in ./labels"). */
  summaryNotes?: (s: BulkSummary) => string[];
  /**
   * Work of the run left undone outside its tasks, said instead of "nothing is left to do" when every task was
   * handled before an interruption (create --printer: labels not sent to the printer, which a rerun does not send).
   */
  leftOver?: () => string | undefined;
  /** Work beyond the tasks, shown on the progress line after the counts (see ProgressOptions.note). */
  progressNote?: () => string | undefined;
  /** Warnings of the run as a whole, said before its summary (which under --json is the closing line). */
  beforeSummary?: () => void;
  /** Counts of the input that were never tasks, for the JSON summary (e.g. orders a preset left out). */
  summaryCounts?: Record<string, number>;
  /**
   * Input that was never a task for want of data the user can give (a preset's orders without customs
   * details): counted as failed (in the summary, the exit code 3), as a task refused for its data would be.
   * Their lines and FILE.failed.csv rows are the command's to write.
   */
  heldBack?: ReadonlyArray<{ key: string; rows: number[]; message: string }>;
  /** When exactly one task ran and it failed, throw its own error (its own exit code) instead of exit 3. */
  singleTaskOwnError?: boolean;
  /** What "created" means for this command, in the summary and progress line (e.g. "cancelled"). */
  createdWord?: string;
  /**
   * With hooks.statusOf: the statuses the summary lists in place of the one "created" count (text and JSON),
   * even when 0, in this order (e.g. ['created', 'updated']); other statuses statusOf returns follow.
   */
  statuses?: readonly string[];
  /** Draw the progress line on a terminal (default true). */
  progress?: boolean;
  /** Print the closing summary (default: unless there is exactly one task: `total`, else the number run). */
  summary?: boolean;
  retries?: number;
  retryDelayMs?: number;
  /** How long 429s are waited out while no request gets through (runBulk's rateLimitPatienceMs; tests). */
  rateLimitPatienceMs?: number;
  order?: 'input' | 'completion';
}

/**
 * Runs a bulk command end to end; throws PartialFailure (3), ServiceFailure (1: every task failed for the service)
 * or Interrupted (130) after printing the summary.
 */
export async function runBulkCommand<I, R>(ctx: Ctx, opts: BulkCommandOptions<I, R>): Promise<BulkSummary> {
  const { out, mode, io } = ctx;
  const release = ctx.holdInterrupts();
  const unbatch = out.batchLines();
  let journal: Journal | undefined;
  let results: ResultsWriter | undefined;
  const failed = opts.failedCsv ? new FailedRowsWriter(opts.failedCsv.path, opts.failedCsv.header, { bom: opts.failedCsv.bom }) : undefined;
  const errorText = opts.errorText ?? ((r: BulkResult<I, R>) => errorMessage(r.error));
  let lastError: unknown;
  const progress = createProgress({
    stream: io.stderr,
    enabled: (opts.progress ?? true) && animationsAllowed(mode, io),
    label: opts.noun,
    createdWord: opts.createdWord,
    columns: () => io.columns,
    note: opts.progressNote,
  });
  // With a progress line on the terminal, per-task text would tear it; failures still show as they happen.
  const perTaskText = !mode.json && !mode.quiet && !(progress.enabled && io.stdoutIsTTY);
  let summary: BulkSummary;
  // The progress line (or the lines per task) says what is going on: no spinner on top of it.
  const resumeWait = out.wait.suspend();
  try {
    if (opts.journalPath) {
      const sync = opts.journalSync ?? ctx.env.SHIP_JOURNAL_FSYNC !== '0';
      journal = await Journal.open(opts.journalPath, { sync, onWarning: (m) => out.warn(m), forget: opts.journalForget });
    }
    if (opts.resultsCsv) results = new ResultsWriter(opts.resultsCsv.path, opts.resultsCsv.header);
    const hooks: BulkHooks<I, R> = {
      ...opts.hooks,
      onResult: async (r) => {
        await opts.hooks.onResult?.(r);
        // A task refused for its credentials is not a problem of its row (see the header comment).
        const rowFailed = r.status === 'failed' && !refusedBeforeSending(r);
        if (r.status === 'failed') lastError = r.error;
        if (rowFailed && failed && r.task.records) failed.add(r.task.records, r.task.rows, errorText(r));
        if (results && r.task.records && opts.resultsCsv) {
          const cols = opts.resultsCsv.columns;
          results.add(r.task.records, (i) => cols(r, i));
        }
        if (mode.json) {
          const line = opts.jsonLine(r);
          // Counted as `refused`, not `failed`, in the summary (the row itself is fine; sent again on a rerun):
          // credentials refused, or the API unreachable (the request never left).
          if (refusedBeforeSending(r)) line.refused = true;
          out.jsonLine(line);
        }
        else if (mode.quiet) {
          const l = opts.quietLine?.(r);
          if (l !== undefined) out.line(l);
        } else if (perTaskText) {
          // The one task of a singleTaskOwnError run failed: its error is printed once, as the command's own,
          // not also as a result line on the terminal (a script still gets the line: stdout is its data).
          const ownError = opts.singleTaskOwnError && opts.total === 1 && r.status === 'failed' && io.stdoutIsTTY;
          const l = ownError ? undefined : opts.textLine?.(r);
          if (l !== undefined) out.line(l);
        } else if (r.status === 'failed') {
          progress.stop();
          const shown = shownOn(io.stderrIsTTY);
          io.stderr.write(`${out.c.red('failed')} ${shown(r.task.key)}${rowsText(r.task.rows)}: ${shown(errorText(r))}\n`);
        }
      },
    };
    summary = await runBulk(opts.tasks, hooks, {
      concurrency: opts.concurrency,
      journal,
      signal: ctx.signal,
      progress,
      total: opts.total,
      retries: opts.retries,
      retryDelayMs: opts.retryDelayMs,
      rateLimitPatienceMs: opts.rateLimitPatienceMs,
      order: opts.order,
      sleep: (ms, signal) => ctx.clock.sleep(ms, signal),
      now: () => ctx.clock.now().getTime(),
      onRateLimited: (waitMs) => {
        progress.stop();
        out.warn(`the service is limiting the request rate (429): waiting as it asks (${waitMs < 1000 ? `${waitMs} ms` : `${Math.round(waitMs / 1000)} s`}) before sending more; the run goes on at the rate it takes`);
        progress.resume();
      },
    });
  } catch (e) {
    progress.stop();
    results?.abort();
    release();
    throw e;
  } finally {
    unbatch();
    resumeWait();
    try {
      await journal?.close();
    } catch (e) {
      release();
      throw e;
    }
  }

  for (const h of opts.heldBack ?? []) {
    summary.failed++;
    summary.total++;
    if (summary.firstFailures.length < 20) summary.firstFailures.push({ key: h.key, rows: h.rows, message: h.message });
  }
  // Interrupts are still held while the row files and the summary are written: a signal, or stdout closing,
  // once the last task is done must not cut them off (the row files half written, the summary unsaid).
  let summaryShown: boolean;
  let failedPath: string | undefined;
  try {
    const own = opts.rowFiles ? await opts.rowFiles(summary) : {};
    failedPath = failed?.finish() ?? own.failedPath;
    const resultsPath = results?.finish() ?? own.resultsPath;
    // A run stopped after its first task still had more to do: it gets a summary too.
    summaryShown = opts.summary ?? (listedOf(opts) ?? summary.total) !== 1;
    opts.beforeSummary?.();
    if (summaryShown) {
      // How to replace refused credentials: new env vars, or `ship login` (`ship --test login` for the test set).
      const renew = summary.authStop ? renewCredentials(await ctx.settings(), summary.authStop.http?.apiMessage) : '';
      printSummary(ctx, opts, summary, { failedPath, resultsPath, journalPath: journal?.path }, renew);
    }
  } finally {
    release();
  }

  // Exit 4 with the API's own message and hint ("run `ship login`"), whatever else happened.
  if (summary.authStop) throw summary.authStop;
  // Exit 1 with the network error's own message and hint ("check the base URL…").
  if (summary.unreachable) throw summary.unreachable;
  // The local failure's own message and hint ("make room…").
  if (summary.localStop) throw summary.localStop;
  if (summary.interrupted) {
    // The text summary has just said to rerun (with why it is safe); said here again only where it has not.
    // Ctrl-C after the last task had started (during a last label's printing, say): all done, nothing to rerun.
    const left = opts.leftOver?.();
    const rerun = nothingLeft(summary, listedOf(opts)) ? (left ? `; ${left}` : '; nothing is left to do') : summaryShown && !ctx.mode.json ? '' : '; rerun the same command to continue';
    throw new Interrupted(`interrupted: ${summary.created + summary.skipped + summary.failed} of ${listedOf(opts) ?? summary.total} ${opts.noun} handled${rerun}`);
  }
  if (summary.failed > 0) {
    if (opts.singleTaskOwnError && summary.total === 1 && lastError !== undefined) throw lastError;
    if (serviceDown(summary)) throw serviceFailure(opts.noun, summary, journal !== undefined);
    throw new PartialFailure(summary.failed, summary.total, `${summary.failed} of ${summary.total} ${opts.noun} failed`);
  }
  return summary;
}

/** The tasks listed, and the input held back as failed (BulkCommandOptions.heldBack): what `total` counts. */
function listedOf(opts: Pick<BulkCommandOptions<unknown, unknown>, 'total' | 'heldBack'>): number | undefined {
  return opts.total === undefined ? undefined : opts.total + (opts.heldBack?.length ?? 0);
}

/**
 * Every request of the run failed for the service or the network, none for its data (see the header comment).
 * Those done by earlier runs (skipped) sent nothing now: a rerun whose every request failed so is the service
 * down too.
 */
function serviceDown(s: BulkSummary): boolean {
  return s.failed > 0 && s.created === 0 && s.failed + s.skipped === s.total && s.serviceFailed === s.failed;
}

/** Every task was done (created or skipped) though the run was interrupted: a rerun would do nothing. */
function nothingLeft(s: BulkSummary, total: number | undefined): boolean {
  return s.failed === 0 && s.rejected === 0 && s.notStarted === 0 && s.created + s.skipped === (total ?? s.total);
}

/** Exit 1 for a run whose every task failed for the service or the network (see the header comment). */
function serviceFailure(noun: string, s: BulkSummary, resumable: boolean): ServiceFailure {
  const which =
    s.total === 1
      ? `the one ${noun.replace(/s$/, '')}`
      : s.skipped
        ? `every one of the ${s.failed} ${noun} it sent (${s.skipped} done before were skipped)`
        : `every one of the ${s.total} ${noun}`;
  const first = s.firstFailures[0]?.message;
  return new ServiceFailure(s.failed, s.total, `the service failed for ${which}${first ? ` (${first})` : ''}`, {
    hint: resumable
      ? 'nothing is wrong with the rows: once the service is back, rerun the same command to continue (nothing is done twice)'
      : 'once the service is back, run the same command again',
  });
}

/** A task's key and the API's message as shown on stderr: at a terminal, shown and not obeyed (output/inert.ts). */
function shownOn(terminal: boolean): (text: string) => string {
  return (text) => (terminal ? inertData(text) : text);
}

function rowsText(rows: readonly number[]): string {
  if (rows.length === 0) return '';
  return rows.length === 1 ? ` (row ${rows[0]})` : ` (rows ${rows[0]}–${rows[rows.length - 1]})`;
}

function printSummary<I, R>(
  ctx: Ctx,
  opts: BulkCommandOptions<I, R>,
  s: BulkSummary,
  files: { failedPath?: string; resultsPath?: string; journalPath?: string },
  renew: string,
): void {
  const { mode, io, out } = ctx;
  const rate = s.elapsedS > 0 ? (s.created + s.failed) / s.elapsedS : 0;
  const created = opts.createdWord ?? 'created';
  // The counts of what this run did: one "created" count, or one per status (hooks.statusOf).
  const doneCounts: Array<[string, number]> = opts.hooks.statusOf
    ? [...new Set([...(opts.statuses ?? []), ...Object.keys(s.byStatus)])].map((k) => [k, s.byStatus[k] ?? 0])
    : [[created, s.created]];
  const stoppedForAuth = s.authStop !== undefined;
  const unreachable = !stoppedForAuth && s.unreachable !== undefined;
  const localStop = !stoppedForAuth && !unreachable ? s.localStop : undefined;
  const stopped = stoppedEarly(s);
  if (mode.json) {
    // stdout carries only the per-task lines; the summary is one JSON line of talk on stderr.
    const line: Record<string, unknown> = {
      // `listed`: the whole list's size (null when it was not counted ahead: a list read as it comes), beside
      // `total`, which counts what this run started (they differ only when it stopped early).
      summary: { total: s.total, listed: listedOf(opts) ?? null, ...Object.fromEntries(doneCounts), skipped: s.skipped, failed: s.failed, ...opts.summaryCounts, interrupted: s.interrupted, elapsed_s: round(s.elapsedS) },
    };
    if (stoppedForAuth) {
      Object.assign(line.summary as Record<string, unknown>, {
        stopped: 'credentials_refused',
        refused: s.rejected,
        not_started: opts.total !== undefined ? s.notStarted : null,
      });
    } else if (unreachable) {
      Object.assign(line.summary as Record<string, unknown>, { stopped: 'unreachable', refused: s.rejected, not_started: opts.total !== undefined ? s.notStarted : null });
    } else if (localStop) {
      Object.assign(line.summary as Record<string, unknown>, { stopped: 'local_error', not_started: opts.total !== undefined ? s.notStarted : null });
    } else if (s.interrupted) {
      // What the rerun will take up, as the text summary's "not started" row says.
      (line.summary as Record<string, unknown>).not_started = opts.total !== undefined ? s.notStarted : null;
    }
    if (files.failedPath) (line.summary as Record<string, unknown>).failed_csv = files.failedPath;
    if (files.resultsPath) (line.summary as Record<string, unknown>).results_csv = files.resultsPath;
    io.stderr.write(JSON.stringify(line) + '\n');
    return;
  }
  if (mode.quiet) return;
  const c = out.c;
  // What needs attention is bold, not yellow: yellow text is faint on a light background.
  const lines: string[] = [];
  const head =
    `${stopped ? 'Stopped' : 'Done'}: ${s.total} ${opts.noun} in ${formatDuration(s.elapsedS, { tenths: true })}` +
    (rate > 0 && s.created + s.failed >= 20 ? ` (${rate.toFixed(1)}/s)` : '');
  lines.push(c.bold(head));
  const rows: Array<[string, number, (t: string) => string]> = doneCounts.map(([k, v]) => [k, v, c.green]);
  // Only resumable runs skip anything; elsewhere a "skipped 0" line is noise.
  if (files.journalPath || s.skipped) rows.push(['skipped', s.skipped, c.dim]);
  rows.push(['failed', s.failed, s.failed ? c.red : c.dim]);
  if (s.rejected) rows.push(['refused', s.rejected, c.bold]);
  if (stopped && opts.total !== undefined) rows.push(['not started', s.notStarted, c.bold]);
  for (const [k, v, color] of rows) lines.push(`  ${k.padEnd(12)}${color(String(v).padStart(7))}`);
  if (s.firstFailures.length && !(io.stderrIsTTY && mode.interactive)) {
    // Without a progress line the failures were not shown as they happened (stdout may be a file).
    lines.push('', 'Failures:');
    const shown = shownOn(io.stderrIsTTY);
    for (const f of s.firstFailures) lines.push(`  ${shown(f.key)}${rowsText(f.rows)}: ${shown(f.message)}`);
    if (s.failed > s.firstFailures.length) lines.push(`  … and ${s.failed - s.firstFailures.length} more`);
  }
  if (files.failedPath) {
    // Rows the service failed for (5xx after the retries, timeouts) have nothing to fix: only those the API refused do.
    const advice = serviceDown(s)
      ? 'the rows are fine: the service failed for each; run it again once the service is back'
      : s.serviceFailed === s.failed
        ? 'the rows are fine: the service failed for each; rerun the same command to send them again'
        : s.serviceFailed > 0
          ? `fix the rows the API refused, then run it again (the ${s.serviceFailed} the service failed for need no fix)`
          : 'fix them and run it again';
    lines.push(`Failed rows written to ${files.failedPath} (${advice})`);
  }
  if (files.resultsPath) lines.push(`Results written to ${files.resultsPath}`);
  lines.push(...(opts.summaryNotes?.(s) ?? []));
  if (stoppedForAuth) {
    const what = [
      ...(opts.total !== undefined ? [`${s.notStarted} ${opts.noun} not attempted`] : []),
      ...(s.rejected ? [`${s.rejected} refused`] : []),
    ].join(', ');
    const status = s.authStop!.http.status;
    lines.push(c.bold(`Stopped because the API refused the credentials${status ? ` (HTTP ${status})` : ''}${what ? `: ${what}` : ''}.`));
    lines.push(
      c.bold(
        files.journalPath
          ? `${renew}, then rerun the same command to continue: nothing is created twice.`
          : `${renew}, then run the command again for the ones not done.`,
      ),
    );
  } else if (unreachable) {
    lines.push(c.bold(`Stopped because the API could not be reached (${s.unreachable!.message}).`));
    lines.push(
      c.bold(
        files.journalPath
          ? 'Check the base URL and that the service is up, then rerun the same command to continue: nothing is created twice.'
          : 'Check the base URL and that the service is up, then run the command again for the ones not done.',
      ),
    );
  } else if (localStop) {
    lines.push(c.bold(`Stopped: ${localStop.message}.`));
    lines.push(c.bold(files.journalPath ? 'Fix that, then rerun the same command to continue: nothing is created twice.' : 'Fix that, then run the command again for the ones not done.'));
  } else if (s.interrupted) {
    const left = opts.leftOver?.();
    lines.push(
      c.bold(
        nothingLeft(s, listedOf(opts))
          ? `Interrupted after the last of the ${opts.noun} was handled: ${left ?? 'nothing is left to do'}.`
          : 'Rerun the same command to continue: nothing is created twice.',
      ),
    );
  }
  io.stderr.write(lines.join('\n') + '\n');
}

function round(n: number): number {
  return Math.round(n * 1000) / 1000;
}
