// The SKU column model shared by `skus import`, `skus export`, `skus create` and `skus update`:
// which attributes exist, how a text cell (or flag value) becomes a request value, and how a SKU
// from the API becomes a row again, so that export → import changes nothing.
import type { InputProblem } from '../errors.js';
import { escapeFormula, unescapeFormula } from './escape.js';

/** How a column's text is read and written. */
export type ColumnKind = 'text' | 'integer' | 'decimal' | 'boolean' | 'country' | 'location' | 'item_handling';

/** One SKU attribute as a CSV column (and as a `--kebab-name` flag). */
export interface SkuColumn {
  name: string;
  kind: ColumnKind;
  /** Help text for the matching flag. */
  help: string;
}

/** Every writable SKU attribute of the API document, in export column order (custom fields follow). */
export const SKU_COLUMNS: readonly SkuColumn[] = [
  { name: 'sku', kind: 'text', help: 'SKU number (the key matched on other systems)' },
  { name: 'product_name', kind: 'text', help: 'product name' },
  { name: 'image_url', kind: 'text', help: 'image URL (the service stores a copy)' },
  { name: 'outer_barcode', kind: 'text', help: 'barcode on the containing packaging' },
  { name: 'inner_barcode', kind: 'text', help: 'barcode on the product' },
  { name: 'product_code', kind: 'text', help: 'manufacturer product code' },
  { name: 'description_short', kind: 'text', help: 'short description' },
  { name: 'description_full', kind: 'text', help: 'full description' },
  { name: 'department', kind: 'text', help: 'department' },
  { name: 'category', kind: 'text', help: 'category' },
  { name: 'location', kind: 'location', help: 'location code or ID (default location when omitted on create)' },
  { name: 'warehouse_location', kind: 'text', help: 'warehouse location (bin, shelf)' },
  { name: 'tariff_code', kind: 'text', help: 'tariff (HS) code' },
  { name: 'tariff_description', kind: 'text', help: 'tariff description' },
  { name: 'country_of_origin', kind: 'country', help: 'country of origin, two-letter ISO code' },
  { name: 'manufacturer_name', kind: 'text', help: 'manufacturer name' },
  { name: 'part_number', kind: 'text', help: 'part number' },
  { name: 'value_ex_vat', kind: 'decimal', help: 'value excluding VAT' },
  { name: 'vat_rate', kind: 'decimal', help: 'VAT rate' },
  { name: 'value_inc_vat', kind: 'decimal', help: 'value including VAT' },
  { name: 'gross_weight', kind: 'integer', help: 'gross weight in grammes' },
  { name: 'net_weight', kind: 'integer', help: 'net weight in grammes' },
  { name: 'width', kind: 'integer', help: 'width in mm' },
  { name: 'length', kind: 'integer', help: 'length in mm' },
  { name: 'depth', kind: 'integer', help: 'depth in mm' },
  { name: 'active', kind: 'boolean', help: 'active (default true on create)' },
  { name: 'is_stocked_item', kind: 'boolean', help: 'is a stocked item' },
  { name: 'in_stock', kind: 'boolean', help: 'in stock' },
  { name: 'item_handling', kind: 'item_handling', help: 'PACKABLE or NON_PACKABLE (also 1/0, Y/N, yes/no, P, packable, non-packable)' },
];

/** Prefix of custom field columns: `custom_fields.KEY`. */
export const CUSTOM_FIELD_PREFIX = 'custom_fields.';

const BY_NAME = new Map(SKU_COLUMNS.map((c) => [c.name, c]));

/** The column of a (normalised) header name, or undefined when it is not a SKU attribute. */
export function skuColumn(name: string): SkuColumn | undefined {
  return BY_NAME.get(name);
}

/** A SKU as sent on POST, PUT or PATCH (only the attributes that were given). */
export interface SkuWrite {
  sku?: string;
  product_name?: string;
  image_url?: string;
  outer_barcode?: string;
  inner_barcode?: string;
  product_code?: string;
  description_short?: string;
  description_full?: string;
  department?: string;
  category?: string;
  location?: string;
  warehouse_location?: string;
  tariff_code?: string;
  tariff_description?: string;
  country_of_origin?: string;
  manufacturer_name?: string;
  part_number?: string;
  value_ex_vat?: number;
  vat_rate?: number;
  value_inc_vat?: number;
  gross_weight?: number;
  net_weight?: number;
  width?: number;
  length?: number;
  depth?: number;
  active?: boolean;
  is_stocked_item?: boolean;
  in_stock?: boolean;
  item_handling?: 'PACKABLE' | 'NON_PACKABLE';
  custom_fields?: Record<string, string>;
}

