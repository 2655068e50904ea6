// A shipment from command-line flags: the same draft a CSV row makes, with each value's origin being its flag,
// so the same builder and the same API rules apply and messages name the flag to fix.
import { UsageError, type InputProblem } from '../errors.js';
import { PARCEL_CUSTOM_PREFIX } from '../csv/columns.js';
import { readQuoted } from '../util/quoted.js';
import type { Defaults } from './build.js';
import { newDraft, type Cell, type ItemDraft, type ParcelDraft, type ShipmentDraft } from './draft.js';
import { PARCEL_FLAGS, SHIPMENT_FLAGS, type ShipmentInputOptions } from './options.js';

const PARCEL_KEYS: Record<string, string> = {
  weight: 'weight', length: 'length', width: 'width', depth: 'depth', value: 'value',
  packaging: 'packaging_type_key', packaging_type_key: 'packaging_type_key', reference: 'parcel_reference',
  parcel_reference: 'parcel_reference',
};
const ITEM_KEYS: Record<string, string> = {
  sku: 'item_sku', line_id: 'item_line_id', item_line_id: 'item_line_id', description: 'item_short_description',
  short_description: 'item_short_description', full_description: 'item_full_description', origin: 'item_country_of_origin',
  country_of_origin: 'item_country_of_origin', hs: 'item_harmonised_code', harmonised_code: 'item_harmonised_code',
  weight: 'item_weight', item_weight: 'item_weight', value: 'item_value', item_value: 'item_value',
  quantity: 'item_quantity', qty: 'item_quantity', item_quantity: 'item_quantity',
};

/** `custom_fields.KEY=value` (or `cf.KEY=value`) in a --parcel spec: a parcel custom field. */
const CUSTOM_KEY = /^(custom_fields|cf)\./;
const CUSTOM_SPEC_PREFIX = 'custom_fields.';

/**
 * Splits `a=1,b="x, y"` into pairs. A value that starts with a double quote runs to the closing one (commas
 * inside are kept, `""` is a quote); a quote anywhere else is part of the value (`description=12" vinyl`).
 * Keys are matched without case (`-` as `_`), except a custom field's own key after `custom_fields.` or `cf.`.
 * An unclosed quote, a part without `=` or a key given twice is a UsageError naming the flag.
 */
export function parseSpec(spec: string, flag: string): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  const bad = (why: string) => new UsageError(`${flag} "${spec}": ${why}`, { hint: 'write key=value pairs separated by commas; put a value holding a comma in double quotes' });
  let i = 0;
  while (i < spec.length) {
    const comma = spec.indexOf(',', i);
    const eq = spec.indexOf('=', i);
    if (eq < 0 || (comma >= 0 && comma < eq)) {
      const part = spec.slice(i, comma < 0 ? spec.length : comma).trim();
      if (part !== '') throw bad(`"${part}" is not key=value`);
      i = comma < 0 ? spec.length : comma + 1;
      continue;
    }
    const rawKey = spec.slice(i, eq).trim();
    let key = rawKey.toLowerCase().replace(/-/g, '_');
    if (key === '') throw bad(`"${spec.slice(i, eq + 1).trim()}" has no key`);
    // A custom field's key is the account's own, kept as written; only the prefix is normalised.
    const custom = CUSTOM_KEY.exec(key);
    if (custom) key = `${CUSTOM_SPEC_PREFIX}${rawKey.slice(custom[0].length)}`;
    let j = eq + 1;
    while (spec[j] === ' ') j++;
    let value: string;
    if (spec[j] === '"') {
      const q = readQuoted(spec, j);
      if (!q.closed) throw bad(`the quote that opens ${key}'s value is not closed`);
      value = q.value;
      j = q.end;
      while (spec[j] === ' ') j++;
      if (j < spec.length && spec[j] !== ',') throw bad(`text after the quoted value of ${key}`);
      i = j + 1;
    } else {
      const end = spec.indexOf(',', j);
      value = spec.slice(j, end < 0 ? spec.length : end).trim();
      i = end < 0 ? spec.length : end + 1;
    }
    if (out.some(([k]) => k === key)) throw bad(`${key} is given twice`);
    out.push([key, value]);
  }
  return out;
}

/** The flag that supplies a contract column, for "is required" messages about fields never given. */
export function flagForColumn(column: string): string {
  for (const [, flag, col] of SHIPMENT_FLAGS) if (col === column) return flag;
  for (const [, flag, col] of PARCEL_FLAGS) if (col === column) return flag;
  if (column.startsWith('custom_fields.')) return `--custom-field ${column.slice('custom_fields.'.length)}=…`;
  if (column.startsWith('item_')) return `--item ${column.slice(5)}=…`;
  if (column === 'parcel_reference') return '--parcel reference=…';
  if (column.startsWith(PARCEL_CUSTOM_PREFIX)) return `--parcel custom_fields.${column.slice(PARCEL_CUSTOM_PREFIX.length)}=…`;
  return column;
}

/**
 * Builds a one-shipment draft from flags. Problems with the flags' own syntax (a spec that is not key=value, an
 * unknown key, a parcel=N that does not exist) go to `problems`, so they are reported with every other one.
 */
