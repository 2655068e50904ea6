import { describe, expect, it } from 'vitest';
import {
  BrandSchema,
  CustomFieldSchema,
  DeliveryServiceSchema,
  LocationSchema,
  PackagingOptionsSchema,
  PackagingTypeSchema,
  ServiceConditionSchema,
  UserSchema,
  ValidationRulesSchema,
} from '../../src/api/response-schemas.js';
import {
  BRAND_FIELDS,
  CUSTOM_FIELD_FIELDS,
  DELIVERY_SERVICE_FIELDS,
  fastBrand,
  fastCustomField,
  fastDeliveryService,
  fastLocation,
  fastPackagingOptions,
  fastUser,
  PACKAGING_OPTIONS_FIELDS,
  PACKAGING_TYPE_FIELDS,
  SERVICE_CONDITION_FIELDS,
  USER_FIELDS,
  VALIDATION_RULES_FIELDS,
} from '../../src/api/reference-fast.js';
import { LOCATION_FIELDS } from '../../src/api/sku-fast.js';
import { expectSameAsSchema, expectSameAsSchemaReusing, fieldVariants, missedByFast, type NestedField, VALUES } from './fast-parser.js';

// As the sandbox sends them (its seeded reference data), keys in the order it sends them.
const location = {
  id: '5c2d1e0f-6a7b-4c8d-9e0f-1a2b3c4d5e01',
  code: 'WH1',
  name: 'Derby Warehouse',
  type: 'OTHER',
  telephone: '01332 000111',
  email: 'warehouse@example.com',
  address_name: 'Sandbox Trading Ltd',
  address_line_1: 'Unit 4, Friar Gate Studios',
  address_line_2: 'Ford Street',
  address_line_3: null,
  address_town_city: 'Derby',
  address_county: 'Derbyshire',
  address_country: { code: 'GB', name: 'United Kingdom' },
  address_post_zip_code: 'DE1 1EE',
  default: true,
  created_at: '2026-11-26 23:45:23',
  updated_at: '2026-11-26 23:45:23',
};
const service = {
  id: '3e1f5a7c-2b4d-4e6f-8a0b-c1d2e3f4a501',
  carrier: 'Royal Mail',
  name: 'Tracked 48',
  description: 'Royal Mail Tracked 48: delivery in 2-3 working days.',
  key: 'RM_TRACKED_48',
  price: '3.20',
  conditions: [
    ['Weight', '<=', '2000'],
    ['Country', '=', 'GB'],
  ],
};
const user = {
  id: '0b6f6a52-8f3e-4d8e-9c8b-1f2d3c4b5a01',
  title: 'Ms',
  first_name: 'Dana',
  last_name: 'Demo',
  email: 'demo@example.com',
  profile_image_url: 'https://sandbox.invalid/avatars/dana.png',
  location,
  access_level: 'MERCHANT_ADMIN',
  printer_online: true,
};
const brand = {
  id: '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c01',
  name: 'Sandbox Trading',
  key: 'SANDBOX',
  return_address_line_1: 'Unit 4, Friar Gate Studios',
  return_address_line_2: 'Ford Street',
  return_address_line_3: null,
  return_address_town_city: 'Derby',
  return_address_county: 'Derbyshire',
  return_address_postcode: 'DE1 1EE',
  return_address_country: { code: 'GB', name: 'United Kingdom' },
  return_phone: '01332 000111',
  return_email: 'returns@example.com',
  profile_image_url: 'https://sandbox.invalid/brands/sandbox.png',
  customer_despatch_notes: 'Thank you for your order.',
  default: true,
  tracking_portal_base_url: 'https://track.sandbox.invalid/sandbox',
};
// default_value before mapped_to, as the sandbox sends it: not the schema's order.
const customField = {
  id: 'c7f1e2d3-a4b5-4c6d-8e7f-90a1b2c3d405',
  name: 'Declared value',
  key: 'declared_value',
  entity: 'PARCEL',
  data_type: 'NUMERIC',
  source: 'DIRECT',
  default_value: null,
  mapped_to: null,
  data_validation_rules: { numeric_type: 'DECIMAL', min_value: 0, max_value: 10000 },
};
const packagingType = {
  name: 'Small Box',
  key: 'SMALL_BOX',
  default: true,
  internal_width: 240,
  internal_height: 190,
  internal_depth: 90,
  external_width: 250,
  external_height: 200,
  external_depth: 100,
  max_weight: 2000,
  default_weight: 500,
  packaging_weight: 120,
};
const packaging = { net_weight: false, allow_override: true, packaging_types: [packagingType, { ...packagingType, key: 'LARGE_BOX', default: false }] };

