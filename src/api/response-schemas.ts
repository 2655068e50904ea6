// zod schemas of the API's responses, lenient: unknown fields kept, money normalised, "may be null" respected.
// Written with zod/mini: the same parsers (zod's core) as the classic API of schemas.ts, without its methods.
// A command that parses an answer with zod and sends no body (`skus get`, `containers get`, an answer a fast
// parser gave up on) loads zod's core and these, ~190 KB, not the request schemas and classic zod besides
// (~420 KB as one `import { z }` chunk): `skus get` ~25 ms faster on Node 20, ~10 on Node 24. The same output
// and messages as the classic schemas had; but no JIT-compiled object parser (zod/mini's objects are
// interpreted; few responses reach zod at all) and no default locale (set below).
import * as z from 'zod/mini';
import { deferred } from './deferred.js';
import { toMoney } from './money.js';

// Classic zod installs its English messages on first use; zod/mini leaves them out. The same messages as
// before in the warnings for odd answers (the configuration is zod's own, shared with classic zod).
if (!z.config().localeError) z.config(z.locales.en());

export { toMoney };

/** Money in a response: string or number in, `0.00` string out. */
const money = z.pipe(z.union([z.string(), z.number()]), z.transform(toMoney));
const str = z.string();
const optStr = z.nullish(z.string());
const optInt = z.nullish(z.number());
const optBool = z.nullish(z.boolean());

/** A list the service may send as null or leave out: its elements parsed, or a new [] for none. */
function listOrNone<T extends z.core.SomeType>(element: T) {
  return z.pipe(
    z.nullish(z.array(element)),
    z.transform((v: Array<z.output<T>> | null | undefined): Array<z.output<T>> => v ?? []),
  );
}

/** Base64 image list: the document says array, the service sends "" when not requested. */
const pngList = z.pipe(
  z.union([z.array(z.string()), z.string(), z.null()]),
  z.transform((v: string[] | string | null): string[] => (v === null || v === '' ? [] : typeof v === 'string' ? [v] : v)),
);

export const CountrySchema = deferred(() =>
  z.looseObject({ code: optStr, name: optStr }),
);
export type Country = z.output<typeof CountrySchema>;

/** Country in a response: object form, or a bare code as older records have it. */
const countryOut = z.nullish(z.union([CountrySchema, z.string()]));

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
  z.looseObject({ token: str, user: z.nullish(TokenUserSchema) }),
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
    price: z.nullish(money),
    estimated_delivery_date: optStr,
    weight: optInt,
    container_reference: optStr,
    to_address: z.nullish(ResponseAddressSchema),
    despatch_location: z.nullish(z.union([LocationSchema, z.string()])),
    pdf: optStr,
    zpl: optStr,
    png: z.optional(pngList),
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
    base_price: z.nullish(money),
    additional_parcel_price: z.nullish(money),
    surcharges: z.nullish(money),
    fuel_surcharge: z.nullish(money),
    total_price: z.nullish(money),
    estimated_delivery_date: optStr,
  }),
);
export type ServiceQuote = z.output<typeof ServiceQuoteSchema>;

/** `data` of POST /shipments/get-services. */
export const ServiceQuotesSchema = deferred(() =>
  z.looseObject({
    recommended_service: z.nullish(ServiceQuoteSchema),
    services: listOrNone(ServiceQuoteSchema),
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
    tracking_events: listOrNone(TrackingEventSchema),
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
    to_address: z.nullish(ResponseAddressSchema),
    pdf: optStr,
    zpl: optStr,
    // One base64 PNG per label; a one-element array (as in shipment responses) is unwrapped.
    png: z.optional(
      z.pipe(
        z.union([z.string(), z.array(z.string()), z.null()]),
        z.transform((v: string | string[] | null): string | string[] => (v === null ? '' : Array.isArray(v) && v.length <= 1 ? (v[0] ?? '') : v)),
      ),
    ),
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
    location: z.nullish(z.union([LocationSchema, z.string()])),
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
    z.tuple([z.string(), z.string(), z.union([z.string(), z.number()])], z.unknown()),
    z.looseObject({ field: optStr, operator: optStr, value: z.nullish(z.union([z.string(), z.number()])) }),
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
    price: z.nullish(money),
    conditions: listOrNone(ServiceConditionSchema),
  }),
);
export type DeliveryService = z.output<typeof DeliveryServiceSchema>;

export const ValidationRulesSchema = deferred(() =>
  z.looseObject({
    is_required: z.nullish(z.union([z.boolean(), z.number()])),
    min_length: optInt,
    max_length: optInt,
    regex: optStr,
    options: optStr,
    numeric_type: optStr,
    min_value: z.nullish(z.union([z.number(), z.string()])),
    max_value: z.nullish(z.union([z.number(), z.string()])),
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
    default_value: z.nullish(z.union([z.string(), z.number(), z.boolean()])),
    data_validation_rules: z.nullish(z.union([ValidationRulesSchema, z.array(z.unknown())])),
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
    packaging_types: listOrNone(PackagingTypeSchema),
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
    location: z.nullish(z.union([LocationSchema, z.string()])),
    warehouse_location: optStr,
    tariff_code: optStr,
    tariff_description: optStr,
    country_of_origin: countryOut,
    manufacturer_name: optStr,
    part_number: optStr,
    value_ex_vat: z.nullish(money),
    vat_rate: z.nullish(money),
    value_inc_vat: z.nullish(money),
    gross_weight: optInt,
    net_weight: optInt,
    width: optInt,
    length: optInt,
    depth: optInt,
    active: z.nullish(z.union([z.boolean(), z.number()])),
    is_stocked_item: z.nullish(z.union([z.boolean(), z.number()])),
    in_stock: z.nullish(z.union([z.boolean(), z.number()])),
    custom_fields: z.nullish(z.union([z.record(z.string(), z.unknown()), z.array(z.unknown())])),
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
    links: z.pipe(z.nullish(SkuLinksSchema), z.transform((v) => v ?? {})),
    meta: z.pipe(z.nullish(SkuMetaSchema), z.transform((v) => v ?? {})),
  }),
);
export type SkuPage = z.output<typeof SkuPageSchema>;

export const ContainerSchema = deferred(() =>
  z.looseObject({
    id: optStr,
    reference: str,
    despatch_date: optStr,
    despatch_location: z.nullish(z.union([LocationSchema, z.string()])),
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
