// zod schemas for every resource of API v1.2, in two directions:
// requests are strict (we refuse to send what the API would reject, with messages naming the rule),
// responses are lenient (unknown fields kept, money normalised, "may be null" respected).
import { z } from 'zod';
import { toMoney } from './money.js';
import { outsideMainlandUk } from './destination.js';

export { outsideMainlandUk };

// ---------------------------------------------------------------------------------------------
// Building blocks for requests
// ---------------------------------------------------------------------------------------------

/** The API rejects any request text holding one of these (label-printing and data-exchange problems). */
export const BANNED_CHARS = /[\\^]/;
export const BANNED_CHARS_MESSAGE = 'must not contain a backslash (\\) or caret (^)';

const isMissing = (input: unknown): boolean => input === undefined || input === null;

/**
 * A schema built on first use: building all ~40 schemas up front cost every API command ~25 ms of start-up,
 * while a command uses one or two. The value behaves as the schema itself (a transparent proxy).
 */
function deferred<T extends object>(build: () => T): T {
  let built: T | undefined;
  const target = (): T => (built ??= build());
  return new Proxy({} as T, {
    get: (_, key) => {
      const t = target();
      return Reflect.get(t, key, t);
    },
    has: (_, key) => Reflect.has(target(), key),
    set: (_, key, value) => Reflect.set(target(), key, value),
    defineProperty: (_, key, desc) => Reflect.defineProperty(target(), key, desc),
    deleteProperty: (_, key) => Reflect.deleteProperty(target(), key),
    ownKeys: () => Reflect.ownKeys(target()),
    getOwnPropertyDescriptor: (_, key) => {
      const d = Reflect.getOwnPropertyDescriptor(target(), key);
      // A proxy may only report a property as non-configurable if its own target has it so.
      return d ? { ...d, configurable: true } : undefined;
    },
    getPrototypeOf: () => Reflect.getPrototypeOf(target()),
  });
}

/** Optional text field of a request; a number (e.g. a numeric reference in a JSON file) is sent as its text. */
function text(max?: number) {
  let s = z.string({ error: (iss) => (isMissing(iss.input) ? 'is required' : 'must be text') });
  if (max !== undefined) s = s.max(max, { error: `must be at most ${max} characters` });
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
      .refine((v) => /^[A-Z]{3}$/.test(v), { error: 'must be a three-letter ISO 4217 currency code' })
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
      .refine((v) => /^[A-Z]{3}$/.test(v), { error: 'must be a three-letter ISO 4217 currency code' })
      .optional(),
  }),
);
export type ContainerRequest = z.output<typeof ContainerRequestSchema>;

/** Body of POST /tokens. */
export const TokenRequestSchema = deferred(() =>
  obj({ username: requiredText(), password: requiredText() }),
);
export type TokenRequest = z.output<typeof TokenRequestSchema>;

// ---------------------------------------------------------------------------------------------
// Responses (lenient)
// ---------------------------------------------------------------------------------------------

export { toMoney };

/** Money in a response: string or number in, `0.00` string out. */
const money = z.union([z.string(), z.number()]).transform(toMoney);
const str = z.string();
const optStr = z.string().nullish();
const optInt = z.number().nullish();
const optBool = z.boolean().nullish();

/** Base64 image list: the document says array, the service sends "" when not requested. */
const pngList = z
  .union([z.array(z.string()), z.string(), z.null()])
  .transform((v): string[] => (v === null || v === '' ? [] : typeof v === 'string' ? [v] : v));

export const CountrySchema = deferred(() =>
  z.looseObject({ code: optStr, name: optStr }),
);
export type Country = z.output<typeof CountrySchema>;

/** Country in a response: object form, or a bare code as older records have it. */
const countryOut = z.union([CountrySchema, z.string()]).nullish();

export const ResponseAddressSchema = deferred(() =>
  z.looseObject({
    delivery_name: optStr,
    name: optStr,
    company_name: optStr,
    line_1: optStr,
    line_2: optStr,
    line_3: optStr,
    city: optStr,
    county: optStr,
    postcode: optStr,
    country: countryOut,
  }),
);
export type ResponseAddress = z.output<typeof ResponseAddressSchema>;

