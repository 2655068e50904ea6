// `ship whoami`: the profile, base URL and credentials in use (masked, with their sources), and the token check.
import type { Ctx } from '../../context.js';
import { ApiError, AuthError } from '../../errors.js';
import { describeSource, type Resolved } from '../../config/settings.js';
import { mask } from '../../output/redact.js';
import { describeUser } from './common.js';

type TokenStatus = 'valid' | 'invalid' | 'missing' | 'unknown';

/** Prints who and where; exits 4 (AuthError) when not logged in or the token is rejected, 1 when unreachable. */
export async function run(ctx: Ctx): Promise<void> {
  const s = await ctx.settings();
  const store = await ctx.config();
  const profile = s.profile.value;
  const user = store.profile(profile).user;
  if (!s.apiKey || !s.token) {
    // "No API key" would send a person to `ship login` for a profile whose name they mistyped.
    const { unknownProfile } = await import('../../config/store.js');
    const err = unknownProfile(store);
    if (err) throw err;
  }

  let status: TokenStatus = 'missing';
  let failure: Error | undefined;
  if (!s.apiKey) {
    failure = new AuthError('no API key configured', {}, { hint: 'run `ship login`, or set SHIP_API_KEY' });
  } else if (!s.token) {
    failure = new AuthError('not logged in: no user token', {}, { hint: 'run `ship login`, or set SHIP_TOKEN' });
  } else {
    try {
      const api = await ctx.api();
      status = (await api.tokens.check({ signal: ctx.signal })) ? 'valid' : 'invalid';
      if (status === 'invalid') {
        const { rejectedFromEnvHint } = await import('../../config/settings.js');
        // GET /tokens answers 401 for a bad API key as for a bad token (the API document): either may be wrong.
        failure = new AuthError('the server rejected the API key or the token (401)', { status: 401 }, { hint: rejectedFromEnvHint(s) ?? 'run `ship login` to get a new one' });
      }
    } catch (err) {
      if (err instanceof AuthError) {
        status = 'invalid';
        err.hint ??= 'run `ship login` to get a new token';
        failure = err;
      } else if (err instanceof ApiError) {
        status = 'unknown';
        failure = err;
      } else {
        throw err;
      }
    }
  }

  const secret = (r: Resolved<string> | undefined) => (r ? { masked: mask(r.value), source: r.source, origin: r.origin ?? null } : null);
  if (ctx.mode.json) {
    ctx.out.json({
      profile: plain(s.profile),
      base_url: plain(s.baseUrl),
      test_mode: plain(s.testMode),
      api_key: secret(s.apiKey),
      token: secret(s.token),
      user: user ?? null,
      token_status: status,
      token_valid: status === 'valid' ? true : status === 'invalid' ? false : null,
      config_path: s.configPath,
    });
  } else if (ctx.mode.quiet) {
    ctx.out.line(status);
  } else {
    const src = (r: { source: Resolved<unknown>['source']; origin?: string }) => describeSource(r, profile);
    const shown = (r: Resolved<string> | undefined) => (r ? `${mask(r.value)}  (${src(r)})` : 'none');
    ctx.out.keyValues([
      ['profile', `${profile}  (${src(s.profile)})`],
      ['base URL', `${s.baseUrl.value}  (${src(s.baseUrl)})`],
      ['test mode', s.testMode.value ? `on  (${src(s.testMode)})` : 'off'],
      ['API key', shown(s.apiKey)],
      ['token', shown(s.token)],
      ['user', user ? describeUser(user) : 'unknown'],
      ['token status', status === 'unknown' ? 'unknown (server not reachable)' : status],
      ['config file', s.configPath],
    ]);
  }
  if (failure) throw failure;
}

function plain<T>(r: Resolved<T>): { value: T; source: string; origin: string | null } {
  return { value: r.value, source: r.source, origin: r.origin ?? null };
}
