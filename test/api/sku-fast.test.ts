import { describe, expect, it } from 'vitest';
import { CountrySchema, LocationSchema, SkuLinksSchema, SkuMetaSchema, SkuSchema } from '../../src/api/schemas.js';
import { COUNTRY_FIELDS, fastSku, fastSkuLinks, fastSkuMeta, LOCATION_FIELDS, SKU_FIELDS, SKU_LINKS_FIELDS, SKU_META_FIELDS } from '../../src/api/sku-fast.js';
import { expectSameAsSchema, expectSameAsSchemaReusing, fieldVariants, missedByFast, VALUES } from './fast-parser.js';

// A SKU as GET /skus sends it (sandbox and API notes), nested location and country included.
const base = {
  id: 'e4d3c2b1-a0f9-4e8d-b7c6-a5b4c3d2e101',
  sku: 'MUG-001',
  image_url: null,
  product_name: 'Ceramic Mug',
  outer_barcode: null,
  inner_barcode: null,
  product_code: null,
  description_short: 'Ceramic mug',
  description_full: 'Stoneware ceramic mug, 350ml',
  department: 'Kitchen',
  category: 'Drinkware',
  location: {
    id: '5c2d1e0f',
    code: 'WH1',
    name: 'Derby Warehouse',
    type: 'OTHER',
    telephone: '01332 000111',
    email: null,
    address_name: 'Sandbox Trading Ltd',
    address_line_1: 'Unit 4',
    address_line_2: 'Ford Street',
    address_line_3: null,
    address_town_city: 'Derby',
    address_county: 'Derbyshire',
    address_country: { code: 'GB', name: 'United Kingdom' },
    address_post_zip_code: 'DE1 1EE',
    default: true,
    created_at: '2026-11-21 07:33:24',
    updated_at: '2026-11-21 07:33:24',
  },
  warehouse_location: 'A1-01',
  tariff_code: '6912002310',
  tariff_description: 'Ceramic tableware',
  country_of_origin: { code: 'GB', name: 'United Kingdom' },
  manufacturer_name: null,
  part_number: null,
  value_ex_vat: '8.33',
  vat_rate: 20,
  value_inc_vat: '10',
  gross_weight: 420,
  net_weight: 350,
  width: 90,
  length: 120,
  depth: 100,
  active: true,
  is_stocked_item: 1,
  in_stock: false,
  custom_fields: {},
  item_handling: 'PACKABLE',
  created_at: '2026-11-21 07:33:24',
  updated_at: '2026-11-21 07:33:24',
};

/** The base SKU with one field (or one location field) changed, each way; plus unknown keys and odd shapes. */
function* variants(): Generator<unknown> {
  yield* fieldVariants(base, [...Object.keys(SKU_FIELDS), 'brand_new_field'], [['location', [...Object.keys(LOCATION_FIELDS), 'dock'], base.location]], VALUES);
  yield JSON.parse('{"sku":"P","__proto__":{"polluted":true}}');
  yield JSON.parse('{"sku":"P","custom_fields":{"__proto__":{"x":1}}}');
  yield null;
  yield 'MUG-001';
  yield [base];
}