// Besides VALUES: lists and list elements the list fields take or refuse.
const values: unknown[] = [
  ...VALUES,
  [['Weight', '<=', 2000]],
  [['Weight', '<=', '2000', 'extra', null]],
  [['Weight', '<=']],
  [['Weight', 5, '1']],
  [['Weight', '<=', true]],
  [{ field: 'Weight', operator: '<=', value: '2000' }],
  [{ field: 'Weight', value: null, extra: 1 }],
  [{ field: 'Weight', value: true }],
  [['Weight', '<=', '2000'], 'Weight'],
  [packagingType],
  [{ ...packagingType, key: 5 }],
  [{ key: 'BAG' }],
  [null],
  { is_required: 1, min_length: 2, min_value: '0.5', extra: 'x' },
  { is_required: 'yes' },
];

function* serviceVariants(): Generator<unknown> {
  yield* fieldVariants(service, [...Object.keys(DELIVERY_SERVICE_FIELDS), 'service_type'], [], values);
  yield JSON.parse('{"key":"K","__proto__":{"polluted":true}}');
  yield { key: 'K', conditions: [JSON.parse('{"field":"Weight","__proto__":{"x":1}}')] };
  yield null;
  yield 'RM_TRACKED_48';
  yield [service];
}

function* userVariants(): Generator<unknown> {
  const nested: NestedField[] = [['location', [...Object.keys(LOCATION_FIELDS), 'dock'], location]];
  yield* fieldVariants(user, [...Object.keys(USER_FIELDS), 'phone'], nested, values);
  yield null;
}

function* brandVariants(): Generator<unknown> {
  const nested: NestedField[] = [['return_address_country', ['code', 'name', 'iso3'], brand.return_address_country]];
  yield* fieldVariants(brand, [...Object.keys(BRAND_FIELDS), 'colour'], nested, values);
  yield null;
}

function* customFieldVariants(): Generator<unknown> {
  const nested: NestedField[] = [['data_validation_rules', [...Object.keys(VALIDATION_RULES_FIELDS), 'step'], customField.data_validation_rules]];
  yield* fieldVariants(customField, [...Object.keys(CUSTOM_FIELD_FIELDS), 'order'], nested, values);
  yield { ...customField, data_validation_rules: [] };
  yield { ...customField, data_validation_rules: [1, { a: 2 }] };
  yield null;
}

function* packagingVariants(): Generator<unknown> {
  yield* fieldVariants(packaging, [...Object.keys(PACKAGING_OPTIONS_FIELDS), 'units'], [], values);
  // Each field of a packaging type, in a list of them.
  for (const p of fieldVariants(packagingType, [...Object.keys(PACKAGING_TYPE_FIELDS), 'colour'], [], VALUES)) {
    yield { ...packaging, packaging_types: [packagingType, p] };
  }
  yield {};
  yield { packaging_types: null, net_weight: true };
  yield null;
  yield [packaging];
}

