// Header rows: normalising names, applying a --map file, and naming unknown columns with a "did you mean".
import type { InputProblem } from '../errors.js';
import { COLUMN_NAMES, columnDef, PARCEL_CUSTOM_PREFIX, SHIPMENT_CUSTOM_PREFIX } from './columns.js';
import { columnName, type CsvRecord } from './reader.js';
import { nearWord } from '../util/near.js';

/**
 * A header as the contract matches it: trimmed, lower-case, spaces and hyphens as underscores. In
 * `custom_fields.KEY` / `parcel_custom_fields.KEY` only the prefix is normalised; KEY is the account's own key.
 */
export function normalizeHeader(header: string): string {
  const h = header.replace(/^\uFEFF/, '').trim();
  const norm = (s: string) => s.trim().toLowerCase().replace(/[\s-]+/g, '_');
  const dot = h.indexOf('.');
  if (dot > 0) {
    const prefix = norm(h.slice(0, dot + 1));
    if (prefix === SHIPMENT_CUSTOM_PREFIX || prefix === PARCEL_CUSTOM_PREFIX) return prefix + h.slice(dot + 1).trim();
  }
  return norm(h);
}

/** A parsed --map file: source header → contract column, or null to ignore that column. */
export interface HeaderMapping {
  columns: Record<string, string | null>;
  /** Ignore (with a warning) any column neither known nor mapped, instead of refusing the file. */
  ignoreUnknown?: boolean;
  /** The map file as messages name it (`--map NAME`), when it came from one. */
  source?: string;
}

/** Where each column of the file goes. */
export interface HeaderBinding {
  /** 0-based position in the file. */
  index: number;
  /** The header as the user wrote it (used in every message). */
  label: string;
  /** The contract column, or null when the column is ignored. */
  column: string | null;
}

/** Result of matching a header row against the contract. */
export interface ResolvedHeader {
  bindings: HeaderBinding[];
  problems: InputProblem[];
  warnings: InputProblem[];
  /** Contract column → the user's header for it. */
  labels: Map<string, string>;
}

// Names other systems use for our columns; only used to suggest, never to guess silently.
const SYNONYMS: Record<string, string> = {
  reference: 'shipment_reference', order_id: 'order_reference', order_number: 'order_reference',
  order: 'order_reference', name: 'to_name', recipient: 'to_name', company: 'to_company_name',
  phone: 'to_telephone', telephone: 'to_telephone', email: 'to_email_address', address1: 'to_line_1',
  address_1: 'to_line_1', address_line_1: 'to_line_1', address2: 'to_line_2', address_line_2: 'to_line_2',
  city: 'to_city', town: 'to_city', county: 'to_county', state: 'to_county', province: 'to_county',
  postcode: 'to_postcode', zip: 'to_postcode', postal_code: 'to_postcode', country: 'to_country',
  service: 'delivery_service_key', service_key: 'delivery_service_key', sku: 'item_sku', quantity: 'item_quantity',
  qty: 'item_quantity', description: 'item_short_description', packaging: 'packaging_type_key',
};

// Columns ship itself writes into FILE.failed.csv, ignored when such a file is run again.
export const RESERVED_IGNORED: ReadonlySet<string> = new Set(['error', 'ship_error']);

/** Edit distance, for suggestions. */
function distance(a: string, b: string): number {
  const prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let diag = prev[0];
    prev[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = prev[j];
      prev[j] = Math.min(prev[j] + 1, prev[j - 1] + 1, diag + (a[i - 1] === b[j - 1] ? 0 : 1));
      diag = tmp;
    }
  }
  return prev[b.length];
}

/**
 * The candidate a mistyped (normalised) header most likely meant, if one is close enough to suggest.
 * `cost` may lower the distance for a known near-miss form of a candidate (e.g. `city` for `to_city`).
 */
export function closestName(header: string, candidates: Iterable<string>, cost: (header: string, name: string) => number = distance): string | undefined {
  let best: string | undefined;
  let bestD = Infinity;
  for (const name of candidates) {
    const d = cost(header, name);
    if (d < bestD) {
      bestD = d;
      best = name;
    }
  }
  return best && bestD <= Math.max(2, Math.floor(header.length / 4)) ? best : undefined;
}

/** The contract column a mistyped header most likely meant, if any is close. */
export function suggestColumn(header: string): string | undefined {
  const h = normalizeHeader(header);
  if (SYNONYMS[h]) return SYNONYMS[h];
  return closestName(h, COLUMN_NAMES, (x, name) => Math.min(distance(x, name), name.startsWith('to_') ? distance(x, name.slice(3)) + 1 : Infinity));
}

