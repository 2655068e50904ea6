// Every endpoint function against a loopback scenario server: method, encoded path, headers, body, parsed result.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createApi, documentBytes, type Api } from '../../src/api/index.js';
import { startScenarioServer, type ScenarioServer } from './scenario-server.js';
import { API_KEY, TOKEN, example, validShipment } from './fixtures.js';

let srv: ScenarioServer;
let api: Api;
let warnings: string[];

beforeAll(async () => {
  srv = await startScenarioServer();
});
afterAll(async () => {
  await srv.close();
});
function freshApi(extra: { token?: string | undefined } = {}): Api {
  warnings = [];
  return createApi({
    baseUrl: srv.baseUrl,
    apiKey: API_KEY,
    token: 'token' in extra ? extra.token : TOKEN,
    maxRetries: 0,
    onWarning: (m) => warnings.push(m),
  });
}
afterEach(async () => {
  await api?.close();
  srv.requests.length = 0;
});

/** The last request the server saw, asserting the headers every call carries. */
function lastRequest(opts: { token?: boolean } = {}) {
  const r = srv.requests.at(-1)!;
  expect(r, 'a request reached the server').toBeDefined();
  expect(r.headers['accept']).toBe('application/json');
  expect(r.headers['x-service-api-key']).toBe(API_KEY);
  expect(r.headers['user-agent']).toMatch(/^ship\/\S+/);
  if (opts.token === false) expect(r.headers['x-service-token']).toBeUndefined();
  else expect(r.headers['x-service-token']).toBe(TOKEN);
  if (r.rawBody !== '') expect(r.headers['content-type']).toBe('application/json');
  else expect(r.headers['content-type']).toBeUndefined();
  return r;
}

const PNG_1x1 =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';
const PDF_B64 = Buffer.from('%PDF-1.4\n%fake\n').toString('base64');

describe('tokens', () => {
  it('create: POST /tokens with the API key only; accepts a response without user', async () => {
    api = freshApi();
    srv.on('POST', '/v1.2/tokens', { status: 200, body: example('post-tokens.response.json') });
    const res = await api.tokens.create({ username: 'demo@example.com', password: 'pw' });
    expect(res.token).toBe('749a75e3c1048965c498017efae8051f');
    expect(res.user).toBeUndefined();
    const r = lastRequest({ token: false });
    expect(r.method).toBe('POST');
    expect(r.url).toBe('/v1.2/tokens');
    expect(r.body).toEqual({ username: 'demo@example.com', password: 'pw' });
    expect(warnings).toEqual([]);
  });

  it('create: a password may contain any character; empty credentials are refused before sending', async () => {
    api = freshApi();
    srv.on('POST', '/v1.2/tokens', { body: { message: 'ok', data: { token: 'tok-123456789' } } });
    await api.tokens.create({ username: 'u', password: 'a^b\\c' });
    expect(lastRequest({ token: false }).body).toEqual({ username: 'u', password: 'a^b\\c' });
    srv.requests.length = 0;
    await expect(api.tokens.create({ username: '', password: '' })).rejects.toMatchObject({
      name: 'ValidationError',
      fields: { username: ['is required'], password: ['is required'] },
    });
    expect(srv.requests).toHaveLength(0);
  });

  it('create: parses the documented user object', async () => {
    api = freshApi();
    const user = { id: 'u-1', user_type: 'MERCHANT_ADMIN', first_name: 'A', last_name: 'B', email: 'a@b', account_name: 'Acme', merchant_id: 'm-1' };
    srv.on('POST', '/v1.2/tokens', { status: 201, body: { message: 'ok', data: { token: 'tok-123456789', user } } });
    const res = await api.tokens.create({ username: 'u', password: 'p' });
    expect(res.user).toEqual(user);
  });

  it('create: 401 is an AuthError pointing at credentials', async () => {
    api = freshApi();
    srv.on('POST', '/v1.2/tokens', { status: 401, body: { message: 'Invalid credentials', data: null } });
    await expect(api.tokens.create({ username: 'u', password: 'p' })).rejects.toMatchObject({
      name: 'AuthError',
      exitCode: 4,
      http: { status: 401, method: 'POST', path: '/tokens', apiMessage: 'Invalid credentials' },
      hint: expect.stringMatching(/username, password/),
    });
  });

  it('check: true on 200, false on 401', async () => {
    api = freshApi();
    srv.on('GET', '/v1.2/tokens', { status: 200, body: { message: 'Token active', data: null } });
    expect(await api.tokens.check()).toBe(true);
    expect(lastRequest().method).toBe('GET');
    srv.on('GET', '/v1.2/tokens', { status: 401, body: { message: 'Unauthenticated', data: null } });
    expect(await api.tokens.check()).toBe(false);
    srv.on('GET', '/v1.2/tokens', { status: 500, body: { message: 'boom', data: null } });
    await expect(api.tokens.check()).rejects.toMatchObject({ name: 'ApiError', http: { status: 500 } });
  });

  it('session: active with the user when GET /tokens names one, inactive on 401', async () => {
    api = freshApi();
    srv.on('GET', '/v1.2/tokens', { status: 200, body: { message: 'Token active', data: null } });
    expect(await api.tokens.session()).toEqual({ active: true });
    srv.on('GET', '/v1.2/tokens', { status: 200, body: { message: 'Token active', data: { user: { id: 'u-1', email: 'a@b.c' } } } });
    expect(await api.tokens.session()).toEqual({ active: true, user: { id: 'u-1', email: 'a@b.c' } });
    srv.on('GET', '/v1.2/tokens', { status: 200, body: { message: 'Token active', data: { user: ['not', 'a', 'user'] } } });
    expect(await api.tokens.session()).toEqual({ active: true });
    srv.on('GET', '/v1.2/tokens', { status: 401, body: { message: 'Unauthenticated', data: null } });
    // The 401's message kept: it may say the API key, not the token, is what was refused.
    expect(await api.tokens.session()).toEqual({ active: false, refusal: 'Unauthenticated' });
  });

  it('revoke: DELETE /tokens with the token', async () => {
    api = freshApi();
    srv.on('DELETE', '/v1.2/tokens', { status: 204 });
    await expect(api.tokens.revoke()).resolves.toBeUndefined();
    const r = lastRequest();
    expect(r.method).toBe('DELETE');
    expect(r.url).toBe('/v1.2/tokens');
  });
});

