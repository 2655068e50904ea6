// GET /services, and the condition matching that routing and quoting share.
import { presentService, type SandboxApp } from '../app.js';
import { ok, type ApiRequest, type ApiResponse } from '../http.js';
import type { Condition, ServiceRec } from '../store.js';
import { Errors, int } from '../validation.js';

/** What conditions are checked against; absent values leave their conditions unchecked. */
export interface ParcelFacts {
  weight?: number;
  length?: number;
  width?: number;
  depth?: number;
  country?: string;
}

function compare(actual: number | string, op: string, expected: number | string): boolean {
  switch (op) {
    case '=':
    case '==':
      return actual === expected;
    case '!=':
    case '<>':
      return actual !== expected;
    case '>':
      return actual > expected;
    case '>=':
      return actual >= expected;
    case '<':
      return actual < expected;
    case '<=':
      return actual <= expected;
    default:
      return true;
  }
}

/** The first condition a parcel fails, or null when it meets them all. */
export function failedCondition(s: ServiceRec, f: ParcelFacts): Condition | null {
  for (const c of s.conditions) {
    const field = c[0].toLowerCase();
    let actual: number | string | undefined;
    if (field === 'weight') actual = f.weight;
    else if (field === 'length') actual = f.length;
    else if (field === 'width') actual = f.width;
    else if (field === 'depth') actual = f.depth;
    else if (field === 'volume')
      actual = f.length !== undefined && f.width !== undefined && f.depth !== undefined ? f.length * f.width * f.depth : undefined;
    else if (field === 'country') actual = f.country;
    if (actual === undefined) continue;
    const expected = typeof actual === 'number' ? Number(c[2]) : c[2].toUpperCase();
    if (!compare(actual, c[1], expected)) return c;
  }
  return null;
}

/** GET /services: services available, filtered to those valid for a parcel of the given weight and dimensions. */
export function listServices(app: SandboxApp, req: ApiRequest): ApiResponse {
  const e = new Errors();
  const facts: ParcelFacts = {};
  for (const k of ['weight', 'length', 'width', 'depth'] as const) {
    const raw = req.query.get(k);
    if (raw !== null && raw !== '') facts[k] = int(e, raw, k, { min: 0 });
  }
  e.throwIfAny();
  const list = [...app.store.services.values()].filter((s) => failedCondition(s, facts) === null);
  return ok('Services', list.map(presentService));
}
