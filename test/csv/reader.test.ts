// The reader itself: Excel's `sep=` first line, and quoting errors located by row and column, for every user of
// readCsv (orders, the customs table, SKU imports).
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/errors.js';
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

describe('quoting errors', () => {
  async function problem(text: string) {
    const e = await records(file(text)).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(InputError);
    return (e as InputError).problems;
  }
  const FIX = 'put the whole cell in quotes and double each quote inside it, e.g. "6"" frame"';

  it('name the header of the cell, not csv-parse\'s 0-based field number', async () => {
    expect(await problem('a,b,c\n1,2,3\n4,x"y,6\n')).toEqual([{ row: 3, column: 'b', message: `a stray quote (") inside the cell: ${FIX}` }]);
    expect(await problem('a,b,c\n1,"2"x,3\n')).toEqual([{ row: 2, column: 'b', message: `text after the quote (") that closes the cell: ${FIX}` }]);
    expect(await problem('a,b,c\n1,2,"3\n4,5,6\n')).toEqual([
      { row: 2, column: 'c', message: `a quote (") opens the cell but nothing closes it, so the rest of the file was read into it: close it, or if it is part of the text, ${FIX}` },
    ]);
  });

  it('name a column by its position in the header row itself', async () => {
    expect(await problem('a,b"x,c\n1,2,3\n')).toEqual([{ row: 1, column: '2', message: `a stray quote (") inside the cell: ${FIX}` }]);
  });
});
