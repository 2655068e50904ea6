// Conformance: /skus — create, replace (PUT), partial update (PATCH), pagination (30 per page, links, meta, no
// message), get by SKU number or ID, item_handling normalisation, active default (SKU; Endpoints/SKUs; Limits).
import { describe, expect, it } from 'vitest';
import { sandboxSuite } from './client.js';

const { sb, api } = await sandboxSuite();

describe('POST /skus', () => {
  it('creates a SKU: active defaults to true, item_handling to PACKABLE, location to the default one', async () => {
    const r = await api.post('/skus', { sku: 'NEW-1', product_name: 'Thing', value_ex_vat: 5, gross_weight: 100, country_of_origin: 'de' });
    expect(r.status).toBe(201);
    const s = r.body.data;
    expect(s).toMatchObject({ sku: 'NEW-1', product_name: 'Thing', active: true, item_handling: 'PACKABLE', value_ex_vat: '5.00', gross_weight: 100 });
    expect(s.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(s.location.code).toBe('WH1');
    expect(s.country_of_origin).toEqual({ code: 'DE', name: 'Germany' });
    expect(s.created_at).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
  });

  it('sets no length limit the document does not state', async () => {
    const r = await api.post('/skus', { sku: 'S'.repeat(300), product_name: 'P'.repeat(1200) });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    expect(r.body.data.sku).toBe('S'.repeat(300));
  });

  it('sku is the one required attribute (sandbox choice)', async () => {
    const r = await api.post('/skus', { product_name: 'No number' });
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ message: 'The given data failed to pass validation.', data: { sku: ['The sku field is required.'] } });
  });

  it('a duplicate sku → 400 "has already been taken"', async () => {
    const r = await api.post('/skus', { sku: 'MUG-001' });
    expect(r.body.data.sku).toEqual(['The sku has already been taken.']);
  });

  it.each([
    ['1', 'PACKABLE'],
    ['True', 'PACKABLE'],
    ['y', 'PACKABLE'],
    ['YES', 'PACKABLE'],
    ['p', 'PACKABLE'],
    ['Packable', 'PACKABLE'],
    ['0', 'NON_PACKABLE'],
    ['false', 'NON_PACKABLE'],
    ['N', 'NON_PACKABLE'],
    ['no', 'NON_PACKABLE'],
    ['NonPackable', 'NON_PACKABLE'],
    ['non-packable', 'NON_PACKABLE'],
  ])('item_handling %s is stored as %s (SKU: item_handling)', async (input, stored) => {
    const r = await api.post('/skus', { sku: `IH-${input}`, item_handling: input });
    expect(r.status).toBe(201);
    expect(r.body.data.item_handling).toBe(stored);
  });

  it('item_handling also accepts JSON 1/0 and booleans; anything else → 400', async () => {
    expect((await api.post('/skus', { sku: 'IH-num', item_handling: 0 })).body.data.item_handling).toBe('NON_PACKABLE');
    expect((await api.post('/skus', { sku: 'IH-bool', item_handling: true })).body.data.item_handling).toBe('PACKABLE');
    expect((await api.post('/skus', { sku: 'IH-bad', item_handling: 'maybe' })).body.data.item_handling).toEqual(['The selected item handling is invalid.']);
  });

  it('location by code or ID; an unknown location → 400', async () => {
    expect((await api.post('/skus', { sku: 'L-1', location: 'SHOP1' })).body.data.location.code).toBe('SHOP1');
    expect((await api.post('/skus', { sku: 'L-2', location: 'NOPE' })).body.data.location).toEqual(['The selected location is invalid.']);
  });

  it('types are checked: numbers, integers, booleans, country codes, URLs', async () => {
    const r = await api.post('/skus', { sku: 'T-1', value_ex_vat: 'cheap', width: 1.5, active: 'perhaps', country_of_origin: 'Germany', image_url: 'not a url' });
    expect(r.body.data).toMatchObject({
      value_ex_vat: ['The value ex vat must be a number.'],
      width: ['The width must be an integer.'],
      active: ['The active field must be true or false.'],
      country_of_origin: [expect.stringContaining('ISO 3166-1')],
      image_url: ['The image url must be a valid URL.'],
    });
  });

  it('the backslash and caret ban applies to SKUs', async () => {
    const r = await api.post('/skus', { sku: 'BAN-1', description_full: 'a \\ b' });
    expect(r.body.data.description_full[0]).toContain('backslash');
  });

  it('custom_fields of entity SKU are validated; other entities are unknown here', async () => {
    expect((await api.post('/skus', { sku: 'CF-1', custom_fields: { hazard_class: 'x'.repeat(21) } })).body.data['custom_fields.hazard_class']).toBeDefined();
    expect((await api.post('/skus', { sku: 'CF-2', custom_fields: { gift_message: 'hi' } })).body.data['custom_fields.gift_message']).toBeDefined();
    expect((await api.post('/skus', { sku: 'CF-3', custom_fields: { hazard_class: 'UN1266' } })).body.data.custom_fields).toEqual({ hazard_class: 'UN1266' });
  });
});

