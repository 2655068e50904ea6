// `ship skus import FILE.csv`: validate the whole file, then create (POST) or update (PATCH, or PUT with
// --replace) one SKU per row through the bulk runner: bounded concurrency, progress, journal and resume,
// FILE.failed.csv, JSON lines, exit 3 when some rows failed (1 when every one failed for the service: bulk/command.ts).
//
// Create or update? Each row's task first asks GET /skus/:sku (404 → create). Asking inside the task,
// rather than listing every SKU up front, keeps memory constant and the answer fresh; the cost is one
// GET per row, run with the same concurrency. If a POST still finds the SKU taken (someone created it
// between the GET and the POST), the row is updated instead.
import { createReadStream } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import type { Ctx } from '../../context.js';
import { InputError, NotFoundError, UsageError, ValidationError, type InputProblem } from '../../errors.js';
import { validateRequest, SkuPatchSchema, type SkuPatch, type SkuRequest } from '../../api/index.js';
import { csvEncodingFor, csvLayoutOf, readCsv, resolveCsvEncoding, writeBackWithBom, type CsvEncoding } from '../../csv/reader.js';
import { problemCount, refusalWithOtherProblems, sortFileProblems } from '../../csv/problems.js';
import { refuseTerminalPath, withoutBom } from '../../shipment-input/read.js';
import { accountReadSignal, unreadReason } from '../shared/account-read.js';
import { jsonSyntaxMessage } from '../../util/json-error.js';
import { isStreamPath, namesStdin } from '../../util/special-file.js';
import { copyToTempFile } from '../../util/temp-copy.js';
import { alreadyHas, CUSTOM_FIELD_PREFIX, parseSkuRow, type RowCell, type SkuRecord, type SkuWrite } from '../../skus/columns.js';
import { parseSkuMapping, resolveSkuHeader, type SkuBinding, type SkuMapping } from '../../skus/header.js';
import { closestName, valuesUnderNoHeader } from '../../csv/headers.js';
import { ruleBroken } from '../../csv/custom-field-rules.js';
import { unescapeFormula } from '../../skus/escape.js';
import type { CustomField } from '../../api/schemas.js';
import type { BulkResult, BulkTask } from '../../bulk/runner.js';

/** Options of `skus import`. */
export interface ImportOptions {
  file: string;
  map?: string;
  replace: boolean;
  dryRun: boolean;
  concurrency: number;
  failedPath?: string;
  yes: boolean;
  /** --encoding: the file's encoding (default: UTF-8, or Windows-1252 when the bytes are not UTF-8). */
  encoding?: string;
}

/** The summary a task stores in the journal and reports. */
export interface SkuImportResult {
  /** unchanged: the SKU already had every value of the row (nothing sent). */
  action: 'created' | 'updated' | 'unchanged';
  id?: string;
}

/** Most problems listed in one error; the rest are counted. */
const MAX_PROBLEMS = 200;

/** Reads --map FILE.json. */
async function loadMapping(path: string | undefined): Promise<SkuMapping | undefined> {
  if (!path) return undefined;
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (e) {
    throw new UsageError(`--map: cannot read ${path}: ${(e as Error).message}`);
  }
  const json = withoutBom(text);
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch (e) {
    throw new InputError(`--map ${path} is not valid JSON`, [{ column: '--map', message: await jsonSyntaxMessage(e, json) }]);
  }
  try {
    return parseSkuMapping(parsed);
  } catch (e) {
    throw new InputError(`--map ${path} is not a usable mapping`, [{ column: '--map', message: (e as Error).message }]);
  }
}

/** One validated row, ready to send. */
interface RowTask {
  request: SkuWrite;
}

/** The cells of a record under the header's bindings. */
function cellsOf(bindings: readonly SkuBinding[], values: readonly string[]): RowCell[] {
  const cells: RowCell[] = [];
  for (const b of bindings) if (b.column !== null) cells.push({ column: b.column, header: b.label, value: values[b.index] ?? '' });
  return cells;
}

