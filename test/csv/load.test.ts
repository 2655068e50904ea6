// Grouping rows into shipments/parcels/items, the consistency rule, conversions, and mapping each problem
// (ours or the API's) back to the row and the user's column.
import { describe, expect, it } from 'vitest';
import { csvFiles } from '../helpers/csv-files.js';
import { InputError } from '../../src/errors.js';
import { parseMapping } from '../../src/csv/headers.js';
import { loadCsv } from '../../src/csv/load.js';
import { contractLayout } from '../../src/csv/presets/index.js';
import { apiValidator } from '../../src/shipment-input/validate.js';
import { convertCell } from '../../src/shipment-input/build.js';
import { columnDef } from '../../src/csv/columns.js';

const csv = csvFiles('ship-csv-');
async function load(text: string, opts: { mapping?: unknown; delimiter?: string } = {}) {
  return loadCsv({
    source: { path: csv(text) },
    layout: contractLayout({ mapping: opts.mapping ? parseMapping(opts.mapping) : undefined }),
    validate: await apiValidator(),
    delimiter: opts.delimiter,
  });
}
async function problems(text: string) {
  try {
    await load(text);
  } catch (e) {
    if (e instanceof InputError) return e.problems;
    throw e;
  }
  throw new Error('expected an InputError');
}

const ADDR = 'to_name,to_line_1,to_city,to_postcode,to_country';

