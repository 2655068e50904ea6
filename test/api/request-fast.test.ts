// The fast path of shipment request validation (src/api/request-fast.ts) must give exactly what zod plus the
// character ban give wherever it answers, answer for the bodies the CSV importer and examples produce, and
// leave every invalid or not-yet-normalised body to zod (which then reports its problems).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ADDRESS, CUSTOMS, EXPORT_PURPOSE, fastShipmentRequest, ITEM, PARCEL, SHIPMENT } from '../../src/api/request-fast.js';
import { AddressSchema, CustomsDeclarationSchema, ExportPurposeSchema, ItemSchema, ParcelSchema, ShipmentRequestSchema } from '../../src/api/schemas.js';
import { validateRequest, validateShipmentRequest } from '../../src/api/validate.js';
import { loadCsv } from '../../src/csv/load.js';
import { contractLayout, presetLayout } from '../../src/csv/presets/index.js';
import { expectSameAsSchema, fieldVariants, missedByFast, type NestedField, VALUES } from './fast-parser.js';

const ROOT = join(import.meta.dirname, '..', '..');

/** zod plus the ban, as validateShipmentRequest was before the fast path (the reference). */
const reference = {
  safeParse(input: unknown) {
    const r = validateRequest(ShipmentRequestSchema, input);
    return r.ok ? { success: true, data: r.value } : { success: false };
  },
};

const example = JSON.parse(readFileSync(join(ROOT, 'examples', 'shipment.json'), 'utf8')) as Record<string, unknown>;

// Every optional part the schema knows, filled in.
const full: Record<string, unknown> = {
  shipment_reference: 'FULL-1',
  order_reference: 'WEB-1',
  delivery_service_key: 'RM_TRACKED_48',
  service_key: 'OLD',
  brand: 'Acme',
  location_code: 'WH1',
  despatch_date: '2026-12-01 09:30:00',
  to_address: { name: 'Ann', company_name: 'Co', telephone: '1', email_address: 'a@b.c', line_1: '1 Rd', line_2: '', line_3: 'x', city: 'Derby', county: 'D', postcode: 'DE1 1AA', country: 'GB' },
  parcels: [
    {
      reference: 'P1',
      packaging_type_key: 'BOX',
      weight: 500,
      width: 10,
      length: 20,
      depth: 5,
      value: 12.5,
      items: [{ item_line_id: '1', sku: 'MUG', short_description: 'Mug', full_description: 'A mug', country_of_origin: 'GB', harmonised_code: '6912', item_weight: 300, item_value: 9.99, item_quantity: 2 }],
      customs_declaration: { duty_method: 'DDP', currency_code: 'EUR', other_value: -1.5 },
      custom_fields: { gift: 'yes', n: 3, deep: { a: ['b', null, true] } },
    },
  ],
  delivery_instructions: 'Leave with neighbour',
  custom_fields: { channel: 'web' },
  customs_declaration: {
    duty_method: 'DAP',
    commercial_invoice_number: 'INV-1',
    insurance_value: 1,
    freight_value: 2.5,
    packing_value: 0,
    handling_value: 0.01,
    other_value: -3,
    currency_code: 'GBP',
    export_license_number: 'L',
    export_certificate_number: 'C',
    other_export_comments: 'x'.repeat(1000),
    export_purpose: { gift: true, documents: false, sale_of_goods: true, commercial_sample: false, returned_goods: false, other: 'o' },
  },
  recipient_vat_number: 'VAT',
  recipient_eori_number: 'EORI',
  recipient_ukims_number: 'UKIMS',
  format: 'PDF',
  print_labels: true,
  print_to_user: 'dock',
  printer_key: 'k',
  container_reference: 'C-1',
};