/** What a --map file's targets are checked against. */
export interface ColumnSet {
  /** Whether a normalised name is one of the columns. */
  has(name: string): boolean;
  suggest(header: string): string | undefined;
  /** How the columns are called in messages, e.g. "a column" or "a SKU column". */
  noun: string;
}

/**
 * Reads and checks a --map file's JSON (already parsed): `{"Their header": "our_column" | null}` or
 * `{"columns": {…}, "ignore_unknown": true}`. Throws a message naming the bad entry.
 */
export function parseColumnMapping(json: unknown, set: ColumnSet): HeaderMapping {
  if (!json || typeof json !== 'object' || Array.isArray(json)) throw new Error('must be a JSON object of "their header": "our column"');
  const obj = json as Record<string, unknown>;
  const nested = typeof obj.columns === 'object' && obj.columns !== null && !Array.isArray(obj.columns);
  const source = (nested ? obj.columns : obj) as Record<string, unknown>;
  const columns: Record<string, string | null> = {};
  for (const [from, to] of Object.entries(source)) {
    if (from === '$comment' || from === '$schema') continue;
    if (to === null || to === '') {
      columns[from] = null;
      continue;
    }
    if (typeof to !== 'string') throw new Error(`"${from}": the target must be ${set.noun} name or null`);
    const target = normalizeHeader(to);
    if (!set.has(target)) {
      const s = set.suggest(to);
      throw new Error(`"${from}": "${to}" is not ${set.noun}${s ? ` (did you mean ${s}?)` : ''}`);
    }
    columns[from] = target;
  }
  return { columns, ignoreUnknown: nested && obj.ignore_unknown === true };
}

/**
 * The keys that one object of a JSON text gives twice, each once, in order. JSON.parse keeps the last value
 * without a word: in a --map file that drops a mapping. `text` is valid JSON (JSON.parse took it).
 */
export function duplicateJsonKeys(text: string): string[] {
  const found: string[] = [];
  // Per open object or array: the keys seen so far (undefined for an array).
  const open: Array<Set<string> | undefined> = [];
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (ch === '{') open.push(new Set());
    else if (ch === '[') open.push(undefined);
    else if (ch === '}' || ch === ']') open.pop();
    else if (ch === '"') {
      let end = i + 1;
      while (text[end] !== '"') end += text[end] === '\\' ? 2 : 1;
      let next = end + 1;
      while (/\s/.test(text[next] ?? '')) next++;
      const keys = open.at(-1);
      if (text[next] === ':' && keys) {
        const key = JSON.parse(text.slice(i, end + 1)) as string;
        if (keys.has(key) && !found.includes(key)) found.push(key);
        keys.add(key);
      }
      i = end;
    }
  }
  return found;
}

/** Reads and checks a --map file for `create --csv` against the contract's columns. */
export function parseMapping(json: unknown): HeaderMapping {
  return parseColumnMapping(json, { has: (name) => Boolean(columnDef(name)), suggest: suggestColumn, noun: 'a column' });
}

/** Matches a file's header row against the contract's columns, after the optional mapping. */
export function resolveHeader(header: string[], opts: { mapping?: HeaderMapping; allowUnknown?: boolean } = {}): ResolvedHeader {
  const problems: InputProblem[] = [];
  const warnings: InputProblem[] = [];
  const bindings: HeaderBinding[] = [];
  const labels = new Map<string, string>();
  const mapExact = new Map<string, string | null>();
  const mapNorm = new Map<string, string | null>();
  // Contract columns a --map entry gave a header: a clash of two headers is then the map's doing.
  const mapped = new Set<string>();
  for (const [from, to] of Object.entries(opts.mapping?.columns ?? {})) {
    mapExact.set(from.trim(), to);
    mapNorm.set(normalizeHeader(from), to);
  }
  const ignoreUnknown = opts.allowUnknown || opts.mapping?.ignoreUnknown;
  const unknown: string[] = [];

  header.forEach((raw, index) => {
    const label = raw.replace(/^\uFEFF/, '').trim();
    let column: string | null | undefined;
    let viaMap = true;
    if (mapExact.has(label)) column = mapExact.get(label);
    else if (mapNorm.has(normalizeHeader(label))) column = mapNorm.get(normalizeHeader(label));
    else {
      viaMap = false;
      const n = normalizeHeader(label);
      if (columnDef(n)) column = n;
    }
    if (column === undefined) {
      if (label === '' || RESERVED_IGNORED.has(normalizeHeader(label))) {
        // An unnamed column (a trailing comma) carries nothing; `error` is the column FILE.failed.csv adds,
        // so a fixed failed file can be run as it is.
        column = null;
      } else if (ignoreUnknown) {
        column = null;
        unknown.push(label);
      } else {
        const s = suggestColumn(label);
        problems.push({ row: 1, column: label, message: `unknown column${s ? ` (did you mean ${s}?)` : ''}` });
        column = null;
      }
    }
    if (column) {
      const first = labels.get(column);
      if (first !== undefined) {
        const map = `--map${opts.mapping?.source ? ` ${opts.mapping.source}` : ''}`;
        const message =
          viaMap || mapped.has(column)
            ? `is the same column as "${first}" (${column}) by ${map}: map one of them to another column, or to null`
            : `is the same column as "${first}" (${column}); keep one of them`;
        problems.push({ row: 1, column: label, message });
        column = null;
      } else {
        labels.set(column, label);
        if (viaMap) mapped.add(column);
      }
    }
    bindings.push({ index, label, column });
  });

  const unmatched = unmatchedMapEntries(header, opts.mapping);
  problems.push(...unmatched.problems);
  warnings.push(...unmatched.warnings);
  if (unknown.length) warnings.push({ row: 1, message: `ignoring unknown columns: ${unknown.join(', ')}` });
  if (!labels.has('shipment_reference')) {
    problems.push({ row: 1, column: 'shipment_reference', message: 'required column is missing (rows are grouped into shipments by it)' });
  }
  return { bindings, problems, warnings, labels };
}

