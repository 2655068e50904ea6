// The account's custom field rules (GET /custom-fields: keys, lengths, LIST options, numbers, Booleans), checked
// against a CSV file's custom_fields.KEY and parcel_custom_fields.KEY values before anything is sent, so that a
// value the API would refuse stops the whole file (exit 2) instead of failing its shipments one by one after
// others were created.
import type { CustomField } from '../api/schemas.js';
import type { InputProblem } from '../errors.js';
import { parseListOptions } from '../util/list-options.js';
import { locateApiPath, PARCEL_CUSTOM_PREFIX, SHIPMENT_CUSTOM_PREFIX, type ShipmentRows } from './columns.js';
import { charCount, longerThan } from '../util/chars.js';

type CustomFieldsHolder = { custom_fields?: Record<string, unknown> };
/** The parts of a request body custom fields are in (parcels: each with its own custom_fields). */
export type CustomFieldsBody = CustomFieldsHolder & { parcels?: unknown };

/** The problems of the custom field values of `shipments` (bodies as objects or JSON text), each at its row and column. */
export function customFieldProblems(
  defs: readonly CustomField[],
  shipments: Iterable<ShipmentRows & ({ json: string } | { body: CustomFieldsBody })>,
  labelFor: (column: string) => string,
): InputProblem[] {
  const check = customFieldChecker(defs, labelFor);
  const problems: InputProblem[] = [];
  for (const s of shipments) check(s, 'json' in s ? (JSON.parse(s.json) as CustomFieldsBody) : s.body, problems);
  return problems;
}

/** A check of one shipment's custom field values by the account's fields, adding its problems to `problems`. */
export function customFieldChecker(defs: readonly CustomField[], labelFor: (column: string) => string): (s: ShipmentRows, body: CustomFieldsBody, problems: InputProblem[]) => void {
  const judge = fieldJudge(defs, 'column');
  return (s, body, problems) => {
    const check = (path: string, entity: 'SHIPMENT' | 'PARCEL', key: string, value: unknown) => {
      const broken = judge(entity, key, value);
      if (broken === undefined) return;
      const at = locateApiPath(s, path, labelFor);
      problems.push({ row: at.row, column: at.column, message: broken });
    };
    for (const k of Object.keys(body.custom_fields ?? {})) check(`custom_fields.${k}`, 'SHIPMENT', k, body.custom_fields![k]);
    ((body.parcels ?? []) as Array<CustomFieldsHolder | null>).forEach((p, i) => {
      for (const k of Object.keys(p?.custom_fields ?? {})) check(`parcels.${i}.custom_fields.${k}`, 'PARCEL', k, p!.custom_fields![k]);
    });
  };
}

/**
 * The API's refusals of custom field values (a 400's field paths, `custom_fields.KEY` and
 * `parcels.N.custom_fields.KEY`), said by the account's own rules as a CSV's are checked: a LIST's choices, a
 * length, a number's bounds, the key meant for one the account has not. For a shipment from flags or a JSON
 * file, whose values are checked by the service only. Messages are replaced in `fields`; a path the rules do not
 * explain keeps the API's words.
 */
export function explainCustomFieldRefusals(fields: Record<string, string[]>, body: CustomFieldsBody, defs: readonly CustomField[]): void {
  const judge = fieldJudge(defs, 'key');
  for (const path of Object.keys(fields)) {
    const m = /^(?:parcels\.(\d+)\.)?custom_fields\.(.+)$/.exec(path);
    if (!m) continue;
    const holder = m[1] === undefined ? body : ((body.parcels ?? []) as Array<CustomFieldsHolder | null>)[Number(m[1])];
    const why = judge(m[1] === undefined ? 'SHIPMENT' : 'PARCEL', m[2], holder?.custom_fields?.[m[2]]);
    if (why !== undefined) fields[path] = [why];
  }
}

/**
 * What is wrong with a custom field value by the account's fields (`defs`): its own field's rules, or, for a key
 * the account has no field of at that level, the key meant (named as a CSV names it, by column, or by key).
 */
function fieldJudge(defs: readonly CustomField[], named: 'column' | 'key'): (entity: 'SHIPMENT' | 'PARCEL', key: string, value: unknown) => string | undefined {
  const byKey = (entity: string) => new Map(defs.filter((d) => (d.entity ?? '').toUpperCase() === entity).map((d) => [d.key, d]));
  const shipmentDefs = byKey('SHIPMENT');
  const parcelDefs = byKey('PARCEL');
  return (entity, key, value) => {
    const own = entity === 'SHIPMENT' ? shipmentDefs : parcelDefs;
    const def = own.get(key);
    return def ? ruleBroken(def, value) : unknownKey(entity, key, own, entity === 'SHIPMENT' ? parcelDefs : shipmentDefs, named);
  };
}

