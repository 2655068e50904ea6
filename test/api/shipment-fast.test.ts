import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CountrySchema, LocationSchema, ResponseAddressSchema, ShipmentResponseSchema } from '../../src/api/schemas.js';
import { COUNTRY_FIELDS, LOCATION_FIELDS } from '../../src/api/sku-fast.js';
import { fastShipmentResponse, RESPONSE_ADDRESS_FIELDS, SHIPMENT_RESPONSE_FIELDS } from '../../src/api/shipment-fast.js';

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

const VALUES: unknown[] = [
  null,
  undefined,
  '',
  'x',
  ' 12 ',
  '7.5',
  'N/A',
  0,
  -3,
  1.5,
  Number.NaN,
  true,
  false,
  {},
  [],
  ['a'],
  ['a', 'b'],
  [1, 'a'],
  { a: 1, b: [2] },
  { code: 'FR' },
  { code: 5 },
  { id: 'L2', address_country: 'DE', extra: { deep: 1 } },
  { id: 7 },
  { name: 'no id' },
  { line_1: 'x', country: 'FR' },
  { line_1: 3 },
];

/** Each base with one field (or one nested field) changed, each way; plus unknown keys and odd shapes. */
function* variants(): Generator<unknown> {
  for (const base of [real, full]) {
    yield base;
    for (const key of [...Object.keys(SHIPMENT_RESPONSE_FIELDS), 'brand_new_field']) {
      for (const v of VALUES) {
        const copy: Record<string, unknown> = { ...base };
        if (v === undefined) delete copy[key];
        else copy[key] = v;
        yield copy;
        if (v === undefined) yield { ...base, [key]: undefined };
      }
    }
    for (const [field, keys] of [
      ['to_address', [...Object.keys(RESPONSE_ADDRESS_FIELDS), 'extra']],
      ['despatch_location', [...Object.keys(LOCATION_FIELDS), 'dock']],
    ] as const) {
      for (const key of keys) {
        for (const v of VALUES) {
          const nested: Record<string, unknown> = { ...((full[field] as Record<string, unknown>) ?? {}) };
          if (v === undefined) delete nested[key];
          else nested[key] = v;
          yield { ...base, [field]: nested };
        }
      }
    }
    // Unknown keys first, shape keys in another order: the output order must still be zod's.
    yield Object.fromEntries(Object.entries({ zzz: 1, ...base }).reverse());
  }
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
    let fast = 0;
    for (const input of variants()) {
      const z = ShipmentResponseSchema.safeParse(input);
      const f = fastShipmentResponse(input);
      if (f === undefined) continue;
      fast++;
      expect(z.success, JSON.stringify(input)).toBe(true);
      // Same keys in the same order, same values, same prototypes.
      expect(Object.keys(f)).toEqual(Object.keys(z.data!));
      expect(JSON.stringify(f)).toBe(JSON.stringify(z.data));
      expect(f).toStrictEqual(z.data);
    }
    expect(fast).toBeGreaterThan(400);
  });

  it('takes every element that ShipmentResponseSchema accepts, except the rare `__proto__` key', () => {
    const missed: unknown[] = [];
    for (const input of variants()) {
      if (ShipmentResponseSchema.safeParse(input).success && fastShipmentResponse(input) === undefined && !JSON.stringify(input).includes('__proto__')) {
        missed.push(input);
      }
    }
    expect(missed).toEqual([]);
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
