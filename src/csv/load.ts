// Reads a whole CSV (streamed), groups it into shipments, builds each request body and validates it against the
// API's rules — all before anything is sent. Every problem is collected, located by row and the user's column.
import { InputError, type InputProblem } from '../errors.js';
import { buildShipment, type Defaults, type ShipmentBody } from '../shipment-input/build.js';
import type { ShipmentDraft } from '../shipment-input/draft.js';
import { bodyWarnings, type RequestIssue } from '../shipment-input/validate.js';
import { applyCustoms, type CustomsTable } from './customs.js';
import { groupingReference, ShipmentGrouper } from './group.js';
import type { BoundLayout, Layout } from './presets/index.js';
import { byRow, problemCount, refusalWithOtherProblems, sortFileProblems } from './problems.js';
import { csvLayoutOf, readCsvBatches, resolveCsvEncoding, type CsvEncoding, type CsvRecord, type CsvSource, type Sniffed } from './reader.js';

/** A shipment that passed validation: its request body and the rows it came from. */
export interface PreparedShipment {
  reference: string;
  /** First row of the shipment (what JSON lines report as `row`). */
  row: number;
  rows: number[];
  body: ShipmentBody;
  parcels: number;
  items: number;
  /** For each of `rows`: the 0-based parcel it belongs to, or -1 (a row that made no parcel). */
  rowParcels: number[];
  /** Per parcel, the row of each of its items in order (omitted when no parcel has items): API item paths name their own row. */
  itemRows?: number[][];
}

/** A validated shipment kept as its JSON text (a third of the memory of the object; parsed again to send). */
export interface CompactShipment extends Omit<PreparedShipment, 'body'> {
  json: string;
  /**
   * `json` is the validator's normalised output (validateShipmentRequest's value), not the built body: it can
   * be sent as it is (`prevalidated`), without validating it a second time.
   */
  validated?: boolean;
}

/** A shipment a preset left out on purpose (e.g. a Shopify order without a shipping address). */
export interface ExcludedShipment {
  reference: string;
  row: number;
  rows: number[];
  reason: string;
  /** Left out for want of data the user can give (customs details), not by design (Finalized.excludeNeedsData). */
  needsData?: boolean;
}

/**
 * The distinct values a file gives for what the account itself defines (checked against it before sending):
 * delivery service keys, packaging type keys, brands.
 */
export interface AccountRefs {
  services: Set<string>;
  packaging: Set<string>;
  brands: Set<string>;
}

/**
 * A file's own problems (InputError), with its shipments that have none: a caller can check those against the
 * account too and report every problem at once, not the account's only once the file's own are fixed.
 */
export class FileProblems extends InputError {
  constructor(
    message: string,
    problems: InputProblem[],
    options: { hint?: string } | undefined,
    readonly valid: Pick<LoadedCsv, 'header' | 'labelFor' | 'hasCustomFields' | 'accountRefs'> & {
      /** The file's name in messages. */
      name: string;
      /** The shipments without problems (as JSON text when the load kept them so). */
      shipments: () => Iterable<PreparedShipment | CompactShipment> | AsyncIterable<PreparedShipment | CompactShipment>;
    },
  ) {
    super(message, problems, options);
  }
}

