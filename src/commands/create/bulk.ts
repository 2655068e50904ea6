// `ship create --csv FILE`: validate the whole file first (nothing is sent if any row is wrong), then create the
// shipments through the bulk runner — bounded concurrency, a resume journal beside the labels, exactly-once
// creation (unknown outcomes settled via GET /shipments/:ref/events or the duplicate-reference error), labels
// per parcel, FILE.failed.csv, --results, --merge, --printer.
//
// Journal: <output-dir>/.ship-journal-<csv name>-<hash of the CSV's absolute path, the API base URL and the API
// key>.jsonl. Rerunning the same command (same CSV path, same --output-dir, same API and account) resumes:
// shipments created before are reported as skipped, failed ones are tried again. The base URL and the API key
// are part of the name so that a run against the test API, or in another account, never makes a later run skip
// anything. A shipment whose rows changed since it was created is still skipped, with a warning. One created with another --format (or --no-labels), or whose
// label files are gone, is skipped with its labels fetched again in this run's format.
import { readFileSync, rmSync } from 'node:fs';
import type { Ctx } from '../../context.js';
import { animationsAllowed } from '../../output/output.js';
import { AuthError, ExitCode, groupedProblemLines, InputError, Interrupted, PartialFailure, ShipError, ValidationError } from '../../errors.js';
import type { PrinterTarget } from '../../printer/index.js';
import { runBulkCommand } from '../../bulk/command.js';
import { capYoungGeneration } from '../../bulk/young-gen.js';
import { FailedRowsWriter, failedCsvPathFor, ResultsWriter, type ResultColumns, type WriteBackLayout } from '../../bulk/csv-out.js';
import { isDeepStrictEqual } from 'node:util';
import { setFlagsFromString } from 'node:v8';
import { basename } from 'node:path';
import { errorMessage, isUnreachable, refusedBeforeSending, stoppedEarly, type BulkResult, type BulkTask } from '../../bulk/runner.js';
import { LabelBatchWriter, LabelNamer, mergePdfs, writeFileAtomic } from '../../labels/index.js';
import type { CompactShipment, ExcludedShipment, LoadedCsv } from '../../csv/load.js';
import { Journal, journalPathFor, type JournalEntry } from '../../bulk/journal.js';
import { locateApiPath } from '../../csv/columns.js';
import { isStreamPath } from '../../util/special-file.js';
import { writeBackWithBom } from '../../csv/reader.js';
import { setPath, type ShipmentBody } from '../../shipment-input/build.js';
import { disposeCsvInput, loadCsvInput } from '../../shipment-input/csv.js';
import { checkAgainstAccount, loadReportingAll } from './account-check.js';
import { printDryRun } from './render.js';
import { extraFields, type CreateOptions } from './run.js';
import { createShipment, createShipmentFromJson, findShipment, isDuplicateReference, LabelsNotWritten, refreshLabels, shipmentExists, type Created, type LabelPolicy } from './shipment.js';
import { confirmLabelsRead, LabelsNotConfirmed, preparePrinter, printLabelFiles } from './printing.js';
import { owedOf, printLedgerPathFor, PrintLedger, readLedger, settleLedger } from './print-ledger.js';

/** What each bulk task carries. */
interface CreateInput {
  /** The validated request body as JSON text (run-level fields such as format are added when sending). */
  json: string;
  /** `json` is the validator's own output (sent without a second validation once the run-level fields passed). */
  validated?: boolean;
  parcels: number;
  /** Per row of the task: its parcel index (-1: none). */
  rowParcels: number[];
  /** Per parcel, the row of each of its items (absent: no items), so an API error on an item names its own row. */
  itemRows?: number[][];
}

type Result = BulkResult<CreateInput, Created>;

/** Runs `ship create --csv FILE`. */
export async function runBulkCreate(ctx: Ctx, o: CreateOptions): Promise<void> {
  // undici parses HTTP with llhttp in WebAssembly; in a long run V8 re-compiles its one huge function with
  // TurboFan, whose background compile took ~25-30 MB of memory for a moment (the peak RSS of a 10,000-row
  // run; bench/create-csv.mjs). The baseline compiler's code parses a few KB per response just as well here
  // (same CPU per shipment, measured). Read when the module is compiled, on the first connection (no request
  // has been made yet). Only where measured (V8 11, Node 20), as undici-lite.ts does with its flag.
  if (process.versions.v8.startsWith('11.')) setFlagsFromString('--liftoff-only');
  const uncap = capYoungGeneration();
  try {
    await bulkCreate(ctx, o);
  } finally {
    uncap();
    await disposeCsvInput();
  }
}

/**
 * What names the run's journal, FILE.failed.csv and FILE.unprinted.txt: the file's path, or `-` for stdin and for
 * a pipe given by its path (`<(…)`, /dev/stdin: read once, and nothing can be written beside it).
 */
function inputFileKey(csvPath: string): string {
  return isStreamPath(csvPath) ? '-' : csvPath;
}