/** Parses and checks one data row: cell rules, then the API's own request rules, each naming the user's column. */
function checkRow(bindings: readonly SkuBinding[], values: readonly string[], row: number, decimalComma: boolean): { sku: string; request: SkuWrite; problems: InputProblem[] } {
  const parsed = parseSkuRow(cellsOf(bindings, values), row, { decimalComma });
  // Cells that could not be read are left out of the request, so the API's rules check every other cell.
  const checked = validateRequest(SkuPatchSchema, parsed.request);
  if (checked.ok) return parsed;
  const labelOf = (path: string) => {
    const b = bindings.find((x) => x.column === path) ?? bindings.find((x) => x.column === path.split('.')[0]);
    return b?.label ?? path;
  };
  const reported = new Set(parsed.problems.map((p) => p.column));
  const more = checked.issues
    .map((i) => ({ row, column: labelOf(i.path), message: `${i.path} ${i.message}` }))
    .filter((p) => !reported.has(p.column));
  return { ...parsed, problems: [...parsed.problems, ...more] };
}

const isBlank = (values: readonly string[]) => values.every((v) => v.trim() === '');

/** A number a spreadsheet wrote in scientific notation (5.01235E+12; always with the +, so a code like 2E10 is not one). */
const SCIENTIFIC = /^\s*\d(?:[.,]\d+)?E\+\d+\s*$/i;

/** Code columns a spreadsheet turns into numbers: a barcode or tariff code in scientific notation has lost its digits. */
const CODE_COLUMNS = new Set(['sku', 'outer_barcode', 'inner_barcode', 'product_code', 'tariff_code', 'part_number']);

/** Rows of each code column whose value a spreadsheet wrote in scientific notation, said once per column (warned, not refused). */
function scientificWarnings(found: Map<string, { rows: number[]; example: string }>): string[] {
  return [...found].map(([label, { rows, example }]) => {
    const shown = rows.slice(0, 10).join(', ') + (rows.length > 10 ? ` and ${rows.length - 10} more` : '');
    return (
      `column ${label}, row${rows.length === 1 ? '' : 's'} ${shown}: "${example}" is a number a spreadsheet wrote in scientific notation, ` +
      'its digits are lost (format the column as text and export again); sent as it is'
    );
  });
}

/**
 * Reads the whole file once and returns its header and number of SKU rows, or throws an InputError listing
 * every problem by row (row and column in each), rows with bytes invalid in its encoding among them. Nothing is
 * sent.
 */
export async function validateSkuFile(
  ctx: Ctx,
  file: string,
  mapping?: SkuMapping,
  /** The name to show (stdin is read from a temporary copy). */
  shown = file,
  /** How to decode the file (detected when absent). */
  encoding?: string | CsvEncoding,
): Promise<{ header: string[]; bindings: SkuBinding[]; rows: number; decimalComma: boolean }> {
  // Bytes invalid in the encoding are listed with the file's other problems, not thrown before them.
  const readAs = await resolveCsvEncoding({ path: file }, encoding, shown);
  // A file separated by ';' or tabs takes amounts with a decimal comma (12,50), as create --csv does.
  const decimalComma = (await csvLayoutOf(file, readAs.encoding)).delimiter !== ',';
  const problems: InputProblem[] = [];
  let more = 0;
  // Rows with problems, those past MAX_PROBLEMS too: counted as the row changes, since problems come in file order.
  let problemRows = 0;
  let lastProblemRow: number | undefined;
  const push = (p: InputProblem) => {
    if (p.row !== undefined && p.row !== lastProblemRow) {
      problemRows++;
      lastProblemRow = p.row;
    }
    return problems.length < MAX_PROBLEMS ? problems.push(p) : more++;
  };
  let header: string[] | undefined;
  let bindings: SkuBinding[] = [];
  const seen = new Map<string, number>();
  let rows = 0;
  // A value under a blank header (or past the last one) would otherwise be dropped without a word.
  let checkUnheaded: ReturnType<typeof valuesUnderNoHeader> = () => undefined;
  const unheaded: InputProblem[] = [];
  const scientific = new Map<string, { rows: number[]; example: string }>();
  // A row whose quoting is broken is listed with the rest, and the read goes on past it.
  for await (const rec of readCsv({ path: file }, { encoding: readAs, trim: 'unquoted', malformed: 'report', badBytes: 'report' })) {
    const broken = rec.malformed;
    if (broken) {
      broken.problems.forEach(push);
      // Cut short (a quote never closed, or a row the reader could not get past): nothing more to read in it.
      if (!broken.complete) {
        if (!header) header = [];
        continue;
      }
    }
    if (!header) {
      header = rec.values;
      const resolved = resolveSkuHeader(header, mapping);
      bindings = resolved.bindings;
      checkUnheaded = valuesUnderNoHeader(header);
      for (const w of resolved.warnings) ctx.out.warn(w);
      resolved.problems.forEach(push);
      continue;
    }
    ctx.signal?.throwIfAborted();
    if (isBlank(rec.values)) continue;
    rows++;
    // Of a broken row, the other cells are checked; the broken one was said to be broken.
    const brokenColumns = broken ? new Set(broken.problems.map((p) => p.column)) : undefined;
    const pushOther = brokenColumns ? (p: InputProblem) => void (brokenColumns.has(p.column) || push(p)) : push;
    checkUnheaded(rec, unheaded);
    unheaded.splice(0).forEach(pushOther);
    const r = checkRow(bindings, rec.values, rec.row, decimalComma);
    r.problems.forEach(pushOther);
    for (const b of bindings) {
      const v = rec.values[b.index];
      if (b.column === null || !CODE_COLUMNS.has(b.column) || v === undefined || !SCIENTIFIC.test(v)) continue;
      const seen = scientific.get(b.label);
      if (seen) seen.rows.push(rec.row);
      else scientific.set(b.label, { rows: [rec.row], example: v.trim() });
    }
    if (r.sku) {
      const first = seen.get(r.sku);
      if (first !== undefined) {
        const col = bindings.find((b) => b.column === 'sku')?.label ?? 'sku';
        push({ row: rec.row, column: col, message: `SKU ${r.sku} is already on row ${first}; give each SKU one row` });
      } else seen.set(r.sku, rec.row);
    }
  }
  for (const w of scientificWarnings(scientific)) ctx.out.warn(w);
  if (!header) throw new InputError(`${shown} is empty`, [{ row: 1, message: 'the file needs a header row (and a row per SKU under it)' }]);
  if (problems.length) {
    sortFileProblems(problems, header);
    if (more) problems.push({ message: `… and ${more} more problems` });
    const n = problems.length - (more ? 1 : 0) + more;
    const hint = 'fix the file (or rename columns with --map FILE.json) and run again; --dry-run checks without sending';
    if (readAs.refused) throw refusalWithOtherProblems(readAs.refused, problems, problemCount(n, problemRows), hint);
    const message = `${shown}: ${n} problem${n === 1 ? '' : 's'} found; nothing was sent`;
    // Its custom field cells can still be checked against the account (importFile), unless the list is full.
    throw more ? new InputError(message, problems, { hint }) : new SkuFileProblems(message, problems, hint, header, bindings);
  }
  return { header, bindings, rows, decimalComma };
}

