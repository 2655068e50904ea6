// The built binary: `ship create --csv` against the sandbox, behind a proxy that records what was sent.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmdirSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { ship } from '../helpers/bin.js';
import { SHOPIFY_EXPORT, shopifyExportWithSkus } from '../helpers/shopify.js';
import { proxiedSandboxForFile } from '../commands/create/recording-proxy.js';

const { proxy, ...proxied } = await proxiedSandboxForFile();
const env: Record<string, string> = { ...proxied.env };
let work: string;

beforeEach(() => {
  work = mkdtempSync(join(tmpdir(), 'ship-e2e-create-'));
});

function file(name: string, text: string): string {
  const p = join(work, name);
  writeFileSync(p, text);
  return p;
}
const jsonLines = (s: string) => s.trim().split('\n').filter(Boolean).map((l) => JSON.parse(l));

describe('ship create --csv (binary)', () => {
  it('sends request bodies that match the columns exactly (multi-parcel, multi-item, custom fields)', async () => {
    const csv = file(
      'orders.csv',
      [
        'Shipment Reference,order_reference,delivery_service_key,to_name,to_company_name,to_telephone,to_email_address,to_line_1,to_line_2,to_line_3,to_city,to_county,to_postcode,to_country,delivery_instructions,recipient_eori_number,custom_fields.gift_message,parcel_reference,packaging_type_key,weight,length,width,depth,value,parcel_custom_fields.fragile,item_sku,item_line_id,item_short_description,item_full_description,item_country_of_origin,item_harmonised_code,item_weight,item_value,item_quantity',
        'E2E-1,WEB-1,DPD_CLASSIC_EU,Lise Meitner,KWI,+49 30 1,lise@example.com,Thielallee 63,Dahlem,,Berlin,Berlin,14195,Germany,"Ring twice, then wait",DE123,"Viel Spaß, Lise",E2E-1-A,MEDIUM_BOX,1650,40,30,20,40.00,true,CANDLE-LG,L1,Soy wax candle,Large soy wax candle,France,3406000000,900,25.00,1',
        'E2E-1,,,,,,,,,,,,,,,,,E2E-1-A,,,,,,,,TEE-BLK-M,L2,Cotton T-shirt,,PT,6109100010,200,15.00,1',
        'E2E-1,,,,,,,,,,,,,,,,,E2E-1-B,SMALL_BOX,700,25,20,10,14.99,false,BOOK-042,L3,Printed book,,GB,4901990000,650,14.99,1',
        'E2E-2,WEB-2,RM_TRACKED_48,Ada Lovelace,,,,12 St James\'s Square,,,London,,SW1Y 4JH,uk,,,,,,650,,,,,,,,,,,,,,',
      ].join('\r\n') + '\r\n',
    );
    const r = await ship(['create', '--csv', csv, '-o', join(work, 'labels'), '--json'], { env });
    expect(r.exitCode, String(r.stderr)).toBe(0);
    expect(jsonLines(String(r.stdout)).map((l) => [l.row, l.shipment_reference, l.status, l.labels.length])).toEqual([
      [2, 'E2E-1', 'created', 2],
      [5, 'E2E-2', 'created', 1],
    ]);
    const sent = proxy.creates().sort((a, b) => a.shipment_reference.localeCompare(b.shipment_reference));
    expect(sent).toEqual([
      {
        shipment_reference: 'E2E-1',
        order_reference: 'WEB-1',
        delivery_service_key: 'DPD_CLASSIC_EU',
        delivery_instructions: 'Ring twice, then wait',
        recipient_eori_number: 'DE123',
        to_address: {
          name: 'Lise Meitner', company_name: 'KWI', telephone: '+49 30 1', email_address: 'lise@example.com',
          line_1: 'Thielallee 63', line_2: 'Dahlem', city: 'Berlin', county: 'Berlin', postcode: '14195', country: 'DE',
        },
        custom_fields: { gift_message: 'Viel Spaß, Lise' },
        parcels: [
          {
            reference: 'E2E-1-A', packaging_type_key: 'MEDIUM_BOX', weight: 1650, length: 40, width: 30, depth: 20, value: 40,
            custom_fields: { fragile: 'true' },
            items: [
              { sku: 'CANDLE-LG', item_line_id: 'L1', short_description: 'Soy wax candle', full_description: 'Large soy wax candle', country_of_origin: 'FR', harmonised_code: '3406000000', item_weight: 900, item_value: 25, item_quantity: 1 },
              { sku: 'TEE-BLK-M', item_line_id: 'L2', short_description: 'Cotton T-shirt', country_of_origin: 'PT', harmonised_code: '6109100010', item_weight: 200, item_value: 15, item_quantity: 1 },
            ],
          },
          {
            reference: 'E2E-1-B', packaging_type_key: 'SMALL_BOX', weight: 700, length: 25, width: 20, depth: 10, value: 14.99,
            custom_fields: { fragile: 'false' },
            items: [{ sku: 'BOOK-042', item_line_id: 'L3', short_description: 'Printed book', country_of_origin: 'GB', harmonised_code: '4901990000', item_weight: 650, item_value: 14.99, item_quantity: 1 }],
          },
        ],
        format: 'ZPL',
      },
      {
        shipment_reference: 'E2E-2',
        order_reference: 'WEB-2',
        delivery_service_key: 'RM_TRACKED_48',
        to_address: { name: 'Ada Lovelace', line_1: "12 St James's Square", city: 'London', postcode: 'SW1Y 4JH', country: 'GB' },
        parcels: [{ weight: 650 }],
        format: 'ZPL',
      },
    ]);
    // Labels as the API sent them, one per parcel.
    const zpl = readFileSync(join(work, 'labels', 'E2E-1_2.zpl'), 'utf8');
    expect(zpl).toMatch(/\^XA[\s\S]*\^XZ/);
  });

  it('from flags: --parcel custom_fields.KEY=value sends that parcel custom field; the API\'s rule on it names the flag', async () => {
    const to = ['--to-name', 'Ann', '--to-line1', '1 St', '--to-city', 'Leeds', '--to-postcode', 'LS1 1AA', '--to-country', 'GB'];
    const r = await ship(['create', '--reference', 'PCF-1', ...to, '--parcel', 'weight=500,custom_fields.fragile=true', '--parcel', 'weight=300,cf.declared_value="12.50"', '-o', join(work, 'labels'), '--json'], { env });
    expect(r.exitCode, String(r.stderr)).toBe(0);
    const sent = proxy.creates().find((b) => b.shipment_reference === 'PCF-1');
    expect(sent.parcels).toEqual([{ weight: 500, custom_fields: { fragile: 'true' } }, { weight: 300, custom_fields: { declared_value: '12.50' } }]);
    // The sandbox's rule for declared_value (at most 10000), reported against the flag that gave it.
    const bad = await ship(['create', '--reference', 'PCF-2', ...to, '--parcel', 'weight=500,cf.declared_value=99999', '-o', join(work, 'labels')], { env });
    expect(bad.exitCode).toBe(2);
    expect(String(bad.stderr)).toMatch(/--parcel #1 custom_fields\.declared_value: .*10000/);
  });

  it('from flags: the customs declaration (duty method, currency, values, export purpose) reaches the API; its problems name the flags', async () => {
    const abroad = ['--to-name', 'Jean', '--to-line1', '1 Rue de Rivoli', '--to-city', 'Paris', '--to-postcode', '75001', '--to-country', 'FR', '--weight', '1200',
      '--item', 'description=Mug,full_description=Ceramic mug,origin=GB,hs=691200,weight=300,value=4.50,quantity=2'];
    const customs = ['--duty-method', 'ddp', '--currency', 'eur', '--invoice-number', 'INV-7', '--insurance-value', '1.00', '--freight-value', '4.95',
      '--packing-value', '0.50', '--handling-value', '0.25', '--other-value', '-3.00', '--export-license-number', 'L-1', '--export-certificate-number', 'C-1',
      '--export-comments', 'Sample, not for resale', '--export-purpose', 'gift,Sale of goods,other=Repair, then return'];
    const r = await ship(['create', '--reference', 'CD-1', ...abroad, ...customs, '-o', join(work, 'labels'), '--json'], { env });
    expect(r.exitCode, String(r.stderr)).toBe(0);
    expect(proxy.creates().find((b) => b.shipment_reference === 'CD-1').customs_declaration).toEqual({
      duty_method: 'DDP', currency_code: 'EUR', commercial_invoice_number: 'INV-7', insurance_value: 1, freight_value: 4.95, packing_value: 0.5,
      handling_value: 0.25, other_value: -3, export_license_number: 'L-1', export_certificate_number: 'C-1', other_export_comments: 'Sample, not for resale',
      export_purpose: { gift: true, sale_of_goods: true, other: 'Repair, then return' },
    });
    // Quote takes the same flags.
    const q = await ship(['quote', ...abroad, '--duty-method', 'DAP', '--json'], { env });
    expect(q.exitCode, String(q.stderr)).toBe(0);
    expect(proxy.requests.filter((x) => x.path.endsWith('/get-services')).at(-1)?.body.customs_declaration).toEqual({ duty_method: 'DAP' });

    const sentBefore = proxy.creates().length;
    const bad = await ship(['create', '--reference', 'CD-2', ...abroad, '--duty-method', 'EXW', '--currency', 'euro', '--freight-value', '-1', '--export-purpose', 'gfit', '-o', join(work, 'labels')], { env });
    expect(bad.exitCode).toBe(2);
    const err = String(bad.stderr);
    expect(err).toMatch(/^ {2}--duty-method: must be DAP or DDP, not "EXW"$/m);
    expect(err).toMatch(/^ {2}--currency: must be a three-letter ISO 4217 currency code/m);
    expect(err).toMatch(/^ {2}--freight-value: must not be negative$/m);
    expect(err).toMatch(/^ {2}--export-purpose: "gfit" is not an export purpose/m);
    expect(proxy.creates()).toHaveLength(sentBefore);
  });

  it('a despatch_date before today in every row: one warning naming the rows, not one a row; still valid', async () => {
    const rows = [2, 3, 4, 5, 6, 7, 8].map((n) => `PAST-${n},Ann,1 St,Leeds,LS1 1AA,GB,500,2020-01-0${n}`);
    const csv = file('past.csv', ['shipment_reference,to_name,to_line_1,to_city,to_postcode,to_country,weight,despatch_date', ...rows].join('\n') + '\n');
    const r = await ship(['create', '--csv', csv, '--dry-run', '--json'], { env });
    expect(r.exitCode, String(r.stderr)).toBe(0);
    const warnings = String(r.stderr).split('\n').filter((l) => l.includes('in the past'));
    expect(warnings).toHaveLength(7); // seven different dates: seven warnings
    const same = file('same.csv', ['shipment_reference,to_name,to_line_1,to_city,to_postcode,to_country,weight,despatch_date', ...[2, 3, 4, 5, 6, 7, 8].map((n) => `SAME-${n},Ann,1 St,Leeds,LS1 1AA,GB,500,2020-01-01`)].join('\n') + '\n');
    const s = await ship(['create', '--csv', same, '--dry-run'], { env });
    expect(s.exitCode, String(s.stderr)).toBe(0);
    expect(String(s.stderr).split('\n').filter((l) => l.includes('in the past'))).toEqual([
      expect.stringMatching(/rows 2, 3, 4, 5, 6 and 2 more, column despatch_date: 2020-01-01 is in the past \(today is \d{4}-\d{2}-\d{2}\); sent as it is/),
    ]);
  });

  it.runIf(process.platform === 'linux')('a label directory that cannot be made (-o under /proc, where Node\'s own mkdir loops forever) fails at once, before anything is created', async () => {
    const to = ['--to-name', 'Ann', '--to-line1', '1 St', '--to-city', 'Leeds', '--to-postcode', 'LS1 1AA', '--to-country', 'GB', '--weight', '100'];
    const one = await ship(['create', '--reference', 'PROC-1', ...to, '-o', '/proc/ship-e2e/labels'], { env, timeout: 20_000 });
    expect(one.exitCode).toBe(1);
    expect(String(one.stderr)).toMatch(/\/proc\/ship-e2e: no such file or directory \(mkdir\)/);
    const csv = file('proc.csv', 'shipment_reference,to_name,to_line_1,to_city,to_postcode,to_country,weight\nPROC-2,Ann,1 St,Leeds,LS1 1AA,GB,100\n');
    const bulk = await ship(['create', '--csv', csv, '--yes', '-o', '/proc/ship-e2e/labels'], { env, timeout: 20_000 });
    expect(bulk.exitCode).toBe(1);
    expect(proxy.creates().filter((b) => String(b.shipment_reference).startsWith('PROC-'))).toEqual([]);
  });

  it('reports every invalid row with row and column, exits 2, and sends nothing at all', async () => {
    const csv = file(
      'bad.csv',
      [
        'shipment_reference,to_name,to_line_1,to_city,to_postcode,to_country,weight,item_short_description',
        'B-1,Ann\\Smith,1 High St,London,E1 1AA,GB,100,Mug',
        'B-2,Bob,2 High St^,Leeds,LS1 1AA,GB,100,Mug',
        'B-3,Cy,3 High St,York,,GB,100,Mug',
        'B-4,Dee,4 Rue,Paris,75001,FRA,100,Mug',
        'B-5,Eve,5 High St,Bath,BA1 1AA,GB,100,Mug',
        'B-5,Eva,5 High St,Bath,BA1 1AA,IE,200,Tea',
        'B-6,Fay,6 High St,Hull,HU1 1AA,GB,100,Mug',
      ].join('\n') + '\n',
    );
    const r = await ship(['create', '--csv', csv, '-o', join(work, 'labels')], { env });
    expect(r.exitCode).toBe(2);
    const err = String(r.stderr);
    expect(err).toContain('bad.csv: 6 problems in 5 rows; nothing was sent');
    for (const line of [
      'row 2, column to_name: must not contain a backslash (\\) or caret (^)',
      'row 3, column to_line_1: must not contain a backslash (\\) or caret (^)',
      'row 4, column to_postcode: is required',
      'row 5, column to_country: must be a two-letter ISO 3166-1 country code, not "FRA" (did you mean FR?)',
      'row 7, column to_name: "Eva" differs from "Eve" in row 6 of the same shipment',
      'row 7, column to_country: "IE" differs from "GB" in row 6 of the same shipment',
    ]) {
      expect(err).toContain(line);
    }
    expect(proxy.requests).toEqual([]);
    expect(String(r.stdout)).toBe('');

    const j = await ship(['create', '--csv', csv, '--json'], { env });
    expect(j.exitCode).toBe(2);
    const problems = JSON.parse(String(j.stderr).trim()).error.problems;
    expect(problems.map((p: { row: number; column: string }) => `${p.row}:${p.column}`)).toEqual(['2:to_name', '3:to_line_1', '4:to_postcode', '5:to_country', '7:to_name', '7:to_country']);
    expect(proxy.requests).toEqual([]);
  });

  it('a stray quote on one row and a missing postcode on another: both reported at their rows, exit 2, nothing sent', async () => {
    const csv = file(
      'quotes.csv',
      [
        'shipment_reference,to_name,to_line_1,to_city,to_postcode,to_country,weight,item_short_description',
        'Q-1,Ann,1 High St,London,E1 1AA,GB,100,Mug',
        'Q-2,Bob,2 High St,Leeds,LS1 1AA,GB,100,6" frame',
        'Q-2,,,,,,,Tea',
        'Q-3,Cy,"3 High St,\nBack door",York,YO1 7HH,GB,100,Mug',
        'Q-4,Dee,4 High St,Bath,,GB,100,Mug',
        'Q-5,Eve,5 High St,Hull,HU1 1AA,GB,100,Mug',
      ].join('\r\n') + '\r\n',
    );
    const r = await ship(['create', '--csv', csv, '-o', join(work, 'labels')], { env });
    expect(r.exitCode, String(r.stderr)).toBe(2);
    const err = String(r.stderr);
    expect(err).toContain('quotes.csv: 2 problems in 2 rows; nothing was sent');
    // Row 6 is the file's seventh line (row 5 has a line break in quotes): rows are what a spreadsheet shows.
    expect(err).toMatch(
      /row 3, column item_short_description: a stray quote \(\"\) inside the cell: .*\n\s*row 6, column to_postcode: is required$/,
    );
    expect(String(r.stdout)).toBe('');
    expect(proxy.creates()).toEqual([]);
    expect(proxy.requests.filter((q) => q.method === 'POST')).toEqual([]);

    const j = await ship(['create', '--csv', csv, '--json'], { env });
    expect(j.exitCode).toBe(2);
    expect(JSON.parse(String(j.stderr).trim()).error.problems.map((p: { row: number; column: string }) => `${p.row}:${p.column}`)).toEqual(['3:item_short_description', '6:to_postcode']);
    expect(proxy.creates()).toEqual([]);
  });

  it('refuses "1.000" in a whole-number column (1, or one thousand?) instead of sending 1; "12.0" is still 12', async () => {
    const header = 'shipment_reference;to_name;to_line_1;to_city;to_postcode;to_country;weight;length';
    const csv = file('eu.csv', `${header}\nR1;Ann;1 High St;London;SW1A 1AA;GB;1.000;10\n`);
    const r = await ship(['create', '--csv', csv, '--dry-run', '--json'], { env });
    expect(r.exitCode).toBe(2);
    expect(JSON.parse(String(r.stderr).trim()).error.problems).toEqual([
      { row: 2, column: 'weight', message: '"1.000" is ambiguous (1 or 1000?): write 1 or 1000' },
    ]);
    expect(String(r.stdout)).toBe('');
    const excel = file('excel-decimals.csv', `${header}\nR1;Ann;1 High St;London;SW1A 1AA;GB;1200.0;10.00\n`);
    const ok = await ship(['create', '--csv', excel, '--dry-run', '--json'], { env });
    expect(ok.exitCode, String(ok.stderr)).toBe(0);
    expect(JSON.parse(String(ok.stdout)).request.parcels[0]).toMatchObject({ weight: 1200, length: 10 });
    expect(proxy.requests).toEqual([]);
  });

  it('reads a Shopify export as it is: ships what can be shipped, lists the rest with the reason', async () => {
    // The genuine export is of a store's past orders: every one with an address and a line to ship is fulfilled
    // already, so nothing is shipped again. With every order left out on purpose there is nothing to ship: a quiet
    // day for a cron job (exit 0), each order listed as skipped with its reason.
    const genuine = await ship(['create', '--csv', SHOPIFY_EXPORT, '--preset', 'shopify', '-o', join(work, 'labels'), '--json'], { env });
    expect(genuine.exitCode, String(genuine.stderr)).toBe(0);
    const skippedLines = jsonLines(String(genuine.stdout));
    expect(skippedLines).toHaveLength(19);
    expect(skippedLines.every((l) => l.status === 'skipped')).toBe(true);
    expect(skippedLines.find((l) => l.row === 11).reason).toContain('already fulfilled');
    expect(JSON.parse(String(genuine.stderr).trim().split('\n').at(-1)!).info.message).toMatch(/^nothing to ship in .*: all 19 orders were left out/);
    expect(proxy.creates()).toEqual([]);

    // For a person, the 19 are counted by reason (once: the error does not list them again); --verbose lists each.
    const text = await ship(['create', '--csv', SHOPIFY_EXPORT, '--preset', 'shopify', '-o', join(work, 'labels')], { env });
    expect(text.exitCode).toBe(0);
    const said = String(text.stderr);
    expect(said).toMatch(/^Left out 19 orders that cannot be shipped:$/m);
    expect(said).toMatch(/^ {2}14 orders: already fulfilled \(Fulfillment Status; --include-fulfilled ships it again\): #1001 \(row 2\), #1002 \(row 6\), #1003 \(row 8\), #1004 \(row 9\), #1005 \(row 11\) and 9 more$/m);
    expect(said).toMatch(/^ {2}1 order: no shipping address: #1019 \(row 38\)$/m);
    expect(said).toMatch(/^nothing to ship in .*: all 19 orders were left out, as listed above$/m);
    expect(said.match(/#1019/g)).toHaveLength(1);
    const verbose = await ship(['create', '--csv', SHOPIFY_EXPORT, '--preset', 'shopify', '-o', join(work, 'labels'), '--verbose'], { env });
    expect(String(verbose.stderr).match(/^ {2}#\d+ \(row \d+\): /gm)).toHaveLength(19);
    expect(proxy.creates()).toEqual([]);

    // Shipped again (--include-fulfilled, a replacement): its two orders go to Canada, and their line items have
    // no SKU, so customs data (origin, tariff code, weight) is missing: left out and listed.
    const replacement = await ship(['create', '--csv', SHOPIFY_EXPORT, '--preset', 'shopify', '--include-fulfilled', '-o', join(work, 'labels'), '--json'], { env });
    expect(replacement.exitCode, String(replacement.stderr)).toBe(2);
    const problems = JSON.parse(String(replacement.stderr)).error.problems;
    expect(problems.filter((p: { message: string }) => p.message.includes('outside mainland UK')).map((p: { row: number }) => p.row)).toEqual([11, 31]);
    expect(problems.find((p: { row: number }) => p.row === 11).message).toContain('give them with --customs FILE.csv');
    expect(proxy.creates()).toEqual([]);

    // The genuine export unchanged, with the shop's customs table (examples/customs.csv, by line item name).
    const withCustoms = await ship(['create', '--csv', SHOPIFY_EXPORT, '--preset', 'shopify', '--include-fulfilled', '--customs', resolve(import.meta.dirname, '../../examples/customs.csv'), '-o', join(work, 'labels'), '--json'], { env });
    expect(withCustoms.exitCode, String(withCustoms.stderr)).toBe(0);
    expect(jsonLines(String(withCustoms.stdout)).filter((l) => l.status === 'created').map((l) => l.shipment_reference)).toEqual(['#1005', '#1013']);
    expect(proxy.creates().map((b) => b.parcels[0].items.map((i: { harmonised_code: string; item_weight: number }) => [i.harmonised_code, i.item_weight]))).toEqual([
      [['95061100', 3400], ['95061100', 3600]],
      [['340490', 250]],
    ]);
    // Cancelled, their references can be used again below.
    expect((await ship(['cancel', '#1005', '#1013', '--json'], { env })).exitCode).toBe(0);
    proxy.requests.length = 0;

    // The same export from a shop whose products are in the service's SKU inventory: the inventory supplies customs.
    const csv = shopifyExportWithSkus(work);
    const r = await ship(['create', '--csv', csv, '--preset', 'shopify', '-o', join(work, 'labels'), '--json', '--results', join(work, 'results.csv')], { env });
    expect(r.exitCode, String(r.stderr)).toBe(0);
    const lines = jsonLines(String(r.stdout));
    expect(lines.filter((l) => l.status === 'created').map((l) => [l.row, l.shipment_reference])).toEqual([[11, '#1005'], [31, '#1013']]);
    const fulfilled = 'already fulfilled (Fulfillment Status; --include-fulfilled ships it again)';
    expect(lines.filter((l) => l.status === 'skipped').map((l) => l.reason)).toEqual([
      ...Array(9).fill(fulfilled),
      'every line item to ship is already fulfilled (Lineitem fulfillment status; --include-fulfilled ships them again)',
      ...Array(4).fill(fulfilled),
      'no line item requires shipping', 'no line item requires shipping', 'no shipping address',
    ]);
    expect(proxy.creates().map((b) => b.to_address.name).sort()).toEqual(['Karine Ruby', 'Receiving Department']);
    expect(proxy.creates()[0].parcels[0].items.map((i: { sku: string }) => i.sku)).toEqual(['TEE-BLK-M', 'SOCKS-3PK']);
    const results = readFileSync(join(work, 'results.csv'), 'utf8').trim().split('\n');
    expect(results).toHaveLength(41); // header + every input row
  });

  it('--customs: a table with problems stops the run naming its rows and columns; without --csv it is a usage error', async () => {
    const csv = file('abroad.csv', 'shipment_reference,to_name,to_line_1,to_city,to_postcode,to_country,weight,item_short_description,item_value,item_quantity\nC-1,Marie,1 Rue X,Paris,75005,FR,900,Scarf,10.00,1\n');
    const bad = await ship(['create', '--csv', csv, '--customs', file('customs.csv', 'product,origin,weight\nScarf,Atlantis,heavy\n'), '--json'], { env });
    expect(bad.exitCode).toBe(2);
    expect(JSON.parse(String(bad.stderr)).error.problems).toEqual([
      { row: 2, column: 'origin', message: expect.stringContaining('Atlantis') },
      { row: 2, column: 'weight', message: '"heavy" is not a weight in whole grams per item (e.g. 250)' },
    ]);
    const good = await ship(['create', '--csv', csv, '--customs', file('good.csv', 'product,origin,hs_code,weight\nScarf,GB,6117.10,150\n'), '--dry-run', '--json'], { env });
    expect(good.exitCode, String(good.stderr)).toBe(0);
    expect(jsonLines(String(good.stdout))[0].request.parcels[0].items[0]).toEqual({ short_description: 'Scarf', full_description: 'Scarf', country_of_origin: 'GB', harmonised_code: '611710', item_weight: 150, item_value: 10, item_quantity: 1 });
    expect(proxy.requests).toEqual([]);
    const usage = await ship(['create', '--reference', 'X', '--customs', 'c.csv'], { env });
    expect(usage.exitCode).toBe(2);
    expect(String(usage.stderr)).toContain('--customs');
  });

  it('refuses a value under a blank header (an unquoted comma) instead of dropping it: exit 2, nothing sent', async () => {
    const csv = file(
      'comma.csv',
      'shipment_reference,to_name,to_line_1,to_city,to_postcode,to_country,weight,delivery_instructions,,\nR1,Ann,1 High St,London,SW1A 1AA,GB,1000,Leave at door, ring bell twice,,\n',
    );
    proxy.requests.length = 0;
    const r = await ship(['create', '--csv', csv, '--dry-run', '--json'], { env });
    expect(r.exitCode, String(r.stderr)).toBe(2);
    expect(String(r.stdout)).toBe('');
    const err = JSON.parse(String(r.stderr).trim().split('\n').at(-1)!).error;
    expect(err.problems).toEqual([{ row: 2, column: '9 (no header)', message: expect.stringMatching(/^a value under no header \("ring bell twice"\)/) }]);
    const text = await ship(['create', '--csv', csv, '--dry-run'], { env });
    expect(String(text.stderr)).toContain('row 2, column 9 (no header): a value under no header ("ring bell twice")');
    expect(proxy.requests).toEqual([]);
  });

  it('prints one text line per shipment without --json, and validates only with --dry-run', async () => {
    const csv = file('two.csv', 'shipment_reference,to_name,to_line_1,to_city,to_postcode,to_country,weight\nT-1,Ann,1 St,London,E1 1AA,GB,100\nT-2,Bob,2 St,Leeds,LS1 1AA,GB,200\n');
    const dry = await ship(['create', '--csv', csv, '--dry-run'], { env });
    expect(dry.exitCode).toBe(0);
    expect(String(dry.stdout).trim().split('\n')).toEqual(['2\tT-1\t1\t0\t100\tE1 1AA London GB\t(routing rules)', '3\tT-2\t1\t0\t200\tLS1 1AA Leeds GB\t(routing rules)']);
    expect(proxy.requests).toEqual([]);

    const r = await ship(['create', '--csv', csv, '-o', join(work, 'labels')], { env });
    expect(r.exitCode).toBe(0);
    const out = String(r.stdout).trim().split('\n').map((l) => l.split('\t'));
    expect(out.map((c) => [c[0], c[1], c[3]])).toEqual([
      ['created', 'T-1', join(work, 'labels', 'T-1_1.zpl')],
      ['created', 'T-2', join(work, 'labels', 'T-2_1.zpl')],
    ]);
    expect(String(r.stderr)).toMatch(/Done: 2 shipments/);
  });

  it('a label that cannot be written: the shipment is reported as created (tracking) but failed; the rerun writes the label, not a second shipment', async () => {
    const csv = file('blocked.csv', 'shipment_reference,to_name,to_line_1,to_city,to_postcode,to_country,weight\nLW-1,Ann,1 St,London,E1 1AA,GB,100\nLW-2,Bob,2 St,Leeds,LS1 1AA,GB,200\n');
    const labels = join(work, 'labels');
    // A directory where LW-2's label file should go: writing it fails (as a full disk or a permission would).
    mkdirSync(join(labels, 'LW-2_1.zpl'), { recursive: true });
    const results = join(work, 'blocked-results.csv');
    const r = await ship(['create', '--csv', csv, '-o', labels, '--json', '--results', results], { env });
    expect(r.exitCode, String(r.stderr)).toBe(3);
    const [ok, blocked] = jsonLines(String(r.stdout));
    expect(ok).toMatchObject({ shipment_reference: 'LW-1', status: 'created' });
    expect(blocked).toMatchObject({ shipment_reference: 'LW-2', status: 'failed', created: true, unknown_outcome: true });
    expect(blocked.tracking_reference).toMatch(/^[A-Z0-9]{8,}$/);
    expect(blocked.error).toContain(`shipment LW-2 was created (${blocked.tracking_reference}), but its label could not be written`);
    expect(blocked.error).toContain('run the same command again');
    // --results gives its id and tracking reference too (for the shop), but no label path.
    const row = readFileSync(results, 'utf8').trim().split('\n')[2].split(',');
    expect(row.slice(7, 11)).toEqual(['failed', expect.stringMatching(/^[0-9a-f-]{36}$/), blocked.tracking_reference, '']);
    // Not in blocked.failed.csv: that row sent again from it would be a second shipment (or refused as a
    // duplicate); the summary says to rerun the same command instead.
    expect(existsSync(join(work, 'blocked.failed.csv'))).toBe(false);
    const summaryLine = JSON.parse(String(r.stderr).trim().split('\n').find((l) => l.startsWith('{"summary"'))!);
    expect(summaryLine.summary).toMatchObject({ failed: 1 });
    expect(summaryLine.summary.failed_csv).toBeUndefined();

    rmdirSync(join(labels, 'LW-2_1.zpl'));
    const again = await ship(['create', '--csv', csv, '-o', labels, '--json'], { env });
    expect(again.exitCode, String(again.stderr)).toBe(0);
    expect(jsonLines(String(again.stdout)).map((l) => [l.shipment_reference, l.status, l.tracking_reference])).toEqual([
      ['LW-1', 'skipped', ok.tracking_reference],
      ['LW-2', 'skipped', blocked.tracking_reference],
    ]);
    expect(statSync(join(labels, 'LW-2_1.zpl')).isFile()).toBe(true);
    expect(readFileSync(join(labels, 'LW-2_1.zpl'), 'utf8')).toMatch(/^CT~~CD,~CC\^~CT~\n\^XA/);
    expect(proxy.creates().filter((b) => b.shipment_reference === 'LW-2')).toHaveLength(1);

    // One shipment from flags: shown with its tracking reference, then exit 1 naming what to do.
    mkdirSync(join(labels, 'LW-3_1.zpl'));
    const one = await ship(['create', '--reference', 'LW-3', '--to-name', 'Cy', '--to-line1', '3 St', '--to-city', 'York', '--to-postcode', 'YO1 1AA', '--to-country', 'GB', '--weight', '300', '-o', labels, '--json'], { env });
    expect(one.exitCode).toBe(1);
    const [parcel] = JSON.parse(String(one.stdout));
    // The API's answer whole, as when the label is written (id, carrier, price…), only without a label path.
    expect(parcel).toMatchObject({ shipment_reference: 'LW-3', label_path: null, id: expect.any(String), carrier: expect.any(String) });
    const err = JSON.parse(String(one.stderr).trim().split('\n').at(-1)!).error;
    expect(err.message).toContain(`shipment LW-3 was created (${parcel.tracking_reference}), but its label could not be written`);
    // -o DIR/: into the directory, made if missing (-o DIR would name a file when DIR is not there).
    expect(err.hint).toContain(`ship label ${parcel.tracking_reference} -o ${labels}/\``);
    // Nothing of the user's was removed to make room.
    expect(statSync(join(labels, 'LW-3_1.zpl')).isDirectory()).toBe(true);
  });

  it('refuses a UTF-8 file with one row of Windows-1252 bytes, naming that row, instead of sending "ZoÃ« MÃ¼ller"', async () => {
    const csv = join(work, 'mixed.csv');
    writeFileSync(csv, Buffer.concat([
      Buffer.from('shipment_reference;to_name;to_line_1;to_city;to_postcode;to_country;weight\r\nMIX-1;Zoë Müller;1 High St;London;SW1A 1AA;GB;100\r\n'),
      Buffer.from([...Buffer.from('MIX-2;Zo'), 0xeb, ...Buffer.from(' Brown;2 High St;London;SW1A 1AA;GB;100\r\n')]),
    ]));
    const r = await ship(['create', '--csv', csv, '--dry-run'], { env });
    expect(r.exitCode).toBe(2);
    expect(String(r.stderr)).toContain('row 3, column to_name: bytes that are not UTF-8 in a file otherwise UTF-8 (a row pasted from another program?): fix that row, or give --encoding');
    expect(String(r.stdout)).toBe('');
    const j = await ship(['create', '--csv', csv, '--dry-run', '--json'], { env });
    expect(j.exitCode).toBe(2);
    expect(JSON.parse(String(j.stderr).trim()).error.problems).toMatchObject([{ row: 3, column: 'to_name' }]);
    // Told the encoding, ship reads the file that way.
    const forced = await ship(['create', '--csv', csv, '--dry-run', '--json', '--encoding', 'windows-1252'], { env });
    expect(forced.exitCode, String(forced.stderr)).toBe(0);
    expect(jsonLines(String(forced.stdout)).map((l) => l.request.to_address.name)).toEqual(['ZoÃ« MÃ¼ller', 'Zoë Brown']);
    expect(proxy.requests).toEqual([]);
  });

  it('reads an Excel "CSV (Comma delimited)" file (Windows-1252) with its accents, saying so; --encoding overrides', async () => {
    const bytes = Buffer.concat([
      // (Abroad an item needs customs data: a SKU from the account's inventory supplies it.)
      Buffer.from('shipment_reference;to_name;to_line_1;to_city;to_postcode;to_country;weight;item_sku\r\n'),
      Buffer.from([...Buffer.from('ENC-1;Zo'), 0xeb, ...Buffer.from(' Br'), 0xf6, ...Buffer.from('nte;1 Stra'), 0xdf, ...Buffer.from('e;M'), 0xfc, ...Buffer.from('nchen;80331;Deutschland;100;MUG-001\r\n')]),
    ]);
    const csv = join(work, 'excel.csv');
    writeFileSync(csv, bytes);
    const r = await ship(['create', '--csv', csv, '--dry-run', '--json'], { env });
    expect(r.exitCode, String(r.stderr)).toBe(0);
    expect(JSON.parse(String(r.stdout)).request.to_address).toMatchObject({ name: 'Zoë Brönte', line_1: '1 Straße', city: 'München', country: 'DE' });
    expect(String(r.stderr)).toMatch(/not UTF-8 text: read as Windows-1252/);
    const strict = await ship(['create', '--csv', csv, '--dry-run', '--encoding', 'utf-8'], { env });
    expect(strict.exitCode).toBe(2);
    expect(String(strict.stderr)).toMatch(/not valid utf-8 text[\s\S]*row 2/);
    const bad = await ship(['create', '--csv', csv, '--dry-run', '--encoding', 'klingon'], { env });
    expect(bad.exitCode).toBe(2);
    expect(String(bad.stderr)).toMatch(/unknown encoding "klingon"/);

    // A row the API refuses goes to FILE.failed.csv in UTF-8 with a byte-order mark (Excel reads it right),
    // and ship reads that file back as it is.
    const refused = join(work, 'excel-refused.csv');
    writeFileSync(refused, Buffer.concat([bytes, Buffer.from([...Buffer.from('ENC-2;Ren'), 0xe9, ...Buffer.from(';2 Rue;Paris;75001;FR;100;MUG-001\r\n')])]));
    const run = await ship(['create', '--csv', refused, '-o', join(work, 'labels-enc'), '--service', 'RM_TRACKED_48', '--json'], { env }); // a UK service: the API refuses both (abroad)
    expect(run.exitCode, String(run.stderr)).toBe(3);
    const failedCsv = readFileSync(join(work, 'excel-refused.failed.csv'));
    expect([...failedCsv.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    expect(failedCsv.toString('utf8')).toContain('Zoë Brönte');
    expect(failedCsv.toString('utf8')).toContain('René');
    const again = await ship(['create', '--csv', join(work, 'excel-refused.failed.csv'), '--dry-run', '--json'], { env });
    expect(again.exitCode, String(again.stderr)).toBe(0);
    expect(String(again.stderr)).not.toMatch(/not UTF-8/);
    expect(String(again.stdout)).toContain('Zoë Brönte');
  });

  it('writes PDF labels and merges them in input order (--format PDF --merge), and PNG labels', async () => {
    const csv = file('pdf.csv', 'shipment_reference,to_name,to_line_1,to_city,to_postcode,to_country,weight\nPDF-1,Ann,1 St,London,E1 1AA,GB,100\nPDF-2,Bob,2 St,Leeds,LS1 1AA,GB,100\nPDF-2,,,,,,200\n');
    const merged = join(work, 'all.pdf');
    const r = await ship(['create', '--csv', csv, '-o', join(work, 'labels'), '--format', 'PDF', '--merge', merged], { env });
    expect(r.exitCode, String(r.stderr)).toBe(0);
    for (const f of ['PDF-1_1.pdf', 'PDF-2_1.pdf', 'PDF-2_2.pdf']) expect(readFileSync(join(work, 'labels', f)).subarray(0, 5).toString()).toBe('%PDF-');
    const { PDFDocument } = await import('pdf-lib');
    expect((await PDFDocument.load(readFileSync(merged))).getPageCount()).toBeGreaterThanOrEqual(3);

    const png = await ship(['create', '--reference', 'PNG-1', '--to-name', 'Ann', '--to-line1', '1 St', '--to-city', 'London', '--to-postcode', 'E1 1AA', '--to-country', 'GB', '--weight', '100', '--format', 'png', '-o', join(work, 'labels')], { env });
    expect(png.exitCode, String(png.stderr)).toBe(0);
    expect(readFileSync(join(work, 'labels', 'PNG-1_1.png')).subarray(1, 4).toString()).toBe('PNG');
  });
});
