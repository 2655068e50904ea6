// --preset shopify on a genuine Shopify orders export (test/fixtures, copied byte for byte from the shared samples).
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadCsv } from '../../src/csv/load.js';
import { presetLayout } from '../../src/csv/presets/index.js';
import type { Cell } from '../../src/shipment-input/draft.js';
import { apiValidator } from '../../src/shipment-input/validate.js';
import { SHOPIFY_EXPORT as FIXTURE, shopifyExportWithSkus } from '../helpers/shopify.js';

const CUSTOMS_REASON = (names: string) =>
  `ships outside mainland UK and line items have no SKU: customs needs the origin, tariff code and weight of ${names}, which an orders export does not carry (give them with --customs FILE.csv)`;

async function loadShopify(path: string, defaults?: Map<string, Cell>, includeFulfilled = false) {
  return loadCsv({ source: { path }, layout: await presetLayout('shopify', { includeFulfilled }), validate: await apiValidator(), defaults });
}

/** Writes an orders export of these lines (header first) to a fresh folder; its path. */
function exportFile(lines: string[]): string {
  const p = join(mkdtempSync(join(tmpdir(), 'ship-shopify-')), 'orders_export.csv');
  writeFileSync(p, lines.join('\n'));
  return p;
}

const FULFILLED = 'already fulfilled (Fulfillment Status; --include-fulfilled ships it again)';
const LINES_FULFILLED = 'every line item to ship is already fulfilled (Lineitem fulfillment status; --include-fulfilled ships them again)';

