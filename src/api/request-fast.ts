// A fast path for validating a shipment request (ShipmentRequestSchema plus the backslash/caret ban): a bulk
// `create --csv` validates every shipment of a file before sending anything, and zod took ~23 µs of the
// ~65 µs each row costs. This accepts only a body that is valid AND already in the form the schema gives
// (numbers as numbers, codes upper-case, no unknown keys) and returns the schema's output for it (the same keys
// in the same order); anything else, valid or not, gives undefined and goes through zod as before, which
// reports the problems. test/api/request-fast.test.ts holds it to the schema on varied inputs.
import { BANNED_CHARS, customsItemIssues, hasAtMostTwoDecimals, isDateTime, LABEL_FORMATS, outsideMainlandUk, type ShipmentRequest } from './schemas.js';
import { longerThan } from '../util/chars.js';
import { isCurrencyCode } from './currencies.js';

type Rule =
  | 'text'
  | 'requiredText'
  | 'comments'
  | 'int'
  | 'decimal'
  | 'signedDecimal'
  | 'country'
  | 'currency'
  | 'bool'
  | 'datetime'
  | 'format'
  | 'dutyMethod'
  | 'record'
  | { object: Shape; required?: readonly string[] }
  | { list: Shape; min?: number };

export type Shape = Readonly<Record<string, Rule>>;

/** ExportPurposeSchema. */
export const EXPORT_PURPOSE: Shape = {
  gift: 'bool',
  documents: 'bool',
  sale_of_goods: 'bool',
  commercial_sample: 'bool',
  returned_goods: 'bool',
  other: 'text',
};

/** CustomsDeclarationSchema. */
export const CUSTOMS: Shape = {
  duty_method: 'dutyMethod',
  commercial_invoice_number: 'text',
  insurance_value: 'decimal',
  freight_value: 'decimal',
  packing_value: 'decimal',
  handling_value: 'decimal',
  other_value: 'signedDecimal',
  currency_code: 'currency',
  export_license_number: 'text',
  export_certificate_number: 'text',
  other_export_comments: 'comments',
  export_purpose: { object: EXPORT_PURPOSE },
};

/** ItemSchema. */
export const ITEM: Shape = {
  item_line_id: 'text',
  sku: 'text',
  short_description: 'text',
  full_description: 'text',
  country_of_origin: 'text',
  harmonised_code: 'text',
  item_weight: 'int',
  item_value: 'decimal',
  item_quantity: 'int',
};

/** ParcelSchema. */
export const PARCEL: Shape = {
  reference: 'text',
  packaging_type_key: 'text',
  weight: 'int',
  width: 'int',
  length: 'int',
  depth: 'int',
  value: 'decimal',
  items: { list: ITEM },
  customs_declaration: { object: CUSTOMS },
  custom_fields: 'record',
};

/** AddressSchema. */
export const ADDRESS: Shape = {
  name: 'requiredText',
  company_name: 'text',
  telephone: 'text',
  email_address: 'text',
  line_1: 'requiredText',
  line_2: 'text',
  line_3: 'text',
  city: 'requiredText',
  county: 'text',
  postcode: 'requiredText',
  country: 'country',
};

/** ShipmentRequestSchema's fields, in its order (the order of its output). */
export const SHIPMENT: Shape = {
  shipment_reference: 'requiredText',
  order_reference: 'text',
  delivery_service_key: 'text',
  service_key: 'text',
  brand: 'text',
  location_code: 'text',
  despatch_date: 'datetime',
  to_address: { object: ADDRESS, required: ['name', 'line_1', 'city', 'postcode', 'country'] },
  parcels: { list: PARCEL, min: 1 },
  delivery_instructions: 'text',
  custom_fields: 'record',
  customs_declaration: { object: CUSTOMS },
  recipient_vat_number: 'text',
  recipient_eori_number: 'text',
  recipient_ukims_number: 'text',
  format: 'format',
  print_labels: 'bool',
  print_to_user: 'text',
  printer_key: 'text',
  container_reference: 'text',
};

const REQUIRED_SHIPMENT = ['shipment_reference', 'to_address', 'parcels'] as const;
const FORMATS: ReadonlySet<unknown> = new Set(LABEL_FORMATS);
const DUTY_METHODS: ReadonlySet<unknown> = new Set(['DAP', 'DDP']);

