// Request validation (dotted paths, rules, messages) and lenient response parsing of real examples.
import { describe, expect, it } from 'vitest';
import {
  ContainerRequestSchema,
  CustomFieldRequestSchema,
  DeliveryServiceSchema,
  LabelSchema,
  PackagingOptionsSchema,
  ParcelEventsSchema,
  ServiceQuotesSchema,
  ShipmentResponseSchema,
  SkuPageSchema,
  SkuRequestSchema,
  TokenResultSchema,
  hasAtMostTwoDecimals,
  normaliseItemHandling,
  toMoney,
  validateRequest,
  validateShipmentRequest,
} from '../../src/api/index.js';
import { example, validShipment } from './fixtures.js';

/** Issues of an invalid body as a path → messages map (fails the test if the body was valid). */
function issuesOf(body: unknown): Record<string, string[]> {
  const r = validateShipmentRequest(body);
  expect(r.ok, 'body should be invalid').toBe(false);
  const out: Record<string, string[]> = {};
  if (!r.ok) for (const i of r.issues) (out[i.path] ??= []).push(i.message);
  return out;
}

describe('validateShipmentRequest', () => {
  it('accepts a valid shipment and returns it unchanged', () => {
    const r = validateShipmentRequest(validShipment());
    expect(r).toEqual({ ok: true, value: validShipment() });
  });

  it('keeps unknown fields (the API may know them)', () => {
    const body = { ...validShipment(), service_key: 'OLD', future_field: { a: 1 } };
    const r = validateShipmentRequest(body);
    expect(r.ok && r.value.future_field).toEqual({ a: 1 });
  });

  it('reports every missing required field with its dotted path', () => {
    const issues = issuesOf({ to_address: {}, parcels: [] });
    expect(issues).toEqual({
      shipment_reference: ['is required'],
      'to_address.name': ['is required'],
      'to_address.line_1': ['is required'],
      'to_address.city': ['is required'],
      'to_address.postcode': ['is required'],
      'to_address.country': ['is required'],
      parcels: ['must contain at least one parcel'],
    });
  });

  it('treats missing to_address and parcels as required, and blank strings as missing', () => {
    const issues = issuesOf({ shipment_reference: '   ' });
    expect(issues.shipment_reference).toEqual(['is required']);
    expect(issues.to_address).toEqual(['is required']);
    expect(issues.parcels).toEqual(['is required']);
  });

  it('bans backslash and caret in every string at any depth, including unknown fields', () => {
    const body = validShipment();
    body.parcels[0].items[0].short_description = 'Mug ^ large';
    body.parcels[0].items[1].sku = 'A\\B';
    body.to_address.line_2 = 'Flat ^2';
    body.custom_fields = { note: ['ok', 'bad\\'] };
    const issues = issuesOf(body);
    const ban = ['must not contain a backslash (\\) or caret (^)'];
    expect(issues).toEqual({
      'parcels.0.items.0.short_description': ban,
      'parcels.0.items.1.sku': ban,
      'to_address.line_2': ban,
      'custom_fields.note.1': ban,
    });
  });

  it('requires a two-letter country code, upper-casing lower-case input', () => {
    const body = validShipment();
    body.to_address.country = 'GBR';
    expect(issuesOf(body)).toEqual({ 'to_address.country': ['must be a two-letter ISO 3166-1 country code (got "GBR")'] });
    body.to_address.country = 'gb';
    const r = validateShipmentRequest(body);
    expect(r.ok && r.value.to_address.country).toBe('GB');
    body.to_address.country = 'G1';
    expect(issuesOf(body)['to_address.country'][0]).toMatch(/two-letter/);
  });

  it('limits other_export_comments to 1000 characters', () => {
    const body = validShipment();
    body.customs_declaration = { other_export_comments: 'x'.repeat(1000) };
    expect(validateShipmentRequest(body).ok).toBe(true);
    body.customs_declaration.other_export_comments = 'x'.repeat(1001);
    expect(issuesOf(body)).toEqual({ 'customs_declaration.other_export_comments': ['must be at most 1000 characters'] });
    // Characters, not UTF-16 units: 1,000 emoji are 1,000 characters (2,000 units), as the service counts them.
    body.customs_declaration.other_export_comments = '😀'.repeat(1000);
    expect(validateShipmentRequest(body).ok).toBe(true);
    body.customs_declaration.other_export_comments = '😀'.repeat(1001);
    expect(issuesOf(body)).toEqual({ 'customs_declaration.other_export_comments': ['must be at most 1000 characters'] });
    body.customs_declaration = undefined;
    body.parcels[0].customs_declaration = { other_export_comments: 'y'.repeat(1001), duty_method: 'DDU' };
    expect(issuesOf(body)).toEqual({
      'parcels.0.customs_declaration.other_export_comments': ['must be at most 1000 characters'],
      'parcels.0.customs_declaration.duty_method': ['must be one of DAP, DDP (got "DDU")'],
    });
  });

  it('enforces integers for grams and centimetres, and at most 2 decimals for money', () => {
    const body = validShipment();
    body.parcels[0].weight = 1.5;
    body.parcels[0].length = -3;
    body.parcels[0].items[0].item_value = 4.555;
    body.parcels[0].items[1].item_quantity = 'two';
    body.customs_declaration = { other_value: -1.25, insurance_value: 'abc' };
    expect(issuesOf(body)).toEqual({
      'parcels.0.weight': ['must be a whole number of grams (no decimals)'],
      'parcels.0.length': ['must be greater than 0'],
      'parcels.0.items.0.item_value': ['must have at most 2 decimal places'],
      'parcels.0.items.1.item_quantity': ['must be a whole number'],
      'customs_declaration.insurance_value': ['must be a number'],
    });
  });

  it('coerces numeric strings (as from CSV cells) to numbers', () => {
    const body = validShipment();
    body.parcels[0].weight = '1200';
    body.parcels[0].value = '19.99';
    const r = validateShipmentRequest(body);
    expect(r.ok && r.value.parcels[0].weight).toBe(1200);
    expect(r.ok && r.value.parcels[0].value).toBe(19.99);
  });

  it('sends numbers given for text fields as text', () => {
    const body = validShipment();
    body.shipment_reference = 1001;
    body.to_address.postcode = 90210;
    const r = validateShipmentRequest(body);
    expect(r.ok && r.value.shipment_reference).toBe('1001');
    expect(r.ok && r.value.to_address.postcode).toBe('90210');
  });

  it('accepts format in any case and sends it upper-case; refuses others', () => {
    const body = validShipment();
    body.format = 'pdf';
    const r = validateShipmentRequest(body);
    expect(r.ok && r.value.format).toBe('PDF');
    body.format = 'GIF';
    expect(issuesOf(body)).toEqual({ format: ['must be one of ZPL, PDF, PNG (got "GIF")'] });
  });

  it('allows print_to_user only with print_labels true, reported alongside other problems', () => {
    const body = validShipment();
    body.print_to_user = 'user-1';
    body.to_address.city = '';
    expect(issuesOf(body)).toEqual({ print_to_user: ['is only allowed when print_labels is true'], 'to_address.city': ['is required'] });
    // Also beside a decimal where a whole number goes (a check zod aborts on, skipping its cross-field rules).
    body.parcels[0].length = 2.5;
    expect(issuesOf(body)).toMatchObject({ print_to_user: ['is only allowed when print_labels is true'], 'parcels.0.length': [expect.stringContaining('whole number')] });
    delete body.parcels[0].length;
    body.print_labels = true;
    body.to_address.city = 'Derby';
    expect(validateShipmentRequest(body).ok).toBe(true);
  });

  it('checks despatch_date as YYYY-MM-DD HH:mm:ss and a real date', () => {
    const body = validShipment();
    for (const bad of ['2026-11-21', '2026-11-21T09:00:00', '2026-02-30 10:00:00', '2026-11-21 24:00:00']) {
      body.despatch_date = bad;
      expect(issuesOf(body).despatch_date[0]).toMatch(/YYYY-MM-DD HH:mm:ss/);
    }
  });

  it('refuses a body that is not an object', () => {
    for (const b of [null, 'x', [validShipment()]]) {
      const r = validateShipmentRequest(b);
      expect(r).toEqual({ ok: false, issues: [{ path: '', message: 'must be a JSON object' }] });
    }
  });
});