/**
 * The --map entries that name no header of the file (matched as resolveHeader does: exactly, or after
 * normalizeHeader). One with a header it likely meant (a typo: under ignore_unknown its data would be dropped
 * without a word) is a problem naming that header; any other only a warning, since one map may serve several
 * exports with different columns. Entries that ignore a column (null) lose nothing when absent: not reported.
 */
export function unmatchedMapEntries(header: readonly string[], mapping: HeaderMapping | undefined): { problems: InputProblem[]; warnings: InputProblem[] } {
  const problems: InputProblem[] = [];
  const warnings: InputProblem[] = [];
  if (!mapping) return { problems, warnings };
  const labels = header.map((raw) => raw.replace(/^\uFEFF/, '').trim()).filter((l) => l !== '');
  const exact = new Set(labels);
  const norm = new Set(labels.map(normalizeHeader));
  const matches = (from: string) => exact.has(from.trim()) || norm.has(normalizeHeader(from));
  const entries = Object.entries(mapping.columns);
  // A header another entry already takes is not what a mistyped entry meant.
  const free = labels.filter((l) => !entries.some(([from]) => from.trim() === l || normalizeHeader(from) === normalizeHeader(l)));
  for (const [from, to] of entries) {
    if (to === null || matches(from)) continue;
    const near = nearHeader(from, free);
    if (near !== undefined) problems.push({ column: '--map', message: `"${from}" matches no column of the file (did you mean "${near}"?)` });
    else warnings.push({ column: '--map', message: `"${from}" matches no column of the file (left unused)` });
  }
  return { problems, warnings };
}

/** The one header that is the same as `name` but for case, spaces and punctuation, or else the one that contains it or is contained in it (three characters at least). */
function nearHeader(name: string, headers: readonly string[]): string | undefined {
  const key = (s: string) => s.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '');
  const k = key(name);
  if (k === '') return undefined;
  const only = (found: string[]) => (found.length === 1 ? found[0] : undefined);
  const same = headers.filter((h) => key(h) === k);
  if (same.length) return only(same);
  // A header of one or two characters (L, W, D, ID) is inside many names by chance: not a near miss.
  const inside = (short: string, long: string) => short.length >= 3 && long.includes(short);
  const within = headers.filter((h) => inside(k, key(h)) || inside(key(h), k));
  if (within.length) return only(within);
  // A typo (a letter or two wrong, missing or swapped: "Gift Nte", "Caton ID"), in names long enough that two
  // letters do not make another word.
  return k.length >= 5 ? only(headers.filter((h) => key(h).length >= 5 && nearWord(k, key(h)))) : undefined;
}

/**
 * Reports each value under a blank header or beyond the header's last column: no column reads it, and it is most
 * often the rest of a cell cut at a comma that was not quoted ("Leave at door, ring bell twice"). Empty cells
 * there (a spreadsheet's trailing empty columns) are fine. Returns the check for the rows under `header`.
 */
export function valuesUnderNoHeader(header: readonly string[]): (rec: CsvRecord, problems: InputProblem[]) => void {
  const named = header.map((h) => h.replace(/^\uFEFF/, '').trim() !== '');
  return (rec, problems) => {
    for (let i = 0; i < rec.values.length; i++) {
      const value = rec.values[i];
      if (value === '' || named[i]) continue;
      const shown = value.length > 40 ? `${value.slice(0, 40)}…` : value;
      problems.push({
        row: rec.row,
        column: columnName(header, i),
        message: `a value under no header ("${shown}"): the end of an earlier cell, cut at a separator (comma, semicolon or tab) that was not in quotes? Quote that cell, or give this column a header`,
      });
    }
  };
}