/** Marks "not for the fast path": the caller falls back to zod. */
const NO = Symbol('no');

function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v) as unknown;
  return proto === Object.prototype || proto === null;
}

const okText = (v: unknown): v is string => typeof v === 'string' && !BANNED_CHARS.test(v);

/** Any value (custom field values) free of the banned characters at any depth, as JSON data. */
function cleanDeep(v: unknown, depth = 0): boolean {
  if (depth > 20) return false;
  if (typeof v === 'string') return !BANNED_CHARS.test(v);
  if (v === null || typeof v === 'number' || typeof v === 'boolean') return true;
  if (Array.isArray(v)) return v.every((e) => cleanDeep(e, depth + 1));
  if (isPlainObject(v)) {
    for (const k in v) if (k === '__proto__' || !Object.hasOwn(v, k) || !cleanDeep(v[k], depth + 1)) return false;
    return true;
  }
  return false;
}

function check(rule: Rule, v: unknown): unknown {
  switch (rule) {
    case 'text':
      return okText(v) ? v : NO;
    case 'requiredText':
      return okText(v) && v.trim() !== '' ? v : NO;
    case 'comments':
      return okText(v) && !longerThan(v, 1000) ? v : NO;
    case 'int':
      // zod's int() is a safe integer.
      return typeof v === 'number' && Number.isSafeInteger(v) && v >= 1 ? v : NO;
    case 'decimal':
      return typeof v === 'number' && v >= 0 && hasAtMostTwoDecimals(v) ? v : NO;
    case 'signedDecimal':
      return typeof v === 'number' && hasAtMostTwoDecimals(v) ? v : NO;
    case 'country':
      return typeof v === 'string' && /^[A-Z]{2}$/.test(v) ? v : NO;
    case 'currency':
      return typeof v === 'string' && isCurrencyCode(v) ? v : NO;
    case 'bool':
      return typeof v === 'boolean' ? v : NO;
    case 'datetime':
      return okText(v) && isDateTime(v) ? v : NO;
    case 'format':
      return FORMATS.has(v) ? v : NO;
    case 'dutyMethod':
      return DUTY_METHODS.has(v) ? v : NO;
    case 'record': {
      if (!isPlainObject(v)) return NO;
      const out: Record<string, unknown> = {};
      for (const k in v) {
        if (k === '__proto__' || !Object.hasOwn(v, k) || !cleanDeep(v[k])) return NO;
        out[k] = v[k];
      }
      return out;
    }
    default:
      if ('object' in rule) return object(rule.object, v, rule.required);
      if (!Array.isArray(v) || v.length < (rule.min ?? 0)) return NO;
      {
        const out: unknown[] = new Array(v.length);
        for (let i = 0; i < v.length; i++) {
          const e = object(rule.list, v[i]);
          if (e === NO) return NO;
          out[i] = e;
        }
        return out;
      }
  }
}

function object(shape: Shape, v: unknown, required?: readonly string[]): unknown {
  if (!isPlainObject(v)) return NO;
  // Unknown keys (kept by the schema, checked for the ban) are rare: left to zod, as is anything undefined.
  for (const k in v) if (!Object.hasOwn(shape, k) || !Object.hasOwn(v, k) || v[k] === undefined || k === '__proto__') return NO;
  if (required) for (const k of required) if (!Object.hasOwn(v, k)) return NO;
  const out: Record<string, unknown> = {};
  for (const k in shape) {
    if (!Object.hasOwn(v, k)) continue;
    const c = check(shape[k], v[k]);
    if (c === NO) return NO;
    out[k] = c;
  }
  return out;
}

/**
 * ShipmentRequestSchema's output (with the character ban checked) for a valid body already in final form, or
 * undefined: validate it with zod.
 */
export function fastShipmentRequest(body: unknown): ShipmentRequest | undefined {
  const out = object(SHIPMENT, body, REQUIRED_SHIPMENT);
  if (out === NO) return undefined;
  const r = out as Record<string, unknown>;
  // The schema's cross-field rule.
  if (r.print_to_user !== undefined && r.print_labels !== true) return undefined;
  // Items outside mainland UK: zod says what is missing.
  if (outsideMainlandUk(r.to_address) && customsItemIssues(r).length > 0) return undefined;
  return r as ShipmentRequest;
}
