import { PassThrough } from 'node:stream';
import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { exportHeader, writeSkuCsv } from '../../src/skus/export.js';
import { parseSkuRow, SKU_COLUMNS } from '../../src/skus/columns.js';

async function* pagesOf(...pages: Array<Array<Record<string, unknown>>>) {
  for (const data of pages) yield { data };
}

describe('writeSkuCsv', () => {
  it('writes the import format with custom field columns found on any page, and reads back to the same values', async () => {
    const a = {
      sku: '=CMD()',
      product_name: 'Mug, "large"',
      description_full: 'line 1\nline 2',
      country_of_origin: { code: 'GB', name: 'United Kingdom' },
      location: { id: 'l1', code: 'WH1' },
      value_ex_vat: -5,
      gross_weight: 300,
      active: true,
      item_handling: 'NON_PACKABLE',
      custom_fields: { colour: '@red' },
    };
    const b = { sku: 'B2', product_name: 'Plate', custom_fields: { size: 'L' }, active: false };
    const out = new PassThrough();
    const chunks: Buffer[] = [];
    out.on('data', (c) => chunks.push(c));
    const r = await writeSkuCsv(pagesOf([a], [b]), out);
    expect(r).toEqual({ count: 2, customKeys: ['colour', 'size'] });
    const text = Buffer.concat(chunks).toString('utf8');
    expect(text.split('\n')[0]).toBe(exportHeader(['colour', 'size']));
    const rows = parse(text, { columns: false }) as string[][];
    const header = rows[0];
    expect(header).toHaveLength(SKU_COLUMNS.length + 2);
    expect(rows[1][0]).toBe("'=CMD()");
    const back = rows.slice(1).map((cells, i) =>
      parseSkuRow(cells.map((value, j) => ({ column: header[j], header: header[j], value })), i + 2),
    );
    expect(back.map((x) => x.problems)).toEqual([[], []]);
    expect(back[0].request).toEqual({
      sku: '=CMD()',
      product_name: 'Mug, "large"',
      description_full: 'line 1\nline 2',
      country_of_origin: 'GB',
      location: 'WH1',
      value_ex_vat: -5,
      gross_weight: 300,
      active: true,
      item_handling: 'NON_PACKABLE',
      custom_fields: { colour: '@red' },
    });
    expect(back[1].request).toEqual({ sku: 'B2', product_name: 'Plate', active: false, custom_fields: { size: 'L' } });
  });

  it('writes only a header when there are no SKUs', async () => {
    const out = new PassThrough();
    let text = '';
    out.on('data', (c) => (text += c));
    expect((await writeSkuCsv(pagesOf([]), out)).count).toBe(0);
    expect(text).toBe(exportHeader([]) + '\n');
  });
});