/** Everything known about a file once it is validated. */
export interface LoadedCsv {
  header: string[];
  /** The validated shipments, in the order they first appear (with `keep: true`, the default). */
  shipments: PreparedShipment[];
  /** The same as JSON text (with `keep: 'json'`): what a bulk run sends, held compactly. */
  compact: CompactShipment[];
  /** How many shipments, parcels and items passed validation (also with `keep: false`). */
  counts: { shipments: number; parcels: number; items: number };
  excluded: ExcludedShipment[];
  warnings: InputProblem[];
  notes: string[];
  /** Some shipment has custom field values (checked by the account's rules before anything is sent). */
  hasCustomFields: boolean;
  /** The account's settings the file names (checked against the account before anything is sent). */
  accountRefs: AccountRefs;
  /** Data rows read (blank lines excluded). */
  rowCount: number;
  /** How the file's bytes were read (`guessed`: not UTF-8, read as Windows-1252; the caller says so). */
  encoding: CsvEncoding;
  /** The user's name for a contract column in this file (their header, the preset's column, or the contract name). */
  labelFor(column: string): string;
  /**
   * Reads the file again, row by row, with each row's shipment reference: FILE.failed.csv and --results are
   * written this way, so the rows themselves never have to be held in memory. Files only (not stdin).
   */
  eachRecord(fn: (rec: CsvRecord, shipmentReference: string | undefined) => void | Promise<void>): Promise<void>;
  /** Its delimiter and whether it starts with a `sep=` line, for files written back from it in the same way. */
  rowLayout: Sniffed;
  /**
   * Reads the (already validated) file again and yields each shipment's request body as soon as its last row
   * is read — the same bodies, without holding them all: a bulk run streams its tasks from here.
   */
  stream(): AsyncGenerator<PreparedShipment>;
}

/** Options of loadCsv. */
export interface LoadCsvOptions {
  source: CsvSource;
  layout: Layout;
  /** Fills blank columns (e.g. --default-weight, --service); the Origin names the flag. */
  defaults?: Defaults;
  /**
   * The API's request rules (validateShipmentRequest), as a list of issues with dotted paths; or the issues
   * and, for a valid body, the normalised body the validator made of it (kept instead of the built body).
   */
  validate?: (body: ShipmentBody) => RequestIssue[] | { issues: RequestIssue[]; value?: ShipmentBody };
  delimiter?: string;
  /** --customs: the customs details of products, for items leaving mainland UK (src/csv/customs.ts). */
  customs?: CustomsTable;
  /**
   * Amounts may be written with a decimal comma (12,50): set by loadCsv for a file separated by ';' or tabs,
   * as spreadsheets write where the comma is the decimal mark (in a comma-separated file, 12,50 is refused).
   */
  decimalComma?: boolean;
  /** The file's encoding (--encoding, checked); detected once from the file when absent. */
  encoding?: string | CsvEncoding;
  /** Display name of the file in messages. */
  name?: string;
  /** Today as YYYY-MM-DD (the injected clock's local day): a despatch_date before it is warned about. */
  today?: string;
  /** Only this shipment_reference is built and validated (quote picks one shipment of a file). */
  only?: string;
  /**
   * Keep the validated bodies: as objects in `shipments` (true, the default), as JSON text in `compact`
   * ('json': a bulk run's choice), or not at all (false: stream() builds them again from the file).
   */
  keep?: boolean | 'json';
  /**
   * How much of a file (characters of its cells) the first pass may keep so that the second need not read it
   * again (default ~6 million, ~15 MB of memory); beyond it, or at 0, the file is read twice.
   */
  keepRecordsLimit?: number;
  /**
   * Told how far the work is, about every batch of records: rows read (pass 1), then rows checked out of
   * `total` (pass 2). With it, the checking pass also lets the event loop turn every ~100 ms (a spinner can
   * draw); without it, nothing changes.
   */
  onProgress?: (p: LoadProgress) => void;
}

/** How far loadCsv is (see LoadCsvOptions.onProgress). */
export interface LoadProgress {
  phase: 'reading' | 'checking';
  rows: number;
  /** Data rows of the file (known once it was read). */
  total?: number;
}

function rowParcels(draft: ShipmentDraft): number[] {
  const of = new Map<number, number>();
  draft.parcels.forEach((p, i) => {
    for (const r of p.rows ?? (p.firstRow !== undefined ? [p.firstRow] : [])) of.set(r, i);
  });
  return draft.rows.map((r) => of.get(r) ?? -1);
}

/** Per parcel, the rows its items came from; undefined when the shipment has no items (nothing to hold). */
function itemRows(draft: ShipmentDraft): number[][] | undefined {
  if (!draft.parcels.some((p) => p.items.length)) return undefined;
  return draft.parcels.map((p) => p.items.map((it) => it.row ?? p.firstRow ?? draft.firstRow ?? 0));
}

const withItemRows = (rows: number[][] | undefined) => (rows ? { itemRows: rows } : {});