describe('shipments', () => {
  it('create: POST /shipments with the validated body; parses the real response leniently', async () => {
    api = freshApi();
    srv.on('POST', '/v1.2/shipments', { status: 201, body: example('post-shipments.response.json') });
    const body = validShipment();
    const res = await api.shipments.create(body as never);
    const r = lastRequest();
    expect(r.method).toBe('POST');
    expect(r.url).toBe('/v1.2/shipments');
    expect(r.body).toEqual(body);
    expect(res).toHaveLength(1);
    expect(res[0].tracking_reference).toBe('P5D414200003');
    expect(res[0].png).toEqual([]);
    expect(res[0].pdf).toBe('');
    expect(res[0].weight).toBeUndefined();
    expect(res[0].zpl!.startsWith('CT~~CD,~CC^~CT~\n^XA')).toBe(true);
    expect(res[0].zpl).toContain('%COMPANY_NAME%');
    expect(warnings).toEqual([]);
  });

  it('createPrevalidated: sends the JSON text byte for byte and parses the answer as create does', async () => {
    api = freshApi();
    srv.on('POST', '/v1.2/shipments', { status: 201, body: example('post-shipments.response.json') });
    // Odd spacing and key order survive: the text is neither parsed nor serialised again.
    const text = `{"shipment_reference":"TXT-1",  "format":"ZPL","parcels":[{"weight":500}]}`;
    const res = await api.shipments.createPrevalidated(text);
    const r = lastRequest();
    expect(r.method).toBe('POST');
    expect(r.url).toBe('/v1.2/shipments');
    expect(r.rawBody).toBe(text);
    expect(res).toHaveLength(1);
    expect(res[0].tracking_reference).toBe('P5D414200003');
    expect(warnings).toEqual([]);
  });

  it('create: refuses an invalid body before sending (ValidationError with dotted paths)', async () => {
    api = freshApi();
    const body = validShipment();
    body.to_address.country = 'GBR';
    body.parcels[0].items[1].short_description = 'Plate \\ 2';
    await expect(api.shipments.create(body as never)).rejects.toMatchObject({
      name: 'ValidationError',
      exitCode: 2,
      fields: {
        'to_address.country': ['must be a two-letter ISO 3166-1 country code (got "GBR")'],
        'parcels.0.items.1.short_description': ['must not contain a backslash (\\) or caret (^)'],
      },
    });
    expect(srv.requests).toHaveLength(0);
  });

  it('create: 400 is a ValidationError with the API field map', async () => {
    api = freshApi();
    srv.on('POST', '/v1.2/shipments', {
      status: 400,
      body: {
        message: 'The given data failed to pass validation.',
        data: { shipment_reference: ['The shipment reference has already been taken.'], 'to_address.postcode': ['The to address.postcode field is required.'] },
      },
    });
    await expect(api.shipments.create(validShipment() as never)).rejects.toMatchObject({
      name: 'ValidationError',
      message: 'The given data failed to pass validation.',
      fields: {
        shipment_reference: ['The shipment reference has already been taken.'],
        'to_address.postcode': ['The to address.postcode field is required.'],
      },
      http: { status: 400, method: 'POST', path: '/shipments' },
    });
  });

  it('getServices: POST /shipments/get-services; money normalised', async () => {
    api = freshApi();
    const quote = (key: string, total: number | string) => ({
      carrier: 'DPD',
      carrier_account: 'dpd-1',
      service_name: 'Next Day',
      full_service_name: 'DPD Next Day',
      service_key: key,
      base_price: 5,
      additional_parcel_price: '0',
      surcharges: '0.5',
      fuel_surcharge: 0.25,
      total_price: total,
      estimated_delivery_date: '2026-11-23 23:59',
    });
    srv.on('POST', '/v1.2/shipments/get-services', {
      body: { message: 'ok', data: { recommended_service: quote('DPD-ND', '5.75'), services: [quote('DPD-ND', 5.75), quote('DPD-2D', '7')] } },
    });
    const res = await api.shipments.getServices(validShipment() as never);
    const r = lastRequest();
    expect(r.method).toBe('POST');
    expect(r.url).toBe('/v1.2/shipments/get-services');
    expect(r.body).toEqual(validShipment());
    expect(res.recommended_service?.service_key).toBe('DPD-ND');
    expect(res.services.map((s) => s.total_price)).toEqual(['5.75', '7.00']);
    expect(res.services[0].base_price).toBe('5.00');
    expect(res.services[0].fuel_surcharge).toBe('0.25');
  });

  it('cancel: DELETE /shipments/:ref with the ref percent-encoded', async () => {
    api = freshApi();
    srv.on('DELETE', '/v1.2/shipments/A%2FB%20%231', { body: example('delete-shipments-reference.response.json') });
    const res = await api.shipments.cancel('A/B #1');
    expect(res).toEqual({ message: 'Shipment Cancelled' });
    const r = lastRequest();
    expect(r.method).toBe('DELETE');
    expect(r.url).toBe('/v1.2/shipments/A%2FB%20%231');
    expect(r.rawBody).toBe('');
  });

  it('cancel: encodes %, ?, unicode and spaces as one segment', async () => {
    api = freshApi();
    const ref = '50% off?x=1&y/ü €';
    const enc = encodeURIComponent(ref);
    expect(enc).not.toContain('/');
    srv.on('DELETE', `/v1.2/shipments/${enc}`, { body: { message: 'Shipment Cancelled', data: null } });
    await api.shipments.cancel(ref);
    expect(lastRequest().url).toBe(`/v1.2/shipments/${enc}`);
  });

  it('cancel: refuses an empty reference, and dot segments that URL parsing would collapse, without sending', async () => {
    api = freshApi();
    await expect(api.shipments.cancel('  ')).rejects.toMatchObject({ name: 'UsageError' });
    await expect(api.shipments.cancel('..')).rejects.toMatchObject({ name: 'UsageError' });
    await expect(api.shipments.events('.')).rejects.toMatchObject({ name: 'UsageError' });
    expect(srv.requests).toHaveLength(0);
  });

  it('cancel: 404 is a NotFoundError naming the shipment', async () => {
    api = freshApi();
    srv.on('DELETE', '/v1.2/shipments/NOPE', { status: 404, body: { message: 'Shipment not found', data: null } });
    const err = await api.shipments.cancel('NOPE').catch((e: unknown) => e);
    expect(err).toMatchObject({ name: 'NotFoundError', exitCode: 5, http: { status: 404, method: 'DELETE', path: '/shipments/NOPE', apiMessage: 'Shipment not found' } });
    expect((err as Error).message).toContain('shipment "NOPE"');
  });

  it('events: GET /shipments/:ref/events keyed by tracking reference', async () => {
    api = freshApi();
    const ev = { code: 'LC', name: 'Label created', description: 'Label created', date: '2026-11-21 09:00:00', type: 'LABEL_CREATED' };
    srv.on('GET', '/v1.2/shipments/ORDER-1/events', {
      body: { message: 'ok', data: { TRK1: { shipment_reference: 'ORDER-1', courier_tracking_reference: 'TRK1', tracking_events: [ev] } } },
    });
    const res = await api.shipments.events('ORDER-1');
    expect(Object.keys(res)).toEqual(['TRK1']);
    expect(res.TRK1.tracking_events[0]).toEqual(ev);
    expect(lastRequest().method).toBe('GET');
  });

  it('events: an empty list (PHP []) is an empty object', async () => {
    api = freshApi();
    srv.on('GET', '/v1.2/shipments/ORDER-2/events', { body: { message: 'ok', data: [] } });
    expect(await api.shipments.events('ORDER-2')).toEqual({});
  });

  it('print: PUT /shipments/:ref/print with the optional body', async () => {
    api = freshApi();
    srv.on('PUT', '/v1.2/shipments/ORDER-1/print', { body: { message: '2 labels sent to printer', data: [] } });
    const res = await api.shipments.print('ORDER-1', { print_to_user: 'user-9', printer_key: 'zebra-1' });
    expect(res).toEqual({ message: '2 labels sent to printer' });
    const r = lastRequest();
    expect(r.method).toBe('PUT');
    expect(r.body).toEqual({ print_to_user: 'user-9', printer_key: 'zebra-1' });
  });

  it('commercialInvoice: GET …/commercial-invoice; base64 PDF in data[0]', async () => {
    api = freshApi();
    srv.on('GET', '/v1.2/shipments/ORDER-1/commercial-invoice', { body: { message: 'ok', data: [{ pdf: PDF_B64 }] } });
    const res = await api.shipments.commercialInvoice('ORDER-1');
    expect(res.pdf).toBe(PDF_B64);
    expect(documentBytes(res, 'PDF').toString('latin1').startsWith('%PDF-1.4')).toBe(true);
    expect(lastRequest().url).toBe('/v1.2/shipments/ORDER-1/commercial-invoice');
  });
});

