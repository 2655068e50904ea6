// Conformance: POST /shipments — response shape, formats, validation rules, routing, packaging, SKUs, custom fields.
import { describe, expect, it } from 'vitest';
import { hasPoppler, intlShipment, pdfText, sandboxSuite, shipment } from './client.js';

const { sb, api } = await sandboxSuite();

const VALIDATION = 'The given data failed to pass validation.';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('Shipment Response (Resources: Shipment Response; api-notes: Responses)', () => {
  it('answers 201 with message and data as an array with one element per parcel', async () => {
    const r = await api.post('/shipments', shipment('S-1', { parcels: [{ weight: 500 }, { weight: 700 }, { weight: 900 }] }));
    expect(r.status).toBe(201);
    expect(r.body.message).toBe('Shipment Created');
    expect(Array.isArray(r.body.data)).toBe(true);
    expect(r.body.data).toHaveLength(3);
    expect(r.body.data.map((e: any) => e.weight)).toEqual([500, 700, 900]);
  });

  it('each element has the documented fields, with UUID id, money as "0.00" strings and the timestamp formats', async () => {
    const r = await api.post('/shipments', shipment('S-2'));
    const e = r.body.data[0];
    for (const k of ['id', 'shipment_reference', 'parcel_reference', 'carrier', 'service_name', 'tracking_reference', 'universal_tracking_reference', 'created_by', 'created_with', 'created_at', 'price', 'estimated_delivery_date', 'weight', 'to_address', 'despatch_location', 'pdf', 'zpl', 'png']) {
      expect(e, k).toHaveProperty(k);
    }
    expect(e.id).toMatch(UUID);
    expect(e.shipment_reference).toBe('S-2');
    expect(e.parcel_reference).toBe('S-2-P1');
    expect(e.price).toMatch(/^\d+\.\d{2}$/);
    expect(e.created_at).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    expect(e.estimated_delivery_date).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}$/);
    expect(e.created_by).toBe('Dana Demo');
    expect(e.despatch_location.code).toBe('WH1');
    expect(e.despatch_location.address_country).toEqual({ code: 'GB', name: 'United Kingdom' });
    expect(e).not.toHaveProperty('container_reference');
  });

  it('the recipient uses delivery_name, with "" for empty optional lines (Address; api-notes)', async () => {
    const r = await api.post('/shipments', shipment('S-3'));
    expect(r.body.data[0].to_address).toEqual({ delivery_name: 'Jane Smith', line_1: '1 High Street', line_2: '', line_3: '', city: 'London', county: '', postcode: 'N1 1AA', country: 'GB' });
  });

  it('format defaults to ZPL: zpl is a ^XA…^XZ label, pdf and png are "" (Shipment request: format)', async () => {
    const e = (await api.post('/shipments', shipment('S-4'))).body.data[0];
    // Shaped like the service's own (api-notes: Responses): printer set-up first, a graphic, and the
    // placeholders of the address lines left empty.
    expect(e.zpl.startsWith('CT~~CD,~CC^~CT~\n^XA')).toBe(true);
    expect(e.zpl.match(/\^XA/g)).toHaveLength(2);
    expect(e.zpl).toMatch(/\^GFA,\d+,\d+,\d+,[0-9A-F]+\^FS/);
    expect(e.zpl).toContain('\n%ADDRESS_LINE_2%\n%ADDRESS_LINE_3%\n');
    expect(e.zpl.trimEnd().endsWith('^XZ')).toBe(true);
    expect(e.zpl.split('^XA').length - 1).toBe(e.zpl.split('^XZ').length - 1);
    expect(e.zpl).toContain('^BC');
    expect(e.zpl).toContain(e.tracking_reference);
    expect(e.pdf).toBe('');
    expect(e.png).toBe('');
  });

  it('format PDF returns a base64 PDF, and the ZPL beside it (only pdf and png are "Empty when not requested")', async () => {
    const e = (await api.post('/shipments', shipment('S-5', { format: 'PDF' }))).body.data[0];
    expect(Buffer.from(e.pdf, 'base64').subarray(0, 5).toString()).toBe('%PDF-');
    expect(e.zpl).toContain(`^FD${e.tracking_reference}^FS`);
    expect(e.png).toBe('');
  });

  it('format PNG returns png as an array of base64 PNG strings (Shipment Response: png)', async () => {
    const e = (await api.post('/shipments', shipment('S-6', { format: 'PNG' }))).body.data[0];
    expect(Array.isArray(e.png)).toBe(true);
    const buf = Buffer.from(e.png[0], 'base64');
    expect(buf.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    expect(e.pdf).toBe('');
  });

  it('tracking references are unique per parcel, and the universal one is shared by the shipment', async () => {
    const a = (await api.post('/shipments', shipment('S-7', { parcels: [{ weight: 1 }, { weight: 2 }] }))).body.data;
    const b = (await api.post('/shipments', shipment('S-8'))).body.data;
    const refs = [...a, ...b].map((e: any) => e.tracking_reference);
    expect(new Set(refs).size).toBe(3);
    expect(a[0].universal_tracking_reference).toBe(a[1].universal_tracking_reference);
    expect(a[0].universal_tracking_reference).not.toBe(b[0].universal_tracking_reference);
  });

  it('parcels without a reference get `<shipment_reference>-<n>`', async () => {
    const d = (await api.post('/shipments', shipment('S-9', { parcels: [{ weight: 1 }, { weight: 2 }] }))).body.data;
    expect(d.map((e: any) => e.parcel_reference)).toEqual(['S-9-1', 'S-9-2']);
  });

  it('a brand, a location and a despatch date are applied (Shipment request: brand, location_code, despatch_date)', async () => {
    const r = await api.post('/shipments', shipment('S-10', { brand: 'OUTLET', location_code: 'SHOP1', despatch_date: '2030-01-07 09:00:00' }));
    expect(r.status).toBe(201);
    const e = r.body.data[0];
    expect(e.despatch_location.code).toBe('SHOP1');
    expect(e.zpl).toContain('Sandbox Outlet');
    expect(e.estimated_delivery_date).toBe('2030-01-09 23:59');
  });
});

