// --customs FILE.csv: the customs details of the products a shop sells, for items that leave mainland UK.
//
// Outside mainland UK (another country, or Northern Ireland) the API needs, for every item without a SKU, its
// full description, country of origin, tariff code and weight per item. An orders export (Shopify's, say) never
// carries them, and they belong to the product, not the order: so they live in a small table of their own,
// one row per product, matched to each item by its SKU or its description (the Shopify line item name).
//
//   product,country_of_origin,harmonised_code,item_weight,full_description
//   The Videographer Snowboard,CA,950611,3200,Snowboard with bindings
//   *,GB,621710,200,            ← any other item without a SKU
//
// Decisions:
// - Only items of shipments leaving mainland UK are filled: customs data is for customs, and a domestic body stays
//   exactly what its columns say.
// - Only blank attributes are filled: the order file's own values win.
// - `*` fills items without a SKU only: an item with a SKU gets its customs details from the service's inventory
//   (`ship skus import`), which a catch-all row must not override; a row naming the SKU does (the API lets an
//   item's values override its SKU's).
// - A matched item with no full description anywhere gets its own short description (the product name) as one.
// - The table is checked whole before anything is used: every problem as `FILE row N, column C: rule`, in one
//   error, rows whose quoting is broken or with bytes that are not UTF-8 among them (as the --csv file's).
import { outsideMainlandUk } from '../api/destination.js';
import { InputError, type InputProblem } from '../errors.js';
import { convertCell } from '../shipment-input/build.js';
import type { ShipmentDraft } from '../shipment-input/draft.js';
import { columnDef } from './columns.js';
import { resolveCountry } from './countries.js';
import { valuesUnderNoHeader } from './headers.js';
import { columnName, detectOrRefuse, readCsv } from './reader.js';

/** The item columns a customs table may give (contract names), by the header names it accepts. */
const COLUMNS: ReadonlyMap<string, string> = new Map([
  ['country_of_origin', 'item_country_of_origin'],
  ['origin', 'item_country_of_origin'],
  ['harmonised_code', 'item_harmonised_code'],
  ['harmonized_code', 'item_harmonised_code'],
  ['hs_code', 'item_harmonised_code'],
  ['item_weight', 'item_weight'],
  ['weight', 'item_weight'],
  ['full_description', 'item_full_description'],
  ['short_description', 'item_short_description'],
]);

/** One product's details: contract item column → value (already checked and normalised). */
interface CustomsEntry {
  row: number;
  values: Map<string, string>;
}

/** A loaded --customs table. */
export interface CustomsTable {
  /** The file's name, as messages show it. */
  name: string;
  byProduct: Map<string, CustomsEntry>;
  /** The `*` row: items without a SKU that no other row names. */
  fallback?: CustomsEntry;
}

/** How product names and SKUs are compared: trimmed, inner spaces collapsed, any case. */
export function productKey(text: string): string {
  return text.trim().replace(/\s+/g, ' ').toLowerCase();
}

/**
 * Reads and checks a customs table; throws one InputError naming every problem by row and column: bad values,
 * rows whose quoting is broken, and rows with bytes that are not UTF-8 in a file otherwise UTF-8, all of them.
 */
