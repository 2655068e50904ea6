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

/** A value convertValue refuses, and why (a class of its own: a converted value is never one). */
class Refusal {
  constructor(readonly message: string) {}
}

/** Converts one cell to what the API takes, or explains why it cannot. */
export function convertCell(def: ColumnDef, raw: string, decimalComma = false): { ok: true; value: unknown } | { ok: false; message: string } {
  const v = convertValue(def, raw, decimalComma);
  return v instanceof Refusal ? { ok: false, message: v.message } : { ok: true, value: v };
}

/**
 * convertCell's value, or a Refusal: one object less per cell of every row. `decimalComma`: an amount may be
 * written 12,50 (a file separated by ';' or tabs, as a spreadsheet writes where the comma is the decimal mark).
 */
function convertValue(def: ColumnDef, raw: string, decimalComma: boolean): unknown {
  switch (def.type) {
    case 'text':
      return textValue(raw);
    case 'int': {
      const v = raw.trim();
      // Past 2^53 a number is no longer exact: it would be sent as another one.
      if (/^\d+$/.test(v)) return v.length > 15 && !Number.isSafeInteger(Number(v)) ? new Refusal(`is too large, "${raw}"`) : Number(v);
      if (/^\d+\.0+$/.test(v)) {
        const whole = Number(v);
        if (!Number.isSafeInteger(whole)) return new Refusal(`is too large, "${raw}"`);
        // Excel writes 12 as "12.0"; but "1.000" is also one thousand where a dot separates thousands: never guess.
        if (v.length - v.indexOf('.') === 4 && whole !== 0) {
          return new Refusal(`"${raw}" is ambiguous (${whole} or ${whole * 1000}?): write ${whole} or ${whole * 1000}`);
        }
        return whole;
      }
      return new Refusal(`must be a whole number${UNIT[def.name] ?? ''}, not "${raw}"`);
    }
    case 'decimal': {
      const v = raw.trim();
      if (/^-?\d+(\.\d{1,2})?$/.test(v) || /^-?\.\d{1,2}$/.test(v)) {
        // 14 digits before the point: a double cannot hold the amount exactly, and no parcel is worth that much.
        return v.length > 14 && /^-?\d{14}/.test(v) ? new Refusal(`is too large, "${raw}"`) : Number(v);
      }
      if (/^-?\d+\.\d{3,}$/.test(v)) return new Refusal(`must have at most 2 decimal places, not "${raw}"`);
      if (/^-?\d+,\d{1,2}$/.test(v)) return decimalComma ? Number(v.replace(',', '.')) : new Refusal(`must use a dot as the decimal separator, not "${raw}"`);
      return new Refusal(`must be an amount like 12.50, not "${raw}"`);
    }
    case 'country': {
      const r = resolveCountry(raw.trim());
      return r.ok ? r.code : new Refusal(r.message);
    }
    case 'origin-country': {
      // The API also takes full country names here; only refuse what it would certainly refuse.
      const v = raw.trim();
      const r = resolveCountry(v);
      if (r.ok) return r.code;
      if (/^[A-Za-z]{2,3}$/.test(v)) return new Refusal(r.message);
      return textValue(v);
    }
    case 'datetime': {
      const v = raw.trim();
      const m = /^(\d{4})-(\d{2})-(\d{2})(?:[ T](\d{2}):(\d{2})(?::(\d{2}))?)?$/.exec(v);
      if (m) {
        const [, y, mo, d, h = '00', mi = '00', s = '00'] = m;
        const date = new Date(Date.UTC(+y, +mo - 1, +d, +h, +mi, +s));
        if (date.getUTCMonth() === +mo - 1 && date.getUTCDate() === +d && +h < 24 && +mi < 60 && +s < 60) {
          return `${y}-${mo}-${d} ${h}:${mi}:${s}`;
        }
      }
      return new Refusal(`must be a date as YYYY-MM-DD or YYYY-MM-DD HH:MM:SS, not "${raw}"`);
    }
    case 'duty-method': {
      const u = raw.trim().toUpperCase();
      return u === 'DAP' || u === 'DDP' ? u : new Refusal(`must be DAP or DDP, not "${raw}"`);
    }
    case 'currency': {
      const v = raw.trim();
      return /^[A-Za-z]{3}$/.test(v) ? v.toUpperCase() : new Refusal(`must be a three-letter ISO 4217 currency code such as GBP or EUR, not "${raw}"`);
    }
    case 'export-purpose':
      return exportPurpose(raw.trim(), raw);
    default:
      return textValue(raw);
  }
}

/** The flags of the API's Export Purpose object, as written in an `export_purpose` value. */
const PURPOSES = ['gift', 'documents', 'sale_of_goods', 'commercial_sample', 'returned_goods'] as const;

/**
 * An Export Purpose object from `gift`, `sale_of_goods,documents` or `other=Repair and return` (any case, spaces
 * or hyphens as underscores): each named purpose is true; `other=TEXT` (last, as its text may hold commas) is
 * the purpose the flags do not cover.
 */
