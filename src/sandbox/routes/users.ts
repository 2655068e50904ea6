// GET /users: the account's users, `{data}` without a message (an envelope exception).
import { presentUser, type SandboxApp } from '../app.js';
import type { ApiRequest, ApiResponse } from '../http.js';

/** GET /users. */
export function listUsers(app: SandboxApp, _req: ApiRequest): ApiResponse {
  return { status: 200, body: { data: [...app.store.users.values()].map((u) => presentUser(app, u)) } };
}
