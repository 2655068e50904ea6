// Formatting of container counts and limits: grammes as kg, minor currency units as major, null as unlimited.

/** Grammes as kilograms with up to three decimals, trailing zeros dropped: 8200 → "8.2 kg". */
export function formatGrams(g: number): string {
  const kg = (g / 1000).toFixed(3).replace(/\.?0+$/, '');
  return `${kg} kg`;
}

/** Pence/cents as the major unit with two decimals and the currency: 12345, "GBP" → "123.45 GBP". */
export function formatMinor(minor: number, currency: string): string {
  const sign = minor < 0 ? '-' : '';
  const abs = Math.abs(Math.round(minor));
  const text = `${sign}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, '0')}`;
  return currency ? `${text} ${currency}` : text;
}

/** A current count beside its limit: "12 / 50", "12 / unlimited" when the limit is null. */
export function limitPair(current: number | null | undefined, max: number | null | undefined, fmt: (n: number) => string): string {
  const now = fmt(current ?? 0);
  return `${now} / ${max === null || max === undefined ? 'unlimited' : fmt(max)}`;
}

/** Renames the field paths of a validation error to the flags that supply them (unknown paths kept; messages verbatim). */
export function mapFieldsToFlags(fields: Record<string, string[]>, flags: Record<string, string>): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [path, messages] of Object.entries(fields)) {
    const flag = flags[path] ?? flags[path.split('.')[0]] ?? path;
    out[flag] = [...(out[flag] ?? []), ...messages];
  }
  return out;
}
