// Conformance: get-services quotes, cancel, events, labels, print, commercial invoice, and the tracking/shipment
// state machines (States and transitions).
import { describe, expect, it } from 'vitest';
import { startTestSandbox } from '../helpers/sandbox.js';
import { client, hasPoppler, intlShipment, pdfText, renderPdf, sandboxSuite, shipment } from './client.js';

const { sb, api } = await sandboxSuite();

describe('POST /shipments/get-services (Endpoints/Shipments; Service quote)', () => {
  it('answers recommended_service and services sorted ascending by total_price, with "0.00" strings', async () => {
    const r = await api.post('/shipments/get-services', shipment('Q-1'));
    expect(r.status).toBe(200);
    const { services, recommended_service } = r.body.data;
    expect(services.length).toBeGreaterThan(2);
    const totals = services.map((q: any) => Number(q.total_price));
    expect(totals).toEqual([...totals].sort((a, b) => a - b));
    for (const q of services) {
      for (const k of ['base_price', 'additional_parcel_price', 'surcharges', 'fuel_surcharge', 'total_price']) expect(q[k]).toMatch(/^\d+\.\d{2}$/);
      expect(q.estimated_delivery_date).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}$/);
      expect(Object.keys(q).sort()).toEqual(
        ['additional_parcel_price', 'base_price', 'carrier', 'carrier_account', 'estimated_delivery_date', 'fuel_surcharge', 'full_service_name', 'service_key', 'service_name', 'surcharges', 'total_price'].sort(),
      );
      const sum = Number(q.base_price) + Number(q.additional_parcel_price) + Number(q.surcharges) + Number(q.fuel_surcharge);
      expect(sum.toFixed(2)).toBe(q.total_price);
    }
    expect(recommended_service).toEqual(services[0]);
  });

  it('creates nothing (and so does not block the reference)', async () => {
    await api.post('/shipments/get-services', shipment('Q-2'));
    expect((await api.get('/shipments/Q-2/events')).status).toBe(404);
    expect((await api.post('/shipments', shipment('Q-2'))).status).toBe(201);
  });

  it('applies the same validation as create', async () => {
    const r = await api.post('/shipments/get-services', { parcels: [{ weight: 'x' }], to_address: { line_1: 'a^' } });
    expect(r.status).toBe(400);
    expect(r.body.message).toBe('The given data failed to pass validation.');
    expect(r.body.data).toMatchObject({
      shipment_reference: ['The shipment reference field is required.'],
      'to_address.line_1': [expect.stringContaining('caret')],
      'parcels.0.weight': ['The parcels.0.weight must be an integer.'],
    });
  });

  it('lists only services whose conditions the parcels meet (no consolidation services without a container)', async () => {
    const r = await api.post('/shipments/get-services', shipment('Q-3', { parcels: [{ weight: 5000, length: 50, width: 40, depth: 30 }] }));
    const keys = r.body.data.services.map((q: any) => q.service_key);
    expect(keys).not.toContain('RM_TRACKED_48');
    expect(keys).not.toContain('DPD_CONSOLIDATED_EU');
    expect(keys).toContain('DPD_NEXT_DAY');
  });

  it('a requested delivery_service_key becomes the recommended service when it can carry the parcels', async () => {
    const r = await api.post('/shipments/get-services', shipment('Q-4', { delivery_service_key: 'DPD_SATURDAY' }));
    expect(r.body.data.recommended_service.service_key).toBe('DPD_SATURDAY');
    expect(r.body.data.services[0].service_key).toBe('RM_TRACKED_48');
  });

  it('no service can carry it → services [] and recommended_service null', async () => {
    const r = await api.post('/shipments/get-services', shipment('Q-5', { parcels: [{ weight: 99000 }] }));
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual({ recommended_service: null, services: [] });
  });

  it('the quoted total equals the price of the shipment created with that service', async () => {
    const q = (await api.post('/shipments/get-services', shipment('Q-6', { parcels: [{ weight: 900 }, { weight: 900 }] }))).body.data.services;
    const pick = q[q.length - 1];
    const c = await api.post('/shipments', shipment('Q-6', { delivery_service_key: pick.service_key, parcels: [{ weight: 900 }, { weight: 900 }] }));
    expect(c.body.data[0].price).toBe(pick.total_price);
  });
});

