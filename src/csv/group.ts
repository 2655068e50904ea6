// Groups CSV rows into shipments (shared shipment_reference), parcels (shared parcel_reference) and items,
// and enforces the contract's rule that shipment- and parcel-level values agree between rows.
import type { InputProblem } from '../errors.js';
import { convertCell } from '../shipment-input/build.js';
import { newDraft, type Cell, type ParcelDraft, type ShipmentDraft } from '../shipment-input/draft.js';
import { columnDef } from './columns.js';
import { resolveCountry } from './countries.js';

/** One CSV row translated to contract columns (only non-blank cells), ready to be grouped. */
export interface CanonicalRow {
  row: number;
  cells: Map<string, Cell>;
  /** Rows with the same key in one shipment form one parcel; defaults to the parcel_reference cell. */
  parcelKey?: string;
  /** The row only carries shipment-level values (a preset's line that needs no shipping). */
  noParcel?: boolean;
  /** Preset facts merged into the draft's meta (first non-blank wins; a key ending in `+` gathers every row's, comma-separated). */
  meta?: Record<string, string>;
}

/** Collects rows into shipment drafts in first-appearance order; problems name the row and the user's column. */
export class ShipmentGrouper {
  readonly drafts = new Map<string, ShipmentDraft>();
  readonly problems: InputProblem[] = [];
  rowCount = 0;

  constructor(private readonly labelFor: (column: string) => string) {}

  /** Adds one row. */
  add(r: CanonicalRow): void {
    this.rowCount++;
    const refCell = r.cells.get('shipment_reference');
    if (!refCell) {
      this.problems.push({ row: r.row, column: this.labelFor('shipment_reference'), message: 'is required (it groups rows into shipments)' });
      return;
    }
    const ref = groupingReference(refCell.value);
    if (ref !== refCell.value) {
      this.problems.push({ row: r.row, column: refCell.column, message: invisibleMessage(refCell.value) });
      r.cells.set('shipment_reference', { ...refCell, value: ref }); // said once, not again as a differing value
    }
    let draft = this.drafts.get(ref);
    if (!draft) {
      draft = newDraft(ref, r.row);
      this.drafts.set(ref, draft);
    }
    draft.rows.push(r.row);
    if (r.meta) {
      for (const [k, v] of Object.entries(r.meta)) {
        if (!v) continue;
        const had = draft.meta.get(k);
        if (had === undefined) draft.meta.set(k, v);
        else if (k.endsWith('+')) draft.meta.set(k, `${had},${v}`);
      }
    }

    const parcelCells = new Map<string, Cell>();
    const itemCells = new Map<string, Cell>();
    // Keys and get(), not entries: until V8 optimises it, a loop over entries costs five times as much (an array per entry).
    for (const col of r.cells.keys()) {
      const level = columnDef(col)?.level;
      if (level === 'shipment') this.merge(draft.cells, col, r.cells.get(col)!, 'shipment');
      else if (level === 'parcel') parcelCells.set(col, r.cells.get(col)!);
      else if (level === 'item') itemCells.set(col, r.cells.get(col)!);
    }
    if (r.noParcel) return;

    const key = r.parcelKey ?? r.cells.get('parcel_reference')?.value;
    let parcel: ParcelDraft | undefined;
    if (key !== undefined) {
      for (const p of draft.parcels) {
        if (p.key === key) {
          parcel = p;
          break;
        }
      }
    }
    if (parcel) {
      for (const col of parcelCells.keys()) this.merge(parcel.cells, col, parcelCells.get(col)!, 'parcel');
      parcel.rows?.push(r.row);
    } else {
      parcel = { key, firstRow: r.row, rows: [r.row], cells: parcelCells, items: [] };
      draft.parcels.push(parcel);
    }
    if (itemCells.size) parcel.items.push({ row: r.row, cells: itemCells });
  }

  /** Records a value, or a problem when an earlier row of the same shipment/parcel says something else. */
  private merge(cells: Map<string, Cell>, col: string, cell: Cell, level: 'shipment' | 'parcel'): void {
    const prev = cells.get(col);
    if (!prev) {
      cells.set(col, cell);
      return;
    }
    if (prev.value === cell.value || sameCountry(col, prev.value, cell.value) || sameNumber(col, prev.value, cell.value) || samePostcode(col, prev.value, cell.value)) return;
    this.problems.push({
      row: cell.row,
      column: cell.column,
      message: `"${cell.value}" differs from "${prev.value}" in row ${prev.row} of the same ${level} (leave it blank on later rows, or make them agree)`,
    });
  }
}

/** Characters that show as nothing: zero-width space, joiners, word joiner, byte-order mark, soft hyphen. */
const INVISIBLE = /[\u00AD\u200B-\u200D\u2060\uFEFF]/;
const INVISIBLE_ALL = new RegExp(INVISIBLE.source, 'g');
const INVISIBLE_NAMES: Record<string, string> = {
  '\u00AD': 'SOFT HYPHEN',
  '\u200B': 'ZERO WIDTH SPACE',
  '\u200C': 'ZERO WIDTH NON-JOINER',
  '\u200D': 'ZERO WIDTH JOINER',
  '\u2060': 'WORD JOINER',
  '\uFEFF': 'ZERO WIDTH NO-BREAK SPACE',
};

/**
 * The shipment a reference groups its row into: the reference as it shows. One with an invisible character
 * (pasted from a web page or a chat) would silently make a shipment of its own; it is grouped as what it shows,
 * and refused (ShipmentGrouper), so the row's other problems are its shipment's, not the "required" fields of a
 * stray one.
 */
export function groupingReference(ref: string): string {
  return INVISIBLE.test(ref) ? ref.replace(INVISIBLE_ALL, '') : ref;
}

function invisibleMessage(ref: string): string {
  const at = ref.search(INVISIBLE);
  const ch = ref[at];
  const code = ch.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0');
  const where = at === 0 ? 'before' : `after "${ref.slice(0, at).replace(INVISIBLE_ALL, '')}"`;
  return `has an invisible character (U+${code} ${INVISIBLE_NAMES[ch]}) ${where}: delete it (it would make "${ref.replace(INVISIBLE_ALL, '')}" another reference)`;
}

/** Two writings of one postcode (sw1a 1aa and SW1A 1AA, SW1A1AA): the earlier row's is sent. */
function samePostcode(col: string, a: string, b: string): boolean {
  if (col !== 'to_postcode') return false;
  const norm = (v: string) => v.replace(/\s+/g, '').toUpperCase();
  return norm(a) === norm(b);
}

/** Two cells of a number column that say the same number in other words (1000 and 1000.0, 20 and 20.00). */
function sameNumber(col: string, a: string, b: string): boolean {
  const def = columnDef(col);
  if (def?.type !== 'int' && def?.type !== 'decimal') return false;
  const x = convertCell(def, a);
  const y = convertCell(def, b);
  return x.ok && y.ok && typeof x.value === 'number' && x.value === y.value;
}

/** Two spellings of one country in a country column ("GB" and "UK", "United Kingdom"): the same value, as sent. */
function sameCountry(col: string, a: string, b: string): boolean {
  if (columnDef(col)?.type !== 'country') return false;
  const x = resolveCountry(a);
  const y = resolveCountry(b);
  return x.ok && y.ok && x.code === y.code;
}