// The shared odd values plus what matters to requests: codes in either case, numbers as text, the ban, dates.
const values: unknown[] = [
  ...VALUES,
  'GB',
  'gb',
  ' GB',
  'GBR',
  'EUR',
  'eur',
  'ZPL',
  'zpl',
  'DDP',
  'ddp',
  'a\\b',
  'x^y',
  '2026-01-31 10:00:00',
  '2026-02-30 10:00:00',
  '2026-01-31',
  '500',
  ' 7 ',
  1,
  2,
  0.5,
  9.99,
  9.999,
  -1.5,
  -0,
  1e21,
  Number.POSITIVE_INFINITY,
  Number.NaN,
  'x'.repeat(1001),
  { k: 'a\\b' },
  { k: ['ok', { deep: 'x^' }] },
  [{ weight: 1 }],
  [{ sku: 'A', item_quantity: 1 }],
];

function* variants(): Generator<unknown> {
  const parcel = (full.parcels as Array<Record<string, unknown>>)[0];
  const nested: NestedField[] = [
    ['to_address', [...Object.keys(full.to_address as object), 'extra'], full.to_address as Record<string, unknown>],
    ['customs_declaration', [...Object.keys(full.customs_declaration as object), 'extra'], full.customs_declaration as Record<string, unknown>],
    ['custom_fields', ['channel', 'other'], full.custom_fields as Record<string, unknown>],
  ];
  for (const base of [full, example]) yield* fieldVariants(base, [...Object.keys(full), 'brand_new_field'], nested, values);
  // One parcel field, one item field, one parcel customs field changed at a time.
  const item = (parcel.items as Array<Record<string, unknown>>)[0];
  for (const v of values) {
    for (const k of [...Object.keys(parcel), 'extra']) yield { ...full, parcels: [{ ...parcel, [k]: v }] };
    for (const k of [...Object.keys(item), 'extra']) yield { ...full, parcels: [{ ...parcel, items: [{ ...item, [k]: v }] }] };
    for (const k of ['duty_method', 'currency_code', 'other_value']) {
      yield { ...full, parcels: [{ ...parcel, customs_declaration: { ...(parcel.customs_declaration as object), [k]: v } }] };
    }
    yield { ...full, customs_declaration: { ...(full.customs_declaration as object), export_purpose: { gift: v } } };
  }
  // Shapes: no parcels, two parcels, print_to_user without print_labels, a missing recipient field.
  yield { ...full, parcels: [] };
  yield { ...full, parcels: [parcel, { weight: 100 }] };
  yield { ...full, print_labels: false };
  const { print_labels: _p, ...noPrint } = full;
  yield noPrint;
  const { postcode: _pc, ...noPostcode } = full.to_address as Record<string, unknown>;
  yield { ...full, to_address: noPostcode };
  yield JSON.parse('{"shipment_reference":"P","to_address":{"name":"a","line_1":"b","city":"c","postcode":"d","country":"GB"},"parcels":[{"weight":1}],"__proto__":{"x":1}}');
  yield Object.assign(Object.create({ inherited: 1 }), { shipment_reference: 'P', to_address: full.to_address, parcels: full.parcels });
}

/** The bodies the CSV importer builds (before validation) from the examples and the Shopify export. */
async function csvBodies(): Promise<unknown[]> {
  const out: unknown[] = [];
  const examples = await loadCsv({ source: { path: join(ROOT, 'examples', 'orders.csv') }, layout: contractLayout() });
  out.push(...examples.shipments.map((s) => s.body));
  const shopify = await loadCsv({
    source: { path: join(ROOT, 'test', 'fixtures', 'shopify-orders-export.csv') },
    layout: await presetLayout('shopify'),
    defaults: new Map([['weight', { value: '900', column: '--default-weight' }]]),
  });
  out.push(...shopify.shipments.map((s) => s.body));
  return out;
}