/** Keys compared as the contract compares headers: case aside, spaces and hyphens as underscores. */
const looseKey = (key: string) => key.trim().toLowerCase().replace(/[\s-]+/g, '_');

/**
 * Why a key the account has no `entity` custom field for is refused (the service refuses it too), with the
 * column that was probably meant: the same key written another way, or the other entity's field of that key.
 */
function unknownKey(entity: 'SHIPMENT' | 'PARCEL', key: string, own: ReadonlyMap<string, CustomField>, other: ReadonlyMap<string, CustomField>, named: 'column' | 'key'): string {
  const prefix = (e: string) => (e === 'SHIPMENT' ? SHIPMENT_CUSTOM_PREFIX : PARCEL_CUSTOM_PREFIX);
  // A CSV names the field by its column; flags and a JSON file by its key (--custom-field KEY=…, --parcel cf.KEY=…).
  const nameIt = (e: string, k: string) => (named === 'column' ? `name the column ${prefix(e)}${k}` : `its key is ${k}`);
  const base = `the account has no ${entity} custom field with the key "${key}"`;
  const loose = looseKey(key);
  const near = [...own.keys()].find((k) => looseKey(k) === loose);
  if (near !== undefined) return `${base} (keys are matched exactly: ${nameIt(entity, near)})`;
  const otherEntity = entity === 'SHIPMENT' ? 'PARCEL' : 'SHIPMENT';
  const there = [...other.keys()].find((k) => k === key) ?? [...other.keys()].find((k) => looseKey(k) === loose);
  if (there !== undefined) return `${base}; ${there} is a ${otherEntity} custom field: ${nameIt(otherEntity, there)}`;
  if (own.size === 0) return `${base} (it has none; \`ship custom-fields\` lists its fields)`;
  const keys = [...own.keys()];
  return `${base} (its ${entity} fields: ${keys.slice(0, 10).join(', ')}${keys.length > 10 ? ', …' : ''})`;
}

const BOOLEAN_WORDS = new Set(['true', 'false', 'yes', 'no', 'y', 'n', '1', '0']);

/** What is wrong with `value` by the field's rules, or undefined (unknown types and regexes are left to the API). */
export function ruleBroken(def: CustomField, value: unknown): string | undefined {
  if (value === null || value === undefined || typeof value === 'object') return undefined;
  // A FIXED or MAPPED field takes its value elsewhere: what the file gives is not what the service keeps.
  const source = (def.source ?? '').toUpperCase();
  if (source === 'FIXED' || source === 'MAPPED' || def.mapped_to) return undefined;
  const rules = def.data_validation_rules;
  // The document's listing shows neither source nor rules: a field it does not say takes input (DIRECT) and
  // gives no rules for may be FIXED, whose value the service ignores, so nothing is refused on a guess.
  if (source !== 'DIRECT' && (!rules || Array.isArray(rules))) return undefined;
  const r = rules && !Array.isArray(rules) ? rules : {};
  const v = String(value);
  const field = `custom field ${def.key}`;
  switch ((def.data_type ?? '').toUpperCase()) {
    case 'TEXT':
      if (typeof r.max_length === 'number' && longerThan(v, r.max_length)) return `${charCount(v)} characters; ${field} takes at most ${r.max_length}`;
      if (typeof r.min_length === 'number' && charCount(v) < r.min_length) return `${charCount(v)} characters; ${field} takes at least ${r.min_length}`;
      return undefined;
    case 'LIST': {
      const options = r.options ? parseListOptions(r.options) : [];
      if (options.length && !options.includes(v)) return `"${v}" is not one of the choices of ${field}: ${options.join(', ')}`;
      return undefined;
    }
    case 'BOOLEAN':
      // What the service takes for true and false, case aside (the sandbox follows it).
      if (BOOLEAN_WORDS.has(v.trim().toLowerCase())) return undefined;
      return `${field} takes true or false (or yes/no, 1/0), not "${v}"`;
    case 'NUMERIC': {
      const n = v.trim() === '' ? Number.NaN : Number(v);
      const int = (r.numeric_type ?? '').toUpperCase() === 'INT';
      if (!Number.isFinite(n) || (int && !Number.isInteger(n))) return `${field} takes ${int ? 'a whole number' : 'a number'} (got "${v}")`;
      const min = r.min_value === null || r.min_value === undefined || r.min_value === '' ? undefined : Number(r.min_value);
      const max = r.max_value === null || r.max_value === undefined || r.max_value === '' ? undefined : Number(r.max_value);
      if (min !== undefined && Number.isFinite(min) && n < min) return `${v} is less than ${min}, the least ${field} takes`;
      if (max !== undefined && Number.isFinite(max) && n > max) return `${v} is more than ${max}, the most ${field} takes`;
      return undefined;
    }
    default:
      return undefined;
  }
}
