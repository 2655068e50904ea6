// How many terminal cells a line of text takes: what a redraw needs to know to move the cursor over it.
import { stripVTControlCharacters } from 'node:util';

// East Asian wide and fullwidth characters (CJK, Hangul, fullwidth forms, most emoji) take two cells;
// combining marks and zero-width characters take none.
const WIDE = /[\u1100-\u115f\u2e80-\u303e\u3041-\u33ff\u3400-\u4dbf\u4e00-\u9fff\ua960-\ua97f\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6\u{1f300}-\u{1f64f}\u{1f900}-\u{1f9ff}\u{20000}-\u{3fffd}]/u;
const ZERO = /[\p{Mn}\p{Me}\u200b-\u200f\u2060\ufeff]/u;

/** Terminal cells of `text` (one line, escape sequences already removed). */
export function displayWidth(text: string): number {
  let width = 0;
  for (const ch of text) {
    if (ZERO.test(ch)) continue;
    width += WIDE.test(ch) ? 2 : 1;
  }
  return width;
}

/** Terminal cells of `text` as printed: its colour codes (and other escape sequences) take none. */
export function cellWidth(text: string): number {
  return displayWidth(text.includes('\x1b') ? stripVTControlCharacters(text) : text);
}