export const LocationSchema = deferred(() =>
  z.looseObject({
    id: str,
    code: optStr,
    name: optStr,
    type: optStr,
    telephone: optStr,
    email: optStr,
    address_name: optStr,
    address_line_1: optStr,
    address_line_2: optStr,
    address_line_3: optStr,
    address_town_city: optStr,
    address_county: optStr,
    address_country: countryOut,
    address_post_zip_code: optStr,
    default: optBool,
    created_at: optStr,
    updated_at: optStr,
  }),
);
export type Location = z.output<typeof LocationSchema>;

export const TokenUserSchema = deferred(() =>
  z.looseObject({
    id: str,
    user_type: optStr,
    first_name: optStr,
    last_name: optStr,
    email: optStr,
    account_name: optStr,
    merchant_id: optStr,
  }),
);
export type TokenUser = z.output<typeof TokenUserSchema>;

/** `data` of POST /tokens; `user` is missing in real responses seen so far. */
export const TokenResultSchema = deferred(() =>
  z.looseObject({ token: str, user: TokenUserSchema.nullish() }),
);
export type TokenResult = z.output<typeof TokenResultSchema>;

export const ShipmentResponseSchema = deferred(() =>
  z.looseObject({
    id: optStr,
    shipment_reference: str,
    parcel_reference: optStr,
    carrier: optStr,
    service_name: optStr,
    tracking_reference: optStr,
    universal_tracking_reference: optStr,
    created_by: optStr,
    created_with: optStr,
    created_at: optStr,
    price: money.nullish(),
    estimated_delivery_date: optStr,
    weight: optInt,
    container_reference: optStr,
    to_address: ResponseAddressSchema.nullish(),
    despatch_location: z.union([LocationSchema, z.string()]).nullish(),
    pdf: optStr,
    zpl: optStr,
    png: pngList.optional(),
  }),
);
export type ShipmentResponse = z.output<typeof ShipmentResponseSchema>;

export const ServiceQuoteSchema = deferred(() =>
  z.looseObject({
    carrier: optStr,
    carrier_account: optStr,
    service_name: optStr,
    full_service_name: optStr,
    service_key: str,
    base_price: money.nullish(),
    additional_parcel_price: money.nullish(),
    surcharges: money.nullish(),
    fuel_surcharge: money.nullish(),
    total_price: money.nullish(),
    estimated_delivery_date: optStr,
  }),
);
export type ServiceQuote = z.output<typeof ServiceQuoteSchema>;

/** `data` of POST /shipments/get-services. */
export const ServiceQuotesSchema = deferred(() =>
  z.looseObject({
    recommended_service: ServiceQuoteSchema.nullish(),
    services: z.array(ServiceQuoteSchema).nullish().transform((v) => v ?? []),
  }),
);
export type ServiceQuotes = z.output<typeof ServiceQuotesSchema>;

export const TRACKING_EVENT_TYPES = ['LABEL_CREATED', 'MANIFESTED', 'COLLECTED', 'IN_TRANSIT', 'DELIVERED', 'DELIVERY_FAILED'] as const;
export type TrackingEventType = (typeof TRACKING_EVENT_TYPES)[number];

export const TrackingEventSchema = deferred(() =>
  z.looseObject({
    code: optStr,
    name: optStr,
    description: optStr,
    date: optStr,
    // Kept as plain text: a new carrier stage must not break tracking output.
    type: optStr,
  }),
);
export type TrackingEvent = z.output<typeof TrackingEventSchema>;

export const ParcelEventsSchema = deferred(() =>
  z.looseObject({
    shipment_reference: optStr,
    courier_tracking_reference: optStr,
    tracking_events: z.array(TrackingEventSchema).nullish().transform((v) => v ?? []),
  }),
);
export type ParcelEvents = z.output<typeof ParcelEventsSchema>;