/** A SKU file's own problems (validateSkuFile), with what it takes to check its custom field cells as well. */
class SkuFileProblems extends InputError {
  constructor(
    message: string,
    problems: InputProblem[],
    hint: string,
    readonly header: string[],
    readonly bindings: SkuBinding[],
  ) {
    super(message, problems, { hint });
  }
}

/**
 * validateSkuFile, and when the file has problems of its own, its custom field cells checked against the account
 * as well (as a dry run reads it: a short wait, nothing said when it cannot be read), so one run reports every
 * problem instead of the account's only once the file's own are fixed.
 */
async function validateReportingAll(ctx: Ctx, path: string, mapping: SkuMapping | undefined, shown: string, encoding: string | CsvEncoding): ReturnType<typeof validateSkuFile> {
  try {
    return await validateSkuFile(ctx, path, mapping, shown, encoding);
  } catch (e) {
    if (!(e instanceof SkuFileProblems)) throw e;
    const found = await customFieldProblems(ctx, path, e.bindings, encoding, { dryRun: true, quiet: true });
    if (!found?.problems.length) throw e;
    const seen = new Set(e.problems.map((p) => `${p.row}\u0000${p.column}`));
    const problems = [...e.problems, ...found.problems.filter((p) => !seen.has(`${p.row}\u0000${p.column}`))];
    sortFileProblems(problems, e.header);
    const more = found.more ? [{ message: `… and ${found.more} more problems` }] : [];
    const n = problems.length + found.more;
    throw new InputError(`${shown}: ${n} problem${n === 1 ? '' : 's'} found; nothing was sent`, [...problems, ...more], {
      hint: `${e.hint}; \`ship custom-fields\` lists the account's fields and their rules`,
    });
  }
}

/**
 * The custom field cells of the file checked against the account's SKU custom fields (GET /custom-fields): a
 * `custom_fields.KEY` column whose key the account has no SKU field for (a typo, usually), and values the
 * field's rules refuse (lengths, LIST choices, numbers), each at its row and column. Throws an InputError
 * listing them, so nothing is sent. When the definitions cannot be read the API still checks each row: a real
 * run goes on silently, a dry run says what it could not check. Reads the file once more, only when it has
 * custom field columns.
 */
