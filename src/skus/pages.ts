// Walks every page of GET /skus in order with bounded look-ahead, so `skus list --all` and `skus export`
// render one page while the next ones are already on the wire, in constant memory.
import type { SkuRecord } from './columns.js';

/** One page of GET /skus as the API layer returns it. */
export interface SkuListPage {
  data: SkuRecord[];
  links?: { first?: string | null; last?: string | null; prev?: string | null; next?: string | null } | null;
  meta?: { current_page?: number | null; per_page?: number | null; from?: number | null; to?: number | null; last_page?: number | null } | null;
}

/** What the pager needs from the API layer (`api.skus`). */
export interface SkuPageSource {
  list(opts?: { page?: number }): Promise<SkuListPage>;
  /** Fetches a page by the URL the API gave in `links` (e.g. links.next). */
  page(url: string): Promise<SkuListPage>;
}

/**
 * Pages requested at once by default: 8 × 30 SKUs held at most, and at 20 ms of network latency per request
 * the walk takes about 1/8 of the sequential time. Retries (429, 503) are the API layer's.
 */
export const DEFAULT_LOOKAHEAD = 8;

export interface PageWalkOptions {
  /** First page number (default 1). */
  startPage?: number;
  /**
   * Pages fetched ahead of the one being rendered (default 8; 1 means plain prefetch of links.next; 0: none,
   * each page requested once the one before it has been handed out).
   */
  lookahead?: number;
  signal?: AbortSignal;
}

/** The `page` query parameter of a links URL, or undefined when the URL does not carry one. */
export function pageNumberOf(url: string | null | undefined): number | undefined {
  if (!url) return undefined;
  try {
    const n = Number(new URL(url, 'http://placeholder.invalid/').searchParams.get('page'));
    return Number.isSafeInteger(n) && n > 0 ? n : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Yields every page from `startPage` to the end, in order.
 *
 * When `links.last` names the last page number, up to `lookahead` following pages are requested in
 * parallel by number (the pages are independent, so the wall time approaches one round trip per
 * `lookahead` pages instead of one per page); the walk still ends at the first page whose `links.next`
 * is null. Without a usable `links.last` it follows `links.next`, fetching the next page while the
 * caller renders the current one. At most `lookahead` pages are held at any time.
 */
export async function* walkSkuPages(src: SkuPageSource, opts: PageWalkOptions = {}): AsyncGenerator<SkuListPage> {
  const lookahead = Math.max(0, opts.lookahead ?? DEFAULT_LOOKAHEAD);
  const first = await src.list(opts.startPage && opts.startPage > 1 ? { page: opts.startPage } : {});
  opts.signal?.throwIfAborted();
  if (lookahead === 0) {
    // One request at a time, none while the caller works on a page.
    let page = first;
    yield page;
    while (page.links?.next) {
      opts.signal?.throwIfAborted();
      page = await src.page(page.links.next);
      yield page;
    }
    return;
  }
  const current = first.meta?.current_page ?? opts.startPage ?? 1;
  const last = first.meta?.last_page ?? pageNumberOf(first.links?.last);

  if (!first.links?.next) {
    yield first;
    return;
  }

  let tail: SkuListPage = first;
  if (last !== undefined && last > current && lookahead > 1) {
    const inFlight: Array<Promise<SkuListPage>> = [];
    let nextNumber = current + 1;
    const fill = () => {
      while (inFlight.length < lookahead && nextNumber <= last) {
        const p = src.list({ page: nextNumber++ });
        // The error is raised when the walk reaches this page; until then it must not count as unhandled.
        p.catch(() => {});
        inFlight.push(p);
      }
    };
    fill();
    yield first;
    while (inFlight.length > 0) {
      opts.signal?.throwIfAborted();
      tail = await inFlight.shift()!;
      fill();
      yield tail;
      if (!tail.links?.next) return;
    }
    // Pages added since the first answer: carry on by links.next.
  } else {
    yield first;
  }

  // Follow links.next, fetching the next page while the caller renders the current one.
  let pending: Promise<SkuListPage> | undefined = tail.links?.next ? src.page(tail.links.next) : undefined;
  pending?.catch(() => {});
  while (pending) {
    opts.signal?.throwIfAborted();
    const page: SkuListPage = await pending;
    pending = page.links?.next ? src.page(page.links.next) : undefined;
    pending?.catch(() => {});
    yield page;
  }
}
