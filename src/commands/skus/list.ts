// `ship skus list`: one page, or every page streamed (table, NDJSON) or gathered (one JSON array, written whole).
import type { Ctx } from '../../context.js';
import { cellText } from '../../output/output.js';
import type { SkuRecord } from '../../skus/columns.js';
import { pageNumberOf, walkSkuPages, type SkuListPage, type SkuPageSource } from '../../skus/pages.js';
import { fit, SKU_TABLE, writeOut } from './render.js';
import { inertData } from '../../output/inert.js';

/** Options of `skus list`. */
export interface ListOptions {
  page: number;
  all: boolean;
  ndjson: boolean;
  /** --all: pages requested ahead (walkSkuPages' lookahead; default 8, 0 for one after another). */
  lookahead?: number;
}

/** The API's SKU pages as the pager wants them, bound to the run's abort signal. */
export async function skuPageSource(ctx: Ctx): Promise<SkuPageSource> {
  const api = await ctx.api();
  return {
    list: (q) => api.skus.list(q, { signal: ctx.signal }) as Promise<SkuListPage>,
    page: (url) => api.skus.page(url, { signal: ctx.signal }) as Promise<SkuListPage>,
  };
}

/** Lists SKUs; with --all goes through every page in constant memory while the next pages are fetched. */
export async function runList(ctx: Ctx, opts: ListOptions): Promise<void> {
  const src = await skuPageSource(ctx);
  const pages: AsyncIterable<SkuListPage> = opts.all ? walkSkuPages(src, { signal: ctx.signal, lookahead: opts.lookahead }) : onePage(src, opts.page);
  // --quiet: the SKU codes only, one per line (as the other list commands print their keys).
  const format = opts.ndjson ? 'ndjson' : ctx.mode.json ? 'json' : ctx.mode.quiet ? 'quiet' : ctx.io.stdoutIsTTY ? 'tty' : 'tsv';
  let count = 0;
  let last: SkuListPage | undefined;

  if (format === 'json') {
    // One JSON array: `[`, one SKU per element, `]`. Of every page, it is gathered in a temporary file and
    // written out whole at the end (in constant memory): a run that fails or is stopped part way leaves nothing
    // on stdout, never an array cut short (--ndjson streams, each line whole).
    const spool = opts.all ? await openSpool() : undefined;
    const put = (text: string) => (spool ? spool.write(text) : writeOut(ctx, text));
    try {
      let sep = '[\n  ';
      for await (const page of pages) {
        last = page;
        let chunk = '';
        for (const sku of page.data) {
          chunk += sep + JSON.stringify(sku);
          sep = ',\n  ';
          count++;
        }
        if (chunk) await put(chunk);
      }
      await put(count === 0 ? '[]\n' : '\n]\n');
      if (spool) await spool.copyTo(ctx);
    } finally {
      await spool?.remove();
    }
  } else if (format === 'quiet') {
    for await (const page of pages) {
      last = page;
      count += page.data.length;
      if (page.data.length) await writeOut(ctx, page.data.map((s: SkuRecord) => String(s.sku)).join('\n') + '\n');
    }
  } else if (format === 'ndjson') {
    for await (const page of pages) {
      last = page;
      count += page.data.length;
      if (page.data.length) await writeOut(ctx, page.data.map((s) => JSON.stringify(s)).join('\n') + '\n');
    }
  } else if (format === 'tsv' || !opts.all) {
    for await (const page of pages) {
      last = page;
      count += page.data.length;
      await ctx.out.table(page.data, SKU_TABLE);
    }
  } else {
    // A terminal and every page: fixed-width rows, so the table streams instead of waiting for the last page.
    const widths = [18, 28, 14, 9, 9, 6, 6, 8];
    const head = SKU_TABLE.map((c, i) => fit(c.header, widths[i], c.align)).join('  ');
    await writeOut(ctx, ctx.out.c.bold(head) + '\n');
    for await (const page of pages) {
      last = page;
      count += page.data.length;
      // (Shown, not obeyed: a product name from the API may hold control characters; see output/inert.ts.)
      const lines = page.data.map((s: SkuRecord) => SKU_TABLE.map((c, i) => fit(inertData(cellText(c.value(s))), widths[i], c.align)).join('  '));
      if (lines.length) await writeOut(ctx, lines.join('\n') + '\n');
    }
  }

  if (format === 'tty' || format === 'tsv') {
    if (opts.all) ctx.out.info(`${count} SKU${count === 1 ? '' : 's'}`);
    else if (last) {
      const lastPage = last.meta?.last_page ?? pageNumberOf(last.links?.last);
      const next = pageNumberOf(last.links?.next);
      const of = lastPage ? ` of ${lastPage}` : '';
      if (count === 0) ctx.out.info(opts.page > 1 ? `page ${opts.page}${of} is empty` : 'no SKUs');
      else ctx.out.info(`page ${opts.page}${of}${next ? ` · next: ship skus list --page ${next} (or --all)` : ''}`);
    }
  }
}

async function* onePage(src: SkuPageSource, page: number): AsyncGenerator<SkuListPage> {
  yield await src.list(page > 1 ? { page } : {});
}

/** A temporary file text is gathered in, then written to stdout whole. */
async function openSpool(): Promise<{ write(text: string): Promise<void>; copyTo(ctx: Ctx): Promise<void>; remove(): Promise<void> }> {
  const [{ mkdtemp, open, rm }, { tmpdir }, { join }, { pipeline }, { createReadStream }] = await Promise.all([
    import('node:fs/promises'),
    import('node:os'),
    import('node:path'),
    import('node:stream/promises'),
    import('node:fs'),
  ]);
  const dir = await mkdtemp(join(tmpdir(), 'ship-skus-'));
  const path = join(dir, 'skus.json');
  const fh = await open(path, 'w', 0o600);
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await fh.close();
  };
  return {
    write: async (text) => {
      await fh.write(text);
    },
    copyTo: async (ctx) => {
      await close();
      await pipeline(createReadStream(path), ctx.io.stdout, { end: false });
    },
    remove: async () => {
      await close().catch(() => undefined);
      await rm(dir, { recursive: true, force: true });
    },
  };
}