function exportPurpose(v: string, raw: string): unknown {
  const out: Record<string, unknown> = {};
  const other = /(?:^|,)\s*other\s*[=:]/i.exec(v);
  const flags = other ? v.slice(0, other.index) : v;
  if (other) {
    const text = v.slice(other.index + other[0].length).trim();
    if (text === '') return new Refusal('other= needs the purpose, e.g. other=Repair and return');
    const t = textValue(text);
    if (t instanceof Refusal) return t;
    out.other = text;
  }
  for (const word of flags.split(',').map((w) => w.trim()).filter(Boolean)) {
    const key = word.toLowerCase().replace(/[\s-]+/g, '_');
    if (!(PURPOSES as readonly string[]).includes(key)) {
      return new Refusal(`"${word}" is not an export purpose: use ${PURPOSES.join(', ')} (several separated by commas), or other=TEXT`);
    }
    out[key] = true;
  }
  if (Object.keys(out).length === 0) return new Refusal(`must name an export purpose (${PURPOSES.join(', ')}, or other=TEXT), not "${raw}"`);
  return out;
}

const BANNED_TEXT = new Refusal('must not contain a backslash (\\) or caret (^): the API rejects both');

function textValue(v: string): unknown {
  return /[\\^]/.test(v) ? BANNED_TEXT : v;
}

/** A dotted path as setPath splits it: everything after `custom_fields.` is one key (custom field keys may contain dots). */
function splitPath(path: string): string[] {
  return path.startsWith('custom_fields.') ? ['custom_fields', path.slice('custom_fields.'.length)] : path.split('.');
}

const SPLIT = new Map<string, string[]>();

/** Sets a dotted path, treating everything after `custom_fields.` as one key (custom field keys may contain dots). */
export function setPath(target: Record<string, unknown>, path: string, value: unknown): void {
  let parts = SPLIT.get(path);
  if (!parts) {
    parts = splitPath(path);
    // Paths repeat for every row of a big file; splitting each once is measurably cheaper.
    if (SPLIT.size < 10_000) SPLIT.set(path, parts);
  }
  setParts(target, parts, value);
}

function setParts(target: Record<string, unknown>, parts: readonly string[], value: unknown): void {
  let obj = target;
  for (let i = 0; i < parts.length - 1; i++) {
    const next = obj[parts[i]];
    if (typeof next !== 'object' || next === null) obj[parts[i]] = {};
    obj = obj[parts[i]] as Record<string, unknown>;
  }
  obj[parts[parts.length - 1]] = value;
}

/**
 * What the builder needs of a column, worked out once per column rather than for every cell of every row: its
 * definition, its place in the contract's order (custom fields after every fixed column) and its path, split.
 */
interface Field {
  def: ColumnDef;
  order: number;
  parts: readonly string[];
}

const fieldOf = (def: ColumnDef, order: number): Field => ({ def, order, parts: splitPath(def.path) });
const FIXED_FIELDS = new Map(COLUMNS.map((def, i) => [def.name, fieldOf(def, i)]));
/** Custom field columns seen so far (null: not a column); bounded, as a file's custom keys could be many. */
const CUSTOM_FIELDS = new Map<string, Field | null>();

function fieldFor(column: string): Field | undefined {
  const fixed = FIXED_FIELDS.get(column);
  if (fixed) return fixed;
  let custom = CUSTOM_FIELDS.get(column);
  if (custom === undefined) {
    const def = columnDef(column);
    custom = def ? fieldOf(def, COLUMNS.length) : null;
    if (CUSTOM_FIELDS.size < 10_000) CUSTOM_FIELDS.set(column, custom);
  }
  return custom ?? undefined;
}

/** The defaults of one level (as withDefaults took them: in the Defaults' order), with their fields. */
interface LevelDefaults {
  columns: string[];
  fields: Field[];
  cells: Cell[];
}

function levelDefaults(defaults: Defaults | undefined, level: 'shipment' | 'parcel'): LevelDefaults | undefined {
  if (!defaults || defaults.size === 0) return undefined;
  const out: LevelDefaults = { columns: [], fields: [], cells: [] };
  for (const col of defaults.keys()) {
    const field = fieldFor(col);
    if (field?.def.level !== level) continue;
    out.columns.push(col);
    out.fields.push(field);
    out.cells.push(defaults.get(col)!);
  }
  return out.columns.length ? out : undefined;
}

// One level's cells (and defaults) in the contract's column order, custom fields last in their own order, so
// bodies read the same whatever the file's order. Kept here and reused: a shipment's levels are gathered one
// after the other, never two at once, and a list per level of every row was the builder's largest allocation.
const gatheredFields: Field[] = [];
const gatheredCells: Cell[] = [];

