import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CountrySchema, LocationSchema, ResponseAddressSchema, ShipmentResponseSchema } from '../../src/api/schemas.js';
import { COUNTRY_FIELDS, LOCATION_FIELDS } from '../../src/api/sku-fast.js';
import { fastShipmentResponse, RESPONSE_ADDRESS_FIELDS, SHIPMENT_RESPONSE_FIELDS } from '../../src/api/shipment-fast.js';
import { expectSameAsSchema, expectSameAsSchemaReusing, fieldVariants, missedByFast, type NestedField, VALUES } from './fast-parser.js';

// The real answer of POST /shipments (API notes), one element per parcel.
const example = JSON.parse(readFileSync(join(import.meta.dirname, 'examples', 'post-shipments.response.json'), 'utf8')) as {
  data: Array<Record<string, unknown>>;
};
const real = example.data[0];

// The same with every optional part the schema knows filled in (as the sandbox and other carriers send).
const full: Record<string, unknown> = {
  ...real,
  weight: 1200,
  container_reference: null,
  price: 4.5,
  to_address: { delivery_name: 'A', name: 'B', company_name: null, line_1: '1 Road', city: 'Derby', postcode: 'DE1 1AA', country: { code: 'GB', name: 'United Kingdom' } },
  despatch_location: {
    id: '5c2d1e0f',
    code: 'WH1',
    name: 'Derby Warehouse',
    address_country: { code: 'GB', name: 'United Kingdom' },
    default: true,
  },
  png: ['iVBORw0KGgo='],
  carrier_extra: { x: [1, 2] },
};

// The shared values plus the ones that matter to prices, label lists and addresses.
const values: unknown[] = [...VALUES, '7.5', Number.NaN, ['a'], ['a', 'b'], { line_1: 'x', country: 'FR' }, { line_1: 3 }];

/** Each base with one field (or one nested field) changed, each way; plus unknown keys and odd shapes. */
function* variants(): Generator<unknown> {
  const keys = [...Object.keys(SHIPMENT_RESPONSE_FIELDS), 'brand_new_field'];
  const nested: NestedField[] = [
    ['to_address', [...Object.keys(RESPONSE_ADDRESS_FIELDS), 'extra'], full.to_address as Record<string, unknown>],
    ['despatch_location', [...Object.keys(LOCATION_FIELDS), 'dock'], full.despatch_location as Record<string, unknown>],
  ];
  for (const base of [real, full]) yield* fieldVariants(base, keys, nested, values);
  yield JSON.parse('{"shipment_reference":"P","__proto__":{"polluted":true}}');
  yield JSON.parse('{"shipment_reference":"P","to_address":{"__proto__":{"x":1}}}');
  yield null;
  yield 'FBJYSHC7WTRQEA14';
  yield [real];
}

describe('fastShipmentResponse', () => {
  it('knows exactly the fields of ShipmentResponseSchema and its nested schemas', () => {
    expect(Object.keys(SHIPMENT_RESPONSE_FIELDS)).toEqual(Object.keys(ShipmentResponseSchema.shape));
    expect(Object.keys(RESPONSE_ADDRESS_FIELDS)).toEqual(Object.keys(ResponseAddressSchema.shape));
    expect(Object.keys(LOCATION_FIELDS)).toEqual(Object.keys(LocationSchema.shape));
    expect(Object.keys(COUNTRY_FIELDS)).toEqual(Object.keys(CountrySchema.shape));
  });

  it('gives what ShipmentResponseSchema gives for the real example answer', () => {
    const z = ShipmentResponseSchema.safeParse(real);
    expect(z.success).toBe(true);
    const f = fastShipmentResponse(real);
    expect(f).toBeDefined();
    expect(JSON.stringify(f)).toBe(JSON.stringify(z.data));
    expect(f).toStrictEqual(z.data);
    // The "" png of the real answer is an empty list, as the schema makes it.
    expect(f!.png).toEqual([]);
    expect(f!.zpl).toBe(real.zpl);
  });

  it('gives what ShipmentResponseSchema gives, or leaves the element to the schema', () => {
    const fast = expectSameAsSchema(ShipmentResponseSchema, fastShipmentResponse, variants());
    expect(fast).toBeGreaterThan(400);
  });

  it('takes every element that ShipmentResponseSchema accepts, except the rare `__proto__` key', () => {
    const missed = missedByFast(ShipmentResponseSchema, fastShipmentResponse, variants());
    expect(missed).toEqual([]);
  });

  it('with reuse (a response body nothing else reads): the same output, the input itself handed back when it can be', () => {
    const r = expectSameAsSchemaReusing(ShipmentResponseSchema, (x) => fastShipmentResponse(x, { reuse: true }), variants());
    expect(r.answered).toBeGreaterThan(100);
    // Answers whose keys come in the schema's order are the input itself; the others are new objects in zod's order.
    expect(r.reused).toBeGreaterThan(100);
  });

  it('never hands back the input objects themselves where zod makes copies', () => {
    const input = structuredClone(full);
    const f = fastShipmentResponse(input)!;
    expect(f).not.toBe(input);
    expect(f.png).not.toBe(input.png);
    expect(f.to_address).not.toBe(input.to_address);
    expect(f.price).toBe('4.50');
  });
});
