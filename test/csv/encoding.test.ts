// CSV files that are not UTF-8: Excel's "CSV (Comma delimited)" (Windows-1252), "Unicode Text" (UTF-16 with a
// byte-order mark), a file whose one accented letter comes after the first megabyte, and --encoding.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { InputError, UsageError } from '../../src/errors.js';
import { loadCsv } from '../../src/csv/load.js';
import { contractLayout } from '../../src/csv/presets/index.js';
import { isUtf8 } from 'node:buffer';
import {
  checkEncoding,
  csvEncodingFor,
  detectCsvEncoding,
  firstInvalidUtf8,
  hasMultiByteUtf8,
  incompleteUtf8Tail,
  MAX_INVALID_ROWS,
  readCsv,
  rowsWithInvalidUtf8,
  utf16WithoutBom,
  writeBackWithBom,
} from '../../src/csv/reader.js';

const dir = mkdtempSync(join(tmpdir(), 'ship-csv-enc-'));
function file(name: string, bytes: Buffer): string {
  const p = join(dir, name);
  writeFileSync(p, bytes);
  return p;
}
async function records(path: string, encoding?: string): Promise<string[][]> {
  const out: string[][] = [];
  for await (const r of readCsv({ path }, encoding ? { encoding } : {})) out.push(r.values);
  return out;
}

const HEADER = 'shipment_reference;to_name;to_line_1;to_city;to_postcode;to_country;weight\r\n';
// "Zoë Brönte", "1 St €", "München" in Windows-1252: ë=EB, ö=F6, ü=FC, €=80 (not Latin-1's C1 control).
const cp1252 = Buffer.concat([Buffer.from(HEADER), Buffer.from([...Buffer.from('W-1;Zo'), 0xeb, ...Buffer.from(' Br'), 0xf6, ...Buffer.from('nte;1 St '), 0x80, ...Buffer.from(';M'), 0xfc, ...Buffer.from('nchen;80331;DE;100'), 0x0d, 0x0a])]);