async function bulkCreate(ctx: Ctx, o: CreateOptions): Promise<void> {
  const { out, mode, io } = ctx;
  const csvPath = o.csv!;
  // (Before it is read: a pipe is gone once read.)
  const fileKey = inputFileKey(csvPath);
  // Validated whole first; the bodies are kept as JSON text (compact) until each is sent (10,000+ rows).
  // (The account is checked too when the file has problems of its own, so that they come all at once.)
  // The run's journal: per file (or stdin), API and account.
  const journalOf = async () => {
    const settings = await ctx.settings();
    return journalPathFor(o.outputDir, fileKey === '-' ? 'stdin' : csvPath, { baseUrl: settings.baseUrl.value, apiKey: settings.apiKey?.value });
  };
  const loaded = await loadReportingAll(ctx, () => loadCsvInput(ctx, o, { keep: o.dryRun ? false : 'json' }), {
    skipped: o.dryRun ? undefined : async () => earlierRecords(await journalOf()).created,
    dryRun: o.dryRun,
  });
  const extra = extraFields(o);
  const withExtras = (body: ShipmentBody) => {
    for (const e of extra) setPath(body, e.path, e.value);
    return body;
  };
  // The label format is not part of the shipment: a rerun with another --format fetches the labels in it
  // (refresh below) rather than calling the shipment changed.
  const extraKey = JSON.stringify(extra.filter((e) => e.path !== 'format').map((e) => [e.path, e.value]));
  const withExtrasText = extrasAppender(extra);
  for (const n of loaded.notes) out.info(n);
  for (const line of groupedProblemLines(loaded.warnings)) out.warn(line);
  if (o.preset === 'shopify' && !o.defaultWeight && !o.packaging && loaded.counts.shipments) {
    out.info('Shopify exports carry no weights: parcels use the account\'s default packaging (set --default-weight G or --packaging KEY to choose)');
  }
  reportExcluded(ctx, loaded.excluded);

  const { shipments: count, parcels } = loaded.counts;
  if (count === 0) {
    const needData = loaded.excluded.filter((e) => e.needsData);
    // FILE.failed.csv and --results as a run that sent nothing leaves them: the orders awaiting data in the one
    // (an earlier run's, now stale, removed when there are none), every row with its status in the other.
    const files = o.dryRun ? {} : await writeRowFiles(loaded, excludedOutcomes(loaded.excluded, o.results !== undefined), { failedPath: failedCsvPathFor(fileKey), resultsPath: o.results });
    if (needData.length) {
      // Orders that would ship given data the user can add (customs details): nothing shipped is an input error
      // (exit 2) naming what to add. On a terminal or in a log, the orders were just listed (reportExcluded); a
      // script reading the JSON error gets each of them in it.
      throw new InputError(
        `nothing to ship in ${csvPath}: all ${loaded.excluded.length} orders were left out, ${needData.length} of them for want of data you can give${mode.json ? '' : ', as listed above'}${files.failed ? ` (their rows are in ${files.failed})` : ''}`,
        mode.json ? loaded.excluded.map((e) => ({ row: e.row, message: `${e.reference}: ${e.reason}` })) : [],
      );
    }
    if (loaded.excluded.length) {
      // Orders a preset leaves out by design (fulfilled already, nothing to ship, no shipping address) are no
      // problem of the file: a day whose export holds nothing new is a quiet day for the cron job, not an error.
      // They were just listed (reportExcluded: on stderr, or as "skipped" JSON lines with their reasons).
      out.info(`nothing to ship in ${csvPath}: all ${loaded.excluded.length} orders were left out${mode.json ? ' (the "skipped" lines say why)' : ', as listed above'}`);
      return;
    }
    out.info(`${csvPath} has no shipments (only a header): nothing to do`);
    return;
  }

  if (o.dryRun) {
    // Validating includes what the account defines, when it can be read (a dry run may be offline).
    await checkAgainstAccount(ctx, csvPath, () => loaded.stream(), loaded, { dryRun: true });
    await printDryRun(ctx, dryRows(loaded, withExtras), { jsonLines: true });
    // Orders awaiting data the user can give would be failed rows of the run (exit 3): said in the closing line too.
    const awaiting = loaded.excluded.filter((e) => e.needsData).length;
    const awaitingNote = awaiting ? `; ${awaiting} order${awaiting === 1 ? '' : 's'} await${awaiting === 1 ? 's' : ''} data you can give (listed above: ${awaiting === 1 ? 'it' : 'they'} would fail)` : '';
    out.info(`Dry run: ${count} shipment${count === 1 ? '' : 's'} (${parcels} parcel${parcels === 1 ? '' : 's'}) valid${awaitingNote}; nothing sent.`);
    return;
  }

  const api = await ctx.api();
  const settings = await ctx.settings();
  const journalPath = await journalOf();
  // What earlier runs created is skipped, not sent: neither checked again nor counted in the question. (And what
  // they sent without hearing back, below: one read of the journal for both.)
  const { created, unsettled: unsettledAll } = earlierRecords(journalPath);
  const toSend = created.size ? loaded.compact.filter((c) => !created.has(c.reference)) : loaded.compact;
  const inFile = new Set<string>(loaded.compact.map((c) => c.reference));
  for (const e of loaded.excluded) inFile.add(e.reference);
  // Shipments earlier runs of this file name created that it no longer holds, and how many it still holds.
  const gone = [...created].filter((ref) => !inFile.has(ref));
  const stillThere = loaded.compact.length - toSend.length;
  // The next batch written under an earlier batch's file name (a nightly export): it holds fewer of the earlier
  // runs' shipments (none, or a few carried over) than it lost. The journal then forgets those settled records
  // (the shipments stay on the service; one of their references sent again is refused by the service as a
  // duplicate and reported as existing), so it does not grow night after night, every run reading all of it.
  // (Batches piped to `--csv -` share one journal per directory: the same holds for them.)
  const newBatch = gone.length > stillThere;
  // Otherwise the file was edited since an earlier run: a reference renamed or a row removed left a shipment on
  // the service that this run will never mention again; said once here. (Not for stdin, which is no one file.)
  if (gone.length && !newBatch && fileKey !== '-') {
    const shown = gone.length > 5 ? `${gone.slice(0, 5).join(', ')} and ${gone.length - 5} more` : gone.join(', ');
    out.warn(
      `${gone.length} shipment${gone.length === 1 ? '' : 's'} an earlier run of ${csvPath} created ${gone.length === 1 ? 'is' : 'are'} no longer in it (reference changed or row removed): ${shown}; ` +
        `still on the service (\`ship cancel ${gone.length === 1 ? gone[0] : 'REF…'}\` if ${gone.length === 1 ? 'it' : 'they'} should not be)`,
    );
  }
  // The same for a shipment an earlier run sent and never heard back about (killed, its answer lost), whose row is
  // gone since: the journal cannot say it exists, so the service is asked (a few look-ups, rarely any).
  if (!newBatch && fileKey !== '-') {
    const unsettled = unsettledAll.filter((ref) => !inFile.has(ref));
    // A few, four at a time (each a GET, retried as any): more would slow every rerun of an edited file.
    const asked = unsettled.slice(0, UNSETTLED_LOOKUPS);
    const found: string[] = [];
    let unchecked = unsettled.length - asked.length;
    for (let i = 0; i < asked.length; i += 4) {
      const batch = asked.slice(i, i + 4);
      const exists = await Promise.all(batch.map((ref) => shipmentExists(api, ref, ctx.signal).catch((e: unknown) => (ctx.signal.aborted ? Promise.reject(e) : undefined))));
      for (const [j, ref] of batch.entries()) {
        if (exists[j] === undefined) unchecked++;
        else if (exists[j]) found.push(ref);
      }
    }
    if (found.length) {
      out.warn(
        `${found.length} shipment${found.length === 1 ? '' : 's'} an earlier run of ${csvPath} sent without hearing back ${found.length === 1 ? 'exists' : 'exist'} on the service and ${found.length === 1 ? 'is' : 'are'} no longer in it (reference changed or row removed): ${firstFew(found, ', ')}; ` +
          `\`ship cancel ${found.length === 1 ? found[0] : 'REF…'}\` if ${found.length === 1 ? 'it' : 'they'} should not be`,
      );
    }
    if (unchecked) {
      out.warn(`${unchecked} more shipment${unchecked === 1 ? '' : 's'} an earlier run of ${csvPath} sent without hearing back ${unchecked === 1 ? 'is' : 'are'} no longer in it and ${unchecked === 1 ? 'was' : 'were'} not looked up: \`ship track REF\` tells whether one exists`);
    }
  }
  // The whole file is checked before anything is sent: what the account defines too (services, packaging types,
  // brands, custom fields), read from it.
  if (toSend.length) await checkAgainstAccount(ctx, csvPath, () => toSend, loaded, { dryRun: false });
  if (mode.interactive && !o.yes) {
    // A rerun asks about what it will create, not about what an earlier run created (skipped, not sent).
    const toCreate = toSend.length;
    const toParcels = toSend.reduce((n, c) => n + c.parcels, 0);
    const skipped = count - toCreate;
    const skippedNote = skipped ? ` (${skipped} created by an earlier run ${skipped === 1 ? 'is' : 'are'} skipped)` : '';
    if (toCreate > 0) {
      const ok = await ctx.prompt.confirm({
        message: `Create ${toCreate} shipment${toCreate === 1 ? '' : 's'} (${toParcels} parcel${toParcels === 1 ? '' : 's'}) on ${settings.baseUrl.value}?${skippedNote}`,
        supplyWith: '--yes',
        default: false,
      });
      if (!ok) {
        out.info('Nothing sent.');
        return;
      }
    }
  }
  const printer = await preparePrinter(ctx, o);
  // Labels are written in place (no temp file + rename: half the file-system work per label). Safe here:
  // a path is reported only after its label was written whole; a shipment is journaled `done` only after
  // its labels are written, so a run killed mid-write leaves that shipment `sending`, and the next run
  // settles it first, writing its labels again (or removing them if they cannot be fetched) before it
  // reports anything. A label file of a shipment not journaled `done` is never trusted. They are written a few
  // at a time between network reads (LabelBatchWriter) after the request's slot is given back; the same holds then.
  // (Its batch writer, and the thread that writes the files, come with the run itself: below.)
  const policy: LabelPolicy = { dir: o.outputDir, format: o.format, write: o.labels, namer: new LabelNamer(o.outputDir), inPlace: true };

  // What FILE.failed.csv and --results need, per shipment; the rows themselves are read again at the end.
  const outcomes = excludedOutcomes(loaded.excluded, o.results !== undefined);
  const awaitingData = loaded.excluded.filter((e) => e.needsData);
  const leftOutByDesign = loaded.excluded.filter((e) => !e.needsData);

  const progressShown = animationsAllowed(mode, io);
  const tableAtEnd = progressShown && io.stdoutIsTTY;
  // The table at the end (terminal only): every shipment of a small batch; of a larger one, the failed ones
  // (the counts are in the summary, the rest in --results or the JSON lines).
  const collected: Result[] = [];
  const failedRows: Result[] = [];
  const mergeList: string[] = [];
  // References the service already had, that this run did not create (existedWarning).
  const existedBefore: string[] = [];
  // --printer: once the printer fails, the run goes on creating (the label files are kept) but sends nothing
  // more to it; the shipments whose labels were not sent are named at the end, and in their JSON lines.
  let printerFailure: unknown;
  let labelsSent = 0;
  const notSent = new Map<string, number>();
  // A shipment cut in two (some of its parcels' labels went out before the printer failed): the tracking
  // references of the parcels not sent, so the hint resends those alone, not the whole shipment.
  const cutShipments = new Map<string, string[]>();
  // Shipments an earlier run of this file created whose labels never reached the printer (its FILE.unprinted.txt):
  // still owed. A rerun with --printer sends them as it meets them (in input order); the others stay listed.
  // The ledger has the last word on a reference it names (a rerun killed after sending some of the list's labels
  // says so there only); the list covers what it does not name (a ledger removed, or from before it existed).
  const ledgerPath = printLedgerPathFor(journalPath);
  const ledgerSays = readLedger(ledgerPath);
  const owedAnywhere = new Set([...readUnprintedList(fileKey), ...owedOf(ledgerSays)]);
  const owedEarlier = new Set([...owedAnywhere].filter((ref) => inFile.has(ref) && ledgerSays.get(ref) !== 'settled'));
  // Owed by an earlier batch under this file's name (the nightly file's new references replace them): said, once.
  const owedElsewhere = [...owedAnywhere].filter((ref) => !inFile.has(ref) && ledgerSays.get(ref) !== 'settled');
  if (owedElsewhere.length) {
    out.warn(
      `an earlier run of ${csvPath} left the labels of ${owedElsewhere.length} shipment${owedElsewhere.length === 1 ? '' : 's'} unsent that this file no longer holds: ${firstFew(owedElsewhere, ' ')}; ` +
        `send them with \`ship print REF --printer NAME\` (their label files are in ${o.outputDir}): this run forgets them`,
    );
  }
  // What this run owes the printer, on disk as it goes (a run killed while printing loses nothing of it), an
  // earlier run's debt first, so the ledger alone holds it from now on.
  const ledger = printer ? new PrintLedger(ledgerPath).open() : undefined;
  for (const ref of owedEarlier) ledger?.owe(ref);
  // Shipments this run found it could not create (failed, nothing created), and those the service had already
  // (not this journal's: never printed from a ledger); and every shipment this run has an outcome for.
  const notCreated = new Set<string>();
  const existedNow = new Set<string>();
  const settledNow = new Set<string>();
  // Shipments whose labels this run sent in full (an earlier run's owed ones leave the list with them).
  const printedNow = new Set<string>();
  // Shipments created by a --printer run whose label files could not be written: not printed, so owed too.
  const unprintable = new Set<string>();
  const printCreated = async (ref: string, labels: readonly string[], parcelRefs: readonly string[]): Promise<void> => {
    if (!printer || labels.length === 0) return;
    let sent = 0;
    if (printerFailure === undefined) {
      try {
        await printLabelFiles(ctx, printer, labels, () => sent++, o.printerTimeoutMs);
      } catch (e) {
        printerFailure = e;
        // With the preflight, a label counts as sent only once the printer answered after it: none of this
        // shipment's did (a printer that reset on its third parcel may not have read the first two either).
        // Not after Ctrl-C: the printer took each label it was sent; no other was started.
        if (o.preflight && !(e instanceof Interrupted)) sent = 0;
      }
    }
    if (printerFailure === undefined && o.preflight) {
      // Read back that it took them: a printer that accepts connections but stopped reading looked like one that
      // printed everything. (An answer saying paper out, head open or pause: it read them; no more are sent.)
      try {
        await confirmLabelsRead(printer, o.printerTimeoutMs);
      } catch (e) {
        printerFailure = e instanceof LabelsNotConfirmed ? new PrinterNotReading(e.cause) : e;
        if (e instanceof LabelsNotConfirmed) sent = 0;
      }
    }
    labelsSent += sent;
    if (sent < labels.length) notSent.set(ref, labels.length - sent);
    else {
      printedNow.add(ref);
      ledger?.settle(ref);
    }
    // One label file per parcel, in parcel order (labels/index.ts).
    if (sent > 0 && sent < labels.length && parcelRefs.length === labels.length) cutShipments.set(ref, parcelRefs.slice(sent));
  };

  const compact = loaded.compact;
  loaded.compact = [];
  // The bodies were validated whole by the loader; the run-level fields (--format, --print…) are the same for
  // every body, so checking them once, with the first body, is checking them for all: then no request needs
  // the API layer's second validation. If they fail, every request is validated (and refused) as before.
  const extrasOk = compact.length > 0 && compact[0].validated === true && (await extrasValid(compact[0].json, withExtras));
  // What a run stopped early needs of the shipments handed out (see addEarlierOutcomes).
  const handedOut: ShipmentRows[] = [];
  function* tasks(): Generator<BulkTask<CreateInput>> {
    for (let i = 0; i < compact.length; i++) {
      const s = compact[i];
      compact[i] = undefined as never; // sent or skipped: its text is not needed again
      handedOut.push({ reference: s.reference, rows: s.rows, rowParcels: s.rowParcels, itemRows: s.itemRows });
      yield { key: s.reference, rows: s.rows, input: { json: s.json, validated: s.validated, parcels: s.parcels, rowParcels: s.rowParcels, itemRows: s.itemRows } };
    }
  }

  // Shipments created whose label files could not be written (kept out of FILE.failed.csv: Outcome.labelsOnly).
  let labelsUnwritten = 0;
  let existedSaid = false;
  const sayExisted = () => {
    if (existedSaid || !existedBefore.length) return;
    existedSaid = true;
    out.warn(existedWarning(existedBefore, o.labels ? o.outputDir : undefined));
  };
  let thrown: unknown;
  // Label files written a few at a time between network reads, on a thread of their own once creating them
  // proves slow (LabelBatchWriter): made here, so that the `finally` below always ends that thread (it would
  // keep the process alive).
  if (o.labels) policy.batch = new LabelBatchWriter(undefined, { use: 'when-slow' });
  try {
    await runBulkCommand<CreateInput, Created>(ctx, {
      noun: 'shipments',
      tasks: tasks(),
      total: count,
      concurrency: o.concurrency,
      journalPath,
      ...(newBatch ? { journalForget: (key: string) => !inFile.has(key) } : {}),
      summary: true,
      hooks: {
        // The slot is given back once the answer is in: the labels are written with the next batch meanwhile.
        execute: async (task, signal, release) => {
          // Owed before it is sent: from the moment it may exist, until its labels went out.
          ledger?.owe(task.key);
          const ready = extrasOk && task.input.validated === true ? withExtrasText(task.input.json) : undefined;
          if (ready !== undefined) return createShipmentFromJson(api, task.key, ready, policy, signal, release);
          const body = withExtras(JSON.parse(task.input.json) as ShipmentBody);
          return (await createShipment(api, body, policy, signal, { prevalidated: extrasOk && task.input.validated === true, release, callerRetries: true })).created;
        },
        settle: async (task, signal, sent) => {
          // Only whether it exists (verifyByResend): a cancelled one's labels are not to be written as the row's.
          if (sent.existsOnly) return (await shipmentExists(api, task.key, signal)) ? { status: 'found' } : { status: 'absent' };
          const found = await findShipment(api, task.key, policy, signal);
          // Sent by this journal and found, but its labels could not be fetched or written: not settled, so the
          // next run tries again (as after a failed write in execute); reported with its tracking references
          // meanwhile. One made elsewhere ("already exists") is reported as it is, with the label error.
          if (sent.bySelf && found.status === 'done' && found.result.label_error !== undefined && policy.write) {
            throw new LabelsNotWritten(found.result, new Error(found.result.label_error));
          }
          return found;
        },
        // Done by an earlier run: its labels in this run's format (--format may differ), or again if their files are gone.
        refresh: (task, stored, signal) => refreshLabels(api, task.key, stored, policy, signal),
        isAlreadyDone: isDuplicateReference,
        // A cancelled shipment's reference may be given to a new one (api-notes: to change a shipment, cancel it and
        // create it again): GET /shipments/:ref/events finds the cancelled one too, so a shipment found after an
        // unknown outcome is sent again, the service refusing a live duplicate (api-notes: re-post only once it is
        // known to exist). Not one created whose labels could not be written: known live, it is fetched for them.
        verifyByResend: (entry) => entry?.error?.type !== 'LabelsNotWritten',
        isResult: isCreatedSummary,
        // A full (or read-only) disk for the labels: every later shipment would be created without its labels.
        stopsRun: (err) => labelDiskStop(err, o.outputDir),
        fingerprint: (task) => fingerprint(task.input.json + extraKey),
        onResult: async (r) => {
          if (r.error instanceof LabelsNotWritten) labelsUnwritten++;
          if (r.status === 'skipped' && r.skipReason === 'exists') existedBefore.push(r.task.key);
          // A rerun of this command never resends it (the journal holds it as done, cancelled or not), so the way
          // to apply the change is a run of its own.
          if (r.changed) out.warn(`${r.task.key} was created by an earlier run from different values; not created again (to apply the change: \`ship cancel ${r.task.key}\`, then create it from a file or flags of its own)`);
          if (r.result?.label_error) out.warn(`${r.task.key}: ${r.result.label_error}`);
          // Printed: what this run created, and what an earlier run created but never got to the printer.
          // (Not one the service had already, not created by this journal: it may be another order's.)
          const existed = r.status === 'skipped' && r.skipReason === 'exists';
          if (printer && r.result && (r.status === 'created' || (r.status === 'skipped' && !existed && owedEarlier.has(r.task.key)))) {
            await printCreated(r.task.key, r.result.labels, r.result.tracking_references ?? []);
          }
          // (One whose answer never came may exist: no outcome, kept in the ledger for the rerun to settle and print.)
          if (!r.unknownOutcome) settledNow.add(r.task.key);
          // Created, its label files not written: owed once they are (by a --printer run, or owed already).
          if (r.error instanceof LabelsNotWritten) {
            if (printer || owedEarlier.has(r.task.key)) unprintable.add(r.task.key);
          } else if (r.status === 'failed' && !r.result && !r.unknownOutcome) notCreated.add(r.task.key);
          if (existed) {
            existedNow.add(r.task.key);
            ledger?.settle(r.task.key);
          }
          if (o.merge && r.result) mergeList.push(...r.result.labels);
          if (r.status === 'failed' || o.results) {
            outcomes.set(r.task.key, {
              status: r.status,
              // Created, but its labels could not be written: --results still gives its id and tracking references.
              result: r.result ?? (r.error instanceof LabelsNotWritten ? r.error.created : undefined),
              error: r.status === 'failed' ? failureText(r, loaded.labelFor) : r.skipReason === 'exists' ? 'already existed' : r.status === 'skipped' ? 'created by an earlier run' : undefined,
              rowParcels: r.task.input.rowParcels,
              rejected: refusedBeforeSending(r) ? true : undefined,
              labelsOnly: r.error instanceof LabelsNotWritten ? true : undefined,
            });
          }
          if (tableAtEnd) {
            if (collected.length < TABLE_ROWS) collected.push(r);
            if (r.status === 'failed' && failedRows.length < TABLE_ROWS) failedRows.push(r);
          }
        },
      },
      jsonLine: (r) => {
        const line = jsonLine(r, loaded.labelFor);
        if (notSent.has(r.task.key)) line.labels_not_sent = notSent.get(r.task.key);
        return line;
      },
      textLine: (r) => textLine(ctx, r, loaded.labelFor),
      quietLine: (r) => (r.status === 'failed' ? undefined : (r.result?.tracking_references ?? []).join('\n') || undefined),
      // Orders a preset left out are listed (and in the JSON lines as "skipped" with a reason) but are not
      // shipments of the run: counted apart, so the summary's numbers add up.
      // (Those left out for want of data are failed rows, counted in total and failed instead.)
      summaryCounts: leftOutByDesign.length ? { left_out: leftOutByDesign.length } : undefined,
      heldBack: awaitingData.map((e) => ({ key: e.reference, rows: e.rows, message: e.reason })),
      // Stopped before the end (Ctrl-C, credentials refused, service unreachable, disk full): the shipments it never reached
      // keep what earlier runs recorded, in FILE.failed.csv (failed ones) and --results (created ones).
      rowFiles: async (s) => {
        if (stoppedEarly(s)) {
          addEarlierOutcomes(outcomes, [...handedOut, ...compact.filter((c) => c !== undefined)], journalPath, { withResults: o.results !== undefined, labelFor: loaded.labelFor });
        }
        const files = await writeRowFiles(loaded, outcomes, { failedPath: failedCsvPathFor(fileKey), resultsPath: o.results });
        return { failedPath: files.failed, resultsPath: files.results };
      },
      // Said before the summary, which is the closing line under --json.
      beforeSummary: sayExisted,
      // Printing goes on after the last shipment is created (labels go out one after another): said, so a full
      // bar with nothing moving does not read as done.
      progressNote: printer ? () => `${labelsSent} label${labelsSent === 1 ? '' : 's'} sent to printer` : undefined,
      // Every shipment handled, but labels left unsent by an interrupted printing: not "nothing is left to do".
      leftOver: () => (notSent.size ? `the labels of ${notSent.size} shipment${notSent.size === 1 ? ' were' : 's were'} not sent to the printer (listed below)` : undefined),
      summaryNotes: (s) => {
        const notes: string[] = [];
        const needData = awaitingData.length;
        const byDesign = leftOutByDesign.length;
        if (needData) notes.push(`${needData} order${needData === 1 ? '' : 's'} not sent for want of data you can give (listed above; counted as failed): add it (e.g. --customs FILE) and rerun the same command`);
        if (byDesign) notes.push(`Left out ${byDesign} order${byDesign === 1 ? '' : 's'} that cannot be shipped (listed above)`);
        if (o.labels && s.created + s.skipped > 0) notes.push(`Labels in ${o.outputDir}`);
        if (labelsUnwritten) {
          notes.push(
            `${labelsUnwritten} shipment${labelsUnwritten === 1 ? ' was' : 's were'} created but ${labelsUnwritten === 1 ? 'its labels' : 'their labels'} could not be written (not in ${failedCsvPathFor(fileKey)}): rerun the same command once the cause is fixed; it writes them without creating anything again`,
          );
        }
        if (printer) {
          notes.push(
            printerFailure === undefined
              ? `${labelsSent} label${labelsSent === 1 ? '' : 's'} sent to printer ${printer.name ?? printer.url} (sent, not confirmed printed)`
              : printerFailure instanceof Interrupted
                ? `Printing interrupted: ${labelsSent} label${labelsSent === 1 ? '' : 's'} sent to printer ${printer.name ?? printer.url}, those of ${notSent.size} shipment${notSent.size === 1 ? '' : 's'} not`
                : `Printer ${printer.name ?? printer.url} failed: ${labelsSent} label${labelsSent === 1 ? '' : 's'} sent, those of ${notSent.size} shipment${notSent.size === 1 ? '' : 's'} not`,
          );
        }
        return notes;
      },
    });
  } catch (e) {
    thrown = e;
  } finally {
    await policy.batch?.close();
  }

  // AuthError here means the API refused the credentials mid-run and the run stopped; an unreachable API
  // stops it the same way (bulk/runner.ts).
  // The row files were written (rowFiles, before the summary named them) when the run got that far.
  const finished =
    thrown === undefined || thrown instanceof PartialFailure || thrown instanceof Interrupted || thrown instanceof AuthError || isUnreachable(thrown);
  // (A run that stopped before its summary has not said it yet.)
  sayExisted();
  // FILE.unprinted.txt: the shipments none of whose labels went out, in input order — this run's (the printer
  // failed, their label files could not be written) and an earlier run's this one did not send (no --printer, or
  // the printer failed again). Removed when there are none: a nightly file under the same name holds other
  // references, so yesterday's list goes with them.
  // (The list names only shipments known to exist; the ledger keeps too those this run sent and has no outcome
  // for, a request cut short by Ctrl-C or a fatal error: the rerun settles them, and prints them if created.)
  const owed = new Set<string>([...notSent.keys(), ...unprintable, ...owedEarlier]);
  for (const ref of [...printedNow, ...cutShipments.keys(), ...notCreated, ...existedNow]) owed.delete(ref);
  const owedInOrder = [...inFile].filter((ref) => owed.has(ref));
  // (Every shipment printed had an outcome: in settledNow.)
  const unresolved = [...(ledger?.owedNow ?? [])].filter((ref) => !settledNow.has(ref) && !owed.has(ref));
  if (ledger) ledger.finish([...owedInOrder, ...unresolved]);
  else settleLedger(ledgerPath, owedInOrder);
  const listPath = owedInOrder.length ? writeUnprintedList(unprintedListPathFor(fileKey), owedInOrder) : removeUnprintedList(fileKey);
  if (printer && printerFailure !== undefined) {
    const notSentError = labelsNotSentError(printer, printerFailure, [...notSent.keys()], o.outputDir, cutShipments, listPath);
    // The run's own error (rows that failed, Ctrl-C) keeps its exit code; the printer's is said beside it.
    if (thrown === undefined) thrown = notSentError;
    else out.warn(`${notSentError.message}; ${notSentError.hint}`);
  } else if (listPath && owedInOrder.length) {
    // Owed without a printer failure in this run: an earlier run's list (this run had no --printer), or labels
    // that could not be written (their rows failed: exit 3).
    const n = owedInOrder.length;
    out.warn(
      `the labels of ${n} created shipment${n === 1 ? ' have' : 's have'} not been sent to a printer: ${firstFew(owedInOrder, ' ')} (listed in ${listPath}); ` +
        `a rerun of this command with --printer sends them, or \`xargs -n1 ship print --printer NAME < ${listPath}\``,
    );
  }
  if (finished && o.merge && mergeList.length) {
    const merging = ctx.out.wait.begin(`Merging ${mergeList.length} label${mergeList.length === 1 ? '' : 's'} into ${o.merge}…`, { likelyLong: true });
    let pages: number;
    try {
      pages = await mergePdfs(mergeList, o.merge);
    } finally {
      merging();
    }
    out.info(`Merged ${pages} label page${pages === 1 ? '' : 's'} into ${o.merge}`);
  }
  if (count <= TABLE_ROWS) {
    if (collected.length) await printTable(ctx, collected);
  } else if (failedRows.length) {
    const failedCount = outcomesFailed(outcomes, failedRows.length);
    ctx.out.line(`Failed shipments${failedCount > failedRows.length ? ` (the first ${failedRows.length} of ${failedCount})` : ''}:`);
    await printTable(ctx, failedRows);
  }
  if (thrown !== undefined) throw thrown;
}

