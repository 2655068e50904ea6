// zod schemas for every resource of API v1.2, in two directions:
// requests are strict (we refuse to send what the API would reject, with messages naming the rule), here;
// responses are lenient (unknown fields kept, money normalised, "may be null" respected), in
// response-schemas.ts, re-exported here.
// A namespace import, so esbuild keeps only the parts of zod used: `import { z }` took in all of it (420 KB
// with the schemas: JSON Schema conversion, codecs, ISO formats…), and the response schemas' chunk with it.
import * as z from 'zod';
import { deferred } from './deferred.js';
import { outsideMainlandUk } from './destination.js';
import { longerThan } from '../util/chars.js';
import { isCurrencyCode } from './currencies.js';
import { BANNED_CHARS, BANNED_CHARS_MESSAGE } from './banned-chars.js';

export { BANNED_CHARS, BANNED_CHARS_MESSAGE, outsideMainlandUk };
export * from './response-schemas.js';

// ---------------------------------------------------------------------------------------------
// Building blocks for requests
// ---------------------------------------------------------------------------------------------

const isMissing = (input: unknown): boolean => input === undefined || input === null;

/** Optional text field of a request; a number (e.g. a numeric reference in a JSON file) is sent as its text. */
function text(max?: number) {
  let s = z.string({ error: (iss) => (isMissing(iss.input) ? 'is required' : 'must be text') });
  // Characters, not UTF-16 units (zod's .max counts units: an emoji as two).
  if (max !== undefined) s = s.refine((v) => !longerThan(v, max), { error: `must be at most ${max} characters`, abort: true });
  return z.preprocess((v) => (typeof v === 'number' && Number.isFinite(v) ? String(v) : v), s);
}

/** Required text field of a request: present and not blank, as the API's `required` rule. */
function requiredText(max?: number) {
  return text(max).refine((v) => v.trim() !== '', { error: 'is required' });
}

/** Turns numeric strings (from CSV cells or hand-written JSON) into numbers; everything else is left for zod to judge. */
function numberLike(v: unknown): unknown {
  if (typeof v === 'string' && /^\s*-?\d+(\.\d+)?\s*$/.test(v)) return Number(v);
  return v;
}

/** Integer field in a unit (grams, cm, mm); positive unless `allowZero`. */
function integer(unit: string, opts: { allowZero?: boolean } = {}) {
  const what = unit ? `a whole number of ${unit}` : 'a whole number';
  return z.preprocess(
    numberLike,
    z
      .number({ error: (iss) => (isMissing(iss.input) ? 'is required' : `must be ${what}`) })
      .int({ error: `must be ${what} (no decimals)` })
      .min(opts.allowZero ? 0 : 1, { error: opts.allowZero ? 'must not be negative' : 'must be greater than 0' }),
  );
}

/** Whether a number has at most two decimal places (tolerating binary floating-point noise). */
export function hasAtMostTwoDecimals(v: number): boolean {
  return Number.isFinite(v) && Math.abs(Math.round(v * 100) - v * 100) < 1e-6;
}

/** Decimal with at most 2 decimal places (money, rates); non-negative unless `allowNegative`. */
function decimal(opts: { allowNegative?: boolean } = {}) {
  let n = z.number({ error: (iss) => (isMissing(iss.input) ? 'is required' : 'must be a number') });
  if (!opts.allowNegative) n = n.min(0, { error: 'must not be negative' });
  return z.preprocess(numberLike, n.refine(hasAtMostTwoDecimals, { error: 'must have at most 2 decimal places' }));
}

/** Two-letter ISO 3166-1 alpha-2 code, upper-cased before the check. */
function countryCode() {
  return z.preprocess(
    (v) => (typeof v === 'string' ? v.trim().toUpperCase() : v),
    z.string({ error: (iss) => (isMissing(iss.input) ? 'is required' : 'must be a two-letter ISO 3166-1 country code') }).superRefine((v, ctx) => {
      if (v === '') ctx.addIssue({ code: 'custom', message: 'is required' });
      else if (!/^[A-Z]{2}$/.test(v)) ctx.addIssue({ code: 'custom', message: `must be a two-letter ISO 3166-1 country code (got ${JSON.stringify(v)})` });
    }),
  );
}

