// `ship logout`: DELETE /tokens, then forget the token (and cached user) in the profile.
import type { Ctx } from '../../context.js';
import { ApiError, AuthError, refusedCredential } from '../../errors.js';
import { mask } from '../../output/redact.js';

/** Revokes the token on the server and forgets it locally; a token the server already rejects is forgotten too. */
export async function run(ctx: Ctx): Promise<void> {
  const settings = await ctx.settings();
  const store = await ctx.config({ write: true });
  const profile = settings.profile.value;
  const set = settings.credentialSet.name;
  const token = settings.token;
  const which = set === 'test' ? ', test credentials' : '';

  if (!token) {
    // "Not logged in" under a mistyped --profile would leave the real profile's token in place, silently.
    const { unknownProfile } = await import('../../config/store.js');
    const unknown = unknownProfile(store);
    if (unknown) throw unknown;
    ctx.out.info(`Not logged in (profile ${profile}${which}); nothing to do.`);
    if (ctx.mode.json) ctx.out.json({ profile, base_url: settings.baseUrl.value, credential_set: set, revoked: false, forgotten: false });
    return;
  }

  let revoked = false;
  const { credentialProblem } = await import('../../config/validate.js');
  const unsendable = [settings.apiKey, token].find((r) => r && credentialProblem(r.value));
  if (!settings.apiKey) {
    ctx.out.warn('no API key configured, so the token cannot be revoked on the server; forgetting it here only');
  } else if (unsendable) {
    // A broken credential would fail the request before it left; no server could have issued that token.
    ctx.out.warn(`the ${unsendable === token ? 'token' : 'API key'} (${unsendable.origin}) ${credentialProblem(unsendable.value)}: it cannot be revoked on the server; forgetting it here only`);
  } else {
    const api = await ctx.api();
    try {
      await api.tokens.revoke({ signal: ctx.signal });
      revoked = true;
    } catch (err) {
      // 401: the server no longer knows the token — unless it says the API key is what it refused: then the
      // token was never looked at and may well still work (forgetting it would leave it live with no copy to
      // revoke it with). A 403 is a refusal to act; the token may well still work.
      const keyRefused = err instanceof AuthError && refusedCredential(err.http.apiMessage) === 'apiKey';
      if (err instanceof AuthError && err.http.status !== 403 && !keyRefused) {
        ctx.out.warn(`the server rejected the token ${mask(token.value)} (${err.http.status ?? 'auth error'}): it was already invalid; forgetting it anyway`);
      } else {
        if (err instanceof ApiError) {
          const ship = set === 'test' ? 'ship --test' : 'ship';
          err.hint = keyRefused
            ? `the API key (${settings.apiKey.origin ?? settings.apiKey.source}) was refused, so the token was not revoked and is still stored (and may still be valid): retry \`${ship} logout\` with the right API key`
            : `the token is still stored${err.http.status === 403 ? ' (and may still be valid on the server)' : ''}: retry \`${ship} logout\`, or \`${ship} config unset token\` to forget it without revoking it`;
        }
        throw err;
      }
    }
  }

  // Forget the stored token if it is the one in use (an env token leaves a different stored one alone), and only in
  // the set in use: logging out of the test server leaves the live login alone.
  const stored = store.credentials(set, profile).token;
  const forgotten = stored === token.value ? store.forgetToken(profile, set) : false;
  if (token.source === 'env') ctx.out.warn('the token came from SHIP_TOKEN: unset it in your environment');

  ctx.out.success(`Logged out${revoked ? '' : ' (token was not revoked on the server)'}, profile ${profile}${which}`);
  if (ctx.mode.json) ctx.out.json({ profile, base_url: settings.baseUrl.value, credential_set: set, revoked, forgotten });
}