describe('DELETE /shipments/:ref (Endpoints/Shipments; States: Shipment)', () => {
  it('answers {"message":"Shipment Cancelled","data":null} (api-notes)', async () => {
    await api.post('/shipments', shipment('C-1'));
    const r = await api.del('/shipments/C-1');
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ message: 'Shipment Cancelled', data: null });
  });

  it('takes the shipment reference only: its ID is not found here (":ref is the shipment reference")', async () => {
    const created = (await api.post('/shipments', shipment('C-ID'))).body.data[0];
    expect((await api.del(`/shipments/${created.id}`)).status).toBe(404);
    expect((await api.get(`/shipments/${created.id}/events`)).status).toBe(200); // events: "reference or ID"
    expect((await api.del('/shipments/C-ID')).status).toBe(200);
  });

  it('404 for an unknown reference', async () => {
    const r = await api.del('/shipments/NOPE');
    expect(r.status).toBe(404);
    expect(r.body.data).toBeNull();
  });

  it('cancelling twice → 400 "already been cancelled"', async () => {
    await api.post('/shipments', shipment('C-2'));
    await api.del('/shipments/C-2');
    const r = await api.del('/shipments/C-2');
    expect(r.status).toBe(400);
    expect(r.body.data.shipment_reference[0]).toContain('already been cancelled');
  });

  it('only before manifesting: a MANIFESTED shipment → 400 on shipment_reference (sandbox choice)', async () => {
    await api.post('/shipments', shipment('C-3'));
    await sb.control('tracking/advance', { shipment_reference: 'C-3' });
    const r = await api.del('/shipments/C-3');
    expect(r.status).toBe(400);
    expect(r.body).toEqual({
      message: 'The given data failed to pass validation.',
      data: { shipment_reference: ['The shipment has already been manifested and cannot be cancelled.'] },
    });
  });

  it('cancelled shipments are not advanced and their events stay readable', async () => {
    await api.post('/shipments', shipment('C-4'));
    await api.del('/shipments/C-4');
    const adv = await sb.control('tracking/advance', {});
    expect(adv.data.moved).toEqual([]);
    const ev = await api.get('/shipments/C-4/events');
    expect(ev.status).toBe(200);
  });
});

