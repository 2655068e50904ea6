// Header rows of a SKU import: the same header normalisation and --map file format as `create --csv`
// (src/csv/headers.ts), checked against the SKU columns instead of the shipment columns.
import type { InputProblem } from '../errors.js';
import { closestName, normalizeHeader, parseColumnMapping, RESERVED_IGNORED, unmatchedMapEntries, type HeaderMapping } from '../csv/headers.js';
import { checkSkuHeaders, CUSTOM_FIELD_PREFIX, SKU_COLUMNS, skuColumn } from './columns.js';

/** A parsed --map file: the user's header → SKU column (null: ignore the column). */
export type SkuMapping = HeaderMapping;

/** Whether a normalised name is a SKU column or `custom_fields.KEY`. */
export function isSkuColumn(name: string): boolean {
  return Boolean(skuColumn(name)) || (name.startsWith(CUSTOM_FIELD_PREFIX) && name.length > CUSTOM_FIELD_PREFIX.length);
}

/** The SKU column a mistyped header most likely meant, if one is close. */
export function suggestSkuColumn(header: string): string | undefined {
  return closestName(
    normalizeHeader(header),
    SKU_COLUMNS.map((c) => c.name),
  );
}

/** Reads a --map file's JSON: `{"Their header": "sku_column"}` or `{"columns": {…}, "ignore_unknown": true}`. */
export function parseSkuMapping(json: unknown): SkuMapping {
  return parseColumnMapping(json, { has: isSkuColumn, suggest: suggestSkuColumn, noun: 'a SKU column' });
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
    // `error` (or `ship_error`) is the column FILE.failed.csv adds: a fixed failed file is imported as it is.
    else if (RESERVED_IGNORED.has(normalizeHeader(label))) column = null;
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
  const unmatched = unmatchedMapEntries(header, mapping);
  problems.push(...unmatched.problems);
  const warnings = unmatched.warnings.map((w) => `--map: ${w.message}`);
  if (ignored.length) warnings.push(`ignoring unknown columns: ${ignored.join(', ')}`);
  return { bindings, problems, warnings };
}