describe('fastShipmentRequest', () => {
  it('knows the same fields as the schemas, in their order (the order of their output)', () => {
    expect(Object.keys(SHIPMENT)).toEqual(Object.keys(ShipmentRequestSchema.shape));
    expect(Object.keys(ADDRESS)).toEqual(Object.keys(AddressSchema.shape));
    expect(Object.keys(PARCEL)).toEqual(Object.keys(ParcelSchema.shape));
    expect(Object.keys(ITEM)).toEqual(Object.keys(ItemSchema.shape));
    expect(Object.keys(CUSTOMS)).toEqual(Object.keys(CustomsDeclarationSchema.shape));
    expect(Object.keys(EXPORT_PURPOSE)).toEqual(Object.keys(ExportPurposeSchema.shape));
  });

  it('gives exactly the schema\'s output wherever it answers, over varied bodies', () => {
    const answered = expectSameAsSchema(reference, fastShipmentRequest, variants());
    expect(answered).toBeGreaterThan(300);
  });

  it('answers for the examples, a full body and every body the CSV importer builds from the example files', async () => {
    const bodies = [example, full, ...(await csvBodies())];
    expect(bodies.length).toBeGreaterThan(10);
    expect(missedByFast(reference, fastShipmentRequest, bodies)).toEqual([]);
    expectSameAsSchema(reference, fastShipmentRequest, bodies);
  });

  it('outside mainland UK, items without a SKU carry every customs attribute (Item rules), on both paths', () => {
    const item = { short_description: 'Mug', full_description: 'Ceramic mug', country_of_origin: 'GB', harmonised_code: '6912002310', item_weight: 400, item_value: 10, item_quantity: 2 };
    const body = (to: Record<string, string>, items?: unknown[]) => ({
      shipment_reference: 'C-1',
      to_address: { name: 'A', line_1: '1 St', city: 'X', postcode: 'P', ...to },
      parcels: [{ weight: 500, ...(items ? { items } : {}) }],
    });
    const paths = (b: unknown) => {
      const r = validateShipmentRequest(b);
      return r.ok ? [] : r.issues.map((i) => `${i.path}: ${i.message}`);
    };
    // Abroad: complete items, or a SKU (the service's inventory supplies the rest), pass the fast path too.
    expect(fastShipmentRequest(body({ country: 'FR' }, [item]))).toBeDefined();
    expect(fastShipmentRequest(body({ country: 'FR' }, [{ sku: 'MUG-001' }]))).toBeDefined();
    // Gaps go to zod, which names each one.
    const gappy = body({ country: 'FR' }, [{ short_description: 'Mug', item_value: 10, item_quantity: 1 }]);
    expect(fastShipmentRequest(gappy)).toBeUndefined();
    const rule = 'is required for deliveries outside mainland UK (or give the item a SKU)';
    expect(paths(gappy)).toEqual(['full_description', 'country_of_origin', 'harmonised_code', 'item_weight'].map((k) => `parcels.0.items.0.${k}: ${rule}`));
    expect(paths(body({ country: 'fr' }))).toEqual(['parcels.0.items: is required for deliveries outside mainland UK']);
    // Northern Ireland (BT postcodes) is outside mainland UK; the rest of GB needs no items.
    expect(paths(body({ country: 'GB', postcode: 'BT1 5GS' }))).toEqual(['parcels.0.items: is required for deliveries outside mainland UK']);
    // So are Jersey and Guernsey (JE, GY), often addressed as GB; the Isle of Man and the rest of GB are not.
    for (const postcode of ['JE2 3AB', 'gy1 1aa']) expect(paths(body({ country: 'GB', postcode }))).toEqual(['parcels.0.items: is required for deliveries outside mainland UK']);
    expect(paths(body({ country: 'GB', postcode: 'IM1 1AA' }))).toEqual([]);
    expect(paths(body({ country: 'GB', postcode: 'LS1 1AA' }))).toEqual([]);
    expect(fastShipmentRequest(body({ country: 'GB', postcode: 'LS1 1AA' }))).toBeDefined();
  });

  it('leaves invalid bodies to zod, so every problem is still reported with its path', () => {
    const bad = { ...full, to_address: { ...(full.to_address as object), country: 'GBR', city: 'a\\b' }, parcels: [{ weight: 0 }] };
    expect(fastShipmentRequest(bad)).toBeUndefined();
    const r = validateShipmentRequest(bad);
    expect(r.ok).toBe(false);
    expect(r.ok ? [] : r.issues.map((i) => i.path).sort()).toEqual(['parcels.0.weight', 'to_address.city', 'to_address.country']);
  });
});
