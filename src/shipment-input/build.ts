// Turns a ShipmentDraft into the API's request body, converting each value (numbers, country names, dates) and
// remembering where every request field came from, so any problem (ours or the API's) names the user's row/column.
import type { InputProblem } from '../errors.js';
import { COLUMNS, columnDef, columnForPath, type ColumnDef } from '../csv/columns.js';
import { resolveCountry } from '../csv/countries.js';
import type { Cell, Origin, ShipmentDraft } from './draft.js';

/** A request body for POST /shipments and POST /shipments/get-services (see api-spec "Shipment (request)"). */
export type ShipmentBody = Record<string, unknown> & {
  shipment_reference?: string;
  to_address?: Record<string, unknown>;
  parcels?: Array<Record<string, unknown> & { items?: Array<Record<string, unknown>> }>;
};

/** A built request and the means to point back at the user's input. */
export interface BuiltShipment {
  body: ShipmentBody;
  /** Locates a dotted request path (e.g. `parcels.1.items.0.item_value`) in the user's input. */
  locate(path: string): Origin;
  problems: InputProblem[];
  parcels: number;
  items: number;
}

/** How the builder names a contract column the input did not contain (user's header, preset column, or flag). */
export type LabelFor = (column: string) => string;

/** Values that fill blanks: shipment-level ones per shipment, parcel-level ones per parcel (e.g. --default-weight). */
export type Defaults = Map<string, Cell>;

const UNIT: Record<string, string> = {
  weight: ' of grammes', item_weight: ' of grammes', length: ' of centimetres', width: ' of centimetres',
  depth: ' of centimetres', item_quantity: '',
};

/** Converts one cell to what the API takes, or explains why it cannot. */
export function convertCell(def: ColumnDef, raw: string): { ok: true; value: unknown } | { ok: false; message: string } {
  const v = raw.trim();
  if (def.type === 'int') {
    if (/^\d+$/.test(v)) return { ok: true, value: Number(v) };
    if (/^\d+\.0+$/.test(v)) {
      const whole = Number(v);
      // Excel writes 12 as "12.0"; but "1.000" is also one thousand where a dot separates thousands: never guess.
      if (v.length - v.indexOf('.') === 4 && whole !== 0) {
        return { ok: false, message: `"${raw}" is ambiguous (${whole} or ${whole * 1000}?): write ${whole} or ${whole * 1000}` };
      }
      return { ok: true, value: whole };
    }
    return { ok: false, message: `must be a whole number${UNIT[def.name] ?? ''}, not "${raw}"` };
  }
  if (def.type === 'decimal') {
    if (/^-?\d+(\.\d{1,2})?$/.test(v) || /^-?\.\d{1,2}$/.test(v)) return { ok: true, value: Number(v) };
    if (/^-?\d+\.\d{3,}$/.test(v)) return { ok: false, message: `must have at most 2 decimal places, not "${raw}"` };
    if (/^-?\d+,\d{1,2}$/.test(v)) return { ok: false, message: `must use a dot as the decimal separator, not "${raw}"` };
    return { ok: false, message: `must be an amount like 12.50, not "${raw}"` };
  }
  if (def.type === 'country') {
    const r = resolveCountry(v);
    return r.ok ? { ok: true, value: r.code } : { ok: false, message: r.message };
  }
  if (def.type === 'origin-country') {
    // The API also takes full country names here; only refuse what it would certainly refuse.
    const r = resolveCountry(v);
    if (r.ok) return { ok: true, value: r.code };
    if (/^[A-Za-z]{2,3}$/.test(v)) return { ok: false, message: r.message };
    return textValue(v);
  }
  if (def.type === 'datetime') {
    const m = /^(\d{4})-(\d{2})-(\d{2})(?:[ T](\d{2}):(\d{2})(?::(\d{2}))?)?$/.exec(v);
    if (m) {
      const [, y, mo, d, h = '00', mi = '00', s = '00'] = m;
      const date = new Date(Date.UTC(+y, +mo - 1, +d, +h, +mi, +s));
      if (date.getUTCMonth() === +mo - 1 && date.getUTCDate() === +d && +h < 24 && +mi < 60 && +s < 60) {
        return { ok: true, value: `${y}-${mo}-${d} ${h}:${mi}:${s}` };
      }
    }
    return { ok: false, message: `must be a date as YYYY-MM-DD or YYYY-MM-DD HH:MM:SS, not "${raw}"` };
  }
  if (def.type === 'duty-method') {
    const u = v.toUpperCase();
    return u === 'DAP' || u === 'DDP' ? { ok: true, value: u } : { ok: false, message: `must be DAP or DDP, not "${raw}"` };
  }
  if (def.type === 'currency') {
    return /^[A-Za-z]{3}$/.test(v) ? { ok: true, value: v.toUpperCase() } : { ok: false, message: `must be a three-letter ISO 4217 currency code such as GBP or EUR, not "${raw}"` };
  }
  if (def.type === 'export-purpose') return exportPurpose(v, raw);
  return textValue(raw);
}

