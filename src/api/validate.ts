// Client-side request validation: every problem at once, each with the dotted field path the API itself uses
// (`to_address.postcode`, `parcels.0.items.1.sku`), so the CSV importer can map it back to a row and column.
import type { z } from 'zod';
import {
  BANNED_CHARS,
  BANNED_CHARS_MESSAGE,
  ContainerRequestSchema,
  CustomFieldRequestSchema,
  ShipmentRequestSchema,
  shipmentCrossFieldIssues,
  SkuPatchSchema,
  SkuRequestSchema,
  type ShipmentRequest,
} from './schemas.js';
import { fastShipmentRequest } from './request-fast.js';
import { nearWord } from '../util/near.js';

/** One problem with a request body: a dotted field path (array indexes as numbers; '' for the body itself) and a rule. */
export interface RequestIssue {
  path: string;
  message: string;
}

/** Outcome of validating a request body. */
export type ValidationResult<T> = { ok: true; value: T } | { ok: false; issues: RequestIssue[] };

/** Every string at any depth that contains a backslash or caret, as issues with dotted paths. */
export function findBannedText(value: unknown, path: Array<string | number> = []): RequestIssue[] {
  const out: RequestIssue[] = [];
  const walk = (v: unknown, p: Array<string | number>): void => {
    if (typeof v === 'string') {
      if (BANNED_CHARS.test(v)) out.push({ path: p.join('.'), message: BANNED_CHARS_MESSAGE });
    } else if (Array.isArray(v)) {
      v.forEach((e, i) => walk(e, [...p, i]));
    } else if (v !== null && typeof v === 'object') {
      for (const [k, e] of Object.entries(v)) walk(e, [...p, k]);
    }
  };
  walk(value, path);
  return out;
}

/** Validates a body against a request schema plus the backslash/caret ban; returns the normalised value or all issues. */
export function validateRequest<S extends z.ZodType>(schema: S, body: unknown): ValidationResult<z.output<S>> {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    return { ok: false, issues: [{ path: '', message: 'must be a JSON object' }] };
  }
  const issues: RequestIssue[] = [];
  const seen = new Set<string>();
  const add = (i: RequestIssue) => {
    const key = `${i.path}\u0000${i.message}`;
    if (!seen.has(key)) {
      seen.add(key);
      issues.push(i);
    }
  };
  const parsed = schema.safeParse(body);
  if (!parsed.success) {
    for (const iss of parsed.error.issues) add({ path: iss.path.map(String).join('.'), message: iss.message });
  }
  for (const i of findBannedText(body)) add(i);
  if (issues.length > 0 || !parsed.success) return { ok: false, issues };
  return { ok: true, value: parsed.data as z.output<S> };
}

/** Validates a shipment (create or quote) body: required fields, enums, country codes, units, the character ban. */
export function validateShipmentRequest(body: unknown): ValidationResult<ShipmentRequest> {
  // A body valid and already in final form (as the CSV importer builds them) needs no zod; see request-fast.ts.
  const fast = fastShipmentRequest(body);
  if (fast) return { ok: true, value: fast };
  const r = validateRequest(ShipmentRequestSchema, body);
  if (r.ok) return r;
  // A field whose own check aborted (a decimal where a whole number goes) makes zod skip the cross-field rules:
  // they are added here, so every problem is still reported at once.
  const seen = new Set(r.issues.map((i) => `${i.path}\u0000${i.message}`));
  for (const i of shipmentCrossFieldIssues(body)) {
    const issue = { path: i.path.map(String).join('.'), message: i.message };
    if (!seen.has(`${issue.path}\u0000${issue.message}`)) r.issues.push(issue);
  }
  return r;
}

/** Validates a POST /custom-fields body. */
export function validateCustomFieldRequest(body: unknown) {
  return validateRequest(CustomFieldRequestSchema, body);
}

/** Validates a POST/PUT /skus body. */
export function validateSkuRequest(body: unknown) {
  return validateRequest(SkuRequestSchema, body);
}

/** Validates a PATCH /skus/:ref body. */
export function validateSkuPatch(body: unknown) {
  return validateRequest(SkuPatchSchema, body);
}

/** Validates a POST /containers body. */
export function validateContainerRequest(body: unknown) {
  return validateRequest(ContainerRequestSchema, body);
}

/** The definition of the `type` schema (object, array) inside optional/nullable/default/pipe wrappers, if any. */
function unwrapTo(schema: unknown, type: 'object' | 'array'): Record<string, unknown> | undefined {
  let s = schema as { _zod?: { def: Record<string, unknown> } } | undefined;
  for (let depth = 0; s?._zod && depth < 8; depth++) {
    const def = s._zod.def;
    if (def.type === type) return def;
    s = (def.innerType ?? (def.type === 'pipe' ? def.out : undefined)) as typeof s;
  }
  return undefined;
}

/**
 * Keys of a request body that the API document does not have but that are one or two letters from a key it
 * has (`delivery_servce_key`, `wieght`): likely typos, which the tolerant schemas would otherwise send unseen.
 * Each with the key meant. Keys far from every known one (an extension the service may know) are left alone.
 */
export function misspelledKeys(body: unknown, schema: unknown = ShipmentRequestSchema): Array<{ path: string; meant: string }> {
  const out: Array<{ path: string; meant: string }> = [];
  const walk = (value: unknown, sch: unknown, path: string): void => {
    if (Array.isArray(value)) {
      const el = unwrapTo(sch, 'array')?.element;
      if (el) value.forEach((v, i) => walk(v, el, `${path}${path ? '.' : ''}${i}`));
      return;
    }
    const shape = unwrapTo(sch, 'object')?.shape as Record<string, unknown> | undefined;
    if (!shape || !value || typeof value !== 'object') return;
    const known = Object.keys(shape);
    for (const [k, v] of Object.entries(value)) {
      const at = `${path}${path ? '.' : ''}${k}`;
      if (k in shape) {
        walk(v, shape[k], at);
        continue;
      }
      const meant = known.find((name) => nearWord(k, name));
      if (meant) out.push({ path: at, meant });
    }
  };
  walk(body, schema, '');
  return out;
}