/** The printer took the labels' connections but did not answer its status after them: stopped reading. */
class PrinterNotReading extends Error {
  constructor(cause: unknown) {
    super(`did not answer its status after the last labels (${cause instanceof Error ? cause.message : String(cause)}): whether it read them is not known`, { cause });
    this.name = 'PrinterNotReading';
  }
}

/** Where the references of shipments whose labels were not sent go: beside the CSV, as FILE.failed.csv. */
function unprintedListPathFor(csvPath: string): string {
  return failedCsvPathFor(csvPath).replace(/\.failed(\.[^./\\]*)?$/, '.unprinted.txt');
}

/** The references of an earlier run's FILE.unprinted.txt; empty when there is no list. */
function readUnprintedList(csvPath: string): Set<string> {
  let text: string;
  try {
    text = readFileSync(unprintedListPathFor(csvPath), 'utf8');
  } catch {
    return new Set();
  }
  return new Set(text.split(/\r?\n/).filter((ref) => ref !== ''));
}

/** Removes an earlier run's FILE.unprinted.txt (best effort); undefined, for the caller's "no list". */
function removeUnprintedList(csvPath: string): undefined {
  try {
    rmSync(unprintedListPathFor(csvPath), { force: true });
  } catch {
    // a list that cannot be removed is at worst stale; this run's messages do not name it
  }
  return undefined;
}