/** `data` of GET /shipments/:ref/events: keyed by each parcel's carrier tracking reference. */
export const ShipmentEventsSchema = deferred(() =>
  z.record(z.string(), ParcelEventsSchema),
);
export type ShipmentEvents = z.output<typeof ShipmentEventsSchema>;

export const LabelSchema = deferred(() =>
  z.looseObject({
    shipment_reference: optStr,
    parcel_reference: optStr,
    carrier: optStr,
    service_name: optStr,
    tracking_reference: optStr,
    created_by: optStr,
    created_with: optStr,
    created_at: optStr,
    to_address: ResponseAddressSchema.nullish(),
    pdf: optStr,
    zpl: optStr,
    // One base64 PNG per label; a one-element array (as in shipment responses) is unwrapped.
    png: z
      .union([z.string(), z.array(z.string()), z.null()])
      .transform((v): string | string[] => (v === null ? '' : Array.isArray(v) && v.length <= 1 ? (v[0] ?? '') : v))
      .optional(),
  }),
);
export type Label = z.output<typeof LabelSchema>;

export const UserSchema = deferred(() =>
  z.looseObject({
    id: str,
    title: optStr,
    first_name: optStr,
    last_name: optStr,
    email: optStr,
    profile_image_url: optStr,
    location: z.union([LocationSchema, z.string()]).nullish(),
    access_level: optStr,
    printer_online: optBool,
  }),
);
export type User = z.output<typeof UserSchema>;

export const BrandSchema = deferred(() =>
  z.looseObject({
    id: str,
    name: optStr,
    key: optStr,
    return_address_line_1: optStr,
    return_address_line_2: optStr,
    return_address_line_3: optStr,
    return_address_town_city: optStr,
    return_address_county: optStr,
    return_address_postcode: optStr,
    return_address_country: countryOut,
    return_phone: optStr,
    return_email: optStr,
    profile_image_url: optStr,
    customer_despatch_notes: optStr,
    default: optBool,
    tracking_portal_base_url: optStr,
  }),
);
export type Brand = z.output<typeof BrandSchema>;

/** A service condition: documented as a triple; seen as an array or as an object. */
export const ServiceConditionSchema = deferred(() =>
  z.union([
    z.tuple([z.string(), z.string(), z.union([z.string(), z.number()])]).rest(z.unknown()),
    z.looseObject({ field: optStr, operator: optStr, value: z.union([z.string(), z.number()]).nullish() }),
  ]),
);
export type ServiceCondition = z.output<typeof ServiceConditionSchema>;

export const DeliveryServiceSchema = deferred(() =>
  z.looseObject({
    id: optStr,
    carrier: optStr,
    name: optStr,
    description: optStr,
    key: str,
    price: money.nullish(),
    conditions: z.array(ServiceConditionSchema).nullish().transform((v) => v ?? []),
  }),
);
export type DeliveryService = z.output<typeof DeliveryServiceSchema>;

export const ValidationRulesSchema = deferred(() =>
  z.looseObject({
    is_required: z.union([z.boolean(), z.number()]).nullish(),
    min_length: optInt,
    max_length: optInt,
    regex: optStr,
    options: optStr,
    numeric_type: optStr,
    min_value: z.union([z.number(), z.string()]).nullish(),
    max_value: z.union([z.number(), z.string()]).nullish(),
  }),
);

export const CustomFieldSchema = deferred(() =>
  z.looseObject({
    id: optStr,
    name: optStr,
    key: str,
    // Listings were seen with ORDER too, so any text is accepted here.
    entity: optStr,
    data_type: optStr,
    source: optStr,
    mapped_to: optStr,
    default_value: z.union([z.string(), z.number(), z.boolean()]).nullish(),
    data_validation_rules: z.union([ValidationRulesSchema, z.array(z.unknown())]).nullish(),
  }),
);
export type CustomField = z.output<typeof CustomFieldSchema>;

