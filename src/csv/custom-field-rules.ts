// The account's custom field rules (GET /custom-fields: lengths, LIST options, numbers), checked against a CSV
// file's custom_fields.KEY and parcel_custom_fields.KEY values before anything is sent, so that a value the API
// would refuse stops the whole file (exit 2) instead of failing its shipments one by one after others were created.
import type { CustomField } from '../api/schemas.js';
import type { InputProblem } from '../errors.js';
import { parseListOptions } from '../util/list-options.js';
import { locateApiPath, type ShipmentRows } from './columns.js';

/** The problems of the custom field values of `shipments` (request bodies as JSON text), each at its row and column. */
export function customFieldProblems(
  defs: readonly CustomField[],
  shipments: Iterable<ShipmentRows & { json: string }>,
  labelFor: (column: string) => string,
): InputProblem[] {
  const byKey = (entity: string) => new Map(defs.filter((d) => (d.entity ?? '').toUpperCase() === entity).map((d) => [d.key, d]));
  const shipmentDefs = byKey('SHIPMENT');
  const parcelDefs = byKey('PARCEL');
  const problems: InputProblem[] = [];
  const check = (s: ShipmentRows, path: string, def: CustomField | undefined, value: unknown) => {
    const broken = def ? ruleBroken(def, value) : undefined;
    if (broken === undefined) return;
    const at = locateApiPath(s, path, labelFor);
    problems.push({ row: at.row, column: at.column, message: broken });
  };
  for (const s of shipments) {
    const body = JSON.parse(s.json) as { custom_fields?: Record<string, unknown>; parcels?: Array<{ custom_fields?: Record<string, unknown> } | null> };
    for (const [k, v] of Object.entries(body.custom_fields ?? {})) check(s, `custom_fields.${k}`, shipmentDefs.get(k), v);
    (body.parcels ?? []).forEach((p, i) => {
      for (const [k, v] of Object.entries(p?.custom_fields ?? {})) check(s, `parcels.${i}.custom_fields.${k}`, parcelDefs.get(k), v);
    });
  }
  return problems;
}

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
      if (typeof r.max_length === 'number' && v.length > r.max_length) return `${v.length} characters; ${field} takes at most ${r.max_length}`;
      if (typeof r.min_length === 'number' && v.length < r.min_length) return `${v.length} characters; ${field} takes at least ${r.min_length}`;
      return undefined;
    case 'LIST': {
      const options = r.options ? parseListOptions(r.options) : [];
      if (options.length && !options.includes(v)) return `"${v}" is not one of the choices of ${field}: ${options.join(', ')}`;
      return undefined;
    }
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
