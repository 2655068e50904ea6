// Conformance: users, locations, brands, services, custom fields, packaging options (Endpoints: Users, locations,
// brands, services; Custom fields; Packaging).
import { describe, expect, it } from 'vitest';
import { client, sandboxSuite, shipment } from './client.js';

const { sb, api } = await sandboxSuite();

describe('GET /users (envelope exception)', () => {
  it('answers {data} without a message, each User with the documented fields', async () => {
    const r = await api.get('/users');
    expect(r.status).toBe(200);
    expect(Object.keys(r.body)).toEqual(['data']);
    expect(r.body.data.length).toBeGreaterThanOrEqual(2);
    for (const u of r.body.data) {
      expect(Object.keys(u).sort()).toEqual(['access_level', 'email', 'first_name', 'id', 'last_name', 'location', 'printer_online', 'profile_image_url', 'title'].sort());
      expect(['MERCHANT_ADMIN', 'MERCHANT_USER', '3PL_ADMIN', '3PL_USER']).toContain(u.access_level);
      expect(typeof u.printer_online).toBe('boolean');
      expect(u.location.code).toBeDefined();
    }
    expect(r.body.data.find((u: any) => u.email === 'demo@example.com').access_level).toBe('MERCHANT_ADMIN');
  });
});

describe('Locations', () => {
  it('GET /locations wraps the list in a paginator: data.data (api-notes)', async () => {
    const r = await api.get('/locations');
    expect(r.status).toBe(200);
    expect(typeof r.body.message).toBe('string');
    expect(Array.isArray(r.body.data.data)).toBe(true);
    expect(r.body.data.data).toHaveLength(2);
    expect(r.body.data.data.filter((l: any) => l.default)).toHaveLength(1);
    const l = r.body.data.data[0];
    for (const k of ['id', 'code', 'name', 'type', 'telephone', 'email', 'address_name', 'address_line_1', 'address_line_2', 'address_line_3', 'address_town_city', 'address_county', 'address_country', 'address_post_zip_code', 'default', 'created_at', 'updated_at']) expect(l).toHaveProperty(k);
    expect(l.address_country).toEqual({ code: 'GB', name: 'United Kingdom' });
  });

  it('GET /locations/:ref by code or by ID gives the same Location; unknown → 404', async () => {
    const byCode = await api.get('/locations/SHOP1');
    expect(byCode.status).toBe(200);
    expect(byCode.body.data.type).toBe('STORE');
    const byId = await api.get(`/locations/${byCode.body.data.id}`);
    expect(byId.body.data).toEqual(byCode.body.data);
    expect((await api.get('/locations/NOPE')).status).toBe(404);
  });
});

describe('Brands', () => {
  it('GET /brands lists both brands, one default, with the documented fields', async () => {
    const r = await api.get('/brands');
    expect(r.body.data).toHaveLength(2);
    expect(r.body.data.filter((b: any) => b.default)).toHaveLength(1);
    for (const k of ['id', 'name', 'key', 'return_address_line_1', 'return_address_line_2', 'return_address_line_3', 'return_address_town_city', 'return_address_county', 'return_address_postcode', 'return_address_country', 'return_phone', 'return_email', 'profile_image_url', 'customer_despatch_notes', 'default', 'tracking_portal_base_url']) {
      expect(r.body.data[0]).toHaveProperty(k);
    }
    expect(r.body.data[0].return_address_country.code).toBe('GB');
  });

  it('GET /brands/:ref by key or ID; unknown → 404', async () => {
    const a = await api.get('/brands/OUTLET');
    const b = await api.get(`/brands/${a.body.data.id}`);
    expect(b.body.data).toEqual(a.body.data);
    expect((await api.get('/brands/NOPE')).status).toBe(404);
  });
});

