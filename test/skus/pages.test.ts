import { describe, expect, it } from 'vitest';
import { pageNumberOf, walkSkuPages, type SkuListPage, type SkuPageSource } from '../../src/skus/pages.js';

/** A fake GET /skus over `total` records, 30 per page, recording calls and the most requests in flight at once. */
function source(total: number, opts: { withLast?: boolean; delayMs?: number } = {}) {
  const pages = Math.max(1, Math.ceil(total / 30));
  const calls: string[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const make = (n: number): SkuListPage => ({
    data: Array.from({ length: Math.min(30, total - (n - 1) * 30) }, (_, i) => ({ sku: `S${(n - 1) * 30 + i + 1}` })),
    links: {
      first: 'http://h/v1.2/skus?page=1',
      last: opts.withLast === false ? null : `http://h/v1.2/skus?page=${pages}`,
      prev: n > 1 ? `http://h/v1.2/skus?page=${n - 1}` : null,
      next: n < pages ? `http://h/v1.2/skus?page=${n + 1}` : null,
    },
    meta: { current_page: n, per_page: 30 },
  });
  const get = async (n: number) => {
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    await new Promise((r) => setTimeout(r, opts.delayMs ?? 1));
    inFlight--;
    return make(n);
  };
  const src: SkuPageSource = {
    list: async (o = {}) => {
      calls.push(`list:${o.page ?? 1}`);
      return get(o.page ?? 1);
    },
    page: async (url) => {
      calls.push(`page:${pageNumberOf(url)}`);
      return get(pageNumberOf(url)!);
    },
  };
  return { src, calls, maxInFlight: () => maxInFlight };
}

async function collect(it: AsyncIterable<SkuListPage>) {
  const skus: string[] = [];
  for await (const p of it) for (const s of p.data) skus.push(String(s.sku));
  return skus;
}

describe('walkSkuPages', () => {
  it('yields every SKU of every page in order, with bounded parallel look-ahead', async () => {
    const s = source(30 * 9 + 7, { delayMs: 5 });
    const skus = await collect(walkSkuPages(s.src, { lookahead: 3 }));
    expect(skus).toHaveLength(277);
    expect(skus[0]).toBe('S1');
    expect(skus.at(-1)).toBe('S277');
    expect(new Set(skus).size).toBe(277);
    expect(s.calls.filter((c) => c.startsWith('list'))).toHaveLength(10);
    expect(s.maxInFlight()).toBe(3);
  });

  it('follows links.next one page ahead when links.last is missing', async () => {
    const s = source(100, { withLast: false });
    const skus = await collect(walkSkuPages(s.src));
    expect(skus).toHaveLength(100);
    expect(s.calls).toEqual(['list:1', 'page:2', 'page:3', 'page:4']);
    expect(s.maxInFlight()).toBe(1);
  });

  it('lookahead 0: one page after another, none requested while the caller holds one', async () => {
    const s = source(30 * 4 + 1);
    const order: string[] = [];
    for await (const p of walkSkuPages(s.src, { lookahead: 0 })) {
      order.push(`got:${p.meta!.current_page}`, `calls:${s.calls.length}`);
      await new Promise((r) => setTimeout(r, 3));
    }
    // Each page is asked for only after the previous one was handed out and the caller came back for more.
    expect(order).toEqual(['got:1', 'calls:1', 'got:2', 'calls:2', 'got:3', 'calls:3', 'got:4', 'calls:4', 'got:5', 'calls:5']);
    expect(s.calls).toEqual(['list:1', 'page:2', 'page:3', 'page:4', 'page:5']);
    expect(s.maxInFlight()).toBe(1);
  });

  it('starts at a given page and stops after a single page', async () => {
    const s = source(95);
    expect(await collect(walkSkuPages(s.src, { startPage: 4 }))).toEqual(['S91', 'S92', 'S93', 'S94', 'S95']);
    const one = source(10);
    expect(await collect(walkSkuPages(one.src))).toHaveLength(10);
    expect(one.calls).toEqual(['list:1']);
  });

  it('surfaces the error of a failed page when the walk reaches it', async () => {
    const s = source(200);
    const src: SkuPageSource = {
      ...s.src,
      list: async (o = {}) => {
        if (o.page === 3) throw new Error('boom on 3');
        return s.src.list(o);
      },
    };
    const seen: number[] = [];
    await expect(
      (async () => {
        for await (const p of walkSkuPages(src, { lookahead: 4 })) seen.push(p.meta!.current_page!);
      })(),
    ).rejects.toThrow('boom on 3');
    expect(seen).toEqual([1, 2]);
  });
});
