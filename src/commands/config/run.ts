// `ship config …`: read and change the config file. Secrets are masked in everything printed.
import type { Ctx } from '../../context.js';
import { UsageError } from '../../errors.js';
import { checkKey, CREDENTIAL_KEYS, credentialPath, credentialsOf, SECRET_KEYS, unknownProfile, type ConfigStore, type Profile } from '../../config/store.js';
import {
  chooseCredentialSet,
  type CredentialSetChoice,
  DEFAULT_BASE_URL,
  DEFAULT_TIMEOUT_MS,
  describeSource,
  explicitBaseUrl,
  resolveTestMode,
  type Source,
} from '../../config/settings.js';
import { parseTimeoutSeconds, shownUrl, validateName } from '../../config/validate.js';
import { mask } from '../../output/redact.js';
import { describeUser, envValue, readSecretFromStdin } from '../auth/common.js';

/** One row of `config list`: the value in effect for a key and where it comes from. */
export interface ConfigRow {
  key: string;
  value: unknown;
  source: Source;
  origin: string | null;
  /** The profile value this one overrides, when a flag or env var wins over it (masked if secret). */
  overrides?: unknown;
}

/** Env vars that override a profile key; printed so `config list` tells the whole story. */
const ENV_OF: Record<string, string> = { api_key: 'SHIP_API_KEY', token: 'SHIP_TOKEN', timeout: 'SHIP_TIMEOUT' };

/** A secret's value masked whatever it is (a hand-edited file may hold a number or a list there). */
function maskAny(v: unknown): unknown {
  if (v === undefined || v === null) return v;
  return mask(typeof v === 'string' ? v : JSON.stringify(v));
}

/**
 * Which credential set of `profile` this run's flags and env vars select (as every API call would pick it):
 * `config get|set|unset api_key|token|user` act on that set.
 */
export function credentialSetInUse(ctx: Ctx, profile: Profile): CredentialSetChoice {
  return chooseCredentialSet(profile, resolveTestMode(ctx.env, ctx.globals), explicitBaseUrl(ctx.env, ctx.globals));
}

/**
 * The credential set a get/set/unset of `key` acts on: only api_key, token and user have one (other keys
 * leave test mode, and a malformed SHIP_TEST, alone, as before).
 */
function setFor(ctx: Ctx, key: string, profile: Profile): CredentialSetChoice | undefined {
  return CREDENTIAL_KEYS.has(key) ? credentialSetInUse(ctx, profile) : undefined;
}

/** " (test credentials)" after a message about a credential key of the test set; "" otherwise. */
function setNote(set: CredentialSetChoice | undefined): string {
  return set?.name === 'test' ? ' (test credentials)' : '';
}

/** The `credential_set` field of get/set/unset --json, for credential keys only. */
function setField(set: CredentialSetChoice | undefined): { credential_set?: string } {
  return set ? { credential_set: set.name } : {};
}

/**
 * The rows of `config list` for the selected profile. Raw values (not validated), so a broken profile can be
 * inspected. Both credential sets are listed (the test set's keys as `test_credentials.KEY`); SHIP_API_KEY and
 * SHIP_TOKEN are shown overriding the set `inUse`.
 */