describe('Validation failure (Errors: Validation failure; Shipment request)', () => {
  it('missing required fields give "The <field> field is required." under dotted paths', async () => {
    const r = await api.post('/shipments', { to_address: {} });
    expect(r.status).toBe(400);
    expect(r.body.message).toBe(VALIDATION);
    expect(r.body.data).toMatchObject({
      shipment_reference: ['The shipment reference field is required.'],
      to_address: ['The to address field is required.'],
      parcels: ['The parcels field is required.'],
    });
  });

  it('nested required fields of to_address use the dotted path, underscores as spaces', async () => {
    const r = await api.post('/shipments', shipment('V-1', { to_address: { company_name: 'x' } }));
    expect(r.status).toBe(400);
    expect(r.body.data).toEqual({
      'to_address.name': ['The to address.name field is required.'],
      'to_address.line_1': ['The to address.line 1 field is required.'],
      'to_address.city': ['The to address.city field is required.'],
      'to_address.postcode': ['The to address.postcode field is required.'],
      'to_address.country': ['The to address.country field is required.'],
    });
  });

  it('blank strings count as missing', async () => {
    const s = shipment('  ');
    const r = await api.post('/shipments', s);
    expect(r.body.data.shipment_reference).toEqual(['The shipment reference field is required.']);
  });

  it('an empty parcels array is missing', async () => {
    const r = await api.post('/shipments', shipment('V-2', { parcels: [] }));
    expect(r.body.data.parcels).toEqual(['The parcels field is required.']);
  });

  it('a backslash anywhere is rejected on its path (Conventions: Text restriction)', async () => {
    const s = shipment('V-3', { delivery_instructions: 'Leave at door \\ back' });
    (s.to_address as any).line_2 = 'Flat 1';
    const r = await api.post('/shipments', s);
    expect(r.status).toBe(400);
    expect(Object.keys(r.body.data)).toEqual(['delivery_instructions']);
    expect(r.body.data.delivery_instructions[0]).toMatch(/backslash/);
  });

  it('a caret at any depth (parcel item) is rejected on its dotted path', async () => {
    const s = shipment('V-4', { parcels: [{ weight: 1, items: [{ short_description: 'A^B' }] }], custom_fields: { gift_message: 'hi^' } });
    const r = await api.post('/shipments', s);
    expect(r.status).toBe(400);
    expect(r.body.data['parcels.0.items.0.short_description'][0]).toMatch(/caret/);
    expect(r.body.data['custom_fields.gift_message'][0]).toMatch(/caret/);
  });

  it('a duplicate shipment_reference → "The shipment reference has already been taken." (api-notes: Errors)', async () => {
    expect((await api.post('/shipments', shipment('DUP'))).status).toBe(201);
    const r = await api.post('/shipments', shipment('DUP'));
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ message: VALIDATION, data: { shipment_reference: ['The shipment reference has already been taken.'] } });
  });

  it('a cancelled shipment\'s reference can be used again (api-notes: "cancel it and create it again with the same reference")', async () => {
    await api.post('/shipments', shipment('AGAIN'));
    expect((await api.del('/shipments/AGAIN')).status).toBe(200);
    const r = await api.post('/shipments', shipment('AGAIN'));
    expect(r.status).toBe(201);
    const ev = await api.get('/shipments/AGAIN/events');
    expect(Object.keys(ev.body.data)).toEqual([r.body.data[0].tracking_reference]);
  });

  it('a country that is not a two-letter ISO code → 400 (Conventions: Country codes)', async () => {
    for (const c of ['GBR', 'XX', 'United Kingdom', '1']) {
      const s = shipment(`C-${c}`);
      (s.to_address as any).country = c;
      const r = await api.post('/shipments', s);
      expect(r.status, c).toBe(400);
      expect(r.body.data['to_address.country'][0]).toContain('ISO 3166-1');
    }
  });

  it('lower-case country codes are accepted and answered upper-case', async () => {
    const s = shipment('C-lc');
    (s.to_address as any).country = 'gb';
    const r = await api.post('/shipments', s);
    expect(r.status).toBe(201);
    expect(r.body.data[0].to_address.country).toBe('GB');
  });

  it('format must be ZPL, PDF or PNG', async () => {
    const r = await api.post('/shipments', shipment('F-1', { format: 'GIF' }));
    expect(r.body.data.format).toEqual(['The selected format is invalid.']);
  });

  it('weights and dimensions must be integers (Parcel: Integer)', async () => {
    const r = await api.post('/shipments', shipment('I-1', { parcels: [{ weight: 'heavy', length: 1.5 }] }));
    expect(r.body.data['parcels.0.weight']).toEqual(['The parcels.0.weight must be an integer.']);
    expect(r.body.data['parcels.0.length']).toEqual(['The parcels.0.length must be an integer.']);
  });

  it('integer strings are accepted for integers (framework integer rule)', async () => {
    const r = await api.post('/shipments', shipment('I-2', { parcels: [{ weight: '1200', length: '10', width: '10', depth: '10' }] }));
    expect(r.status).toBe(201);
    expect(r.body.data[0].weight).toBe(1200);
  });

  it('parcel value must be a number', async () => {
    const r = await api.post('/shipments', shipment('I-3', { parcels: [{ weight: 5, value: 'lots' }] }));
    expect(r.body.data['parcels.0.value']).toEqual(['The parcels.0.value must be a number.']);
  });

  it('despatch_date must match Y-m-d H:i:s, whole (a date alone is refused)', async () => {
    const refused = ['The despatch date does not match the format Y-m-d H:i:s.'];
    expect((await api.post('/shipments', shipment('D-1', { despatch_date: '21/05/2030' }))).body.data.despatch_date).toEqual(refused);
    expect((await api.post('/shipments', shipment('D-2', { despatch_date: '2030-02-30 10:00:00' }))).status).toBe(400);
    expect((await api.post('/shipments', shipment('D-3', { despatch_date: '2030-05-21' }))).body.data.despatch_date).toEqual(refused);
    expect((await api.post('/shipments', shipment('D-4', { despatch_date: '2030-05-21 10:00' }))).body.data.despatch_date).toEqual(refused);
    expect((await api.post('/shipments', shipment('D-5', { despatch_date: ' 2030-05-21 10:00:00 ' }))).status).toBe(201);
  });

  it('fixed values are matched exactly, as the document lists them (format, duty_method): "pdf" is refused', async () => {
    const r = await api.post('/shipments', shipment('CASE-1', { format: 'pdf', customs_declaration: { duty_method: 'ddp' } }));
    expect(r.status).toBe(400);
    expect(r.body.data.format).toEqual(['The selected format is invalid.']);
    expect(r.body.data['customs_declaration.duty_method']).toEqual(['The selected customs declaration.duty method is invalid.']);
  });

  it('strings are trimmed as the framework does for every request: "S1 " is S1, a duplicate; " GB" is GB', async () => {
    expect((await api.post('/shipments', shipment('TRIM-1'))).status).toBe(201);
    const again = await api.post('/shipments', shipment('TRIM-1 '));
    expect(again.status).toBe(400);
    expect(again.body.data.shipment_reference).toEqual(['The shipment reference has already been taken.']);
    const padded = await api.post('/shipments', shipment('TRIM-2', { to_address: { name: ' Ann ', line_1: '1 St', city: 'Derby', postcode: 'DE1 1AA', country: ' GB' } }));
    expect(padded.status).toBe(201);
    expect(padded.body.data[0].shipment_reference).toBe('TRIM-2');
  });

  it('print_labels is a boolean as the framework\'s rule takes one: true, false, 1, 0, "1", "0"; not "true"', async () => {
    expect((await api.post('/shipments', shipment('BOOL-1', { print_labels: '1' }))).status).toBe(201);
    const r = await api.post('/shipments', shipment('BOOL-2', { print_labels: 'true' }));
    expect(r.body.data.print_labels).toEqual(['The print labels field must be true or false.']);
  });

  it('strings must be strings (framework string rule)', async () => {
    const r = await api.post('/shipments', shipment('T-1', { order_reference: 1234 }));
    expect(r.body.data.order_reference).toEqual(['The order reference must be a string.']);
  });

  it('unknown brand and location are rejected', async () => {
    const r = await api.post('/shipments', shipment('B-1', { brand: 'NOPE', location_code: 'NOPE' }));
    expect(r.body.data).toEqual({ brand: ['The selected brand is invalid.'], location_code: ['The selected location code is invalid.'] });
  });

  it('duplicate parcel references within a shipment are rejected', async () => {
    const r = await api.post('/shipments', shipment('P-1', { parcels: [{ reference: 'x', weight: 1 }, { reference: 'x', weight: 2 }] }));
    expect(r.body.data['parcels.1.reference']).toEqual(['The parcels.1.reference field has a duplicate value.']);
  });

  it('a parcel reference made up for a parcel without one is never one the caller gave another parcel', async () => {
    const r = await api.post('/shipments', shipment('IL3', { parcels: [{ weight: 1 }, { reference: 'IL3-1', weight: 2 }] }));
    expect(r.status).toBe(201);
    const refs = r.body.data.map((p: { parcel_reference: string }) => p.parcel_reference);
    expect(refs[1]).toBe('IL3-1');
    expect(new Set(refs).size).toBe(2);
  });

  it('customs_declaration.duty_method must be DAP or DDP; other_export_comments up to 1,000 characters (Customs Declaration; Limits)', async () => {
    const r = await api.post('/shipments', intlShipment('CU-1', { customs_declaration: { duty_method: 'EXW', other_export_comments: 'x'.repeat(1001), currency_code: 'EURO' } }));
    expect(r.body.data['customs_declaration.duty_method']).toEqual(['The selected customs declaration.duty method is invalid.']);
    expect(r.body.data['customs_declaration.other_export_comments']).toEqual(['The customs declaration.other export comments may not be greater than 1000 characters.']);
    expect(r.body.data['customs_declaration.currency_code'][0]).toContain('ISO 4217');
    const ok = await api.post('/shipments', intlShipment('CU-2', { customs_declaration: { duty_method: 'DDP', other_value: -5, other_export_comments: 'x'.repeat(1000) } }));
    expect(ok.status).toBe(201);
  });

  it('Kosovo\'s XK is taken, as ship\'s own check takes it (a row the whole-file check passed is not refused mid-run); codes that are no country are not', async () => {
    const xk = await api.post('/shipments', intlShipment('XK-1', { to_address: { name: 'Jean Dupont', line_1: '10 Rue de Rivoli', city: 'Pristina', postcode: '10000', country: 'XK' } }));
    expect(xk.status, JSON.stringify(xk.body)).toBe(201);
    for (const country of ['EU', 'UK', 'QQ']) {
      const r = await api.post('/shipments', intlShipment(`XK-${country}`, { to_address: { name: 'Jean Dupont', line_1: '10 Rue de Rivoli', city: 'Paris', postcode: '75001', country } }));
      expect(r.status, country).toBe(400);
    }
  });

  it('"up to 1,000 characters" counts characters, not UTF-16 units (an emoji is one); currency codes are ISO 4217 codes, not any three letters', async () => {
    const emoji = await api.post('/shipments', intlShipment('CU-3', { customs_declaration: { other_export_comments: '😀'.repeat(1000), currency_code: 'eur' } }));
    expect(emoji.status, JSON.stringify(emoji.body)).toBe(201);
    const over = await api.post('/shipments', intlShipment('CU-4', { customs_declaration: { other_export_comments: '😀'.repeat(1001), currency_code: 'QQQ' } }));
    expect(over.body.data['customs_declaration.other_export_comments']).toEqual(['The customs declaration.other export comments may not be greater than 1000 characters.']);
    expect(over.body.data['customs_declaration.currency_code']).toEqual(['The selected customs declaration.currency code is invalid.']);
    // Custom field lengths too (gift_message takes 100).
    expect((await api.post('/shipments', shipment('CF-2E', { custom_fields: { gift_message: '😀'.repeat(100) } }))).status).toBe(201);
    expect((await api.post('/shipments', shipment('CF-2F', { custom_fields: { gift_message: '😀'.repeat(101) } }))).status).toBe(400);
  });

  it('international shipments need items, each with every customs attribute (Parcel: items; Item rules)', async () => {
    const s = intlShipment('IN-1', { parcels: [{ weight: 500 }, { weight: 500, items: [{ harmonised_code: '1234' }] }] });
    const r = await api.post('/shipments', s);
    expect(r.status).toBe(400);
    expect(r.body.data['parcels.0.items']).toEqual(['The parcels.0.items field is required for deliveries outside mainland UK.']);
    // short_description is "Optional for mainland UK deliveries or with SKU lookup"; the others have "the same optionality".
    for (const [field, words] of [
      ['short_description', 'short description'],
      ['full_description', 'full description'],
      ['country_of_origin', 'country of origin'],
      ['item_weight', 'item weight'],
      ['item_value', 'item value'],
      ['item_quantity', 'item quantity'],
    ]) {
      expect(r.body.data[`parcels.1.items.0.${field}`], field).toEqual([`The parcels.1.items.0.${words} field is required.`]);
    }
    expect(r.body.data['parcels.1.items.0.harmonised_code']).toBeUndefined();
  });

  it('a SKU lookup supplies an international item\'s customs attributes (Item: sku)', async () => {
    const s = intlShipment('IN-SKU', { parcels: [{ weight: 500, items: [{ sku: 'MUG-001', item_quantity: 1 }] }] });
    expect((await api.post('/shipments', s)).status).toBe(201);
    // A SKU that is not in the inventory supplies nothing.
    const unknown = await api.post('/shipments', intlShipment('IN-NOSKU', { parcels: [{ weight: 500, items: [{ sku: 'NOPE-1', short_description: 'Mug', item_value: 5, item_quantity: 1 }] }] }));
    expect(unknown.status).toBe(400);
    expect(Object.keys(unknown.body.data).sort()).toEqual(['parcels.0.items.0.country_of_origin', 'parcels.0.items.0.full_description', 'parcels.0.items.0.harmonised_code', 'parcels.0.items.0.item_weight']);
  });

  it('an item\'s country_of_origin may be a full country name however its apostrophes and accents are typed, or ISO\'s long name', async () => {
    for (const [i, name] of ["Côte d'Ivoire", "Cote d'Ivoire", 'Côte d’Ivoire', 'Reunion', 'Iran, Islamic Republic of', "Korea, Democratic People's Republic of"].entries()) {
      const item = { short_description: 'Mug', full_description: 'Ceramic mug', country_of_origin: name, harmonised_code: '6912002310', item_weight: 400, item_value: 10, item_quantity: 1 };
      const r = await api.post('/shipments', intlShipment(`CO-${i}`, { parcels: [{ weight: 500, items: [item] }] }));
      expect(r.status, `${name}: ${JSON.stringify(r.body.data)}`).toBe(201);
    }
  });

  it('Northern Ireland (GB, BT postcode) is not mainland UK: items are required there', async () => {
    const ni = shipment('NI-1', { to_address: { name: 'Mary Ward', line_1: '1 Donegall Place', city: 'Belfast', postcode: 'BT1 5GS', country: 'GB' } });
    const r = await api.post('/shipments', ni);
    expect(r.status).toBe(400);
    expect(r.body.data['parcels.0.items']).toEqual(['The parcels.0.items field is required for deliveries outside mainland UK.']);
    const withItems = { ...ni, parcels: (intlShipment('NI-1').parcels as unknown[]) };
    expect((await api.post('/shipments', withItems)).status).toBe(201);
  });

  it('nor are Jersey and Guernsey addressed as GB (JE, GY postcodes: outside UK customs); the Isle of Man is', async () => {
    const to = (postcode: string) => ({ name: 'Ann Le Sueur', line_1: '1 King Street', city: 'St Helier', postcode, country: 'GB' });
    for (const [ref, postcode] of [['CI-1', 'JE2 4WE'], ['CI-2', 'GY1 2AA']]) {
      const r = await api.post('/shipments', shipment(ref, { to_address: to(postcode) }));
      expect(r.status).toBe(400);
      expect(r.body.data['parcels.0.items']).toEqual(['The parcels.0.items field is required for deliveries outside mainland UK.']);
    }
    expect((await api.post('/shipments', shipment('IM-1', { to_address: to('IM1 1AA') }))).status).toBe(201);
  });

  it('a body that is not an object reports every required field, as an empty object does', async () => {
    const empty = await api.post('/shipments', {});
    for (const body of [[], null]) {
      const r = await api.post('/shipments', body);
      expect(r.status).toBe(400);
      expect(Object.keys(r.body.data).sort()).toEqual(Object.keys(empty.body.data).sort());
    }
    expect(Object.keys(empty.body.data)).toContain('parcels');
  });

  it('domestic shipments need no items (Item: optional for mainland UK deliveries)', async () => {
    expect((await api.post('/shipments', shipment('DOM-1'))).status).toBe(201);
  });

  it('country_of_origin accepts a full country name or an ISO code, nothing else (Item: country_of_origin)', async () => {
    const ok = intlShipment('CO-1');
    (ok.parcels as any)[0].items[0].country_of_origin = 'Portugal';
    expect((await api.post('/shipments', ok)).status).toBe(201);
    const bad = intlShipment('CO-2');
    (bad.parcels as any)[0].items[0].country_of_origin = 'Atlantis';
    const r = await api.post('/shipments', bad);
    expect(r.body.data['parcels.0.items.0.country_of_origin'][0]).toContain('country name');
  });

  it('item_line_id: items sharing it must match, in one parcel or across several (Item: item_line_id)', async () => {
    const item = { item_line_id: 'L1', short_description: 'Lamp', item_value: 40, item_quantity: 1 };
    const okS = shipment('IL-1', { parcels: [{ weight: 1, items: [item] }, { weight: 1, items: [item] }] });
    expect((await api.post('/shipments', okS)).status).toBe(201);
    const bad = shipment('IL-2', { parcels: [{ weight: 1, items: [item] }, { weight: 1, items: [{ ...item, short_description: 'Chair' }] }] });
    const r = await api.post('/shipments', bad);
    expect(r.body.data['parcels.1.items.0.item_line_id'][0]).toContain('do not match');
    // "Prevents non-matching items appearing in the same parcel": matching ones may, differing ones may not.
    expect((await api.post('/shipments', shipment('IL-3', { parcels: [{ weight: 1, items: [item, item] }] }))).status).toBe(201);
    const mixed = shipment('IL-4', { parcels: [{ weight: 1, items: [item, { ...item, item_value: 41 }] }] });
    expect((await api.post('/shipments', mixed)).body.data['parcels.0.items.1.item_line_id'][0]).toContain('do not match');
  });

  it('print_to_user is only valid with print_labels true, and must be a user ID (Shipment request: print_to_user)', async () => {
    const r1 = await api.post('/shipments', shipment('PR-1', { print_to_user: '0b6f6a52-8f3e-4d8e-9c8b-1f2d3c4b5a02' }));
    expect(r1.body.data.print_to_user[0]).toContain('prohibited unless print labels is true');
    const r2 = await api.post('/shipments', shipment('PR-2', { print_labels: true, print_to_user: 'nobody' }));
    expect(r2.body.data.print_to_user).toEqual(['The selected print to user is invalid.']);
  });
});