describe('GET /skus/:ref', () => {
  it('by SKU number or by ID gives the same SKU; unknown → 404', async () => {
    const a = await api.get('/skus/MUG-001');
    expect(a.status).toBe(200);
    expect(a.body.data.sku).toBe('MUG-001');
    const b = await api.get(`/skus/${a.body.data.id}`);
    expect(b.body.data).toEqual(a.body.data);
    expect((await api.get('/skus/NOPE')).status).toBe(404);
  });
});

describe('PUT /skus/:ref (all mandatory attributes; a full replacement)', () => {
  it('without sku → 400', async () => {
    const r = await api.put('/skus/MUG-001', { product_name: 'Renamed' });
    expect(r.body.data.sku).toEqual(['The sku field is required.']);
  });

  it('replaces: attributes not sent return to their defaults', async () => {
    const r = await api.put('/skus/MUG-001', { sku: 'MUG-001', product_name: 'Mug v2' });
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ sku: 'MUG-001', product_name: 'Mug v2', tariff_code: null, active: true, item_handling: 'PACKABLE' });
    expect((await api.get('/skus/MUG-001')).body.data.product_name).toBe('Mug v2');
  });

  it('can change the SKU number (the old one is then free and unknown)', async () => {
    const r = await api.put('/skus/MUG-001', { sku: 'MUG-002' });
    expect(r.status).toBe(200);
    expect((await api.get('/skus/MUG-002')).status).toBe(200);
    expect((await api.get('/skus/MUG-001')).status).toBe(404);
  });

  it("taking another SKU's number → 400", async () => {
    expect((await api.put('/skus/MUG-001', { sku: 'BOOK-042' })).body.data.sku).toEqual(['The sku has already been taken.']);
  });
});

describe('PATCH /skus/:ref (only what changes)', () => {
  it('changes only the attributes sent', async () => {
    const before = (await api.get('/skus/TEE-BLK-M')).body.data;
    const r = await api.patch('/skus/TEE-BLK-M', { in_stock: false, item_handling: 'no', active: 0 });
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ in_stock: false, item_handling: 'NON_PACKABLE', active: false, product_name: before.product_name, tariff_code: before.tariff_code });
  });

  it('a MAPPED SKU custom field copies the SKU attribute it names, and follows it on PATCH (Custom Field: source)', async () => {
    const f = await api.post('/custom-fields', { name: 'Name copy', key: 'name_copy', entity: 'SKU', data_type: 'TEXT', source: 'MAPPED', mapped_to: 'product_name' });
    expect(f.status, JSON.stringify(f.body)).toBe(201);
    const c = await api.post('/skus', { sku: 'MAP-1', product_name: 'Mapped mug' });
    expect(c.body.data.custom_fields).toMatchObject({ name_copy: 'Mapped mug' });
    const p = await api.patch('/skus/MAP-1', { product_name: 'Renamed mug' });
    expect(p.body.data.custom_fields).toMatchObject({ name_copy: 'Renamed mug' });
  });

  it('validates what is sent, and 404s an unknown SKU', async () => {
    expect((await api.patch('/skus/TEE-BLK-M', { gross_weight: -1 })).body.data.gross_weight).toEqual(['The gross weight must be at least 0.']);
    expect((await api.patch('/skus/NOPE', { active: true })).status).toBe(404);
  });
});

describe('GET /skus (pagination; envelope exception)', () => {
  it('30 per page with links (absolute URLs or null) and meta, and no message', async () => {
    for (let i = 0; i < 60; i++) expect((await api.post('/skus', { sku: `PG-${String(i).padStart(2, '0')}` })).status).toBe(201);
    // 5 seeded + 60 = 65 → pages of 30, 30, 5
    const p1 = await api.get('/skus');
    expect(Object.keys(p1.body).sort()).toEqual(['data', 'links', 'meta']);
    expect(p1.body.data).toHaveLength(30);
    expect(p1.body.links).toEqual({ first: `${sb.baseUrl}/skus?page=1`, last: `${sb.baseUrl}/skus?page=3`, prev: null, next: `${sb.baseUrl}/skus?page=2` });
    // Exactly the documented keys: a client must not come to rely on extras the live service may not send.
    expect(p1.body.meta).toEqual({ current_page: 1, from: 1, path: `${sb.baseUrl}/skus`, per_page: 30, to: 30 });

    const p3 = await api.get('/skus?page=3');
    expect(p3.body.data).toHaveLength(5);
    expect(p3.body.links.next).toBeNull();
    expect(p3.body.links.prev).toBe(`${sb.baseUrl}/skus?page=2`);
    expect(p3.body.meta).toMatchObject({ current_page: 3, from: 61, to: 65 });

    const all = [...p1.body.data, ...(await api.get('/skus?page=2')).body.data, ...p3.body.data].map((s: any) => s.sku);
    expect(new Set(all).size).toBe(65);
  });

  it('a page past the end is empty with from/to null', async () => {
    const r = await api.get('/skus?page=9');
    expect(r.body.data).toEqual([]);
    expect(r.body.meta).toMatchObject({ current_page: 9, from: null, to: null });
    expect(r.body.links.next).toBeNull();
  });
});