/**
 * A validated shipment as a bulk run keeps it until it is sent: its JSON text — what the validator made of the
 * body when given (a request then carries it as it is, not validated again), else the built body — and its rows.
 * Built field by field, not with `{ body, ...rest }` and a spread: on Node 20 (V8 11) objects made that way
 * each got a hidden class of their own (a Map, a DescriptorArray and a PropertyArray, ~400 bytes a shipment:
 * 20 MB of a 50,000-row file); and `rows`, grown by push, is copied to its exact length (~130 bytes less).
 */
function compactOf(s: PreparedShipment, normalised: ShipmentBody | undefined): CompactShipment {
  return {
    reference: s.reference,
    row: s.row,
    rows: s.rows.slice(),
    parcels: s.parcels,
    items: s.items,
    rowParcels: s.rowParcels,
    itemRows: s.itemRows,
    json: flat(JSON.stringify(normalised ?? s.body)),
    validated: normalised !== undefined,
  };
}

/**
 * The same string, flattened in place. JSON.stringify on Node 20 (V8 11) returns its output as a tree of pieces
 * (32, 64, 128… characters) joined by rope nodes, ~200 bytes more than the text for a 600-character body; held for every
 * shipment of a large file until it is sent, that adds up. Converting a string to a number makes V8 flatten it
 * where it is (the trick `flatstr` and pino use); the number itself is not needed.
 */
function flat(s: string): string {
  Number(s);
  return s;
}

/** The cells of rows whose quoting is broken, and the problems that say so (filled by walk). */
interface MalformedCells {
  problems: Set<InputProblem>;
  /** cellKey of each: another problem of the same cell is about what the parser made of the broken quoting. */
  cells: Set<string>;
}

const cellKey = (p: InputProblem) => `${p.row}\u0000${p.column}`;

/**
 * Opens the file: its header, and the data records in batches (readCsvBatches); throws InputError for an
 * empty file.
 */
async function openRecords(
  opts: LoadCsvOptions,
  name: string,
  malformed: 'throw' | 'report' = 'throw',
): Promise<{ records: AsyncGenerator<CsvRecord[]>; header: string[]; headerProblems: InputProblem[] }> {
  const batches = readCsvBatches(opts.source, { delimiter: opts.delimiter, encoding: opts.encoding, malformed, badBytes: malformed });
  let first = await batches.next();
  while (!first.done && first.value.length === 0) first = await batches.next();
  if (first.done) throw new InputError(`${name} is empty: a header row is required`, [{ row: 1, message: 'missing header row' }]);
  const [head, ...rest] = first.value;
  if (head.malformed && !head.malformed.complete) {
    // Nothing after a header cut short was read: its columns, and every row, are unknown.
    await batches.return(undefined);
    throw new InputError(`${name} is not a readable CSV file`, head.malformed.problems);
  }
  async function* records(): AsyncGenerator<CsvRecord[]> {
    if (rest.length) yield rest;
    yield* batches;
  }
  const it = records();
  // Closing the records early (an error, `only`) closes the file too.
  const close = it.return.bind(it);
  it.return = async (v) => {
    await batches.return(undefined);
    return close(v);
  };
  return { records: it, header: head.values, headerProblems: head.malformed?.problems ?? [] };
}

/** What finishing one shipment gave: a body, or a preset's exclusion, plus any problems and warnings. */
type Finished =
  | { kind: 'shipment'; shipment: PreparedShipment; normalised?: ShipmentBody; problems: InputProblem[]; warnings: InputProblem[] }
  | { kind: 'excluded'; excluded: ExcludedShipment; warnings: InputProblem[] }
  | { kind: 'invalid'; reference: string; rows: number[]; problems: InputProblem[]; warnings: InputProblem[]; accountPart: PreparedShipment };

