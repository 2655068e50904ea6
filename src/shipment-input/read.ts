// Reading small input files (--file, --map) from a path or from stdin.
import type { Ctx } from '../context.js';
import { UsageError } from '../errors.js';

/**
 * `FLAG -` reads a file from stdin: refused when stdin is a terminal, where it would wait silently for input
 * nobody meant to give.
 */
export function refuseTerminalStdin(ctx: Ctx, flag: string): void {
  if (ctx.io.stdinIsTTY) throw new UsageError(`${flag} -: reading a file from stdin, but stdin is a terminal`, { hint: 'pipe the file in, or give its path instead of -' });
}

/** The same for a terminal given by its path (`--csv /dev/tty`): read, it would wait for typing with no prompt. */
export async function refuseTerminalPath(path: string, flag: string): Promise<void> {
  const { closeSync, openSync, statSync } = await import('node:fs');
  const { isatty } = await import('node:tty');
  if (!statSync(path, { throwIfNoEntry: false })?.isCharacterDevice()) return;
  let fd: number | undefined;
  try {
    fd = openSync(path, 'r');
  } catch {
    return; // the read itself says what is wrong
  }
  try {
    if (isatty(fd)) throw new UsageError(`${flag} ${path}: reading a file from a terminal`, { hint: 'give the file\'s path, or pipe it in' });
  } finally {
    closeSync(fd);
  }
}

/** Reads a whole small file, or stdin for "-" (`flag` names the option), without a leading byte-order mark. */
export async function readInputText(ctx: Ctx, path: string, flag: string): Promise<string> {
  if (path === '-') {
    refuseTerminalStdin(ctx, flag);
    const chunks: Buffer[] = [];
    for await (const c of ctx.io.stdin) chunks.push(Buffer.isBuffer(c) ? c : Buffer.from(String(c)));
    return withoutBom(Buffer.concat(chunks).toString('utf8'));
  }
  const { readFile } = await import('node:fs/promises');
  try {
    return withoutBom(await readFile(path, 'utf8'));
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    throw new UsageError(err.code === 'ENOENT' ? `no such file: ${path}` : `cannot read ${path}: ${err.message}`);
  }
}

/** The text without a leading UTF-8 byte-order mark: Windows Notepad writes one, and JSON.parse refuses it. */
export function withoutBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}