/** Writes the references one a line; the path, or undefined when it cannot be written (the error names five). */
function writeUnprintedList(path: string, refs: readonly string[]): string | undefined {
  try {
    writeFileAtomic(path, refs.join('\n') + '\n', { own: 'the list of unprinted labels' });
    return path;
  } catch {
    return undefined;
  }
}

/** Up to five references joined by `sep`, then how many more (with `note`). */
function firstFew(refs: readonly string[], sep: string, note = ''): string {
  return refs.slice(0, 5).join(sep) + (refs.length > 5 ? `${sep}… (${refs.length - 5} more${note})` : '');
}

/**
 * The run's error when the printer failed during it: every shipment was handled (created, its label files
 * written), but the labels of some never reached the printer, and a rerun skips those shipments; so say which,
 * and how to send them.
 */
function labelsNotSentError(printer: PrinterTarget, cause: unknown, refs: string[], dir: string, cut: ReadonlyMap<string, readonly string[]>, listPath?: string): ShipError {
  const name = printer.name ?? printer.url;
  // The list holds the shipments none of whose labels went out (`ship print` sends them whole); those cut short
  // are named in the hint below, parcel by parcel.
  const listed = refs.filter((ref) => !cut.has(ref)).length;
  const inList = cut.size ? `the ${listed} with no label sent` : 'all';
  const shown = firstFew(refs, ' ', listPath ? `: ${inList} in ${listPath}` : ': "labels_not_sent" in the JSON lines');
  const sendAll = listPath ? `; ${cut.size ? `the ${listed} in that list` : 'all of them'} with \`xargs -n1 ship print --printer ${name} < ${listPath}\`` : '';
  // `ship print REF` sends every label of REF: for a shipment some of whose labels went out, name the parcels
  // still to send (ship label sends one parcel's), so no label comes out twice.
  const cutNotes = [...cut].map(([ref, parcels]) => `of ${ref} only ${parcels.length === 1 ? 'parcel' : 'parcels'} ${parcels.join(', ')} (\`ship label ${parcels[0]} --printer ${name}\`${parcels.length > 1 ? ' for each' : ''})`);
  // Ctrl-C stops the printing as it stops the run (no label started after it): not a printer failure.
  const what = cause instanceof Interrupted ? `interrupted: the labels of ${refs.length} created shipment${refs.length === 1 ? '' : 's'} were not sent to printer ${name}` : `printer ${name} failed (${cause instanceof Error ? cause.message : String(cause)}): the labels of ${refs.length} created shipment${refs.length === 1 ? '' : 's'} were not sent`;
  return new ShipError(`${what}: ${shown}`, ExitCode.Failure, {
    hint:
      `their label files are in ${dir}; ${cause instanceof Interrupted ? 'send them' : 'when the printer is back, send them'} with \`ship print REF --printer ${name}\`${sendAll}` +
      (cutNotes.length ? ` — but ${cutNotes.join('; ')}, the others went out` : '') +
      (listPath ? `, or rerun this command with --printer: it sends those in ${listPath}` : ' (a rerun of this command skips created shipments and prints nothing)'),
    cause,
  });
}

