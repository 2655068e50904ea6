import { PassThrough } from 'node:stream';
import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { exportHeader, writeSkuCsv } from '../../src/skus/export.js';
import { customFieldsOf, exportCell, parseSkuRow, SKU_COLUMNS } from '../../src/skus/columns.js';
import { escapeFormula } from '../../src/skus/escape.js';
import { csvField } from '../../src/bulk/csv-out.js';

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

  it('writes byte for byte what collecting every SKU in memory would (rows with and without custom fields, spool chunk boundaries)', async () => {
    // The export's definition, without the spool: every row, then the header of every key seen, sorted.
    const reference = (skus: Array<Record<string, unknown>>): string => {
      const keys = [...new Set(skus.flatMap((s) => Object.keys(customFieldsOf(s))))].sort();
      let text = exportHeader(keys) + '\n';
      for (const s of skus) {
        const cf = customFieldsOf(s);
        const fixed = SKU_COLUMNS.map((c) => csvField(exportCell(c, s))).join(',');
        text += (keys.length === 0 ? fixed : fixed + ',' + keys.map((k) => csvField(escapeFormula(cf[k] ?? ''))).join(',')) + '\n';
      }
      return text;
    };
    let seed = 7;
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    const bits = ['a', 'b c', ',', '"', '""', '\n', '\r\n', '\r', ' ', '=', '-', "'", 'é', '☃', '😀', 'x'.repeat(200)];
    const text = () => Array.from({ length: rand(6) }, () => bits[rand(bits.length)]).join('');
    const sku = (i: number, withCustom: boolean): Record<string, unknown> => ({
      sku: `S${i}${text()}`,
      product_name: text(),
      description_full: text(),
      description_short: 'y'.repeat(rand(150)),
      location: rand(2) ? { id: `l${i}`, code: text() } : null,
      country_of_origin: rand(2) ? { code: 'GB' } : 'FR',
      value_ex_vat: rand(2) ? '-1.50' : 3,
      gross_weight: rand(1000),
      active: rand(2) === 0,
      item_handling: 'PACKABLE',
      custom_fields: withCustom ? Object.fromEntries(Array.from({ length: 1 + rand(3) }, () => [['size', 'colour', 'a,b', '"q"'][rand(4)], rand(3) ? text() : { n: rand(9) }])) : rand(2) ? {} : null,
    });
    const run = async (skus: Array<Record<string, unknown>>, memoryChars?: number) => {
      const out = new PassThrough();
      const chunks: Buffer[] = [];
      out.on('data', (c) => chunks.push(c));
      const pages = Array.from({ length: Math.ceil(skus.length / 30) }, (_, p) => skus.slice(p * 30, p * 30 + 30));
      const r = await writeSkuCsv(pagesOf(...pages), out, { memoryChars });
      expect(r.count).toBe(skus.length);
      return Buffer.concat(chunks);
    };
    const plain = Array.from({ length: 2500 }, (_, i) => sku(i, false));
    const mixed = Array.from({ length: 2500 }, (_, i) => sku(i, rand(10) === 0 || i === 0 || i === 2499));
    // Rows held in memory, rows spooled to the file from the start, and rows spooled after a first part in memory.
    for (const memoryChars of [undefined, 0, 100_000]) {
      expect((await run(plain, memoryChars)).equals(Buffer.from(reference(plain)))).toBe(true);
      const got = await run(mixed, memoryChars);
      expect(got.length).toBeGreaterThan(3 * 64 * 1024); // several spool reads, so rows cross chunk boundaries
      expect(got.toString('utf8')).toBe(reference(mixed));
      expect(got.equals(Buffer.from(reference(mixed)))).toBe(true);
    }
  });
});