describe('other request schemas', () => {
  it('SKU: item_handling in all spellings of the document', () => {
    for (const v of ['1', 'True', 'Y', 'yes', 'P', 'packable', 'PACKABLE', true, 1]) expect(normaliseItemHandling(v)).toBe('PACKABLE');
    for (const v of ['0', 'false', 'N', 'No', 'nonpackable', 'Non-Packable', 'NON_PACKABLE', false, 0]) expect(normaliseItemHandling(v)).toBe('NON_PACKABLE');
    expect(normaliseItemHandling('maybe')).toBeUndefined();
    const r = validateRequest(SkuRequestSchema, { sku: 'A', item_handling: 'maybe', country_of_origin: 'United Kingdom', width: 1.5 });
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.issues.map((i) => i.path).sort()).toEqual(['country_of_origin', 'item_handling', 'width']);
      expect(r.issues.find((i) => i.path === 'width')!.message).toMatch(/millimetres/);
    }
  });

  it('custom field: enums and the MAPPED / FIXED rules', () => {
    const ok = validateRequest(CustomFieldRequestSchema, { name: 'n', key: 'k', entity: 'sku', data_type: 'list', source: 'FIXED', default_value: 'a' });
    expect(ok.ok && ok.value.entity).toBe('SKU');
    const bad = validateRequest(CustomFieldRequestSchema, { name: 'n', key: 'k', entity: 'SKU', data_type: 'DATE', source: 'FIXED', data_validation_rules: { min_length: 5, max_length: 2 } });
    expect(bad.ok).toBe(false);
    if (!bad.ok)
      expect(bad.issues.map((i) => i.path).sort()).toEqual(['data_type', 'data_validation_rules.max_length', 'default_value']);
  });

  it('container: required consolidation fields, dates and currency', () => {
    const r = validateRequest(ContainerRequestSchema, { despatch_date: '21/11/2026', value_currency: 'EURO' });
    expect(r.ok).toBe(false);
    if (!r.ok)
      expect(r.issues.map((i) => i.path).sort()).toEqual(['clearance_country', 'clearance_location', 'delivery_service_key', 'despatch_date', 'value_currency']);
  });

  it('currency codes: ISO 4217 codes in circulation, any case; three letters that are no currency are refused', () => {
    const body = validShipment();
    body.customs_declaration = { currency_code: 'usd' };
    expect(validateShipmentRequest(body).ok).toBe(true);
    body.customs_declaration = { currency_code: 'QQQ' };
    expect(issuesOf(body)).toEqual({ 'customs_declaration.currency_code': ['is not an ISO 4217 currency code'] });
    body.customs_declaration = { currency_code: 'EURO' };
    expect(issuesOf(body)).toEqual({ 'customs_declaration.currency_code': ['must be a three-letter ISO 4217 currency code'] });
    const container = { delivery_service_key: 'DPD_CONSOLIDATED_EU', clearance_country: 'FR', clearance_location: 'AMS' };
    expect(validateRequest(ContainerRequestSchema, { ...container, value_currency: 'chf' }).ok).toBe(true);
    const r = validateRequest(ContainerRequestSchema, { ...container, value_currency: 'ABC' });
    expect(r.ok ? [] : r.issues).toEqual([{ path: 'value_currency', message: 'is not an ISO 4217 currency code' }]);
  });
});

