// /custom-fields: list, get (key or ID, answered as an array of one), create with validation; and the resolution
// of custom_fields key/value pairs on shipments, parcels and SKUs (defaults, FIXED, MAPPED, validation rules).
import { randomUUID } from 'node:crypto';
import { presentCustomField, type SandboxApp } from '../app.js';
import { HttpError, notFound, ok, type ApiRequest, type ApiResponse } from '../http.js';
import type { CustomFieldRec, ValidationRules } from '../store.js';
import { Errors, bool, checkForbidden, int, isBlank, isObject, label, msg, num, obj, oneOf, str } from '../validation.js';
import { parseListOptions } from '../../util/list-options.js';
import { charCount, longerThan } from '../../util/chars.js';

const ENTITIES = ['SHIPMENT', 'PARCEL', 'CONTACT', 'SKU'] as const;
const DATA_TYPES = ['NUMERIC', 'TEXT', 'BOOLEAN', 'LIST'] as const;
const SOURCES = ['DIRECT', 'FIXED', 'MAPPED'] as const;

/** GET /custom-fields. */
export function listCustomFields(app: SandboxApp, _req: ApiRequest): ApiResponse {
  return ok('Custom fields', [...app.store.customFields.values()].map(presentCustomField));
}

/** GET /custom-fields/:ref: key or ID; `data` is an array holding the one field. */
export function getCustomField(app: SandboxApp, req: ApiRequest): ApiResponse {
  const c = app.store.customField(req.params.ref);
  if (!c) throw notFound(`No custom field with key or ID "${req.params.ref}".`);
  return ok('Custom field', [presentCustomField(c)]);
}

/** Parses a LIST `options` value (shared with the CLI's own check of CSV values). */
export const parseOptions = parseListOptions;

/** Compiles a Perl-compatible expression (with or without `/…/flags` delimiters) to a RegExp; null when invalid. */
export function compileRegex(src: string): RegExp | null {
  try {
    const m = /^\/(.*)\/([a-z]*)$/s.exec(src);
    if (m) return new RegExp(m[1], m[2].replace(/[^imsu]/g, ''));
    return new RegExp(src);
  } catch {
    return null;
  }
}

/** Checks one value against a field's type and rules; returns the stored string form, or undefined after an error. */
export function checkValue(e: Errors, c: Pick<CustomFieldRec, 'data_type' | 'data_validation_rules'>, raw: unknown, path: string): string | undefined {
  if (typeof raw === 'object' && raw !== null) {
    e.add(path, msg.string(path));
    return undefined;
  }
  const v = String(raw);
  const r = c.data_validation_rules ?? {};
  switch (c.data_type) {
    case 'TEXT': {
      if (r.min_length != null && charCount(v) < r.min_length) e.add(path, msg.minChars(path, r.min_length));
      if (r.max_length != null && longerThan(v, r.max_length)) e.add(path, msg.maxChars(path, r.max_length));
      if (r.regex) {
        const re = compileRegex(r.regex);
        if (re && !re.test(v)) e.add(path, `The ${label(path)} format is invalid.`);
      }
      return e.has(path) ? undefined : v;
    }
    case 'LIST': {
      const options = parseOptions(r.options ?? '');
      if (!options.includes(v)) {
        e.add(path, msg.invalid(path));
        return undefined;
      }
      return v;
    }
    case 'BOOLEAN': {
      const l = v.toLowerCase();
      if (['1', 'true', 'yes', 'y'].includes(l)) return 'true';
      if (['0', 'false', 'no', 'n'].includes(l)) return 'false';
      e.add(path, msg.boolean(path));
      return undefined;
    }
    case 'NUMERIC': {
      const n = r.numeric_type === 'INT' ? int(e, v, path) : num(e, v, path);
      if (n === undefined) return undefined;
      if (r.min_value != null && n < r.min_value) e.add(path, msg.min(path, r.min_value));
      if (r.max_value != null && n > r.max_value) e.add(path, msg.max(path, r.max_value));
      return e.has(path) ? undefined : String(n);
    }
  }
  return v;
}

