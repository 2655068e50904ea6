// Every endpoint function × every failure class: 400 with fields, 401, 403, 404, 500, and a dropped connection.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApi, type Api } from '../../src/api/index.js';
import { startScenarioServer, type ScenarioServer } from './scenario-server.js';
import { API_KEY, TOKEN, validShipment } from './fixtures.js';

let srv: ScenarioServer;
let api: Api;
beforeAll(async () => {
  srv = await startScenarioServer();
  api = createApi({ baseUrl: srv.baseUrl, apiKey: API_KEY, token: TOKEN, maxRetries: 0 });
});
afterAll(async () => {
  await api.close();
  await srv.close();
});

const REF = 'R/1 #';
const ENC = encodeURIComponent(REF);

/** [name, method, raw path on the server, call] */
const endpoints: Array<[string, string, string, (a: Api) => Promise<unknown>]> = [
  ['tokens.create', 'POST', '/v1.2/tokens', (a) => a.tokens.create({ username: 'u', password: 'p' })],
  ['tokens.revoke', 'DELETE', '/v1.2/tokens', (a) => a.tokens.revoke()],
  ['shipments.create', 'POST', '/v1.2/shipments', (a) => a.shipments.create(validShipment() as never)],
  ['shipments.getServices', 'POST', '/v1.2/shipments/get-services', (a) => a.shipments.getServices(validShipment() as never)],
  ['shipments.cancel', 'DELETE', `/v1.2/shipments/${ENC}`, (a) => a.shipments.cancel(REF)],
  ['shipments.events', 'GET', `/v1.2/shipments/${ENC}/events`, (a) => a.shipments.events(REF)],
  ['shipments.print', 'PUT', `/v1.2/shipments/${ENC}/print`, (a) => a.shipments.print(REF)],
  ['shipments.commercialInvoice', 'GET', `/v1.2/shipments/${ENC}/commercial-invoice`, (a) => a.shipments.commercialInvoice(REF)],
  ['parcels.events', 'GET', `/v1.2/parcels/${ENC}/events`, (a) => a.parcels.events(REF)],
  ['parcels.label', 'GET', `/v1.2/parcels/${ENC}/label?format=PDF`, (a) => a.parcels.label(REF, { format: 'PDF' })],
  ['users.list', 'GET', '/v1.2/users', (a) => a.users.list()],
  ['locations.list', 'GET', '/v1.2/locations', (a) => a.locations.list()],
  ['locations.get', 'GET', `/v1.2/locations/${ENC}`, (a) => a.locations.get(REF)],
  ['brands.list', 'GET', '/v1.2/brands', (a) => a.brands.list()],
  ['brands.get', 'GET', `/v1.2/brands/${ENC}`, (a) => a.brands.get(REF)],
  ['services.list', 'GET', '/v1.2/services?weight=100', (a) => a.services.list({ weight: 100 })],
  ['customFields.list', 'GET', '/v1.2/custom-fields', (a) => a.customFields.list()],
  ['customFields.get', 'GET', `/v1.2/custom-fields/${ENC}`, (a) => a.customFields.get(REF)],
  ['customFields.create', 'POST', '/v1.2/custom-fields', (a) => a.customFields.create({ name: 'n', key: 'k', entity: 'SKU', data_type: 'TEXT' } as never)],
  ['packaging.get', 'GET', '/v1.2/packaging-options', (a) => a.packaging.get()],
  ['skus.create', 'POST', '/v1.2/skus', (a) => a.skus.create({ sku: 'S1' } as never)],
  ['skus.replace', 'PUT', `/v1.2/skus/${ENC}`, (a) => a.skus.replace(REF, { sku: 'S1' } as never)],
  ['skus.update', 'PATCH', `/v1.2/skus/${ENC}`, (a) => a.skus.update(REF, { active: false } as never)],
  ['skus.list', 'GET', '/v1.2/skus?page=2', (a) => a.skus.list({ page: 2 })],
  ['skus.page', 'GET', '/v1.2/skus?page=3', (a) => a.skus.page(`${srv.baseUrl}/skus?page=3`)],
  ['skus.get', 'GET', `/v1.2/skus/${ENC}`, (a) => a.skus.get(REF)],
  ['containers.create', 'POST', '/v1.2/containers', (a) => a.containers.create({ delivery_service_key: 'C', clearance_country: 'IE', clearance_location: 'DUB' } as never)],
  ['containers.get', 'GET', `/v1.2/containers/${ENC}`, (a) => a.containers.get(REF)],
  ['containers.label', 'GET', `/v1.2/containers/${ENC}/label?format=PDF`, (a) => a.containers.label(REF, { format: 'PDF' })],
  ['containers.documents', 'GET', `/v1.2/containers/${ENC}/documents`, (a) => a.containers.documents(REF)],
  ['containers.commercialInvoice', 'GET', `/v1.2/containers/${ENC}/commercial-invoice`, (a) => a.containers.commercialInvoice(REF)],
  ['containers.shipments', 'GET', `/v1.2/containers/${ENC}/shipments`, (a) => a.containers.shipments(REF)],
  ['containers.close', 'PATCH', `/v1.2/containers/${ENC}/close`, (a) => a.containers.close(REF)],
  ['containers.delete', 'DELETE', `/v1.2/containers/${ENC}`, (a) => a.containers.delete(REF)],
];

