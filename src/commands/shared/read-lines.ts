// Reading lists of references from a file or stdin ("-"), shared by commands that take many references.
import { readFile } from 'node:fs/promises';
import type { Ctx } from '../../context.js';
import { UsageError } from '../../errors.js';

/**
 * The non-blank lines of a file or of stdin ("-"), trimmed, without comments: a line that is `#` alone or starts
 * with `# ` (a `#` and a space). `#1005` is a reference (Shopify names its orders so), not a comment.
 */
export async function readLines(ctx: Ctx, path: string): Promise<string[]> {
  let text: string;
  if (path === '-') {
    if (ctx.io.stdinIsTTY) throw new UsageError('reading references from stdin, but stdin is a terminal', { hint: 'pipe them in, e.g. `cut -d, -f1 refs.csv | ship cancel -`' });
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
    .map((l) => l.trim())
    .filter((l) => l !== '' && l !== '#' && !/^#\s/.test(l));
}