describe('--preset shopify', () => {
  it('an export of past orders ships nothing already fulfilled: orders by Fulfillment Status, lines by their own', async () => {
    const r = await loadShopify(FIXTURE);
    expect(r.shipments).toEqual([]);
    const reasons = Object.fromEntries(r.excluded.map((e) => [e.reference, e.reason]));
    // #1011 and #1013 are partial: their gift cards pending (no shipping needed), every line to ship fulfilled.
    expect(reasons).toMatchObject({ '#1005': FULFILLED, '#1001': FULFILLED, '#1011': LINES_FULFILLED, '#1013': LINES_FULFILLED, '#1017': 'no line item requires shipping', '#1019': 'no shipping address' });
    expect(r.excluded.filter((e) => e.reason === FULFILLED)).toHaveLength(14);
    expect(r.excluded).toHaveLength(19);
  });

  it('leaves out orders abroad whose line items have no SKU (customs data an export never carries), saying why', async () => {
    // --include-fulfilled (a replacement of the same orders): the genuine export's two shippable orders.
    const r = await loadShopify(FIXTURE, undefined, true);
    expect(r.rowCount).toBe(40);
    expect(r.shipments).toEqual([]);
    expect(r.excluded.filter((e) => e.reason.startsWith('ships outside mainland UK')).map((e) => [e.reference, e.rows, e.reason])).toEqual([
      ['#1005', [11, 12], CUSTOMS_REASON('"The Multi-location Snowboard", "The Videographer Snowboard"')],
      // The gift card needs no shipping: only the ski wax is an item.
      ['#1013', [31, 32], CUSTOMS_REASON('"Selling Plans Ski Wax - Selling Plans Ski Wax"').replace('line items have', 'a line item has')],
    ]);
  });

  it('with --customs, the genuine export ships its two Canadian orders: each line item filled from its product row', async () => {
    const { loadCustomsTable } = await import('../../src/csv/customs.js');
    const customs = await loadCustomsTable(resolve(import.meta.dirname, '../../examples/customs.csv'), 'customs.csv');
    const r = await loadCsv({ source: { path: FIXTURE }, layout: await presetLayout('shopify', { includeFulfilled: true }), validate: await apiValidator(), customs });
    expect(r.shipments.map((s) => [s.reference, s.rows])).toEqual([
      ['#1005', [11, 12]],
      ['#1013', [31, 32]],
    ]);
    expect(r.shipments[0].body.parcels).toEqual([
      {
        value: 1635.55,
        items: [
          { short_description: 'The Multi-location Snowboard', full_description: 'Snowboard, wood core with fibreglass laminate, no bindings', country_of_origin: 'CA', harmonised_code: '95061100', item_weight: 3400, item_value: 738.83, item_quantity: 1 },
          { short_description: 'The Videographer Snowboard', full_description: 'Snowboard, wood core with fibreglass laminate, no bindings', country_of_origin: 'CA', harmonised_code: '95061100', item_weight: 3600, item_value: 896.72, item_quantity: 1 },
        ],
      },
    ]);
    expect(r.shipments[1].body.parcels).toEqual([
      { value: 25.59, items: [{ short_description: 'Selling Plans Ski Wax - Selling Plans Ski Wax', full_description: 'Ski wax, paraffin based, 250 g bar', country_of_origin: 'US', harmonised_code: '340490', item_weight: 250, item_value: 25.59, item_quantity: 1 }] },
    ]);
  });

  it('ships exactly the two orders that have an address and a line needing shipping (SKUs on their lines)', async () => {
    const r = await loadShopify(shopifyExportWithSkus(mkdtempSync(join(tmpdir(), 'ship-shopify-'))));
    expect(r.rowCount).toBe(40);
    expect(r.shipments.map((s) => [s.reference, s.rows])).toEqual([
      ['#1005', [11, 12]],
      ['#1013', [31, 32]],
    ]);
    expect(r.shipments[0].body).toEqual({
      shipment_reference: '#1005',
      order_reference: '#1005',
      to_address: {
        // Shipping Name is empty: the company is who the carrier asks for.
        name: 'Receiving Department',
        company_name: 'Receiving Department',
        telephone: '+16135550114',
        email_address: 'karine.ruby@example.com',
        line_1: "151 O'Connor St",
        city: 'Ottawa',
        county: 'ON',
        postcode: 'K2P 2L8',
        country: 'CA',
      },
      parcels: [
        {
          value: 1635.55,
          items: [
            { sku: 'TEE-BLK-M', short_description: 'The Multi-location Snowboard', item_value: 738.83, item_quantity: 1 },
            { sku: 'SOCKS-3PK', short_description: 'The Videographer Snowboard', item_value: 896.72, item_quantity: 1 },
          ],
        },
      ],
      customs_declaration: { currency_code: 'EUR' },
    });
    // The gift card on #1013's first row is left out; its address (on that row) is kept.
    expect(r.shipments[1].body.to_address).toMatchObject({ name: 'Karine Ruby', line_1: "Box 42 - 151 O'Connor St", postcode: 'K2P 2L8', country: 'CA' });
    expect(r.shipments[1].body.parcels).toEqual([
      { value: 25.59, items: [{ sku: 'BOOK-042', short_description: 'Selling Plans Ski Wax - Selling Plans Ski Wax', item_value: 25.59, item_quantity: 1 }] },
    ]);
    expect(r.warnings).toEqual([
      { row: 11, column: 'Shipping Name', message: 'empty; order #1005 is addressed to the company "Receiving Department"' },
      { row: 31, column: 'Financial Status', message: 'pending: order #1013 is not paid (yet), and is shipped' },
    ]);
  });

  it('lists every other order with the reason it was left out', async () => {
    const r = await loadShopify(FIXTURE, undefined, true);
    const noAddress = ['#1001', '#1002', '#1003', '#1004', '#1006', '#1007', '#1010', '#1011', '#1012', '#1016', '#1019'];
    const noShipping = ['#1008', '#1009', '#1014', '#1015', '#1017', '#1018'];
    expect(r.excluded.filter((e) => e.reason === 'no shipping address').map((e) => e.reference)).toEqual(noAddress);
    expect(r.excluded.filter((e) => e.reason === 'no line item requires shipping').map((e) => e.reference)).toEqual(noShipping);
    expect(r.excluded).toHaveLength(19); // and #1005, #1013: see above
    expect(r.excluded.find((e) => e.reference === '#1008')).toMatchObject({ row: 17, rows: [17, 18, 19, 20] });
  });

  it('fills weights from --default-weight', async () => {
    const r = await loadShopify(shopifyExportWithSkus(mkdtempSync(join(tmpdir(), 'ship-shopify-'))), new Map([['weight', { value: '1500', column: '--default-weight' }]]));
    expect(r.shipments.map((s) => s.body.parcels?.[0].weight)).toEqual([1500, 1500]);
  });

  it('payment and fulfilment: refunded, voided and restocked orders left out; a partial order ships its unfulfilled lines; unpaid ones warned about', async () => {
    const header = 'Name,Email,Financial Status,Fulfillment Status,Currency,Lineitem quantity,Lineitem name,Lineitem price,Lineitem sku,Lineitem requires shipping,Lineitem fulfillment status,Shipping Name,Shipping Address1,Shipping City,Shipping Zip,Shipping Country';
    const addr = 'Ann Smith,1 High St,London,SW1A 1AA,GB';
    const p = exportFile([
      header,
      `#3001,a@example.com,refunded,unfulfilled,GBP,1,Mug,10.00,MUG-1,true,pending,${addr}`,
      `#3002,a@example.com,voided,unfulfilled,GBP,1,Mug,10.00,MUG-1,true,pending,${addr}`,
      `#3003,a@example.com,paid,restocked,GBP,1,Mug,10.00,MUG-1,true,pending,${addr}`,
      `#3004,a@example.com,paid,partial,GBP,1,Mug,10.00,MUG-1,true,fulfilled,${addr}`,
      '#3004,,,,,2,Tee,15.00,TEE-1,true,pending,,,,,',
      `#3005,a@example.com,Pending,unfulfilled,GBP,1,Mug,10.00,MUG-1,true,pending,${addr}`,
      `#3006,a@example.com,partially_refunded,fulfilled,GBP,1,Mug,10.00,MUG-1,true,fulfilled,${addr}`,
    ]);
    const r = await loadShopify(p);
    expect(r.excluded.map((e) => [e.reference, e.reason])).toEqual([
      ['#3001', 'payment refunded (Financial Status)'],
      ['#3002', 'payment voided (Financial Status)'],
      ['#3003', 'order restocked (Fulfillment Status): returned, not to ship'],
      ['#3006', FULFILLED],
    ]);
    expect(r.shipments.map((s) => [s.reference, s.body.parcels?.[0].items?.map((i) => i.sku)])).toEqual([
      ['#3004', ['TEE-1']],
      ['#3005', ['MUG-1']],
    ]);
    expect(r.shipments[0].body.parcels?.[0].value).toBe(30);
    expect(r.warnings).toEqual([
      { row: 5, column: 'Lineitem fulfillment status', message: 'fulfilled: order #3004 ships its other line items only (--include-fulfilled ships this one again)' },
      { row: 7, column: 'Financial Status', message: 'pending: order #3005 is not paid (yet), and is shipped' },
    ]);
    // A replacement: --include-fulfilled ships what Shopify marks fulfilled; refunded, voided, restocked stay out.
    const again = await loadShopify(p, undefined, true);
    expect(again.shipments.map((s) => [s.reference, s.body.parcels?.[0].items?.map((i) => i.sku)])).toEqual([
      ['#3004', ['MUG-1', 'TEE-1']],
      ['#3005', ['MUG-1']],
      ['#3006', ['MUG-1']],
    ]);
    expect(again.excluded.map((e) => e.reference)).toEqual(['#3001', '#3002', '#3003']);
  });

  it('an order leaving mainland UK carries its shipping charge and discount to the commercial invoice', async () => {
    const header = 'Name,Email,Currency,Shipping,Discount Amount,Lineitem quantity,Lineitem name,Lineitem price,Lineitem sku,Lineitem requires shipping,Shipping Name,Shipping Address1,Shipping City,Shipping Zip,Shipping Country';
    const p = exportFile([
      header,
      '#4001,a@example.com,EUR,12.50,5.00,1,Mug,10.00,MUG-001,true,Marie Curie,1 Rue X,Paris,75005,FR',
      '#4002,b@example.com,GBP,3.95,0.00,1,Mug,10.00,MUG-001,true,Ann Smith,1 High St,London,SW1A 1AA,GB',
      '#4003,c@example.com,EUR,9.00,50.00,1,Mug,10.00,MUG-001,true,Marie Curie,1 Rue X,Paris,75005,FR',
    ]);
    const r = await loadShopify(p);
    expect(r.shipments[0].body.customs_declaration).toEqual({ freight_value: 12.5, other_value: -5, currency_code: 'EUR' });
    // Domestic: no commercial invoice, so nothing but the currency.
    expect(r.shipments[1].body.customs_declaration).toEqual({ currency_code: 'GBP' });
    // A discount larger than the goods shipped (it was on something else) is capped at their value.
    expect(r.shipments[2].body.customs_declaration).toEqual({ freight_value: 9, other_value: -10, currency_code: 'EUR' });
  });

  it('a partial shipment or a replacement of an order carries none of its shipping charge or discount', async () => {
    const header = 'Name,Email,Currency,Shipping,Discount Amount,Fulfillment Status,Lineitem quantity,Lineitem name,Lineitem price,Lineitem sku,Lineitem requires shipping,Lineitem fulfillment status,Shipping Name,Shipping Address1,Shipping City,Shipping Zip,Shipping Country';
    const p = exportFile([
      header,
      '#5001,a@example.com,EUR,15.00,30.00,partial,1,Board,300.00,MUG-001,true,fulfilled,Marie Curie,1 Rue X,Paris,75005,FR',
      '#5001,,,,,,1,Wax,5.00,MUG-001,true,pending,,,,,',
      '#5001,,,,,,1,Strap,8.00,MUG-001,true,fulfilled,,,,,',
    ]);
    const r = await loadShopify(p);
    expect(r.shipments[0].body.parcels?.[0].items?.map((i) => i.short_description)).toEqual(['Wax']);
    expect(r.shipments[0].body.customs_declaration).toEqual({ currency_code: 'EUR' });
    // Every line left out as fulfilled is said, not only the first.
    expect(r.warnings.map((w) => w.row)).toEqual([2, 4]);
    const again = await loadShopify(p, undefined, true);
    expect(again.shipments[0].body.customs_declaration).toEqual({ currency_code: 'EUR' });
  });

  it('leaves out cancelled orders, and reports a bad address in Shopify\'s own column names', async () => {
    const header = 'Name,Email,Currency,Lineitem quantity,Lineitem name,Lineitem price,Lineitem sku,Lineitem requires shipping,Shipping Name,Shipping Company,Shipping Address1,Shipping Address2,Shipping City,Shipping Zip,Shipping Province,Shipping Country,Shipping Phone,Cancelled at';
    const p = exportFile([
      header,
      '#2001,a@example.com,GBP,1,Mug,10.00,MUG-1,true,Ann Smith,,1 High St,,London,SW1A 1AA,,United Kingdom,,2026-01-02 10:00:00 +0000',
      '#2002,b@example.com,GBP,2,Tee,15.00,TEE-1,true,Bob Jones,,2 High St,,Leeds,,,GBR,,',
      '#2002,,,1,Sock,x,,true,,,,,,,,,,',
    ]);
    const e = await loadShopify(p).catch((x) => x);
    expect(e.problems).toEqual([
      { row: 3, column: 'Shipping Zip', message: 'is required' },
      { row: 3, column: 'Shipping Country', message: 'must be a two-letter ISO 3166-1 country code, not "GBR" (did you mean GB?)' },
      { row: 4, column: 'Lineitem price', message: 'must be an amount like 12.50, not "x"' },
    ]);
  });

  it("takes off the apostrophe Shopify writes before a ZIP code or phone number that looks like a number", async () => {
    const header = 'Name,Email,Currency,Lineitem quantity,Lineitem name,Lineitem price,Lineitem sku,Lineitem requires shipping,Shipping Name,Shipping Company,Shipping Address1,Shipping Address2,Shipping City,Shipping Zip,Shipping Province,Shipping Country,Shipping Phone,Cancelled at';
    const p = exportFile([
      header,
      "#2001,a@example.com,USD,1,Mug,10.00,MUG-1,true,Ann Smith,,1 Main St,,Hoboken,'07030,NJ,United States,'+12015550123,",
      "#2002,b@example.com,GBP,1,Mug,10.00,MUG-1,true,Bob Jones,,2 High St,,Leeds,LS1 1AA,,United Kingdom,'07700 900123,",
    ]);
    const r = await loadShopify(p);
    expect(r.shipments.map((s) => [s.body.to_address?.postcode, s.body.to_address?.telephone])).toEqual([
      ['07030', '+12015550123'],
      ['LS1 1AA', '07700 900123'],
    ]);
    // Taken off as Shopify's mark, so not warned about as a spreadsheet's.
    expect(r.warnings.filter((w) => w.message.includes('apostrophe'))).toEqual([]);
  });

  it('refuses a value beyond the export\'s last column (an unquoted comma), naming it by position', async () => {
    const header = 'Name,Email,Currency,Lineitem quantity,Lineitem name,Lineitem price,Lineitem sku,Lineitem requires shipping,Shipping Name,Shipping Company,Shipping Address1,Shipping Address2,Shipping City,Shipping Zip,Shipping Province,Shipping Country,Shipping Phone,Cancelled at';
    const p = exportFile([
      header,
      '#2001,a@example.com,GBP,1,Mug,10.00,MUG-1,true,Ann Smith,,1 High St,,London,SW1A 1AA,,United Kingdom,,,',
      '#2002,b@example.com,GBP,1,Mug,10.00,MUG-1,true,Bob Jones,,2 High St,,Leeds,LS1 1AA,,United Kingdom,,,Flat 3',
    ]);
    const e = await loadShopify(p).catch((x) => x);
    expect(e.problems).toEqual([{ row: 3, column: '19 (no header)', message: expect.stringMatching(/^a value under no header \("Flat 3"\)/) }]);
  });

  it('refuses a file that is not a Shopify export', async () => {
    const p = join(mkdtempSync(join(tmpdir(), 'ship-shopify-')), 'x.csv');
    writeFileSync(p, 'shipment_reference,to_name\nA,B\n');
    const e = await loadShopify(p).catch((x) => x);
    expect(e.problems.map((x: { column: string }) => x.column)).toEqual(['Name', 'Lineitem quantity', 'Lineitem name', 'Lineitem price', 'Shipping Address1', 'Shipping City', 'Shipping Zip', 'Shipping Country']);
  });
});