/**
 * Said once after a run in which the service already had some references that this run's journal never sent
 * (a run from another folder or machine, or a reference used before for another order). They are skipped, not
 * created twice; but nothing the API offers tells whether they are these rows' shipments, so their labels and
 * tracking references must be checked before use.
 */
export function existedWarning(refs: string[], labelsDir?: string): string {
  const shown = firstFew(refs, ', ');
  const n = refs.length;
  return (
    `${n} shipment reference${n === 1 ? ' was' : 's were'} already on the service, not created by this run's journal: ${shown}. ` +
    `Skipped, not created twice${labelsDir ? `; their existing labels were fetched into ${labelsDir}` : ''}. ` +
    `If a reference was used before for another order, its label and tracking are that order's: check them, and give the row a new reference.`
  );
}

/** Most rows of the table printed at the end of a run on a terminal. */
const TABLE_ROWS = 50;

/** How many shipments failed, as far as `outcomes` knows (at least `seen`). */
function outcomesFailed(outcomes: Map<string, Outcome>, seen: number): number {
  let n = 0;
  for (const o of outcomes.values()) if (o.status === 'failed') n++;
  return Math.max(n, seen);
}

/**
 * Whether a validated body with the run-level fields added still passes the API's rules, with those fields
 * unchanged by the validator's normalisation (so bodies that carry them are exactly what it would send).
 */