async function checkCustomFields(
  ctx: Ctx,
  file: string,
  shown: string,
  bindings: readonly SkuBinding[],
  encoding: string | CsvEncoding,
  opts: { dryRun: boolean },
): Promise<void> {
  const found = await customFieldProblems(ctx, file, bindings, encoding, { ...opts, quiet: false });
  if (!found) return;
  const { problems, more } = found;
  if (more) problems.push({ message: `… and ${more} more problems` });
  const n = problems.length - (more ? 1 : 0) + more;
  throw new InputError(`${shown}: ${n} custom field problem${n === 1 ? '' : 's'} the service would refuse; nothing was sent`, problems, {
    hint: "fix the file and run again; `ship custom-fields` lists the account's fields and their rules",
  });
}

/** checkCustomFields' problems (MAX_PROBLEMS at most, `more` counting the others), or undefined for none or unread. */
async function customFieldProblems(
  ctx: Ctx,
  file: string,
  bindings: readonly SkuBinding[],
  encoding: string | CsvEncoding,
  opts: { dryRun: boolean; quiet: boolean },
): Promise<{ problems: InputProblem[]; more: number } | undefined> {
  const columns = bindings.filter((b) => b.column?.startsWith(CUSTOM_FIELD_PREFIX));
  if (!columns.length) return;
  let defs: CustomField[];
  try {
    const api = await ctx.api();
    defs = await api.customFields.list({ signal: accountReadSignal(ctx, opts.dryRun) });
  } catch (e) {
    if (ctx.signal.aborted) throw e; // Ctrl-C while asking: stop, as anywhere else
    if (opts.dryRun && !opts.quiet) ctx.out.warn(`custom fields not checked against the account, which could not be read (${unreadReason(e)}); the service checks them when the SKUs are sent`);
    return;
  }
  const skuDefs = new Map(defs.filter((d) => (d.entity ?? '').toUpperCase() === 'SKU').map((d) => [d.key, d]));
  const problems: InputProblem[] = [];
  let more = 0;
  const push = (p: InputProblem) => (problems.length < MAX_PROBLEMS ? problems.push(p) : more++);
  const checked: Array<{ index: number; label: string; def: CustomField }> = [];
  // Columns of keys the account does not have, with the first row that gives one a value (a column left blank
  // throughout sends nothing, so it is no problem: an old export may keep the column of a field deleted since).
  const unknown: Array<{ index: number; label: string; key: string; row?: number }> = [];
  for (const b of columns) {
    const key = b.column!.slice(CUSTOM_FIELD_PREFIX.length);
    const def = skuDefs.get(key);
    if (def) checked.push({ index: b.index, label: b.label, def });
    else unknown.push({ index: b.index, label: b.label, key });
  }
  let first = true;
  for await (const rec of readCsv({ path: file }, { encoding, trim: 'unquoted' })) {
    if (first) {
      first = false;
      continue;
    }
    for (const u of unknown) if (u.row === undefined && (rec.values[u.index] ?? '') !== '') u.row = rec.row;
    for (const c of checked) {
      const raw = rec.values[c.index] ?? '';
      if (raw === '') continue; // blank: not sent
      const broken = ruleBroken(c.def, unescapeFormula(raw));
      if (broken !== undefined) push({ row: rec.row, column: c.label, message: broken });
    }
  }
  const known = [...skuDefs.keys()];
  // Named first: one wrong header explains more than the values under it.
  for (const u of unknown.reverse()) {
    if (u.row === undefined) continue;
    const near = closestName(u.key, known);
    problems.unshift({
      row: u.row,
      column: u.label,
      message:
        `the account has no SKU custom field "${u.key}"` +
        (near ? `; did you mean ${CUSTOM_FIELD_PREFIX}${near}?` : known.length ? ` (its SKU custom fields: ${known.join(', ')})` : ' (it has no SKU custom fields)'),
    });
  }
  return problems.length ? { problems, more } : undefined;
}

/** The tasks of the run, read from the file a second time (constant memory; it was validated just before). */
async function* readTasks(file: string, bindings: readonly SkuBinding[], encoding: string | CsvEncoding, decimalComma: boolean): AsyncGenerator<BulkTask<RowTask>> {
  let first = true;
  for await (const rec of readCsv({ path: file }, { encoding, trim: 'unquoted' })) {
    if (first) {
      first = false;
      continue;
    }
    if (isBlank(rec.values)) continue;
    const r = checkRow(bindings, rec.values, rec.row, decimalComma);
    if (r.problems.length) {
      // The file changed since it was validated; refusing beats sending half a row.
      throw new InputError(`${file} changed while it was being imported`, r.problems);
    }
    yield { key: r.sku, rows: [rec.row], records: [rec.values], input: { request: r.request } };
  }
}