describe('CSV encodings', () => {
  it('reads a file that is not UTF-8 as Windows-1252, and says it guessed', async () => {
    const p = file('excel.csv', cp1252);
    expect(await detectCsvEncoding(p)).toEqual({ encoding: 'windows-1252', guessed: true });
    const [, row] = await records(p);
    expect(row).toEqual(['W-1', 'Zoë Brönte', '1 St €', 'München', '80331', 'DE', '100']);
  });

  it('reads UTF-16 with a byte-order mark (Excel "Unicode Text", tab-separated), delimiter detected', async () => {
    const text = 'shipment_reference\tto_name\r\nU-1\tŁukasz Żółć 😀\r\n';
    const le = file('u16le.txt', Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]));
    expect(await detectCsvEncoding(le)).toEqual({ encoding: 'utf-16le', bom: true });
    expect(await records(le)).toEqual([['shipment_reference', 'to_name'], ['U-1', 'Łukasz Żółć 😀']]);
    const swapped = Buffer.from(text, 'utf16le').swap16();
    const be = file('u16be.txt', Buffer.concat([Buffer.from([0xfe, 0xff]), swapped]));
    expect(await detectCsvEncoding(be)).toEqual({ encoding: 'utf-16be', bom: true });
    expect((await records(be))[1]).toEqual(['U-1', 'Łukasz Żółć 😀']);
  });

  it('reads UTF-16 written without a byte-order mark, found from the zero bytes of its header', async () => {
    const text = 'shipment_reference,to_name,to_country\r\nU-1,Zoë Brönte,GB\r\nU-2,Łukasz,PL\r\n';
    const le = file('u16le-nobom.csv', Buffer.from(text, 'utf16le'));
    expect(await detectCsvEncoding(le)).toEqual({ encoding: 'utf-16le' });
    expect(await records(le)).toEqual([['shipment_reference', 'to_name', 'to_country'], ['U-1', 'Zoë Brönte', 'GB'], ['U-2', 'Łukasz', 'PL']]);
    const be = file('u16be-nobom.csv', Buffer.from(text, 'utf16le').swap16());
    expect(await detectCsvEncoding(be)).toEqual({ encoding: 'utf-16be' });
    expect((await records(be))[1]).toEqual(['U-1', 'Zoë Brönte', 'GB']);
    const r = await loadCsv({ source: { path: le }, layout: contractLayout({}) });
    expect(r.header).toEqual(['shipment_reference', 'to_name', 'to_country']);
    // Text with no zero bytes, or only some (a header in Cyrillic, say), is not taken for UTF-16.
    expect(utf16WithoutBom(Buffer.from('shipment_reference,to_name\n'))).toBeUndefined();
    expect(utf16WithoutBom(Buffer.from('Имя,shipment_reference\n', 'utf16le'))).toBeUndefined();
    expect(utf16WithoutBom(Buffer.from('a,'))).toBeUndefined();
  });

  it('refuses a file that is not text at all (a workbook given for its CSV export) by what it is, not as garbage headers', async () => {
    const xlsx = file('orders.xlsx', Buffer.concat([Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x14, 0x00]), Buffer.from('[Content_Types].xml<Types/>')]));
    const err = await detectCsvEncoding(xlsx, { name: 'orders.xlsx' }).catch((e) => e);
    expect(err).toBeInstanceOf(UsageError);
    expect(err.message).toBe('orders.xlsx is not a CSV file: it is a ZIP archive (an Excel .xlsx or a .ods workbook?)');
    expect(err.hint).toMatch(/save it as "CSV UTF-8/);
    const xls = file('orders.xls', Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1, 0, 0, 0]));
    await expect(loadCsv({ source: { path: xls }, layout: contractLayout({}), name: 'orders.xls' })).rejects.toThrow('orders.xls is not a CSV file: it is an Excel 97-2003 workbook (.xls)');
    await expect(detectCsvEncoding(file('o.csv.gz', Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0x41])))).rejects.toThrow(/it is compressed \(gzip\)/);
    await expect(detectCsvEncoding(file('nul.csv', Buffer.from('a,b\0\n1,2\n')))).rejects.toThrow(/holds zero bytes/);
    // UTF-16 (zero bytes and all) is text.
    expect(await detectCsvEncoding(file('u16-text.csv', Buffer.from('a,b\n1,2\n', 'utf16le')))).toEqual({ encoding: 'utf-16le' });
  });

  it('keeps UTF-8 (with or without BOM) as UTF-8, also when a character straddles the 1 MB read steps', async () => {
    // '€' (3 bytes) placed so that it is cut by the first 1 MB read: lines of 100 bytes, then one that ends there.
    const lines = `${'x'.repeat(99)}\n`.repeat(10_000);
    const head = `a,b\n${lines}`;
    const filler = 'y'.repeat(1024 * 1024 - 1 - head.length - 1);
    const p = file('big.csv', Buffer.from(`${head}${filler},€ café\n`));
    expect(Buffer.from(`${head}${filler},`).length).toBe(1024 * 1024 - 1);
    expect(await detectCsvEncoding(p)).toEqual({ encoding: 'utf-8' });
    expect((await records(p)).at(-1)).toEqual([filler, '€ café']);
    const bom = file('bom.csv', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('a,b\nZoë,1\n')]));
    expect(await detectCsvEncoding(bom)).toEqual({ encoding: 'utf-8', bom: true });
    expect(await records(bom)).toEqual([['a', 'b'], ['Zoë', '1']]);
  });

  it('finds a single Windows-1252 byte after the first megabyte', async () => {
    const pad = `${'y'.repeat(100)}\n`.repeat(12_000);
    const p = file('late.csv', Buffer.concat([Buffer.from(`a\n${pad}`), Buffer.from([0x43, 0x61, 0x66, 0xe9, 0x0a])]));
    expect(await detectCsvEncoding(p)).toEqual({ encoding: 'windows-1252', guessed: true });
    expect((await records(p)).at(-1)).toEqual(['Café']);
  });

  it('--encoding overrides the guess; UTF-8 asked for on a file that is not says where', async () => {
    const p = file('excel2.csv', cp1252);
    expect((await records(p, 'iso-8859-2'))[1][1]).toBe('Zoë Brönte'); // same letters in Latin-2
    const err = await records(p, 'utf-8').catch((e) => e);
    expect(err).toBeInstanceOf(InputError);
    expect(err.message).toMatch(/not valid utf-8 text/);
    expect(err.problems[0]).toMatchObject({ row: 2 });
    expect(err.hint).toMatch(/--encoding/);
    expect(checkEncoding('Latin1')).toBe('windows-1252');
    expect(checkEncoding('cp1250')).toBe('windows-1250');
    expect(() => checkEncoding('klingon')).toThrow(UsageError);
  });

  it('loadCsv builds the request bodies from the decoded text, the same on every pass', async () => {
    const p = file('excel3.csv', cp1252);
    const loaded = await loadCsv({ source: { path: p }, layout: contractLayout({}), keep: 'json', keepRecordsLimit: 0 });
    expect(loaded.encoding).toEqual({ encoding: 'windows-1252', guessed: true });
    expect(JSON.parse(loaded.compact[0].json).to_address).toMatchObject({ name: 'Zoë Brönte', line_1: '1 St €', city: 'München' });
    const again: string[] = [];
    await loaded.eachRecord((rec) => void again.push(rec.values[1]));
    expect(again).toEqual(['Zoë Brönte']);
  });

  it('refuses a UTF-8 file with a row of other bytes (pasted from another program), naming its row and column', async () => {
    // Row 3 has a line break inside quotes, so the stray Latin-1 "ë" of row 4 is on line 5 of the file.
    const mixed = Buffer.concat([
      Buffer.from(`${HEADER}U-1;Zoë Müller;1 High St;London;SW1A 1AA;GB;100\r\nU-2;Ann;"Flat 2\r\n1 High St";London;SW1A 1AA;GB;100\r\n`),
      Buffer.from([...Buffer.from('U-3;Zo'), 0xeb, ...Buffer.from(' Br;3 High St;London;SW1A 1AA;GB;100\r\n')]),
    ]);
    const p = file('mixed.csv', mixed);
    const err = await detectCsvEncoding(p, { name: 'mixed.csv' }).catch((e) => e);
    expect(err).toBeInstanceOf(InputError);
    expect(err.message).toBe('mixed.csv is not valid utf-8 text');
    expect(err.problems).toEqual([{ row: 4, column: 'to_name', message: 'bytes that are not UTF-8 in a file otherwise UTF-8 (a row pasted from another program?): fix that row, or give --encoding' }]);
    expect(err.hint).toMatch(/--encoding/);
    // Whoever reads the file without an encoding gets the same refusal: nothing is built from "ZoÃ« MÃ¼ller".
    await expect(records(p)).rejects.toMatchObject({ problems: [{ row: 4, column: 'to_name' }] });
    await expect(loadCsv({ source: { path: p }, layout: contractLayout({}) })).rejects.toBeInstanceOf(InputError);
    // --encoding still decides.
    expect((await records(p, 'windows-1252'))[1][1]).toBe('ZoÃ« MÃ¼ller');
    // --encoding utf-8 given: the row as counted (row 4, not the file's line 5) and the column, too.
    await expect(records(p, 'utf-8')).rejects.toMatchObject({ message: expect.stringMatching(/mixed.csv is not valid utf-8 text$/), problems: [{ row: 4, column: 'to_name', message: 'bytes that are not utf-8' }] });
    // Excel's `sep=;` first line is not a row (readCsv skips it): the same row and column.
    const withSep = file('mixed-sep.csv', Buffer.concat([Buffer.from('sep=;\r\n'), mixed]));
    expect((await detectCsvEncoding(withSep, { name: 'mixed-sep.csv' }).catch((e) => e)).problems).toEqual([expect.objectContaining({ row: 4, column: 'to_name' })]);

    // The stray byte first and the UTF-8 after it (here beyond the first megabyte), or a UTF-8 byte-order mark.
    const pad = `P;${'y'.repeat(98)}\n`.repeat(12_000);
    const late = file('mixed-late.csv', Buffer.concat([Buffer.from('a,b\n'), Buffer.from([0x43, 0x61, 0x66, 0xe9, 0x2c, 0x31, 0x0a]), Buffer.from(`${pad}Zoë,2\n`)]));
    await expect(detectCsvEncoding(late)).rejects.toMatchObject({ problems: [{ row: 2, column: 'a' }] });
    const marked = file('mixed-bom.csv', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('a,b\n'), Buffer.from([0x43, 0x61, 0x66, 0xe9, 0x2c, 0x31, 0x0a])]));
    await expect(detectCsvEncoding(marked)).rejects.toMatchObject({ problems: [{ row: 2, column: 'a' }] });
    // A bad byte in the header: its row, no column.
    const inHeader = file('mixed-header.csv', Buffer.concat([Buffer.from([0x61, 0xe9, 0x2c, 0x62, 0x0a]), Buffer.from('Zoë,1\n')]));
    await expect(detectCsvEncoding(inHeader)).rejects.toMatchObject({ problems: [{ row: 1, message: expect.stringMatching(/not UTF-8/) }] });
  });

  it('names every row with bytes that are not UTF-8, not only the first, each with its column', async () => {
    const row = (ref: string, name: number[]) => Buffer.from([...Buffer.from(`${ref};`), ...name, ...Buffer.from(';1 St;London;SW1A 1AA;GB;100\r\n')]);
    // Rows 3, 5 and 6 (row 4 spans two lines: a line break in quotes), the last one's bad byte in a later column.
    const mixed = Buffer.concat([
      Buffer.from(HEADER),
      row('U-1', [...Buffer.from('Zoë')]),
      row('U-2', [0x5a, 0x6f, 0xeb]),
      Buffer.from('U-3;"Ann\r\nLee";1 St;London;SW1A 1AA;GB;100\r\n'),
      row('U-4', [0x4d, 0xfc, 0x6c, 0x6c, 0x65, 0x72, 0xe9]),
      Buffer.from([...Buffer.from('U-5;Bo;1 St;K'), 0xf6, ...Buffer.from('ln;50667;DE;100\r\n')]),
    ]);
    const p = file('mixed-rows.csv', mixed);
    const MIXED = 'bytes that are not UTF-8 in a file otherwise UTF-8 (a row pasted from another program?): fix that row, or give --encoding';
    const err = await detectCsvEncoding(p, { name: 'mixed-rows.csv' }).catch((e) => e);
    expect(err).toBeInstanceOf(InputError);
    expect(err.problems).toEqual([
      { row: 3, column: 'to_name', message: MIXED },
      { row: 5, column: 'to_name', message: MIXED },
      { row: 6, column: 'to_city', message: MIXED },
    ]);
    // --encoding utf-8 given: the same rows.
    await expect(records(p, 'utf-8')).rejects.toMatchObject({
      problems: [3, 5, 6].map((r) => ({ row: r, message: 'bytes that are not utf-8' })),
    });

    // A Windows-1252 file read as UTF-8 has a bad byte on every row: the first hundred are named, the rest counted.
    const many = Buffer.concat([Buffer.from(HEADER), ...Array.from({ length: 150 }, (_, i) => row(`W-${i}`, [0x5a, 0x6f, 0xeb]))]);
    const e2 = await records(file('cp1252-rows.csv', many), 'utf-8').catch((e) => e);
    expect(e2).toBeInstanceOf(InputError);
    expect(e2.problems).toHaveLength(MAX_INVALID_ROWS + 1);
    expect(e2.problems[0]).toEqual({ row: 2, column: 'to_name', message: 'bytes that are not utf-8' });
    expect(e2.problems[MAX_INVALID_ROWS - 1]).toMatchObject({ row: MAX_INVALID_ROWS + 1 });
    expect(e2.problems[MAX_INVALID_ROWS]).toEqual({ message: '… and 50 more rows with bytes that are not UTF-8' });
  });

  it('names every row with bytes invalid in an --encoding other than UTF-8, not only the first line, each with its column', async () => {
    // Windows-1253 (Greek) has no character at D2 or FF; Windows-1252 has one for every byte, so nothing is invalid in it.
    const row = (ref: string, name: number[]) => Buffer.from([...Buffer.from(`${ref};`), ...name, ...Buffer.from(';1 St;London;SW1A 1AA;GB;100\r\n')]);
    const greek = Buffer.concat([
      Buffer.from(HEADER),
      row('G-1', [0xc1, 0xeb, 0xfd]),
      row('G-2', [0x5a, 0xd2]),
      Buffer.from('G-3;"Ann\r\nLee";1 St;London;SW1A 1AA;GB;100\r\n'),
      row('G-4', [0xff, 0x41]),
      Buffer.from([...Buffer.from('G-5;Bo;1 St;K'), 0xd2, ...Buffer.from('ln;50667;DE;100\r\n')]),
    ]);
    const p = file('greek.csv', greek);
    const err = await records(p, 'windows-1253').catch((e) => e);
    expect(err).toBeInstanceOf(InputError);
    expect(err.message).toMatch(/greek.csv is not valid windows-1253 text$/);
    expect(err.hint).toMatch(/--encoding/);
    expect(err.problems).toEqual([
      { row: 3, column: 'to_name', message: 'bytes that are not windows-1253' },
      { row: 5, column: 'to_name', message: 'bytes that are not windows-1253' },
      { row: 6, column: 'to_city', message: 'bytes that are not windows-1253' },
    ]);
    // Shift_JIS (a multi-byte encoding): 0x80 and 0xA0 are no character's first byte.
    const sjis = file('sjis.csv', Buffer.concat([Buffer.from('a,b\n1,x\n'), Buffer.from([0x32, 0x2c, 0x80, 0x0a, 0x33, 0x2c, 0x79, 0x0a, 0x34, 0x2c, 0xa0, 0x0a])]));
    await expect(records(sjis, 'shift_jis')).rejects.toMatchObject({ problems: [{ row: 3, column: 'b' }, { row: 5, column: 'b' }] });
    // The first hundred are named, the rest counted, as for UTF-8.
    const many = Buffer.concat([Buffer.from(HEADER), ...Array.from({ length: 150 }, (_, i) => row(`G-${i}`, [0x5a, 0xd2]))]);
    const e2 = await records(file('greek-rows.csv', many), 'windows-1253').catch((e) => e);
    expect(e2.problems).toHaveLength(MAX_INVALID_ROWS + 1);
    expect(e2.problems[MAX_INVALID_ROWS - 1]).toEqual({ row: MAX_INVALID_ROWS + 1, column: 'to_name', message: 'bytes that are not windows-1253' });
    expect(e2.problems[MAX_INVALID_ROWS]).toEqual({ message: '… and 50 more rows with bytes that are not windows-1253' });
  });

  it('lists the rows with bad bytes among the file\'s other problems, by row, in one InputError', async () => {
    const MIXED = 'bytes that are not UTF-8 in a file otherwise UTF-8 (a row pasted from another program?): fix that row, or give --encoding';
    const row = (ref: string, name: number[], rest = ';1 St;London;SW1A 1AA;GB;100') => Buffer.from([...Buffer.from(`${ref};`), ...name, ...Buffer.from(`${rest}\r\n`)]);
    // UTF-8 (row 2's "Zoë") with a Latin-1 byte in rows 3 and 5, a country that is none in row 4, a weight that is no number in row 6.
    const mixed = Buffer.concat([
      Buffer.from(HEADER),
      row('U-1', [...Buffer.from('Zoë')]),
      row('U-2', [0x5a, 0x6f, 0xeb]),
      row('U-3', [0x41], ';1 St;London;SW1A 1AA;XX;100'),
      row('U-4', [0x4d, 0xfc]),
      row('U-5', [0x42], ';1 St;London;SW1A 1AA;GB;heavy'),
    ]);
    const p = file('mixed-other.csv', mixed);
    const load = (encoding?: string) => loadCsv({ source: { path: p }, layout: contractLayout({}), name: 'mixed-other.csv', ...(encoding ? { encoding } : {}) }).catch((e) => e);
    const err = await load();
    expect(err).toBeInstanceOf(InputError);
    expect(err.message).toMatch(/^mixed-other.csv is not valid utf-8 text, and the file has other problems: 4 problems in 4 rows; nothing was sent$/);
    expect(err.hint).toMatch(/--encoding/);
    expect(err.problems.map((q: { row?: number; column?: string; message: string }) => [q.row, q.column, q.message === MIXED ? 'MIXED' : 'other'])).toEqual([
      [3, 'to_name', 'MIXED'],
      [4, 'to_country', 'other'],
      [5, 'to_name', 'MIXED'],
      [6, 'weight', 'other'],
    ]);
    // As `ship create --csv` has it: csvEncodingFor carries the refusal instead of throwing it, loadCsv lists it.
    const found = await csvEncodingFor(p, undefined, 'mixed-other.csv');
    expect(found.encoding).toMatchObject({ encoding: 'utf-8', refused: expect.any(InputError) });
    const viaFound = await loadCsv({ source: { path: p }, layout: contractLayout({}), name: 'mixed-other.csv', encoding: found.encoding }).catch((e) => e);
    expect(viaFound.problems).toEqual(err.problems);
    // A read that does not report problems throws the refusal alone, as before.
    await expect(readCsv({ path: p }, { encoding: found.encoding }).next()).rejects.toMatchObject({ message: 'mixed-other.csv is not valid utf-8 text' });
    // --encoding given (UTF-8 here, Windows-1253 below): the same rows, with its own words.
    const given = await load('utf-8');
    expect(given.message).toMatch(/^mixed-other.csv is not valid utf-8 text, and the file has other problems: 4 problems in 4 rows/);
    expect(given.problems.map((q: { row?: number; message: string }) => [q.row, q.message.startsWith('bytes that are not utf-8')])).toEqual([[3, true], [4, false], [5, true], [6, false]]);
    const greek = file('greek-other.csv', Buffer.concat([Buffer.from(HEADER), row('G-1', [0x5a, 0xd2]), row('G-2', [0x41], ';1 St;London;SW1A 1AA;XX;100'), row('G-3', [0xff])]));
    const g = await loadCsv({ source: { path: greek }, layout: contractLayout({}), name: 'greek-other.csv', encoding: 'windows-1253' }).catch((e) => e);
    expect(g).toBeInstanceOf(InputError);
    expect(g.message).toMatch(/^greek-other.csv is not valid windows-1253 text, and the file has other problems: 3 problems in 3 rows; nothing was sent$/);
    expect(g.hint).toMatch(/--encoding/);
    expect(g.problems.map((q: { row?: number; column?: string }) => [q.row, q.column])).toEqual([[2, 'to_name'], [3, 'to_country'], [4, 'to_name']]);
    // Bad bytes and nothing else: the refusal as it always was.
    const only = file('mixed-only.csv', Buffer.concat([Buffer.from(HEADER), row('U-1', [...Buffer.from('Zoë')]), row('U-2', [0x5a, 0x6f, 0xeb])]));
    const alone = await loadCsv({ source: { path: only }, layout: contractLayout({}), name: 'mixed-only.csv' }).catch((e) => e);
    expect(alone.message).toBe('mixed-only.csv is not valid utf-8 text');
    expect(alone.problems).toEqual([{ row: 3, column: 'to_name', message: MIXED }]);
  });

  it('tells bytes that are not UTF-8 as the platform does: overlong forms, surrogates, cut characters, beyond U+10FFFF', async () => {
    const sequences = [
      [0xc2, 0x80], [0xc0, 0x80], [0xc1, 0xbf], [0xe0, 0xa0, 0x80], [0xe0, 0x80, 0x80], [0xe0, 0x9f, 0xbf], [0xed, 0x9f, 0xbf], [0xed, 0xa0, 0x80],
      [0xef, 0xbf, 0xbf], [0xf0, 0x90, 0x80, 0x80], [0xf0, 0x8f, 0xbf, 0xbf], [0xf4, 0x8f, 0xbf, 0xbf], [0xf4, 0x90, 0x80, 0x80], [0xf5, 0x80, 0x80, 0x80],
      [0xe2, 0x82, 0x41], [0xe2, 0x82], [0x80], [0xff],
    ];
    for (const [i, seq] of sequences.entries()) {
      const bytes = Buffer.from([...Buffer.from('a,b\nx,'), ...seq]);
      const { found } = await rowsWithInvalidUtf8(file(`seq-${i}.csv`, bytes), ',', 10);
      expect(found, Buffer.from(seq).toString('hex')).toEqual(isUtf8(bytes) ? [] : [{ row: 2, column: 'b' }]);
    }
    // Random mixes of well-formed characters and bytes of every kind: a file has a bad row exactly when it is not UTF-8.
    const pieces = ['a', ',', '"', '\n', 'é', '€', '😀'].map((c) => Buffer.from(c));
    const strays = [0x80, 0xbf, 0xc0, 0xc1, 0xc2, 0xdf, 0xe0, 0xed, 0xef, 0xf0, 0xf4, 0xf5, 0xff, 0xa0, 0x90, 0x8f, 0x9f];
    let seed = 7;
    const next = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
    for (let t = 0; t < 300; t++) {
      const parts: Buffer[] = [Buffer.from('a,b\n')];
      for (let i = 0; i < 12; i++) parts.push(next(2) === 0 ? Buffer.from([strays[next(strays.length)]]) : pieces[next(pieces.length)]);
      const bytes = Buffer.concat(parts);
      const { found } = await rowsWithInvalidUtf8(file(`rand-${t}.csv`, bytes), ',', 10);
      expect(found.length > 0, bytes.toString('hex')).toBe(!isUtf8(bytes));
    }
  });

  it('finds a well-formed UTF-8 character of two or more bytes, and none in Windows-1252 text', () => {
    expect(hasMultiByteUtf8(Buffer.from('abc'))).toBe(false);
    expect(hasMultiByteUtf8(Buffer.from('ab€'))).toBe(true);
    expect(hasMultiByteUtf8(Buffer.from([0x61, 0xe9, 0x62, 0xc3, 0xa9]))).toBe(true); // a stray byte, then é
    expect(hasMultiByteUtf8(cp1252)).toBe(false);
    expect(hasMultiByteUtf8(Buffer.from([0xe2, 0x82]))).toBe(false); // cut
    expect(hasMultiByteUtf8(Buffer.from([0xc0, 0x80, 0xed, 0xa0, 0x80]))).toBe(false); // overlong, surrogate
  });

  it('files written back get a byte-order mark when the input came from a spreadsheet (a mark, or not UTF-8)', () => {
    expect(writeBackWithBom({ encoding: 'utf-8' })).toBe(false);
    expect(writeBackWithBom({ encoding: 'utf-8', bom: true })).toBe(true);
    expect(writeBackWithBom({ encoding: 'windows-1252', guessed: true })).toBe(true);
    expect(writeBackWithBom('utf-8')).toBe(false);
    expect(writeBackWithBom('iso-8859-2')).toBe(true);
    expect(writeBackWithBom(undefined)).toBe(false);
  });

  it('UTF-8 helpers: an incomplete last character, and the first invalid byte', () => {
    const euro = Buffer.from('a€');
    expect(incompleteUtf8Tail(euro)).toBe(0);
    expect(incompleteUtf8Tail(euro.subarray(0, 3))).toBe(2);
    expect(incompleteUtf8Tail(euro.subarray(0, 2))).toBe(1);
    expect(incompleteUtf8Tail(Buffer.from('abc'))).toBe(0);
    expect(firstInvalidUtf8(Buffer.from([0x61, 0x62, 0xe9, 0x63]))).toBe(2);
    expect(firstInvalidUtf8(Buffer.from('all fine €'))).toBe(Buffer.byteLength('all fine €'));
  });
});