/** The flags of the API's Export Purpose object, as written in an `export_purpose` value. */
const PURPOSES = ['gift', 'documents', 'sale_of_goods', 'commercial_sample', 'returned_goods'] as const;

/**
 * An Export Purpose object from `gift`, `sale_of_goods,documents` or `other=Repair and return` (any case, spaces
 * or hyphens as underscores): each named purpose is true; `other=TEXT` (last, as its text may hold commas) is
 * the purpose the flags do not cover.
 */
function exportPurpose(v: string, raw: string): { ok: true; value: unknown } | { ok: false; message: string } {
  const out: Record<string, unknown> = {};
  const other = /(?:^|,)\s*other\s*[=:]/i.exec(v);
  const flags = other ? v.slice(0, other.index) : v;
  if (other) {
    const text = v.slice(other.index + other[0].length).trim();
    if (text === '') return { ok: false, message: 'other= needs the purpose, e.g. other=Repair and return' };
    const t = textValue(text);
    if (!t.ok) return t;
    out.other = text;
  }
  for (const word of flags.split(',').map((w) => w.trim()).filter(Boolean)) {
    const key = word.toLowerCase().replace(/[\s-]+/g, '_');
    if (!(PURPOSES as readonly string[]).includes(key)) {
      return { ok: false, message: `"${word}" is not an export purpose: use ${PURPOSES.join(', ')} (several separated by commas), or other=TEXT` };
    }
    out[key] = true;
  }
  if (Object.keys(out).length === 0) return { ok: false, message: `must name an export purpose (${PURPOSES.join(', ')}, or other=TEXT), not "${raw}"` };
  return { ok: true, value: out };
}

function textValue(v: string): { ok: true; value: unknown } | { ok: false; message: string } {
  if (/[\\^]/.test(v)) return { ok: false, message: 'must not contain a backslash (\\) or caret (^): the API rejects both' };
  return { ok: true, value: v };
}

const SPLIT = new Map<string, string[]>();

/** Sets a dotted path, treating everything after `custom_fields.` as one key (custom field keys may contain dots). */
export function setPath(target: Record<string, unknown>, path: string, value: unknown): void {
  let parts = SPLIT.get(path);
  if (!parts) {
    parts = path.startsWith('custom_fields.') ? ['custom_fields', path.slice('custom_fields.'.length)] : path.split('.');
    // Paths repeat for every row of a big file; splitting each once is measurably cheaper.
    if (SPLIT.size < 10_000) SPLIT.set(path, parts);
  }
  let obj = target;
  for (let i = 0; i < parts.length - 1; i++) {
    const next = obj[parts[i]];
    if (typeof next !== 'object' || next === null) obj[parts[i]] = {};
    obj = obj[parts[i]] as Record<string, unknown>;
  }
  obj[parts[parts.length - 1]] = value;
}