/**
 * Resolves the custom_fields of an entity: supplied values (validated), defaults, FIXED values, MAPPED values
 * (taken from `attributes` or another custom field), and is_required. Unknown keys are errors.
 */
export function resolveCustomFields(
  app: SandboxApp,
  e: Errors,
  entity: 'SHIPMENT' | 'PARCEL' | 'SKU',
  input: unknown,
  path: string,
  attributes: Record<string, unknown> = {},
  opts: { applyDefaults?: boolean } = {},
): Record<string, string> {
  // An empty list is an empty map: a PHP client (or a JSON encoder of an empty PHP array) sends [] for {}.
  const supplied = (Array.isArray(input) && input.length === 0 ? {} : obj(e, input, path)) ?? {};
  const out: Record<string, string> = {};
  for (const key of Object.keys(supplied)) {
    const c = app.store.customFieldsByKey.get(key);
    if (!c || c.entity !== entity) e.add(`${path}.${key}`, `There is no ${entity} custom field with the key "${key}".`);
  }
  const applyDefaults = opts.applyDefaults !== false;
  const mapped: CustomFieldRec[] = [];
  for (const c of app.store.customFields.values()) {
    if (c.entity !== entity) continue;
    const p = `${path}.${c.key}`;
    if (c.source === 'FIXED') {
      if (c.default_value !== null) out[c.key] = c.default_value;
      continue;
    }
    if (c.source === 'MAPPED' && isBlank(supplied[c.key])) {
      mapped.push(c);
      continue;
    }
    if (!isBlank(supplied[c.key])) {
      const v = checkValue(e, c, supplied[c.key], p);
      if (v !== undefined) out[c.key] = v;
    } else if (applyDefaults && c.default_value !== null && c.default_value !== '') {
      out[c.key] = c.default_value;
    } else if (applyDefaults && c.data_validation_rules?.is_required) {
      e.add(p, msg.required(p));
    }
  }
  // Mapped fields read other fields' resolved values, so they come last.
  for (const c of mapped) {
    const p = `${path}.${c.key}`;
    const from = c.mapped_to ? (out[c.mapped_to] ?? lookup(attributes, c.mapped_to)) : undefined;
    if (!isBlank(from) && (typeof from === 'string' || typeof from === 'number' || typeof from === 'boolean')) out[c.key] = String(from);
    else if (c.default_value !== null && c.default_value !== '') out[c.key] = c.default_value;
    else if (applyDefaults && c.data_validation_rules?.is_required) e.add(p, msg.required(p));
  }
  return out;
}

/** Reads an attribute by name or dotted path (`to_address.postcode`). */
function lookup(attributes: Record<string, unknown>, path: string): unknown {
  if (path in attributes) return attributes[path];
  let v: unknown = attributes;
  for (const part of path.split('.')) {
    if (!isObject(v)) return undefined;
    v = v[part];
  }
  return v;
}