describe('Tracking events (Endpoints: events; Tracking Event; States: tracking)', () => {
  it('a LABEL_CREATED event exists at creation, keyed by each parcel’s carrier tracking reference', async () => {
    const d = (await api.post('/shipments', shipment('E-1', { parcels: [{ weight: 1 }, { weight: 2 }] }))).body.data;
    const r = await api.get('/shipments/E-1/events');
    expect(r.status).toBe(200);
    expect(Object.keys(r.body.data).sort()).toEqual(d.map((e: any) => e.tracking_reference).sort());
    const v = r.body.data[d[0].tracking_reference];
    expect(v.shipment_reference).toBe('E-1');
    expect(v.courier_tracking_reference).toBe(d[0].tracking_reference);
    expect(v.tracking_events).toEqual([{ code: expect.any(String), name: expect.any(String), description: expect.any(String), date: expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/), type: 'LABEL_CREATED' }]);
  });

  it('shipment events accept the shipment ID as well as the reference', async () => {
    const d = (await api.post('/shipments', shipment('E-2'))).body.data;
    const r = await api.get(`/shipments/${d[0].id}/events`);
    expect(r.status).toBe(200);
    expect(Object.keys(r.body.data)).toEqual([d[0].tracking_reference]);
  });

  it('GET /shipments/:ref/events → 404 for an unknown reference', async () => {
    expect((await api.get('/shipments/NOPE/events')).status).toBe(404);
  });

  it('advance moves each parcel LABEL_CREATED → MANIFESTED → COLLECTED → IN_TRANSIT → DELIVERED, in date order', async () => {
    const d = (await api.post('/shipments', shipment('E-3'))).body.data[0];
    for (let i = 0; i < 6; i++) await sb.control('tracking/advance', { shipment_reference: 'E-3' });
    const r = await api.get(`/parcels/${d.tracking_reference}/events`);
    expect(r.status).toBe(200);
    expect(Array.isArray(r.body.data)).toBe(true);
    expect(r.body.data.map((e: any) => e.type)).toEqual(['LABEL_CREATED', 'MANIFESTED', 'COLLECTED', 'IN_TRANSIT', 'DELIVERED']);
    const dates = r.body.data.map((e: any) => e.date);
    expect(dates).toEqual([...dates].sort());
  });

  it('advance with {} moves every live shipment; the answer lists the moves', async () => {
    await api.post('/shipments', shipment('E-4'));
    await api.post('/shipments', shipment('E-5', { parcels: [{ weight: 1 }, { weight: 1 }] }));
    const r = await sb.control('tracking/advance', {});
    expect(r.data.moved).toHaveLength(3);
    expect(r.data.moved.every((m: any) => m.from === 'LABEL_CREATED' && m.to === 'MANIFESTED')).toBe(true);
  });

  it('{"to":"DELIVERY_FAILED"} jumps straight there; a later advance delivers', async () => {
    const d = (await api.post('/shipments', shipment('E-6'))).body.data[0];
    await sb.control('tracking/advance', { shipment_reference: 'E-6', to: 'DELIVERY_FAILED' });
    let ev = (await api.get(`/parcels/${d.tracking_reference}/events`)).body.data;
    expect(ev.map((e: any) => e.type)).toEqual(['LABEL_CREATED', 'DELIVERY_FAILED']);
    await sb.control('tracking/advance', { shipment_reference: 'E-6' });
    ev = (await api.get(`/parcels/${d.tracking_reference}/events`)).body.data;
    expect(ev.at(-1).type).toBe('DELIVERED');
  });

  it('OUT_FOR_DELIVERY is an IN_TRANSIT event named "Out for delivery"', async () => {
    const d = (await api.post('/shipments', shipment('E-7'))).body.data[0];
    await sb.control('tracking/advance', { shipment_reference: 'E-7', to: 'OUT_FOR_DELIVERY' });
    const ev = (await api.get(`/parcels/${d.tracking_reference}/events`)).body.data;
    expect(ev.at(-1)).toMatchObject({ type: 'IN_TRANSIT', name: 'Out for delivery' });
  });

  it('advance rejects an unknown stage, and 404s an unknown shipment', async () => {
    const bad = await fetch(`${sb.url}/__sandbox/tracking/advance`, { method: 'POST', body: JSON.stringify({ to: 'LOST' }) });
    expect(bad.status).toBe(400);
    const missing = await fetch(`${sb.url}/__sandbox/tracking/advance`, { method: 'POST', body: JSON.stringify({ shipment_reference: 'NOPE' }) });
    expect(missing.status).toBe(404);
  });

  it('GET /parcels/:ref/events → 404 for an unknown tracking reference', async () => {
    expect((await api.get('/parcels/NOPE/events')).status).toBe(404);
  });

  it('auto-advance leaves a shipment in an open container alone; closing the container manifests it, then it moves on', async () => {
    const auto = await startTestSandbox({ autoAdvanceSeconds: 0.1 });
    try {
      const a = client(auto, await auto.login());
      const c = (await a.post('/containers', { delivery_service_key: 'DPD_CONSOLIDATED_EU', clearance_country: 'FR', clearance_location: 'CDG' })).body.data;
      const inBox = intlShipment('BOX-1', { container_reference: c.reference });
      const created = await a.post('/shipments', inBox);
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      const tracking = created.body.data[0].tracking_reference;
      const stage = async () => (await a.get(`/parcels/${tracking}/events`)).body.data.at(-1).type as string;
      // Several steps later it is still waiting for the container, and can still be cancelled.
      await new Promise((r) => setTimeout(r, 600));
      expect(await stage()).toBe('LABEL_CREATED');
      expect((await a.patch(`/containers/${c.reference}/close`)).status).toBe(200);
      expect(await stage()).toBe('MANIFESTED');
      for (let i = 0; i < 200 && (await stage()) !== 'DELIVERED'; i++) await new Promise((r) => setTimeout(r, 20));
      expect(await stage()).toBe('DELIVERED');
    } finally {
      await auto.close();
    }
  });

  it('auto-advance moves each shipment forward on its own clock, from its creation, until DELIVERED', async () => {
    const auto = await startTestSandbox({ autoAdvanceSeconds: 0.3 });
    try {
      const a = client(auto, await auto.login());
      const stage = async (ref: string) => (await a.get(`/parcels/${ref}/events`)).body.data.at(-1).type as string;
      const until = async (ref: string, type: string) => {
        for (let i = 0; i < 200 && (await stage(ref)) !== type; i++) await new Promise((r) => setTimeout(r, 20));
        return stage(ref);
      };
      const first = (await a.post('/shipments', shipment('AUTO-1'))).body.data[0].tracking_reference;
      expect(await stage(first)).toBe('LABEL_CREATED');
      expect(await until(first, 'MANIFESTED')).toBe('MANIFESTED');
      // A shipment created now starts its own clock: the first one moving does not move it.
      const second = (await a.post('/shipments', shipment('AUTO-2'))).body.data[0].tracking_reference;
      expect(await stage(second)).toBe('LABEL_CREATED');
      // The service manifested it: no cancelling any more.
      expect((await a.del('/shipments/AUTO-1')).status).toBe(400);
      expect(await until(first, 'DELIVERED')).toBe('DELIVERED');
      expect(await until(second, 'DELIVERED')).toBe('DELIVERED');
      const types = (await a.get(`/parcels/${first}/events`)).body.data.map((e: { type: string }) => e.type);
      expect(types).toEqual(['LABEL_CREATED', 'MANIFESTED', 'COLLECTED', 'IN_TRANSIT', 'DELIVERED']);
    } finally {
      await auto.close();
    }
  });

});

