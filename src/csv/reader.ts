// Streams a CSV file record by record (never the whole file in memory), numbering rows as a spreadsheet does.
// Files are UTF-8 unless they say or show otherwise: a UTF-16 byte-order mark (Excel's "Unicode Text"), a header
// in UTF-16 written without one (every other byte zero), or bytes that are not UTF-8 at all, which are read as
// Windows-1252 (Excel's "CSV (Comma delimited)" on Windows) rather than sent to the carrier as "Zo� Br�nte"; a
// file with both, UTF-8 accents and other bytes, is refused (no one reading is right for it). `--encoding`
// overrides the guess.
import { isAscii, isUtf8 } from 'node:buffer';
import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { Readable, Transform } from 'node:stream';
import type { CsvError } from 'csv-parse';
import { InputError, UsageError, type InputProblem } from '../errors.js';
import { PlainCsvLines } from './plain-lines.js';

/** One record of the file: `row` is what a spreadsheet shows (the header is row 1). */
export interface CsvRecord {
  row: number;
  values: string[];
  /** Its quoting is broken (read with `malformed: 'report'` only): see MalformedRecord. */
  malformed?: MalformedRecord;
}

/**
 * What is wrong with a record whose quoting is broken, and how much of it could be read. `values` are then
 * csv-parse's best reading of it (a stray quote kept as a character): good enough to check the row's other cells
 * and to tell which shipment it belongs to, never to send.
 */
export interface MalformedRecord {
  /** One per cell found broken, at the record's row and the cell's column. */
  problems: InputProblem[];
  /**
   * The reading went on to the end of the record, so `values` has every cell; false when it stopped inside it
   * (a quote never closed, or a fault csv-parse cannot read past): `values` holds the cells before the fault.
   */
  complete: boolean;
}

/** Where the CSV comes from: a path, or an already open stream (stdin). */
export type CsvSource = { path: string } | { stream: Readable; name: string };

/** Picks `,`, `;` or tab from the header line: whichever occurs most outside quotes (comma on a tie). */
export function detectDelimiter(firstLine: string): string {
  const counts: Record<string, number> = { ',': 0, ';': 0, '\t': 0 };
  let quoted = false;
  for (const ch of firstLine) {
    if (ch === '"') quoted = !quoted;
    else if (!quoted && ch in counts) counts[ch]++;
  }
  let best = ',';
  for (const d of [';', '\t']) if (counts[d] > counts[best]) best = d;
  return best;
}

/** How a CSV file's bytes are read: a WHATWG encoding name, and whether it was guessed rather than given or marked. */
export interface CsvEncoding {
  encoding: string;
  /** Not UTF-8, and nothing in the file said so: read as Windows-1252 (the caller should say so). */
  guessed?: boolean;
  /** The file starts with a byte-order mark. */
  bom?: boolean;
  /**
   * The file has bytes that are not valid in `encoding` (a UTF-8 file with rows pasted from another program, or
   * a file given with an --encoding it is not wholly in): the refusal naming each such row. A read with
   * `badBytes: 'report'` decodes those bytes as U+FFFD and gives each of its problems with its row (see
   * isBadBytesProblem), so that they are listed with the file's others; any other read throws it.
   */
  refused?: InputError;
}

/**
 * Whether files written back from an input (FILE.failed.csv, --results) should start with a UTF-8 byte-order
 * mark: when the input had one or was not UTF-8 — it came from a spreadsheet, and Excel reads a UTF-8 file
 * without the mark as Windows-1252 ("ZoÃ«"). ship reads the mark either way.
 */
export function writeBackWithBom(e: CsvEncoding | string | undefined): boolean {
  if (e === undefined) return false;
  if (typeof e === 'string') return e !== 'utf-8';
  return e.bom === true || e.encoding !== 'utf-8';
}

/** Checks an --encoding value (any WHATWG label: utf-8, windows-1252, latin1, iso-8859-2, utf-16le…); its canonical name. */
export function checkEncoding(label: string): string {
  try {
    return new TextDecoder(label.trim()).encoding;
  } catch {
    throw new UsageError(`--encoding: unknown encoding "${label}"`, { hint: 'e.g. utf-8, windows-1252 (Excel\'s "CSV (Comma delimited)"), iso-8859-2, utf-16le' });
  }
}

/**
 * detectCsvEncoding, except that a file that is UTF-8 but for some rows is not refused here: it is read as UTF-8,
 * its refusal carried as `refused` (see CsvEncoding.refused). Its one InputError is that case; a file that is
 * not a CSV at all is a UsageError, thrown.
 */
export async function detectOrRefuse(path: string, opts: { name: string; delimiter?: string }): Promise<CsvEncoding> {
  try {
    return await detectCsvEncoding(path, opts);
  } catch (e) {
    if (!(e instanceof InputError)) throw e;
    return { encoding: 'utf-8', refused: e };
  }
}

/** An encoding given (--encoding, checked) for a file, with the refusal of its bytes that are invalid in it, if any. */
export async function givenCsvEncoding(path: string, encoding: string, name: string, delimiter?: string): Promise<CsvEncoding> {
  const refused = await invalidBytesError(path, encoding, name, delimiter);
  return refused ? { encoding, refused } : { encoding };
}

/**
 * The CsvEncoding every read of a CSV is to use, its bytes invalid in it carried as `refused` (not thrown): one
 * found already, as it is; an encoding given (checkEncoding's name), with the file's bytes checked against it;
 * else detectCsvEncoding's. A stream cannot be read twice: the encoding given (its first bad byte then ends the
 * read), or UTF-8.
 */
export async function resolveCsvEncoding(source: CsvSource, encoding: string | CsvEncoding | undefined, name: string, delimiter?: string): Promise<CsvEncoding> {
  if (typeof encoding === 'object') return encoding;
  if (!('path' in source)) return { encoding: encoding ?? 'utf-8' };
  return encoding !== undefined ? givenCsvEncoding(source.path, encoding, name, delimiter) : detectOrRefuse(source.path, { name, delimiter });
}

/**
 * How to read a CSV file: the --encoding given (checked), else what detectCsvEncoding finds, with the warning to
 * show when that is a guess (a file that is not UTF-8, read as Windows-1252). Bytes invalid in the encoding are
 * not thrown here but carried as its `refused`, so that the file's check lists them with its other problems.
 */
