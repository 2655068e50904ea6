// Runs `ship` in-process with buffers for stdout/stderr, so command tests take milliseconds.
import { PassThrough, Readable } from 'node:stream';
import { main } from '../../src/main.js';
import type { IO } from '../../src/output/io.js';

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  env?: Record<string, string | undefined>;
  stdin?: string;
  /** Pretend stdin/stdout/stderr are a terminal. */
  tty?: boolean;
}

/** An IO over in-memory buffers, plus accessors for what was written. */
export function bufferIO(opts: { stdin?: string; tty?: boolean } = {}): IO & { out(): string; err(): string } {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const outChunks: Buffer[] = [];
  const errChunks: Buffer[] = [];
  stdout.on('data', (c: Buffer) => outChunks.push(Buffer.from(c)));
  stderr.on('data', (c: Buffer) => errChunks.push(Buffer.from(c)));
  return {
    stdin: Readable.from(opts.stdin !== undefined ? [opts.stdin] : []),
    stdout,
    stderr,
    stdinIsTTY: Boolean(opts.tty),
    stdoutIsTTY: Boolean(opts.tty),
    stderrIsTTY: Boolean(opts.tty),
    columns: 120,
    out: () => Buffer.concat(outChunks).toString('utf8'),
    err: () => Buffer.concat(errChunks).toString('utf8'),
  };
}

/** Runs `ship ARGS…` in this process and returns its exit code and output. */
export async function runShip(args: string[], opts: RunOptions = {}): Promise<RunResult> {
  const io = bufferIO({ stdin: opts.stdin, tty: opts.tty });
  const code = await main(args, { io, env: { NO_COLOR: '1', ...opts.env }, handleSignals: false });
  await new Promise((r) => setImmediate(r));
  return { code, stdout: io.out(), stderr: io.err() };
}
