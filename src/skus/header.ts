// Header rows of a SKU import: the same header normalisation and --map file format as `create --csv`
// (src/csv/headers.ts), checked against the SKU columns instead of the shipment columns.
import type { InputProblem } from '../errors.js';
import { normalizeHeader } from '../csv/headers.js';
import { checkSkuHeaders, CUSTOM_FIELD_PREFIX, SKU_COLUMNS, skuColumn } from './columns.js';

/** A parsed --map file: the user's header → SKU column (null: ignore the column). */
export interface SkuMapping {
  columns: Record<string, string | null>;
  ignoreUnknown: boolean;
}

/** Whether a normalised name is a SKU column or `custom_fields.KEY`. */
export function isSkuColumn(name: string): boolean {
  return Boolean(skuColumn(name)) || (name.startsWith(CUSTOM_FIELD_PREFIX) && name.length > CUSTOM_FIELD_PREFIX.length);
}

/** Edit distance, for "did you mean". */
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

/** The SKU column a mistyped header most likely meant, if one is close. */
export function suggestSkuColumn(header: string): string | undefined {
  const h = normalizeHeader(header);
  let best: string | undefined;
  let bestD = Infinity;
  for (const c of SKU_COLUMNS) {
    const d = distance(h, c.name);
    if (d < bestD) [best, bestD] = [c.name, d];
  }
  return best && bestD <= Math.max(2, Math.floor(h.length / 4)) ? best : undefined;
}

/** Reads a --map file's JSON: `{"Their header": "sku_column"}` or `{"columns": {…}, "ignore_unknown": true}`. */
export function parseSkuMapping(json: unknown): SkuMapping {
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
    if (typeof to !== 'string') throw new Error(`"${from}": the target must be a SKU column name or null`);
    const target = normalizeHeader(to);
    if (!isSkuColumn(target)) {
      const s = suggestSkuColumn(to);
      throw new Error(`"${from}": "${to}" is not a SKU column${s ? ` (did you mean ${s}?)` : ''}`);
    }
    columns[from] = target;
  }
  return { columns, ignoreUnknown: nested && obj.ignore_unknown === true };
}

/** Where each column of the file goes. */
export interface SkuBinding {
  index: number;
  /** The header as the user wrote it (used in every message). */
  label: string;
  /** SKU column or `custom_fields.KEY`; null when ignored. */
  column: string | null;
}

/** Matches a header row against the SKU columns (after --map); problems name row 1 and the user's header. */
export function resolveSkuHeader(header: readonly string[], mapping?: SkuMapping): { bindings: SkuBinding[]; problems: InputProblem[]; warnings: string[] } {
  const exact = new Map<string, string | null>();
  const norm = new Map<string, string | null>();
  for (const [from, to] of Object.entries(mapping?.columns ?? {})) {
    exact.set(from.trim(), to);
    norm.set(normalizeHeader(from), to);
  }
  const bindings: SkuBinding[] = [];
  const ignored: string[] = [];
  const checks: Array<{ column: string; header: string }> = [];
  header.forEach((raw, index) => {
    const label = raw.replace(/^\uFEFF/, '').trim();
    let column: string | null;
    if (exact.has(label)) column = exact.get(label)!;
    else if (norm.has(normalizeHeader(label))) column = norm.get(normalizeHeader(label))!;
    else column = normalizeHeader(label);
    if (column === '' ) column = null; // an unnamed column (a trailing comma) carries nothing
    if (column !== null && !isSkuColumn(column) && mapping?.ignoreUnknown) {
      ignored.push(label);
      column = null;
    }
    if (column !== null) checks.push({ column, header: label });
    bindings.push({ index, label, column });
  });
  const problems = checkSkuHeaders(checks).map((p) => {
    const s = p.column && !isSkuColumn(normalizeHeader(p.column)) ? suggestSkuColumn(p.column) : undefined;
    return s && p.message.includes('is not a SKU attribute') ? { ...p, message: `${p.message}; did you mean ${s}?` } : p;
  });
  // A column that is unknown or a duplicate must not be read as data.
  const bad = new Set(problems.map((p) => p.column));
  for (const b of bindings) if (b.column !== null && bad.has(b.label)) b.column = null;
  return { bindings, problems, warnings: ignored.length ? [`ignoring unknown columns: ${ignored.join(', ')}`] : [] };
}
