// `ship locations [REF]`: GET /locations, or GET /locations/:ref (code or ID).
import type { Ctx } from '../../context.js';
import type { Location } from '../../api/index.js';
import { countryText, joinAddress } from './render.js';

/** The address of a location on one line. */
export function locationAddress(l: Location): string {
  return joinAddress([l.address_name, l.address_line_1, l.address_line_2, l.address_line_3, l.address_town_city, l.address_county, l.address_post_zip_code, countryText(l.address_country)]);
}

/** Lists locations or shows one. */
export async function run(ctx: Ctx, opts: { ref?: string }): Promise<void> {
  const api = await ctx.api();
  if (opts.ref !== undefined) {
    const l = await api.locations.get(opts.ref, { signal: ctx.signal });
    if (ctx.mode.json) return ctx.out.json(l);
    if (ctx.mode.quiet) return ctx.out.line(l.code ?? l.id);
    ctx.out.keyValues([
      ['code', l.code],
      ['name', l.name],
      ['id', l.id],
      ['type', l.type],
      ['default', Boolean(l.default)],
      ['address', locationAddress(l)],
      ['telephone', l.telephone],
      ['email', l.email],
      ['created', l.created_at],
      ['updated', l.updated_at],
    ]);
    return;
  }
  const locations = await api.locations.list({ signal: ctx.signal });
  if (ctx.mode.json) return ctx.out.json(locations);
  if (ctx.mode.quiet) {
    for (const l of locations) ctx.out.line(l.code ?? l.id);
    return;
  }
  if (locations.length === 0) return ctx.out.info('No locations.');
  await ctx.out.table(locations, [
    { header: 'CODE', value: (l) => l.code },
    { header: 'NAME', value: (l) => l.name },
    { header: 'TYPE', value: (l) => l.type },
    { header: 'DEFAULT', value: (l) => (l.default ? 'yes' : '') },
    { header: 'ADDRESS', value: (l) => locationAddress(l) },
  ]);
}