describe('grouping', () => {
  it('groups rows into multi-parcel, multi-item shipments in row order, with exact request bodies', async () => {
    const r = await load(
      [
        `shipment_reference,order_reference,${ADDR},parcel_reference,weight,length,width,depth,value,item_sku,item_short_description,item_quantity,item_value,item_country_of_origin,custom_fields.gift_message,parcel_custom_fields.fragile`,
        'S1,O-1,Ada,1 High St,London,SW1A 1AA,United Kingdom,P1,1000,30,20,10,25.50,MUG-1,Mug,2,5.25,GB,Hi there,true',
        'S1,,,,,,,P1,,,,,,TEE-1,Tee,1,15.00,Portugal,,',
        'S2,O-2,Bob,2 Mill Lane,Leeds,LS1 1AA,GB,,500,,,,,,,,,,,',
        'S1,,,,,,,P2,700,,,,,SOCK-1,Socks,3,4.00,IT,,false',
        'S2,,,,,,,,600,,,,,,,,,,,',
      ].join('\n'),
    );
    expect(r.rowCount).toBe(5);
    expect(r.shipments.map((s) => [s.reference, s.row, s.rows, s.parcels, s.items])).toEqual([
      ['S1', 2, [2, 3, 5], 2, 3],
      ['S2', 4, [4, 6], 2, 0],
    ]);
    expect(r.shipments[0].rowParcels).toEqual([0, 0, 1]);
    // Per parcel, the row each item came from; nothing held for a shipment without items.
    expect(r.shipments[0].itemRows).toEqual([[2, 3], [5]]);
    expect(r.shipments[1].itemRows).toBeUndefined();
    expect(r.shipments[0].body).toEqual({
      shipment_reference: 'S1',
      order_reference: 'O-1',
      to_address: { name: 'Ada', line_1: '1 High St', city: 'London', postcode: 'SW1A 1AA', country: 'GB' },
      custom_fields: { gift_message: 'Hi there' },
      parcels: [
        {
          reference: 'P1', weight: 1000, length: 30, width: 20, depth: 10, value: 25.5,
          custom_fields: { fragile: 'true' },
          items: [
            { sku: 'MUG-1', short_description: 'Mug', country_of_origin: 'GB', item_value: 5.25, item_quantity: 2 },
            { sku: 'TEE-1', short_description: 'Tee', country_of_origin: 'PT', item_value: 15, item_quantity: 1 },
          ],
        },
        { reference: 'P2', weight: 700, custom_fields: { fragile: 'false' }, items: [{ sku: 'SOCK-1', short_description: 'Socks', country_of_origin: 'IT', item_value: 4, item_quantity: 3 }] },
      ],
    });
    expect(r.shipments[1].body.parcels).toEqual([{ weight: 500 }, { weight: 600 }]);
    const seen: Array<[number, string | undefined, string]> = [];
    await r.eachRecord((rec, ref) => {
      seen.push([rec.row, ref, rec.values[8]]);
    });
    expect(seen).toEqual([[2, 'S1', '1000'], [3, 'S1', ''], [4, 'S2', '500'], [5, 'S1', '700'], [6, 'S2', '600']]);
  });

  it('counts rows as a spreadsheet does: quoted newlines stay in one row, blank lines count but are skipped', async () => {
    const r = await load(`shipment_reference,${ADDR},delivery_instructions,weight\nA,Ann,"1 High St",London,E1 1AA,GB,"ring\ntwice",100\n\nB,Bo,2 Low St,Leeds,LS1 1AA,GB,,bad\n`).catch((e) => e);
    expect(r).toBeInstanceOf(InputError);
    expect(r.problems).toEqual([{ row: 4, column: 'weight', message: 'must be a whole number of grammes, not "bad"' }]);
  });

  it('detects ; and tab delimiters from the header', async () => {
    const semi = await load(`shipment_reference;${ADDR.replace(/,/g, ';')};weight\nA;Ann;"1, High St";London;E1 1AA;GB;100\n`);
    expect(semi.shipments[0].body.to_address).toMatchObject({ line_1: '1, High St' });
    const tab = await load(`shipment_reference\t${ADDR.replace(/,/g, '\t')}\nA\tAnn\t1 High St\tLeeds\tLS1 1AA\tGB\n`);
    expect(tab.shipments[0].body.to_address).toMatchObject({ city: 'Leeds', country: 'GB' });
  });

  it('reports a shipment- or parcel-level value that differs between rows (blank later rows are fine)', async () => {
    const p = await problems(
      [
        `shipment_reference,${ADDR},delivery_service_key,parcel_reference,weight,item_sku`,
        'S1,Ann,1 High St,London,E1 1AA,GB,RM48,P1,100,A',
        'S1,,,,,,,P1,,B',
        'S1,Anne,,,,,RM24,P1,200,C',
        'S1,,,,,GB,,P2,300,D',
      ].join('\n'),
    );
    expect(p).toEqual([
      { row: 4, column: 'to_name', message: '"Anne" differs from "Ann" in row 2 of the same shipment (leave it blank on later rows, or make them agree)' },
      { row: 4, column: 'delivery_service_key', message: '"RM24" differs from "RM48" in row 2 of the same shipment (leave it blank on later rows, or make them agree)' },
      { row: 4, column: 'weight', message: '"200" differs from "100" in row 2 of the same parcel (leave it blank on later rows, or make them agree)' },
    ]);
  });

  it('takes two spellings of one country on rows of a shipment as the same value; two countries still differ', async () => {
    const p = await problems(
      [
        `shipment_reference,${ADDR},parcel_reference,weight`,
        'S1,Ann,1 High St,London,E1 1AA,GB,P1,100',
        'S1,,,,,UK,P2,100',
        'S1,,,,,united kingdom,P3,100',
        'S1,,,,,IE,P4,100',
      ].join('\n'),
    );
    expect(p).toEqual([{ row: 5, column: 'to_country', message: '"IE" differs from "GB" in row 2 of the same shipment (leave it blank on later rows, or make them agree)' }]);
  });

  it('reads amounts with a decimal comma in a file separated by ";" or tabs (a European spreadsheet\'s), not in a comma-separated one', async () => {
    const rows = (d: string, value: string) => [['shipment_reference', 'to_name', 'to_line_1', 'to_city', 'to_postcode', 'to_country', 'weight', 'value'].join(d), ['S1', 'Ann', '1 High St', 'London', 'E1 1AA', 'GB', '100', value].join(d)].join('\n');
    for (const d of [';', '\t']) {
      const r = await load(rows(d, '12,50'));
      expect(r.shipments[0].body.parcels?.[0]).toMatchObject({ value: 12.5 });
      // Three digits after the comma may be a thousands separator: never guessed.
      expect(await problems(rows(d, '1,000'))).toEqual([{ row: 2, column: 'value', message: 'must be an amount like 12.50, not "1,000"' }]);
    }
    expect(await problems(rows(',', '"12,50"'))).toEqual([{ row: 2, column: 'value', message: 'must use a dot as the decimal separator, not "12,50"' }]);
  });

  it('takes two writings of one number on rows of a parcel as the same value; two numbers still differ', async () => {
    const p = await problems(
      [
        `shipment_reference,${ADDR},parcel_reference,weight,value,item_sku`,
        'S1,Ann,1 High St,London,E1 1AA,GB,P1,1000,20.00,A',
        'S1,,,,,,P1,1000.0,20,B',
        'S1,,,,,,P1,1000,20.5,C',
      ].join('\n'),
    );
    expect(p).toEqual([{ row: 4, column: 'value', message: '"20.5" differs from "20.00" in row 2 of the same parcel (leave it blank on later rows, or make them agree)' }]);
  });

  it('takes two writings of one postcode (case, spaces) on rows of a shipment as the same value', async () => {
    const r = await load([`shipment_reference,${ADDR},parcel_reference,weight`, 'S1,Ann,1 High St,London,SW1A 1AA,GB,P1,100', 'S1,,,,sw1a 1aa,,P2,100', 'S1,,,,SW1A1AA,,P3,100'].join('\n'));
    expect(r.shipments[0].body.to_address).toMatchObject({ postcode: 'SW1A 1AA' });
    expect(await problems([`shipment_reference,${ADDR},parcel_reference,weight`, 'S1,Ann,1 High St,London,SW1A 1AA,GB,P1,100', 'S1,,,,SW1A 2AA,,P2,100'].join('\n'))).toEqual([
      { row: 3, column: 'to_postcode', message: '"SW1A 2AA" differs from "SW1A 1AA" in row 2 of the same shipment (leave it blank on later rows, or make them agree)' },
    ]);
  });

  it('refuses an invisible character in shipment_reference, grouping the row with the shipment it shows', async () => {
    const p = await problems(
      [`shipment_reference,${ADDR},parcel_reference,weight`, 'S1,Ann,1 High St,London,E1 1AA,GB,P1,100', 'S1\u200B,,,,,,P2,100'].join('\n'),
    );
    // Only that: not the "required" recipient fields of a shipment "S1\u200B" of its own.
    expect(p).toEqual([{ row: 3, column: 'shipment_reference', message: 'has an invisible character (U+200B ZERO WIDTH SPACE) after "S1": delete it (it would make "S1" another reference)' }]);
  });

  it('requires shipment_reference on every row', async () => {
    expect(await problems(`shipment_reference,${ADDR}\n,Ann,1 High St,London,E1 1AA,GB\n`)).toEqual([
      { row: 2, column: 'shipment_reference', message: 'is required (it groups rows into shipments)' },
    ]);
  });
});

