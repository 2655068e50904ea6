// GET /packaging-options.
import type { SandboxApp } from '../app.js';
import { ok, type ApiRequest, type ApiResponse } from '../http.js';

/** GET /packaging-options: net_weight, allow_override and the packaging types (dimensions in mm). */
export function getPackagingOptions(app: SandboxApp, _req: ApiRequest): ApiResponse {
  const p = app.store.packaging;
  return ok('Packaging options', { net_weight: p.net_weight, allow_override: p.allow_override, packaging_types: p.packaging_types.map((t) => ({ ...t })) });
}
