// `ship brands [REF]`: GET /brands, or GET /brands/:ref (key or ID).
import type { Ctx } from '../../context.js';
import type { Brand } from '../../api/index.js';
import { countryText, joinAddress } from './render.js';

/** The return address of a brand on one line. */
export function brandReturnAddress(b: Brand): string {
  return joinAddress([b.return_address_line_1, b.return_address_line_2, b.return_address_line_3, b.return_address_town_city, b.return_address_county, b.return_address_postcode, countryText(b.return_address_country)]);
}

/** Lists brands or shows one. */
export async function run(ctx: Ctx, opts: { ref?: string }): Promise<void> {
  const api = await ctx.api();
  if (opts.ref !== undefined) {
    const b = await api.brands.get(opts.ref, { signal: ctx.signal });
    if (ctx.mode.json) return ctx.out.json(b);
    if (ctx.mode.quiet) return ctx.out.line(b.key ?? b.id);
    ctx.out.keyValues([
      ['key', b.key],
      ['name', b.name],
      ['id', b.id],
      ['default', Boolean(b.default)],
      ['return address', brandReturnAddress(b)],
      ['return phone', b.return_phone],
      ['return email', b.return_email],
      ['tracking portal', b.tracking_portal_base_url],
      ['despatch notes', b.customer_despatch_notes],
    ]);
    return;
  }
  const brands = await api.brands.list({ signal: ctx.signal });
  if (ctx.mode.json) return ctx.out.json(brands);
  if (ctx.mode.quiet) {
    for (const b of brands) ctx.out.line(b.key ?? b.id);
    return;
  }
  if (brands.length === 0) return ctx.out.info('No brands.');
  await ctx.out.table(brands, [
    { header: 'KEY', value: (b) => b.key },
    { header: 'NAME', value: (b) => b.name },
    { header: 'DEFAULT', value: (b) => (b.default ? 'yes' : '') },
    { header: 'RETURN ADDRESS', value: (b) => brandReturnAddress(b) },
    { header: 'RETURN EMAIL', value: (b) => b.return_email },
  ]);
}