export async function loadCustomsTable(path: string, name = path): Promise<CustomsTable> {
  const problems: InputProblem[] = [];
  const table: CustomsTable = { name, byProduct: new Map() };
  // Rows with bytes that are not UTF-8 are listed with the table's other problems (not instead of them): the
  // file is then read as UTF-8, those bytes as U+FFFD, and their cells are not checked again.
  const { refused, ...encoding } = await detectOrRefuse(path, { name: `--customs ${name}` });
  for (const p of refused?.problems ?? []) {
    // Its advice names --encoding, which is the --csv file's: the table's rows are retyped instead.
    problems.push(p.row === undefined ? p : { ...p, message: 'bytes that are not UTF-8 in a file otherwise UTF-8 (a row pasted from another program?): retype them, or save the table as "CSV UTF-8"' });
  }
  // Cells already reported as unreadable (broken quoting, bad bytes): what was read of them is not checked.
  const broken = new Set(problems.map(cellKey));
  let header: string[] | undefined;
  let productAt = -1;
  const columnAt: Array<string | undefined> = [];
  let checkUnheaded: ReturnType<typeof valuesUnderNoHeader> | undefined;
  for await (const rec of readCsv({ path }, { encoding, malformed: 'report' })) {
    if (rec.malformed) {
      for (const p of rec.malformed.problems) {
        problems.push(p);
        broken.add(cellKey(p));
      }
    }
    if (!header) {
      header = rec.values;
      const headerProblems: InputProblem[] = [];
      header.forEach((h, i) => {
        const key = h.replace(/^\uFEFF/, '').trim().toLowerCase().replace(/^item_(?!weight)/, '');
        if (key === 'product' || key === 'sku' || key === 'name') {
          if (productAt >= 0) headerProblems.push({ row: 1, column: h, message: 'a second product column (give one of product, sku, name)' });
          else productAt = i;
        } else if (COLUMNS.has(key)) columnAt[i] = COLUMNS.get(key);
        // (A header cell with broken quoting is reported as such, not again as unknown.)
        else if (key !== '' && !broken.has(cellKey({ row: 1, column: String(i + 1) }))) headerProblems.push({ row: 1, column: h, message: `unknown column (known: product, ${[...new Set(COLUMNS.keys())].join(', ')})` });
      });
      if (productAt < 0) headerProblems.push({ row: 1, message: 'no product column: the first column names the product (its SKU or its name as the orders show it), or * for any other item' });
      if (!columnAt.some(Boolean)) headerProblems.push({ row: 1, message: 'no customs column (country_of_origin, harmonised_code, item_weight, full_description)' });
      problems.push(...headerProblems);
      // Rows cannot be read without their columns.
      if (headerProblems.length || (rec.malformed && !rec.malformed.complete)) break;
      checkUnheaded = valuesUnderNoHeader(header);
      continue;
    }
    // A record cut short (a quote never closed) holds only the cells before the fault: those are checked.
    const complete = !rec.malformed || rec.malformed.complete;
    if (complete && rec.values.every((v) => v === '')) continue;
    const at = (i: number) => columnName(header, i);
    const readable = (i: number) => i < rec.values.length && !broken.has(cellKey({ row: rec.row, column: at(i) }));
    const found: InputProblem[] = [];
    checkUnheaded!(rec, found);
    for (const p of found) if (!broken.has(cellKey(p))) problems.push(p);
    const product = rec.values[productAt] ?? '';
    const productReadable = readable(productAt);
    if (product === '' && productReadable) {
      problems.push({ row: rec.row, column: at(productAt), message: 'is empty (name the product, or * for any other item)' });
      continue;
    }
    const entry: CustomsEntry = { row: rec.row, values: new Map() };
    rec.values.forEach((raw, i) => {
      const column = columnAt[i];
      if (!column || raw === '' || !readable(i)) return;
      const checked = checkValue(column, raw);
      if (typeof checked === 'string') entry.values.set(column, checked);
      else problems.push({ row: rec.row, column: at(i), message: checked.problem });
    });
    // A broken row is not used (nothing is sent), nor is a product whose name is unreadable compared with others.
    if (!productReadable || !complete) continue;
    const key = product === '*' ? '*' : productKey(product);
    const earlier = key === '*' ? table.fallback : table.byProduct.get(key);
    if (earlier) {
      problems.push({ row: rec.row, column: at(productAt), message: `"${product}" is already on row ${earlier.row}` });
      continue;
    }
    if (key === '*') table.fallback = entry;
    else table.byProduct.set(key, entry);
  }
  if (!header) problems.push({ row: 1, message: 'the file is empty: a header row is required' });
  if (problems.length) {
    // Row by row, and within a row in the table's column order, as the user reads the file (the bad bytes were
    // found before the rest); a problem of no row ("… and N more rows") last.
    const col = new Map((header ?? []).map((_, i) => [columnName(header, i), i]));
    // (Broken quoting in the header is at a column number, a value beyond the header at "N (no header)".)
    const colOf = (p: InputProblem) => (p.column === undefined ? -1 : (col.get(p.column) ?? Number(/^(\d+)(?: \(no header\))?$/.exec(p.column)?.[1] ?? 1e6) - 1));
    problems.sort((a, b) => (a.row ?? Infinity) - (b.row ?? Infinity) || colOf(a) - colOf(b));
    const rows = new Set(problems.flatMap((p) => (p.row === undefined ? [] : [p.row]))).size;
    throw new InputError(`--customs ${name}: ${problems.length} problem${problems.length === 1 ? '' : 's'} in ${rows} row${rows === 1 ? '' : 's'}; nothing was sent`, problems, {
      hint: 'columns: product (SKU or name, * for any other item), country_of_origin, harmonised_code, item_weight (grams), full_description',
    });
  }
  return table;
}