describe('problems name the row and the user\'s column', () => {
  it('maps API paths (to_address.*, parcels.N.*, parcels.N.items.M.*) back to rows and columns', async () => {
    const p = await problems(
      [
        'Shipment Reference,To Name,To Line 1,To City,To Postcode,To Country,Parcel Reference,Weight,Item Value,Item Quantity',
        'S1,Ann,1 High St,London,,GB,P1,100,1.00,1',
        'S1,,,,,,P1,,2.555,1',
        'S1,,,,,,P2,0,3.00,0',
        'S2,Bob,2 St^,Leeds,LS1 1AA,GBR,,100,,',
      ].join('\n'),
    );
    expect(p).toEqual([
      { row: 2, column: 'To Postcode', message: 'is required' },
      { row: 3, column: 'Item Value', message: 'must have at most 2 decimal places, not "2.555"' },
      { row: 4, column: 'Weight', message: 'must be greater than 0' },
      { row: 4, column: 'Item Quantity', message: 'must be greater than 0' },
      { row: 5, column: 'To Line 1', message: 'must not contain a backslash (\\) or caret (^): the API rejects both' },
      { row: 5, column: 'To Country', message: 'must be a two-letter ISO 3166-1 country code, not "GBR" (did you mean GB?)' },
    ]);
  });

  it('names a column missing from the file by its contract name, on the shipment\'s first row', async () => {
    expect(await problems('shipment_reference,to_name,to_line_1,to_city,to_country\nS1,Ann,1 High St,London,GB\n')).toEqual([
      { row: 2, column: 'to_postcode', message: 'is required' },
    ]);
  });

  it('outside mainland UK, an item without a SKU needs its customs data: every gap named by row and column, before sending', async () => {
    const p = await problems(
      [
        `shipment_reference,${ADDR},weight,item_sku,item_short_description,item_full_description,item_country_of_origin,item_harmonised_code,item_weight,item_value,item_quantity`,
        // Abroad: row 2 lacks the tariff code and weight; row 3 has a SKU (the service's inventory may supply the rest).
        'F1,Marie,1 Rue X,Paris,75005,FR,900,,Scarf,Knitted wool scarf,GB,,,10.00,1',
        'F1,,,,,,,SCARF-1,,,,,,,',
        // Northern Ireland is not mainland UK either: a parcel there lists its items.
        'N1,Mary,1 Donegall Pl,Belfast,BT1 5GS,GB,900,,,,,,,,',
        // Mainland UK: nothing required.
        'G1,Ann,1 High St,Leeds,LS1 1AA,GB,900,,Mug,,,,,,',
      ].join('\n'),
    );
    const rule = 'is required for deliveries outside mainland UK (or give the item a SKU)';
    expect(p).toEqual([
      { row: 2, column: 'item_harmonised_code', message: rule },
      { row: 2, column: 'item_weight', message: rule },
      { row: 4, column: 'item_sku', message: 'is required for deliveries outside mainland UK' },
    ]);
  });

  it('names the mapped (original) header', async () => {
    const e = await load('Order,Zip,Name,Street,Town,Land\nS1,,Ann,1 High St,London,GB\n', {
      mapping: { Order: 'shipment_reference', Zip: 'to_postcode', Name: 'to_name', Street: 'to_line_1', Town: 'to_city', Land: 'to_country' },
    }).catch((x) => x);
    expect(e.problems).toEqual([{ row: 2, column: 'Zip', message: 'is required' }]);
  });

  it('converts dates and refuses impossible ones', async () => {
    const ok = await load(`shipment_reference,${ADDR},despatch_date\nA,Ann,1 St,London,E1 1AA,GB,2026-12-01\nB,Bo,2 St,Leeds,LS1 1AA,GB,2026-12-01 14:30\n`);
    expect(ok.shipments.map((s) => s.body.despatch_date)).toEqual(['2026-12-01 00:00:00', '2026-12-01 14:30:00']);
    expect(await problems(`shipment_reference,${ADDR},despatch_date\nA,Ann,1 St,London,E1 1AA,GB,2026-02-30\n`)).toEqual([
      { row: 2, column: 'despatch_date', message: 'must be a date as YYYY-MM-DD or YYYY-MM-DD HH:MM:SS, not "2026-02-30"' },
    ]);
  });

  it('whole numbers: Excel\'s "12.0" is 12, but "1.000" (one thousand, with a European thousands separator?) is refused', async () => {
    const ok = await load(`shipment_reference;${ADDR.replaceAll(',', ';')};weight;length\nA;Ann;1 St;London;E1 1AA;GB;12.0;10.00\nB;Bo;2 St;Leeds;LS1 1AA;GB;7.00;10.0000\n`);
    expect(ok.shipments.map((s) => [s.body.parcels?.[0].weight, s.body.parcels?.[0].length])).toEqual([[12, 10], [7, 10]]);
    // Nothing to ask when both readings are the same number.
    expect(convertCell(columnDef('item_quantity')!, '0.000')).toEqual({ ok: true, value: 0 });
    const header = `shipment_reference;${ADDR.replaceAll(',', ';')};weight;length;item_sku;item_quantity\n`;
    expect(await problems(`${header}R1;Ann;1 High St;London;SW1A 1AA;GB;1.000;12.000;MUG-001;2.000\nR2;Bo;2 St;Leeds;LS1 1AA;GB;"1,000";1 000;MUG-001;1\n`)).toEqual([
      { row: 2, column: 'weight', message: '"1.000" is ambiguous (1 or 1000?): write 1 or 1000' },
      { row: 2, column: 'length', message: '"12.000" is ambiguous (12 or 12000?): write 12 or 12000' },
      { row: 2, column: 'item_quantity', message: '"2.000" is ambiguous (2 or 2000?): write 2 or 2000' },
      { row: 3, column: 'weight', message: 'must be a whole number of grammes, not "1,000"' },
      { row: 3, column: 'length', message: 'must be a whole number of centimetres, not "1 000"' },
    ]);
  });

  it('warns (does not refuse) about carrier length limits', async () => {
    const r = await load(`shipment_reference,${ADDR}\nA-VERY-LONG-SHIPMENT-REFERENCE-0001,Ann,${'x'.repeat(45)},London,E1 1AA,GB\n`);
    expect(r.shipments).toHaveLength(1);
    expect(r.warnings).toEqual([
      { row: 2, column: 'shipment_reference', message: '35 characters long; some carriers cap the shipment reference at 30 characters' },
      { row: 2, column: 'to_line_1', message: '45 characters long; carriers often cut address lines at about 40 characters' },
    ]);
  });

  it('warns (does not refuse) about values a spreadsheet likely damaged, and items heavier than their parcel', async () => {
    const csv = [
      'shipment_reference,to_name,to_line_1,to_city,to_postcode,to_country,to_telephone,weight,item_sku,item_short_description,item_weight,item_quantity',
      'S-1,Ann,1 St,Boston,2134,US,4.47701E+11,500,MUG-001,Mug,300,2',
      "S-2,Bob,2 St,Hoboken,'07030,US,'0201 555 0100,900,MUG-001,Mug,300,2",
      'S-3,Cy,3 St,Leeds,LS1 1AA,GB,0113 496 0000,700,MUG-001,Mug,300,2',
    ].join('\n');
    const r = await load(csv + '\n');
    expect(r.shipments).toHaveLength(3);
    expect(r.warnings).toEqual([
      { row: 2, column: 'to_telephone', message: '"4.47701E+11" is a number a spreadsheet wrote in scientific notation: its digits are lost (format the column as text and export again)' },
      { row: 2, column: 'to_postcode', message: '"2134" is short for a US ZIP code (5 digits): a leading zero dropped by a spreadsheet?' },
      { row: 2, column: 'weight', message: '500 g, but its items weigh 600 g together (item_weight is per item): is the parcel weight right?' },
      { row: 3, column: 'to_postcode', message: '"\'07030" starts with an apostrophe (a spreadsheet\'s mark for text?); it is sent as it is' },
      { row: 3, column: 'to_telephone', message: '"\'0201 555 0100" starts with an apostrophe (a spreadsheet\'s mark for text?); it is sent as it is' },
    ]);
  });

  it('warns about a despatch_date before today (a file made for an earlier day), not about today or later', async () => {
    const text = [
      `shipment_reference,${ADDR},despatch_date`,
      'P-1,Ann,1 St,Leeds,LS1 1AA,GB,2026-11-20',
      'P-2,Bob,2 St,Leeds,LS1 1AA,GB,2026-11-21 09:00:00',
      'P-3,Cy,3 St,Leeds,LS1 1AA,GB,2026-11-22',
      'P-4,Di,4 St,Leeds,LS1 1AA,GB,',
    ].join('\n') + '\n';
    const r = await loadCsv({ source: { path: csv(text) }, layout: contractLayout({}), validate: await apiValidator(), today: '2026-11-21' });
    expect(r.warnings).toEqual([{ row: 2, column: 'despatch_date', message: '2026-11-20 is in the past (today is 2026-11-21); sent as it is' }]);
    // Without a day to compare with (a caller that has no clock), nothing is said.
    expect((await load(text)).warnings).toEqual([]);
  });

  it('refuses a file without a header and a malformed quote with its row', async () => {
    await expect(load('')).rejects.toMatchObject({ problems: [{ row: 1, message: 'missing header row' }] });
    // A blank first row (a spreadsheet's empty row 1, commas and all) is not a header missing every column.
    for (const top of ['\n', ',,,\r\n', '\n\n']) {
      await expect(load(`${top}shipment_reference,${ADDR}\nA,Ann,1 St,London,E1 1AA,GB\n`)).rejects.toMatchObject({
        problems: [{ row: 1, message: 'blank: the header row must be the first row of the file' }],
        hint: 'delete the blank rows above the header',
      });
    }
    const e = await load(`shipment_reference,${ADDR}\nA,Ann,1 St,London,E1 1AA,GB\nB,"Bo"x,2 St,Leeds,LS1 1AA,GB\n`).catch((x) => x);
    expect(e).toBeInstanceOf(InputError);
    expect(e.problems[0].row).toBe(3);
  });

  it('says a problem or warning of a blank-filling flag once, not once per shipment, and of the one shipment asked for', async () => {
    const text = [`shipment_reference,${ADDR},weight`, 'A,Ann,1 St,London,E1 1AA,GB,', 'B,Bob,2 St,Leeds,LS1 1AA,GB,', 'C,Cy,3 St,York,YO1 1AA,GB,'].join('\n');
    const validate = await apiValidator();
    const run = (defaults: Array<[string, string, string]>, only?: string) =>
      loadCsv({
        source: { path: csv(text) },
        layout: contractLayout({}),
        validate,
        defaults: new Map(defaults.map(([col, value, flag]) => [col, { value, column: flag }])),
        today: '2026-11-21',
        only,
      });
    const e = await run([['weight', '0', '--default-weight']]).catch((x) => x);
    expect(e.message).toMatch(/: 1 problem; nothing was sent$/);
    expect(e.problems).toEqual([{ column: '--default-weight', message: 'must be greater than 0' }]);
    // Picked with `only` (quote --shipment), the shipment is refused for it rather than found missing.
    await expect(run([['weight', '0', '--default-weight']], 'B')).rejects.toMatchObject({ problems: [{ column: '--default-weight', message: 'must be greater than 0' }] });
    const r = await run([['weight', '500', '--default-weight'], ['despatch_date', '2026-01-01', '--despatch-date']]);
    expect(r.warnings).toEqual([{ column: '--despatch-date', message: '2026-01-01 is in the past (today is 2026-11-21); sent as it is' }]);
  });

  it('lists every problem of a large file, one per row, and of a shipment of many rows (no call stack overflow)', async () => {
    // 150,000 rows whose to_name differs from their shipment's first row: one problem each, more than a spread
    // of them as arguments fits on the call stack.
    const rows = [`shipment_reference,${ADDR}`, 'S0,Ann,1 St,London,E1 1AA,GB'];
    for (let i = 1; i <= 150_000; i++) rows.push(`S0,Ann ${i},,,,`);
    const p = await problems(rows.join('\n'));
    expect(p).toHaveLength(150_000);
    expect(p[0]).toMatchObject({ row: 3, column: 'to_name' });
    expect(p[149_999]).toMatchObject({ row: 150_002, column: 'to_name' });
    // One shipment of as many parcels, each with a weight that is not a number.
    const parcels = [`shipment_reference,${ADDR},weight`, 'S0,Ann,1 St,London,E1 1AA,GB,1kg'];
    for (let i = 1; i < 150_000; i++) parcels.push('S0,,,,,,1kg');
    const q = (await problems(parcels.join('\n'))).filter((x) => x.column === 'weight');
    expect(q).toHaveLength(150_000);
    expect(q[149_999]).toMatchObject({ row: 150_001, message: 'must be a whole number of grammes, not "1kg"' });
  }, 60_000);
});

