// Money as the API formats it, shared by the zod response schemas and the fast SKU page path (sku-fast.ts).

/** Formats a money value as the API does (`0.00`); leaves text that is not a number as it came. */
export function toMoney(v: string | number): string {
  if (typeof v === 'number') return Number.isFinite(v) ? v.toFixed(2) : String(v);
  const t = v.trim();
  return /^-?\d+(\.\d+)?$/.test(t) ? Number(t).toFixed(2) : v;
}