describe('parcels', () => {
  it('events: GET /parcels/:ref/events is a flat list', async () => {
    api = freshApi();
    srv.on('GET', '/v1.2/parcels/TRK%201/events', {
      body: { message: 'ok', data: [{ code: 'A', name: 'n', description: 'd', date: '2026-11-21 09:00:00', type: 'COLLECTED' }] },
    });
    const res = await api.parcels.events('TRK 1');
    expect(res.map((e) => e.type)).toEqual(['COLLECTED']);
  });

  it('label: GET /parcels/:ref/label?format=PNG; one Label per parcel', async () => {
    api = freshApi();
    srv.on('GET', '/v1.2/parcels/TRK1/label?format=PNG', {
      body: { message: 'ok', data: [{ shipment_reference: 'S', tracking_reference: 'TRK1', pdf: '', zpl: '', png: PNG_1x1 }] },
    });
    const res = await api.parcels.label('TRK1', { format: 'PNG' });
    expect(res).toHaveLength(1);
    expect(res[0].png).toBe(PNG_1x1);
    expect(lastRequest().method).toBe('GET');
  });

  it('label: without a format sends no query', async () => {
    api = freshApi();
    srv.on('GET', '/v1.2/parcels/TRK1/label', { body: { message: 'ok', data: { tracking_reference: 'TRK1', zpl: '^XA^XZ' } } });
    const res = await api.parcels.label('TRK1');
    expect(res[0].zpl).toBe('^XA^XZ');
    expect(lastRequest().url).toBe('/v1.2/parcels/TRK1/label');
  });
});

