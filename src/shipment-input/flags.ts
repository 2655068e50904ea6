// A shipment from command-line flags: the same draft a CSV row makes, with each value's origin being its flag,
// so the same builder and the same API rules apply and messages name the flag to fix.
import { UsageError } from '../errors.js';
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

/** Splits `a=1,b="x, y"` into pairs; double quotes protect commas. */
export function parseSpec(spec: string, flag: string): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  let cur = '';
  let quoted = false;
  const parts: string[] = [];
  for (const ch of spec) {
    if (ch === '"') quoted = !quoted;
    else if (ch === ',' && !quoted) {
      parts.push(cur);
      cur = '';
    } else cur += ch;
  }
  parts.push(cur);
  for (const part of parts) {
    if (part.trim() === '') continue;
    const eq = part.indexOf('=');
    if (eq <= 0) throw new UsageError(`${flag} "${spec}": "${part.trim()}" is not key=value`);
    out.push([part.slice(0, eq).trim().toLowerCase().replace(/-/g, '_'), part.slice(eq + 1).trim()]);
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
  return column;
}

/** Builds a one-shipment draft from flags. */
export function draftFromFlags(o: ShipmentInputOptions): ShipmentDraft {
  const draft = newDraft(o.reference ?? '');
  const cell = (value: string, column: string): Cell => ({ value, column });
  for (const [key, flag, col] of SHIPMENT_FLAGS) {
    const v = o[key];
    if (typeof v === 'string' && v.trim() !== '') draft.cells.set(col, cell(v, flag));
  }
  for (const kv of o.customField ?? []) {
    const eq = kv.indexOf('=');
    if (eq <= 0) throw new UsageError(`--custom-field "${kv}": expected KEY=VALUE`);
    draft.cells.set(`custom_fields.${kv.slice(0, eq).trim()}`, cell(kv.slice(eq + 1).trim(), `--custom-field ${kv.slice(0, eq).trim()}`));
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
      for (const [k, v] of parseSpec(spec, '--parcel')) {
        const col = PARCEL_KEYS[k];
        if (!col) throw new UsageError(`--parcel "${spec}": unknown key "${k}" (use ${Object.keys(PARCEL_KEYS).slice(0, 7).join(', ')})`);
        cells.set(col, cell(v, `--parcel #${i + 1} ${k}`));
      }
      draft.parcels.push({ cells, items: [] });
    });
  } else {
    let n = 1;
    if (o.parcels !== undefined) {
      if (!/^\d+$/.test(o.parcels) || Number(o.parcels) < 1 || Number(o.parcels) > 99) throw new UsageError(`--parcels: expected a number from 1 to 99, not "${o.parcels}"`);
      n = Number(o.parcels);
    }
    for (let i = 0; i < n; i++) draft.parcels.push({ cells: new Map(parcelDefaults), items: [] });
  }

  for (const [n, spec] of (o.item ?? []).entries()) {
    const cells = new Map<string, Cell>();
    let target: ParcelDraft = draft.parcels[0];
    for (const [k, v] of parseSpec(spec, '--item')) {
      if (k === 'parcel') {
        const p = draft.parcels[Number(v) - 1];
        if (!/^\d+$/.test(v) || !p) throw new UsageError(`--item "${spec}": parcel=${v} does not exist (there are ${draft.parcels.length})`);
        target = p;
        continue;
      }
      const col = ITEM_KEYS[k];
      if (!col) throw new UsageError(`--item "${spec}": unknown key "${k}" (use sku, description, quantity, value, weight, origin, hs, line_id, parcel)`);
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
