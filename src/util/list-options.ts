// A LIST custom field's `options` as the API stores them: comma-separated, each optionally in double quotes.
// One reading for the CSV check (csv/custom-field-rules.ts) and the sandbox's own validation, so the two agree.
import { readQuoted } from './quoted.js';

/**
 * Parses a LIST `options` value: comma-separated, each optionally in double quotes, a doubled quote inside quotes
 * standing for one (backslashes are banned in requests, so CSV-style escaping is the one that can be sent).
 */
export function parseListOptions(s: string): string[] {
  const out: string[] = [];
  let i = 0;
  while (i <= s.length) {
    while (s[i] === ' ') i++;
    let value = '';
    if (s[i] === '"') {
      const q = readQuoted(s, i);
      value = q.value;
      i = q.end;
      while (i < s.length && s[i] !== ',') i++;
    } else {
      const end = s.indexOf(',', i);
      value = (end < 0 ? s.slice(i) : s.slice(i, end)).trim();
      i = end < 0 ? s.length : end;
    }
    out.push(value);
    i++;
  }
  return out.filter((v) => v !== '');
}