async function extrasValid(json: string, withExtras: (b: ShipmentBody) => ShipmentBody): Promise<boolean> {
  const { validateShipmentRequest } = await import('../../api/validate.js');
  const body = withExtras(JSON.parse(json) as ShipmentBody);
  const r = validateShipmentRequest(body);
  // Key order aside (the validator orders keys as its schema does; the API reads an object, not its order).
  return r.ok && isDeepStrictEqual(r.value, body);
}

/**
 * Adds the run-level fields (all top-level: format, print_labels…) to a body's JSON text as withExtras adds
 * them to the object, by appending them before the closing brace: the same text JSON.stringify would give,
 * without parsing and serialising every body again. Undefined (do it the slow way) when the text already
 * names one of those keys anywhere (setPath would then overwrite it in place) or is not an object's text.
 */
export function extrasAppender(extra: ReadonlyArray<{ path: string; value: unknown }>): (json: string) => string | undefined {
  if (extra.some((e) => e.path.includes('.'))) return () => undefined;
  const keys = extra.map((e) => `${JSON.stringify(e.path)}:`);
  const tail = extra.map((e) => `,${JSON.stringify(e.path)}:${JSON.stringify(e.value)}`).join('');
  return (json) => {
    if (json.length < 3 || json.charCodeAt(json.length - 1) !== 0x7d /* } */ || json.charCodeAt(0) !== 0x7b) return undefined;
    for (const k of keys) if (json.includes(k)) return undefined;
    return json.slice(0, -1) + tail + '}';
  };
}

/**
 * A 53-bit hash of a request body (cyrb53): enough to notice that a rerun's rows differ from what created a
 * shipment, at a fraction of a cryptographic hash's cost per task.
 */
export function fingerprint(text: string): string {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ ch, 2654435761);
    h2 = Math.imul(h2 ^ ch, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return (4294967296 * (2097151 & h2) + (h1 >>> 0)).toString(36);
}

/** A shipment's reference, its rows, and which parcel and item each row made (to place its errors). */
type ShipmentRows = Pick<CompactShipment, 'reference' | 'rows' | 'rowParcels' | 'itemRows'>;

/** Errors of the disk or the directory itself, which every later label would meet too. */
const DISK_ERRORS: Record<string, { what: (dir: string) => string; fix: string }> = {
  ENOSPC: { what: (dir) => `the disk of ${dir} is full`, fix: 'make room' },
  EDQUOT: { what: (dir) => `the disk of ${dir} is over its quota`, fix: 'make room' },
  EROFS: { what: (dir) => `the disk of ${dir} is read-only`, fix: 'make it writable' },
  // The directory made read-only (or taken from this user) meanwhile: every later label file is refused too.
  EACCES: { what: (dir) => `${dir} cannot be written to`, fix: 'make it writable' },
  EPERM: { what: (dir) => `${dir} cannot be written to`, fix: 'make it writable' },
};

/**
 * The error to stop a bulk run with when a created shipment's labels could not be written because of the disk
 * or the directory (full, over quota, read-only, not writable), or undefined (any other label error stays that
 * shipment's own).
 */
export function labelDiskStop(err: unknown, outputDir: string): ShipError | undefined {
  if (!(err instanceof LabelsNotWritten)) return undefined;
  const code = (err.cause as NodeJS.ErrnoException | undefined)?.code;
  const stop = code ? DISK_ERRORS[code] : undefined;
  if (!stop) return undefined;
  return new ShipError(`${stop.what(outputDir)} (${code}): labels cannot be written, so no more shipments are created`, ExitCode.Failure, {
    hint: `${stop.fix} (or pick another --output-dir for a new run), then rerun the same command: the labels of the shipments already created are fetched again, and nothing is created twice`,
  });
}

/**
 * What earlier runs on this journal left (nothing when there is no journal yet): the references they created,
 * and those they sent without learning the outcome (the last record "sending", or failed with the outcome unknown).
 */