describe('values under no header', () => {
  const HEAD = `shipment_reference,${ADDR},weight,delivery_instructions`;
  const UNDER = (value: string) => `a value under no header ("${value}"): the end of an earlier cell, cut at a separator (comma, semicolon or tab) that was not in quotes? Quote that cell, or give this column a header`;

  it('refuses a value under a trailing blank header (an unquoted comma), with every other problem of the file', async () => {
    const p = await problems(`${HEAD},,
R1,Ann,1 High St,London,SW1A 1AA,GB,1000,Leave at door, ring bell twice,,
R2,Bob,2 Low St,Leeds,LS1 1AA,GB,heavy,,,
`);
    expect(p).toEqual([
      { row: 2, column: '9 (no header)', message: UNDER('ring bell twice') },
      { row: 3, column: 'weight', message: 'must be a whole number of grammes, not "heavy"' },
    ]);
  });

  it('refuses a value under a blank header in the middle, in the file\'s column order', async () => {
    const p = await problems(`shipment_reference,to_name,to_line_1,,to_city,to_postcode,to_country,weight
R1,Ann,1 High St,Flat 2,London,SW1A 1AA,Narnia,1000
`);
    expect(p.map((x) => x.column)).toEqual(['4 (no header)', 'to_country']);
    expect(p[0]).toEqual({ row: 2, column: '4 (no header)', message: UNDER('Flat 2') });
  });

  it('refuses values beyond the header\'s last column, each by its position', async () => {
    const p = await problems(`${HEAD}
R1,Ann,1 High St,London,SW1A 1AA,GB,1000,Leave at door, ring bell, then wait
`);
    expect(p).toEqual([
      { row: 2, column: '9 (no header)', message: UNDER('ring bell') },
      { row: 2, column: '10 (no header)', message: UNDER('then wait') },
    ]);
  });

  it('accepts empty cells under blank headers and beyond the header (a spreadsheet\'s trailing empty columns)', async () => {
    const r = await load(`${HEAD},,
R1,Ann,1 High St,London,SW1A 1AA,GB,1000,Leave at door,,
R2,Bob,2 Low St,Leeds,LS1 1AA,GB,500,,,,,
`);
    expect(r.shipments.map((s) => s.body.delivery_instructions)).toEqual(['Leave at door', undefined]);
  });
});

