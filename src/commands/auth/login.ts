// `ship login`: POST /tokens with username and password, then store API key, token and user in the profile.
import type { Ctx } from '../../context.js';
import { ApiError, AuthError, NetworkError, UsageError } from '../../errors.js';
import type { CachedUser, LoginRecord } from '../../config/store.js';
import { cacheableUser, describeUser, envValue, readSecretFromStdin } from './common.js';

/** Flags of `ship login`. */
export interface LoginOptions {
  apiKey?: string;
  username?: string;
  passwordStdin?: boolean;
}

/**
 * Logs in and stores the credentials in the credential set of the base URL in use (test mode: the test set);
 * prints who is logged in on stderr (or `{profile, base_url, credential_set, user}` with --json).
 */
export async function run(ctx: Ctx, opts: LoginOptions): Promise<void> {
  const settings = await ctx.settings();
  const store = await ctx.config({ write: true });
  const profile = settings.profile.value;
  // Live and test credentials are kept apart: a login in test mode must never replace the live token.
  const set = settings.credentialSet.name;
  if (settings.testMode.value && set === 'live') {
    // --test with a --base-url (or SHIP_BASE_URL) that is the profile's live base_url: the live set is chosen
    // for that URL, and logging in would replace the live login that --test promises to leave alone.
    throw new UsageError(`test mode (${settings.testMode.origin ?? 'on'}), but ${settings.baseUrl.origin ?? 'the base URL'} ${settings.baseUrl.value} is the profile's live base_url: this login would replace the live one`, {
      hint: 'give the test service\'s URL with --base-url (it is stored as test_base_url), or log in without --test',
    });
  }
  const cached = store.credentials(set, profile).user;
  const willAsk =
    (opts.apiKey === undefined && !settings.apiKey) ||
    (opts.username === undefined && envValue(ctx, 'SHIP_USERNAME') === undefined) ||
    (!opts.passwordStdin && envValue(ctx, 'SHIP_PASSWORD') === undefined);
  // Said, and checked, before the questions: a person should not type three secrets for a server that is not there.
  if (ctx.mode.interactive && willAsk) {
    ctx.out.info(`Logging in to ${settings.baseUrl.value} (profile ${profile}${set === 'test' ? ', test credentials' : ''})`);
    await checkReachable(settings.baseUrl.value, settings.baseUrl.source === 'default', Math.min(settings.timeoutMs.value, 5000));
  }

  const apiKey =
    nonEmpty(opts.apiKey, '--api-key') ??
    settings.apiKey?.value ??
    (await ctx.prompt.password({ message: 'API key', supplyWith: '--api-key or SHIP_API_KEY' })).trim();
  if (!apiKey) throw new UsageError('an API key is required', { hint: 'set SHIP_API_KEY (or pass --api-key KEY, which other users can see in `ps`)' });
  const { checkCredential } = await import('../../config/settings.js');
  checkCredential(
    opts.apiKey !== undefined ? { value: apiKey, source: 'flag', origin: '--api-key' } : (settings.apiKey ?? { value: apiKey, source: 'flag', origin: 'the API key typed' }),
    profile,
  );

  const username =
    nonEmpty(opts.username, '--username') ??
    envValue(ctx, 'SHIP_USERNAME')?.trim() ??
    (await ctx.prompt.input({
      message: 'Username (email)',
      supplyWith: '--username or SHIP_USERNAME',
      default: typeof cached?.email === 'string' ? cached.email : undefined,
    })).trim();
  if (!username) throw new UsageError('a username is required', { hint: 'pass --username or set SHIP_USERNAME' });

  const password = opts.passwordStdin
    ? await readSecretFromStdin(ctx, 'password', '--password-stdin')
    : (envValue(ctx, 'SHIP_PASSWORD') ??
      (await ctx.prompt.password({ message: 'Password', supplyWith: '--password-stdin or SHIP_PASSWORD' })));
  if (!password) throw new UsageError('a password is required', { hint: 'pass --password-stdin or set SHIP_PASSWORD' });
  // A server's error may quote the request back: the password is masked like the key.
  ctx.secrets.add(password);

  const api = await ctx.api({ credentials: { apiKey } });
  let result;
  try {
    result = await api.tokens.create({ username, password }, { signal: ctx.signal });
  } catch (err) {
    if (err instanceof AuthError) {
      err.hint = 'check the API key (--api-key or SHIP_API_KEY), the username and the password';
    }
    throw err;
  }

  const user = result.user ? cacheableUser(result.user) : await lookUpUser(ctx, apiKey, result.token, username);

  const record: LoginRecord = { set, apiKey, token: result.token, user: user ?? { email: username } };
  if (settings.baseUrl.source === 'flag') {
    // The URL goes with the set it logged in to, so later runs without --base-url pick the same set again.
    record.baseUrl = { key: set === 'test' ? 'test_base_url' : 'base_url', value: settings.baseUrl.value };
  }
  store.saveLogin(record, profile);

  const shown = record.user as CachedUser;
  ctx.out.success(`Logged in as ${describeUser(shown) || username} on ${settings.baseUrl.value}, profile ${profile}${set === 'test' ? ' (test credentials; the live ones are kept)' : ''}`);
  if (settings.apiKey?.source === 'env' && !opts.apiKey) {
    ctx.out.info(`(the API key from SHIP_API_KEY is now stored in profile ${profile} too)`);
  }
  // The environment wins over the profile: later commands would send these, not what was just stored.
  const { credentialsFromEnv } = await import('../../config/settings.js');
  const overriding = credentialsFromEnv({ apiKey: settings.apiKey?.value === apiKey ? undefined : settings.apiKey, token: settings.token });
  if (overriding.length) {
    ctx.out.warn(`${overriding.join(' and ')} ${overriding.length > 1 ? 'are' : 'is'} set in the environment and ${overriding.length > 1 ? 'win' : 'wins'} over what was just stored: unset ${overriding.join(' ')} for later commands to use this login`);
  }
  if (ctx.mode.json) ctx.out.json({ profile, base_url: settings.baseUrl.value, credential_set: set, user: shown });
}

