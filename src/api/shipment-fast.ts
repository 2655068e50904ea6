// A fast path for the answer of POST /shipments: a bulk `create --csv` parses one per shipment, and zod
// (ShipmentResponseSchema) cost ~24 µs each. Like sku-fast.ts, this gives ShipmentResponseSchema's output for
// a shipment that matches it (same keys in the same order, money normalised, png as a list, unknown fields
// kept) and gives up (undefined) on anything else, which then goes through the schema as before, with the
// same warnings. test/api/shipment-fast.test.ts holds it to the schema on varied inputs.
import type { ShipmentResponse } from './schemas.js';
import { compile, COUNTRY_FIELDS, LOCATION_FIELDS, parseObject, type FastParseOptions, type Shape } from './sku-fast.js';

/** ResponseAddressSchema. */
export const RESPONSE_ADDRESS_FIELDS: Shape = {
  delivery_name: 'optString',
  name: 'optString',
  company_name: 'optString',
  line_1: 'optString',
  line_2: 'optString',
  line_3: 'optString',
  city: 'optString',
  county: 'optString',
  postcode: 'optString',
  country: { objectOrString: COUNTRY_FIELDS },
};

/** ShipmentResponseSchema. */
export const SHIPMENT_RESPONSE_FIELDS: Shape = {
  id: 'optString',
  shipment_reference: 'string',
  parcel_reference: 'optString',
  carrier: 'optString',
  service_name: 'optString',
  tracking_reference: 'optString',
  universal_tracking_reference: 'optString',
  created_by: 'optString',
  created_with: 'optString',
  created_at: 'optString',
  price: 'money',
  estimated_delivery_date: 'optString',
  weight: 'optNumber',
  container_reference: 'optString',
  to_address: { object: RESPONSE_ADDRESS_FIELDS },
  despatch_location: { objectOrString: LOCATION_FIELDS },
  pdf: 'optString',
  zpl: 'optString',
  png: 'pngList',
};

const SHIPMENT = compile(SHIPMENT_RESPONSE_FIELDS);

/** ShipmentResponseSchema's output for an element of a create answer that matches it; undefined: parse it with zod. */
export function fastShipmentResponse(input: unknown, opts?: FastParseOptions): ShipmentResponse | undefined {
  return parseObject(SHIPMENT, input, opts) as ShipmentResponse | undefined;
}
