// --customs FILE.csv: the table is checked whole (row and column), and fills only the blank customs attributes of
// items leaving mainland UK, by SKU or description, `*` only for items without a SKU.
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { csvFiles } from '../helpers/csv-files.js';
import { loadCustomsTable } from '../../src/csv/customs.js';
import { loadCsv } from '../../src/csv/load.js';
import { contractLayout } from '../../src/csv/presets/index.js';
import { InputError } from '../../src/errors.js';
import { apiValidator } from '../../src/shipment-input/validate.js';
import { runShip } from '../helpers/run.js';

const file = csvFiles('ship-customs-');
async function problemsOf(p: Promise<unknown>) {
  const e = await p.then(
    () => undefined,
    (x: unknown) => x,
  );
  expect(e).toBeInstanceOf(InputError);
  return e as InputError;
}

const TABLE = [
  'product,country_of_origin,harmonised_code,item_weight,full_description',
  'Scarf,United Kingdom,6117.10.00,150,Knitted wool scarf',
  'MUG-001,GB,6912 00,350,',
  '*,CN,950300,100,',
].join('\n');

const HEAD = 'shipment_reference,to_name,to_line_1,to_city,to_postcode,to_country,weight,item_sku,item_short_description,item_harmonised_code,item_value,item_quantity';

async function load(csv: string, table = TABLE) {
  return loadCsv({ source: { path: file(csv) }, layout: contractLayout(), validate: await apiValidator(), customs: await loadCustomsTable(file(table), 'customs.csv') });
}

