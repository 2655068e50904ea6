// `ship services`: GET /services, with the optional parcel filter, conditions rendered readably.
import type { Ctx } from '../../context.js';
import { UsageError } from '../../errors.js';
import type { ServiceFilter } from '../../api/index.js';
import { conditionsText } from './render.js';

/** Turns the --weight/--length/--width/--depth strings into whole numbers (UsageError naming the flag). */
export function parseServiceFilter(flags: Partial<Record<keyof ServiceFilter, string>>): ServiceFilter {
  const filter: ServiceFilter = {};
  for (const name of ['weight', 'length', 'width', 'depth'] as const) {
    const raw = flags[name];
    if (raw === undefined) continue;
    const v = raw.trim();
    if (!/^\d+$/.test(v) || Number(v) <= 0 || !Number.isSafeInteger(Number(v))) {
      throw new UsageError(`--${name}: "${raw}" is not a whole number greater than 0 (${name === 'weight' ? 'grams' : 'cm'})`);
    }
    filter[name] = Number(v);
  }
  return filter;
}

/** Lists the services: table, keys (--quiet) or the API's array (--json). */
export async function run(ctx: Ctx, filter: ServiceFilter): Promise<void> {
  const api = await ctx.api();
  const services = await api.services.list(filter, { signal: ctx.signal });
  if (ctx.mode.json) return ctx.out.json(services);
  if (ctx.mode.quiet) {
    for (const s of services) ctx.out.line(s.key);
    return;
  }
  if (services.length === 0) {
    ctx.out.info(Object.keys(filter).length ? 'No delivery service accepts such a parcel.' : 'No delivery services.');
    return;
  }
  await ctx.out.table(services, [
    { header: 'KEY', value: (s) => s.key },
    { header: 'CARRIER', value: (s) => s.carrier },
    { header: 'NAME', value: (s) => s.name },
    { header: 'PRICE', value: (s) => s.price, align: 'right' },
    { header: 'CONDITIONS', value: (s) => conditionsText(s.conditions) },
    { header: 'DESCRIPTION', value: (s) => s.description },
  ]);
}
