// The reader itself: Excel's `sep=` first line, and quoting errors located by row and column, for every user of
// readCsv (orders, the customs table, SKU imports).
import { describe, expect, it } from 'vitest';
import { csvFiles } from '../helpers/csv-files.js';
import { InputError } from '../../src/errors.js';
import { declaredDelimiter, readCsv, readCsvBatches, type CsvRecord } from '../../src/csv/reader.js';

const file = csvFiles('ship-reader-');
async function records(path: string, delimiter?: string): Promise<CsvRecord[]> {
  const out: CsvRecord[] = [];
  for await (const rec of readCsv({ path }, { delimiter })) out.push(rec);
  return out;
}

describe('sep= first line', () => {
  it('is recognised only as exactly sep=X (a byte-order mark and CR allowed), or "sep=X" in quotes', () => {
    expect(declaredDelimiter('sep=;')).toBe(';');
    expect(declaredDelimiter('"sep=;"\r')).toBe(';');
    expect(declaredDelimiter('"sep=;')).toBeUndefined();
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

  it('in quotes too (written as a CSV cell)', async () => {
    expect(await records(file('"sep=;"\r\na;b\r\n1;2\r\n'))).toEqual([
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
      { row: 2, column: 'c', message: `a quote (") opens the cell but nothing closes it, so the rest of the file was read into it and no row after this one was checked: close it, or if it is part of the text, ${FIX}` },
    ]);
  });

  it('name a column by its position in the header row itself', async () => {
    expect(await problem('a,b"x,c\n1,2,3\n')).toEqual([{ row: 1, column: '2', message: `a stray quote (") inside the cell: ${FIX}` }]);
  });
});

describe('malformed records, reported (malformed: "report")', () => {
  const FIX = 'put the whole cell in quotes and double each quote inside it, e.g. "6"" frame"';
  const STRAY = `a stray quote (") inside the cell: ${FIX}`;
  const AFTER = `text after the quote (") that closes the cell: ${FIX}`;
  const UNCLOSED = `a quote (") opens the cell but nothing closes it, so the rest of the file was read into it and no row after this one was checked: close it, or if it is part of the text, ${FIX}`;
  async function reported(text: string, opts: { trim?: 'all' | 'unquoted' } = {}): Promise<CsvRecord[]> {
    const out: CsvRecord[] = [];
    for await (const rec of readCsv({ path: file(text) }, { ...opts, malformed: 'report' })) out.push(rec);
    return out;
  }

  it('are each yielded in their place, at the row the user sees, and the read goes on with the rows after them numbered right', async () => {
    // A stray quote (csv-parse reads on, the quote a character), two in one row (one problem per cell), two rows in
    // a row, and text after a closing quote: csv-parse alone would read on inside the quotes and take rows 4 and
    // 5 into that cell, up to the next quote; the rows after it would then be numbered two short.
    const text = ['a,b,c', '1,6" frame,3', '4,x"y,z"z', '7,"8"9,10', 'd,e,f', 'g,"h",i', '11,12,13'].join('\n') + '\n';
    expect(await reported(text)).toEqual([
      { row: 1, values: ['a', 'b', 'c'] },
      { row: 2, values: ['1', '6" frame', '3'], malformed: { problems: [{ row: 2, column: 'b', message: STRAY }], complete: true } },
      {
        row: 3,
        values: ['4', 'x"y', 'z"z'],
        malformed: { problems: [{ row: 3, column: 'b', message: STRAY }, { row: 3, column: 'c', message: STRAY }], complete: true },
      },
      { row: 4, values: ['7', '8"9', '10'], malformed: { problems: [{ row: 4, column: 'b', message: AFTER }], complete: true } },
      { row: 5, values: ['d', 'e', 'f'] },
      { row: 6, values: ['g', 'h', 'i'] },
      { row: 7, values: ['11', '12', '13'] },
    ]);
    // Rows after a `sep=` line (not a row), and a header whose cell is broken (named by its position).
    expect(await reported('sep=;\na;b"x\n1;2"\n3;4\n')).toEqual([
      { row: 1, values: ['a', 'b"x'], malformed: { problems: [{ row: 1, column: '2', message: STRAY }], complete: true } },
      { row: 2, values: ['1', '2"'], malformed: { problems: [{ row: 2, column: 'b"x', message: STRAY }], complete: true } },
      { row: 3, values: ['3', '4'] },
    ]);
  });

  it('a quote never closed is one problem, the record cut short, and nothing after it', async () => {
    expect(await reported('a,b,c\n1,2,3\n4,"5,6\n7,8,9\n10,11,12\n')).toEqual([
      { row: 1, values: ['a', 'b', 'c'] },
      { row: 2, values: ['1', '2', '3'] },
      { row: 3, values: ['4'], malformed: { problems: [{ row: 3, column: 'b', message: UNCLOSED }], complete: false } },
    ]);
  });

  it('stop at a fault csv-parse cannot read past (a record over 1 MB), with the rows before it', async () => {
    const rows = ['a,b', ...Array.from({ length: 3000 }, (_, i) => `${i},x`), `bad,"${'y'.repeat(1_100_000)}`, 'after,1'];
    const got = await reported(rows.join('\n') + '\n');
    expect(got).toHaveLength(3002);
    expect(got[3000]).toEqual({ row: 3001, values: ['2999', 'x'] });
    expect(got[3001]).toEqual({
      row: 3002,
      values: ['bad'],
      malformed: {
        problems: [{ row: 3002, column: 'b', message: 'the row is longer than 1 MB: is a quote (") that opens a cell never closed? (the file cannot be read past this row: no row after it was checked)' }],
        complete: false,
      },
    });
  });

  it('read on past text after a closing quote when quoted cells keep their spaces (csv-parse\'s trim), as without it', async () => {
    // csv-parse alone drops the rest of its chunk there: the read stopped at row 2, and rows 3 to 5 went unchecked.
    expect(await reported('a,b,c\n1,"2" x,3\n4,"" y,6\n  7 , " 8 " ,9\n10,"11"z\n', { trim: 'unquoted' })).toEqual([
      { row: 1, values: ['a', 'b', 'c'] },
      { row: 2, values: ['1', '2x', '3'], malformed: { problems: [{ row: 2, column: 'b', message: AFTER }], complete: true } },
      { row: 3, values: ['4', 'y', '6'], malformed: { problems: [{ row: 3, column: 'b', message: AFTER }], complete: true } },
      // Spaces around a quoted cell are still trimmed, and those inside it kept.
      { row: 4, values: ['7', ' 8 ', '9'] },
      { row: 5, values: ['10', '11"z'], malformed: { problems: [{ row: 5, column: 'b', message: AFTER }], complete: true } },
    ]);
    // Across the parser's 64 KB reads: every such row of a large file, at its row, none after it lost.
    const rows = ['ref,desc,n'];
    const broken: number[] = [];
    for (let i = 2; i <= 20_001; i++) {
      const bad = i % 997 === 0;
      if (bad) broken.push(i);
      rows.push(bad ? `R${i},"6" frame,${i}` : `R${i},"a, b",${i}`);
    }
    const got: CsvRecord[] = [];
    for await (const batch of readCsvBatches({ path: file(rows.join('\r\n')) }, { trim: 'unquoted', malformed: 'report' })) got.push(...batch);
    expect(got.map((r) => r.row)).toEqual(Array.from({ length: 20_001 }, (_, i) => i + 1));
    expect(got.filter((r) => r.values[2] !== String(r.row)).map((r) => r.row)).toEqual([1]);
    expect(got.filter((r) => r.malformed).map((r) => [r.row, r.malformed!.problems, r.malformed!.complete])).toEqual(
      broken.map((row) => [row, [{ row, column: 'desc', message: AFTER }], true]),
    );
  });

  it('keep their place across the parser\'s 64 KB reads: every broken row of a large file, each at its row', async () => {
    const rows = ['ref,desc,n'];
    const broken: number[] = [];
    for (let i = 2; i <= 20_001; i++) {
      const bad = i % 997 === 0;
      if (bad) broken.push(i);
      // Alternately a stray quote and text after a closing quote that would otherwise run on over the next rows.
      rows.push(bad ? (i % 2 ? `R${i},6" frame,${i}` : `R${i},"6"x frame,${i}`) : `R${i},"a, b",${i}`);
    }
    let n = 0;
    const found: number[] = [];
    const misplaced: number[] = [];
    for await (const batch of readCsvBatches({ path: file(rows.join('\r\n')) }, { malformed: 'report' })) {
      for (const rec of batch) {
        if (rec.row !== ++n || (rec.row > 1 && rec.values[2] !== String(rec.row))) misplaced.push(n);
        if (rec.malformed) found.push(rec.row);
      }
    }
    expect(misplaced).toEqual([]);
    expect(n).toBe(20_001);
    expect(found).toEqual(broken);
  });

  it('end the read with an InputError by default (a file already checked), as before', async () => {
    await expect(records(file('a,b\n1,2"\n3,4\n'))).rejects.toMatchObject({ problems: [{ row: 2, column: 'b', message: STRAY }] });
  });
});