export async function csvEncodingFor(path: string, given: string | undefined, name: string, delimiter?: string): Promise<{ encoding: string | CsvEncoding; warning?: string }> {
  // Checked here once: as an object, loadCsv and readCsv take it as it is, without reading the file again.
  const encoding = await resolveCsvEncoding({ path }, given === undefined ? undefined : checkEncoding(given), name, delimiter);
  if (!encoding.guessed) return { encoding };
  return {
    encoding,
    warning: `${name} is not UTF-8 text: read as Windows-1252 (Excel's "CSV (Comma delimited)"); if accented letters look wrong, give the encoding with --encoding (e.g. iso-8859-2), or save the file as "CSV UTF-8"`,
  };
}

async function openOrExplain(path: string) {
  let fh;
  try {
    fh = await open(path, 'r');
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    throw new UsageError(err.code === 'ENOENT' ? `no such file: ${path}` : `cannot read ${path}: ${err.message}`);
  }
  // A directory opens fine on Linux and fails only at the first read, with a bare EISDIR.
  if ((await fh.stat()).isDirectory()) {
    await fh.close();
    throw new UsageError(`${path} is a directory, not a file`);
  }
  return fh;
}

/**
 * The encoding of a CSV file: its byte-order mark if it has one, else UTF-16 when its first line is UTF-16
 * without a mark (utf16WithoutBom), else UTF-8 when every byte of it is valid
 * UTF-8 (read in 1 MB steps; a character cut by a step is completed by the next), else Windows-1252, guessed.
 * A file with both, well-formed UTF-8 characters and bytes that are not UTF-8 (a row pasted from another
 * program), has no one reading that is right: an InputError names every row with bad bytes (rowsWithInvalidUtf8).
 */
export async function detectCsvEncoding(path: string, opts: { name?: string; delimiter?: string } = {}): Promise<CsvEncoding> {
  const fh = await openOrExplain(path);
  try {
    const buf = Buffer.alloc(1024 * 1024);
    let pos = 0;
    let carry = 0;
    let bom = false;
    // Whether a character of two or more bytes was seen, and where (in the file) the first invalid byte is.
    let multiByte = false;
    let invalidAt = -1;
    for (;;) {
      const { bytesRead } = await fh.read(buf, carry, buf.length - carry, pos);
      const start = pos - carry;
      pos += bytesRead;
      const end = carry + bytesRead;
      if (pos === bytesRead) {
        if (end >= 2 && buf[0] === 0xff && buf[1] === 0xfe) return { encoding: 'utf-16le', bom: true };
        if (end >= 2 && buf[0] === 0xfe && buf[1] === 0xff) return { encoding: 'utf-16be', bom: true };
        if (end >= 3 && buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf) bom = true;
        const unmarked = utf16WithoutBom(buf.subarray(0, end));
        if (unmarked) return { encoding: unmarked };
        const kind = notText(buf.subarray(0, end));
        if (kind) throw new UsageError(`${opts.name ?? path} is not a CSV file: ${kind.what}`, kind.hint ? { hint: kind.hint } : undefined);
      }
      // At the end, a cut character left over is itself invalid.
      const tail = bytesRead === 0 ? 0 : incompleteUtf8Tail(buf.subarray(0, end));
      const chunk = buf.subarray(0, end - tail);
      if (invalidAt < 0) {
        if (isUtf8(chunk)) multiByte ||= !isAscii(chunk);
        else {
          const bad = firstInvalidUtf8(chunk);
          invalidAt = start + bad;
          multiByte ||= !isAscii(chunk.subarray(0, bad)) || hasMultiByteUtf8(chunk.subarray(bad + 1));
        }
      } else if (!multiByte) multiByte = hasMultiByteUtf8(chunk);
      if (invalidAt >= 0 && multiByte) throw await mixedEncodingError(path, opts.name ?? path, opts.delimiter);
      if (bytesRead === 0) break;
      buf.copyWithin(0, end - tail, end);
      carry = tail;
    }
    if (invalidAt < 0) return { encoding: 'utf-8', ...(bom ? { bom } : {}) };
    return { encoding: 'windows-1252', guessed: true };
  } finally {
    await fh.close();
  }
}

/**
 * The UTF-16 byte order of text written without a byte-order mark (.NET's Encoding.Unicode, some exporters):
 * its ASCII characters, a header's at least, are each a byte and a zero byte. Text in any other encoding a
 * CSV file comes in has no zero bytes, and UTF-8 takes them for characters ("s\0h\0i\0p\0…"). Decided
 * from the first line (at most 1 KB): a zero byte on one side of every character, and none on the other.
 */
export function utf16WithoutBom(b: Uint8Array): 'utf-16le' | 'utf-16be' | undefined {
  const end = Math.min(b.length, 1024) & ~1;
  if (end < 4) return undefined;
  let zeroEven = 0;
  let zeroOdd = 0;
  let units = 0;
  for (let i = 0; i < end; i += 2) {
    units++;
    if (b[i] === 0) zeroEven++;
    if (b[i + 1] === 0) zeroOdd++;
    // The end of the first line (\n in either byte order) is enough to decide on.
    if ((b[i] === 0x0a && b[i + 1] === 0) || (b[i] === 0 && b[i + 1] === 0x0a)) break;
  }
  if (zeroOdd === units && zeroEven === 0) return 'utf-16le';
  if (zeroEven === units && zeroOdd === 0) return 'utf-16be';
  return undefined;
}

// What files that are often given for a CSV by mistake start with (their "magic numbers").
const SAVE_AS_CSV = 'open it in your spreadsheet program and save it as "CSV UTF-8 (Comma delimited)", then give that file';
const SIGNATURES: Array<{ magic: number[]; what: string; hint?: string }> = [
  { magic: [0x50, 0x4b, 0x03, 0x04], what: 'it is a ZIP archive (an Excel .xlsx or a .ods workbook?)', hint: SAVE_AS_CSV },
  { magic: [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1], what: 'it is an Excel 97-2003 workbook (.xls)', hint: SAVE_AS_CSV },
  { magic: [0x1f, 0x8b], what: 'it is compressed (gzip): unpack it first' },
  { magic: [0x25, 0x50, 0x44, 0x46, 0x2d], what: 'it is a PDF document' },
];

