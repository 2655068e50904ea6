// The streams and terminal facts a command may use; injected so commands run in tests without a process.
import type { Readable, Writable } from 'node:stream';

/** Streams plus what we know about the terminal behind them. */
export interface IO {
  stdin: Readable;
  stdout: Writable;
  stderr: Writable;
  /** stdin is a terminal a person can type into. */
  stdinIsTTY: boolean;
  /** stdout is a terminal (tables with headers, not TSV). */
  stdoutIsTTY: boolean;
  /** stderr is a terminal (spinners, progress bars). */
  stderrIsTTY: boolean;
  /** Terminal width for tables, when known (read when asked: the terminal may be resized while a command runs). */
  readonly columns?: number;
  /** Terminal height, when known (read when asked, like columns): a redraw cannot move up past the screen's top. */
  readonly rows?: number;
}

/** The IO of the running process. */
export function processIO(): IO {
  return {
    stdin: process.stdin,
    stdout: process.stdout,
    stderr: process.stderr,
    stdinIsTTY: Boolean(process.stdin.isTTY),
    stdoutIsTTY: Boolean(process.stdout.isTTY),
    stderrIsTTY: Boolean(process.stderr.isTTY),
    // A getter, not a value: a progress line or a --watch redraw measured against the width the terminal had
    // at the start wraps (and leaves a trail of copies) once the window is made narrower.
    get columns() {
      return terminalColumns();
    },
    get rows() {
      for (const stream of [process.stdout, process.stderr]) if (stream.isTTY && stream.rows > 0) return stream.rows;
      return undefined;
    },
  };
}

/**
 * The terminal's width: stdout's, else stderr's (`ship … | less` still draws progress on a terminal), else
 * COLUMNS (a terminal that reports 0 columns, or none at all).
 */
function terminalColumns(): number | undefined {
  for (const stream of [process.stdout, process.stderr]) if (stream.isTTY && stream.columns > 0) return stream.columns;
  const fromEnv = Number(process.env.COLUMNS);
  return Number.isInteger(fromEnv) && fromEnv > 0 ? fromEnv : undefined;
}

/** Whether colour is on: NO_COLOR always wins, FORCE_COLOR forces it, otherwise only on a TTY outside CI. */
export function colorEnabled(env: Record<string, string | undefined>, isTTY: boolean, noColorFlag = false): boolean {
  if (noColorFlag) return false;
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.FORCE_COLOR !== undefined) return env.FORCE_COLOR !== '0' && env.FORCE_COLOR !== 'false';
  if (env.TERM === 'dumb') return false;
  return isTTY && !isCI(env);
}

/** CI is set (any value but empty/false). */
export function isCI(env: Record<string, string | undefined>): boolean {
  return envFlag(env.CI);
}

/** An environment switch: on when set to anything but empty, 0, false or no (any case). */
export function envFlag(v: string | undefined): boolean {
  return v !== undefined && !['', '0', 'false', 'no'].includes(v.trim().toLowerCase());
}
