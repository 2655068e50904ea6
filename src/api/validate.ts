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