export function configRows(ctx: Ctx, profile: Profile, inUse: CredentialSetChoice = { name: 'live', why: '' }): ConfigRow[] {
  const rows: ConfigRow[] = [];
  const show = (key: string, v: unknown) => (SECRET_KEYS.has(key) ? maskAny(v) : v);
  const showUrl = (v: unknown) => (typeof v === 'string' ? shownUrl(v) : v);
  const stored = (key: keyof Profile) => (profile[key] === undefined || profile[key] === null || profile[key] === '' ? undefined : profile[key]);
  const g = ctx.globals;
  const env = (name: string) => envValue(ctx, name);
  const testMode = g.test === true || ['1', 'true', 'yes', 'on'].includes((env('SHIP_TEST') ?? '').toLowerCase());

  for (const key of ['base_url', 'test_base_url'] as const) {
    const active = testMode === (key === 'test_base_url');
    const flag = active && g.baseUrl !== undefined ? g.baseUrl : undefined;
    const fromEnv = active && flag === undefined ? env('SHIP_BASE_URL') : undefined;
    const own = stored(key);
    if (flag !== undefined) rows.push({ key, value: showUrl(flag), source: 'flag', origin: '--base-url', overrides: showUrl(own) });
    else if (fromEnv !== undefined) rows.push({ key, value: showUrl(fromEnv), source: 'env', origin: 'SHIP_BASE_URL', overrides: showUrl(own) });
    else if (own !== undefined) rows.push({ key, value: showUrl(own), source: 'profile', origin: key });
    else if (key === 'base_url') rows.push({ key, value: DEFAULT_BASE_URL, source: 'default', origin: null });
  }
  for (const set of ['live', 'test'] as const) {
    const creds = credentialsOf(profile, set);
    for (const key of ['api_key', 'token'] as const) {
      const name = credentialPath(set, key);
      const fromEnv = set === inUse.name ? env(ENV_OF[key]) : undefined;
      const own = creds[key] === undefined || creds[key] === null || creds[key] === '' ? undefined : creds[key];
      if (fromEnv !== undefined) rows.push({ key: name, value: show(key, fromEnv), source: 'env', origin: ENV_OF[key], overrides: show(key, own) });
      else if (own !== undefined) rows.push({ key: name, value: show(key, own), source: 'profile', origin: name });
    }
  }
  {
    const own = stored('timeout');
    if (g.timeout !== undefined) rows.push({ key: 'timeout', value: seconds(ctx, g.timeout, '--timeout'), source: 'flag', origin: '--timeout', overrides: own });
    else if (env('SHIP_TIMEOUT') !== undefined) rows.push({ key: 'timeout', value: seconds(ctx, env('SHIP_TIMEOUT')!, 'SHIP_TIMEOUT'), source: 'env', origin: 'SHIP_TIMEOUT', overrides: own });
    else if (own !== undefined) rows.push({ key: 'timeout', value: own, source: 'profile', origin: 'timeout' });
    else rows.push({ key: 'timeout', value: DEFAULT_TIMEOUT_MS / 1000, source: 'default', origin: null });
  }
  for (const key of ['label_format', 'printer'] as const) {
    const own = stored(key);
    if (own !== undefined) rows.push({ key, value: own, source: 'profile', origin: key });
  }
  const printers = profile.printers && typeof profile.printers === 'object' ? profile.printers : {};
  for (const [name, url] of Object.entries(printers).sort(([a], [b]) => a.localeCompare(b))) {
    rows.push({ key: `printers.${name}`, value: url, source: 'profile', origin: `printers.${name}` });
  }
  for (const set of ['live', 'test'] as const) {
    const user = credentialsOf(profile, set).user;
    const name = credentialPath(set, 'user');
    if (user && typeof user === 'object') rows.push({ key: name, value: user, source: 'profile', origin: name });
  }
  return rows;
}

/**
 * A timeout from the command line or the environment as the number of seconds it means, as a profile's and the
 * default are shown (a script reading `config list --json` gets one type); text that is not a timeout stays
 * as given, so the listing shows what is wrong with it.
 */
function seconds(ctx: Ctx, raw: string, origin: string): number | string {
  try {
    return parseTimeoutSeconds(raw, 'timeout') / 1000;
  } catch (e) {
    // Said, not only shown: every other command refuses to run with it.
    ctx.out.warn(`${origin}: ${(e as Error).message.replace(/^timeout: /, '')}; other commands refuse it (exit 2)`);
    return raw;
  }
}

/** Throws when --profile or SHIP_PROFILE names a profile the file does not have: reading or removing from it is a typo. */
function existingProfile(store: ConfigStore): string {
  const err = unknownProfile(store);
  if (err) throw err;
  return store.selected.name;
}

/** `config list`: every setting in effect for the profile, with its source. */
export async function list(ctx: Ctx): Promise<void> {
  const store = await ctx.config();
  existingProfile(store);
  const sel = store.selected;
  const profile = store.profile(sel.name);
  const inUse = credentialSetInUse(ctx, profile);
  const rows = configRows(ctx, profile, inUse);
  if (ctx.mode.json) {
    ctx.out.json({
      profile: { value: sel.name, source: sel.source, origin: sel.origin ?? null },
      path: store.path,
      credential_set: { value: inUse.name, why: inUse.why },
      settings: Object.fromEntries(rows.map((r) => [r.key, { value: r.value, source: r.source, origin: r.origin, ...(r.overrides !== undefined ? { overrides: r.overrides } : {}) }])),
    });
    return;
  }
  if (ctx.mode.quiet) {
    for (const r of rows) ctx.out.line(r.key);
    return;
  }
  ctx.out.info(`profile ${sel.name} (${describeSource(sel)}), ${store.path}`);
  ctx.out.info(`credentials in use: the ${inUse.name} set (${inUse.why}); the test set's keys are test_credentials.*`);
  await ctx.out.table(rows, [
    { header: 'KEY', value: (r) => r.key },
    { header: 'VALUE', value: (r) => (r.key.endsWith('user') ? describeUser(r.value as Profile['user']) : (r.value as string)) },
    {
      header: 'SOURCE',
      value: (r) => describeSource({ source: r.source, origin: r.origin ?? undefined }, sel.name) + (r.overrides !== undefined ? ` (overrides profile value ${String(r.overrides)})` : ''),
    },
  ]);
}

