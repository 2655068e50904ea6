// POST/GET/DELETE /tokens: user tokens that persist until revoked (each user keeps its newest MAX_TOKENS_PER_USER).
import { randomBytes } from 'node:crypto';
import type { SandboxApp } from '../app.js';
import { HttpError, ok, type ApiRequest, type ApiResponse } from '../http.js';
import { ACCOUNT_NAME, SEED_IDS } from '../seed.js';
import { Errors, isObject, str } from '../validation.js';
import type { UserRec } from '../store.js';

/** The `user` object of the token response. */
export function tokenUser(u: UserRec): Record<string, string> {
  return {
    id: u.id,
    user_type: u.user_type,
    first_name: u.first_name,
    last_name: u.last_name,
    email: u.email,
    account_name: ACCOUNT_NAME,
    merchant_id: SEED_IDS.merchant,
  };
}

/** POST /tokens: username + password → a 32-hex-character token. Wrong credentials → 401. */
export function createToken(app: SandboxApp, req: ApiRequest): ApiResponse {
  const body = isObject(req.body) ? req.body : {};
  const e = new Errors();
  // No backslash/caret ban here: credentials are not text attributes of an object (they never reach a label or
  // a data exchange), and a --password with a caret would otherwise be one its own sandbox refuses.
  const username = str(e, body.username, 'username', { required: true });
  const password = str(e, body.password, 'password', { required: true });
  e.throwIfAny();
  const user = app.store.usersByEmail.get(username!.toLowerCase());
  if (!user || user.password !== password) throw new HttpError(401, 'The username or password is incorrect.', null);
  const token = randomBytes(16).toString('hex');
  app.store.addToken({ token, user_id: user.id, created_at: app.nowStr() });
  app.changed();
  return ok('Login Successful', { token, user: tokenUser(user) });
}

/** GET /tokens: 200 while the token is active (the auth step already rejected others). */
export function checkToken(app: SandboxApp, req: ApiRequest): ApiResponse {
  const user = app.store.users.get(req.userId!)!;
  const rec = app.store.tokens.get(req.token!)!;
  return ok('Token is active', { active: true, created_at: rec.created_at, user: tokenUser(user) });
}

/** DELETE /tokens: revokes the token of the request. */
export function revokeToken(app: SandboxApp, req: ApiRequest): ApiResponse {
  app.store.revokeToken(req.token!);
  app.changed();
  return ok('Token revoked', null);
}