/** A 400 on POST that means the SKU exists already (created since our GET). */
function alreadyTaken(err: unknown): boolean {
  return err instanceof ValidationError && /already (been )?taken|already exists/i.test((err.fields.sku ?? []).join(' ') + ' ' + err.message);
}

function idOf(v: unknown): string | undefined {
  const id = v && typeof v === 'object' ? (v as { id?: unknown }).id : undefined;
  return typeof id === 'string' ? id : undefined;
}

/** Imports the file. */
export async function runImport(ctx: Ctx, opts: ImportOptions): Promise<void> {
  // A pipe given by its path (`<(…)`, /dev/stdin) is read once like stdin, and nothing is written beside it.
  const streamed = isStreamPath(opts.file);
  if (opts.file !== '-' && !streamed) return importFile(ctx, opts, opts.file);
  const fromPath = opts.file !== '-' && !namesStdin(opts.file);
  if (fromPath) await refuseTerminalPath(opts.file, 'skus import');
  // The file is read twice (validation, then the run), so stdin is kept in a temporary file first.
  // Ctrl-C (or SIGTERM) stops through ctx.signal rather than exiting on the spot, so the copy (the whole file's
  // data) is removed from the temporary directory before the exit 130.
  const releaseInterrupts = ctx.holdInterrupts();
  let copy: Awaited<ReturnType<typeof copyToTempFile>> | undefined;
  try {
    copy = await copyToTempFile(fromPath ? createReadStream(opts.file) : ctx.io.stdin, { prefix: 'ship-skus-stdin-', signal: ctx.signal });
    await importFile(ctx, opts, copy.path, true);
  } finally {
    await copy?.remove();
    releaseInterrupts();
  }
}

