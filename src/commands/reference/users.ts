// `ship users`: GET /users.
import type { Ctx } from '../../context.js';
import type { User } from '../../api/index.js';

/** A user's location as its code (or name), whether the API sent an object or a string. */
export function userLocation(u: User): string {
  const l = u.location;
  if (!l) return '';
  return typeof l === 'string' ? l : (l.code ?? l.name ?? '');
}

/** Lists the account's users: table, IDs (--quiet) or the API's array (--json). */
export async function run(ctx: Ctx): Promise<void> {
  const api = await ctx.api();
  const users = await api.users.list({ signal: ctx.signal });
  if (ctx.mode.json) return ctx.out.json(users);
  if (ctx.mode.quiet) {
    for (const u of users) ctx.out.line(u.id);
    return;
  }
  if (users.length === 0) return ctx.out.info('No users.');
  await ctx.out.table(users, [
    { header: 'NAME', value: (u) => [u.title, u.first_name, u.last_name].filter(Boolean).join(' ') },
    { header: 'EMAIL', value: (u) => u.email },
    { header: 'ACCESS LEVEL', value: (u) => u.access_level },
    { header: 'LOCATION', value: (u) => userLocation(u) },
    { header: 'PRINTER ONLINE', value: (u) => (u.printer_online == null ? '' : u.printer_online) },
    { header: 'ID', value: (u) => u.id },
  ]);
}