const PACKABLE = new Set(['1', 'true', 'y', 'yes', 'p', 'packable']);
const NON_PACKABLE = new Set(['0', 'false', 'n', 'no', 'nonpackable', 'non-packable', 'non_packable']);
const TRUE = new Set(['true', '1', 'yes', 'y']);
const FALSE = new Set(['false', '0', 'no', 'n']);
const INTEGER = /^\d+$/;
const DECIMAL = /^-?(\d+(\.\d*)?|\.\d+)$/;
const FORBIDDEN = /[\\^]/;

/** The result of reading one value: the value to send, or the rule it broke. */
export type CellResult = { ok: true; value: string | number | boolean } | { ok: false; message: string };

/**
 * Reads one non-blank cell or flag value of a column. `unescape` undoes export's formula escaping
 * (CSV import); flag values are taken literally.
 */
export function parseCell(col: SkuColumn, raw: string, opts: { unescape?: boolean; decimalComma?: boolean } = {}): CellResult {
  const text = opts.unescape ? unescapeFormula(raw) : raw;
  const trimmed = text.trim();
  switch (col.kind) {
    case 'text':
    case 'location': {
      if (FORBIDDEN.test(text)) return { ok: false, message: 'must not contain a backslash (\\) or a caret (^)' };
      if (col.name === 'sku' && trimmed === '') return { ok: false, message: 'is required' };
      // The SKU number is a key matched on other systems: surrounding spaces are never meant.
      return { ok: true, value: col.name === 'sku' || col.kind === 'location' ? trimmed : text };
    }
    case 'country': {
      if (!/^[A-Za-z]{2}$/.test(trimmed)) return { ok: false, message: `must be a two-letter ISO 3166-1 country code (got "${trimmed}")` };
      return { ok: true, value: trimmed.toUpperCase() };
    }
    case 'integer': {
      if (!INTEGER.test(trimmed)) {
        const unit = col.name.endsWith('weight') ? 'grammes' : 'mm';
        // -5 is a whole number: what it breaks is the sign.
        return { ok: false, message: /^-\d+$/.test(trimmed) ? `must not be negative (got "${trimmed}")` : `must be a whole number of ${unit} (got "${trimmed}")` };
      }
      const n = Number(trimmed);
      if (!Number.isSafeInteger(n)) return { ok: false, message: `is too large (got "${trimmed}")` };
      return { ok: true, value: n };
    }
    case 'decimal': {
      // A file separated by ';' or tabs (a spreadsheet's where the comma is the decimal mark): 12,50; never 1,000.
      if (opts.decimalComma && /^-?\d+,\d{1,2}$/.test(trimmed)) return { ok: true, value: Number(trimmed.replace(',', '.')) };
      if (!DECIMAL.test(trimmed)) return { ok: false, message: `must be a number such as 12.50 (got "${trimmed}")` };
      return { ok: true, value: Number(trimmed) };
    }
    case 'boolean': {
      const v = trimmed.toLowerCase();
      if (TRUE.has(v)) return { ok: true, value: true };
      if (FALSE.has(v)) return { ok: true, value: false };
      return { ok: false, message: `must be true or false (also yes/no, y/n, 1/0; got "${trimmed}")` };
    }
    case 'item_handling': {
      const v = trimmed.toLowerCase();
      if (PACKABLE.has(v)) return { ok: true, value: 'PACKABLE' };
      if (NON_PACKABLE.has(v)) return { ok: true, value: 'NON_PACKABLE' };
      return { ok: false, message: `must be PACKABLE or NON_PACKABLE (also 1/0, true/false, Y/N, yes/no, P, packable, non-packable; got "${trimmed}")` };
    }
  }
}

/** One cell of a data row, named both ways: the SKU column it maps to and the user's own header. */
export interface RowCell {
  /** Normalised column name: a SKU attribute or `custom_fields.KEY`. */
  column: string;
  /** The header as written in the user's file, for messages. */
  header: string;
  value: string;
}

/** A row read into a request, or the problems that stop it. */
export interface ParsedSkuRow {
  row: number;
  sku: string;
  request: SkuWrite;
  problems: InputProblem[];
}

/**
 * Turns the cells of one data row into a SKU request. Blank cells are left out, so an update
 * (PATCH) keeps what the SKU already has. Every problem names the row and the user's column.
 */