describe('Routing and services (Shipment request: delivery_service_key; Delivery Service conditions)', () => {
  it('without a service key, the cheapest service whose conditions all parcels meet is chosen', async () => {
    const small = (await api.post('/shipments', shipment('R-1'))).body.data[0];
    expect(small.service_name).toBe('Tracked 48');
    const heavy = (await api.post('/shipments', shipment('R-2', { parcels: [{ weight: 5000, length: 50, width: 40, depth: 30 }] }))).body.data[0];
    expect(heavy.carrier).toBe('DPD');
    expect(heavy.service_name).toBe('Next Day');
  });

  it('one parcel failing a condition moves the whole shipment to a service that takes it', async () => {
    const d = (await api.post('/shipments', shipment('R-3', { parcels: [{ weight: 100 }, { weight: 2500 }] }))).body.data;
    expect(d[0].service_name).toBe('Next Day');
    expect(d[1].service_name).toBe('Next Day');
  });

  it('the Volume condition is applied (length × width × depth)', async () => {
    // 60×60×60 = 216,000 cm³ fits DPD Next Day's Volume <= 300,000; 70×70×70 = 343,000 does not, so the next
    // cheapest service without a volume condition (Special Delivery, 8.50) wins.
    const fits = (await api.post('/shipments', shipment('R-4a', { parcels: [{ weight: 5000, length: 60, width: 60, depth: 60 }] }))).body.data[0];
    expect(fits.service_name).toBe('Next Day');
    const e = (await api.post('/shipments', shipment('R-4', { parcels: [{ weight: 5000, length: 70, width: 70, depth: 70 }] }))).body.data[0];
    expect(e.service_name).toBe('Special Delivery Guaranteed by 1pm');
  });

  it('international destinations route to an international service', async () => {
    const e = (await api.post('/shipments', intlShipment('R-5'))).body.data[0];
    expect(e.service_name).toBe('International Tracked');
  });

  it('an explicit delivery_service_key is used, and its price is returned', async () => {
    const e = (await api.post('/shipments', shipment('R-6', { delivery_service_key: 'RM_TRACKED_24' }))).body.data[0];
    expect(e.service_name).toBe('Tracked 24');
    expect(e.price).toBe('4.10');
  });

  it('service_key is accepted as the deprecated alias (Versioning: deprecated service_key)', async () => {
    const e = (await api.post('/shipments', shipment('R-7', { service_key: 'DPD_SATURDAY' }))).body.data[0];
    expect(e.service_name).toBe('Saturday');
  });

  it('an unknown service key → 400 on the field that carried it', async () => {
    expect((await api.post('/shipments', shipment('R-8', { delivery_service_key: 'NOPE' }))).body.data).toEqual({ delivery_service_key: ['The selected delivery service key is invalid.'] });
    expect((await api.post('/shipments', shipment('R-9', { service_key: 'NOPE' }))).body.data).toEqual({ service_key: ['The selected service key is invalid.'] });
  });

  it('an explicit service whose conditions a parcel fails → 400 naming the condition', async () => {
    const r = await api.post('/shipments', shipment('R-10', { delivery_service_key: 'RM_TRACKED_48', parcels: [{ weight: 5000 }] }));
    expect(r.status).toBe(400);
    expect(r.body.data.delivery_service_key[0]).toContain('Weight must be <= 2000');
  });

  it('when no service can carry the parcels → 400 on delivery_service_key', async () => {
    const r = await api.post('/shipments', shipment('R-11', { parcels: [{ weight: 99000 }] }));
    expect(r.status).toBe(400);
    expect(r.body.data.delivery_service_key[0]).toMatch(/No delivery service/);
  });

  it('a consolidation service needs a container_reference', async () => {
    const r = await api.post('/shipments', shipment('R-12', { delivery_service_key: 'DPD_CONSOLIDATED_EU' }));
    expect(r.body.data.delivery_service_key[0]).toContain('consolidation');
  });

  it('price is the quote total: base + additional parcels + surcharges + fuel', async () => {
    const e = (await api.post('/shipments', shipment('R-13', { delivery_service_key: 'DPD_NEXT_DAY', parcels: [{ weight: 1000 }, { weight: 1000 }] }))).body.data[0];
    // 6.95 + 3.50 + 0 + 5% of 10.45 (0.52)
    expect(e.price).toBe('10.97');
  });
});