describe('fastSku', () => {
  it('knows exactly the fields of SkuSchema, LocationSchema and CountrySchema', () => {
    expect(Object.keys(SKU_FIELDS)).toEqual(Object.keys(SkuSchema.shape));
    expect(Object.keys(LOCATION_FIELDS)).toEqual(Object.keys(LocationSchema.shape));
    expect(Object.keys(COUNTRY_FIELDS)).toEqual(Object.keys(CountrySchema.shape));
  });

  it('gives what SkuSchema gives, or leaves the SKU to SkuSchema', () => {
    const fast = expectSameAsSchema(SkuSchema, fastSku, variants());
    // The fast path must carry the ordinary SKUs, not just step aside (hundreds of the variants are valid).
    expect(fast).toBeGreaterThan(300);
  });

  it('takes every SKU that SkuSchema accepts, except the rare `__proto__` key', () => {
    const missed = missedByFast(SkuSchema, fastSku, variants());
    expect(missed).toEqual([]);
  });

  it('with reuse (a response body nothing else reads): the same output, the input itself handed back when it can be', () => {
    const r = expectSameAsSchemaReusing(SkuSchema, (x) => fastSku(x, { reuse: true }), variants());
    expect(r.answered).toBeGreaterThan(300);
    // Nearly every answer is the input, normalised in place (only out-of-order keys need a new object).
    expect(r.reused).toBeGreaterThan(r.answered - 10);
    const input = structuredClone(base);
    const f = fastSku(input, { reuse: true })!;
    expect(f).toBe(input);
    expect(f.location).toBe(input.location);
    expect(f.vat_rate).toBe('20.00');
    // Without reuse the input is never touched.
    const untouched = structuredClone(base);
    expect(fastSku(untouched)).not.toBe(untouched);
    expect(untouched).toEqual(base);
  });

  it('normalises money and keeps unknown fields', () => {
    const f = fastSku({ sku: 'A', value_ex_vat: 8, vat_rate: ' 20 ', value_inc_vat: 'N/A', extra: { x: 1 } });
    expect(f).toEqual({ sku: 'A', value_ex_vat: '8.00', vat_rate: '20.00', value_inc_vat: 'N/A', extra: { x: 1 } });
  });
});

describe('fastSkuLinks and fastSkuMeta (the rest of a GET /skus page)', () => {
  const links = { first: 'http://h/v1.2/skus?page=1', last: 'http://h/v1.2/skus?page=334', prev: null, next: 'http://h/v1.2/skus?page=2' };
  const meta = { current_page: 1, from: 1, last_page: 334, path: 'http://h/v1.2/skus', per_page: 30, to: 30, total: 10000 };
  function* pageVariants(b: Record<string, unknown>, keys: readonly string[]): Generator<unknown> {
    yield* fieldVariants(b, [...keys, 'brand_new_field'], [], VALUES);
    yield { ...b, links: [] };
    yield JSON.parse('{"__proto__":{"polluted":true}}');
    yield {};
    yield null;
    yield [b];
  }

  it('knows exactly the fields of SkuLinksSchema and SkuMetaSchema', () => {
    expect(Object.keys(SKU_LINKS_FIELDS)).toEqual(Object.keys(SkuLinksSchema.shape));
    expect(Object.keys(SKU_META_FIELDS)).toEqual(Object.keys(SkuMetaSchema.shape));
  });

  it('give what the schemas give, or leave the value to the schema, and take all they accept', () => {
    expect(expectSameAsSchema(SkuLinksSchema, fastSkuLinks, pageVariants(links, Object.keys(SKU_LINKS_FIELDS)))).toBeGreaterThan(20);
    expect(expectSameAsSchema(SkuMetaSchema, fastSkuMeta, pageVariants(meta, Object.keys(SKU_META_FIELDS)))).toBeGreaterThan(20);
    expect(missedByFast(SkuLinksSchema, fastSkuLinks, pageVariants(links, Object.keys(SKU_LINKS_FIELDS)))).toEqual([]);
    expect(missedByFast(SkuMetaSchema, fastSkuMeta, pageVariants(meta, Object.keys(SKU_META_FIELDS)))).toEqual([]);
    expect(expectSameAsSchemaReusing(SkuLinksSchema, (x) => fastSkuLinks(x, { reuse: true }), pageVariants(links, Object.keys(SKU_LINKS_FIELDS))).answered).toBeGreaterThan(20);
    expect(expectSameAsSchemaReusing(SkuMetaSchema, (x) => fastSkuMeta(x, { reuse: true }), pageVariants(meta, Object.keys(SKU_META_FIELDS))).answered).toBeGreaterThan(20);
  });
});
