// GET /locations (a paginator: `data.data`) and GET /locations/:ref (code or ID).
import { presentLocation, type SandboxApp } from '../app.js';
import { notFound, ok, type ApiRequest, type ApiResponse } from '../http.js';

/** GET /locations: every location inside a one-page paginator. */
export function listLocations(app: SandboxApp, req: ApiRequest): ApiResponse {
  const data = [...app.store.locations.values()].map(presentLocation);
  const path = `${req.origin}/v1.2/locations`;
  return ok('Locations', {
    current_page: 1,
    data,
    first_page_url: `${path}?page=1`,
    from: data.length ? 1 : null,
    last_page: 1,
    last_page_url: `${path}?page=1`,
    next_page_url: null,
    path,
    per_page: Math.max(30, data.length),
    prev_page_url: null,
    to: data.length ? data.length : null,
    total: data.length,
  });
}

/** GET /locations/:ref. */
export function getLocation(app: SandboxApp, req: ApiRequest): ApiResponse {
  const l = app.store.location(req.params.ref);
  if (!l) throw notFound(`No location with code or ID "${req.params.ref}".`);
  return ok('Location', presentLocation(l));
}
