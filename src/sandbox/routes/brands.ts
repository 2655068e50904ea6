// GET /brands and GET /brands/:ref (key or ID).
import { presentBrand, type SandboxApp } from '../app.js';
import { notFound, ok, type ApiRequest, type ApiResponse } from '../http.js';

/** GET /brands. */
export function listBrands(app: SandboxApp, _req: ApiRequest): ApiResponse {
  return ok('Brands', [...app.store.brands.values()].map(presentBrand));
}

/** GET /brands/:ref. */
export function getBrand(app: SandboxApp, req: ApiRequest): ApiResponse {
  const b = app.store.brand(req.params.ref);
  if (!b) throw notFound(`No brand with key or ID "${req.params.ref}".`);
  return ok('Brand', presentBrand(b));
}