/** Gathers `cells` and the defaults they lack into gatheredFields/gatheredCells, sorted; returns how many. */
function gather(cells: Map<string, Cell>, defaults: LevelDefaults | undefined): number {
  let n = 0;
  let sorted = true;
  let last = -1;
  // Keys and get(), not entries: until V8 optimises it, a loop over entries costs five times as much (an array per entry).
  for (const col of cells.keys()) {
    const field = fieldFor(col);
    if (!field) continue; // not a column: nothing to send
    if (field.order < last) sorted = false;
    last = field.order;
    gatheredFields[n] = field;
    gatheredCells[n++] = cells.get(col)!;
  }
  if (defaults) {
    for (let i = 0; i < defaults.columns.length; i++) {
      if (cells.has(defaults.columns[i])) continue;
      const field = defaults.fields[i];
      if (field.order < last) sorted = false;
      last = field.order;
      gatheredFields[n] = field;
      gatheredCells[n++] = defaults.cells[i];
    }
  }
  if (!sorted) {
    // Insertion sort, stable (custom fields share one order): a few cells, most often nearly in order.
    for (let i = 1; i < n; i++) {
      const field = gatheredFields[i];
      const cell = gatheredCells[i];
      let j = i - 1;
      for (; j >= 0 && gatheredFields[j].order > field.order; j--) {
        gatheredFields[j + 1] = gatheredFields[j];
        gatheredCells[j + 1] = gatheredCells[j];
      }
      gatheredFields[j + 1] = field;
      gatheredCells[j + 1] = cell;
    }
  }
  return n;
}

/** Converts and sets one level's cells on `target`; conversion problems go to `problems`. */
function putCells(target: Record<string, unknown>, cells: Map<string, Cell>, defaults: LevelDefaults | undefined, problems: InputProblem[], decimalComma: boolean): void {
  const n = gather(cells, defaults);
  for (let i = 0; i < n; i++) {
    const cell = gatheredCells[i];
    const field = gatheredFields[i];
    const value = convertValue(field.def, cell.value, decimalComma);
    if (value instanceof Refusal) problems.push({ ...rowOf(cell), column: cell.column, message: value.message });
    else setParts(target, field.parts, value);
  }
}

/** Records where one level's request fields came from (locate's map). */
function noteOrigins(map: Map<string, Origin>, prefix: string, cells: Map<string, Cell>, defaults: LevelDefaults | undefined): void {
  const n = gather(cells, defaults);
  for (let i = 0; i < n; i++) map.set(prefix + gatheredFields[i].def.path, gatheredCells[i]);
}

/** Builds the request body of one shipment draft. Conversion problems are returned, not thrown. */
export function buildShipment(draft: ShipmentDraft, opts: { labelFor: LabelFor; defaults?: Defaults; decimalComma?: boolean }): BuiltShipment {
  const decimalComma = opts.decimalComma === true;
  const body: ShipmentBody = {};
  const problems: InputProblem[] = [];
  const parcelDefaults = levelDefaults(opts.defaults, 'parcel');

  putCells(body, draft.cells, levelDefaults(opts.defaults, 'shipment'), problems, decimalComma);
  // to_address always exists, so a missing recipient is reported field by field, not as one "to_address".
  body.to_address ??= {};
  let items = 0;
  const parcels: NonNullable<ShipmentBody['parcels']> = new Array(draft.parcels.length);
  for (let pi = 0; pi < draft.parcels.length; pi++) {
    const parcel = draft.parcels[pi];
    const p: Record<string, unknown> & { items?: Array<Record<string, unknown>> } = {};
    putCells(p, parcel.cells, parcelDefaults, problems, decimalComma);
    if (parcel.items.length) {
      const list: Array<Record<string, unknown>> = new Array(parcel.items.length);
      for (let ii = 0; ii < parcel.items.length; ii++) {
        const it: Record<string, unknown> = {};
        putCells(it, parcel.items[ii].cells, undefined, problems, decimalComma);
        items++;
        list[ii] = it;
      }
      p.items = list;
    }
    parcels[pi] = p;
  }
  body.parcels = parcels;
  for (const extra of draft.extras) setPath(body, extra.path, extra.value);

  // Where each request field came from, worked out only when something asks (a problem to place): a file of
  // valid rows, the usual case, never needs it, and recording it as the body was built cost every row.
  let origins: Map<string, Origin> | undefined;
  const originsOf = (): Map<string, Origin> => {
    if (origins) return origins;
    const map = new Map<string, Origin>();
    const parcelDefaults = levelDefaults(opts.defaults, 'parcel');
    noteOrigins(map, '', draft.cells, levelDefaults(opts.defaults, 'shipment'));
    draft.parcels.forEach((parcel, pi) => {
      noteOrigins(map, `parcels.${pi}.`, parcel.cells, parcelDefaults);
      parcel.items.forEach((item, ii) => noteOrigins(map, `parcels.${pi}.items.${ii}.`, item.cells, undefined));
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

function rowOf(o: Origin): { row?: number } {
  return o.row === undefined ? {} : { row: o.row };
}