/** POST /custom-fields: creates a field (admins only: MERCHANT_USER and 3PL_USER get 403). */
export function createCustomField(app: SandboxApp, req: ApiRequest): ApiResponse {
  const user = app.store.users.get(req.userId!)!;
  if (user.access_level === 'MERCHANT_USER' || user.access_level === '3PL_USER') {
    throw new HttpError(403, 'This action is unauthorized.', null);
  }
  const body = isObject(req.body) ? req.body : {};
  const e = new Errors();
  checkForbidden(e, body);
  // The document limits neither the name nor the key (length or characters); a key must be unique.
  const name = str(e, body.name, 'name', { required: true });
  const key = str(e, body.key, 'key', { required: true });
  if (key !== undefined && !e.has('key') && app.store.customFieldsByKey.has(key)) e.add('key', msg.taken('key'));
  const entity = oneOf(e, body.entity, 'entity', ENTITIES, { required: true });
  const dataType = oneOf(e, body.data_type, 'data_type', DATA_TYPES, { required: true });
  const source = oneOf(e, body.source, 'source', SOURCES) ?? 'DIRECT';
  let mappedTo: string | null = null;
  if (source === 'MAPPED') {
    mappedTo = str(e, body.mapped_to, 'mapped_to') ?? null;
    if (mappedTo === null && !e.has('mapped_to')) e.add('mapped_to', 'The mapped to field is required when source is MAPPED.');
  } else if (!isBlank(body.mapped_to)) {
    e.add('mapped_to', 'The mapped to field is prohibited unless source is MAPPED.');
  }

  const rules: ValidationRules = {};
  const rawRules = obj(e, body.data_validation_rules, 'data_validation_rules');
  if (rawRules) {
    const rp = (k: string) => `data_validation_rules.${k}`;
    const only = (k: string, type: string) => {
      if (rawRules[k] !== undefined && rawRules[k] !== null && dataType && dataType !== type) {
        e.add(rp(k), `The ${label(rp(k))} field is prohibited unless data type is ${type}.`);
        return false;
      }
      return true;
    };
    const req1 = bool(e, rawRules.is_required, rp('is_required'));
    if (req1 !== undefined) rules.is_required = req1;
    if (only('min_length', 'TEXT')) {
      const v = int(e, rawRules.min_length, rp('min_length'), { min: 0 });
      if (v !== undefined) rules.min_length = v;
    }
    if (only('max_length', 'TEXT')) {
      const v = int(e, rawRules.max_length, rp('max_length'), { min: 1 });
      if (v !== undefined) rules.max_length = v;
    }
    if (rules.min_length !== undefined && rules.max_length !== undefined && rules.min_length > rules.max_length) {
      e.add(rp('max_length'), `The ${label(rp('max_length'))} must be at least ${rules.min_length}.`);
    }
    if (only('regex', 'TEXT')) {
      const v = str(e, rawRules.regex, rp('regex'));
      if (v !== undefined && !e.has(rp('regex'))) {
        if (compileRegex(v) === null) e.add(rp('regex'), `The ${label(rp('regex'))} format is invalid.`);
        else rules.regex = v;
      }
    }
    if (only('options', 'LIST')) {
      const v = str(e, rawRules.options, rp('options'));
      if (v !== undefined) {
        if (parseOptions(v).length === 0) e.add(rp('options'), `The ${label(rp('options'))} must list at least one option.`);
        else rules.options = v;
      }
    }
    if (only('numeric_type', 'NUMERIC')) {
      const v = oneOf(e, rawRules.numeric_type, rp('numeric_type'), ['INT', 'DECIMAL'] as const);
      if (v !== undefined) rules.numeric_type = v;
    }
    if (only('min_value', 'NUMERIC')) {
      const v = num(e, rawRules.min_value, rp('min_value'));
      if (v !== undefined) rules.min_value = v;
    }
    if (only('max_value', 'NUMERIC')) {
      const v = num(e, rawRules.max_value, rp('max_value'));
      if (v !== undefined) rules.max_value = v;
    }
    if (rules.min_value !== undefined && rules.max_value !== undefined && rules.min_value > rules.max_value) {
      e.add(rp('max_value'), `The ${label(rp('max_value'))} must be at least ${rules.min_value}.`);
    }
  }
  if (dataType === 'LIST' && rules.options === undefined && !e.has('data_validation_rules.options')) {
    e.add('data_validation_rules.options', 'The data validation rules.options field is required when data type is LIST.');
  }

  let defaultValue: string | null = null;
  if (!isBlank(body.default_value)) {
    if (dataType) defaultValue = checkValue(e, { data_type: dataType, data_validation_rules: rules }, body.default_value, 'default_value') ?? null;
  } else if (source === 'FIXED') {
    e.add('default_value', 'The default value field is required when source is FIXED.');
  }
  e.throwIfAny();

  const rec: CustomFieldRec = {
    id: randomUUID(),
    name: name!,
    key: key!,
    entity: entity!,
    data_type: dataType!,
    source,
    mapped_to: mappedTo,
    default_value: defaultValue,
    data_validation_rules: Object.keys(rules).length > 0 ? rules : null,
  };
  app.store.putCustomField(rec);
  app.changed();
  return ok('Custom field created', presentCustomField(rec), 201);
}