describe('Packaging rules (Parcel: packaging rules; Packaging options)', () => {
  it('with no weight or dimensions the default packaging type is used (default_weight; external mm → cm)', async () => {
    const e = (await api.post('/shipments', shipment('PK-1', { parcels: [{}] }))).body.data[0];
    expect(e.weight).toBe(500);
  });

  it('a packaging_type_key supplies the missing weight and dimensions', async () => {
    const e = (await api.post('/shipments', shipment('PK-2', { parcels: [{ packaging_type_key: 'LARGE_BOX' }] }))).body.data[0];
    expect(e.weight).toBe(5000);
  });

  it('an unknown packaging_type_key → 400', async () => {
    const r = await api.post('/shipments', shipment('PK-3', { parcels: [{ packaging_type_key: 'CRATE' }] }));
    expect(r.body.data['parcels.0.packaging_type_key']).toEqual(['The selected parcels.0.packaging type key is invalid.']);
  });

  it("a weight above the packaging type's max_weight → 400", async () => {
    const r = await api.post('/shipments', shipment('PK-4', { parcels: [{ packaging_type_key: 'MAILING_BAG', weight: 1500 }] }));
    expect(r.body.data['parcels.0.weight'][0]).toContain('1000');
  });

  it('net_weight true adds the packaging weight to the supplied weight, or to default_weight', async () => {
    await sb.control('packaging', { net_weight: true });
    const a = (await api.post('/shipments', shipment('PK-5', { parcels: [{ packaging_type_key: 'MEDIUM_BOX', weight: 1000 }] }))).body.data[0];
    expect(a.weight).toBe(1300);
    const b = (await api.post('/shipments', shipment('PK-6', { parcels: [{ packaging_type_key: 'MEDIUM_BOX' }] }))).body.data[0];
    expect(b.weight).toBe(2300);
  });

  it("allow_override false: the packaging type's dimensions win over supplied ones", async () => {
    // (A control endpoint, not the API: "false" as text is taken, as curl users write it.)
    await sb.control('packaging', { allow_override: 'false' });
    // Supplied 100 cm would exceed Tracked 48's 61 cm; the default Small Box (20 cm) is used instead.
    const e = (await api.post('/shipments', shipment('PK-7', { parcels: [{ weight: 500, length: 100, width: 10, depth: 10 }] }))).body.data[0];
    expect(e.service_name).toBe('Tracked 48');
    const opts = await api.get('/packaging-options');
    expect(opts.body.data.allow_override).toBe(false);
  });

  it('allow_override true (default): supplied dimensions are used', async () => {
    const e = (await api.post('/shipments', shipment('PK-8', { parcels: [{ weight: 500, length: 100, width: 10, depth: 10 }] }))).body.data[0];
    expect(e.service_name).not.toBe('Tracked 48');
  });
});