function earlierRecords(journalPath: string): { created: Set<string>; unsettled: string[] } {
  const created = new Set<string>();
  const unsettled: string[] = [];
  let entries: Map<string, JournalEntry>;
  try {
    entries = Journal.readEntries(journalPath);
  } catch {
    return { created, unsettled }; // the run itself reports a journal it cannot read
  }
  for (const [key, e] of entries) {
    if (e.state === 'done' && isCreatedSummary(e.result)) created.add(key);
    else if (e.state === 'sending' || (e.state === 'failed' && e.unknown)) unsettled.push(key);
  }
  return { created, unsettled };
}

/** A journal's "done" record holds what execute() returned; one that does not (edited by hand) is settled again. */
function isCreatedSummary(stored: unknown): boolean {
  return typeof stored === 'object' && stored !== null && Array.isArray((stored as Created).tracking_references);
}

/**
 * The outcomes earlier runs journaled for the shipments this run has none for (never reached, or handed out
 * but not sent before it stopped) or only a refusal of (credentials, unreachable: not the rows' problem):
 * failed ones (known outcome) for FILE.failed.csv, their errors placed in the user's rows and columns, and with
 * --results the created ones, with their tracking references and labels.
 */
function addEarlierOutcomes(
  outcomes: Map<string, Outcome>,
  shipments: readonly ShipmentRows[],
  journalPath: string,
  opts: { withResults: boolean; labelFor: (column: string) => string },
): void {
  let entries: Map<string, JournalEntry>;
  try {
    entries = Journal.readEntries(journalPath);
  } catch {
    return; // the row files are written from this run's outcomes alone
  }
  for (const s of shipments) {
    const now = outcomes.get(s.reference);
    if (now && !now.rejected) continue;
    const entry = entries.get(s.reference);
    if (entry?.state === 'failed' && entry.error) {
      const { message, fields } = entry.error;
      const error = fields && Object.keys(fields).length ? placedFieldErrors(fields, s, opts.labelFor) : message;
      outcomes.set(s.reference, { status: 'failed', error: entry.unknown ? `${error} (${UNKNOWN_OUTCOME})` : error, rowParcels: s.rowParcels });
    } else if (entry?.state === 'sending') {
      // Sent by a run that never learnt the outcome (killed, the answer lost, Ctrl-C mid-request): not "not sent".
      outcomes.set(s.reference, { status: 'failed', error: `sent, and its answer never came (${UNKNOWN_OUTCOME})`, rowParcels: s.rowParcels });
    } else if (entry?.state === 'done' && opts.withResults && entry.result && !now) {
      outcomes.set(s.reference, { status: 'skipped', result: entry.result as Created, error: 'created by an earlier run', rowParcels: s.rowParcels });
    }
  }
}

/** Said of a row an earlier run sent without learning whether the shipment was created. */
const UNKNOWN_OUTCOME = 'it may exist: rerun the same command, which asks the service before sending it again, not this row from FILE.failed.csv under a new reference';

/** How many shipments an earlier run sent without hearing back, now gone from the file, a rerun looks up. */
const UNSETTLED_LOOKUPS = 20;

/** What happened to one shipment, as far as the row files need to know. */
interface Outcome {
  status: 'created' | 'skipped' | 'failed';
  result?: Created;
  error?: string;
  rowParcels: number[];
  /** Failed because the API refused the credentials or could not be reached: not a problem of its rows, so not in FILE.failed.csv. */
  rejected?: boolean;
  /**
   * Created, only its label files not written: not in FILE.failed.csv either (the same command's rerun writes
   * them; the row sent again from the failed file would be a second shipment, or refused as a duplicate).
   */
  labelsOnly?: boolean;
}

/** Whether a shipment's rows go to FILE.failed.csv. */
const rowsFailed = (oc: Outcome | undefined): boolean => oc?.status === 'failed' && !oc.rejected && !oc.labelsOnly;

/**
 * Writes FILE.failed.csv (rows of failed shipments, unchanged, plus `error`; a stale one from an earlier run is
 * removed when nothing failed; rows refused for the credentials or never sent are left out: rerunning the
 * same command after `ship login` sends them) and --results (every row with status, id, its parcel's tracking reference and
 * label, error), reading the CSV once more instead of keeping its rows in memory.
 */
async function writeRowFiles(
  loaded: LoadedCsv,
  outcomes: Map<string, Outcome>,
  paths: { failedPath: string; resultsPath?: string },
): Promise<{ failed?: string; results?: string }> {
  const anyFailed = [...outcomes.values()].some(rowsFailed);
  // Laid out as the input was (its delimiter, its sep= line), so the spreadsheet that wrote it reads them.
  const layout: WriteBackLayout = { bom: writeBackWithBom(loaded.encoding), ...loaded.rowLayout };
  const failed = new FailedRowsWriter(paths.failedPath, loaded.header, layout);
  if (!anyFailed && !paths.resultsPath) return { failed: failed.finish() };
  const results = paths.resultsPath ? new ResultsWriter(paths.resultsPath, loaded.header, layout) : undefined;
  const seen = new Map<string, number>();
  try {
    await loaded.eachRecord((rec, ref) => {
      const oc = ref === undefined ? undefined : outcomes.get(ref);
      const i = ref === undefined ? 0 : (seen.get(ref) ?? 0);
      if (ref !== undefined) seen.set(ref, i + 1);
      if (rowsFailed(oc)) failed.add([rec.values], [rec.row], oc!.error ?? 'failed');
      results?.add([rec.values], rowColumns(oc, i));
    });
  } catch (e) {
    results?.abort();
    throw e;
  }
  return { failed: failed.finish(), results: results?.finish() };
}

/**
 * The outcomes of the orders a preset left out: those awaiting data the user can give are failed rows
 * (FILE.failed.csv, exit 3: they await action); those left out by design are skipped rows, kept for --results.
 */
function excludedOutcomes(excluded: readonly ExcludedShipment[], withResults: boolean): Map<string, Outcome> {
  const outcomes = new Map<string, Outcome>();
  for (const e of excluded) {
    if (e.needsData) outcomes.set(e.reference, { status: 'failed', error: e.reason, rowParcels: [] });
    else if (withResults) outcomes.set(e.reference, { status: 'skipped', error: e.reason, rowParcels: [] });
  }
  return outcomes;
}

function rowColumns(oc: Outcome | undefined, rowIndex: number): ResultColumns {
  if (!oc) return { status: 'not_sent' };
  if (!oc.result) return { status: oc.status, error: oc.error };
  const p = Math.max(0, oc.rowParcels[rowIndex] ?? 0);
  // A failed shipment with a result was created, but its labels were not written: no label path to give.
  const label = oc.status === 'failed' ? undefined : oc.result.labels[p];
  return {
    status: oc.status,
    id: oc.result.id,
    tracking_reference: oc.result.tracking_references[p] ?? oc.result.tracking_reference,
    label_paths: label ? [label] : [],
    error: oc.error,
  };
}

async function* dryRows(loaded: LoadedCsv, withExtras: (b: ShipmentBody) => ShipmentBody) {
  for await (const s of loaded.stream()) yield { row: s.row, reference: s.reference, body: withExtras(s.body), parcels: s.parcels, items: s.items };
}