describe('GET /parcels/:ref/label (Endpoints/Parcels; Label)', () => {
  it('answers data as an array of Label objects with the documented fields', async () => {
    const d = (await api.post('/shipments', shipment('L-1'))).body.data[0];
    const r = await api.get(`/parcels/${d.tracking_reference}/label?format=ZPL`);
    expect(r.status).toBe(200);
    expect(Array.isArray(r.body.data)).toBe(true);
    const l = r.body.data[0];
    for (const k of ['shipment_reference', 'parcel_reference', 'carrier', 'service_name', 'tracking_reference', 'created_by', 'created_with', 'created_at', 'to_address', 'pdf', 'zpl', 'png']) expect(l).toHaveProperty(k);
    expect(l.zpl).toBe(d.zpl);
    expect(l.to_address.delivery_name).toBe('Jane Smith');
  });

  it('format PDF gives a PDF that poppler renders; PNG gives a PNG image', async () => {
    const d = (await api.post('/shipments', shipment('L-2'))).body.data[0];
    // Matched exactly, as the document lists the formats.
    expect((await api.get(`/parcels/${d.tracking_reference}/label?format=pdf`)).status).toBe(400);
    const pdf = (await api.get(`/parcels/${d.tracking_reference}/label?format=PDF`)).body.data[0];
    expect(Buffer.from(pdf.pdf, 'base64').subarray(0, 5).toString()).toBe('%PDF-');
    if (hasPoppler) {
      expect(renderPdf(pdf.pdf).subarray(1, 4).toString()).toBe('PNG');
      expect(pdfText(pdf.pdf)).toContain(d.tracking_reference);
    }
    const png = (await api.get(`/parcels/${d.tracking_reference}/label?format=PNG`)).body.data[0];
    expect(typeof png.png).toBe('string');
    expect(Buffer.from(png.png, 'base64').subarray(1, 4).toString()).toBe('PNG');
  });

  it('without format: the format the shipment was created with (sandbox choice)', async () => {
    const d = (await api.post('/shipments', shipment('L-3', { format: 'PDF' }))).body.data[0];
    const l = (await api.get(`/parcels/${d.tracking_reference}/label`)).body.data[0];
    expect(l.pdf).not.toBe('');
    expect(l.zpl).toContain('^XA');
  });

  it('an invalid format → 400; an unknown parcel → 404', async () => {
    const d = (await api.post('/shipments', shipment('L-4'))).body.data[0];
    expect((await api.get(`/parcels/${d.tracking_reference}/label?format=GIF`)).body.data).toEqual({ format: ['The selected format is invalid.'] });
    expect((await api.get('/parcels/NOPE/label')).status).toBe(404);
  });
});