/**
 * What a file is when its first bytes show it is not text at all (a spreadsheet workbook given for its CSV
 * export, say): read as text, its header would be pages of "unknown column" garbage. Zero bytes are in no
 * text a CSV comes in but UTF-16, which has been looked for before this.
 */
export function notText(head: Uint8Array): { what: string; hint?: string } | undefined {
  for (const sig of SIGNATURES) if (sig.magic.every((b, i) => head[i] === b)) return sig;
  if (head.subarray(0, 4096).includes(0)) return { what: 'it holds zero bytes, as binary files do', hint: 'if it is UTF-16 text, give --encoding utf-16le' };
  return undefined;
}

// A character the UTF-8 decoder made of two or more bytes: neither ASCII nor its replacement for invalid bytes.
const DECODED_MULTI_BYTE = /[^\x00-\x7f\ufffd]/;

/**
 * Whether `b` holds a well-formed UTF-8 character of two or more bytes (a literal U+FFFD aside). Text in
 * Windows-1252 rarely does: it takes an accented capital followed by a symbol such as ’ or °. Native decoding
 * and search: a byte loop in JavaScript made a 40 MB Windows-1252 file take most of a second.
 */
export function hasMultiByteUtf8(b: Buffer): boolean {
  return DECODED_MULTI_BYTE.test(b.toString('utf8'));
}

/** Most rows with bytes that are not UTF-8 (or not in the file's encoding) listed one by one; the rest are counted ("… and N more"). */
export const MAX_INVALID_ROWS = 100;

// The problems that say a row has bytes invalid in the file's encoding (see isBadBytesProblem).
const BAD_BYTES = new WeakSet<InputProblem>();

/** Whether a problem is one of an encoding refusal's (a row with bad bytes, or how many more rows have them). */
export function isBadBytesProblem(p: InputProblem): boolean {
  return BAD_BYTES.has(p);
}

/**
 * The problems of a file with bytes that are not valid in `encoding`: one per row that has them (`message`), at
 * most MAX_INVALID_ROWS, then how many more rows.
 */
async function invalidBytesProblems(path: string, encoding: string, delimiter: string | undefined, message: string): Promise<InputProblem[]> {
  const { found, more } = encoding === 'utf-8' ? await rowsWithInvalidUtf8(path, delimiter, MAX_INVALID_ROWS) : await rowsWithInvalidBytes(path, encoding, delimiter, MAX_INVALID_ROWS);
  const problems: InputProblem[] = found.map((at) => ({ ...at, message }));
  if (more) problems.push({ message: `… and ${more} more row${more === 1 ? '' : 's'} with bytes that are not ${encoding === 'utf-8' ? 'UTF-8' : encoding}` });
  for (const p of problems) BAD_BYTES.add(p);
  return problems;
}

/** The InputError for a file that is UTF-8 but for some bytes: every row that has them, and its column. */
async function mixedEncodingError(path: string, name: string, delimiter: string | undefined): Promise<InputError> {
  const problems = await invalidBytesProblems(path, 'utf-8', delimiter, 'bytes that are not UTF-8 in a file otherwise UTF-8 (a row pasted from another program?): fix that row, or give --encoding');
  return new InputError(`${name} is not valid utf-8 text`, problems, {
    hint: 'retype those rows (or save the file as "CSV UTF-8"); if the whole file is in another encoding, give it with --encoding (e.g. windows-1252 for Excel\'s "CSV (Comma delimited)")',
  });
}

const GIVEN_ENCODING_HINT = 'give the file\'s encoding with --encoding (e.g. windows-1252 for Excel\'s "CSV (Comma delimited)"), or save it as "CSV UTF-8"';

/** The InputError for a file read in an encoding given (--encoding) that has bytes invalid in it: every such row. */
async function givenEncodingError(path: string, name: string, encoding: string, delimiter: string | undefined): Promise<InputError> {
  return new InputError(`${name} is not valid ${encoding} text`, await invalidBytesProblems(path, encoding, delimiter, `bytes that are not ${encoding}`), { hint: GIVEN_ENCODING_HINT });
}

/**
 * Whether the file, decoded in the `encoding` given (--encoding), has bytes invalid in it: then its refusal (every
 * such row), else undefined. Read whole, in 1 MB steps, with the platform's decoder (a row scan only when it fails).
 */
export async function invalidBytesError(path: string, encoding: string, name: string, delimiter?: string): Promise<InputError | undefined> {
  const fh = await openOrExplain(path);
  let valid = true;
  try {
    const decoder = new TextDecoder(encoding, { fatal: true });
    const buf = Buffer.alloc(1024 * 1024);
    try {
      for (let pos = 0; ; ) {
        const { bytesRead } = await fh.read(buf, 0, buf.length, pos);
        if (bytesRead === 0) break;
        decoder.decode(buf.subarray(0, bytesRead), { stream: true });
        pos += bytesRead;
      }
      decoder.decode();
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ERR_ENCODING_INVALID_ENCODED_DATA') throw e;
      valid = false;
    }
  } finally {
    await fh.close();
  }
  return valid ? undefined : givenEncodingError(path, name, encoding, delimiter);
}

/** The rows of a file that hold bytes invalid in its encoding (the first `limit`, each with its column when known), and how many more. */
export interface InvalidRows {
  found: Array<{ row: number; column?: string }>;
  more: number;
}

/**
 * The row (as readCsv counts it) and cell that each character of a CSV file falls in, fed the file's characters
 * in order, and the rows at which it was told of bytes invalid in the file's encoding: the state that
 * rowsWithInvalidUtf8 (fed bytes) and rowsWithInvalidBytes (fed decoded text) share. Only quotes, line breaks
 * and the delimiter move it on, so a caller may feed it ASCII alone when the delimiter is ASCII.
 */