/** Enumerated text, accepted in any letter case and sent upper-case. */
function upperEnum<const T extends readonly [string, ...string[]]>(values: T) {
  const list = values.join(', ');
  return z.preprocess(
    (v) => (typeof v === 'string' ? v.trim().toUpperCase() : v),
    z.enum(values, { error: (iss) => (isMissing(iss.input) ? 'is required' : `must be one of ${list} (got ${JSON.stringify(iss.input)})`) }),
  );
}

function boolean() {
  return z.boolean({ error: (iss) => (isMissing(iss.input) ? 'is required' : 'must be true or false') });
}

const DATETIME = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})$/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

function validCalendarDate(y: number, m: number, d: number): boolean {
  const dt = new Date(Date.UTC(y, m - 1, d));
  return dt.getUTCFullYear() === y && dt.getUTCMonth() === m - 1 && dt.getUTCDate() === d;
}

/** Whether text is `YYYY-MM-DD HH:mm:ss` naming a real date and time. */
export function isDateTime(v: string): boolean {
  const m = DATETIME.exec(v);
  return m !== null && validCalendarDate(+m[1], +m[2], +m[3]) && +m[4] < 24 && +m[5] < 60 && +m[6] < 60;
}

/** `YYYY-MM-DD HH:mm:ss`, a real date and time. */
function datetime() {
  return text().superRefine((v, ctx) => {
    if (!isDateTime(v)) ctx.addIssue({ code: 'custom', message: `must be a date and time as YYYY-MM-DD HH:mm:ss (got ${JSON.stringify(v)})` });
  });
}

/** `YYYY-MM-DD`, a real date. */
function dateOnly() {
  return text().superRefine((v, ctx) => {
    const m = DATE.exec(v);
    if (!m || !validCalendarDate(+m[1], +m[2], +m[3])) ctx.addIssue({ code: 'custom', message: `must be a date as YYYY-MM-DD (got ${JSON.stringify(v)})` });
  });
}

/** A request object: unknown keys kept (checked for the character ban, then sent as given). */
function obj<T extends z.core.$ZodLooseShape>(shape: T) {
  return z.looseObject(shape, { error: (iss) => (isMissing(iss.input) ? 'is required' : 'must be an object') });
}

const customFieldValues = deferred(() => z.record(z.string(), z.unknown(), { error: 'must be an object of key/value pairs' }));

// ---------------------------------------------------------------------------------------------
// Requests
// ---------------------------------------------------------------------------------------------

export const LABEL_FORMATS = ['ZPL', 'PDF', 'PNG'] as const;
export type LabelFormat = (typeof LABEL_FORMATS)[number];

/** Address as sent in `to_address`. */
export const AddressSchema = deferred(() =>
  obj({
    name: requiredText(),
    company_name: text().optional(),
    telephone: text().optional(),
    email_address: text().optional(),
    line_1: requiredText(),
    line_2: text().optional(),
    line_3: text().optional(),
    city: requiredText(),
    county: text().optional(),
    postcode: requiredText(),
    country: countryCode(),
  }),
);
export type Address = z.output<typeof AddressSchema>;

export const ExportPurposeSchema = deferred(() =>
  obj({
    gift: boolean().optional(),
    documents: boolean().optional(),
    sale_of_goods: boolean().optional(),
    commercial_sample: boolean().optional(),
    returned_goods: boolean().optional(),
    other: text().optional(),
  }),
);
export type ExportPurpose = z.output<typeof ExportPurposeSchema>;

export const CustomsDeclarationSchema = deferred(() =>
  obj({
    duty_method: upperEnum(['DAP', 'DDP'] as const).optional(),
    commercial_invoice_number: text().optional(),
    insurance_value: decimal().optional(),
    freight_value: decimal().optional(),
    packing_value: decimal().optional(),
    handling_value: decimal().optional(),
    other_value: decimal({ allowNegative: true }).optional(),
    currency_code: z
      .preprocess((v) => (typeof v === 'string' ? v.trim().toUpperCase() : v), text())
      .refine((v) => /^[A-Z]{3}$/.test(v), { error: 'must be a three-letter ISO 4217 currency code', abort: true })
      .refine(isCurrencyCode, { error: 'is not an ISO 4217 currency code' })
      .optional(),
    export_license_number: text().optional(),
    export_certificate_number: text().optional(),
    other_export_comments: text(1000).optional(),
    export_purpose: ExportPurposeSchema.optional(),
  }),
);
export type CustomsDeclaration = z.output<typeof CustomsDeclarationSchema>;

