// Helpers shared by the auth and config commands: reading a secret from stdin, naming a user.
import type { Ctx } from '../../context.js';
import { UsageError } from '../../errors.js';
import type { CachedUser } from '../../config/store.js';

/** Reads a secret from stdin: all of it, minus one trailing newline (\n or \r\n). Refuses empty input. */
export async function readSecretFromStdin(ctx: Ctx, what: string, flag: string): Promise<string> {
  // stdin is the terminal itself (nothing piped in): asked for without echo, not read as typed (shown on screen).
  if (ctx.io.stdinIsTTY && ctx.mode.interactive) {
    const label = what === 'api_key' ? 'API key' : what.charAt(0).toUpperCase() + what.slice(1).replace(/_/g, ' ');
    const typed = await ctx.prompt.password({ message: label, supplyWith: flag });
    if (typed === '') throw new UsageError(`${flag}: nothing was typed; expected the ${what}`);
    return typed;
  }
  const chunks: Buffer[] = [];
  for await (const chunk of ctx.io.stdin) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : Buffer.from(chunk as Uint8Array));
  const text = Buffer.concat(chunks).toString('utf8').replace(/\r?\n$/, '');
  if (text === '') throw new UsageError(`${flag}: stdin was empty; expected the ${what}`);
  if (/[\r\n]/.test(text)) throw new UsageError(`${flag}: stdin holds more than one line; expected only the ${what}`);
  return text;
}

/** An env var's value, with empty meaning unset. */
export function envValue(ctx: Ctx, name: string): string | undefined {
  const v = ctx.env[name];
  return v === undefined || v === '' ? undefined : v;
}

/** "First Last <email>" (or whatever part of it is known). */
export function describeUser(user: CachedUser | undefined): string {
  if (!user) return '';
  const name = [user.first_name, user.last_name].filter((s) => typeof s === 'string' && s).join(' ');
  const email = typeof user.email === 'string' ? user.email : '';
  const base = name && email ? `${name} <${email}>` : name || email || (typeof user.id === 'string' ? user.id : '');
  const level = typeof user.access_level === 'string' ? user.access_level : typeof user.user_type === 'string' ? user.user_type : '';
  return level ? `${base} (${level})` : base;
}

/** The fields of a user worth caching in the profile (the API's user has a whole location record). */
export function cacheableUser(user: Record<string, unknown>): CachedUser {
  const out: CachedUser = {};
  for (const k of ['id', 'title', 'first_name', 'last_name', 'email', 'access_level', 'user_type', 'account_name', 'merchant_id']) {
    if (typeof user[k] === 'string' && user[k]) out[k] = user[k];
  }
  const loc = user.location;
  if (loc && typeof loc === 'object') {
    const { id, code, name } = loc as Record<string, unknown>;
    out.location = Object.fromEntries(Object.entries({ id, code, name }).filter(([, v]) => typeof v === 'string'));
  } else if (typeof loc === 'string') {
    out.location = loc;
  }
  return out;
}