describe('GET /services (Delivery Service)', () => {
  it('lists at least six services across two carriers, the document\'s fields only, conditions as triples, price "0.00"', async () => {
    const r = await api.get('/services');
    const list = r.body.data;
    expect(list.length).toBeGreaterThanOrEqual(6);
    expect(new Set(list.map((s: any) => s.carrier)).size).toBeGreaterThanOrEqual(2);
    // The consolidation service is listed like any other (the document gives services no field telling them apart).
    expect(list.map((s: any) => s.key)).toContain('DPD_CONSOLIDATED_EU');
    for (const s of list) {
      expect(Object.keys(s)).toEqual(['id', 'carrier', 'name', 'description', 'key', 'price', 'conditions']);
      expect(s.id).toMatch(/^[0-9a-f-]{36}$/);
      expect(s.price).toMatch(/^\d+\.\d{2}$/);
      for (const c of s.conditions) {
        expect(c).toHaveLength(3);
        expect(typeof c[2]).toBe('string');
      }
    }
  });

  it('filters by weight', async () => {
    const keys = (await api.get('/services?weight=5000')).body.data.map((s: any) => s.key);
    expect(keys).not.toContain('RM_TRACKED_48');
    expect(keys).toContain('DPD_NEXT_DAY');
  });

  it('filters by length, width and depth, and by the Volume they make', async () => {
    const long = (await api.get('/services?length=130')).body.data.map((s: any) => s.key);
    expect(long).not.toContain('DPD_NEXT_DAY');
    expect(long).toContain('RM_SPECIAL_1PM');
    const wide = (await api.get('/services?width=50')).body.data.map((s: any) => s.key);
    expect(wide).not.toContain('RM_TRACKED_24');
    const bulky = (await api.get('/services?length=70&width=70&depth=70')).body.data.map((s: any) => s.key);
    expect(bulky).not.toContain('DPD_NEXT_DAY');
    const fits = (await api.get('/services?length=60&width=60&depth=60')).body.data.map((s: any) => s.key);
    expect(fits).toContain('DPD_NEXT_DAY');
  });

  it('a non-integer filter → 400', async () => {
    const r = await api.get('/services?weight=heavy');
    expect(r.status).toBe(400);
    expect(r.body.data.weight).toEqual(['The weight must be an integer.']);
  });
});

