// Checks on a built request body beyond conversion: the API's own rules (validateShipmentRequest, with dotted
// paths) and the carriers' text-length limits, which are warned about, never refused.
import type { ShipmentBody } from './build.js';
import { charCount, longerThan } from '../util/chars.js';

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
    if (typeof v === 'string' && longerThan(v, l.max)) out.push({ path: l.path, message: `${charCount(v)} characters long; ${l.what}` });
  }
  return out;
}

/** A number a spreadsheet wrote in scientific notation (4.47701E+11): its digits are gone. */
const SCIENTIFIC = /^\s*\d(?:[.,]\d+)?E\+?\d+\s*$/i;

/**
 * Values that pass the API's rules but are likely wrong, most often a spreadsheet's doing (warned about, never
 * refused): a telephone number in scientific notation, a US ZIP code that lost its leading zero, a value that
 * kept the apostrophe a spreadsheet uses to mark text, and items that weigh more than the parcel holding them.
 */
export function checkPlausibility(body: ShipmentBody): RequestIssue[] {
  const out: RequestIssue[] = [];
  const to = body.to_address as Record<string, unknown> | undefined;
  if (to && typeof to === 'object') {
    const phone = to.telephone;
    if (typeof phone === 'string' && SCIENTIFIC.test(phone)) {
      out.push({ path: 'to_address.telephone', message: `"${phone}" is a number a spreadsheet wrote in scientific notation: its digits are lost (format the column as text and export again)` });
    }
    const postcode = to.postcode;
    if (typeof postcode === 'string' && typeof to.country === 'string' && to.country.trim().toUpperCase() === 'US' && /^\s*\d{3,4}(-\d{4})?\s*$/.test(postcode)) {
      out.push({ path: 'to_address.postcode', message: `"${postcode}" is short for a US ZIP code (5 digits): a leading zero dropped by a spreadsheet?` });
    }
    for (const k of ['postcode', 'telephone'] as const) {
      const v = to[k];
      if (typeof v === 'string' && v.startsWith("'")) out.push({ path: `to_address.${k}`, message: `"${v}" starts with an apostrophe (a spreadsheet's mark for text?); it is sent as it is` });
    }
  }
  const parcels = Array.isArray(body.parcels) ? (body.parcels as Array<Record<string, unknown>>) : [];
  parcels.forEach((p, i) => {
    if (typeof p?.weight !== 'number' || !Array.isArray(p.items)) return;
    let items = 0;
    for (const it of p.items as Array<Record<string, unknown>>) {
      if (typeof it?.item_weight !== 'number') return; // not every weight known: nothing to compare
      items += it.item_weight * (typeof it.item_quantity === 'number' ? it.item_quantity : 1);
    }
    if (items > p.weight) out.push({ path: `parcels.${i}.weight`, message: `${p.weight} g, but its items weigh ${items} g together (item_weight is per item): is the parcel weight right?` });
  });
  return out;
}

/** A date as YYYY-MM-DD in the machine's own time zone (the warehouse's day, not UTC's). */
export function localDay(d: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
}

/**
 * A despatch_date before `today` (YYYY-MM-DD): the API's rules let it through (the document says nothing of
 * past dates), but a label dated days ago is most likely a file made for an earlier day and run again.
 */
export function checkDespatchDate(body: ShipmentBody, today: string): RequestIssue[] {
  const date = body.despatch_date;
  if (typeof date !== 'string' || !/^\d{4}-\d{2}-\d{2}/.test(date)) return [];
  const day = date.slice(0, 10);
  return day < today ? [{ path: 'despatch_date', message: `${day} is in the past (today is ${today}); sent as it is` }] : [];
}

/**
 * What is warned about in a body (carrier length limits, likely spreadsheet damage, a despatch date in the
 * past when `today` is given), never refused.
 */
export function bodyWarnings(body: ShipmentBody, today?: string): RequestIssue[] {
  const lengths = checkLengths(body);
  const odd = checkPlausibility(body);
  if (today !== undefined) odd.push(...checkDespatchDate(body, today));
  return odd.length ? [...lengths, ...odd] : lengths;
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
