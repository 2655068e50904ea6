// The reader itself: Excel's `sep=` first line, for every user of readCsv (orders, the customs table, SKU imports).
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { declaredDelimiter, readCsv, type CsvRecord } from '../../src/csv/reader.js';

const dir = mkdtempSync(join(tmpdir(), 'ship-reader-'));
let n = 0;
function file(content: string | Buffer): string {
  const p = join(dir, `f${++n}.csv`);
  writeFileSync(p, content);
  return p;
}
async function records(path: string, delimiter?: string): Promise<CsvRecord[]> {
  const out: CsvRecord[] = [];
  for await (const rec of readCsv({ path }, { delimiter })) out.push(rec);
  return out;
}

describe('sep= first line', () => {
  it('is recognised only as exactly sep=X (a byte-order mark and CR allowed)', () => {
    expect(declaredDelimiter('sep=;')).toBe(';');
    expect(declaredDelimiter('\uFEFFsep=,\r')).toBe(',');
    expect(declaredDelimiter('sep=\t')).toBe('\t');
    for (const line of ['sep=', 'sep=;;', ' sep=;', 'sep="', 'sep=;,shipment_reference', 'shipment_reference']) expect(declaredDelimiter(line)).toBeUndefined();
  });

  it('sets the delimiter and is not a row: the header is row 1, as Excel shows the file', async () => {
    expect(await records(file('sep=;\r\na;b,c\r\n1;2,3\r\n'))).toEqual([
      { row: 1, values: ['a', 'b,c'] },
      { row: 2, values: ['1', '2,3'] },
    ]);
    // In UTF-16 (Excel's "Unicode Text") too.
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('sep=;\r\na;b\r\n1;2\r\n', 'utf16le')]);
    expect(await records(file(utf16))).toEqual([
      { row: 1, values: ['a', 'b'] },
      { row: 2, values: ['1', '2'] },
    ]);
  });

  it('is skipped when --delimiter is given, which wins', async () => {
    expect(await records(file('sep=;\na,b;c\n'), ',')).toEqual([{ row: 1, values: ['a', 'b;c'] }]);
  });
});
