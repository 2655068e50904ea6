// How commands print: stdout is data, stderr is talk. Every command goes through this, never console.*.
import { stripVTControlCharacters } from 'node:util';
import { Chalk, type ChalkInstance } from 'chalk';
import type { IO } from './io.js';
import { redact } from './redact.js';
import { WaitIndicator } from './wait.js';
import { inert, inertData } from './inert.js';
import { cellWidth } from './width.js';
import { wrapMessageLine } from './wrap.js';

/** A command a line gives to run: `ship …` in backquotes, or after a colon (`Add shipments with: ship create …`). */
const HOLDS_COMMAND = /`ship |(^|: )ship [a-z]/;

/** Global output mode, derived from --json/--quiet/--verbose and the terminal. */
export interface OutputMode {
  json: boolean;
  quiet: boolean;
  verbose: boolean;
  color: boolean;
  /**
   * Colour may go to stdout too (false when only stderr is a terminal: `ship track X | cat` must get plain
   * text, while its warnings on the terminal stay coloured). Absent: as `color`.
   */
  stdoutColor?: boolean;
  /** A person is there: prompts, spinners and progress bars are allowed. */
  interactive: boolean;
  /**
   * The terminal cannot redraw a line (TERM=dumb: an editor's shell buffer, a serial console): no spinners or
   * progress bars, which would print their every frame. Prompts still work.
   */
  dumbTerminal?: boolean;
}

/**
 * Whether spinners and progress bars may be drawn on stderr: a person is there, at a terminal that can redraw a
 * line, and no machine output or --quiet asked for silence.
 */
export function animationsAllowed(mode: OutputMode, io: Pick<IO, 'stderrIsTTY'>): boolean {
  return mode.interactive && !mode.dumbTerminal && io.stderrIsTTY && !mode.json && !mode.quiet;
}

/** A column of a table: header text and how to get the cell from a row. */
export interface Column<T> {
  header: string;
  value: (row: T) => string | number | boolean | null | undefined;
  /** Right-align (numbers, money). */
  align?: 'left' | 'right';
}

/** Renderer bound to the injected streams. */
export class Output {
  readonly c: ChalkInstance;
  /** The spinner shown while a person waits (only where progress bars are shown too). */
  readonly wait: WaitIndicator;
  constructor(
    readonly io: IO,
    readonly mode: OutputMode,
    /** Secrets masked in warnings and traces (the context's live set). */
    private readonly secrets: Iterable<string> = [],
  ) {
    this.c = new Chalk({ level: mode.color ? 2 : 0 });
    this.plainStdout = mode.color && mode.stdoutColor === false;
    // A real terminal only (`isTTY` on the stream itself): in-process tests that only say "TTY" get no spinner.
    const terminal = (io.stderr as { isTTY?: boolean }).isTTY === true;
    this.wait = new WaitIndicator({ stream: io.stderr, enabled: terminal && animationsAllowed(mode, io) });
  }

  /** Colour is on for stderr's sake only: what goes to stdout loses its escapes. */
  private readonly plainStdout: boolean;

  private toStdout(text: string): void {
    const plain = this.plainStdout ? stripVTControlCharacters(text) : text;
    this.io.stdout.write(this.io.stdoutIsTTY ? inert(plain) : plain);
  }

  /** Talk for a person on stderr: a terminal does not obey control characters in it (see inert). */
  private toStderr(text: string): void {
    this.io.stderr.write(this.io.stderrIsTTY ? inert(text) : text);
  }

  /** Lines held back by batchLines(), written together at the end of the event-loop turn. */
  private pending = '';
  private batching = 0;
  private flushScheduled = false;

  /**
   * Until the returned function is called, lines to a stdout that is not a terminal (a pipe or file) are
   * written together once per event-loop turn (or every 64 KB) instead of one write each: a bulk run prints
   * a line per task, and a write to a pipe is a system call (~10 µs) each. Nothing is held longer than the
   * turn, and the returned function writes whatever is left. A terminal still gets every line at once.
   */
  batchLines(): () => void {
    if (this.io.stdoutIsTTY) return () => undefined;
    this.batching++;
    // A process that ends abruptly (a second Ctrl-C) still writes what it held back: stdout to a pipe or a
    // file is written synchronously, so this completes before the process is gone.
    const atExit = () => this.flushLines();
    process.on('exit', atExit);
    let done = false;
    return () => {
      if (done) return;
      done = true;
      process.off('exit', atExit);
      this.batching--;
      this.flushLines();
    };
  }

  /** Writes the lines batchLines() held back. */
  flushLines(): void {
    if (this.pending === '') return;
    const text = this.pending;
    this.pending = '';
    this.toStdout(text);
  }

  private out(text: string): void {
    if (this.batching === 0) {
      this.flushLines();
      this.toStdout(text);
      return;
    }
    this.pending += text;
    if (this.pending.length >= 65_536) this.flushLines();
    else if (!this.flushScheduled) {
      this.flushScheduled = true;
      setImmediate(() => {
        this.flushScheduled = false;
        this.flushLines();
      });
    }
  }

  /** Writes raw text to stdout (data). */
  write(text: string): void {
    this.flushLines();
    this.toStdout(text);
  }

  /** Writes one line of data to stdout. */
  line(text = ''): void {
    this.out(text + '\n');
  }

  /** Writes exactly one JSON document to stdout. */
  json(value: unknown): void {
    this.flushLines();
    this.io.stdout.write(JSON.stringify(value, null, 2) + '\n');
  }

  /** Writes one NDJSON line to stdout (bulk commands). */
  jsonLine(value: unknown): void {
    this.out(JSON.stringify(value) + '\n');
  }

  /** Talk on stderr, hidden by --quiet; under --json one line `{"info":{"message":…}}`. */
  info(text: string): void {
    if (this.mode.quiet) return;
    if (this.mode.json) this.talkLine('info', text);
    else this.toStderr(`${this.fitted(text, '  ')}\n`);
  }

  /** A success line on stderr (green tick on a TTY), hidden by --quiet; under --json an info line, as info(). */
  success(text: string): void {
    if (this.mode.quiet) return;
    if (this.mode.json) this.talkLine('info', text);
    else this.toStderr(`${this.fitted(`${this.c.green('✓')} ${text}`, '  ')}\n`);
  }

  /**
   * Each line of `text` broken between words on a terminal (which would break it mid-word at its edge); not a
   * line holding a command to copy (`ship …`, in backquotes or after a colon), which a hard break would cut in two
   * when pasted: the terminal's own wrapping is copied as one line.
   */
  private fitted(text: string, indent: string): string {
    const width = this.io.stderrIsTTY ? this.io.columns : undefined;
    return width ? text.split('\n').map((l) => (HOLDS_COMMAND.test(l) ? l : wrapMessageLine(l, width, indent))).join('\n') : text;
  }

  /**
   * A warning on stderr; shown even with --quiet, since it may change what a script should do. Under --json
   * one line `{"warning":{"message":…}}`.
   */
  warn(text: string): void {
    if (this.mode.json) this.talkLine('warning', redact(text, this.secrets));
    else {
      this.toStderr(`${this.fitted(`${this.c.yellow('warning:')} ${redact(text, this.secrets)}`, '  ')}\n`);
    }
  }

  /**
   * Under --json a script reads stderr as JSON lines (beside `{"error":…}` and a bulk run's `{"summary":…}`):
   * talk is one JSON object a line too, its text without colour (a caller may have styled part of it).
   */
  private talkLine(kind: 'info' | 'warning', text: string): void {
    this.io.stderr.write(JSON.stringify({ [kind]: { message: stripVTControlCharacters(text) } }) + '\n');
  }

  /** A --verbose trace line on stderr (secrets masked here too: a server's message may quote them). */
  debug(text: string): void {
    if (this.mode.verbose) this.toStderr(this.c.dim(redact(text, this.secrets)) + '\n');
  }

  /**
   * Prints rows to stdout: a boxed table with headers on a TTY; tab-separated lines without
   * headers otherwise, so `cut` and `awk` work on it.
   */
  async table<T>(rows: readonly T[], columns: readonly Column<T>[]): Promise<void> {
    if (!this.io.stdoutIsTTY) {
      for (const r of rows) this.line(columns.map((col) => tsvCell(cellText(col.value(r)))).join('\t'));
      return;
    }
    // Control characters shown as escapes before the cells are measured (see inert), so the borders line up.
    const cells = rows.map((r) => columns.map((col) => inertData(cellText(col.value(r)))));
    const terminalWidth = this.io.columns || 80;
    const values = columns.map((_, i) => Math.max(0, ...cells.map((row) => longestLine(row[i]))));
    const natural = columns.map((col, i) => Math.max(cellWidth(col.header), values[i]));
    const words = columns.map((col, i) => Math.max(longestWord(col.header), ...cells.map((row) => longestWord(row[i]))));
    // Two ways to fit: the widest columns first, or the headers wrapped before the values; the one whose table
    // is shorter (ties: widest first). Wrapping headers only helps when it spares values a wrap.
    const widest = fitColumns(natural, terminalWidth, words);
    const headersFirst = fitColumns(natural, terminalWidth, words, columns.map((col, i) => Math.max(longestWord(col.header), values[i])));
    const heads = columns.map((col) => col.header);
    const widths = widest && headersFirst && tableHeight(heads, cells, headersFirst) < tableHeight(heads, cells, widest) ? headersFirst : widest;
    // Wider than the terminal even with every column wrapped between words: a boxed table would either be
    // wrapped by the terminal line by line, borders and all, or cut words in two (a tracking reference, a
    // service key, "create/d"), which then read as two values. One block of "Header  value" lines per row
    // instead (like psql's expanded display), which any width shows whole.
    if (widths && widths.reduce((a, b) => a + b, 0) + widths.length + 1 > terminalWidth) {
      this.records(cells, columns.map((col) => col.header));
      return;
    }
    const { default: Table } = await import('cli-table3');
    const table = new Table({
      head: columns.map((col) => this.c.bold(col.header)),
      colAligns: columns.map((col) => col.align ?? 'left'),
      style: {
        head: [],
        border: this.mode.color ? ['grey'] : [],
        // Rule lines between rows only help when cells wrap onto several lines; otherwise they double a long listing.
        compact: !widths && !cells.some((row) => row.some((c) => c.includes('\n'))),
      },
      wordWrap: true,
      wrapOnWordBoundary: true,
      ...(widths ? { colWidths: widths } : {}),
    });
    for (const row of cells) table.push(row);
    this.line(table.toString());
  }

  /** Rows as blocks of aligned `Header  value` lines, a blank line between blocks (a table too wide for the terminal). */
  private records(cells: string[][], headers: string[]): void {
    const width = Math.max(0, ...headers.map((h) => h.length));
    const blocks = cells.map((row) =>
      headers
        .flatMap((h, i) => {
          // A column without a header (a marker such as the recommended ★) says nothing on rows that lack it.
          if (!h && !row[i]) return [];
          const [first = '', ...rest] = row[i].split('\n');
          return [`${h ? this.c.bold(h.padEnd(width)) : ' '.repeat(width)}  ${first}`.trimEnd(), ...rest.map((l) => `${' '.repeat(width + 2)}${l}`)].join('\n');
        })
        .join('\n'),
    );
    this.line(blocks.join('\n\n'));
  }

  /** Prints label/value pairs: aligned on a TTY, `key<TAB>value` otherwise. */
  keyValues(pairs: ReadonlyArray<readonly [string, unknown]>): void {
    const width = Math.max(0, ...pairs.map(([k]) => k.length));
    for (const [k, v] of pairs) {
      if (this.io.stdoutIsTTY) this.line(`${this.c.bold(k.padEnd(width))}  ${inertData(cellText(v))}`);
      // One line per pair, as a table's rows are: a multi-line value (a description) escaped, not split.
      else this.line(`${k}\t${tsvCell(cellText(v))}`);
    }
  }
}

/**
 * A cell of a tab-separated line: a tab or line break inside a value (a multi-line description) would split it
 * into more columns or lines, so they are written as \t and \n, and a backslash as \\ (the usual escapes).
 */
export function tsvCell(text: string): string {
  return /[\t\n\r\\]/.test(text) ? text.replace(/\\/g, '\\\\').replace(/\t/g, '\\t').replace(/\r\n|\n|\r/g, '\\n') : text;
}

/** A cell value as text: empty for null/undefined, yes/no for booleans. */
export function cellText(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'boolean') return v ? 'yes' : 'no';
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
}

/** Terminal cells of the widest line (a CJK character takes two, colour codes none). */
function longestLine(text: string): number {
  return Math.max(0, ...text.split('\n').map(cellWidth));
}

/** Lines a table takes with these column widths (padding included), its cells wrapped between words. */
function tableHeight(headers: readonly string[], rows: readonly string[][], widths: readonly number[]): number {
  const rowHeight = (cells: readonly string[]) => Math.max(1, ...cells.map((c, i) => wrappedLines(c, widths[i] - 2)));
  return rowHeight(headers) + rows.reduce((n, r) => n + rowHeight(r), 0);
}

/** Lines `text` takes wrapped between words at `width` cells (as cli-table3's wrapOnWordBoundary, near enough). */
function wrappedLines(text: string, width: number): number {
  let lines = 0;
  for (const line of text.split('\n')) {
    lines++;
    let used: number | undefined;
    for (const word of line.split(' ')) {
      const w = cellWidth(word);
      if (used === undefined) used = w;
      else if (used + 1 + w > width) {
        lines++;
        used = w;
      } else used += 1 + w;
    }
  }
  return lines;
}

/** Length of the longest whitespace-separated word: a column narrower than that would truncate data. */
function longestWord(text: string): number {
  return Math.max(0, ...text.split(/\s+/).map(cellWidth));
}

/**
 * Column widths (including 2 cells of padding) that fit the terminal, or undefined when the natural widths
 * already fit. Wide columns give up space first, by wrapping between words, down to their longest word (a word
 * is never cut): widths that still add up to more than the terminal mean the table cannot be shown whole.
 * With `softFloors` (per column, what it takes to wrap only its header: its values' widest line, at least its
 * header's longest word), every column first gives up what only its header needs, and values wrap only after:
 * a column of weights under a long header no longer keeps its width while the dimensions beside it wrap.
 */
export function fitColumns(natural: number[], terminalWidth: number, longestWords: number[] = [], softFloors: number[] = []): number[] | undefined {
  const borders = natural.length + 1;
  const want = natural.map((w) => w + 2);
  const floor = natural.map((w, i) => Math.min(w, longestWords[i] ?? 0) + 2);
  let total = want.reduce((a, b) => a + b, 0) + borders;
  if (total <= terminalWidth) return undefined;
  const soft = natural.map((w, i) => Math.max(floor[i], Math.min(w, softFloors[i] ?? w) + 2));
  for (const limit of [soft, floor]) {
    while (total > terminalWidth) {
      let widest = -1;
      for (let i = 0; i < want.length; i++) if (want[i] > limit[i] && (widest < 0 || want[i] > want[widest])) widest = i;
      if (widest < 0) break;
      want[widest]--;
      total--;
    }
  }
  return want;
}