describe('reference data', () => {
  const location = {
    id: 'loc-1',
    code: 'WH1',
    name: 'Warehouse',
    type: 'OTHER',
    address_line_3: null,
    address_county: null,
    address_country: { code: 'GB', name: 'United Kingdom' },
    address_post_zip_code: null,
    default: true,
  };

  it('users.list: GET /users (data without message)', async () => {
    api = freshApi();
    srv.on('GET', '/v1.2/users', { body: { data: [{ id: 'u1', first_name: 'A', access_level: 'MERCHANT_ADMIN', printer_online: false, location }] } });
    const res = await api.users.list();
    expect(res[0].id).toBe('u1');
    expect(res[0].printer_online).toBe(false);
    expect(lastRequest().url).toBe('/v1.2/users');
  });

  it('locations.list: data.data paginator, and a plain data list', async () => {
    api = freshApi();
    srv.on('GET', '/v1.2/locations', { body: { message: 'ok', data: { current_page: 1, data: [location] } } });
    expect((await api.locations.list()).map((l) => l.code)).toEqual(['WH1']);
    srv.on('GET', '/v1.2/locations', { body: { message: 'ok', data: [location, { ...location, id: 'loc-2', code: 'ST1' }] } });
    expect((await api.locations.list()).map((l) => l.code)).toEqual(['WH1', 'ST1']);
    expect(warnings).toEqual([]);
  });

  it('locations.get: GET /locations/:ref', async () => {
    api = freshApi();
    srv.on('GET', '/v1.2/locations/WH1', { body: { message: 'ok', data: location } });
    expect((await api.locations.get('WH1')).address_line_3).toBeNull();
  });

  it('brands.list and brands.get', async () => {
    api = freshApi();
    const brand = { id: 'b1', name: 'Acme', key: 'ACME', return_address_line_3: null, return_address_country: { code: 'GB', name: 'UK' }, default: true };
    srv.on('GET', '/v1.2/brands', { body: { message: 'ok', data: [brand] } });
    srv.on('GET', '/v1.2/brands/ACME', { body: { message: 'ok', data: brand } });
    expect((await api.brands.list())[0].key).toBe('ACME');
    expect((await api.brands.get('ACME')).id).toBe('b1');
    expect(lastRequest().url).toBe('/v1.2/brands/ACME');
  });

  it('services.list: filter as query parameters; conditions as triples', async () => {
    api = freshApi();
    srv.on('GET', '/v1.2/services?weight=1200&length=30&width=20&depth=10', {
      body: { message: 'ok', data: [{ id: 's1', carrier: 'DPD', name: 'Next Day', key: 'DPD-ND', price: 5, conditions: [['Weight', '<=', '30000']] }] },
    });
    const res = await api.services.list({ weight: 1200, length: 30, width: 20, depth: 10 });
    expect(res[0].price).toBe('5.00');
    expect(res[0].conditions).toEqual([['Weight', '<=', '30000']]);
    srv.on('GET', '/v1.2/services', { body: { message: 'ok', data: [] } });
    expect(await api.services.list()).toEqual([]);
    expect(lastRequest().url).toBe('/v1.2/services');
  });

  it('customFields: list, get (one-element array unwrapped), create', async () => {
    api = freshApi();
    const cf = { id: 'cf1', name: 'Gift wrap', key: 'gift_wrap', entity: 'ORDER', data_type: 'BOOLEAN', default_value: null, mapped_to: null };
    srv.on('GET', '/v1.2/custom-fields', { body: { message: 'ok', data: [cf] } });
    srv.on('GET', '/v1.2/custom-fields/gift_wrap', { body: { message: 'ok', data: [cf] } });
    srv.on('POST', '/v1.2/custom-fields', (req) => ({ status: 201, body: { message: 'created', data: { id: 'cf2', ...(req.body as object) } } }));
    expect((await api.customFields.list())[0].entity).toBe('ORDER');
    expect((await api.customFields.get('gift_wrap')).key).toBe('gift_wrap');
    const created = await api.customFields.create({ name: 'Fragile', key: 'fragile', entity: 'parcel', data_type: 'BOOLEAN', source: 'DIRECT' } as never);
    expect(created.id).toBe('cf2');
    const r = lastRequest();
    expect(r.method).toBe('POST');
    expect(r.body).toEqual({ name: 'Fragile', key: 'fragile', entity: 'PARCEL', data_type: 'BOOLEAN', source: 'DIRECT' });
  });

  it('customFields.create: validation rules are checked before sending', async () => {
    api = freshApi();
    await expect(
      api.customFields.create({ name: 'x', key: 'x', entity: 'ORDER', data_type: 'TEXT', source: 'MAPPED' } as never),
    ).rejects.toMatchObject({
      name: 'ValidationError',
      fields: { entity: [expect.stringMatching(/one of SHIPMENT, PARCEL, CONTACT, SKU/)], mapped_to: ['is required when source is MAPPED'] },
    });
    expect(srv.requests).toHaveLength(0);
  });

  it('packaging.get: GET /packaging-options', async () => {
    api = freshApi();
    srv.on('GET', '/v1.2/packaging-options', {
      body: { message: 'ok', data: { net_weight: true, allow_override: false, packaging_types: [{ name: 'Box S', key: 'BOX-S', default: true, max_weight: 2000 }] } },
    });
    const res = await api.packaging.get();
    expect(res.allow_override).toBe(false);
    expect(res.packaging_types[0].key).toBe('BOX-S');
  });
});