class InvalidRowScan {
  private row = 1;
  private field = 0;
  private quoted = false;
  private lastBadRow = 0;
  private readonly found: Array<{ row: number; field: number }> = [];
  private more = 0;
  // -1 matches no character: before begin(), and for a delimiter that is not one UTF-16 unit (it never splits a cell).
  private delimiterCode = -1;
  private delimiter: string | undefined;
  private sepLine = false;

  constructor(private readonly limit: number) {}

  /** Sets what the first line says: the delimiter, and whether that line was a `sep=` line (not a row, nor fed). */
  begin(delimiter: string, sepLine: boolean): void {
    this.delimiter = delimiter;
    this.delimiterCode = delimiter.length === 1 ? delimiter.charCodeAt(0) : -1;
    this.sepLine = sepLine;
  }

  /** Moves past a character (its UTF-16 code unit, or an ASCII byte) that is valid in the encoding. */
  pass(code: number): void {
    if (code === 0x22) this.quoted = !this.quoted;
    else if (this.quoted) return;
    else if (code === 0x0a) {
      this.row++;
      this.field = 0;
    } else if (code === this.delimiterCode) this.field++;
  }

  /** Notes bytes invalid in the encoding at the current place: its row is found (or counted past the limit) once. */
  invalid(): void {
    if (this.row === this.lastBadRow) return;
    this.lastBadRow = this.row;
    if (this.found.length < this.limit) this.found.push({ row: this.row, field: this.field });
    else this.more++;
  }

  /** The rows found, each cell named by the header read in `encoding` (none when the header itself has bad bytes). */
  async rows(path: string, encoding: string): Promise<InvalidRows> {
    const { found, more, delimiter } = this;
    const header = found.length && found[0].row > 1 && delimiter !== undefined ? await headerOf(path, encoding, delimiter, this.sepLine ? 1 : 0) : undefined;
    return {
      found: found.map(({ row, field }) => {
        const column = row > 1 ? header?.[field] || undefined : undefined;
        return column ? { row, column } : { row };
      }),
      more,
    };
  }
}

/**
 * rowsWithInvalidUtf8 for a file in another encoding (Windows-1253, ISO-8859-3, Shift_JIS, UTF-16…): the rows,
 * as readCsv counts them, whose bytes the platform's decoder cannot read in `encoding`, each with the column of
 * the first such byte. Read from the decoded text, where each such byte (or sequence) is U+FFFD; in the few
 * encodings that can write U+FFFD itself (UTF-16, GB18030), a row holding that character is counted too.
 */
export async function rowsWithInvalidBytes(path: string, encoding: string, delimiter: string | undefined, limit: number): Promise<InvalidRows> {
  const fh = await open(path, 'r');
  const rows = new InvalidRowScan(limit);
  try {
    const decoder = new TextDecoder(encoding);
    const buf = Buffer.alloc(1024 * 1024);
    let first = true;
    const scan = (text: string) => {
      let from = 0;
      if (first && text.length) {
        first = false;
        const nl = text.indexOf('\n');
        const declared = declaredDelimiter(nl < 0 ? text : text.slice(0, nl));
        let delim = delimiter;
        const sepLine = declared !== undefined && nl >= 0;
        if (sepLine) {
          from = nl + 1;
          delim ??= declared;
        }
        rows.begin(delim ?? detectDelimiter(text.slice(from).split(/\r?\n/, 1)[0]), sepLine);
      }
      for (let i = from; i < text.length; i++) {
        const code = text.charCodeAt(i);
        if (code === 0xfffd) rows.invalid();
        else rows.pass(code);
      }
    };
    for (let pos = 0; ; ) {
      const { bytesRead } = await fh.read(buf, 0, buf.length, pos);
      if (bytesRead === 0) break;
      scan(decoder.decode(buf.subarray(0, bytesRead), { stream: true }));
      pos += bytesRead;
    }
    scan(decoder.decode());
  } finally {
    await fh.close();
  }
  return rows.rows(path, encoding);
}

/**
 * The rows (as readCsv counts them: line breaks inside quotes do not end a row, Excel's `sep=` line is not one)
 * of a file read as UTF-8 that hold bytes that are not UTF-8, each with the column of its first such byte when
 * the header is readable as UTF-8: the first `limit` of them, and how many more. Read whole, in 1 MB steps.
 */
export async function rowsWithInvalidUtf8(path: string, delimiter: string | undefined, limit: number): Promise<InvalidRows> {
  const fh = await open(path, 'r');
  const rows = new InvalidRowScan(limit);
  try {
    const buf = Buffer.alloc(1024 * 1024);
    // The UTF-8 character being read: continuation bytes still expected, and the range the next one must be in
    // (narrower after E0, ED, F0 and F4: no overlong forms, surrogates or code points beyond U+10FFFF).
    let need = 0;
    let lo = 0x80;
    let hi = 0xbf;
    for (let pos = 0; ; ) {
      const { bytesRead } = await fh.read(buf, 0, buf.length, pos);
      if (bytesRead === 0) break;
      let from = 0;
      if (pos === 0) {
        const head = buf.subarray(0, bytesRead);
        const nl = head.indexOf(0x0a);
        const declared = declaredDelimiter(head.subarray(0, nl < 0 ? head.length : nl).toString('utf8'));
        // Only an ASCII delimiter is looked for among the bytes; another is ignored, as if not given.
        let delim = delimiter?.length === 1 && delimiter.charCodeAt(0) < 0x80 ? delimiter : undefined;
        const sepLine = declared !== undefined && nl >= 0;
        if (sepLine) {
          from = nl + 1;
          if (delim === undefined && declared.charCodeAt(0) < 0x80) delim = declared;
        }
        rows.begin(delim ?? detectDelimiter(head.subarray(from).toString('utf8').split(/\r?\n/, 1)[0]), sepLine);
        // A byte-order mark is a well-formed character, and not a cell's.
        if (head[from] === 0xef && head[from + 1] === 0xbb && head[from + 2] === 0xbf) from += 3;
      }
      for (let i = from; i < bytesRead; i++) {
        const b = buf[i];
        if (need > 0) {
          if (b >= lo && b <= hi) {
            need--;
            lo = 0x80;
            hi = 0xbf;
            continue;
          }
          // The character was cut short: it is bad, and this byte starts afresh.
          rows.invalid();
          need = 0;
          lo = 0x80;
          hi = 0xbf;
        }
        if (b < 0x80) rows.pass(b);
        else if (b >= 0xc2 && b <= 0xdf) need = 1;
        else if (b >= 0xe0 && b <= 0xef) {
          need = 2;
          if (b === 0xe0) lo = 0xa0;
          else if (b === 0xed) hi = 0x9f;
        } else if (b >= 0xf0 && b <= 0xf4) {
          need = 3;
          if (b === 0xf0) lo = 0x90;
          else if (b === 0xf4) hi = 0x8f;
        } else rows.invalid();
      }
      pos += bytesRead;
    }
    if (need > 0) rows.invalid();
  } finally {
    await fh.close();
  }
  // Columns by the header's names, when the header itself is UTF-8.
  return rows.rows(path, 'utf-8');
}