/** Fails at once when nothing accepts connections at the base URL's host and port. */
async function checkReachable(baseUrl: string, isDefault: boolean, timeoutMs: number): Promise<void> {
  const url = new URL(baseUrl);
  const port = Number(url.port) || (url.protocol === 'https:' ? 443 : 80);
  const { probeTcp } = await import('../doctor/probes.js');
  try {
    await probeTcp(url.hostname.replace(/^\[|\]$/g, ''), port, timeoutMs);
  } catch (e) {
    throw new NetworkError(`cannot reach ${url.host}: ${e instanceof Error ? e.message : String(e)}`, 'other', {}, {
      hint: isDefault
        ? 'that is the built-in default, the sandbox\'s address: start `ship sandbox`, or give the service\'s base URL (--base-url or SHIP_BASE_URL)'
        : 'check the base URL (`ship whoami` says where it comes from) and the network; `ship doctor` checks more',
    });
  }
}

/** A flag that was given but blank is a mistake, not "use the default". */
function nonEmpty(value: string | undefined, flag: string): string | undefined {
  if (value === undefined) return undefined;
  const v = value.trim();
  if (!v) throw new UsageError(`${flag} must not be empty`);
  return v;
}

/**
 * POST /tokens responses seen in practice carry no user; find it in GET /users by email so whoami
 * can show it. Failing that (e.g. a user not allowed to list users), log in without it.
 */
async function lookUpUser(ctx: Ctx, apiKey: string, token: string, username: string): Promise<CachedUser | undefined> {
  try {
    const api = await ctx.api({ credentials: { apiKey, token } });
    const users = await api.users.list({ signal: ctx.signal });
    const wanted = username.toLowerCase();
    const found = users.find((u) => typeof u.email === 'string' && u.email.toLowerCase() === wanted);
    return found ? cacheableUser(found as Record<string, unknown>) : undefined;
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    ctx.out.debug(`could not look up the user in GET /users: ${err.message}`);
    return undefined;
  }
}