export const ItemSchema = deferred(() =>
  obj({
    item_line_id: text().optional(),
    sku: text().optional(),
    short_description: text().optional(),
    full_description: text().optional(),
    // Full country name or alpha-2 code: only text rules apply here.
    country_of_origin: text().optional(),
    harmonised_code: text().optional(),
    item_weight: integer('grams').optional(),
    item_value: decimal().optional(),
    item_quantity: integer('').optional(),
  }),
);
export type Item = z.output<typeof ItemSchema>;

export const ParcelSchema = deferred(() =>
  obj({
    reference: text().optional(),
    packaging_type_key: text().optional(),
    weight: integer('grams').optional(),
    width: integer('centimetres').optional(),
    length: integer('centimetres').optional(),
    depth: integer('centimetres').optional(),
    value: decimal().optional(),
    items: z.array(ItemSchema, { error: 'must be a list of items' }).optional(),
    customs_declaration: CustomsDeclarationSchema.optional(),
    custom_fields: customFieldValues.optional(),
  }),
);
export type Parcel = z.output<typeof ParcelSchema>;

/** An item attribute customs needs outside mainland UK when no SKU lookup supplies it (Item rules). */
export const CUSTOMS_ITEM_FIELDS = ['short_description', 'full_description', 'country_of_origin', 'harmonised_code', 'item_weight', 'item_value', 'item_quantity'] as const;

const blank = (v: unknown) => v === undefined || v === null || (typeof v === 'string' && v.trim() === '');

/**
 * The document's rules for items outside mainland UK: every parcel lists its items ("Optional for mainland UK
 * deliveries; required at item level when a customs declaration is required"), and an item without a SKU has
 * every customs attribute (short_description "Optional for mainland UK deliveries or with SKU lookup", the others
 * "the same optionality"). An item with a SKU is left to the service, whose inventory may supply them.
 */
export function customsItemIssues(body: unknown): Array<{ path: Array<string | number>; message: string }> {
  const out: Array<{ path: Array<string | number>; message: string }> = [];
  if (!body || typeof body !== 'object') return out;
  const { to_address, parcels } = body as { to_address?: unknown; parcels?: unknown };
  if (!Array.isArray(parcels) || !outsideMainlandUk(to_address)) return out;
  parcels.forEach((parcel, i) => {
    if (!parcel || typeof parcel !== 'object') return;
    const items = (parcel as { items?: unknown }).items;
    if (items === undefined || items === null) {
      out.push({ path: ['parcels', i, 'items'], message: 'is required for deliveries outside mainland UK' });
      return;
    }
    if (!Array.isArray(items)) return;
    items.forEach((item, j) => {
      if (!item || typeof item !== 'object') return;
      const it = item as Record<string, unknown>;
      if (!blank(it.sku)) return;
      for (const k of CUSTOMS_ITEM_FIELDS) {
        if (blank(it[k])) out.push({ path: ['parcels', i, 'items', j, k], message: 'is required for deliveries outside mainland UK (or give the item a SKU)' });
      }
    });
  });
  return out;
}

/** The shipment request's rules across fields: print_to_user needs print_labels, and customs items (above). */
export function shipmentCrossFieldIssues(body: unknown): Array<{ path: Array<string | number>; message: string }> {
  const out: Array<{ path: Array<string | number>; message: string }> = [];
  const v = body as { print_to_user?: unknown; print_labels?: unknown } | null;
  if (v && typeof v === 'object' && v.print_to_user !== undefined && v.print_labels !== true) {
    out.push({ path: ['print_to_user'], message: 'is only allowed when print_labels is true' });
  }
  out.push(...customsItemIssues(body));
  return out;
}

