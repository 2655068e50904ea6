// Checks on a built request body beyond conversion: the API's own rules (validateShipmentRequest, with dotted
// paths) and the carriers' text-length limits, which are warned about, never refused.
import type { ShipmentBody } from './build.js';

/** One problem with a request body at a dotted API path (`parcels.0.items.1.sku`). */
export interface RequestIssue {
  path: string;
  message: string;
}

/** Carrier limits seen in real integrations (api-notes.md): not API rules, so only warnings. */
const LIMIT_LIST: Array<{ path: string; max: number; what: string }> = [
  { path: 'shipment_reference', max: 30, what: 'some carriers cap the shipment reference at 30 characters' },
  { path: 'to_address.name', max: 40, what: 'carriers often cut names and address lines at about 40 characters' },
  { path: 'to_address.company_name', max: 40, what: 'carriers often cut names and address lines at about 40 characters' },
  { path: 'to_address.line_1', max: 40, what: 'carriers often cut address lines at about 40 characters' },
  { path: 'to_address.line_2', max: 40, what: 'carriers often cut address lines at about 40 characters' },
  { path: 'to_address.line_3', max: 40, what: 'carriers often cut address lines at about 40 characters' },
  { path: 'to_address.city', max: 40, what: 'carriers often cut address lines at about 40 characters' },
];

/** The limits with their paths split once (checked for every shipment of a file). */
const LIMITS = LIMIT_LIST.map((l) => {
  const [top, sub] = l.path.split('.');
  return { ...l, top, sub };
});

/** Text values longer than a carrier is likely to print, as warnings at their request paths. */
export function checkLengths(body: ShipmentBody): RequestIssue[] {
  const out: RequestIssue[] = [];
  for (const l of LIMITS) {
    const v = l.sub === undefined ? body[l.top] : (body[l.top] as Record<string, unknown> | undefined)?.[l.sub];
    // Characters, not UTF-16 units; a string of no more units than the limit has no more characters either.
    if (typeof v === 'string' && v.length > l.max) {
      const chars = [...v].length;
      if (chars > l.max) out.push({ path: l.path, message: `${chars} characters long; ${l.what}` });
    }
  }
  return out;
}

/** The API layer's request rules as a plain issue list (loaded on first use: zod is not needed by --help). */
export async function apiValidator(): Promise<(body: ShipmentBody) => RequestIssue[]> {
  const { validateShipmentRequest } = await import('../api/validate.js');
  return (body) => {
    const r = validateShipmentRequest(body);
    return r.ok ? [] : r.issues;
  };
}

/**
 * The API layer's request rules with the normalised body: the issues, and for a valid body what
 * validateShipmentRequest makes of it — what a request carries, so a bulk run can send it without validating
 * it again (`prevalidated`).
 */
export async function apiChecker(): Promise<(body: ShipmentBody) => { issues: RequestIssue[]; value?: ShipmentBody }> {
  const { validateShipmentRequest } = await import('../api/validate.js');
  return (body) => {
    const r = validateShipmentRequest(body);
    return r.ok ? { issues: [], value: r.value as ShipmentBody } : { issues: r.issues };
  };
}
