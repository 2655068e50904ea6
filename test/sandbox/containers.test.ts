// Conformance: /containers — the eight endpoints, generated references, consolidation services only, the
// Open/Closed state machine, counts and limits, documents after close, delete rules (Containers; States: Container).
import { describe, expect, it } from 'vitest';
import { hasPoppler, pdfText, renderPdf, sandboxSuite, shipment } from './client.js';

const clock = { now: new Date('2026-03-05T10:00:00Z') };
const { sb, api } = await sandboxSuite({ clock: () => clock.now });

const CONTAINER = { delivery_service_key: 'DPD_CONSOLIDATED_EU', clearance_country: 'FR', clearance_location: 'CDG' };
// Outside mainland UK an item without a SKU needs every customs attribute (Item rules).
const euItem = (over: Record<string, unknown> = {}) => ({
  short_description: 'Scarf',
  full_description: 'Knitted wool scarf',
  country_of_origin: 'GB',
  harmonised_code: '6117100000',
  item_weight: 150,
  item_value: 10,
  item_quantity: 2,
  ...over,
});
const euParcel = (over: Record<string, unknown> = {}) => ({
  weight: 1000,
  value: 20,
  items: [euItem()],
  ...over,
});
const euShipment = (ref: string, container: string, parcels = [euParcel()]) =>
  shipment(ref, { container_reference: container, to_address: { name: 'Marie Curie', line_1: '1 Rue X', city: 'Paris', postcode: '75005', country: 'FR' }, parcels });

describe('POST /containers', () => {
  it('creates an Open container with a generated reference CYYDDDSSS and the documented fields', async () => {
    const r = await api.post('/containers', CONTAINER);
    expect(r.status).toBe(201);
    const c = r.body.data;
    // 2026-03-05 is day 064 of 2026.
    expect(c.reference).toBe('C26064001');
    expect((await api.post('/containers', CONTAINER)).body.data.reference).toBe('C26064002');
    expect(c).toMatchObject({
      status: 'Open',
      despatch_date: '2026-03-05',
      delivery_service_key: 'DPD_CONSOLIDATED_EU',
      carrier: 'DPD',
      service_name: 'Consolidated Europe',
      full_service_name: 'DPD Consolidated Europe',
      clearance_country: { code: 'FR', name: 'France' },
      clearance_location: 'CDG',
      value_currency: 'GBP',
      parcels: 0,
      items: 0,
      weight: 0,
      value: 0,
      max_parcels: 20,
    });
    expect(c.despatch_location.code).toBe('WH1');
    expect(c.tracking_reference).toBeTruthy();
    expect(c.consolidation_reference).toBeTruthy();
    expect(c.clearance_location_name).toBeTruthy();
    for (const k of ['id', 'carrier_account', 'max_items', 'max_weight', 'max_value']) expect(c).toHaveProperty(k);
  });

  it('accepts a reference, despatch date, location and currency', async () => {
    const r = await api.post('/containers', { ...CONTAINER, reference: 'MY-BOX', despatch_date: '2026-04-01', despatch_location: 'SHOP1', value_currency: 'eur' });
    expect(r.body.data).toMatchObject({ reference: 'MY-BOX', despatch_date: '2026-04-01', value_currency: 'EUR' });
    expect(r.body.data.despatch_location.code).toBe('SHOP1');
    expect((await api.post('/containers', { ...CONTAINER, reference: 'MY-BOX' })).body.data.reference).toEqual(['The reference has already been taken.']);
  });

  it('sets no length limit the document does not state (reference, clearance location)', async () => {
    const r = await api.post('/containers', { ...CONTAINER, reference: 'R'.repeat(80), clearance_location: 'L'.repeat(40) });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    expect(r.body.data).toMatchObject({ reference: 'R'.repeat(80), clearance_location: 'L'.repeat(40) });
  });

  it('only consolidation services; required fields; two-letter clearance country', async () => {
    expect((await api.post('/containers', { ...CONTAINER, delivery_service_key: 'DPD_NEXT_DAY' })).body.data.delivery_service_key).toEqual([
      'The delivery service key must be a consolidation service.',
    ]);
    const r = await api.post('/containers', { clearance_country: 'France', despatch_date: '01/04/2026' });
    expect(r.status).toBe(400);
    expect(r.body.data).toMatchObject({
      delivery_service_key: ['The delivery service key field is required.'],
      clearance_location: ['The clearance location field is required.'],
      clearance_country: [expect.stringContaining('ISO 3166-1')],
      despatch_date: ['The despatch date does not match the format Y-m-d.'],
    });
  });
});