/** Builds (and, when asked, validates) one complete shipment draft. */
function finishDraft(draft: ShipmentDraft, layout: BoundLayout, opts: LoadCsvOptions, validate: boolean): Finished {
  if (opts.customs) {
    applyCustoms(draft, opts.customs);
    // A preset's message about missing customs data can then name the table.
    draft.meta.set('customsTable', opts.customs.name);
  }
  const fin = layout.finalize?.(draft) ?? {};
  const warnings = fin.warnings ? [...fin.warnings] : [];
  if (fin.exclude) {
    const excluded: ExcludedShipment = { reference: draft.reference, row: draft.firstRow ?? 0, rows: draft.rows, reason: fin.exclude };
    if (fin.excludeNeedsData) excluded.needsData = true;
    return { kind: 'excluded', excluded, warnings };
  }
  const built = buildShipment(draft, { labelFor: layout.labelFor, defaults: opts.defaults, decimalComma: opts.decimalComma });
  const problems = built.problems;
  let normalised: ShipmentBody | undefined;
  if (validate) {
    const checked = opts.validate?.(built.body) ?? [];
    const issues = Array.isArray(checked) ? checked : checked.issues;
    if (!Array.isArray(checked) && checked.issues.length === 0) normalised = checked.value;
    if (issues.length) {
      const seen = new Set(problems.map((p) => `${p.row}\u0000${p.column}`));
      for (const issue of issues) {
        const at = built.locate(issue.path);
        const key = `${at.row}\u0000${at.column}`;
        if (seen.has(key)) continue; // our own message for this cell is the more precise one
        seen.add(key);
        problems.push({ ...(at.row !== undefined ? { row: at.row } : {}), ...(at.column ? { column: at.column } : {}), message: issue.message });
      }
    }
    for (const w of bodyWarnings(built.body, opts.today)) {
      const at = built.locate(w.path);
      warnings.push({ row: at.row, column: at.column, message: w.message });
    }
  }
  if (problems.length) {
    // What the account check reads of it, so that its values the account refuses are listed with its own problems.
    const accountPart: PreparedShipment = {
      reference: draft.reference,
      row: draft.firstRow ?? 0,
      rows: draft.rows,
      body: accountPartOf(built.body),
      parcels: built.parcels,
      items: built.items,
      rowParcels: rowParcels(draft),
      ...withItemRows(itemRows(draft)),
    };
    return { kind: 'invalid', reference: draft.reference, rows: draft.rows, problems, warnings, accountPart };
  }
  return {
    kind: 'shipment',
    shipment: {
      reference: draft.reference,
      row: draft.firstRow ?? 0,
      rows: draft.rows,
      body: built.body,
      parcels: built.parcels,
      items: built.items,
      rowParcels: rowParcels(draft),
      ...withItemRows(itemRows(draft)),
    },
    normalised,
    problems,
    warnings,
  };
}

/**
 * Groups the records into shipments and finishes each one as soon as its last row has been read (when
 * `lastRow` is known), otherwise at the end. Row-level problems (grouping, consistency) go to `rowProblems`.
 */
