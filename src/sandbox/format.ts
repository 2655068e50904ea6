// Formatting shared by the sandbox's resources: timestamps, money, identifiers. All times are UTC.

function p2(n: number): string {
  return n < 10 ? '0' + n : String(n);
}

/** `YYYY-MM-DD` of a date (UTC). */
export function fmtDate(d: Date): string {
  return `${d.getUTCFullYear()}-${p2(d.getUTCMonth() + 1)}-${p2(d.getUTCDate())}`;
}

/** `YYYY-MM-DD HH:mm:ss` (the API's timestamp format), UTC. */
export function fmtDateTime(d: Date): string {
  return `${fmtDate(d)} ${p2(d.getUTCHours())}:${p2(d.getUTCMinutes())}:${p2(d.getUTCSeconds())}`;
}

/** `YYYY-MM-DD HH:mm` (the format of estimated_delivery_date), UTC. */
export function fmtDateTimeMinutes(d: Date): string {
  return `${fmtDate(d)} ${p2(d.getUTCHours())}:${p2(d.getUTCMinutes())}`;
}

/** Parses `YYYY-MM-DD` or `YYYY-MM-DD HH:mm:ss` as UTC; null when it is not a real date in that shape. */
export function parseDateTime(s: string): Date | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})(?: (\d{2}):(\d{2}):(\d{2}))?$/.exec(s);
  if (!m) return null;
  const [y, mo, d, h, mi, se] = [m[1], m[2], m[3], m[4] ?? '0', m[5] ?? '0', m[6] ?? '0'].map(Number);
  const date = new Date(Date.UTC(y, mo - 1, d, h, mi, se));
  if (date.getUTCFullYear() !== y || date.getUTCMonth() !== mo - 1 || date.getUTCDate() !== d || h > 23 || mi > 59 || se > 59) return null;
  return date;
}

/** Adds business days (Mon–Fri) to a date. */
export function addBusinessDays(d: Date, days: number): Date {
  const out = new Date(d.getTime());
  let left = days;
  while (left > 0) {
    out.setUTCDate(out.getUTCDate() + 1);
    const wd = out.getUTCDay();
    if (wd !== 0 && wd !== 6) left--;
  }
  return out;
}

/** Integer minor units (pence) as a `0.00` string. */
export function money(minor: number): string {
  const sign = minor < 0 ? '-' : '';
  const abs = Math.abs(Math.round(minor));
  const units = Math.floor(abs / 100);
  const cents = abs % 100;
  return `${sign}${units}.${cents < 10 ? '0' + cents : cents}`;
}

/** A decimal (number or numeric string) as integer minor units. */
export function toMinor(v: number | string): number {
  return Math.round(Number(v) * 100);
}

/** Day of the year, 1-based (UTC). */
export function dayOfYear(d: Date): number {
  return Math.floor((Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()) - Date.UTC(d.getUTCFullYear(), 0, 1)) / 86_400_000) + 1;
}