describe('PUT /shipments/:ref/print (Endpoints/Shipments)', () => {
  it('message states how many labels were sent; data is []', async () => {
    await api.post('/shipments', shipment('PR-1', { parcels: [{ weight: 1 }, { weight: 1 }, { weight: 1 }] }));
    const r = await api.put('/shipments/PR-1/print', {});
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ message: '3 labels sent to printer', data: [] });
  });

  it(':ref may be the ID, the reference, the order reference, the universal or a carrier tracking reference', async () => {
    const d = (await api.post('/shipments', shipment('PR-2'))).body.data[0];
    for (const ref of [d.id, 'PR-2', 'ORD-PR-2', d.universal_tracking_reference, d.tracking_reference]) {
      const r = await api.put(`/shipments/${encodeURIComponent(ref)}/print`);
      expect(r.status, ref).toBe(200);
      expect(r.body.message).toBe('1 label sent to printer');
    }
    const jobs = await sb.control('GET prints');
    expect(jobs.data).toHaveLength(5);
  });

  it('an order reference shared by several shipments (it need not be unique) finds the latest live one, not a later cancelled one', async () => {
    await api.post('/shipments', { ...shipment('OR-A'), order_reference: 'ORDER-9' });
    await api.post('/shipments', { ...shipment('OR-B'), order_reference: 'ORDER-9' });
    expect((await api.del('/shipments/OR-B')).status).toBe(200);
    const r = await api.put('/shipments/ORDER-9/print');
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const jobs = await sb.control('GET prints');
    expect(jobs.data.at(-1)).toMatchObject({ shipment_reference: 'OR-A' });
    // With every one of them cancelled, the latest cancelled one (refused as such).
    await api.del('/shipments/OR-A');
    expect((await api.put('/shipments/ORDER-9/print')).body.data).toEqual({ shipment_reference: ['The shipment has been cancelled; its labels cannot be printed.'] });
  });

  it('print_to_user and printer_key are recorded; an unknown user → 400; unknown shipment → 404', async () => {
    await api.post('/shipments', shipment('PR-3'));
    const r = await api.put('/shipments/PR-3/print', { print_to_user: '0b6f6a52-8f3e-4d8e-9c8b-1f2d3c4b5a02', printer_key: 'desk-1' });
    expect(r.status).toBe(200);
    const jobs = await sb.control('GET prints');
    expect(jobs.data[0]).toMatchObject({ user_id: '0b6f6a52-8f3e-4d8e-9c8b-1f2d3c4b5a02', printer_key: 'desk-1', format: 'PDF' });
    expect((await api.put('/shipments/PR-3/print', { print_to_user: 'nobody' })).status).toBe(400);
    expect((await api.put('/shipments/NOPE/print')).status).toBe(404);
  });

  it('a cancelled shipment cannot be printed', async () => {
    await api.post('/shipments', shipment('PR-4'));
    await api.del('/shipments/PR-4');
    expect((await api.put('/shipments/PR-4/print')).status).toBe(400);
  });
});

describe('GET /shipments/:ref/commercial-invoice (Endpoints/Shipments; Customs Declaration)', () => {
  it('answers the A4 commercial invoice as a base64 PDF listing customs values, items, totals and export purpose', async () => {
    const s = intlShipment('INV-1', {
      customs_declaration: { duty_method: 'DDP', commercial_invoice_number: 'CI-9001', insurance_value: 2.5, freight_value: 7, other_value: -1, currency_code: 'EUR', export_purpose: { sale_of_goods: true } },
    });
    const d = (await api.post('/shipments', s)).body.data[0];
    const r = await api.get(`/shipments/${d.tracking_reference}/commercial-invoice`);
    expect(r.status).toBe(200);
    const inv = r.body.data[0];
    expect(inv.commercial_invoice_number).toBe('CI-9001');
    const bytes = Buffer.from(inv.pdf, 'base64');
    expect(bytes.subarray(0, 5).toString()).toBe('%PDF-');
    if (hasPoppler) {
      renderPdf(inv.pdf);
      const text = pdfText(inv.pdf);
      expect(text).toContain('CI-9001');
      expect(text).toContain('Ceramic mug');
      expect(text).toContain('EUR');
      expect(text).toMatch(/DDP/);
    }
  });

  it('the invoice number defaults to the order reference (Customs Declaration: commercial_invoice_number)', async () => {
    await api.post('/shipments', intlShipment('INV-2'));
    const r = await api.get('/shipments/INV-2/commercial-invoice');
    expect(r.body.data[0].commercial_invoice_number).toBe('ORD-INV-2');
  });

  it('404 for an unknown shipment', async () => {
    expect((await api.get('/shipments/NOPE/commercial-invoice')).status).toBe(404);
  });
});
