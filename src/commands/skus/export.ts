// `ship skus export -o FILE.csv|-`: every SKU in the import format, streamed page by page.
import { createWriteStream, statSync } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { once } from 'node:events';
import { dirname, join, resolve } from 'node:path';
import type { Writable } from 'node:stream';
import type { Ctx } from '../../context.js';
import { UsageError } from '../../errors.js';
import { writeSkuCsv } from '../../skus/export.js';
import { walkSkuPages } from '../../skus/pages.js';
import { skuPageSource } from './list.js';
import { isSpecialFile, stdoutAlias } from '../../util/special-file.js';
import { tempPathBeside } from '../../util/own-files.js';

/**
 * Exports every SKU; a file is written to a temporary FILE.PID.RANDOM.partial beside it (created exclusively:
 * never through a link or into a file someone put there) and renamed when complete, so it is never half there.
 */
export async function runExport(ctx: Ctx, opts: { output: string; lookahead?: number }): Promise<void> {
  opts = { ...opts, output: stdoutAlias(opts.output) };
  const toStdout = opts.output === '-';
  if (toStdout && ctx.mode.json) throw new UsageError('-o - writes the CSV to stdout; it cannot be combined with --json');
  const src = await skuPageSource(ctx);
  const path = toStdout ? undefined : resolve(opts.output);
  // Refused before any request: a directory is not a file to write (it failed after every page was fetched).
  if (path && statSync(path, { throwIfNoEntry: false })?.isDirectory()) throw new UsageError(`-o ${opts.output} is a directory: give the CSV file's name (e.g. ${join(opts.output, 'skus.csv')})`);
  // A device or a pipe (/dev/null, /dev/stdout) is written in place: a rename would replace it with a file.
  const direct = path !== undefined && isSpecialFile(path);
  const partial = path ? (direct ? path : tempPathBeside(path, 'partial')) : undefined;
  let out: Writable;
  if (partial) {
    out = createWriteStream(partial, { flags: direct ? 'w' : 'wx' });
    await once(out, 'open').catch((e: NodeJS.ErrnoException) => {
      const why = e.code === 'ENOENT' ? `its directory ${dirname(path!)} does not exist` : e.code === 'EACCES' || e.code === 'EPERM' ? `no permission to write in ${dirname(path!)}` : e.message;
      throw new UsageError(`cannot write ${opts.output}: ${why}`);
    });
  } else out = ctx.io.stdout;

  // Ctrl-C (or a cron job's SIGTERM) stops the walk through ctx.signal instead of exiting on the spot, so the
  // cleanup below runs: no FILE.partial beside the file, no spool of SKU rows left in the temporary directory.
  const releaseInterrupts = ctx.holdInterrupts();
  const progress = ctx.mode.interactive && !ctx.mode.json && !ctx.mode.quiet;
  let shown = 0;
  // Its own count of SKUs on stderr says how far it got: no spinner on that line.
  const resumeWait = ctx.out.wait.suspend();
  try {
    const r = await writeSkuCsv(walkSkuPages(src, { signal: ctx.signal, lookahead: opts.lookahead }), out, {
      onPage: (n) => {
        if (progress && n - shown >= 300) {
          shown = n;
          ctx.io.stderr.write(`\rExporting… ${n} SKUs`);
        }
      },
    });
    if (progress && shown > 0) ctx.io.stderr.write('\r\x1b[K');
    if (partial && path) {
      out.end();
      await once(out, 'close');
      if (partial !== path) await rename(partial, path);
    }
    if (ctx.mode.json) return ctx.out.json({ path, count: r.count, custom_fields: r.customKeys });
    if (ctx.mode.quiet) {
      if (path) ctx.out.line(path);
      return;
    }
    ctx.out.success(`${r.count} SKU${r.count === 1 ? '' : 's'} written to ${path ?? 'stdout'}`);
  } catch (err) {
    if (partial) {
      out.destroy();
      if (partial !== path) await rm(partial, { force: true });
    }
    throw err;
  } finally {
    releaseInterrupts();
    resumeWait();
  }
}
