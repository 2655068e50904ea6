// A fast path for the reference data scripts read most (`ship services`, `locations`, `brands`, `users`,
// `packaging`, `custom-fields`): one small answer per run, for which loading zod and the schemas was ~45 ms
// of a ~180 ms `ship services` on Node 20, ~25 of ~140 on Node 24 (zod/mini, response-schemas.ts, saved about
// half of it; these the rest). Like sku-fast.ts, these give the schema's output for an answer that matches it
// and give up (undefined) on anything else, which then goes through the schema as before, with the same warnings.
// test/api/reference-fast.test.ts holds them to the schemas on varied inputs.
import type { Brand, CustomField, DeliveryService, Location, PackagingOptions, User } from './response-schemas.js';
import { compile, COUNTRY_FIELDS, LOCATION_FIELDS, parseObject, type FastParseOptions, type Shape } from './sku-fast.js';

/** ServiceConditionSchema's object form (its triple form is checked by the `conditions` field kind). */
export const SERVICE_CONDITION_FIELDS: Shape = { field: 'optString', operator: 'optString', value: 'stringOrNumber' };

/** DeliveryServiceSchema. */
export const DELIVERY_SERVICE_FIELDS: Shape = {
  id: 'optString',
  carrier: 'optString',
  name: 'optString',
  description: 'optString',
  key: 'string',
  price: 'money',
  conditions: { conditions: SERVICE_CONDITION_FIELDS },
};

/** UserSchema. */
export const USER_FIELDS: Shape = {
  id: 'string',
  title: 'optString',
  first_name: 'optString',
  last_name: 'optString',
  email: 'optString',
  profile_image_url: 'optString',
  location: { objectOrString: LOCATION_FIELDS },
  access_level: 'optString',
  printer_online: 'optBoolean',
};

/** BrandSchema. */
export const BRAND_FIELDS: Shape = {
  id: 'string',
  name: 'optString',
  key: 'optString',
  return_address_line_1: 'optString',
  return_address_line_2: 'optString',
  return_address_line_3: 'optString',
  return_address_town_city: 'optString',
  return_address_county: 'optString',
  return_address_postcode: 'optString',
  return_address_country: { objectOrString: COUNTRY_FIELDS },
  return_phone: 'optString',
  return_email: 'optString',
  profile_image_url: 'optString',
  customer_despatch_notes: 'optString',
  default: 'optBoolean',
  tracking_portal_base_url: 'optString',
};

/** ValidationRulesSchema. */
export const VALIDATION_RULES_FIELDS: Shape = {
  is_required: 'boolOrNumber',
  min_length: 'optNumber',
  max_length: 'optNumber',
  regex: 'optString',
  options: 'optString',
  numeric_type: 'optString',
  min_value: 'stringOrNumber',
  max_value: 'stringOrNumber',
};

/** CustomFieldSchema. */
export const CUSTOM_FIELD_FIELDS: Shape = {
  id: 'optString',
  name: 'optString',
  key: 'string',
  entity: 'optString',
  data_type: 'optString',
  source: 'optString',
  mapped_to: 'optString',
  default_value: 'scalar',
  data_validation_rules: { objectOrList: VALIDATION_RULES_FIELDS },
};

/** PackagingTypeSchema. */
export const PACKAGING_TYPE_FIELDS: Shape = {
  name: 'optString',
  key: 'string',
  default: 'optBoolean',
  internal_width: 'optNumber',
  internal_height: 'optNumber',
  internal_depth: 'optNumber',
  external_width: 'optNumber',
  external_height: 'optNumber',
  external_depth: 'optNumber',
  max_weight: 'optNumber',
  default_weight: 'optNumber',
  packaging_weight: 'optNumber',
};

/** PackagingOptionsSchema. */
export const PACKAGING_OPTIONS_FIELDS: Shape = {
  net_weight: 'optBoolean',
  allow_override: 'optBoolean',
  packaging_types: { list: PACKAGING_TYPE_FIELDS },
};

const SERVICE = compile(DELIVERY_SERVICE_FIELDS);
const LOCATION = compile(LOCATION_FIELDS);
const USER = compile(USER_FIELDS);
const BRAND = compile(BRAND_FIELDS);
const CUSTOM_FIELD = compile(CUSTOM_FIELD_FIELDS);
const PACKAGING_OPTIONS = compile(PACKAGING_OPTIONS_FIELDS);

/** DeliveryServiceSchema's output for a service that matches it; undefined: parse it with zod. */
export function fastDeliveryService(input: unknown, opts?: FastParseOptions): DeliveryService | undefined {
  return parseObject(SERVICE, input, opts) as DeliveryService | undefined;
}

/** LocationSchema's output for a location that matches it; undefined: parse it with zod. */
export function fastLocation(input: unknown, opts?: FastParseOptions): Location | undefined {
  return parseObject(LOCATION, input, opts) as Location | undefined;
}

/** UserSchema's output for a user that matches it; undefined: parse it with zod. */
export function fastUser(input: unknown, opts?: FastParseOptions): User | undefined {
  return parseObject(USER, input, opts) as User | undefined;
}

/** BrandSchema's output for a brand that matches it; undefined: parse it with zod. */
export function fastBrand(input: unknown, opts?: FastParseOptions): Brand | undefined {
  return parseObject(BRAND, input, opts) as Brand | undefined;
}

/** CustomFieldSchema's output for a custom field that matches it; undefined: parse it with zod. */
export function fastCustomField(input: unknown, opts?: FastParseOptions): CustomField | undefined {
  return parseObject(CUSTOM_FIELD, input, opts) as CustomField | undefined;
}

/** PackagingOptionsSchema's output for packaging options that match it; undefined: parse them with zod. */
export function fastPackagingOptions(input: unknown, opts?: FastParseOptions): PackagingOptions | undefined {
  return parseObject(PACKAGING_OPTIONS, input, opts) as PackagingOptions | undefined;
}