/** Keys `config get` accepts: the settable ones plus the cached user and the printers map. */
function checkReadableKey(key: string): string {
  return key === 'user' || key === 'printers' ? key : checkKey(key);
}

/**
 * The value in effect for a key of `config get`, as `config list` resolves it (flag > env > profile > default,
 * credential keys in the set in use): its row, or undefined when nothing supplies it.
 */
export function effectiveRow(ctx: Ctx, profile: Profile, key: string, set: CredentialSetChoice | undefined): ConfigRow | undefined {
  // The whole printers map is no row of the listing (each printers.NAME is): only the profile has it.
  if (key === 'printers') {
    const printers = profile.printers;
    return printers && typeof printers === 'object' ? { key, value: printers, source: 'profile', origin: 'printers' } : undefined;
  }
  const name = set ? credentialPath(set.name, key) : key;
  // Only a credential key has a set (see setFor): the others' rows do not depend on it, and choosing one would
  // refuse a malformed SHIP_TEST for them too.
  return configRows(ctx, profile, set).find((r) => r.key === name);
}

/**
 * `config get KEY`: the value in effect (masked when secret), as `config list` resolves it; says on stderr where
 * it comes from when that is not the profile. Prints nothing on stdout when nothing supplies it.
 */
export async function get(ctx: Ctx, opts: { key: string }): Promise<void> {
  const key = checkReadableKey(opts.key);
  const store = await ctx.config();
  const profile = existingProfile(store);
  const set = setFor(ctx, key, store.profile(profile));
  const row = effectiveRow(ctx, store.profile(profile), key, set);
  if (ctx.mode.json) {
    ctx.out.json({
      profile,
      key,
      value: row?.value ?? null,
      source: row?.source ?? null,
      origin: row?.origin ?? null,
      ...(row?.overrides !== undefined ? { overrides: row.overrides } : {}),
      ...setField(set),
    });
    return;
  }
  if (row === undefined || row.value === undefined || row.value === null) {
    ctx.out.info(`${key} is not set in profile ${profile}${setNote(set)}`);
    return;
  }
  ctx.out.line(typeof row.value === 'object' ? JSON.stringify(row.value, null, 2) : String(row.value));
  // `$(ship config get KEY)` gets the value alone; a person is told why it is not what the profile holds.
  if (row.source === 'default') ctx.out.info(`${key} is not set in profile ${profile}: the built-in default`);
  else if (row.source !== 'profile') {
    ctx.out.info(`${key} from ${describeSource({ source: row.source, origin: row.origin ?? undefined })}${row.overrides !== undefined ? ` (overrides profile value ${String(row.overrides)})` : ''}`);
  }
}

/** `config set KEY [VALUE]`: validates and stores; secrets may come from a prompt or stdin (`-`). */
export async function set(ctx: Ctx, opts: { key: string; value?: string }): Promise<void> {
  const key = checkKey(opts.key);
  const store = await ctx.config({ write: true });
  const profile = store.selected.name;
  const secret = SECRET_KEYS.has(key);
  let value = opts.value;
  if (secret && value !== undefined && value !== '-') {
    // A secret in argv stays in shell history and shows in the process list (the contract: never in argv).
    throw new UsageError(`config set ${key}: a secret is not taken from the command line`, {
      hint: `read it from stdin: ship config set ${key} -  (or leave VALUE out to be asked on a terminal)`,
    });
  }
  if (secret && value === '-') value = await readSecretFromStdin(ctx, key, `config set ${key} -`);
  else if (secret && value === undefined) {
    value = await ctx.prompt.password({ message: key === 'api_key' ? 'API key' : 'Token', supplyWith: `"-" to read it from stdin: printf '%s' "$SECRET" | ship config set ${key} -` });
  }
  if (value === undefined) throw new UsageError(`config set ${key}: missing VALUE`, { hint: `ship config set ${key} VALUE` });

  // `default` is what a fresh install uses: not worth a remark.
  const isNew = profile !== 'default' && !store.profileNames().includes(profile);
  const set = setFor(ctx, key, store.profile(profile));
  const stored = store.set(key, value, { profile, insecure: Boolean(ctx.globals.insecure), set: set?.name });
  const shown = secret ? mask(String(stored)) : stored;

  const overriddenBy = key === 'base_url' || key === 'test_base_url' ? 'SHIP_BASE_URL' : ENV_OF[key];
  if (overriddenBy && envValue(ctx, overriddenBy) !== undefined) {
    ctx.out.warn(`${overriddenBy} is set in the environment and takes precedence over ${key}`);
  }
  if ((key === 'base_url' || key === 'test_base_url') && typeof stored === 'string' && !/\/v\d+(\.\d+)*$/.test(new URL(stored).pathname)) {
    // Every request would then answer 404; said now rather than at the first command.
    ctx.out.warn(`${key} ${shownUrl(stored)} has no version segment: the API lives under /v1.2 (e.g. ${shownUrl(stored)}/v1.2)`);
  }
  if (key === 'printer' && typeof stored === 'string' && !stored.startsWith('tcp://') && store.get(`printers.${stored}`, profile) === undefined) {
    ctx.out.warn(`no printers.${stored} entry yet: add one with \`ship config set printers.${stored} tcp://HOST:PORT\``);
  }
  ctx.out.success(`Set ${key} = ${String(shown)} in profile ${profile}${setNote(set)}${isNew ? ' (a new profile)' : ''}`);
  if (ctx.mode.json) ctx.out.json({ profile, key, value: shown, ...setField(set) });
}