export function parseSkuRow(cells: readonly RowCell[], row: number, opts: { decimalComma?: boolean } = {}): ParsedSkuRow {
  const request: Record<string, unknown> = {};
  const problems: InputProblem[] = [];
  let sawSku = false;
  for (const cell of cells) {
    if (cell.column.startsWith(CUSTOM_FIELD_PREFIX)) {
      const key = cell.column.slice(CUSTOM_FIELD_PREFIX.length);
      if (cell.value === '') continue;
      const v = unescapeFormula(cell.value);
      if (FORBIDDEN.test(v)) {
        problems.push({ row, column: cell.header, message: 'must not contain a backslash (\\) or a caret (^)' });
        continue;
      }
      const cf = (request.custom_fields ??= {}) as Record<string, string>;
      cf[key] = v;
      continue;
    }
    const col = skuColumn(cell.column);
    if (!col) continue; // unknown headers are reported once, by checkSkuHeaders
    if (col.name === 'sku') sawSku = true;
    if (cell.value.trim() === '' && col.name !== 'sku') continue;
    const r = parseCell(col, cell.value, { unescape: true, decimalComma: opts.decimalComma });
    if (r.ok) request[col.name] = r.value;
    else problems.push({ row, column: cell.header, message: `${col.name} ${r.message}` });
  }
  if (!sawSku) problems.push({ row, column: 'sku', message: 'sku is required' });
  return { row, sku: typeof request.sku === 'string' ? request.sku : '', request: request as SkuWrite, problems };
}

/** Header problems: unknown columns (probably typos; --map renames them), a missing `sku`, duplicates. */
export function checkSkuHeaders(headers: ReadonlyArray<{ column: string; header: string }>): InputProblem[] {
  const problems: InputProblem[] = [];
  const seen = new Map<string, string>();
  for (const { column, header } of headers) {
    if (column === '') continue;
    const known = skuColumn(column) || (column.startsWith(CUSTOM_FIELD_PREFIX) && column.length > CUSTOM_FIELD_PREFIX.length);
    if (!known) {
      problems.push({ row: 1, column: header, message: `"${header}" is not a SKU attribute (rename it with --map, or use custom_fields.KEY)` });
      continue;
    }
    const before = seen.get(column);
    if (before !== undefined) problems.push({ row: 1, column: header, message: `"${header}" and "${before}" are the same column ${column}` });
    else seen.set(column, header);
  }
  if (!seen.has('sku')) problems.push({ row: 1, column: 'sku', message: 'the file needs a sku column' });
  return problems;
}

/** A SKU as the API returns it (lenient: anything may be missing or extra). */
export type SkuRecord = Record<string, unknown>;

/** The text of one column of a SKU, as export writes it (formula-escaped for text columns). */
export function exportCell(col: SkuColumn, sku: SkuRecord): string {
  const v = sku[col.name];
  if (v === null || v === undefined) return '';
  switch (col.kind) {
    case 'country':
      return typeof v === 'object' ? String((v as { code?: unknown }).code ?? '') : String(v);
    case 'location': {
      // The Location object becomes its code, which is what a write accepts; fall back to its id.
      if (typeof v !== 'object') return escapeFormula(String(v));
      const loc = v as { code?: unknown; id?: unknown };
      return escapeFormula(String(loc.code ?? loc.id ?? ''));
    }
    case 'boolean':
      return typeof v === 'boolean' ? String(v) : String(v);
    case 'integer':
    case 'decimal':
      return String(v);
    case 'item_handling':
      return String(v);
    case 'text':
      return escapeFormula(typeof v === 'object' ? JSON.stringify(v) : String(v));
  }
}

/**
 * Whether a SKU already has every value a PATCH would send: each attribute read back the way an export and an
 * import of it would read it (`5.00` and 5, `{code: "DE"}` and "DE"), custom fields as text. An unchanged row of
 * an exported file then sends nothing, and is counted as such.
 */
export function alreadyHas(current: SkuRecord, request: SkuWrite): boolean {
  for (const [key, want] of Object.entries(request)) {
    if (key === 'custom_fields') {
      const have = customFieldsOf(current);
      for (const [k, v] of Object.entries((want ?? {}) as Record<string, unknown>)) if (!sameAsStored(have[k], String(v))) return false;
      continue;
    }
    const col = skuColumn(key);
    if (!col) return false;
    const text = exportCell(col, current);
    if (text === '') return false;
    const have = parseCell(col, text, { unescape: true });
    if (!have.ok || !sameAsStored(have.value, want)) return false;
  }
  return true;
}

/**
 * Whether a stored value is what sending `want` stores: the service trims the strings of a request (its
 * framework's TrimStrings), so a quoted cell's edge spaces (" spaced") are stored without them, and a rerun of
 * the same file would otherwise update the SKU every time.
 */
function sameAsStored(have: unknown, want: unknown): boolean {
  return have === want || (typeof have === 'string' && typeof want === 'string' && have === want.trim());
}

/** The custom field values of a SKU as text (objects and arrays as JSON). */
export function customFieldsOf(sku: SkuRecord): Record<string, string> {
  const cf = sku.custom_fields;
  const out: Record<string, string> = {};
  if (!cf || typeof cf !== 'object' || Array.isArray(cf)) return out;
  for (const [k, v] of Object.entries(cf as Record<string, unknown>)) {
    if (v === null || v === undefined) out[k] = '';
    else out[k] = typeof v === 'object' ? JSON.stringify(v) : String(v);
  }
  return out;
}