/** Lists orders a preset left out: on stderr, and as "skipped" JSON lines with the reason. */
function reportExcluded(ctx: Ctx, excluded: ExcludedShipment[]): void {
  if (excluded.length === 0) return;
  if (ctx.mode.json) {
    // Left out for want of data the user can give: failed (not sent, awaiting that data); by design: skipped.
    for (const e of excluded) ctx.out.jsonLine(e.needsData ? { row: e.row, shipment_reference: e.reference, status: 'failed', error: e.reason } : { row: e.row, shipment_reference: e.reference, status: 'skipped', reason: e.reason });
    return;
  }
  const needData = excluded.filter((e) => e.needsData);
  const byDesign = excluded.filter((e) => !e.needsData);
  if (needData.length) {
    ctx.io.stderr.write(`${needData.length} order${needData.length === 1 ? '' : 's'} cannot ship without data you can give (not sent until it is given):\n${excludedLines(needData, ctx.mode.verbose).join('\n')}\n`);
  }
  if (byDesign.length) ctx.io.stderr.write(`Left out ${byDesign.length} order${byDesign.length === 1 ? '' : 's'} that cannot be shipped:\n${excludedLines(byDesign, ctx.mode.verbose).join('\n')}\n`);
}

/** Orders listed one by one in the report of those left out; beyond, they are counted by reason. */
const EXCLUDED_LISTED = 10;

/**
 * The report's lines: each order with its reason; or, for many (a day's export holds every order already
 * fulfilled, thousands of lines that would bury the rest), one line per reason with its count and first orders,
 * every order still listed under --verbose (and in --json, a line each).
 */
export function excludedLines(excluded: readonly ExcludedShipment[], all = false, shown = 5): string[] {
  if (all || excluded.length <= EXCLUDED_LISTED) return excluded.map((e) => `  ${e.reference} (row ${e.row}): ${e.reason}`);
  const byReason = new Map<string, ExcludedShipment[]>();
  for (const e of excluded) {
    const same = byReason.get(e.reason);
    if (same) same.push(e);
    else byReason.set(e.reason, [e]);
  }
  const lines = [...byReason].map(([reason, orders]) => {
    const named = orders.slice(0, shown).map((e) => `${e.reference} (row ${e.row})`).join(', ');
    const more = orders.length > shown ? ` and ${orders.length - shown} more` : '';
    return `  ${orders.length} ${orders.length === 1 ? 'order' : 'orders'}: ${reason}: ${named}${more}`;
  });
  return [...lines, '  (--verbose lists every order; --json gives each as a line with its reason)'];
}

/**
 * Where an API field path of a failed shipment points in the file: the shipment's first row for its own
 * fields, a parcel's first row for parcels.N.*, an item's own row for parcels.N.items.M.*, named by the
 * user's own column.
 */
export function locateField(r: Result, path: string, labelFor: (column: string) => string): { row?: number; column: string } {
  return locateApiPath(rowsOf(r), path, labelFor);
}

/** A task's rows and which parcel and item each made, as locateApiPath reads them. */
const rowsOf = (r: Result): ShipmentRows => ({ reference: r.task.key, rows: r.task.rows, rowParcels: r.task.input.rowParcels, itemRows: r.task.input.itemRows });

/** The API's field messages placed in the shipment's rows and the user's columns: "row N, column C: message; …". */
function placedFieldErrors(fields: Record<string, string[]>, where: Parameters<typeof locateApiPath>[0], labelFor: (column: string) => string): string {
  return Object.entries(fields)
    .map(([path, msgs]) => {
      const at = locateApiPath(where, path, labelFor);
      return `${at.row !== undefined ? `row ${at.row}, ` : ''}column ${at.column}: ${msgs.join(' ')}`;
    })
    .join('; ');
}

/** A failure in the user's terms: the API's field messages as "row N, column C: message". */
function failureText(r: Result, labelFor: (column: string) => string): string {
  const err = r.error;
  if (err instanceof ValidationError && Object.keys(err.fields).length) {
    return placedFieldErrors(err.fields, rowsOf(r), labelFor);
  }
  // The journal has it as an unknown outcome: the next run finds the shipment and writes its labels.
  if (err instanceof LabelsNotWritten) return `${err.message}; run the same command again to write it (the shipment is not created twice)`;
  return errorMessage(err);
}

/** The tracking references of a failed shipment that was created all the same (its labels could not be written). */
function createdDespiteFailure(r: Result): string[] {
  return r.error instanceof LabelsNotWritten ? r.error.created.tracking_references : [];
}

/** The --json line of one shipment (cli-contract.md). */
function jsonLine(r: Result, labelFor: (column: string) => string): Record<string, unknown> {
  const line: Record<string, unknown> = { row: r.task.rows[0], shipment_reference: r.task.key, status: r.status };
  if (r.result) {
    if (r.result.id) line.id = r.result.id;
    line.tracking_reference = r.result.tracking_reference ?? null;
    line.tracking_references = r.result.tracking_references;
    line.labels = r.result.labels;
    if (r.result.carrier) line.carrier = r.result.carrier;
    if (r.result.service) line.service = r.result.service;
    if (r.result.price) line.price = r.result.price;
    if (r.result.label_error) line.label_error = r.result.label_error;
  }
  if (r.status === 'skipped') line.reason = r.skipReason === 'exists' ? 'already exists' : 'created by an earlier run';
  if (r.changed) line.changed = true;
  if (r.status === 'failed') {
    line.error = failureText(r, labelFor);
    if (r.error instanceof ValidationError) line.fields = r.error.fields;
    else if (r.error && typeof r.error === 'object' && 'fields' in r.error) line.fields = (r.error as { fields?: unknown }).fields;
    if (r.unknownOutcome) line.unknown_outcome = true;
    const tracking = createdDespiteFailure(r);
    if (tracking.length) {
      line.created = true;
      line.tracking_reference = tracking[0];
      line.tracking_references = tracking;
    }
  }
  return line;
}

function textLine(ctx: Ctx, r: Result, labelFor: (column: string) => string): string {
  const res = r.result;
  const tracking = (res?.tracking_references ?? []).join(' ');
  if (ctx.io.stdoutIsTTY) {
    const c = ctx.out.c;
    if (r.status === 'failed') return `${c.red('✗')} ${r.task.key}: ${failureText(r, labelFor)}`;
    const verb = r.status === 'created' ? c.green('✓ created') : c.dim('- skipped');
    return `${verb} ${r.task.key}  ${tracking}${res?.labels.length ? `  ${res.labels.join(' ')}` : ''}`;
  }
  if (r.status === 'failed') return `failed\t${r.task.key}\t${createdDespiteFailure(r).join(' ')}\t${failureText(r, labelFor)}`;
  return `${r.status}\t${r.task.key}\t${tracking}\t${(res?.labels ?? []).join(';')}`;
}

/** The table at the end of a run at a terminal: label files by name (the summary says which directory). */
async function printTable(ctx: Ctx, rows: Result[]): Promise<void> {
  await ctx.out.table(rows, [
    { header: 'Row', value: (r) => r.task.rows[0], align: 'right' },
    { header: 'Shipment', value: (r) => r.task.key },
    { header: 'Status', value: (r) => r.status },
    { header: 'Parcels', value: (r) => r.task.input.parcels, align: 'right' },
    { header: 'Tracking', value: (r) => (r.result?.tracking_references ?? createdDespiteFailure(r)).join('\n') },
    { header: 'Labels / error', value: (r) => (r.status === 'failed' ? errorMessage(r.error) : (r.result?.labels ?? []).map((l) => basename(l)).join('\n')) },
  ]);
}