describe('lenient responses', () => {
  it('the real POST /shipments response: ZPL kept byte for byte, png "" → [], no weight', () => {
    const raw = example('post-shipments.response.json') as { data: unknown[] };
    const r = ShipmentResponseSchema.safeParse(raw.data[0]);
    expect(r.success).toBe(true);
    if (!r.success) return;
    const original = (raw.data[0] as { zpl: string }).zpl;
    expect(r.data.zpl).toBe(original);
    expect(r.data.png).toEqual([]);
    expect(r.data.pdf).toBe('');
    expect(r.data.weight).toBeUndefined();
    expect(r.data.despatch_location).toBeUndefined();
    expect(r.data.price).toBe('0.00');
    expect(r.data.to_address?.delivery_name).toBe('Hayden Zieme');
  });

  it('tokens without user, and unknown fields are kept', () => {
    const raw = example('post-tokens.response.json') as { data: unknown };
    const r = TokenResultSchema.parse(raw.data);
    expect(r.token).toBe('749a75e3c1048965c498017efae8051f');
    const extra = ShipmentResponseSchema.parse({ shipment_reference: 'S', price: 3, new_field: 'kept', png: ['a', 'b'] });
    expect(extra).toMatchObject({ new_field: 'kept', price: '3.00', png: ['a', 'b'] });
  });

  it('money: strings and numbers normalised to 0.00; non-numbers left alone', () => {
    expect(toMoney(5)).toBe('5.00');
    expect(toMoney('5.5')).toBe('5.50');
    expect(toMoney(' 12 ')).toBe('12.00');
    expect(toMoney('N/A')).toBe('N/A');
    // Text already formatted passes through as it is; anything else near that format still goes through Number.
    for (const [v, want] of [['0.00', '0.00'], ['-0.00', '0.00'], ['08.50', '8.50'], ['999999999.99', '999999999.99'], ['1.005', '1.00'], [' 1.00', '1.00'], ['-5.00', '-5.00'], ['12345678901234567.89', '12345678901234568.00']]) {
      expect(toMoney(v)).toBe(want);
    }
    for (let i = 0; i < 2000; i++) {
      const v = `${Math.floor(Math.random() * 10 ** (1 + (i % 9)))}.${String(i % 100).padStart(2, '0')}`;
      expect(toMoney(v)).toBe(Number(v).toFixed(2));
    }
    const q = ServiceQuotesSchema.parse({ recommended_service: null, services: [{ service_key: 'a', total_price: 1.1 }] });
    expect(q.services[0].total_price).toBe('1.10');
    expect(q.recommended_service).toBeNull();
    expect(ServiceQuotesSchema.parse({}).services).toEqual([]);
  });

  // Pins today's behaviour of every list-or-none field: "" and {} are refused (lenient() then warns and keeps the answer as received).
  const listOrNoneFields = [
    ['services', ServiceQuotesSchema, {}, { service_key: 'a' }, { service_key: 5 }, ['services.0.service_key', 'Invalid input: expected string, received number']],
    ['tracking_events', ParcelEventsSchema, {}, { code: 'X' }, { date: 3 }, ['tracking_events.0.date', 'Invalid input: expected string, received number']],
    ['conditions', DeliveryServiceSchema, { key: 'K' }, ['Weight', '<=', '30000'], ['Weight', '<='], ['conditions.0', 'Invalid input']],
    ['packaging_types', PackagingOptionsSchema, {}, { key: 'BOX' }, { key: 5 }, ['packaging_types.0.key', 'Invalid input: expected string, received number']],
  ] as const;
  it.each(listOrNoneFields)('list-or-none field %s: a list, null, missing, "", {} and an odd element', (field, schema, base, element, odd, oddIssue) => {
    const issues = (value: unknown) =>
      schema.safeParse({ ...base, [field]: value }).error?.issues.map((i) => [i.path.join('.'), i.message]);
    const parsed = (value: unknown) => (schema.parse({ ...base, [field]: value }) as Record<string, unknown>)[field];

    expect(parsed([element, element])).toEqual([element, element]);
    expect(parsed([])).toEqual([]);
    expect(parsed(null)).toEqual([]);
    expect(parsed(undefined)).toEqual([]);
    expect((schema.parse(base) as Record<string, unknown>)[field]).toEqual([]);
    // A fresh [] each time: a caller that fills one must not fill another's.
    expect(parsed(null)).not.toBe(parsed(null));
    expect(issues('')).toEqual([[field, 'Invalid input: expected array, received string']]);
    expect(issues({})).toEqual([[field, 'Invalid input: expected array, received object']]);
    expect(issues([element, odd])).toEqual([[oddIssue[0].replace('.0', '.1'), oddIssue[1]]]);
    expect(issues([odd])).toEqual([oddIssue]);
  });

  it('labels: png as a string or a one-element array', () => {
    expect(LabelSchema.parse({ png: ['abc'] }).png).toBe('abc');
    expect(LabelSchema.parse({ png: 'abc' }).png).toBe('abc');
    expect(LabelSchema.parse({ png: null }).png).toBe('');
  });

  it('SKU page: links with nulls, meta', () => {
    const p = SkuPageSchema.parse({ data: [{ sku: 'A', value_ex_vat: 2 }], links: { first: 'u', last: 'u', prev: null, next: null }, meta: { current_page: 1, per_page: 30 } });
    expect(p.data[0].value_ex_vat).toBe('2.00');
    expect(p.links.next).toBeNull();
  });

  it('hasAtMostTwoDecimals tolerates float noise only', () => {
    expect(hasAtMostTwoDecimals(19.99)).toBe(true);
    expect(hasAtMostTwoDecimals(0.1 + 0.2)).toBe(true);
    expect(hasAtMostTwoDecimals(1.005)).toBe(false);
    expect(hasAtMostTwoDecimals(Number.NaN)).toBe(false);
  });
});