describe('--customs table', () => {
  it('reports every problem of the table by row and column, and sends nothing', async () => {
    const e = await problemsOf(loadCustomsTable(file('product,origin,hs_code,weight\nA,ZZ,12,abc\na ,GB,610910,200\n,GB,,\nB,United States,6109 10,0\nC,FR,6109.10,,\n'), 'c.csv'));
    expect(e.message).toBe('--customs c.csv: 6 problems in 4 rows; nothing was sent');
    expect(e.problems).toEqual([
      { row: 2, column: 'origin', message: '"ZZ" is not an ISO 3166-1 two-letter country code' },
      { row: 2, column: 'hs_code', message: '"12" is not a tariff code (6 to 10 digits, e.g. 6109.10 or 6109100010)' },
      { row: 2, column: 'weight', message: '"abc" is not a weight in whole grams per item (e.g. 250)' },
      { row: 3, column: 'product', message: '"a" is already on row 2' },
      { row: 4, column: 'product', message: 'is empty (name the product, or * for any other item)' },
      { row: 5, column: 'weight', message: '"0" is not a weight in whole grams per item (e.g. 250)' },
    ]);
  });

  // A table with a problem of every kind, one or more per row: the broken rows do not hide the others.
  const BROKEN_TABLE = Buffer.concat([
    Buffer.from(
      [
        'product,country_of_origin,harmonised_code,item_weight,full_description',
        'Scarf,GB,611710,150,Knitted "wool" scarf', // a stray quote
        'Mug,ZZ,691200,350,Mug', // a bad value
        ',GB,950300,100,Toy', // no product
        'Zoë beanie,GB,650500,80,Beanie', // UTF-8 (so the next row's byte is not Windows-1252 text)
        'Cap,',
      ].join('\n'),
    ),
    Buffer.from([0x46, 0xe9]), // "Fé" in Windows-1252, pasted into a UTF-8 file
    Buffer.from(
      [
        ',650500,100,Cap',
        'Hat,GB,12,"12"0,Wool hat', // a bad tariff code, and text after a closing quote in the same row
        'Mug,GB,691200,350,Mug,white', // already on row 3, and a value under no header
        'Gloves,GB,61,200,"Wool gloves', // a bad tariff code before a quote that never closes
        '',
      ].join('\n'),
    ),
  ]);

  it('reports every problem of a table with several broken rows, in one error, by row and column (quoting, bytes, values)', async () => {
    const e = await problemsOf(loadCustomsTable(file(BROKEN_TABLE), 'broken.csv'));
    expect(e.message).toBe('--customs broken.csv: 10 problems in 7 rows; nothing was sent');
    expect(e.problems).toEqual([
      { row: 2, column: 'full_description', message: expect.stringMatching(/^a stray quote \(\"\) inside the cell/) },
      { row: 3, column: 'country_of_origin', message: '"ZZ" is not an ISO 3166-1 two-letter country code' },
      { row: 4, column: 'product', message: 'is empty (name the product, or * for any other item)' },
      // Read as UTF-8 in spite of the byte: the cell holding it is not checked again (as "F\uFFFD").
      { row: 6, column: 'country_of_origin', message: expect.stringMatching(/^bytes that are not UTF-8 in a file otherwise UTF-8 .*save the table as "CSV UTF-8"$/) },
      { row: 7, column: 'harmonised_code', message: '"12" is not a tariff code (6 to 10 digits, e.g. 6109.10 or 6109100010)' },
      { row: 7, column: 'item_weight', message: expect.stringMatching(/^text after the quote \(\"\) that closes the cell/) },
      { row: 8, column: 'product', message: '"Mug" is already on row 3' },
      { row: 8, column: '6 (no header)', message: expect.stringMatching(/^a value under no header \("white"\)/) },
      { row: 9, column: 'harmonised_code', message: '"61" is not a tariff code (6 to 10 digits, e.g. 6109.10 or 6109100010)' },
      { row: 9, column: 'full_description', message: expect.stringMatching(/^a quote \(\"\) opens the cell but nothing closes it/) },
    ]);
    // The --csv file's advice (--encoding) is not the table's.
    expect(e.problems.some((p) => p.message.includes('--encoding'))).toBe(false);
  });

  it('`ship create --csv --customs` with that table: exit 2, every problem under the table\'s name, nothing sent', async () => {
    const requests: string[] = [];
    const server = createServer((req, res) => {
      requests.push(`${req.method} ${req.url}`);
      res.writeHead(500).end();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const orders = file('shipment_reference,to_name,to_line_1,to_city,to_postcode,to_country,weight,item_short_description,item_value,item_quantity\nC-1,Marie,1 Rue X,Paris,75005,FR,900,Scarf,10.00,1\n');
      const customs = file(BROKEN_TABLE);
      const env = { SHIP_BASE_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1.2`, SHIP_API_KEY: 'k', SHIP_TOKEN: 't', SHIP_CONFIG_DIR: mkdtempSync(join(tmpdir(), 'ship-cfg-')) };
      const r = await runShip(['create', '--csv', orders, '--customs', customs, '-o', join(dirname(orders), 'labels')], { env });
      expect(r.code).toBe(2);
      const lines = r.stderr.trim().split('\n');
      expect(lines[0]).toBe(`error: --customs ${customs}: 10 problems in 7 rows; nothing was sent`);
      expect(lines.slice(1, 11).map((l) => /^ {2}(row \d+, column [^:]+):/.exec(l)?.[1])).toEqual([
        'row 2, column full_description',
        'row 3, column country_of_origin',
        'row 4, column product',
        'row 6, column country_of_origin',
        'row 7, column harmonised_code',
        'row 7, column item_weight',
        'row 8, column product',
        'row 8, column 6 (no header)',
        'row 9, column harmonised_code',
        'row 9, column full_description',
      ]);
      expect(requests).toEqual([]);
    } finally {
      await new Promise((r) => server.close(r));
    }
  });

  it('a header with broken quoting is reported as broken, not again as an unknown column', async () => {
    const e = await problemsOf(loadCustomsTable(file('product,origin"x",hs_code\nA,GB,610910\n'), 'c.csv'));
    expect(e.problems).toEqual([{ row: 1, column: '2', message: expect.stringMatching(/^a stray quote|^text after the quote/) }]);
  });

  it('refuses a header it cannot read: unknown columns, no product column, no customs column, an empty file', async () => {
    expect((await problemsOf(loadCustomsTable(file('product,colour,origin\nA,red,GB\n')))).problems).toEqual([
      { row: 1, column: 'colour', message: expect.stringMatching(/^unknown column \(known: product, country_of_origin/) },
    ]);
    expect((await problemsOf(loadCustomsTable(file('origin,weight\nGB,10\n')))).problems.map((p) => p.message)).toEqual([
      'no product column: the first column names the product (its SKU or its name as the orders show it), or * for any other item',
    ]);
    expect((await problemsOf(loadCustomsTable(file('sku\nA\n')))).problems.map((p) => p.message)).toEqual(['no customs column (country_of_origin, harmonised_code, item_weight, full_description)']);
    expect((await problemsOf(loadCustomsTable(file('')))).problems.map((p) => p.message)).toEqual(['the file is empty: a header row is required']);
  });

  it('refuses a value under no header (a description cut at an unquoted comma); empty trailing cells are fine', async () => {
    const e = await problemsOf(loadCustomsTable(file('product,origin,full_description,\nScarf,GB,Scarf,,\nMug,GB,Mug, white porcelain\n'), 'c.csv'));
    expect(e.problems).toEqual([{ row: 3, column: '4 (no header)', message: expect.stringMatching(/^a value under no header \("white porcelain"\)/) }]);
  });

  it('reads a table with Excel\'s sep= first line, rows numbered as Excel shows them', async () => {
    const e = await problemsOf(loadCustomsTable(file('sep=;\r\nproduct;origin;hs_code\r\nScarf;GB;6117.10\r\nMug;GB;12\r\n'), 'c.csv'));
    expect(e.problems).toEqual([{ row: 3, column: 'hs_code', message: '"12" is not a tariff code (6 to 10 digits, e.g. 6109.10 or 6109100010)' }]);
  });

  it('takes country names, dotted tariff codes and item_-prefixed headers (with a BOM)', async () => {
    const t = await loadCustomsTable(file('\uFEFFitem_sku,item_country_of_origin,item_harmonised_code,item_weight\nA-1,Germany,6109.10.00,0250\n'));
    expect([...t.byProduct.get('a-1')!.values]).toEqual([
      ['item_country_of_origin', 'DE'],
      ['item_harmonised_code', '61091000'],
      ['item_weight', '250'],
    ]);
  });
});

describe('--customs applied to a file', () => {
  it('fills blank customs attributes of items leaving mainland UK: by description, by SKU, and * for items without a SKU', async () => {
    const r = await load(
      [
        HEAD,
        // Abroad: matched by description (any case, spaces collapsed); its own tariff code wins over the table's.
        'F1,Marie,1 Rue X,Paris,75005,FR,900,,  scarf ,6117100000,10.00,1',
        // Abroad, by SKU: the SKU row fills it (an empty full description in the table: the item's description).
        'F2,Marie,1 Rue X,Paris,75005,FR,900,MUG-001,Mug,,8.00,2',
        // Abroad, no SKU and not in the table: the * row.
        'F3,Marie,1 Rue X,Paris,75005,FR,900,,Wooden toy,,5.00,1',
        // Northern Ireland counts as leaving mainland UK.
        'N1,Mary,1 Donegall Pl,Belfast,BT1 5GS,GB,900,,Scarf,,10.00,1',
      ].join('\n'),
    );
    const items = r.shipments.map((s) => (s.body.parcels as Array<{ items: unknown[] }>)[0].items[0]);
    expect(items).toEqual([
      { short_description: 'scarf', full_description: 'Knitted wool scarf', country_of_origin: 'GB', harmonised_code: '6117100000', item_weight: 150, item_value: 10, item_quantity: 1 },
      { sku: 'MUG-001', short_description: 'Mug', full_description: 'Mug', country_of_origin: 'GB', harmonised_code: '691200', item_weight: 350, item_value: 8, item_quantity: 2 },
      { short_description: 'Wooden toy', full_description: 'Wooden toy', country_of_origin: 'CN', harmonised_code: '950300', item_weight: 100, item_value: 5, item_quantity: 1 },
      { short_description: 'Scarf', full_description: 'Knitted wool scarf', country_of_origin: 'GB', harmonised_code: '61171000', item_weight: 150, item_value: 10, item_quantity: 1 },
    ]);
  });

  it('leaves mainland UK items, and items with a SKU the table does not name, exactly as their columns say', async () => {
    const r = await load([HEAD, 'G1,Ann,1 High St,Leeds,LS1 1AA,GB,900,,Scarf,,10.00,1', 'F1,Marie,1 Rue X,Paris,75005,FR,900,BOOK-042,Book,,14.99,1'].join('\n'));
    expect(r.shipments.map((s) => (s.body.parcels as Array<{ items: unknown[] }>)[0].items[0])).toEqual([
      { short_description: 'Scarf', item_value: 10, item_quantity: 1 },
      // The service's inventory supplies a SKU's customs data: the * row does not override it.
      { sku: 'BOOK-042', short_description: 'Book', item_value: 14.99, item_quantity: 1 },
    ]);
  });

  it('an item the table does not cover still fails validation by row and column, and the hint names the table', async () => {
    const e = await problemsOf(load([HEAD, 'F1,Marie,1 Rue X,Paris,75005,FR,900,,Hat,,10.00,1'].join('\n'), 'product,country_of_origin\nScarf,GB\n'));
    expect(e.problems.map((p) => `${p.row}:${p.column}`)).toEqual(['2:item_harmonised_code', '2:item_full_description', '2:item_country_of_origin', '2:item_weight']);
    expect(e.hint).toBe('add the products named above to --customs customs.csv');
  });
});

describe('--customs with --preset shopify', () => {
  it('an order whose line item the table does not cover is left out, the reason naming the product and the table', async () => {
    const { presetLayout } = await import('../../src/csv/presets/index.js');
    const { SHOPIFY_EXPORT } = await import('../helpers/shopify.js');
    const customs = await loadCustomsTable(file('product,country_of_origin,harmonised_code,item_weight\nThe Videographer Snowboard,CA,950611,3600\n'), 'snowboards.csv');
    const r = await loadCsv({ source: { path: SHOPIFY_EXPORT }, layout: await presetLayout('shopify', { includeFulfilled: true }), validate: await apiValidator(), customs });
    expect(r.excluded.filter((e) => e.reason.startsWith('ships outside')).map((e) => [e.reference, e.reason])).toEqual([
      ['#1005', 'ships outside mainland UK and a line item has no SKU: customs needs the origin, tariff code and weight of "The Multi-location Snowboard", which an orders export does not carry (add it to --customs snowboards.csv)'],
      ['#1013', 'ships outside mainland UK and a line item has no SKU: customs needs the origin, tariff code and weight of "Selling Plans Ski Wax - Selling Plans Ski Wax", which an orders export does not carry (add it to --customs snowboards.csv)'],
    ]);
  });
});
