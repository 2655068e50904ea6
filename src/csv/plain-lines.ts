// The quote-free part of a UTF-8 CSV file, read without csv-parse. csv-parse reads byte by byte (~90 ms for
// a 10,000-row file, a fifth of `create --csv`'s time before its first request); a run of lines with no quote
// and one kind of line ending is only lines split at the delimiter, which String.split does in a few ms.
// It gives exactly csv-parse's records for such lines (bom: true, relax_column_count, skip_empty_lines: false,
// no trim) and hands everything from the first line it cannot vouch for to csv-parse: a quote, a line ending
// other than the file's first one, a lone CR, a very long line.
const QUOTE = 0x22;
const CR = 0x0d;
const LF = 0x0a;
const BOM = Buffer.from([0xef, 0xbb, 0xbf]);

/** A longer line is left to csv-parse (its max_record_size applies to it, not to us)… */
const MAX_PENDING_BYTES = 256 * 1024;
/** …and so is a read of more complete lines than this at once (a stream's big chunk might hide such a line). */
const MAX_COMPLETE_BYTES = 512 * 1024;

export class PlainCsvLines {
  /** The start of a line not complete yet (once given up: all the text csv-parse is to read). */
  private pending: Buffer = Buffer.alloc(0);
  /** The file's line ending, from its first line (csv-parse's too: it keeps the first one it meets). */
  private ending: '\n' | '\r\n' | undefined;
  private started = false;
  /** The byte-order mark was dropped here: csv-parse gets it back if it is to read from the start. */
  private bomDropped = false;
  /** Records were given: csv-parse would start mid-file. */
  private gave = false;
  /** A line could not be vouched for: everything from `pending` on is csv-parse's. */
  private given = false;

  constructor(private readonly delimiter: string) {}

  /** Whether a file read with this delimiter and these options can start here at all. */
  static usable(delimiter: string): boolean {
    return delimiter.length === 1 && delimiter !== '"' && delimiter !== '\r' && delimiter !== '\n';
  }

  /**
   * The records of the lines `chunk` completes, or undefined once a line needs csv-parse: `rest()` is then
   * the file's text from that line on (this chunk included; later chunks go to csv-parse directly).
   */
  push(chunk: Buffer): string[][] | undefined {
    if (this.given) {
      this.pending = Buffer.concat([this.pending, chunk]);
      return undefined;
    }
    let buf = this.pending.length ? Buffer.concat([this.pending, chunk]) : chunk;
    if (!this.started) {
      // A UTF-8 byte-order mark, which csv-parse drops (bom: true): wait for three bytes to tell.
      if (buf.length < 3 && BOM.subarray(0, buf.length).equals(buf)) {
        this.pending = Buffer.from(buf);
        return [];
      }
      if (BOM.equals(buf.subarray(0, 3))) {
        buf = buf.subarray(3);
        this.bomDropped = true;
      }
      this.started = true;
    }
    const lastLf = buf.lastIndexOf(LF);
    if (lastLf < 0) return this.keep(buf, []);
    const complete = buf.subarray(0, lastLf + 1);
    if (this.ending === undefined) {
      const firstLf = complete.indexOf(LF);
      this.ending = firstLf > 0 && complete[firstLf - 1] === CR ? '\r\n' : '\n';
    }
    if (complete.length > MAX_COMPLETE_BYTES || complete.indexOf(QUOTE) >= 0 || !this.endingsAreAll(complete)) return this.giveUp(buf);
    const text = complete.toString('utf8', 0, complete.length - this.ending.length);
    const lines = text.split(this.ending);
    const records: string[][] = new Array(lines.length);
    for (let i = 0; i < lines.length; i++) records[i] = lines[i].split(this.delimiter);
    return this.keep(buf.subarray(lastLf + 1), records);
  }

  /** The records of the last line (the file does not end with a line ending), or undefined: see push. */
  end(): string[][] | undefined {
    if (this.given) return undefined;
    const buf = this.pending;
    if (!this.started && buf.length) return this.giveUp(buf);
    if (buf.length === 0) return [];
    // A CR at the end stays in the last cell for csv-parse whatever the line ending; a quote is its to read.
    if (buf.indexOf(QUOTE) >= 0 || buf.indexOf(CR) >= 0) return this.giveUp(buf);
    this.pending = Buffer.alloc(0);
    return [buf.toString('utf8').split(this.delimiter)];
  }

  /** The text csv-parse reads on from (the line that could not be vouched for, and whatever follows it). */
  rest(): Buffer {
    return this.pending;
  }

  /**
   * The line ending of the first line, to give csv-parse when it reads on after records were given; undefined
   * before that (csv-parse finds it itself: a lone CR before the first LF is the file's line ending for it).
   */
  lineEnding(): '\n' | '\r\n' | undefined {
    return this.gave ? this.ending : undefined;
  }

  private keep(pending: Buffer, records: string[][]): string[][] {
    if (records.length) this.gave = true;
    if (pending.length > MAX_PENDING_BYTES) {
      // The lines before it are ours; that long line, and all after it, csv-parse's.
      this.giveUp(pending);
      return records;
    }
    // A copy: a slice would keep the whole chunk it came from alive.
    this.pending = pending.length ? Buffer.from(pending) : Buffer.alloc(0);
    return records;
  }

  private giveUp(buf: Buffer): undefined {
    // From the start of the file, csv-parse reads it as it is, byte-order mark included (it drops one only).
    this.pending = this.bomDropped && !this.gave ? Buffer.concat([BOM, buf]) : buf;
    this.given = true;
    return undefined;
  }

  /** Every CR and LF of `complete` is part of the file's line ending. */
  private endingsAreAll(complete: Buffer): boolean {
    if (this.ending === '\n') return complete.indexOf(CR) < 0;
    for (let at = complete.indexOf(CR); at >= 0; at = complete.indexOf(CR, at + 2)) {
      if (complete[at + 1] !== LF) return false;
    }
    for (let at = complete.indexOf(LF); at >= 0; at = complete.indexOf(LF, at + 1)) {
      if (complete[at - 1] !== CR) return false;
    }
    return true;
  }
}