/** Body of POST /shipments and POST /shipments/get-services. */
export const ShipmentRequestSchema = deferred(() =>
  z
    .looseObject({
      shipment_reference: requiredText(),
      order_reference: text().optional(),
      delivery_service_key: text().optional(),
      /** Deprecated alias of delivery_service_key. */
      service_key: text().optional(),
      brand: text().optional(),
      location_code: text().optional(),
      despatch_date: datetime().optional(),
      to_address: AddressSchema,
      parcels: z
        .array(ParcelSchema, { error: (iss) => (isMissing(iss.input) ? 'is required' : 'must be a list of parcels') })
        .min(1, { error: 'must contain at least one parcel' }),
      delivery_instructions: text().optional(),
      custom_fields: customFieldValues.optional(),
      customs_declaration: CustomsDeclarationSchema.optional(),
      recipient_vat_number: text().optional(),
      recipient_eori_number: text().optional(),
      recipient_ukims_number: text().optional(),
      format: upperEnum(LABEL_FORMATS).optional(),
      print_labels: boolean().optional(),
      print_to_user: text().optional(),
      printer_key: text().optional(),
      container_reference: text().optional(),
    })
    .superRefine(
      (v, ctx) => {
        for (const issue of shipmentCrossFieldIssues(v)) ctx.addIssue({ code: 'custom', ...issue });
      },
      // Cross-field rules run even when other fields failed, so every problem is reported at once (zod still
      // skips them when a field's own check aborted: validateShipmentRequest adds them then).
      { when: () => true },
    ),
);
/** What we send to create or quote a shipment (after normalisation). */
export type ShipmentRequest = z.output<typeof ShipmentRequestSchema>;
/** What callers may hand to validateShipmentRequest (numbers may still be strings, codes lower-case). */
export type ShipmentRequestInput = z.input<typeof ShipmentRequestSchema>;

/** Body of PUT /shipments/:ref/print. */
export const PrintRequestSchema = deferred(() =>
  obj({
    print_to_user: text().optional(),
    printer_key: text().optional(),
  }),
);
export type PrintRequest = z.output<typeof PrintRequestSchema>;

export const CUSTOM_FIELD_ENTITIES = ['SHIPMENT', 'PARCEL', 'CONTACT', 'SKU'] as const;
export const CUSTOM_FIELD_DATA_TYPES = ['NUMERIC', 'TEXT', 'BOOLEAN', 'LIST'] as const;
export const CUSTOM_FIELD_SOURCES = ['DIRECT', 'FIXED', 'MAPPED'] as const;

export const ValidationRulesRequestSchema = deferred(() =>
  obj({
    is_required: boolean().optional(),
    min_length: integer('characters', { allowZero: true }).optional(),
    max_length: integer('characters', { allowZero: true }).optional(),
    regex: text().optional(),
    options: text().optional(),
    numeric_type: upperEnum(['INT', 'DECIMAL'] as const).optional(),
    min_value: decimal({ allowNegative: true }).optional(),
    max_value: decimal({ allowNegative: true }).optional(),
  }),
);

/** Body of POST /custom-fields. */
export const CustomFieldRequestSchema = deferred(() =>
  z
    .looseObject({
      name: requiredText(),
      key: requiredText(),
      entity: upperEnum(CUSTOM_FIELD_ENTITIES),
      data_type: upperEnum(CUSTOM_FIELD_DATA_TYPES),
      source: upperEnum(CUSTOM_FIELD_SOURCES).optional(),
      default_value: text().nullable().optional(),
      mapped_to: text().nullable().optional(),
      data_validation_rules: ValidationRulesRequestSchema.optional(),
    })
    .superRefine((v, ctx) => {
      if (!v || typeof v !== 'object') return;
      if (v.source === 'MAPPED' && !v.mapped_to) ctx.addIssue({ code: 'custom', path: ['mapped_to'], message: 'is required when source is MAPPED' });
      if (v.source === 'FIXED' && (v.default_value === undefined || v.default_value === null || v.default_value === '')) {
        ctx.addIssue({ code: 'custom', path: ['default_value'], message: 'is required when source is FIXED' });
      }
      const r = v.data_validation_rules;
      if (r && typeof r.min_length === 'number' && typeof r.max_length === 'number' && r.min_length > r.max_length) {
        ctx.addIssue({ code: 'custom', path: ['data_validation_rules', 'max_length'], message: 'must not be less than min_length' });
      }
      if (r && typeof r.min_value === 'number' && typeof r.max_value === 'number' && r.min_value > r.max_value) {
        ctx.addIssue({ code: 'custom', path: ['data_validation_rules', 'max_value'], message: 'must not be less than min_value' });
      }
    }, { when: () => true }),
);
export type CustomFieldRequest = z.output<typeof CustomFieldRequestSchema>;