describe('Custom fields', () => {
  it('GET /custom-fields lists the fields with the documented attributes', async () => {
    const r = await api.get('/custom-fields');
    expect(r.body.data.length).toBeGreaterThanOrEqual(3);
    for (const c of r.body.data) for (const k of ['id', 'name', 'key', 'entity', 'data_type', 'default_value', 'mapped_to']) expect(c).toHaveProperty(k);
  });

  it('GET /custom-fields/:ref by key or ID gives an array holding the one field', async () => {
    const a = await api.get('/custom-fields/gift_message');
    expect(Array.isArray(a.body.data)).toBe(true);
    expect(a.body.data).toHaveLength(1);
    const b = await api.get(`/custom-fields/${a.body.data[0].id}`);
    expect(b.body.data).toEqual(a.body.data);
    expect((await api.get('/custom-fields/nope')).status).toBe(404);
  });

  it('POST /custom-fields creates a field and answers the object', async () => {
    // The entity as the document lists it: matched exactly ("shipment" is refused).
    expect((await api.post('/custom-fields', { name: 'Dock door', key: 'dock_door', entity: 'shipment', data_type: 'NUMERIC' })).body.data.entity).toEqual(['The selected entity is invalid.']);
    const r = await api.post('/custom-fields', { name: 'Dock door', key: 'dock_door', entity: 'SHIPMENT', data_type: 'NUMERIC', data_validation_rules: { numeric_type: 'INT', min_value: 1, max_value: 12 }, default_value: '3' });
    expect(r.status).toBe(201);
    expect(r.body.data).toMatchObject({ name: 'Dock door', key: 'dock_door', entity: 'SHIPMENT', data_type: 'NUMERIC', default_value: '3', mapped_to: null });
    expect(r.body.data.id).toMatch(/^[0-9a-f-]{36}$/);
    expect((await api.get('/custom-fields/dock_door')).body.data[0].key).toBe('dock_door');
  });

  it('required attributes, enums, unique key (Custom Field rules)', async () => {
    const r = await api.post('/custom-fields', { entity: 'ORDER', data_type: 'DATE', source: 'GUESSED' });
    expect(r.status).toBe(400);
    expect(r.body.data).toMatchObject({
      name: ['The name field is required.'],
      key: ['The key field is required.'],
      entity: ['The selected entity is invalid.'],
      data_type: ['The selected data type is invalid.'],
      source: ['The selected source is invalid.'],
    });
    const dup = await api.post('/custom-fields', { name: 'x', key: 'gift_message', entity: 'SHIPMENT', data_type: 'TEXT' });
    expect(dup.body.data.key).toEqual(['The key has already been taken.']);
    // The document limits neither the key's characters nor its length.
    const free = await api.post('/custom-fields', { name: 'N'.repeat(300), key: 'gift.msg v2 ' + 'k'.repeat(120), entity: 'SHIPMENT', data_type: 'TEXT' });
    expect(free.status, JSON.stringify(free.body)).toBe(201);
  });

  it('MAPPED needs mapped_to; FIXED needs default_value; LIST needs options', async () => {
    const r1 = await api.post('/custom-fields', { name: 'a', key: 'a1', entity: 'SHIPMENT', data_type: 'TEXT', source: 'MAPPED' });
    expect(r1.body.data.mapped_to[0]).toContain('required when source is MAPPED');
    const r2 = await api.post('/custom-fields', { name: 'a', key: 'a2', entity: 'SHIPMENT', data_type: 'TEXT', source: 'FIXED' });
    expect(r2.body.data.default_value[0]).toContain('required when source is FIXED');
    const r3 = await api.post('/custom-fields', { name: 'a', key: 'a3', entity: 'SHIPMENT', data_type: 'LIST' });
    expect(r3.body.data['data_validation_rules.options'][0]).toContain('required when data type is LIST');
  });

  it('rules apply only to their data types (Validation Rules: Applies when)', async () => {
    const r = await api.post('/custom-fields', { name: 'a', key: 'a4', entity: 'PARCEL', data_type: 'NUMERIC', data_validation_rules: { max_length: 4, options: '"x"' } });
    expect(r.body.data['data_validation_rules.max_length'][0]).toContain('prohibited unless data type is TEXT');
    expect(r.body.data['data_validation_rules.options'][0]).toContain('prohibited unless data type is LIST');
  });

  it('an invalid regex or a default value breaking the rules → 400', async () => {
    const r = await api.post('/custom-fields', { name: 'a', key: 'a5', entity: 'SHIPMENT', data_type: 'TEXT', data_validation_rules: { regex: '([a-z' } });
    expect(r.body.data['data_validation_rules.regex']).toEqual(['The data validation rules.regex format is invalid.']);
    const d = await api.post('/custom-fields', { name: 'a', key: 'a6', entity: 'SHIPMENT', data_type: 'LIST', data_validation_rules: { options: '"red","green"' }, default_value: 'blue' });
    expect(d.body.data.default_value).toEqual(['The selected default value is invalid.']);
  });

  it('a backslash in a regex is refused like any other text (Conventions: Text restriction)', async () => {
    const r = await api.post('/custom-fields', { name: 'a', key: 'a7', entity: 'SHIPMENT', data_type: 'TEXT', data_validation_rules: { regex: '\\d+' } });
    expect(r.status).toBe(400);
    expect(r.body.data['data_validation_rules.regex'][0]).toContain('backslash');
  });

  it('FIXED fields ignore supplied values; MAPPED fields copy their source (checked via SHIPMENT_CREATED in the webhook suite)', async () => {
    const r = await api.post('/custom-fields', { name: 'PO', key: 'po', entity: 'SHIPMENT', data_type: 'TEXT', source: 'MAPPED', mapped_to: 'order_reference' });
    expect(r.status).toBe(201);
    expect(r.body.data.mapped_to).toBe('order_reference');
  });

  it('a required MAPPED PARCEL field is satisfied by the parcel attribute it names (weight)', async () => {
    const f = await api.post('/custom-fields', {
      name: 'Weight copy', key: 'weight_copy', entity: 'PARCEL', data_type: 'NUMERIC', source: 'MAPPED', mapped_to: 'weight', data_validation_rules: { is_required: true },
    });
    expect(f.status, JSON.stringify(f.body)).toBe(201);
    const r = await api.post('/shipments', shipment('MAP-P1'));
    expect(r.status, JSON.stringify(r.body)).toBe(201);
  });

  it('a MERCHANT_USER may not create custom fields → 403 (sandbox choice for access levels)', async () => {
    const user = client(sb, await sb.login('packer@example.com', 'packer-password'));
    const r = await user.post('/custom-fields', { name: 'x', key: 'x1', entity: 'SHIPMENT', data_type: 'TEXT' });
    expect(r.status).toBe(403);
    expect(r.body).toEqual({ message: 'This action is unauthorized.', data: null });
  });
});

describe('GET /packaging-options', () => {
  it('answers net_weight, allow_override and packaging types (mm, g) with one default', async () => {
    const r = await api.get('/packaging-options');
    expect(typeof r.body.data.net_weight).toBe('boolean');
    expect(typeof r.body.data.allow_override).toBe('boolean');
    const types = r.body.data.packaging_types;
    expect(types.filter((t: any) => t.default)).toHaveLength(1);
    for (const t of types) {
      for (const k of ['name', 'key', 'default', 'internal_width', 'internal_height', 'internal_depth', 'external_width', 'external_height', 'external_depth', 'max_weight', 'default_weight', 'packaging_weight']) expect(t).toHaveProperty(k);
      expect(t.external_width).toBeGreaterThanOrEqual(t.internal_width);
    }
  });
});