async function* walk(
  records: AsyncIterable<CsvRecord[]>,
  layout: BoundLayout,
  opts: LoadCsvOptions,
  lastRow: Map<string, number> | undefined,
  validate: boolean,
  rowProblems: InputProblem[],
  counter?: { rows: number },
  malformed?: MalformedCells,
  inOrder = false,
): AsyncGenerator<Finished> {
  const grouper = new ShipmentGrouper(layout.labelFor);
  const finished = (draft: ShipmentDraft): Finished | undefined => {
    grouper.drafts.delete(draft.reference);
    if (opts.only !== undefined && draft.reference !== opts.only) return undefined;
    return finishDraft(draft, layout, opts, validate);
  };
  // inOrder: shipments given in the order they first appear, not as they finish (a shipment whose rows are not
  // next to each other finishes after those between them). One finished is held while a shipment that began
  // before it is still open: the drafts are in the order they began, so the first one open is the oldest.
  const held: Array<{ first: number; f: Finished }> = [];
  const firstRowOf = (f: Finished) => (f.kind === 'shipment' ? f.shipment.row : f.kind === 'excluded' ? f.excluded.row : (f.rows[0] ?? 0));
  function* release(all: boolean): Generator<Finished> {
    const open = all ? undefined : grouper.drafts.values().next().value;
    const oldestOpen = open === undefined ? undefined : (open.firstRow ?? open.rows[0] ?? 0);
    while (held.length && (oldestOpen === undefined || held[0].first < oldestOpen)) yield held.shift()!.f;
  }
  const hold = (f: Finished | undefined): void => {
    if (!f) return;
    const first = firstRowOf(f);
    let at = held.length;
    while (at > 0 && held[at - 1].first > first) at--;
    held.splice(at, 0, { first, f });
  };
  for await (const batch of records) {
    for (const rec of batch) {
      if (rec.malformed) {
        for (const p of rec.malformed.problems) {
          rowProblems.push(p);
          malformed?.problems.add(p);
          malformed?.cells.add(cellKey(p));
        }
        // A record cut short tells nothing more (not even its shipment); a whole one joins its shipment as read,
        // so the shipment's other rows are checked as usual and no value seems missing for want of this row.
        if (!rec.malformed.complete) continue;
      }
      const row = layout.toRow(rec, rowProblems);
      if (!row) continue;
      grouper.add(row);
      const refValue = row.cells.get('shipment_reference')?.value;
      const ref = refValue === undefined ? undefined : groupingReference(refValue);
      if (ref !== undefined && lastRow?.get(ref) === rec.row) {
        const f = finished(grouper.drafts.get(ref)!);
        if (!inOrder) {
          if (f) yield f;
        } else {
          hold(f);
          yield* release(false);
        }
      }
    }
  }
  // Without a first pass (stdin), every shipment finishes here.
  for (const draft of [...grouper.drafts.values()]) {
    const f = finished(draft);
    if (!inOrder) {
      if (f) yield f;
    } else hold(f);
  }
  yield* release(true);
  // One by one: a spread of every row's problem (one per row of a 200,000-row file with a wrong column) exceeds
  // the call stack's room for arguments.
  for (const p of grouper.problems) rowProblems.push(p);
  if (counter) counter.rows = grouper.rowCount;
}

/**
 * Validates a CSV file completely. Throws InputError listing every problem (`row N, column C: rule`); otherwise
 * returns the request bodies, in the order shipments first appear in the file.
 *
 * Memory stays small for large files: a first pass only notes each shipment's last row; the second pass builds
 * and validates each shipment as soon as its last row has been read, and drops its draft. With `keep: false`
 * not even the bodies are kept: stream() builds them again for sending. (A stream source is read once.)
 */