const PACKABLE = new Set(['1', 'true', 'y', 'yes', 'p', 'packable']);
const NON_PACKABLE = new Set(['0', 'false', 'n', 'no', 'nonpackable', 'non-packable', 'non_packable']);

/** Normalises every spelling of item_handling the document allows to PACKABLE / NON_PACKABLE (undefined if unknown). */
export function normaliseItemHandling(v: unknown): 'PACKABLE' | 'NON_PACKABLE' | undefined {
  if (v === true || v === 1) return 'PACKABLE';
  if (v === false || v === 0) return 'NON_PACKABLE';
  if (typeof v !== 'string') return undefined;
  const s = v.trim().toLowerCase();
  if (PACKABLE.has(s)) return 'PACKABLE';
  if (NON_PACKABLE.has(s)) return 'NON_PACKABLE';
  return undefined;
}

const itemHandling = deferred(() =>
  z.preprocess(
    (v) => normaliseItemHandling(v) ?? v,
    z.enum(['PACKABLE', 'NON_PACKABLE'], {
      error: (iss) => `must be PACKABLE or NON_PACKABLE (or 1/0, true/false, Y/N, yes/no; got ${JSON.stringify(iss.input)})`,
    }),
  ),
);

/** The attributes of a SKU request (a function: built only when a SKU schema is). */
const skuFields = () => ({
  sku: requiredText(),
  image_url: text().optional(),
  product_name: text().optional(),
  outer_barcode: text().optional(),
  inner_barcode: text().optional(),
  product_code: text().optional(),
  description_short: text().optional(),
  description_full: text().optional(),
  department: text().optional(),
  category: text().optional(),
  location: text().optional(),
  warehouse_location: text().optional(),
  tariff_code: text().optional(),
  tariff_description: text().optional(),
  country_of_origin: countryCode().optional(),
  manufacturer_name: text().optional(),
  part_number: text().optional(),
  value_ex_vat: decimal().optional(),
  vat_rate: decimal().optional(),
  value_inc_vat: decimal().optional(),
  gross_weight: integer('grams', { allowZero: true }).optional(),
  net_weight: integer('grams', { allowZero: true }).optional(),
  width: integer('millimetres', { allowZero: true }).optional(),
  length: integer('millimetres', { allowZero: true }).optional(),
  depth: integer('millimetres', { allowZero: true }).optional(),
  active: boolean().optional(),
  is_stocked_item: boolean().optional(),
  in_stock: boolean().optional(),
  custom_fields: customFieldValues.optional(),
  item_handling: itemHandling.optional(),
});

/** Body of POST /skus and PUT /skus/:ref (all mandatory attributes). */
export const SkuRequestSchema = deferred(() =>
  obj(skuFields()),
);
export type SkuRequest = z.output<typeof SkuRequestSchema>;
export type SkuRequestInput = z.input<typeof SkuRequestSchema>;
/** Body of PATCH /skus/:ref: only the attributes to change. */
export const SkuPatchSchema = deferred(() =>
  obj(skuFields()).partial(),
);
export type SkuPatch = z.output<typeof SkuPatchSchema>;

/** Body of POST /containers. */
export const ContainerRequestSchema = deferred(() =>
  obj({
    reference: text().optional(),
    despatch_date: dateOnly().optional(),
    despatch_location: text().optional(),
    delivery_service_key: requiredText(),
    clearance_country: countryCode(),
    clearance_location: requiredText(),
    value_currency: z
      .preprocess((v) => (typeof v === 'string' ? v.trim().toUpperCase() : v), text())
      .refine((v) => /^[A-Z]{3}$/.test(v), { error: 'must be a three-letter ISO 4217 currency code', abort: true })
      .refine(isCurrencyCode, { error: 'is not an ISO 4217 currency code' })
      .optional(),
  }),
);
export type ContainerRequest = z.output<typeof ContainerRequestSchema>;

/** Body of POST /tokens. */
export const TokenRequestSchema = deferred(() =>
  obj({ username: requiredText(), password: requiredText() }),
);
export type TokenRequest = z.output<typeof TokenRequestSchema>;
