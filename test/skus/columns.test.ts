import { describe, expect, it } from 'vitest';
import { alreadyHas, checkSkuHeaders, exportCell, parseCell, parseSkuRow, skuColumn, SKU_COLUMNS, type RowCell } from '../../src/skus/columns.js';

const cells = (o: Record<string, string>): RowCell[] => Object.entries(o).map(([column, value]) => ({ column, header: column.toUpperCase(), value }));

describe('parseSkuRow', () => {
  it('reads every kind of column and leaves blank cells out', () => {
    const r = parseSkuRow(
      cells({
        sku: ' AB-1 ',
        product_name: 'Mug',
        description_short: '',
        country_of_origin: 'gb',
        gross_weight: '350',
        width: '90',
        value_ex_vat: '12.50',
        vat_rate: '20',
        active: 'Yes',
        in_stock: '0',
        item_handling: 'non-packable',
        location: 'WH1',
        'custom_fields.colour': 'red',
        'custom_fields.size': '',
      }),
      7,
    );
    expect(r.problems).toEqual([]);
    expect(r.sku).toBe('AB-1');
    expect(r.request).toEqual({
      sku: 'AB-1',
      product_name: 'Mug',
      country_of_origin: 'GB',
      gross_weight: 350,
      width: 90,
      value_ex_vat: 12.5,
      vat_rate: 20,
      active: true,
      in_stock: false,
      item_handling: 'NON_PACKABLE',
      location: 'WH1',
      custom_fields: { colour: 'red' },
    });
  });

  it('accepts every item_handling spelling of the API document in any case', () => {
    const col = skuColumn('item_handling')!;
    for (const v of ['1', 'True', 'y', 'YES', 'p', 'Packable']) expect(parseCell(col, v)).toEqual({ ok: true, value: 'PACKABLE' });
    for (const v of ['0', 'FALSE', 'n', 'No', 'NonPackable', 'non-packable', 'NON_PACKABLE']) expect(parseCell(col, v)).toEqual({ ok: true, value: 'NON_PACKABLE' });
    expect(parseCell(col, 'maybe').ok).toBe(false);
  });

  it('names the row and the user column in every problem', () => {
    const r = parseSkuRow(
      cells({ sku: 'X', gross_weight: '1.5', depth: '-3', country_of_origin: 'GBR', active: 'perhaps', product_name: 'a\\b', value_ex_vat: '12,50', 'custom_fields.c': 'x^y' }),
      12,
    );
    expect(r.problems.map((p) => [p.row, p.column])).toEqual([
      [12, 'GROSS_WEIGHT'],
      [12, 'DEPTH'],
      [12, 'COUNTRY_OF_ORIGIN'],
      [12, 'ACTIVE'],
      [12, 'PRODUCT_NAME'],
      [12, 'VALUE_EX_VAT'],
      [12, 'CUSTOM_FIELDS.C'],
    ]);
    expect(r.problems[0].message).toMatch(/whole number of grammes/);
    expect(r.problems[1].message).toBe('depth must not be negative (got "-3")');
    expect(r.problems[2].message).toMatch(/two-letter/);
  });

  it('requires a sku value', () => {
    expect(parseSkuRow(cells({ sku: '  ', product_name: 'x' }), 3).problems).toEqual([{ row: 3, column: 'SKU', message: 'sku is required' }]);
  });

  it('undoes formula escaping in text and numeric columns', () => {
    const r = parseSkuRow(cells({ sku: "'-A1", product_name: "'=HYPERLINK()", value_ex_vat: "'-5", description_full: "'plain" }), 2);
    expect(r.problems).toEqual([]);
    expect(r.request).toMatchObject({ sku: '-A1', product_name: '=HYPERLINK()', value_ex_vat: -5, description_full: "'plain" });
  });
});

describe('checkSkuHeaders', () => {
  it('reports unknown columns, duplicates and a missing sku column', () => {
    const p = checkSkuHeaders([
      { column: 'product_name', header: 'Product Name' },
      { column: 'gros_weight', header: 'Gros Weight' },
      { column: 'product_name', header: 'product-name' },
      { column: 'custom_fields.colour', header: 'custom_fields.colour' },
    ]);
    expect(p.map((x) => x.column)).toEqual(['Gros Weight', 'product-name', 'sku']);
    expect(p.every((x) => x.row === 1)).toBe(true);
  });
});

describe('exportCell', () => {
  it('writes objects as the codes a write accepts and escapes only text', () => {
    const sku = {
      sku: '-X',
      country_of_origin: { code: 'CN', name: 'China' },
      location: { id: 'uuid', code: 'WH1', name: 'Warehouse' },
      value_ex_vat: -5,
      gross_weight: 100,
      active: false,
      item_handling: 'PACKABLE',
      product_name: null,
    };
    const byName = (n: string) => exportCell(SKU_COLUMNS.find((c) => c.name === n)!, sku);
    expect(byName('sku')).toBe("'-X");
    expect(byName('country_of_origin')).toBe('CN');
    expect(byName('location')).toBe('WH1');
    expect(byName('value_ex_vat')).toBe('-5');
    expect(byName('gross_weight')).toBe('100');
    expect(byName('active')).toBe('false');
    expect(byName('item_handling')).toBe('PACKABLE');
    expect(byName('product_name')).toBe('');
  });
});

describe('alreadyHas', () => {
  const current = { sku: 'A-1', product_name: '=odd', value_ex_vat: '5.00', gross_weight: 100, country_of_origin: { code: 'DE', name: 'Germany' }, active: true, custom_fields: { hazard: '3' } };
  it('reads the API values as an export and an import would ("5.00" is 5, {code} is the code)', () => {
    expect(alreadyHas(current, { sku: 'A-1', product_name: '=odd', value_ex_vat: 5, gross_weight: 100, country_of_origin: 'DE', active: true, custom_fields: { hazard: '3' } })).toBe(true);
  });
  it('any value that differs, or that the SKU lacks, means the row changes it', () => {
    expect(alreadyHas(current, { sku: 'A-1', value_ex_vat: 5.5 })).toBe(false);
    expect(alreadyHas(current, { sku: 'A-1', country_of_origin: 'FR' })).toBe(false);
    expect(alreadyHas(current, { sku: 'A-1', net_weight: 90 })).toBe(false);
    expect(alreadyHas(current, { sku: 'A-1', custom_fields: { hazard: '4' } })).toBe(false);
  });
});
