// Small renderers shared by the reference-data commands: conditions, addresses, countries, dimensions.
import type { Country, ServiceCondition } from '../../api/index.js';

/** One service condition as people read it: `Weight <= 2000`. Accepts the documented triple and the object form. */
export function conditionText(c: ServiceCondition | unknown): string {
  if (Array.isArray(c)) return c.slice(0, 3).map((p) => String(p ?? '')).join(' ').trim();
  if (c && typeof c === 'object') {
    const { field, operator, value } = c as { field?: unknown; operator?: unknown; value?: unknown };
    return [field, operator, value].filter((p) => p !== undefined && p !== null && p !== '').map(String).join(' ');
  }
  return String(c ?? '');
}

/** All conditions joined with " and "; "none" when there are none. */
export function conditionsText(conditions: readonly unknown[] | null | undefined): string {
  const parts = (conditions ?? []).map(conditionText).filter(Boolean);
  return parts.length ? parts.join(' and ') : 'none';
}

/** A country as a code (objects give their code, else their name; bare strings pass). */
export function countryText(c: Country | string | null | undefined): string {
  if (!c) return '';
  if (typeof c === 'string') return c;
  return c.code ?? c.name ?? '';
}

/** Non-empty address parts joined with ", ". */
export function joinAddress(parts: ReadonlyArray<string | null | undefined>): string {
  return parts.filter((p): p is string => typeof p === 'string' && p.trim() !== '').map((p) => p.trim()).join(', ');
}

/** `W × H × D` in mm, or empty when unknown. */
export function dimensionsText(w: number | null | undefined, h: number | null | undefined, d: number | null | undefined): string {
  if (w == null && h == null && d == null) return '';
  return `${w ?? '?'} × ${h ?? '?'} × ${d ?? '?'}`;
}
