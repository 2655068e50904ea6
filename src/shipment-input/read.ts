// Reading small input files (--file, --map) from a path or from stdin.
import type { Ctx } from '../context.js';
import { UsageError } from '../errors.js';

/** Reads a whole small file, or stdin for "-". */
export async function readInputText(ctx: Ctx, path: string): Promise<string> {
  if (path === '-') {
    const chunks: Buffer[] = [];
    for await (const c of ctx.io.stdin) chunks.push(Buffer.isBuffer(c) ? c : Buffer.from(String(c)));
    return Buffer.concat(chunks).toString('utf8');
  }
  const { readFile } = await import('node:fs/promises');
  try {
    return await readFile(path, 'utf8');
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    throw new UsageError(err.code === 'ENOENT' ? `no such file: ${path}` : `cannot read ${path}: ${err.message}`);
  }
}
