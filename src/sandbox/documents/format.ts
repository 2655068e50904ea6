// Small formatting helpers shared by the ZPL, PDF and PNG renderers.
import type { DocAddress } from './index.js';

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** Formats `YYYY-MM-DD[ …]` as `21-May-2024`, as carrier labels print it; anything else is shown as given. */
export function labelDate(date: string): string {
  if (date.length >= 10 && date.charCodeAt(4) === 45 && date.charCodeAt(7) === 45) {
    const m = MONTHS[Number(date.slice(5, 7)) - 1];
    if (m) return `${date.slice(8, 10)}-${m}-${date.slice(0, 4)}`;
  }
  return date;
}

/** Formats grammes as kilogrammes with two decimals (`0.03kg`). */
export function kg(grams: number): string {
  return `${(Math.max(0, grams || 0) / 1000).toFixed(2)}kg`;
}

/** The printable lines of an address, empty parts skipped, postcode and country last. */
export function addressLines(a: DocAddress): string[] {
  const lines: string[] = [];
  if (a.name) lines.push(a.name);
  if (a.company_name) lines.push(a.company_name);
  if (a.line_1) lines.push(a.line_1);
  if (a.line_2) lines.push(a.line_2);
  if (a.line_3) lines.push(a.line_3);
  if (a.city) lines.push(a.city);
  if (a.county) lines.push(a.county);
  if (a.postcode) lines.push(a.postcode);
  if (a.country) lines.push(a.country);
  return lines;
}

/** Parses a `0.00` decimal string into integer minor units (cents), tolerating junk as 0. */
export function toMinor(value: string | number | undefined): number {
  if (value === undefined || value === null || value === '') return 0;
  const n = typeof value === 'number' ? value : Number(value);
  return Number.isFinite(n) ? Math.round(n * 100) : 0;
}

/** Formats integer minor units as a `0.00` decimal string. */
export function fromMinor(minor: number): string {
  const sign = minor < 0 ? '-' : '';
  const abs = Math.abs(minor);
  return `${sign}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, '0')}`;
}

// Characters Windows-1252 (WinAnsi, the encoding of pdf-lib's standard fonts) has beyond Latin-1.
const WINANSI_EXTRA = new Set('€‚ƒ„…†‡ˆ‰Š‹ŒŽ‘’“”•–—˜™š›œžŸ');
// Letters that do not decompose into a base letter plus accents.
const TRANSLIT: Record<string, string> = {
  Ł: 'L', ł: 'l', Đ: 'D', đ: 'd', Ħ: 'H', ħ: 'h', ı: 'i', Ŀ: 'L', ŀ: 'l', Ŧ: 'T', ŧ: 't', Ŋ: 'N', ŋ: 'n',
  ß: 'ss', Æ: 'AE', æ: 'ae', Ø: 'O', ø: 'o', Œ: 'OE', œ: 'oe', Þ: 'Th', þ: 'th', Ð: 'D', ð: 'd',
  '‐': '-', '‑': '-', '‒': '-', '–': '-', '—': '-', '―': '-', '‘': "'", '’': "'", '‚': "'", '“': '"', '”': '"', '„': '"',
  '…': '...', '•': '*', '€': 'EUR', '£': 'GBP', '™': 'TM', '©': '(c)', '®': '(R)', '°': 'o', '×': 'x', '÷': '/',
  '\u00a0': ' ', '\u2009': ' ', '\u202f': ' ',
};
const PLAIN_ASCII = /^[\x20-\x7e]*$/;
const CONTROL = /[\x00-\x1f\x7f]/g;

function fold(ch: string, keep: (c: string) => boolean): string {
  if (keep(ch)) return ch;
  const base = ch.normalize('NFD').replace(/[\u0300-\u036f]/g, '');
  if (base !== ch && [...base].every(keep)) return base;
  const t = TRANSLIT[ch];
  if (t !== undefined && [...t].every(keep)) return t;
  return '?';
}

function isWinAnsi(c: string): boolean {
  const code = c.codePointAt(0)!;
  return (code >= 0x20 && code <= 0x7e) || (code >= 0xa0 && code <= 0xff) || WINANSI_EXTRA.has(c);
}

function isAscii(c: string): boolean {
  const code = c.codePointAt(0)!;
  return code >= 0x20 && code <= 0x7e;
}

/** Makes text drawable with pdf-lib's standard fonts: WinAnsi characters kept, others folded (Ł→L, ź→z) or `?`. */
export function winAnsi(text: string | undefined | null): string {
  if (!text) return '';
  if (PLAIN_ASCII.test(text)) return text;
  let out = '';
  for (const ch of text.replace(CONTROL, ' ')) out += fold(ch, isWinAnsi);
  return out;
}

/** Makes text plain printable ASCII (for the PNG label's OCR-B font): accents dropped, ß→ss, others `?`. */
export function plainAscii(text: string | undefined | null): string {
  if (!text) return '';
  if (PLAIN_ASCII.test(text)) return text;
  let out = '';
  for (const ch of text.replace(CONTROL, ' ')) out += fold(ch, isAscii);
  return out;
}
