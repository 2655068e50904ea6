// `ship skus get REF`: one SKU by number or ID.
import type { Ctx } from '../../context.js';
import type { SkuRecord } from '../../skus/columns.js';
import { skuDetails } from './render.js';

/** Shows one SKU: key/value lines, or the SKU as JSON. */
export async function runGet(ctx: Ctx, opts: { ref: string }): Promise<void> {
  const api = await ctx.api();
  const sku = (await api.skus.get(opts.ref, { signal: ctx.signal })) as SkuRecord;
  if (ctx.mode.json) return ctx.out.json(sku);
  if (ctx.mode.quiet) return ctx.out.line(String(sku.sku ?? ''));
  ctx.out.keyValues(skuDetails(sku));
}