const failures: Array<{ status?: number; body?: object; destroy?: boolean; name: string; exitCode: number; check?: (e: any) => void }> = [
  {
    status: 400,
    body: { message: 'The given data failed to pass validation.', data: { 'to_address.name': ['The to address.name field is required.'] } },
    name: 'ValidationError',
    exitCode: 2,
    check: (e) => expect(e.fields).toEqual({ 'to_address.name': ['The to address.name field is required.'] }),
  },
  { status: 401, body: { message: 'Unauthenticated.', data: null }, name: 'AuthError', exitCode: 4, check: (e) => expect(e.hint).toMatch(/ship login|username/) },
  { status: 403, body: { message: 'Forbidden', data: null }, name: 'AuthError', exitCode: 4, check: (e) => expect(e.message).toMatch(/^not allowed/) },
  { status: 404, body: { message: 'Not Found', data: null }, name: 'NotFoundError', exitCode: 5, check: (e) => expect(e.message).toMatch(/not found/) },
  { status: 500, body: { message: 'Server Error', data: null }, name: 'ApiError', exitCode: 1, check: (e) => expect(e.message).toContain('Server Error') },
  { destroy: true, name: 'NetworkError', exitCode: 1, check: (e) => expect(e.kind).toBe('reset') },
];

describe.each(endpoints)('%s (%s %s)', (name, method, path, invoke) => {
  for (const f of failures) {
    it(`${f.status ?? 'connection dropped'} → ${f.name}`, async () => {
      srv.requests.length = 0;
      srv.on(method, path, f.destroy ? { destroy: true } : { status: f.status, body: f.body });
      const err = (await invoke(api).then(
        () => undefined,
        (e: unknown) => e,
      )) as Record<string, any> | undefined;
      expect(err, `${name} should reject`).toBeDefined();
      expect(srv.requests.map((r) => `${r.method} ${r.url}`)).toEqual([`${method} ${path}`]);
      expect(err!.name).toBe(f.name);
      expect(err!.exitCode).toBe(f.exitCode);
      expect(err!.http).toMatchObject({ method, path: path.replace('/v1.2', '') });
      if (f.status) expect(err!.http.status).toBe(f.status);
      if (f.status === 404 && path.includes(ENC)) expect(err!.message).toContain(JSON.stringify(REF));
      // A 404 for a list means the address is wrong: the hint names the base URL to check.
      if (f.status === 404 && name.endsWith('.list')) expect(err!.hint).toMatch(/check the base URL \(http:\/\/127\.0\.0\.1:\d+\/v1\.2\)/);
      f.check?.(err);
    });
  }
});