export const PackagingTypeSchema = deferred(() =>
  z.looseObject({
    name: optStr,
    key: str,
    default: optBool,
    internal_width: optInt,
    internal_height: optInt,
    internal_depth: optInt,
    external_width: optInt,
    external_height: optInt,
    external_depth: optInt,
    max_weight: optInt,
    default_weight: optInt,
    packaging_weight: optInt,
  }),
);
export type PackagingType = z.output<typeof PackagingTypeSchema>;

export const PackagingOptionsSchema = deferred(() =>
  z.looseObject({
    net_weight: optBool,
    allow_override: optBool,
    packaging_types: z.array(PackagingTypeSchema).nullish().transform((v) => v ?? []),
  }),
);
export type PackagingOptions = z.output<typeof PackagingOptionsSchema>;

export const SkuSchema = deferred(() =>
  z.looseObject({
    id: optStr,
    sku: str,
    image_url: optStr,
    product_name: optStr,
    outer_barcode: optStr,
    inner_barcode: optStr,
    product_code: optStr,
    description_short: optStr,
    description_full: optStr,
    department: optStr,
    category: optStr,
    location: z.union([LocationSchema, z.string()]).nullish(),
    warehouse_location: optStr,
    tariff_code: optStr,
    tariff_description: optStr,
    country_of_origin: countryOut,
    manufacturer_name: optStr,
    part_number: optStr,
    value_ex_vat: money.nullish(),
    vat_rate: money.nullish(),
    value_inc_vat: money.nullish(),
    gross_weight: optInt,
    net_weight: optInt,
    width: optInt,
    length: optInt,
    depth: optInt,
    active: z.union([z.boolean(), z.number()]).nullish(),
    is_stocked_item: z.union([z.boolean(), z.number()]).nullish(),
    in_stock: z.union([z.boolean(), z.number()]).nullish(),
    custom_fields: z.union([z.record(z.string(), z.unknown()), z.array(z.unknown())]).nullish(),
    item_handling: optStr,
    created_at: optStr,
    updated_at: optStr,
  }),
);
export type Sku = z.output<typeof SkuSchema>;

export const SkuLinksSchema = deferred(() =>
  z.looseObject({ first: optStr, last: optStr, prev: optStr, next: optStr }),
);
export const SkuMetaSchema = deferred(() =>
  z.looseObject({
    current_page: optInt,
    from: optInt,
    last_page: optInt,
    path: optStr,
    per_page: optInt,
    to: optInt,
    total: optInt,
  }),
);

/** Whole body of GET /skus (no envelope message): one page of 30. */
export const SkuPageSchema = deferred(() =>
  z.looseObject({
    data: z.array(SkuSchema),
    links: SkuLinksSchema.nullish().transform((v) => v ?? {}),
    meta: SkuMetaSchema.nullish().transform((v) => v ?? {}),
  }),
);
export type SkuPage = z.output<typeof SkuPageSchema>;

export const ContainerSchema = deferred(() =>
  z.looseObject({
    id: optStr,
    reference: str,
    despatch_date: optStr,
    despatch_location: z.union([LocationSchema, z.string()]).nullish(),
    delivery_service_key: optStr,
    carrier: optStr,
    carrier_account: optStr,
    service_name: optStr,
    full_service_name: optStr,
    tracking_reference: optStr,
    consolidation_reference: optStr,
    clearance_country: countryOut,
    clearance_location: optStr,
    clearance_location_name: optStr,
    max_parcels: optInt,
    max_items: optInt,
    max_weight: optInt,
    max_value: optInt,
    value_currency: optStr,
    parcels: optInt,
    items: optInt,
    weight: optInt,
    value: optInt,
    status: optStr,
  }),
);
export type Container = z.output<typeof ContainerSchema>;

export const ContainerShipmentSchema = deferred(() =>
  z.looseObject({
    id: optStr,
    reference: optStr,
    tracking_reference: optStr,
    parcels: optInt,
    items: optInt,
    weight: optInt,
    value: optInt,
  }),
);
export type ContainerShipment = z.output<typeof ContainerShipmentSchema>;