/** Where the first byte that is not UTF-8 is in `b` (its length when all of it is); a chunk's last, cut character counts as bad. */
export function firstInvalidUtf8(b: Uint8Array): number {
  // The longest prefix that is UTF-8 up to a possibly cut last character, by halving (isUtf8 is fast, a
  // chunk is at most 64 KB); that last character, if any, is where it goes wrong.
  let lo = 0;
  let hi = b.length;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    const prefix = b.subarray(0, mid);
    if (isUtf8(prefix.subarray(0, mid - incompleteUtf8Tail(prefix)))) lo = mid;
    else hi = mid - 1;
  }
  return lo - incompleteUtf8Tail(b.subarray(0, lo));
}

/** How many bytes at the end of `b` begin a UTF-8 character that continues beyond it (0–3). */
export function incompleteUtf8Tail(b: Uint8Array): number {
  for (let back = 1; back <= Math.min(3, b.length); back++) {
    const byte = b[b.length - back];
    if ((byte & 0xc0) === 0x80) continue; // a continuation byte: look further back for the lead
    const need = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
    return need > back ? back : 0;
  }
  return 0;
}

/**
 * The delimiter a first line such as `sep=;` declares (Excel writes and reads it), or undefined when the line is
 * not one. A quote cannot be the delimiter.
 */
