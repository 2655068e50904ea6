// CSV files a bulk run writes back: FILE.failed.csv (the failed rows, unchanged, plus an `error` column,
// ready to fix and rerun) and --results FILE.csv (every input row with its status, tracking reference,
// label paths and error). Both are written to a temp file and renamed into place at the end.
import * as fs from 'node:fs';
import { basename, dirname, extname, join } from 'node:path';
import { makeDirSync } from '../util/mkdir.js';
import { isSpecialFile } from '../util/special-file.js';
import { openTempBeside, refuseUnlessRegular, renameIntoPlace } from '../util/own-files.js';

/** Quotes one CSV field per RFC 4180 (only when needed: the delimiter, a quote, CR or LF, or edge spaces). */
export function csvField(value: string, delimiter = ','): string {
  return /["\r\n]|^\s|\s$/.test(value) || value.includes(delimiter) ? `"${value.replace(/"/g, '""')}"` : value;
}

/** One CSV line (CRLF-free: LF line ends, which every CSV reader accepts) from field values. */
export function csvLine(values: ReadonlyArray<string | number | undefined | null>, delimiter = ','): string {
  return values.map((v) => csvField(v === undefined || v === null ? '' : String(v), delimiter)).join(delimiter) + '\n';
}

/**
 * How a file written back from an input is laid out, as the input was: a spreadsheet in a locale that writes
 * `;` (most of Europe) opens a comma file as one column. `bom`: start with a UTF-8 byte-order mark (the input
 * came from a spreadsheet: writeBackWithBom); `sepLine`: start with Excel's `sep=X` line, as the input did.
 */
export interface WriteBackLayout {
  bom?: boolean;
  delimiter?: string;
  sepLine?: boolean;
}

/** The start of a written-back file: its byte-order mark and `sep=` line, as the layout asks. */
function preamble(layout: WriteBackLayout): string {
  return (layout.bom ? BOM : '') + (layout.sepLine ? `sep=${layout.delimiter ?? ','}\n` : '');
}

/**
 * For files meant for spreadsheets only: a value a spreadsheet would run as a formula (= + - @, tab, CR)
 * gets a leading apostrophe. Never applied to input columns, which must stay re-importable unchanged.
 */
export function spreadsheetSafe(value: string): string {
  return /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
}

/** The UTF-8 byte-order mark, as text. */
const BOM = '\ufeff';

/** `orders.csv` → `orders.failed.csv` beside it (stdin → `stdin.failed.csv` in the working directory). */
export function failedCsvPathFor(inputPath: string): string {
  if (inputPath === '-') return 'stdin.failed.csv';
  const ext = extname(inputPath);
  const stem = basename(inputPath, ext);
  return join(dirname(inputPath), `${stem}.failed${ext || '.csv'}`);
}

/** Collects the rows of failed tasks and writes them, in input order, as FILE.failed.csv at the end. */
export class FailedRowsWriter {
  private rows: Array<{ row: number; cells: string[]; error: string }> = [];

  constructor(
    readonly path: string,
    /** The input file's header row, exactly as it was. */
    readonly header: readonly string[],
    private readonly opts: WriteBackLayout = {},
  ) {}

  /** Adds the original records of one failed task (all its rows get the same error). */
  add(records: ReadonlyArray<readonly string[]>, rows: readonly number[], error: string): void {
    const oneLine = error.replace(/\s*[\r\n]+\s*/g, ' ');
    records.forEach((cells, i) => this.rows.push({ row: rows[i] ?? Number.MAX_SAFE_INTEGER, cells: [...cells], error: oneLine }));
  }

  /** How many rows failed. */
  get count(): number {
    return this.rows.length;
  }

  /**
   * Writes the file (atomically) when rows failed, and removes a leftover one from an earlier run when none
   * did, so the file never lists rows that have since gone through. Returns the path when written.
   */
  finish(): string | undefined {
    if (this.rows.length === 0) {
      fs.rmSync(this.path, { force: true });
      return undefined;
    }
    this.rows.sort((a, b) => a.row - b.row);
    const header = this.header.includes('error') ? [...this.header, 'ship_error'] : [...this.header, 'error'];
    const d = this.opts.delimiter;
    let text = preamble(this.opts) + csvLine(header, d);
    for (const r of this.rows) {
      const cells = r.cells.slice(0, this.header.length);
      while (cells.length < this.header.length) cells.push('');
      text += csvLine([...cells, r.error], d);
    }
    writeAtomic(this.path, text);
    return this.path;
  }
}

/** What the results file adds to each input row. */
export interface ResultColumns {
  status: string;
  id?: string;
  tracking_reference?: string;
  label_paths?: readonly string[];
  error?: string;
}

/** Extra columns of the results file, after the input's own. */
export const RESULT_COLUMNS = ['status', 'id', 'tracking_reference', 'label_paths', 'error'] as const;

/** Streams every input row plus its result columns into --results FILE.csv (temp file, renamed at the end). */
export class ResultsWriter {
  private readonly tmp: string;
  /** The path is a device or a pipe (/dev/stdout): written in place, never replaced by a rename. */
  private readonly direct: boolean;
  private fd: number;
  private buf = '';
  private readonly delimiter: string | undefined;

  constructor(
    readonly path: string,
    readonly header: readonly string[],
    opts: WriteBackLayout = {},
  ) {
    this.delimiter = opts.delimiter;
    makeDirSync(dirname(path));
    this.direct = isSpecialFile(path);
    if (this.direct) {
      this.tmp = path;
      this.fd = fs.openSync(path, 'w');
    } else ({ tmp: this.tmp, fd: this.fd } = openTempBeside(path));
    const extra = RESULT_COLUMNS.map((c) => (header.includes(c) ? `result_${c}` : c));
    this.buf = preamble(opts) + csvLine([...header, ...extra], this.delimiter);
  }

  /** Adds the rows of one task with its result columns (label paths joined with `;`). */
  add(records: ReadonlyArray<readonly string[]>, cols: ResultColumns | ((rowIndex: number) => ResultColumns)): void {
    records.forEach((cells, i) => {
      const c = typeof cols === 'function' ? cols(i) : cols;
      const row = cells.slice(0, this.header.length);
      while (row.length < this.header.length) row.push('');
      this.buf += csvLine([
        ...row,
        c.status,
        c.id ?? '',
        c.tracking_reference ?? '',
        (c.label_paths ?? []).join(';'),
        spreadsheetSafe((c.error ?? '').replace(/\s*[\r\n]+\s*/g, ' ')),
      ], this.delimiter);
    });
    if (this.buf.length > 64 * 1024) this.flush();
  }

  /** Finishes the file and moves it into place; returns its path. */
  finish(): string {
    this.flush();
    fs.closeSync(this.fd);
    if (!this.direct) fs.renameSync(this.tmp, this.path);
    return this.path;
  }

  /** Drops the temp file (the run failed before it could finish). */
  abort(): void {
    try {
      fs.closeSync(this.fd);
    } catch {
      // already closed
    }
    if (!this.direct) fs.rmSync(this.tmp, { force: true });
  }

  private flush(): void {
    if (this.buf) fs.writeSync(this.fd, this.buf);
    this.buf = '';
  }
}

/** Writes FILE.failed.csv, a name ship chose beside the input: never through a link or into a pipe put there. */
function writeAtomic(path: string, text: string): void {
  refuseUnlessRegular(path, 'the failed-rows file');
  makeDirSync(dirname(path));
  renameIntoPlace(openTempBeside(path), path, text);
}