describe('a first line sep=X (Excel)', () => {
  it('sets the delimiter and is skipped; rows are numbered as Excel shows them (the header is row 1)', async () => {
    const r = await load(`sep=;\r\nshipment_reference;${ADDR.replace(/,/g, ';')};weight\r\nA;Ann;1, High St;London;E1 1AA;GB;100\r\n`);
    expect(r.header[0]).toBe('shipment_reference');
    expect(r.shipments.map((s) => [s.reference, s.row, s.body.to_address?.line_1])).toEqual([['A', 2, '1, High St']]);
    const p = await problems(`\uFEFFsep=|\nshipment_reference|${ADDR.replace(/,/g, '|')}|weight\nA|Ann|1 St|London|E1 1AA|GB|100\nB|Bo|2 St|Leeds|LS1 1AA|GB|bad\n`);
    expect(p).toEqual([{ row: 3, column: 'weight', message: 'must be a whole number of grammes, not "bad"' }]);
  });

  it('is skipped but does not override --delimiter', async () => {
    const r = await load(`sep=;\nshipment_reference,${ADDR}\nA,Ann,1 St,London,E1 1AA,GB\n`, { delimiter: ',' });
    expect(r.shipments.map((s) => [s.reference, s.row])).toEqual([['A', 2]]);
  });
});