describe('SKU lookup in items (Item: sku)', () => {
  it('a matching SKU fills the item fields and item_quantity defaults to 1; given values override', async () => {
    const s = intlShipment('SK-1', { parcels: [{ weight: 800, items: [{ sku: 'MUG-001' }, { sku: 'TEE-BLK-M', short_description: 'Shirt', item_quantity: 3 }] }] });
    const r = await api.post('/shipments', s);
    expect(r.status).toBe(201);
    const inv = await api.get('/shipments/SK-1/commercial-invoice');
    expect(inv.status).toBe(200);
    if (hasPoppler) {
      const text = pdfText(inv.body.data[0].pdf);
      // Filled from SKU MUG-001 (full description, tariff code) with quantity 1; the T-shirt keeps its quantity 3.
      expect(text).toContain('Stoneware ceramic mug');
      expect(text).toContain('6912002310');
      expect(text).toContain('6109100010');
      expect(text).toMatch(/\b3\b/);
    }
  });

  it('an unknown SKU fills nothing (so international items still need their fields)', async () => {
    const r = await api.post('/shipments', intlShipment('SK-2', { parcels: [{ weight: 800, items: [{ sku: 'NOPE' }] }] }));
    expect(r.status).toBe(400);
    expect(r.body.data['parcels.0.items.0.short_description']).toBeDefined();
  });
});

