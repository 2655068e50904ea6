// How SKUs are shown: the columns of the table, key/value details, and streaming writes with backpressure.
import { once } from 'node:events';
import type { Ctx } from '../../context.js';
import type { Column } from '../../output/output.js';
import type { SkuRecord } from '../../skus/columns.js';

/** Code of a Country or Location object (or the string the API sent instead). */
export function codeOf(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'object') {
    const o = v as { code?: unknown; id?: unknown };
    return String(o.code ?? o.id ?? '');
  }
  return String(v);
}

/** Yes/no for the API's booleans (which may arrive as 1/0). */
function yesNo(v: unknown): string {
  if (v === null || v === undefined) return '';
  return v === true || v === 1 || v === '1' ? 'yes' : 'no';
}

/** Table columns of `skus list`. */
export const SKU_TABLE: Column<SkuRecord>[] = [
  { header: 'SKU', value: (s) => s.sku as string },
  { header: 'Product', value: (s) => s.product_name as string },
  { header: 'Location', value: (s) => [codeOf(s.location), s.warehouse_location].filter(Boolean).join(' ') },
  { header: 'Weight g', value: (s) => s.gross_weight as number, align: 'right' },
  { header: 'Value', value: (s) => s.value_ex_vat as string, align: 'right' },
  { header: 'Origin', value: (s) => codeOf(s.country_of_origin) },
  { header: 'Active', value: (s) => yesNo(s.active) },
  { header: 'In stock', value: (s) => yesNo(s.in_stock) },
];

/** Writes to stdout and waits when its buffer is full, so streaming output stays in constant memory. */
export async function writeOut(ctx: Ctx, text: string): Promise<void> {
  if (!ctx.io.stdout.write(text)) await once(ctx.io.stdout, 'drain');
}

/** Label/value lines for one SKU (`skus get`, `skus create`). */
export function skuDetails(s: SkuRecord): Array<[string, unknown]> {
  const pairs: Array<[string, unknown]> = [];
  for (const [k, v] of Object.entries(s)) {
    if (v === null || v === undefined || v === '') continue;
    if (k === 'custom_fields') {
      for (const [ck, cv] of Object.entries((v as Record<string, unknown>) ?? {})) pairs.push([`custom_fields.${ck}`, cv]);
      continue;
    }
    if (k === 'location' || k === 'country_of_origin') {
      const o = v as { code?: string; name?: string };
      pairs.push([k, typeof v === 'object' ? [o.code, o.name].filter(Boolean).join(' · ') : v]);
      continue;
    }
    pairs.push([k, v]);
  }
  return pairs;
}

/** Pads/cuts text to a width for the streaming table of `skus list --all` on a terminal. */
export function fit(text: string, width: number, align: 'left' | 'right' = 'left'): string {
  const t = text.length > width ? text.slice(0, Math.max(0, width - 1)) + '…' : text;
  return align === 'right' ? t.padStart(width) : t.padEnd(width);
}