async function importFile(ctx: Ctx, opts: ImportOptions, path: string, streamed = false): Promise<void> {
  const mapping = await loadMapping(opts.map);
  const { encoding, warning } = await csvEncodingFor(path, opts.encoding, opts.file === '-' ? 'stdin' : opts.file);
  if (warning) ctx.out.warn(warning);
  const { header, bindings, rows, decimalComma } = await validateReportingAll(ctx, path, mapping, opts.file, encoding);
  if (rows === 0) {
    // Only a header (a quiet day's export): nothing to do, as for create --csv.
    if (ctx.mode.json && opts.dryRun) ctx.out.json({ dry_run: true, file: opts.file, rows: 0, valid: true });
    ctx.out.info(`${opts.file === '-' ? 'stdin' : opts.file} has no SKU rows (only a header): nothing to do`);
    return;
  }

  if (opts.dryRun) {
    // The account's custom fields too, when they can be read.
    await checkCustomFields(ctx, path, opts.file, bindings, encoding, { dryRun: true });
    if (ctx.mode.json) ctx.out.json({ dry_run: true, file: opts.file, rows, valid: true });
    else ctx.out.success(`${opts.file}: ${rows} SKU row${rows === 1 ? '' : 's'} valid; nothing sent (--dry-run)`);
    return;
  }

  const api = await ctx.api();
  // The whole file is checked before anything is sent: its custom field columns and values too, by the account's fields.
  await checkCustomFields(ctx, path, opts.file, bindings, encoding, { dryRun: false });
  if (opts.replace) {
    const { confirmReplace } = await import('./confirm.js');
    const question = `Replace existing SKUs with the ${rows} rows of ${opts.file}? Attributes missing from the file are reset.`;
    if (!(await confirmReplace(ctx, { yes: Boolean(opts.yes), what: 'existing SKUs', question }))) {
      ctx.out.info('Nothing imported.');
      return;
    }
  }
  const { runBulkCommand } = await import('../../bulk/command.js');
  const { failedCsvPathFor } = await import('../../bulk/csv-out.js');
  const { journalPathFor } = await import('../../bulk/journal.js');
  const { errorMessage } = await import('../../bulk/runner.js');
  // Keyed by the base URL and API key too: an interrupted run against the test service, or in another account,
  // must not make a run of the same file skip the rows it did.
  const settings = await ctx.settings();
  const scope = { baseUrl: settings.baseUrl.value, apiKey: settings.apiKey?.value };
  const journalPath = streamed ? undefined : journalPathFor(dirname(resolve(opts.file)), `${resolve(opts.file)}.skus`, scope);

  const statusOf = (r: BulkResult<RowTask, SkuImportResult>): string => (r.status === 'created' ? (r.result?.action ?? 'created') : r.status);
  // The API's field messages in the file's terms: its row and its own column (the header as written, or as --map
  // named it), as the checks before sending name them.
  const labelOf = new Map(bindings.flatMap((b) => (b.column ? [[b.column, b.label] as const] : [])));
  const failureText = (r: BulkResult<RowTask, SkuImportResult>): string => {
    const err = r.error;
    if (!(err instanceof ValidationError) || Object.keys(err.fields).length === 0) return errorMessage(err);
    return Object.entries(err.fields)
      .map(([field, msgs]) => `row ${r.task.rows[0]}, column ${labelOf.get(field) ?? field}: ${msgs.join(' ')}`)
      .join('; ');
  };

  const summary = await runBulkCommand<RowTask, SkuImportResult>(ctx, {
    noun: 'SKUs',
    // Created, updated or unchanged (the summary splits them): the bar counts them together.
    createdWord: 'imported',
    tasks: readTasks(path, bindings, encoding, decimalComma),
    total: rows,
    concurrency: opts.concurrency,
    journalPath,
    failedCsv: { path: opts.failedPath ?? failedCsvPathFor(streamed ? '-' : opts.file), header, bom: writeBackWithBom(encoding) },
    hooks: {
      // GET first, so a repeat after an unknown outcome finds what the lost attempt did and updates it.
      idempotent: true,
      fingerprint: (t) => JSON.stringify([opts.replace ? 'PUT' : 'PATCH', t.input.request]),
      // A row edited since an interrupted run imported it: its new values are sent (the write is an upsert).
      redoChanged: true,
      async execute(task, signal) {
        const { request } = task.input;
        let exists = true;
        let current: unknown;
        try {
          current = await api.skus.get(task.key, { signal });
        } catch (err) {
          if (!(err instanceof NotFoundError)) throw err;
          exists = false;
        }
        // An exported row imported unedited: nothing to send (a PUT would still reset what the row leaves out).
        if (exists && !opts.replace && current && typeof current === 'object' && alreadyHas(current as SkuRecord, request as SkuWrite)) {
          return { action: 'unchanged', id: idOf(current) };
        }
        if (!exists) {
          try {
            const created = await api.skus.create(request as SkuRequest, { signal, callerRetries: true });
            return { action: 'created', id: idOf(created) };
          } catch (err) {
            if (!alreadyTaken(err)) throw err;
          }
        }
        const updated = opts.replace
          ? await api.skus.replace(task.key, request as SkuRequest, { signal })
          : await api.skus.update(task.key, request as SkuPatch, { signal });
        return { action: 'updated', id: idOf(updated) };
      },
      // The summary (text and JSON) counts updates apart from creations.
      statusOf: (result) => result.action ?? 'created',
    },
    statuses: ['created', 'updated', 'unchanged'],
    jsonLine: (r) => {
      const line: Record<string, unknown> = { row: r.task.rows[0], sku: r.task.key, status: statusOf(r) };
      if (r.result?.id) line.id = r.result.id;
      if (r.status === 'skipped') {
        line.reason = r.skipReason === 'journal' ? 'done by an earlier run' : 'exists';
        if (r.result?.action) line.previous = r.result.action;
        if (r.changed) line.changed = true;
      }
      if (r.status === 'failed') {
        line.error = failureText(r);
        if (r.error instanceof ValidationError) line.fields = r.error.fields;
        if (r.unknownOutcome) line.unknown_outcome = true;
      }
      return line;
    },
    textLine: (r) => [statusOf(r), r.task.key, `row ${r.task.rows[0]}`, r.status === 'failed' ? failureText(r) : (r.result?.id ?? '')].join('\t'),
    errorText: failureText,
    summaryNotes: (s) => [
      ...(s.byStatus.updated ? [`  updates sent with ${opts.replace ? 'PUT (every attribute replaced)' : 'PATCH (blank cells left unchanged)'}`] : []),
      ...(s.skipped ? ['  skipped rows were done by an earlier, interrupted run of this import'] : []),
    ],
  });

  // A finished run needs no resume point; without this a later import of an edited file would skip its rows.
  if (journalPath && !summary.interrupted && summary.failed === 0) {
    await rm(journalPath, { force: true });
  }
}