describe('Shipments in a container (States: Open + POST /shipments with container_reference)', () => {
  it('a shipment goes in, the response carries container_reference, and counts grow', async () => {
    const c = (await api.post('/containers', CONTAINER)).body.data;
    const s = await api.post('/shipments', euShipment('IN-1', c.reference, [euParcel(), euParcel({ weight: 500, value: undefined })]));
    expect(s.status).toBe(201);
    expect(s.body.data[0].container_reference).toBe(c.reference);
    expect(s.body.data[0].service_name).toBe('Consolidated Europe');
    const after = (await api.get(`/containers/${c.reference}`)).body.data;
    // value: parcel 1 declares 20.00; parcel 2 has none, so its items count (2 × 10.00) → 4000 pence
    expect(after).toMatchObject({ parcels: 2, items: 4, weight: 1500, value: 4000 });
    const byId = (await api.get(`/containers/${c.id}`)).body.data;
    expect(byId.reference).toBe(c.reference);
  });

  it('GET /containers/:ref/shipments lists summaries in data.shipments', async () => {
    const c = (await api.post('/containers', CONTAINER)).body.data;
    const s = (await api.post('/shipments', euShipment('IN-2', c.reference))).body.data[0];
    const r = await api.get(`/containers/${c.reference}/shipments`);
    expect(r.status).toBe(200);
    expect(r.body.data.shipments).toEqual([
      { id: s.id, reference: 'IN-2', tracking_reference: s.tracking_reference, parcels: 1, items: 2, weight: 1000, value: 2000, status: 'Active' },
    ]);
  });

  it('an unknown container → 400 on container_reference', async () => {
    const r = await api.post('/shipments', euShipment('IN-3', 'C00000000'));
    expect(r.body.data.container_reference).toEqual(['The selected container reference is invalid.']);
  });

  it("a different service than the container's → 400", async () => {
    const c = (await api.post('/containers', CONTAINER)).body.data;
    const r = await api.post('/shipments', { ...euShipment('IN-4', c.reference), delivery_service_key: 'DPD_CLASSIC_EU' });
    expect(r.body.data.delivery_service_key[0]).toContain("container's delivery service");
  });

  it('limits: exceeding max_parcels (20) or max_weight → 400 on container_reference', async () => {
    const c = (await api.post('/containers', CONTAINER)).body.data;
    const many = Array.from({ length: 21 }, () => euParcel({ weight: 100, items: [euItem({ short_description: 'x', item_value: 1, item_quantity: 1 })], value: 1 }));
    const r = await api.post('/shipments', euShipment('LIM-1', c.reference, many));
    expect(r.status).toBe(400);
    expect(r.body.data.container_reference[0]).toContain('max parcels (20)');
    const heavy = await api.post('/shipments', euShipment('LIM-2', c.reference, Array.from({ length: 4 }, () => euParcel({ weight: 30000 }))));
    expect(heavy.body.data.container_reference[0]).toContain('max weight');
    expect((await api.get(`/containers/${c.reference}`)).body.data.parcels).toBe(0);
  });

  it('limits count what is already inside (max_items 100)', async () => {
    const c = (await api.post('/containers', CONTAINER)).body.data;
    const lots = [euParcel({ items: [euItem({ short_description: 'Pin', item_value: 0.1, item_quantity: 60 })], value: 6 })];
    expect((await api.post('/shipments', euShipment('LIM-3', c.reference, lots))).status).toBe(201);
    const r = await api.post('/shipments', euShipment('LIM-4', c.reference, lots));
    expect(r.body.data.container_reference[0]).toContain('max items (100)');
  });
});

