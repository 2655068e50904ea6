// `ship whoami`: the profile, base URL and credentials in use (masked, with their sources), and the token check.
import type { Ctx } from '../../context.js';
import { ApiError, AuthError, refusedCredential } from '../../errors.js';
import type { CachedUser } from '../../config/store.js';
import { describeSource, loginCommand, type Resolved, type Settings } from '../../config/settings.js';
import { mask } from '../../output/redact.js';
import { cacheableUser, describeUser } from './common.js';

type TokenStatus = 'valid' | 'invalid' | 'missing' | 'unknown';

/** Whose token is in use, and how we know: cached with it at login (`profile`), named by GET /tokens (`server`), or not known. */
interface UserShown {
  user: CachedUser | null;
  source: 'profile' | 'server' | null;
  /** Why the user is not known, when the profile has a user that may be someone else's. */
  note?: string;
}

/** Prints who and where; exits 4 (AuthError) when not logged in or the token is rejected, 1 when unreachable. */
export async function run(ctx: Ctx): Promise<void> {
  const s = await ctx.settings();
  const store = await ctx.config();
  const profile = s.profile.value;
  const stored = store.credentials(s.credentialSet.name, profile);
  const login = loginCommand(s);
  {
    // "No API key" would send a person to `ship login` for a profile whose name they mistyped (and credentials
    // from the environment to the built-in default URL).
    const { unknownProfileNeeded } = await import('../../config/store.js');
    const err = unknownProfileNeeded(store, s);
    if (err) throw err;
  }

  let status: TokenStatus = 'missing';
  let failure: Error | undefined;
  let serverUser: Record<string, unknown> | undefined;
  let keyRefused = false;
  if (!s.apiKey) {
    failure = new AuthError('no API key configured', {}, { hint: `run \`${login}\`, or set SHIP_API_KEY` });
  } else if (!s.token) {
    failure = new AuthError('not logged in: no user token', {}, { hint: `run \`${login}\`, or set SHIP_TOKEN` });
  } else {
    try {
      const api = await ctx.api();
      const session = await api.tokens.session({ signal: ctx.signal });
      status = session.active ? 'valid' : 'invalid';
      serverUser = session.user;
      if (status === 'invalid') {
        const { rejectedFromEnvHint } = await import('../../config/settings.js');
        // GET /tokens answers 401 for a bad API key as for a bad token (the API document): either may be wrong,
        // unless the answer says the API key is: then the token was never looked at, and its status is not known.
        keyRefused = refusedCredential(session.refusal) === 'apiKey';
        if (keyRefused) status = 'unknown';
        const what = keyRefused ? 'the API key' : 'the API key or the token';
        failure = new AuthError(`the server rejected ${what} (401)`, { status: 401, ...(session.refusal ? { apiMessage: session.refusal } : {}) }, {
          hint: rejectedFromEnvHint(s, session.refusal) ?? (keyRefused ? `run \`${login}\` with the right key (it asks for it; SHIP_API_KEY=KEY in a script)` : `run \`${login}\` to get a new one`),
        });
      }
    } catch (err) {
      if (err instanceof AuthError) {
        status = 'invalid';
        err.hint ??= `run \`${login}\` to get a new token`;
        failure = err;
      } else if (err instanceof ApiError) {
        status = 'unknown';
        failure = err;
      } else {
        throw err;
      }
    }
  }
  const shownUser = whoseToken(s, stored.token, stored.user, serverUser);

  const secret = (r: Resolved<string> | undefined) => (r ? { masked: mask(r.value), source: r.source, origin: r.origin ?? null } : null);
  if (ctx.mode.json) {
    ctx.out.json({
      profile: plain(s.profile),
      base_url: plain(s.baseUrl),
      test_mode: plain(s.testMode),
      credential_set: { value: s.credentialSet.name, why: s.credentialSet.why },
      api_key: secret(s.apiKey),
      token: secret(s.token),
      user: shownUser.user,
      user_source: shownUser.source,
      ...(shownUser.note ? { user_note: shownUser.note } : {}),
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
      ['credentials', `${s.credentialSet.name}  (${s.credentialSet.why})`],
      ['API key', shown(s.apiKey)],
      ['token', shown(s.token)],
      [
        'user',
        shownUser.user
          ? `${describeUser(shownUser.user)}${shownUser.source === 'server' ? '  (from GET /tokens)' : ''}`
          : `unknown${shownUser.note ? `: ${shownUser.note}` : ''}`,
      ],
      ['token status', status === 'unknown' ? (keyRefused ? 'unknown (the API key was refused)' : 'unknown (the service did not answer the check: unreachable, or failing)') : status],
      ['config file', s.configPath],
    ]);
  }
  if (failure) throw failure;
}

/**
 * The user to show for the token in use. The user cached in the profile is the one the stored token was given
 * to: it describes SHIP_TOKEN only when that is the same token. Otherwise the server's answer names the user
 * if it can; failing that, the user is not known, and saying the cached one would name someone else.
 */
function whoseToken(s: Settings, storedToken: string | undefined, cached: CachedUser | undefined, fromServer: Record<string, unknown> | undefined): UserShown {
  const cachedFits = !s.token || s.token.source === 'profile' || s.token.value === storedToken;
  if (cachedFits && cached) return { user: cached, source: 'profile' };
  if (fromServer) return { user: cacheableUser(fromServer), source: 'server' };
  if (!cachedFits && cached) {
    const who = describeUser(cached) || 'a user';
    return {
      user: null,
      source: null,
      note: `the server does not say; the user cached in profile ${s.profile.value} (${who}) logged in with another token than ${s.token!.origin ?? 'this one'}`,
    };
  }
  return { user: null, source: null };
}

function plain<T>(r: Resolved<T>): { value: T; source: string; origin: string | null } {
  return { value: r.value, source: r.source, origin: r.origin ?? null };
}
