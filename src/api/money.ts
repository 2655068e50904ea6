// Money as the API formats it, shared by the zod response schemas and the fast SKU page path (sku-fast.ts).

// Text already in the API's format, small enough that Number(t).toFixed(2) gives it back unchanged (nine
// integer digits: the double is within 1e-7 of the text, far inside the rounding step). Most values are.
const CANONICAL = /^(?:0|[1-9]\d{0,8})\.\d\d$/;

/** Formats a money value as the API does (`0.00`); leaves text that is not a number as it came. */
export function toMoney(v: string | number): string {
  if (typeof v === 'string' && CANONICAL.test(v)) return v;
  if (typeof v === 'number') return Number.isFinite(v) ? v.toFixed(2) : String(v);
  const t = v.trim();
  return /^-?\d+(\.\d+)?$/.test(t) ? Number(t).toFixed(2) : v;
}