describe('Custom fields on shipments and parcels (Custom Field; Validation Rules)', () => {
  it('an unknown key is rejected', async () => {
    const r = await api.post('/shipments', shipment('CF-1', { custom_fields: { nope: 'x' } }));
    expect(r.body.data['custom_fields.nope'][0]).toContain('no SHIPMENT custom field');
    // An empty list is an empty map, as a PHP client sends it; a list with values is not a map.
    expect((await api.post('/shipments', shipment('CF-1E', { custom_fields: [] }))).status).toBe(201);
    expect((await api.post('/shipments', shipment('CF-1L', { custom_fields: ['x'] }))).status).toBe(400);
  });

  it('max_length is enforced (gift_message max 100)', async () => {
    const r = await api.post('/shipments', shipment('CF-2', { custom_fields: { gift_message: 'x'.repeat(101) } }));
    expect(r.body.data['custom_fields.gift_message']).toEqual(['The custom fields.gift message may not be greater than 100 characters.']);
  });

  it('LIST values must be one of the options', async () => {
    const r = await api.post('/shipments', shipment('CF-3', { custom_fields: { priority: 'whenever' } }));
    expect(r.body.data['custom_fields.priority']).toEqual(['The selected custom fields.priority is invalid.']);
  });

  it('NUMERIC min/max and BOOLEAN values on parcel custom fields', async () => {
    const r = await api.post('/shipments', shipment('CF-4', { parcels: [{ weight: 1, custom_fields: { declared_value: 20000, fragile: 'maybe' } }] }));
    expect(r.body.data['parcels.0.custom_fields.declared_value']).toEqual(['The parcels.0.custom fields.declared value may not be greater than 10000.']);
    expect(r.body.data['parcels.0.custom_fields.fragile']).toEqual(['The parcels.0.custom fields.fragile field must be true or false.']);
  });

  it('defaults and FIXED values reach the webhook payload custom_fields', async () => {
    // The payload is checked in the webhook suite; here: a required field without default is enforced.
    const cf = await api.post('/custom-fields', { name: 'Customer ID', key: 'customer_id', entity: 'SHIPMENT', data_type: 'TEXT', data_validation_rules: { is_required: true, regex: '[A-Z]{2}[0-9]+' } });
    expect(cf.status).toBe(201);
    const missing = await api.post('/shipments', shipment('CF-5'));
    expect(missing.body.data['custom_fields.customer_id']).toEqual(['The custom fields.customer id field is required.']);
    const bad = await api.post('/shipments', shipment('CF-6', { custom_fields: { customer_id: 'abc' } }));
    expect(bad.body.data['custom_fields.customer_id']).toEqual(['The custom fields.customer id format is invalid.']);
    expect((await api.post('/shipments', shipment('CF-7', { custom_fields: { customer_id: 'AB123' } }))).status).toBe(201);
  });
});