export function declaredDelimiter(firstLine: string): string | undefined {
  // Also in quotes, as a program that writes it as a CSV cell does.
  const m = /^\uFEFF?(?:sep=([^"\r\n])|"sep=([^"\r\n])")\r?$/.exec(firstLine);
  return m ? (m[1] ?? m[2]) : undefined;
}

/** What the first line of a file says about reading it: the delimiter, and whether that line is a `sep=` line. */
export interface Sniffed {
  delimiter: string;
  /** The first line is `sep=X`: not a row of the table (Excel does not show it). */
  sepLine: boolean;
}

/**
 * How a file's rows are laid out, for files written back from it (FILE.failed.csv, --results) in the same way:
 * `given` (--delimiter) or its first line's delimiter, and whether it starts with a `sep=` line.
 */
export async function csvLayoutOf(path: string, encoding: string, given?: string): Promise<Sniffed> {
  const sniffed = await sniff(path, encoding);
  return given !== undefined ? { delimiter: given, sepLine: sniffed.sepLine } : sniffed;
}

async function sniff(path: string, encoding: string): Promise<Sniffed> {
  const fh = await openOrExplain(path);
  try {
    const buf = Buffer.alloc(64 * 1024);
    const { bytesRead } = await fh.read(buf, 0, buf.length, 0);
    const text = new TextDecoder(encoding).decode(buf.subarray(0, bytesRead), { stream: true });
    const nl = text.search(/\r?\n/);
    const first = nl >= 0 ? text.slice(0, nl) : text;
    const declared = declaredDelimiter(first);
    return declared !== undefined ? { delimiter: declared, sepLine: true } : { delimiter: detectDelimiter(first), sepLine: false };
  } finally {
    await fh.close();
  }
}

/**
 * The header row of a file, read again on its own to name the column of a quoting error. (Not kept from the
 * parse itself: csv-parse's on_record hook builds an info object for every record, ~7 µs a row.) Undefined when
 * it cannot be read.
 */
async function headerOf(path: string, encoding: string, delimiter: string, skipped: number): Promise<string[] | undefined> {
  try {
    const fh = await open(path, 'r');
    try {
      const buf = Buffer.alloc(1024 * 1024);
      const { bytesRead } = await fh.read(buf, 0, buf.length, 0);
      const text = new TextDecoder(encoding).decode(buf.subarray(0, bytesRead));
      const { parse } = await import('csv-parse/sync');
      const [header] = parse(text, { bom: true, delimiter, relax_column_count: true, relax_quotes: true, from_line: skipped + 1, to_line: skipped + 1 }) as string[][];
      return header?.map((v) => v.trim());
    } finally {
      await fh.close();
    }
  } catch {
    return undefined;
  }
}

/**
 * How messages name a column: its header, or its 1-based position when it has none (a blank header, or a cell
 * beyond the header's last column), so that `row 2, column 9 (no header)` reads right.
 */
export function columnName(header: readonly string[] | undefined, index: number): string {
  const label = header?.[index]?.replace(/^\uFEFF/, '').trim();
  return label ? label : `${index + 1} (no header)`;
}

/** What a csv-parse error means in plain words, with how to fix the file. */
function explainCsvError(code: string | undefined, message: string): string {
  const fix = 'put the whole cell in quotes and double each quote inside it, e.g. "6"" frame"';
  switch (code) {
    case 'INVALID_OPENING_QUOTE':
      return `a stray quote (") inside the cell: ${fix}`;
    case 'CSV_INVALID_CLOSING_QUOTE':
    case 'CSV_NON_TRIMABLE_CHAR_AFTER_CLOSING_QUOTE':
      return `text after the quote (") that closes the cell: ${fix}`;
    case 'CSV_QUOTE_NOT_CLOSED':
      return `a quote (") opens the cell but nothing closes it, so the rest of the file was read into it and no row after this one was checked: close it, or if it is part of the text, ${fix}`;
    case 'CSV_MAX_RECORD_SIZE':
      return 'the row is longer than 1 MB: is a quote (") that opens a cell never closed?';
    default:
      return message.replace(/ at line \d+.*$/, '');
  }
}

/**
 * Decodes a byte stream in `encoding` into UTF-8 bytes for the CSV parser. `fatal`: bytes that are not valid in
 * the encoding are an error (UTF-8 asked for explicitly) instead of U+FFFD.
 */
function toUtf8(encoding: string, fatal: boolean): Transform {
  const decoder = new TextDecoder(encoding, { fatal });
  // Lines before the current chunk, so an error can say where the bad bytes are when the input is a stream (a
  // file's rows are found by reading it again, as rows and lines differ when a quoted cell spans lines).
  let lines = 0;
  return new Transform({
    transform(chunk: Buffer, _enc, done) {
      try {
        done(null, Buffer.from(decoder.decode(chunk, { stream: true }), 'utf8'));
        for (let i = chunk.indexOf(10); i >= 0; i = chunk.indexOf(10, i + 1)) lines++;
      } catch (e) {
        const at = encoding === 'utf-8' ? firstInvalidUtf8(chunk) : 0;
        let line = lines + 1;
        for (let i = chunk.indexOf(10); i >= 0 && i < at; i = chunk.indexOf(10, i + 1)) line++;
        done(Object.assign(e as Error, { line }));
      }
    },
    flush(done) {
      try {
        done(null, Buffer.from(decoder.decode(), 'utf8'));
      } catch (e) {
        done(e as Error);
      }
    },
  });
}

/**
 * Yields every record of a CSV, header first, as strings (trimmed: see ReadCsvOptions.trim). Quoted fields may
 * span lines; a record counts as one row. A first line `sep=X` (Excel's) sets the delimiter unless one is given, and is skipped. Malformed
 * quoting becomes an InputError naming the row and the column.
 */
export async function* readCsv(source: CsvSource, opts: ReadCsvOptions = {}): AsyncGenerator<CsvRecord> {
  for await (const batch of readCsvBatches(source, opts)) yield* batch;
}

/** Options of readCsv and readCsvBatches. */
export interface ReadCsvOptions {
  delimiter?: string;
  /**
   * The file's encoding (checkEncoding's name), or how detectCsvEncoding found it; detected when absent (a
   * file) or UTF-8 (a stream). Given as a string (--encoding), bytes invalid in it are an error.
   */
  encoding?: string | CsvEncoding;
  /**
   * Spaces around a value: trimmed from every cell (default), or only from unquoted ones ('unquoted': a quoted
   * `" Red mug "` keeps them), for files whose values must come back exactly as an export wrote them.
   */
  trim?: 'all' | 'unquoted';
  /**
   * A record whose quoting is broken (a stray quote, text after a closing quote, a quote never closed): ends the
   * read with an InputError naming its row and column ('throw', the default: for a file already checked), or is
   * yielded in its place with `malformed` set, and the read goes on ('report': a check that lists every problem
   * of the file).
   */
  malformed?: 'throw' | 'report';
  /**
   * An encoding's refusal (CsvEncoding.refused): thrown before anything is read ('throw', the default: the caller
   * words the error itself), or, with `malformed: 'report'`, its problems given with their rows' records.
   */
  badBytes?: 'throw' | 'report';
  /** Lines with no quote are read without csv-parse (PlainCsvLines; default true; false for tests comparing the two). */
  plainLines?: boolean;
}

/**
 * csv-parse's codes for faults it reads on past with skip_records_with_error: the quote taken as a character
 * (after a text after a closing quote, once readCsvBatches has ended the quoted cell), or the end of the input.
 * Past the others (a record over max_record_size) it drops the rest of the chunk it was reading, so the read
 * stops there; text after a closing quote with `trim` would too, but is read past (readPastTextAfterQuote).
 */
const READ_PAST = new Set(['INVALID_OPENING_QUOTE', 'CSV_INVALID_CLOSING_QUOTE', 'CSV_QUOTE_NOT_CLOSED']);

/** The parts of csv-parse's (undocumented but exposed) parse API that readPastTextAfterQuote works with. */
interface ParserApi {
  state: { quoting: boolean; wasQuoting: boolean; field: { length: number; append(byte: number): void } };
  __isCharTrimable(buf: Buffer, pos: number): number;
  __error(err: Error): Error | undefined;
  __infoField(): object;
}

/**
 * With `trim` (ReadCsvOptions.trim 'unquoted'), csv-parse meets text after a closing quote (`"abc" x`) with a
 * fault it does not read past even when it skips records with errors: it drops the rest of the chunk, and the
 * read stops at that row. Its test of whether a character after the quote may be trimmed is where that fault
 * is found: there the fault is reported (flagged `readOn`, for onSkip) and the character kept, the cell going on
 * to the next separator as without `trim` (CSV_INVALID_CLOSING_QUOTE), so the read goes on to the file's end.
 * Left as it is when csv-parse's internals are not the ones expected.
 */
function readPastTextAfterQuote(parser: unknown): void {
  const api = (parser as { api?: Partial<ParserApi> }).api;
  if (typeof api?.__isCharTrimable !== 'function' || typeof api.__error !== 'function' || typeof api.__infoField !== 'function' || typeof api.state?.field?.append !== 'function') return;
  const trimmable = api.__isCharTrimable;
  api.__isCharTrimable = function (this: ParserApi, buf: Buffer, pos: number): number {
    const n = trimmable.call(this, buf, pos);
    const state = this.state;
    if (n !== 0 || state.quoting || !state.wasQuoting || buf[pos] === undefined) return n;
    const fault = Object.assign(new Error('Invalid Closing Quote: found non trimable byte after quote'), { ...this.__infoField(), code: 'CSV_NON_TRIMABLE_CHAR_AFTER_CLOSING_QUOTE', readOn: true });
    state.wasQuoting = false;
    this.__error(fault);
    // Asked whether to drop a leading space (the quotes held nothing), a "no" makes csv-parse keep the character
    // itself; asked whether to drop one after the quote, a "yes" makes it skip it, so it is kept here.
    if (state.field.length === 0) return 0;
    state.field.append(buf[pos]);
    return 1;
  };
}

/** A record csv-parse skipped for a fault (`records`: the records it gave before it), until it is yielded. */
interface SkippedRecord {
  records: number;
  /** csv-parse's own array of the record's cells, which it goes on filling until the record ends. */
  cells: string[];
  faults: Array<{ code: string | undefined; message: string; column: number | undefined }>;
  /** The read stopped inside this record. */
  stopped: boolean;
}

/** Thrown from csv-parse's on_skip to stop the read after a fault it cannot read past (see READ_PAST). */
const STOP_READING = new Error('stop reading');

/** The parts of csv-parse's (undocumented but exposed) parser state that a fault is read past with. */
interface ParserState {
  record?: unknown;
  quoting?: unknown;
}

/** The text PlainCsvLines left to csv-parse, then the chunks not read yet. */
async function* restOfFile(rest: Buffer, more: AsyncIterator<Buffer> | undefined): AsyncGenerator<Buffer> {
  if (rest.length) yield rest;
  if (!more) return;
  for (;;) {
    const next = await more.next();
    if (next.done) return;
    yield next.value;
  }
}

/**
 * readCsv in batches: every record parsed so far, each time the parser has some (a few hundred per 64 KB read).
 * A 10,000-row file is read in ~20 steps instead of 10,000, which spares its validation a few promises per row.
 */
export async function* readCsvBatches(source: CsvSource, opts: ReadCsvOptions = {}): AsyncGenerator<CsvRecord[]> {
  const name = 'path' in source ? source.path : source.name;
  const given = typeof opts.encoding === 'string' ? opts.encoding : undefined;
  const encoding = given ?? (typeof opts.encoding === 'object' ? opts.encoding.encoding : 'path' in source ? (await detectCsvEncoding(source.path, { name, delimiter: opts.delimiter })).encoding : 'utf-8');
  const report = opts.malformed === 'report';
  const refused = typeof opts.encoding === 'object' ? opts.encoding.refused : undefined;
  if (refused && !(report && opts.badBytes === 'report')) throw refused;
  // The refusal's problems by row, each given with its row's record (one of no row, "… and N more", with the header).
  const badBytes = new Map<number, InputProblem[]>();
  for (const p of refused?.problems ?? []) {
    const at = p.row ?? 1;
    badBytes.set(at, [...(badBytes.get(at) ?? []), p]);
  }
  const withBadBytes = (rec: CsvRecord): CsvRecord => {
    const problems = badBytes.get(rec.row);
    if (!problems) return rec;
    rec.malformed = { problems: [...(rec.malformed?.problems ?? []), ...problems], complete: rec.malformed?.complete ?? true };
    return rec;
  };
  const sniffed = 'path' in source ? await sniff(source.path, encoding) : undefined;
  const delimiter = opts.delimiter ?? sniffed?.delimiter ?? ',';
  // A `sep=` line is not numbered: rows stay as Excel shows them (it hides the line), the header row 1.
  const skipped = sniffed?.sepLine ? 1 : 0;
  const trimAll = opts.trim !== 'unquoted';
  // UTF-8 found valid goes to the parser as it is; anything else is decoded on the way.
  const decoded = !(encoding === 'utf-8' && given === undefined);
  // Lines with no quote are read without csv-parse, until one that needs it (see PlainCsvLines).
  const plain = opts.plainLines !== false && !decoded && trimAll && badBytes.size === 0 && PlainCsvLines.usable(delimiter);
  // Loaded only when needed (a file with no quotes is read whole by PlainCsvLines); otherwise before the file is
  // opened, so that the parser and its error listener are there before anything can fail.
  let parse = plain ? undefined : (await import('csv-parse')).parse;
  const raw = 'path' in source ? createReadStream(source.path) : source.stream;
  const input = decoded ? raw.pipe(toUtf8(encoding, given !== undefined)) : raw;
  if (input !== raw) raw.on('error', (e: Error) => input.destroy(e));
  // Kept to name the column of a record skipped later (report mode).
  let header: string[] | undefined;
  let row = 0;
  // Records read, the `sep=` line's too: by PlainCsvLines first, then by csv-parse, whose counts start after them.
  let read = 0;
  let readPlain = 0;
  const recordOf = (values: string[]): CsvRecord | undefined => {
    if (++read <= skipped) return undefined;
    row++;
    if (trimAll) for (let i = 0; i < values.length; i++) values[i] = values[i].trim();
    if (row === 1) header = values;
    return badBytes.size ? withBadBytes({ row, values }) : { row, values };
  };
  // Records csv-parse skipped for a fault, in file order, each yielded in its place (see `take` below).
  const skippedRecords: SkippedRecord[] = [];
  let lastSkipped: SkippedRecord | undefined;
  let parser: Transform | undefined;
  const onSkip = (err: CsvError | undefined): undefined => {
    if (!err) return;
    const state = (parser as unknown as { state?: ParserState }).state;
    const cells = Array.isArray(state?.record) ? (state.record as string[]) : undefined;
    const records = Number(err.records ?? 0) + readPlain;
    const last = lastSkipped;
    // Another fault of the same record (csv-parse reads on and may trip again): csv-parse keeps one array per record.
    const same = last !== undefined && last.records === records && (cells !== undefined ? last.cells === cells : true);
    const rec: SkippedRecord = same ? last : { records, cells: cells ?? [], faults: [], stopped: false };
    if (!same) skippedRecords.push(rec);
    lastSkipped = rec;
    const column = typeof err.column === 'number' ? err.column : undefined;
    if (!rec.faults.some((f) => f.column === column)) rec.faults.push({ code: err.code, message: err.message, column });
    if ((err as { readOn?: boolean }).readOn) return undefined;
    if (err.code === 'CSV_INVALID_CLOSING_QUOTE' && typeof state?.quoting === 'boolean') {
      // csv-parse would read on inside the quotes, taking the rows below into this cell until some other quote;
      // a spreadsheet ends the quoted part here and the cell at the next separator, and so must the row count.
      state.quoting = false;
      return undefined;
    }
    if (!READ_PAST.has(err.code ?? '') || err.code === 'CSV_INVALID_CLOSING_QUOTE') {
      rec.stopped = true;
      throw STOP_READING;
    }
    return undefined;
  };
  // Listened to for the whole read, also while the caller works on a batch: the parser goes on reading
  // meanwhile, and an 'error' nobody listens to would end the process. `wake` ends a wait for more.
  let failure: unknown;
  let wake: (() => void) | undefined;
  const onEvent = () => {
    const w = wake;
    wake = undefined;
    w?.();
  };
  const onError = (e: unknown) => {
    failure ??= e;
    onEvent();
  };
  /** csv-parse from `text` on (the whole input, or what PlainCsvLines left to it). */
  const startParser = (text: Readable, recordDelimiter: string | undefined, parse: typeof import('csv-parse').parse): Transform => {
    const started = text.pipe(
      parse({
        bom: readPlain === 0,
        delimiter,
        ...(recordDelimiter !== undefined ? { record_delimiter: recordDelimiter } : {}),
        relax_column_count: true,
        skip_empty_lines: false,
        max_record_size: 1024 * 1024,
        // csv-parse's own trim leaves quoted fields alone.
        trim: opts.trim === 'unquoted',
        ...(report ? { skip_records_with_error: true, on_skip: onSkip } : {}),
      }),
    );
    if (report && opts.trim === 'unquoted') readPastTextAfterQuote(started);
    text.on('error', (e: Error) => started.destroy(e));
    started.on('readable', onEvent);
    started.on('end', onEvent);
    started.on('close', onEvent);
    started.on('error', onError);
    return started;
  };
  // The records csv-parse skipped before its record number `upTo` (1-based), each in its place: it skipped
  // them without counting them, and rows are numbered as the user sees them, every record counted.
  const take = (upTo: number, batch: CsvRecord[]) => {
    while (skippedRecords.length && skippedRecords[0].records < upTo) {
      const rec = skippedRecords.shift()!;
      row++;
      const values = rec.cells;
      if (trimAll) for (let i = 0; i < values.length; i++) values[i] = values[i].trim();
      const problems = rec.faults.map((f) => ({
        row,
        // csv-parse counts fields from 0; the user knows the column by its header.
        ...(f.column !== undefined ? { column: row === 1 ? String(f.column + 1) : columnName(header, f.column) } : {}),
        message: explainCsvError(f.code, f.message) + (rec.stopped ? ' (the file cannot be read past this row: no row after it was checked)' : ''),
      }));
      if (row === 1) header = values;
      const complete = !rec.stopped && !rec.faults.some((f) => f.code === 'CSV_QUOTE_NOT_CLOSED');
      batch.push(withBadBytes({ row, values, malformed: { problems, complete } }));
    }
  };
  try {
    if (plain) {
      const lines = new PlainCsvLines(delimiter);
      const chunks = raw[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
      for (;;) {
        const next = await chunks.next();
        const records = next.done ? lines.end() : lines.push(next.value);
        if (records === undefined) {
          const rest = lines.rest();
          const more = next.done ? undefined : chunks;
          // (The rest is read only once piped: nothing can fail while csv-parse loads.)
          const text = Readable.from(restOfFile(rest, more), { objectMode: false });
          parse ??= (await import('csv-parse')).parse;
          parser = startParser(text, lines.lineEnding(), parse);
          break;
        }
        const batch: CsvRecord[] = [];
        for (const values of records) {
          const rec = recordOf(values);
          if (rec) batch.push(rec);
        }
        readPlain = read;
        if (batch.length) yield batch;
        if (next.done) return;
      }
    } else {
      parser = startParser(input, undefined, parse ?? (await import('csv-parse')).parse);
    }
    for (;;) {
      if (failure !== undefined && failure !== STOP_READING) throw failure;
      const batch: CsvRecord[] = [];
      let record: string[] | null;
      while ((record = parser.read() as string[] | null) !== null) {
        if (report) take(read + 1, batch);
        const rec = recordOf(record);
        if (rec) batch.push(rec);
      }
      const ended = parser.readableEnded || parser.destroyed;
      // Records skipped after the last one given: they are complete once the parser has ended (or stopped).
      if (ended && report) take(Infinity, batch);
      if (batch.length) {
        yield batch;
        continue;
      }
      if (ended) {
        // Stopped at a fault it cannot read past: that record says so, and the read ends as if the file did.
        if (failure === STOP_READING) break;
        if (failure !== undefined || parser.errored) throw failure ?? parser.errored;
        break;
      }
      await new Promise<void>((resolveMore) => (wake = resolveMore));
    }
  } catch (e) {
    const err = e as NodeJS.ErrnoException & { records?: number };
    if (err.code === 'ENOENT') throw new UsageError(`no such file: ${name}`);
    if (err.code === 'ERR_ENCODING_INVALID_ENCODED_DATA') {
      // Every row that has such bytes, not only the first the decoder tripped on.
      if ('path' in source) throw await givenEncodingError(source.path, name, encoding, delimiter);
      const line = (err as { line?: number }).line ?? row + 1 + skipped;
      throw new InputError(`${name} is not valid ${encoding} text`, [{ row: line - skipped, message: `bytes that are not ${encoding} (on line ${line} of the file)` }], {
        hint: GIVEN_ENCODING_HINT,
      });
    }
    const isCsvError = (e as Error)?.constructor?.name === 'CsvError' || (typeof err.code === 'string' && /^(CSV_|INVALID_)/.test(err.code));
    if (isCsvError) {
      const { records, column } = err as { records?: number; column?: unknown };
      const at = (records !== undefined ? records + readPlain - skipped : row) + 1;
      // csv-parse counts fields from 0; the user knows the column by its header.
      const header = typeof column === 'number' && at > 1 && 'path' in source ? await headerOf(source.path, encoding, delimiter, skipped) : undefined;
      const where = typeof column === 'number' ? { column: at === 1 ? String(column + 1) : columnName(header, column) } : {};
      throw new InputError(`${name} is not a readable CSV file`, [{ row: at, ...where, message: explainCsvError(err.code, err.message) }]);
    }
    throw e;
  } finally {
    if (parser) {
      parser.off('readable', onEvent);
      parser.off('end', onEvent);
      parser.off('close', onEvent);
      // Still listened to: a parser that fails after we stopped reading must not end the process.
      parser.off('error', onError);
      parser.on('error', () => undefined);
    }
    if ('path' in source) {
      raw.destroy();
      input.destroy();
    }
  }
}