describe('Close, documents, delete (States: Container)', () => {
  it('PATCH close: Open → Closed; no further shipments; closing twice → 400', async () => {
    const c = (await api.post('/containers', CONTAINER)).body.data;
    await api.post('/shipments', euShipment('CL-1', c.reference));
    const r = await api.patch(`/containers/${c.reference}/close`);
    expect(r.status).toBe(200);
    expect(r.body.data.status).toBe('Closed');
    const add = await api.post('/shipments', euShipment('CL-2', c.reference));
    expect(add.status).toBe(400);
    expect(add.body.data.container_reference[0]).toContain('closed');
    expect((await api.patch(`/containers/${c.reference}/close`)).body.data.reference[0]).toContain('already closed');
  });

  it("closing manifests the container's shipments, so they can no longer be cancelled", async () => {
    const c = (await api.post('/containers', CONTAINER)).body.data;
    const s = (await api.post('/shipments', euShipment('CL-3', c.reference))).body.data[0];
    await api.patch(`/containers/${c.reference}/close`);
    const ev = (await api.get(`/parcels/${s.tracking_reference}/events`)).body.data;
    expect(ev.map((e: any) => e.type)).toEqual(['LABEL_CREATED', 'MANIFESTED']);
    expect((await api.del('/shipments/CL-3')).status).toBe(400);
  });

  it('documents and commercial invoice are generated on close (400 while Open); both are PDFs', async () => {
    const c = (await api.post('/containers', CONTAINER)).body.data;
    await api.post('/shipments', euShipment('DOC-1', c.reference));
    const early = await api.get(`/containers/${c.reference}/documents`);
    expect(early.status).toBe(400);
    // Not a validation failure (a GET creates or updates nothing): the reason in the message, no field map.
    expect(early.body).toEqual({ message: `The container ${c.reference} is open: its documents are generated when it is closed.`, data: null });
    expect((await api.get(`/containers/${c.reference}/commercial-invoice`)).status).toBe(400);
    await api.patch(`/containers/${c.reference}/close`);
    const docs = await api.get(`/containers/${c.reference}/documents`);
    expect(docs.status).toBe(200);
    const inv = await api.get(`/containers/${c.reference}/commercial-invoice`);
    expect(inv.status).toBe(200);
    for (const b64 of [docs.body.data[0].pdf, inv.body.data[0].pdf]) {
      expect(Buffer.from(b64, 'base64').subarray(0, 5).toString()).toBe('%PDF-');
      if (hasPoppler) renderPdf(b64);
    }
    if (hasPoppler) expect(pdfText(docs.body.data[0].pdf)).toContain(c.reference);
  });

  it('GET label: ZPL by default, PDF on request; invalid format → 400', async () => {
    const c = (await api.post('/containers', CONTAINER)).body.data;
    const z = (await api.get(`/containers/${c.reference}/label`)).body.data[0];
    expect(z.zpl.startsWith('CT~~CD,~CC^~CT~\n^XA')).toBe(true);
    expect(z.zpl).toContain(c.reference);
    const p = (await api.get(`/containers/${c.reference}/label?format=PDF`)).body.data[0];
    expect(Buffer.from(p.pdf, 'base64').subarray(0, 5).toString()).toBe('%PDF-');
    expect((await api.get(`/containers/${c.reference}/label?format=PNG`)).status).toBe(400);
  });

  it('DELETE: refused while it holds live shipments; allowed when empty or all cancelled', async () => {
    const empty = (await api.post('/containers', CONTAINER)).body.data;
    const del = await api.del(`/containers/${empty.reference}`);
    expect(del.status).toBe(200);
    expect(del.body.data).toBeNull();
    expect((await api.get(`/containers/${empty.reference}`)).status).toBe(404);

    const c = (await api.post('/containers', CONTAINER)).body.data;
    await api.post('/shipments', euShipment('DEL-1', c.reference));
    const refused = await api.del(`/containers/${c.reference}`);
    expect(refused.status).toBe(400);
    expect(refused.body.data.reference[0]).toContain('not cancelled');
    await api.del('/shipments/DEL-1');
    const listed = (await api.get(`/containers/${c.reference}/shipments`)).body.data.shipments;
    expect(listed[0].status).toBe('Cancelled');
    expect((await api.get(`/containers/${c.reference}`)).body.data.parcels).toBe(0);
    expect((await api.del(`/containers/${c.reference}`)).status).toBe(200);
  });

  it('DELETE: a Closed container stays (deletion is a transition from Open only)', async () => {
    const c = (await api.post('/containers', CONTAINER)).body.data;
    expect((await api.patch(`/containers/${c.reference}/close`)).status).toBe(200);
    const refused = await api.del(`/containers/${c.reference}`);
    expect(refused.status).toBe(400);
    expect(refused.body.data.reference[0]).toContain('closed');
    expect((await api.get(`/containers/${c.reference}`)).body.data.status).toBe('Closed');
  });

  it('every container endpoint 404s an unknown container', async () => {
    for (const [m, p] of [
      ['GET', ''],
      ['GET', '/label'],
      ['GET', '/documents'],
      ['GET', '/commercial-invoice'],
      ['GET', '/shipments'],
      ['PATCH', '/close'],
      ['DELETE', ''],
    ] as const) {
      const r = m === 'GET' ? await api.get(`/containers/NOPE${p}`) : m === 'PATCH' ? await api.patch(`/containers/NOPE${p}`) : await api.del(`/containers/NOPE${p}`);
      expect(r.status, `${m} ${p}`).toBe(404);
    }
  });
});