describe('skus', () => {
  const sku = (n: number) => ({ id: `id-${n}`, sku: `SKU-${n}`, value_ex_vat: '10', country_of_origin: { code: 'GB', name: 'UK' }, item_handling: 'PACKABLE' });

  it('create: POST /skus with item_handling normalised', async () => {
    api = freshApi();
    srv.on('POST', '/v1.2/skus', { status: 201, body: { message: 'created', data: sku(1) } });
    const res = (await api.skus.create({ sku: 'SKU-1', item_handling: 'yes', country_of_origin: 'gb', gross_weight: '250' } as never)) as { sku: string; value_ex_vat: string };
    expect(res.sku).toBe('SKU-1');
    expect(res.value_ex_vat).toBe('10.00');
    expect(lastRequest().body).toEqual({ sku: 'SKU-1', item_handling: 'PACKABLE', country_of_origin: 'GB', gross_weight: 250 });
  });

  it('replace (PUT) and update (PATCH) on /skus/:ref', async () => {
    api = freshApi();
    srv.on('PUT', '/v1.2/skus/SKU%2F1', { body: { message: 'updated', data: null } });
    srv.on('PATCH', '/v1.2/skus/SKU%2F1', { body: { message: 'updated', data: sku(1) } });
    expect(await api.skus.replace('SKU/1', { sku: 'SKU/1', item_handling: 'non-packable' } as never)).toBeNull();
    let r = lastRequest();
    expect(r.method).toBe('PUT');
    expect(r.body).toEqual({ sku: 'SKU/1', item_handling: 'NON_PACKABLE' });
    await api.skus.update('SKU/1', { in_stock: false } as never);
    r = lastRequest();
    expect(r.method).toBe('PATCH');
    expect(r.body).toEqual({ in_stock: false });
  });

  it('list, page and all: follow links.next on the same origin', async () => {
    api = freshApi();
    const link = (p: number | null) => (p === null ? null : `${srv.baseUrl}/skus?page=${p}`);
    const page = (p: number, next: number | null) => ({
      data: [sku(p * 10 + 1), sku(p * 10 + 2)],
      links: { first: link(1), last: link(3), prev: p > 1 ? link(p - 1) : null, next: link(next) },
      meta: { current_page: p, from: 1, path: `${srv.baseUrl}/skus`, per_page: 30, to: 2 },
    });
    srv.on('GET', '/v1.2/skus', { body: page(1, 2) });
    srv.on('GET', '/v1.2/skus?page=2', { body: page(2, 3) });
    srv.on('GET', '/v1.2/skus?page=3', { body: page(3, null) });
    const first = await api.skus.list();
    expect(first.meta.current_page).toBe(1);
    expect(first.links.next).toBe(link(2));
    const second = await api.skus.page(first.links.next!);
    expect(second.data.map((s) => s.sku)).toEqual(['SKU-21', 'SKU-22']);
    expect(lastRequest().url).toBe('/v1.2/skus?page=2');
    const all: string[] = [];
    for await (const s of api.skus.all()) all.push(s.sku);
    expect(all).toEqual(['SKU-11', 'SKU-12', 'SKU-21', 'SKU-22', 'SKU-31', 'SKU-32']);
    const third = await api.skus.list({ page: 3 });
    expect(third.links.next).toBeNull();
  });

  it('page: refuses a link to another origin without sending', async () => {
    api = freshApi();
    await expect(api.skus.page('http://127.0.0.2:9/v1.2/skus?page=2')).rejects.toThrow(/not the API's origin/);
    expect(srv.requests).toHaveLength(0);
  });

  it('all: a next link on another origin is not followed; its page is asked of the base URL', async () => {
    api = freshApi();
    srv.on('GET', '/v1.2/skus', { body: { data: [sku(1)], links: { next: 'https://evil.example/v1.2/skus?page=2' }, meta: { current_page: 1 } } });
    srv.on('GET', '/v1.2/skus?page=2', { body: { data: [sku(2)], links: { next: null }, meta: { current_page: 2 } } });
    const all: string[] = [];
    for await (const s of api.skus.all()) all.push(s.sku);
    expect(all).toEqual(['SKU-1', 'SKU-2']);
    expect(srv.requests.map((r) => r.url)).toEqual(['/v1.2/skus', '/v1.2/skus?page=2']);
  });

  it('get: GET /skus/:ref', async () => {
    api = freshApi();
    srv.on('GET', '/v1.2/skus/SKU-1', { body: { message: 'ok', data: sku(1) } });
    expect((await api.skus.get('SKU-1')).id).toBe('id-1');
  });
});

describe('containers', () => {
  const container = {
    id: 'c1',
    reference: 'C26325001',
    despatch_date: '2026-11-21',
    delivery_service_key: 'CONSOL',
    clearance_country: { code: 'IE', name: 'Ireland' },
    max_parcels: null,
    max_items: null,
    max_weight: null,
    max_value: null,
    parcels: 0,
    items: 0,
    weight: 0,
    value: 0,
    status: 'Open',
  };

  it('create: POST /containers (validated, country upper-cased)', async () => {
    api = freshApi();
    srv.on('POST', '/v1.2/containers', { status: 201, body: { message: 'Container created', data: container } });
    const res = await api.containers.create({ delivery_service_key: 'CONSOL', clearance_country: 'ie', clearance_location: 'DUB', despatch_date: '2026-11-21' } as never);
    expect(res.reference).toBe('C26325001');
    expect(res.max_parcels).toBeNull();
    expect(lastRequest().body).toEqual({ delivery_service_key: 'CONSOL', clearance_country: 'IE', clearance_location: 'DUB', despatch_date: '2026-11-21' });
  });

  it('get, shipments, close, delete', async () => {
    api = freshApi();
    srv.on('GET', '/v1.2/containers/C1', { body: { message: 'ok', data: container } });
    srv.on('GET', '/v1.2/containers/C1/shipments', { body: { message: 'ok', data: { shipments: [{ id: 's1', reference: 'ORDER-1', parcels: 1, items: 2, weight: 900, value: 1999 }] } } });
    srv.on('PATCH', '/v1.2/containers/C1/close', { body: { message: 'Container closed', data: { ...container, status: 'Closed' } } });
    srv.on('DELETE', '/v1.2/containers/C1', { body: { message: 'Container deleted', data: null } });
    expect((await api.containers.get('C1')).status).toBe('Open');
    expect((await api.containers.shipments('C1'))[0].reference).toBe('ORDER-1');
    const closed = await api.containers.close('C1');
    expect(closed.message).toBe('Container closed');
    expect((closed.data as { status: string }).status).toBe('Closed');
    expect(lastRequest().method).toBe('PATCH');
    expect(await api.containers.delete('C1')).toEqual({ message: 'Container deleted' });
    expect(lastRequest().method).toBe('DELETE');
  });

  it('label (ZPL string), documents (object), commercialInvoice (array)', async () => {
    api = freshApi();
    srv.on('GET', '/v1.2/containers/C1/label?format=ZPL', { body: { message: 'ok', data: '^XA^FDC1^FS^XZ' } });
    srv.on('GET', '/v1.2/containers/C1/label?format=PDF', { body: { message: 'ok', data: { pdf: PDF_B64 } } });
    srv.on('GET', '/v1.2/containers/C1/documents', { body: { message: 'ok', data: { document: PDF_B64 } } });
    srv.on('GET', '/v1.2/containers/C1/commercial-invoice', { body: { message: 'ok', data: [{ invoice: PDF_B64 }] } });
    const zpl = await api.containers.label('C1', { format: 'ZPL' });
    expect(documentBytes(zpl, 'ZPL').toString()).toBe('^XA^FDC1^FS^XZ');
    const pdf = await api.containers.label('C1', { format: 'PDF' });
    expect(documentBytes(pdf, 'PDF').subarray(0, 4).toString()).toBe('%PDF');
    expect(documentBytes(await api.containers.documents('C1'), 'PDF').subarray(0, 4).toString()).toBe('%PDF');
    expect(documentBytes(await api.containers.commercialInvoice('C1'), 'PDF').subarray(0, 4).toString()).toBe('%PDF');
    expect(warnings).toEqual([]);
  });
});

describe('error classes on a GET', () => {
  const cases: Array<[number, object, string, number]> = [
    [400, { message: 'Bad request', data: null }, 'ValidationError', 2],
    [401, { message: 'Unauthenticated', data: null }, 'AuthError', 4],
    [403, { message: 'Forbidden', data: null }, 'AuthError', 4],
    [404, { message: 'Not found', data: null }, 'NotFoundError', 5],
    [500, { message: 'Server Error', data: null }, 'ApiError', 1],
  ];
  for (const [status, body, name, exitCode] of cases) {
    it(`${status} → ${name} (exit ${exitCode})`, async () => {
      api = freshApi();
      srv.on('GET', '/v1.2/brands/X', { status, body });
      const err = (await api.brands.get('X').catch((e: unknown) => e)) as Record<string, any>;
      expect(err.name).toBe(name);
      expect(err.exitCode).toBe(exitCode);
      expect(err.http).toMatchObject({ status, method: 'GET', path: '/brands/X', apiMessage: (body as { message: string }).message });
      if (status === 400) expect(err.fields).toEqual({});
      if (status === 401) expect(err.hint).toBe('the API key or token was rejected; run `ship login`');
      if (status === 403) expect(err.message).toMatch(/not allowed/);
      if (status === 404) expect(err.message).toBe('brand "X" not found');
      if (status === 500) expect(err.message).toContain('Server Error');
      expect(JSON.stringify(err.http)).not.toContain(API_KEY);
    });
  }

  it('network error (connection refused) → NetworkError kind refused', async () => {
    const closed = await startScenarioServer();
    const url = closed.baseUrl;
    await closed.close();
    api = createApi({ baseUrl: url, apiKey: API_KEY, token: TOKEN, maxRetries: 0 });
    await expect(api.users.list()).rejects.toMatchObject({ name: 'NetworkError', kind: 'refused', exitCode: 1, http: { method: 'GET', path: '/users' } });
  });

  it('a 200 without data for a single resource is an ApiError, not a crash later', async () => {
    api = freshApi();
    srv.on('GET', '/v1.2/locations/WH9', { body: { message: 'ok', data: null } });
    await expect(api.locations.get('WH9')).rejects.toMatchObject({ name: 'ApiError', message: expect.stringMatching(/carries no location "WH9"/) });
  });

  it('a redirect is not followed and says so', async () => {
    api = freshApi();
    srv.on('GET', '/v1.2/users', { status: 301, headers: { location: 'https://elsewhere/v1.2/users' } });
    await expect(api.users.list()).rejects.toMatchObject({ name: 'ApiError', http: { status: 301 }, message: expect.stringMatching(/redirect to https:\/\/elsewhere/) });
  });

  it('non-JSON body → ApiError naming status and content-type', async () => {
    api = freshApi();
    srv.on('GET', '/v1.2/users', { status: 200, raw: '<html>hi</html>', headers: { 'content-type': 'text/html' } });
    await expect(api.users.list()).rejects.toMatchObject({ name: 'ApiError', message: expect.stringMatching(/200.*text\/html/) });
    srv.on('GET', '/v1.2/users', { status: 502, raw: '<html>bad gateway</html>', headers: { 'content-type': 'text/html' } });
    await expect(api.users.list()).rejects.toMatchObject({ name: 'ApiError', http: { status: 502 }, message: expect.stringMatching(/502.*text\/html/) });
  });
});

describe('lenient parsing: one odd field never fails a command', () => {
  it('an odd element is kept as received with a warning; the others are normalised', async () => {
    api = freshApi();
    srv.on('GET', '/v1.2/services', {
      body: { message: 'ok', data: [{ key: 'A', price: 5, conditions: [] }, { key: 42, price: '1', conditions: 'none' }] },
    });
    const res = await api.services.list();
    expect(res[0]).toMatchObject({ key: 'A', price: '5.00' });
    expect(res[1]).toEqual({ key: 42, price: '1', conditions: 'none' });
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/^GET \/services \[1\]: the response did not match the expected shape \(.*key.*\); using it as received$/);
  });

  it('an object where a list was expected (PHP keyed array) is read as its values', async () => {
    api = freshApi();
    srv.on('GET', '/v1.2/brands', { body: { message: 'ok', data: { '0': { id: 'b1' }, '2': { id: 'b2' } } } });
    expect((await api.brands.list()).map((b) => b.id)).toEqual(['b1', 'b2']);
    expect(warnings[0]).toMatch(/expected a list/);
  });

  it('a shipment response with a wrongly typed field still returns the shipment', async () => {
    api = freshApi();
    const raw = example('post-shipments.response.json') as { data: Array<Record<string, unknown>> };
    raw.data[0].weight = 'heavy';
    srv.on('POST', '/v1.2/shipments', { status: 201, body: raw });
    const res = await api.shipments.create(validShipment() as never);
    expect(res[0].tracking_reference).toBe('P5D414200003');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('weight');
  });

  it('POST /tokens without a token at all is an error, not a warning', async () => {
    api = freshApi();
    srv.on('POST', '/v1.2/tokens', { body: { message: 'Login Successful', data: {} } });
    await expect(api.tokens.create({ username: 'u', password: 'p' })).rejects.toThrow(/no token/);
  });
});

describe('lenient SKU pages', () => {
  it('one odd SKU keeps the rest of the page normalised, with a warning', async () => {
    api = freshApi();
    srv.on('GET', '/v1.2/skus', {
      body: { data: [{ sku: 'A', value_ex_vat: 1 }, { sku: 7 }], links: { next: null }, meta: { current_page: 1, per_page: 30 } },
    });
    const page = await api.skus.list();
    expect(page.data[0].value_ex_vat).toBe('1.00');
    expect(page.data[1]).toEqual({ sku: 7 });
    expect(page.meta.per_page).toBe(30);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/^GET \/skus \[1\]/);
  });
});