describe('reference data without zod', () => {
  it('know exactly the fields of their schemas', () => {
    expect(Object.keys(DELIVERY_SERVICE_FIELDS)).toEqual(Object.keys(DeliveryServiceSchema.shape));
    // The object form of a condition (the other is the triple).
    expect(Object.keys(SERVICE_CONDITION_FIELDS)).toEqual(Object.keys((ServiceConditionSchema.def.options[1] as unknown as { shape: object }).shape));
    expect(Object.keys(USER_FIELDS)).toEqual(Object.keys(UserSchema.shape));
    expect(Object.keys(BRAND_FIELDS)).toEqual(Object.keys(BrandSchema.shape));
    expect(Object.keys(CUSTOM_FIELD_FIELDS)).toEqual(Object.keys(CustomFieldSchema.shape));
    expect(Object.keys(VALIDATION_RULES_FIELDS)).toEqual(Object.keys(ValidationRulesSchema.shape));
    expect(Object.keys(PACKAGING_OPTIONS_FIELDS)).toEqual(Object.keys(PackagingOptionsSchema.shape));
    expect(Object.keys(PACKAGING_TYPE_FIELDS)).toEqual(Object.keys(PackagingTypeSchema.shape));
  });

  it('give what the schemas give for the sandbox answers', () => {
    expect(fastDeliveryService(service)).toStrictEqual(DeliveryServiceSchema.parse(service));
    expect(fastLocation(location)).toStrictEqual(LocationSchema.parse(location));
    expect(fastUser(user)).toStrictEqual(UserSchema.parse(user));
    expect(fastBrand(brand)).toStrictEqual(BrandSchema.parse(brand));
    expect(fastPackagingOptions(packaging)).toStrictEqual(PackagingOptionsSchema.parse(packaging));
    const f = fastCustomField(customField)!;
    expect(f).toStrictEqual(CustomFieldSchema.parse(customField));
    // In the schema's order, not the answer's.
    expect(Object.keys(f)).toEqual(Object.keys(CUSTOM_FIELD_FIELDS));
  });

  it("the schemas' messages are zod's English ones (zod/mini installs none by itself), as in the warnings for odd answers", () => {
    // This file loads zod/mini alone: classic zod, which installs them too, is not here to mask a missing locale.
    const r = DeliveryServiceSchema.safeParse({ key: 5, conditions: [['Weight', '<=']] });
    expect(r.error?.issues.map((i) => `${i.path.join('.')}: ${i.message}`)).toEqual([
      'key: Invalid input: expected string, received number',
      'conditions.0: Invalid input',
    ]);
  });

  it('lists the schema makes [] when missing or null take their place among the fields', () => {
    const { conditions: _c, ...noConditions } = service;
    const s = fastDeliveryService({ ...noConditions, extra: 1 })!;
    expect(Object.keys(s)).toEqual([...Object.keys(DELIVERY_SERVICE_FIELDS), 'extra']);
    expect(s.conditions).toEqual([]);
    expect(fastPackagingOptions({ packaging_types: null, net_weight: true })).toStrictEqual({ net_weight: true, packaging_types: [] });
  });

  const cases = [
    ['a delivery service', DeliveryServiceSchema, fastDeliveryService, serviceVariants, 80],
    ['a user', UserSchema, fastUser, userVariants, 200],
    ['a brand', BrandSchema, fastBrand, brandVariants, 150],
    ['a custom field', CustomFieldSchema, fastCustomField, customFieldVariants, 150],
    ['packaging options', PackagingOptionsSchema, fastPackagingOptions, packagingVariants, 120],
  ] as const;

  for (const [what, schema, fast, variants, least] of cases) {
    it(`${what}: what the schema gives, or left to it; all it accepts taken, reused or not`, () => {
      expect(expectSameAsSchema(schema, (x) => fast(x), variants())).toBeGreaterThan(least);
      expect(missedByFast(schema, (x) => fast(x), variants())).toEqual([]);
      expect(expectSameAsSchemaReusing(schema, (x) => fast(x, { reuse: true }), variants()).answered).toBeGreaterThan(least);
    });
  }
});