describe('quoting errors', () => {
  it('name the row and the column by its header, in plain words with how to fix the cell', async () => {
    const e = await load(`shipment_reference,${ADDR},weight,delivery_instructions\nR1,Ann,1 High St,London,SW1A 1AA,GB,1000,ab"c"d\n`).catch((x) => x);
    expect(e).toBeInstanceOf(InputError);
    expect(e.problems).toEqual([
      { row: 2, column: 'delivery_instructions', message: 'a stray quote (") inside the cell: put the whole cell in quotes and double each quote inside it, e.g. "6"" frame"' },
    ]);
  });

  it('are listed with every other problem of the file, in row order, the rows after them numbered right', async () => {
    const text =
      [
        `shipment_reference,${ADDR},weight,item_short_description`,
        'A,Ann,1 St,London,E1 1AA,GB,0,Mug',
        'B,Bob,2 St,Leeds,LS1 1AA,GB,100,6" frame',
        'C,Cy,"3 St"x,York,YO1 1AA,GB,100,Mug',
        'D,Di,4 St,Hull,HU1 1AA,GB,1kg,Mug',
      ].join('\n') + '\n';
    const expected = [
      [2, 'weight', 'must be greater than 0'],
      [3, 'item_short_description', 'a stray quote (") inside the cell'],
      [4, 'to_line_1', 'text after the quote (") that closes the cell'],
      [5, 'weight', 'must be a whole number of grammes, not "1kg"'],
    ];
    const p = await problems(text);
    expect(p.map((x) => [x.row, x.column, x.message.split(':')[0]])).toEqual(expected);
    // The same when the checking pass reads the file again rather than keeping the first pass's records.
    const again = await loadCsv({ source: { path: csv(text) }, layout: contractLayout({}), validate: await apiValidator(), keepRecordsLimit: 0 }).catch((e) => e);
    expect(again.problems.map((x: { row: number; column: string; message: string }) => [x.row, x.column, x.message.split(':')[0]])).toEqual(expected);
  });

  it('of a shipment of several rows: the shipment is checked as read, and nothing else is said of the broken cell', async () => {
    const head = `shipment_reference,${ADDR},weight,item_short_description,item_quantity`;
    const STRAY = 'a stray quote (") inside the cell: put the whole cell in quotes and double each quote inside it, e.g. "6"" frame"';
    // Its middle row, or its first (the one with the address: the rows below leave it blank), broken: nothing
    // seems missing from the shipment for want of the row; a postcode with a quote in it is not also "invalid".
    const middle = [head, 'A,Ann,1 St,London,E1 1AA,GB,100,Mug,1', 'A,,,,,,,6" frame,1', 'A,,,,,,,Tee,1', 'B,Bo,2 St,Leeds,LS1 1AA,GB,100,Mug,x'];
    expect(await problems(middle.join('\n'))).toEqual([
      { row: 3, column: 'item_short_description', message: STRAY },
      { row: 5, column: 'item_quantity', message: expect.stringMatching(/whole number/) },
    ]);
    const first = [head, 'A,Ann,1 St,London,E1 "1AA,GB,100,Mug,1', 'A,,,,,,,Frame,1', 'A,,,,,,,Tee,0'];
    expect(await problems(first.join('\n'))).toEqual([
      { row: 2, column: 'to_postcode', message: STRAY },
      { row: 4, column: 'item_quantity', message: expect.any(String) },
    ]);
    // A quote never closed: the rows read before it are checked, nothing is made of the rest.
    const unclosed = [head, 'A,Ann,1 St,London,E1 1AA,GB,-1,Mug,1', 'A,,,,,,,"Frame,1', 'A,,,,,,,Tee,1', 'B,Bo,2 St,Leeds,LS1 1AA,GB,100,Mug,1'];
    expect((await problems(unclosed.join('\n'))).map((x) => [x.row, x.column, x.message.slice(0, 40)])).toEqual([
      [2, 'weight', 'must be a whole number of grammes, not "'],
      [3, 'item_short_description', 'a quote (") opens the cell but nothing c'],
    ]);
    // Picked with `only` (quote --shipment): a broken row is reported whichever shipment it is in.
    const e = await loadCsv({ source: { path: csv(middle.join('\n')) }, layout: contractLayout({}), validate: await apiValidator(), only: 'B' }).catch((x) => x);
    expect(e.problems.map((x: { row: number }) => x.row)).toEqual([3, 5]);
  });

  it('in the header row: a header problem (with what its cell was read as), or, when that reads as a column, listed with the rest', async () => {
    // The rows are not checked against a header that misses a column: every row would lack it.
    expect((await problems(`shipment_reference,${ADDR},"weight"x\nA,Ann,1 St,London,E1 1AA,GB,0\n`)).map((x) => [x.row, x.column, x.message.slice(0, 30)])).toEqual([
      [1, '7', 'text after the quote (") that '],
      [1, 'weight"x', 'unknown column (did you mean w'],
    ]);
    const p = await problems(`shipment_reference,${ADDR},weight,custom_fields.gift"s\nA,Ann,1 St,London,E1 1AA,GB,0,Mug\n`);
    expect(p.map((x) => [x.row, x.column])).toEqual([
      [1, '8'],
      [2, 'weight'],
    ]);
    expect(await problems(`shipment_reference,${ADDR},"weight
A,Ann,1 St,London,E1 1AA,GB,0
`)).toEqual([
      { row: 1, column: '7', message: expect.stringMatching(/^a quote \("\) opens the cell but nothing closes it/) },
    ]);
  });

  it('count the rows after a sep= line as Excel does, and name a column without a header by its position', async () => {
    const e = await load(`sep=;\nshipment_reference;${ADDR.replace(/,/g, ';')};\nA;Ann;1 St;London;E1 1AA;GB;\nB;Bo;2 St;Leeds;LS1 1AA;GB;"6" frame"\n`).catch((x) => x);
    expect(e.problems).toEqual([
      { row: 3, column: '7 (no header)', message: 'text after the quote (") that closes the cell: put the whole cell in quotes and double each quote inside it, e.g. "6"" frame"' },
    ]);
  });
});