/** Builds the request body of one shipment draft. Conversion problems are returned, not thrown. */
export function buildShipment(draft: ShipmentDraft, opts: { labelFor: LabelFor; defaults?: Defaults }): BuiltShipment {
  const body: ShipmentBody = {};
  const problems: InputProblem[] = [];
  const defaults = opts.defaults ?? new Map<string, Cell>();

  const put = (target: Record<string, unknown>, column: string, cell: Cell) => {
    const def = columnDef(column);
    if (!def) return;
    const r = convertCell(def, cell.value);
    if (!r.ok) {
      problems.push({ ...rowOf(cell), column: cell.column, message: r.message });
      return;
    }
    setPath(target, def.path, r.value);
  };
  const withDefaults = (cells: Map<string, Cell>, level: 'shipment' | 'parcel') => {
    if (defaults.size === 0) return sortedCells(cells);
    const all = new Map(cells);
    for (const [col, cell] of defaults) if (columnDef(col)?.level === level && !all.has(col)) all.set(col, cell);
    return sortedCells(all);
  };

  for (const [col, cell] of withDefaults(draft.cells, 'shipment')) put(body, col, cell);
  // to_address always exists, so a missing recipient is reported field by field, not as one "to_address".
  body.to_address ??= {};
  let items = 0;
  body.parcels = draft.parcels.map((parcel, pi) => {
    const p: Record<string, unknown> & { items?: Array<Record<string, unknown>> } = {};
    for (const [col, cell] of withDefaults(parcel.cells, 'parcel')) put(p, col, cell);
    if (parcel.items.length) {
      p.items = parcel.items.map((item, ii) => {
        const it: Record<string, unknown> = {};
        for (const [col, cell] of sortedCells(item.cells)) put(it, col, cell);
        items++;
        return it;
      });
    }
    return p;
  });
  for (const extra of draft.extras) setPath(body, extra.path, extra.value);

  // Where each request field came from, worked out only when something asks (a problem to place): a file of
  // valid rows, the usual case, never needs it, and recording it as the body was built cost every row.
  let origins: Map<string, Origin> | undefined;
  const originsOf = (): Map<string, Origin> => {
    if (origins) return origins;
    const map = new Map<string, Origin>();
    const note = (prefix: string, column: string, cell: Cell) => {
      const def = columnDef(column);
      if (def) map.set(prefix + def.path, cell);
    };
    for (const [col, cell] of withDefaults(draft.cells, 'shipment')) note('', col, cell);
    draft.parcels.forEach((parcel, pi) => {
      for (const [col, cell] of withDefaults(parcel.cells, 'parcel')) note(`parcels.${pi}.`, col, cell);
      parcel.items.forEach((item, ii) => {
        for (const [col, cell] of sortedCells(item.cells)) note(`parcels.${pi}.items.${ii}.`, col, cell);
      });
    });
    for (const extra of draft.extras) map.set(extra.path, extra.origin);
    origins = map;
    return map;
  };

  const locate = (path: string): Origin => {
    const origins = originsOf();
    const exact = origins.get(path);
    if (exact) return exact;
    const segs = path.split('.');
    // A message about a whole object (e.g. "to_address") or a sub-field we set: use the closest recorded origin.
    for (let n = segs.length - 1; n > 0; n--) {
      const o = origins.get(segs.slice(0, n).join('.'));
      if (o) return o;
    }
    if (segs[0] === 'parcels' && /^\d+$/.test(segs[1] ?? '')) {
      const parcel = draft.parcels[Number(segs[1])];
      const parcelRow = parcel?.firstRow ?? draft.firstRow;
      // The item list itself (e.g. "required when the destination is outside the UK"): the item column.
      if (segs[2] === 'items' && segs.length === 3) return { row: parcelRow, column: opts.labelFor('item_sku') };
      if (segs[2] === 'items' && /^\d+$/.test(segs[3] ?? '')) {
        const item = parcel?.items[Number(segs[3])];
        const rel = segs.slice(4).join('.');
        const col = rel ? columnForPath('item', rel) : undefined;
        return { row: item?.row ?? parcelRow, column: col ? opts.labelFor(col) : rel || opts.labelFor('item_sku') };
      }
      const rel = segs.slice(2).join('.');
      const col = rel ? columnForPath('parcel', rel) : undefined;
      return { row: parcelRow, column: col ? opts.labelFor(col) : rel || 'parcel' };
    }
    if (segs[0] === 'parcels') return { row: draft.firstRow, column: '' };
    const col = columnForPath('shipment', path) ?? (path === 'service_key' ? 'delivery_service_key' : undefined);
    return { row: draft.firstRow, column: col ? opts.labelFor(col) : path };
  };

  return { body, locate, problems, parcels: draft.parcels.length, items };
}

const ORDER = new Map(COLUMNS.map((c, i) => [c.name, i]));

/**
 * Cells in the contract's column order (custom fields last, in their own order), so bodies read the same
 * whatever the file's order. Each cell goes straight to its column's slot: no comparisons (a sort with a
 * comparator was 7 µs of every row's 60 when validating a file).
 */
function sortedCells(cells: Map<string, Cell>): Array<[string, Cell]> {
  const slots: Array<[string, Cell] | undefined> = new Array(ORDER.size);
  let custom: Array<[string, Cell]> | undefined;
  for (const entry of cells) {
    const at = ORDER.get(entry[0]);
    if (at === undefined) (custom ??= []).push(entry);
    else slots[at] = entry;
  }
  const out: Array<[string, Cell]> = [];
  for (let i = 0; i < slots.length; i++) {
    const entry = slots[i];
    if (entry !== undefined) out.push(entry);
  }
  if (custom) for (const entry of custom) out.push(entry);
  return out;
}

function rowOf(o: Origin): { row?: number } {
  return o.row === undefined ? {} : { row: o.row };
}
