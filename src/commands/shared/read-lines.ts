// Reading lists of references from a file or stdin ("-"), shared by commands that take many references.
import { readFile } from 'node:fs/promises';
import type { Ctx } from '../../context.js';
import { UsageError } from '../../errors.js';

/** A comment: a `#` that starts the line or follows a space, alone or followed by a space, to the end of the line. */
const COMMENT = /(^|\s)#(\s.*)?$/;

/**
 * The non-blank lines of a file or of stdin ("-"), trimmed, without comments (`ORD-1 # gift` is ORD-1). `#1005`
 * is a reference (Shopify names its orders so), not a comment.
 */
export async function readLines(ctx: Ctx, path: string, command = 'cancel'): Promise<string[]> {
  let text: string;
  if (path === '-') {
    if (ctx.io.stdinIsTTY) throw new UsageError('reading references from stdin, but stdin is a terminal', { hint: `pipe them in, e.g. \`cut -d, -f1 refs.csv | ship ${command} -\`` });
    const chunks: Buffer[] = [];
    for await (const c of ctx.io.stdin) chunks.push(typeof c === 'string' ? Buffer.from(c) : (c as Buffer));
    text = Buffer.concat(chunks).toString('utf8');
  } else {
    try {
      text = await readFile(path, 'utf8');
    } catch (e) {
      throw new UsageError(`cannot read ${path}: ${(e as Error).message}`);
    }
  }
  return text
    .replace(/^\uFEFF/, '')
    .split(/\r?\n/)
    .map((l) => l.replace(COMMENT, '').trim())
    .filter((l) => l !== '');
}

/**
 * The references of a command that takes many: its arguments (each "-" reads stdin, once) and then the lines
 * of --from FILE, trimmed, blanks dropped, in order (repeats are the caller's to handle).
 */
export async function collectRefs(ctx: Ctx, args: readonly string[], from: string | undefined, command: string): Promise<string[]> {
  const refs: string[] = [];
  let stdinUsed = false;
  for (const r of args) {
    if (r === '-') {
      if (stdinUsed) continue;
      stdinUsed = true;
      refs.push(...(await readLines(ctx, '-', command)));
    } else if (r.trim()) refs.push(r.trim());
  }
  if (from) {
    if (from === '-' && stdinUsed) throw new UsageError('stdin given twice (- and --from -)');
    refs.push(...(await readLines(ctx, from, command)));
  }
  return refs;
}

/** The list a command was given to read references from (--from FILE, or - for stdin), named for messages. */
export function listGiven(args: readonly string[], from: string | undefined): string | undefined {
  if (from !== undefined) return from === '-' ? 'stdin' : from;
  return args.includes('-') ? 'stdin' : undefined;
}
