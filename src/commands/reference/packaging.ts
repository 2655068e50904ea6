// `ship packaging`: GET /packaging-options — the account's flags, then its packaging types.
import type { Ctx } from '../../context.js';
import { cellText } from '../../output/output.js';
import { dimensionsText } from './render.js';

/**
 * Prints net_weight/allow_override, then the packaging types (dimensions in mm, weights in g, default marked).
 * Off a terminal stdout carries the types only, one per line (so `cut` and `awk` see one kind of row), and the
 * two account flags go to stderr; --json has them all.
 */
export async function run(ctx: Ctx): Promise<void> {
  const api = await ctx.api();
  const options = await api.packaging.get({ signal: ctx.signal });
  if (ctx.mode.json) return ctx.out.json(options);
  const types = options.packaging_types;
  if (ctx.mode.quiet) {
    for (const t of types) ctx.out.line(t.key);
    return;
  }
  const flags: Array<[string, unknown]> = [
    ['net weight', options.net_weight == null ? 'unknown' : options.net_weight],
    ['allow override', options.allow_override == null ? 'unknown' : options.allow_override],
  ];
  if (ctx.io.stdoutIsTTY) ctx.out.keyValues(flags);
  else ctx.out.info(flags.map(([k, v]) => `${k}: ${cellText(v)}`).join('; '));
  if (types.length === 0) return ctx.out.info('No packaging types.');
  if (ctx.io.stdoutIsTTY) ctx.out.line();
  await ctx.out.table(types, [
    { header: 'KEY', value: (t) => t.key },
    { header: 'NAME', value: (t) => t.name },
    { header: 'DEFAULT', value: (t) => (t.default ? '*' : '') },
    { header: 'INTERNAL W×H×D (mm)', value: (t) => dimensionsText(t.internal_width, t.internal_height, t.internal_depth) },
    { header: 'EXTERNAL W×H×D (mm)', value: (t) => dimensionsText(t.external_width, t.external_height, t.external_depth) },
    { header: 'MAX WEIGHT (g)', value: (t) => t.max_weight, align: 'right' },
    { header: 'DEFAULT WEIGHT (g)', value: (t) => t.default_weight, align: 'right' },
    { header: 'PACKAGING WEIGHT (g)', value: (t) => t.packaging_weight, align: 'right' },
  ]);
}