export function draftFromFlags(o: ShipmentInputOptions, problems: InputProblem[] = []): ShipmentDraft {
  const draft = newDraft(o.reference ?? '');
  const cell = (value: string, column: string): Cell => ({ value, column });
  /** The pairs of a spec, or none (its problem noted). */
  const pairsOf = (spec: string, flag: string): Array<[string, string]> => {
    try {
      return parseSpec(spec, flag);
    } catch (e) {
      if (!(e instanceof UsageError)) throw e;
      problems.push({ column: flag, message: e.message.replace(`${flag} `, '') });
      return [];
    }
  };
  for (const [key, flag, col] of SHIPMENT_FLAGS) {
    const v = o[key];
    if (typeof v === 'string' && v.trim() !== '') draft.cells.set(col, cell(v, flag));
  }
  for (const kv of o.customField ?? []) {
    const eq = kv.indexOf('=');
    const key = eq < 0 ? '' : kv.slice(0, eq).trim();
    if (key === '') {
      problems.push({ column: '--custom-field', message: `"${kv}": expected KEY=VALUE` });
      continue;
    }
    if (draft.cells.has(`custom_fields.${key}`)) {
      problems.push({ column: `--custom-field ${key}`, message: 'given twice' });
      continue;
    }
    draft.cells.set(`custom_fields.${key}`, cell(kv.slice(eq + 1).trim(), `--custom-field ${key}`));
  }

  const parcelDefaults = new Map<string, Cell>();
  for (const [key, flag, col] of PARCEL_FLAGS) {
    const v = o[key];
    if (typeof v === 'string' && v.trim() !== '') parcelDefaults.set(col, cell(v, flag));
  }
  if (o.parcel?.length && o.parcels !== undefined) throw new UsageError('--parcels N and --parcel SPEC are two ways to list parcels: give one');
  if (o.parcel?.length) {
    o.parcel.forEach((spec, i) => {
      const cells = new Map(parcelDefaults);
      for (const [k, v] of pairsOf(spec, `--parcel #${i + 1}`)) {
        if (k.startsWith(CUSTOM_SPEC_PREFIX)) {
          const key = k.slice(CUSTOM_SPEC_PREFIX.length);
          if (key === '') problems.push({ column: `--parcel #${i + 1}`, message: `"${spec}": custom_fields. needs the field's key (custom_fields.KEY=value)` });
          else cells.set(`${PARCEL_CUSTOM_PREFIX}${key}`, cell(v, `--parcel #${i + 1} ${k}`));
          continue;
        }
        const col = PARCEL_KEYS[k];
        if (!col) {
          problems.push({ column: `--parcel #${i + 1}`, message: `"${spec}": unknown key "${k}" (use ${Object.keys(PARCEL_KEYS).join(', ')}, custom_fields.KEY)` });
          continue;
        }
        cells.set(col, cell(v, `--parcel #${i + 1} ${k}`));
      }
      draft.parcels.push({ cells, items: [] });
    });
  } else {
    let n = 1;
    if (o.parcels !== undefined) {
      if (!/^\d+$/.test(o.parcels) || Number(o.parcels) < 1 || Number(o.parcels) > 99) problems.push({ column: '--parcels', message: `expected a number from 1 to 99, not "${o.parcels}"` });
      else n = Number(o.parcels);
    }
    for (let i = 0; i < n; i++) draft.parcels.push({ cells: new Map(parcelDefaults), items: [] });
  }

  for (const [n, spec] of (o.item ?? []).entries()) {
    const cells = new Map<string, Cell>();
    let target: ParcelDraft = draft.parcels[0];
    for (const [k, v] of pairsOf(spec, `--item #${n + 1}`)) {
      if (k === 'parcel') {
        const p = draft.parcels[Number(v) - 1];
        if (!/^\d+$/.test(v) || !p) problems.push({ column: `--item #${n + 1} parcel`, message: `parcel=${v} does not exist (there ${draft.parcels.length === 1 ? 'is 1' : `are ${draft.parcels.length}`})` });
        else target = p;
        continue;
      }
      const col = ITEM_KEYS[k];
      if (!col) {
        problems.push({ column: `--item #${n + 1}`, message: `"${spec}": unknown key "${k}" (use sku, description, quantity, value, weight, origin, hs, line_id, parcel)` });
        continue;
      }
      cells.set(col, cell(v, `--item #${n + 1} ${k}`));
    }
    const item: ItemDraft = { cells };
    target.items.push(item);
  }
  return draft;
}

/** Defaults from flags that fill blank CSV cells (--service, --packaging, --default-weight, --brand, …). */
export function csvDefaultsFromFlags(o: ShipmentInputOptions): Defaults {
  const d: Defaults = new Map();
  const set = (v: string | undefined, col: string, flag: string) => {
    if (v !== undefined && v.trim() !== '') d.set(col, { value: v, column: flag });
  };
  set(o.service, 'delivery_service_key', '--service');
  set(o.packaging, 'packaging_type_key', '--packaging');
  set(o.defaultWeight, 'weight', '--default-weight');
  set(o.brand, 'brand', '--brand');
  set(o.location, 'location_code', '--location');
  set(o.despatchDate, 'despatch_date', '--despatch-date');
  set(o.container, 'container_reference', '--container');
  return d;
}