describe('Printing at creation (Shipment request: print_labels)', () => {
  it("print_labels true records a print job and returns the label in the user's chosen format", async () => {
    const r = await api.post('/shipments', shipment('PL-1', { print_labels: true, format: 'PDF', parcels: [{ weight: 1 }, { weight: 2 }] }));
    expect(r.status).toBe(201);
    // The demo user's printing application is set to ZPL, which wins over `format`.
    expect(r.body.data[0].zpl).toMatch(/^CT~~CD,~CC\^~CT~\n\^XA/);
    const jobs = await sb.control('GET prints');
    expect(jobs.data).toEqual([expect.objectContaining({ shipment_reference: 'PL-1', labels: 2, format: 'ZPL' })]);
  });

  it('print_to_user prints to that user (and their format)', async () => {
    const r = await api.post('/shipments', shipment('PL-2', { print_labels: true, print_to_user: '0b6f6a52-8f3e-4d8e-9c8b-1f2d3c4b5a02' }));
    expect(r.status).toBe(201);
    expect(Buffer.from(r.body.data[0].pdf, 'base64').subarray(0, 4).toString()).toBe('%PDF');
    const jobs = await sb.control('GET prints');
    expect(jobs.data[0].user_id).toBe('0b6f6a52-8f3e-4d8e-9c8b-1f2d3c4b5a02');
  });
});