export async function loadCsv(options: LoadCsvOptions): Promise<LoadedCsv> {
  const name = options.name ?? ('path' in options.source ? options.source.path : options.source.name);
  // Detected once: every later read of the file (pass 2, the row files) decodes it the same way. Bytes invalid in
  // it are the refusal's problems, listed with the file's others (readCsvBatches gives them with their rows).
  const encoding = await resolveCsvEncoding(options.source, options.encoding, name, options.delimiter);
  const refused = encoding.refused;
  // How the file separates its cells (files written back from it do the same; a ';' file takes 12,50 amounts).
  const rowLayout = 'path' in options.source ? await csvLayoutOf(options.source.path, encoding.encoding, options.delimiter) : { delimiter: options.delimiter ?? ',', sepLine: false };
  const opts: LoadCsvOptions = {
    ...options,
    encoding: typeof options.encoding === 'string' && !refused ? options.encoding : encoding,
    decimalComma: options.decimalComma ?? rowLayout.delimiter !== ',',
  };
  const keep = opts.keep ?? true;
  // Every problem of the file is listed, a record whose quoting is broken too: the read goes on past it.
  const pass = await openRecords(opts, name, 'report');
  const header = pass.header;
  if (header.every((h) => h.replace(/^\uFEFF/, '').trim() === '')) {
    // Otherwise every column would be "missing", though the header is there, a row or two further down.
    await pass.records.return(undefined);
    throw new InputError(`${name}: the first row is blank, where the header row must be`, [{ row: 1, message: 'blank: the header row must be the first row of the file' }], {
      hint: 'delete the blank rows above the header',
    });
  }
  const layout = opts.layout.bind(header);
  if (layout.problems.length) {
    await pass.records.return(undefined);
    const hint = 'columns are listed under "ship create --csv" in `ship create --help`; --map FILE.json renames other headers';
    // The rows with bad bytes too: the header may be wrong for want of the encoding.
    const badRows = refused ? refused.problems.filter((p) => !pass.headerProblems.includes(p)) : [];
    throw new InputError(`${name}: the header row has problems`, [...pass.headerProblems, ...layout.problems, ...badRows].sort(byRow), {
      hint: refused ? `${hint}; ${refused.hint}` : hint,
    });
  }
  const isFile = 'path' in opts.source;
  if (!keep && !isFile) throw new Error('loadCsv: keep: false needs a file source');

  // Pass 1 (files only): the last row of each shipment, so pass 2 knows when a shipment is complete.
  let lastRow: Map<string, number> | undefined;
  let records = pass.records;
  let dataRows = 0;
  if (isFile) {
    lastRow = new Map();
    const scratch: InputProblem[] = [];
    const at = layout.referenceIndex;
    // The records of a file of moderate size are kept from this pass for the next one, which then need not
    // parse the file again (a third of the time of validating 10,000 rows); a larger file is read again.
    let kept: CsvRecord[][] | undefined = [];
    let keptSize = 0;
    for await (const batch of records) {
      for (const rec of batch) {
        if (rec.malformed && !rec.malformed.complete) continue;
        // Only the reference matters here; read it straight from its column when the layout says where it is.
        const ref = at !== undefined ? rec.values[at] || undefined : layout.toRow(rec, scratch)?.cells.get('shipment_reference')?.value;
        if (ref !== undefined) lastRow.set(groupingReference(ref), rec.row);
        scratch.length = 0;
        if (kept) for (const v of rec.values) keptSize += v.length + 16;
      }
      if (kept && keptSize > (opts.keepRecordsLimit ?? KEEP_RECORDS_LIMIT)) kept = undefined;
      kept?.push(batch);
      dataRows += batch.length;
      opts.onProgress?.({ phase: 'reading', rows: dataRows });
    }
    records = kept ? drain(kept) : (await openRecords(opts, name, 'report')).records;
  }
  if (opts.onProgress) records = reporting(records, opts.onProgress, isFile ? dataRows : undefined);

  const problems: InputProblem[] = [...pass.headerProblems];
  const malformed: MalformedCells = { problems: new Set(pass.headerProblems), cells: new Set(pass.headerProblems.map(cellKey)) };
  const warnings: InputProblem[] = [...layout.warnings];
  const shipments: PreparedShipment[] = [];
  const compact: CompactShipment[] = [];
  const excluded: ExcludedShipment[] = [];
  const counts = { shipments: 0, parcels: 0, items: 0 };
  const counter = { rows: 0 };
  // A problem or warning of no row is a flag's (--default-weight 0, a --despatch-date in the past): the same for
  // every shipment that takes the value, it is said once.
  const rowless = new Set<string>();
  const once = (p: InputProblem) => {
    if (p.row !== undefined) return true;
    const key = `${p.column}\u0000${p.message}`;
    if (rowless.has(key)) return false;
    rowless.add(key);
    return true;
  };
  let onlyRows: Set<number> | undefined;
  let hasCustomFields = false;
  const accountRefs: AccountRefs = { services: new Set(), packaging: new Set(), brands: new Set() };
  // First rows of the shipments without problems, for FileProblems when the file has some (keep: false).
  const validRows = new Set<number>();
  // The parts of shipments with problems that the account check reads (checked with the others when the file has problems).
  const invalidParts: PreparedShipment[] = [];
  for await (const f of walk(records, layout, opts, lastRow, true, problems, counter, malformed)) {
    for (const w of f.warnings) if (once(w)) warnings.push(w);
    if (f.kind === 'excluded') {
      excluded.push(f.excluded);
      continue;
    }
    if (opts.only !== undefined) onlyRows = new Set(f.kind === 'shipment' ? f.shipment.rows : f.rows);
    if (f.kind === 'invalid') {
      for (const p of f.problems) if (once(p)) problems.push(p);
      if (opts.only === undefined) {
        invalidParts.push(f.accountPart);
        hasCustomFields ||= hasCustomFieldValues(f.accountPart.body);
        noteAccountRefs(f.accountPart.body, accountRefs);
      }
      continue;
    }
    counts.shipments++;
    counts.parcels += f.shipment.parcels;
    counts.items += f.shipment.items;
    hasCustomFields ||= hasCustomFieldValues(f.shipment.body);
    noteAccountRefs(f.shipment.body, accountRefs);
    if (keep === 'json') compact.push(compactOf(f.shipment, f.normalised));
    else if (keep) shipments.push(f.shipment);
    else validRows.add(f.shipment.row);
  }

  // A broken cell is said once, as broken: not again for what the parser made of it (a postcode with a quote in it).
  let kept = malformed.cells.size ? problems.filter((p) => malformed.problems.has(p) || !malformed.cells.has(cellKey(p))) : problems;
  if (opts.only !== undefined) {
    const rows = onlyRows ?? new Set<number>();
    // Problems of no row come from finishing a shipment, which only the one asked for is: they are its own. A
    // broken row is kept whatever its shipment: the shipment asked for may be the one it was meant for.
    kept = kept.filter((p) => p.row === undefined || rows.has(p.row) || malformed.problems.has(p));
  }
  if (kept.length) {
    sortFileProblems(kept, header);
    // (A flag's problem is in no row.)
    const rows = new Set(kept.flatMap((p) => (p.row === undefined ? [] : [p.row]))).size;
    const customsMissing = kept.some((p) => p.message.includes('outside mainland UK'));
    const customsHint = customsMissing ? (opts.customs ? `add the products named above to --customs ${opts.customs.name}` : 'customs details per product (origin, tariff code, weight) can come from a table: --customs FILE.csv (see `ship create --help`)') : undefined;
    const counted = problemCount(kept.length, rows);
    if (refused) throw refusalWithOtherProblems(refused, kept, counted, customsHint);
    const message = `${name}: ${counted}; nothing was sent`;
    const hint = customsHint ? { hint: customsHint } : undefined;
    if (opts.only !== undefined || (!hasCustomFields && !hasAccountRefs(accountRefs))) throw new InputError(message, kept, hint);
    throw new FileProblems(message, kept, hint, {
      name,
      header,
      labelFor: layout.labelFor,
      hasCustomFields,
      accountRefs,
      shipments: () => withParts(keep === 'json' ? compact : keep ? shipments : validOnly(streamShipments(opts, name, layout, lastRow), validRows), invalidParts),
    });
  }
  warnings.sort(byRow);
  // Shipments finish at their last row; report them in the order they first appear.
  shipments.sort((a, b) => a.row - b.row);
  compact.sort((a, b) => a.row - b.row);
  excluded.sort((a, b) => a.row - b.row);
  return {
    header,
    shipments,
    compact,
    counts,
    excluded,
    warnings,
    notes: layout.notes,
    hasCustomFields,
    accountRefs,
    rowCount: counter.rows,
    encoding,
    labelFor: layout.labelFor,
    eachRecord: (fn) => eachRecord(opts, name, layout, fn),
    rowLayout,
    stream: () => streamShipments(opts, name, layout, lastRow),
  };
}