/** `config unset KEY`. */
export async function unset(ctx: Ctx, opts: { key: string }): Promise<void> {
  const key = opts.key === 'user' ? 'user' : checkKey(opts.key);
  const store = await ctx.config({ write: true });
  const profile = existingProfile(store);
  const set = setFor(ctx, key, store.profile(profile));
  const removed = store.unset(key, profile, set?.name);
  if (removed) ctx.out.success(`Removed ${key} from profile ${profile}${setNote(set)}`);
  else ctx.out.info(`${key} was not set in profile ${profile}${setNote(set)}`);
  if (ctx.mode.json) ctx.out.json({ profile, key, removed, ...setField(set) });
}

/** `config use PROFILE`: records the current profile in the file. */
export async function use(ctx: Ctx, opts: { profile: string; create?: boolean }): Promise<void> {
  const name = validateName(opts.profile, 'profile');
  const store = await ctx.config({ write: true });
  const names = store.profileNames();
  const existed = names.includes(name);
  // Switching to a mistyped name would leave every later command without credentials, silently.
  if (!existed && !opts.create && name !== 'default') {
    throw new UsageError(`config use: no profile "${name}"${names.length ? ` (profiles: ${names.join(', ')})` : ' (there are none yet)'}`, {
      hint: `to start a new one: ship config use ${name} --create, then ship login`,
    });
  }
  store.use(name);
  ctx.out.success(`Now using profile ${name}${existed ? '' : ' (new and empty: run `ship login`)'}`);
  const env = envValue(ctx, 'SHIP_PROFILE');
  if (env && env !== name) ctx.out.warn(`SHIP_PROFILE=${env} is set and takes precedence in this shell`);
  if (ctx.mode.json) ctx.out.json({ profile: name, created: !existed });
}

/** `config profiles`: names in the file, the one in use marked. */
export async function profiles(ctx: Ctx): Promise<void> {
  const store = await ctx.config();
  const current = store.selected.name;
  const names = store.profileNames();
  if (!names.includes(current)) names.push(current);
  const rows = names.sort().map((name) => {
    const p = store.profile(name);
    const test = credentialsOf(p, 'test');
    return {
      name,
      current: name === current,
      base_url: typeof p.base_url === 'string' ? shownUrl(p.base_url) : null,
      logged_in: typeof p.token === 'string' && p.token !== '',
      user: typeof p.user?.email === 'string' ? p.user.email : null,
      test_logged_in: typeof test.token === 'string' && test.token !== '',
    };
  });
  if (ctx.mode.json) return ctx.out.json(rows);
  if (ctx.mode.quiet) {
    for (const r of rows) ctx.out.line(r.name);
    return;
  }
  await ctx.out.table(rows, [
    { header: 'PROFILE', value: (r) => r.name },
    { header: 'CURRENT', value: (r) => (r.current ? '*' : '') },
    { header: 'BASE URL', value: (r) => r.base_url ?? '' },
    { header: 'LOGGED IN', value: (r) => r.logged_in },
    { header: 'USER', value: (r) => r.user ?? '' },
    { header: 'TEST LOGGED IN', value: (r) => r.test_logged_in },
  ]);
}

/** `config path`: where the file is (it may not exist yet). */
export async function path(ctx: Ctx): Promise<void> {
  const store = await ctx.config();
  if (ctx.mode.json) ctx.out.json({ path: store.path });
  else ctx.out.line(store.path);
}