const cellKey = (p: { row?: number; column?: string }) => `${p.row}\u0000${p.column}`;

/** A customs value as the API takes it, or what is wrong with it. */
function checkValue(column: string, raw: string): string | { problem: string } {
  switch (column) {
    case 'item_country_of_origin': {
      const r = resolveCountry(raw);
      return r.ok ? r.code : { problem: r.message };
    }
    case 'item_harmonised_code': {
      // Tariff codes are written with dots or spaces (6109.10.00): the digits are the code.
      const digits = raw.replace(/[.\s]/g, '');
      return /^\d{6,10}$/.test(digits) ? digits : { problem: `"${raw}" is not a tariff code (6 to 10 digits, e.g. 6109.10 or 6109100010)` };
    }
    case 'item_weight':
      return /^\d+$/.test(raw) && Number(raw) > 0 ? String(Number(raw)) : { problem: `"${raw}" is not a weight in whole grams per item (e.g. 250)` };
    default: {
      // Descriptions: the order file's own rule for the column (the character ban).
      const r = convertCell(columnDef(column)!, raw);
      return r.ok ? raw : { problem: r.message };
    }
  }
}

/**
 * Whether a draft's recipient is outside mainland UK (abroad, or Northern Ireland). A country that does not
 * resolve counts as not: validation reports it as it stands.
 */
export function leavesMainlandUk(draft: ShipmentDraft): boolean {
  const country = resolveCountry(draft.cells.get('to_country')?.value ?? '');
  return country.ok && outsideMainlandUk({ country: country.code, postcode: draft.cells.get('to_postcode')?.value });
}

/**
 * Fills the blank customs attributes of a shipment's items from the table, when the shipment leaves mainland UK.
 * Filled cells name the table's row, so a problem the API finds in one points there.
 */
export function applyCustoms(draft: ShipmentDraft, table: CustomsTable): void {
  if (!leavesMainlandUk(draft)) return;
  for (const parcel of draft.parcels) {
    for (const item of parcel.items) {
      const sku = item.cells.get('item_sku')?.value.trim() ?? '';
      const description = item.cells.get('item_short_description')?.value ?? '';
      const entry =
        (sku ? table.byProduct.get(productKey(sku)) : undefined) ??
        (description ? table.byProduct.get(productKey(description)) : undefined) ??
        (sku ? undefined : table.fallback);
      if (!entry) continue;
      const row = item.row ?? parcel.firstRow ?? draft.firstRow;
      const from = (column: string) => `${column} (--customs ${table.name} row ${entry.row})`;
      for (const [column, value] of entry.values) {
        if (item.cells.get(column)?.value.trim()) continue;
        item.cells.set(column, { value, row, column: from(column) });
      }
      if (!item.cells.get('item_full_description')?.value.trim() && description.trim()) {
        const short = item.cells.get('item_short_description')!;
        item.cells.set('item_full_description', { value: short.value, row: short.row, column: short.column });
      }
    }
  }
}