/** `all`, then `parts`: the shipments with problems, as far as the account check reads them. */
async function* withParts(
  all: Iterable<PreparedShipment | CompactShipment> | AsyncIterable<PreparedShipment | CompactShipment>,
  parts: readonly PreparedShipment[],
): AsyncGenerator<PreparedShipment | CompactShipment> {
  yield* all;
  yield* parts;
}

/**
 * The parts of a body the account check reads (accountProblems: delivery service, brand, custom fields, each
 * parcel's packaging type and custom fields), of a shipment with problems of its own: kept small, for as long
 * as the file's problems are being listed.
 */
function accountPartOf(body: ShipmentBody): ShipmentBody {
  const part: Record<string, unknown> = {};
  for (const k of ['delivery_service_key', 'service_key', 'brand', 'custom_fields'] as const) if (body[k] !== undefined) part[k] = body[k];
  if (Array.isArray(body.parcels)) {
    part.parcels = body.parcels.map((p) => {
      const out: Record<string, unknown> = {};
      if (p?.packaging_type_key !== undefined) out.packaging_type_key = p.packaging_type_key;
      if (p?.custom_fields !== undefined) out.custom_fields = p.custom_fields;
      return out;
    });
  }
  return part as ShipmentBody;
}

function hasAccountRefs(refs: AccountRefs): boolean {
  return refs.services.size > 0 || refs.packaging.size > 0 || refs.brands.size > 0;
}

/** The shipments of `all` whose first row is in `rows`. */
async function* validOnly(all: AsyncIterable<PreparedShipment>, rows: Set<number>): AsyncGenerator<PreparedShipment> {
  for await (const s of all) if (rows.has(s.row)) yield s;
}

function noteAccountRefs(body: ShipmentBody, refs: AccountRefs): void {
  const service = body.delivery_service_key ?? body.service_key;
  if (typeof service === 'string') refs.services.add(service);
  if (typeof body.brand === 'string') refs.brands.add(body.brand);
  const parcels = body.parcels;
  if (Array.isArray(parcels)) for (const p of parcels) if (typeof p?.packaging_type_key === 'string') refs.packaging.add(p.packaging_type_key);
}

function hasCustomFieldValues(body: ShipmentBody): boolean {
  if (body.custom_fields !== undefined) return true;
  const parcels = body.parcels;
  if (Array.isArray(parcels)) for (const p of parcels) if (p?.custom_fields !== undefined) return true;
  return false;
}

/** Characters (plus a little per cell) of pass-1 records kept for pass 2: ~15 MB of memory at most. */
const KEEP_RECORDS_LIMIT = 6_000_000;

/**
 * The records, telling `onProgress` how many were checked after each batch; every ~100 ms it also lets the
 * event loop turn (records kept from pass 1 come through promises alone, and would not).
 */
async function* reporting(records: AsyncIterable<CsvRecord[]>, onProgress: (p: LoadProgress) => void, total: number | undefined): AsyncGenerator<CsvRecord[]> {
  let rows = 0;
  let turned = performance.now();
  for await (const batch of records) {
    yield batch;
    rows += batch.length;
    onProgress({ phase: 'checking', rows, total });
    if (performance.now() - turned > 100) {
      await new Promise((resolveTurn) => setImmediate(resolveTurn));
      turned = performance.now();
    }
  }
}

/** Yields kept batches once each, letting go of each as it is handed out. */
async function* drain(batches: CsvRecord[][]): AsyncGenerator<CsvRecord[]> {
  for (let i = 0; i < batches.length; i++) {
    const b = batches[i];
    batches[i] = [];
    yield b;
  }
}

/** The validated shipments again, built from a fresh read of the file (no validation: loadCsv did that). */
async function* streamShipments(
  opts: LoadCsvOptions,
  name: string,
  layout: BoundLayout,
  lastRow: Map<string, number> | undefined,
): AsyncGenerator<PreparedShipment> {
  if (!('path' in opts.source)) throw new Error('stream() needs a file: spool stdin to a file first');
  const { records } = await openRecords(opts, name);
  for await (const f of walk(records, layout, opts, lastRow, false, [], undefined, undefined, true)) {
    if (f.kind === 'shipment') yield f.shipment;
  }
}

/** Streams the file again (after loadCsv), handing each data row with the shipment it belongs to. */
async function eachRecord(
  opts: LoadCsvOptions,
  name: string,
  layout: BoundLayout,
  fn: (rec: CsvRecord, shipmentReference: string | undefined) => void | Promise<void>,
): Promise<void> {
  if (!('path' in opts.source)) throw new Error('eachRecord needs a file: spool stdin to a file first');
  const { records } = await openRecords(opts, name);
  const scratch: InputProblem[] = [];
  for await (const batch of records) {
    for (const rec of batch) {
      const row = layout.toRow(rec, scratch);
      scratch.length = 0;
      const ref = row?.cells.get('shipment_reference')?.value;
      if (row) await fn(rec, ref === undefined ? undefined : groupingReference(ref));
    }
  }
}
