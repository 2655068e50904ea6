// The rows (and columns) holding bytes invalid in a file's encoding, as rowsWithInvalidUtf8 and rowsWithInvalidBytes
// find them: both must count rows, quotes and columns as readCsv does, whatever the encoding.
import { describe, expect, it } from 'vitest';
import { csvFiles } from '../helpers/csv-files.js';
import { rowsWithInvalidBytes, rowsWithInvalidUtf8 } from '../../src/csv/reader.js';

const file = csvFiles('ship-invalid-rows-');

// `¤` stands for a byte invalid in the encoding: FF in UTF-8, D2 in Windows-1253 (Greek has no character there).
const BAD = { 'utf-8': 0xff, 'windows-1253': 0xd2 } as const;
function withBad(text: string, encoding: keyof typeof BAD): Buffer {
  return Buffer.concat(text.split('¤').flatMap((part, i) => (i ? [Buffer.from([BAD[encoding]]), Buffer.from(part)] : [Buffer.from(part)])));
}
function scan(encoding: keyof typeof BAD, bytes: Buffer, delimiter: string | undefined, limit: number) {
  const p = file(bytes);
  return encoding === 'utf-8' ? rowsWithInvalidUtf8(p, delimiter, limit) : rowsWithInvalidBytes(p, encoding, delimiter, limit);
}

type Found = Array<{ row: number; column?: string }>;
const cases: Array<{ what: string; text: string; delimiter?: string; limit?: number; found: Found; more?: number }> = [
  {
    what: 'a quoted cell spanning lines (CRLF) with a bad byte on its second line, `;` detected',
    text: 'a;b;c\r\n1;"x\r\ny¤";z\r\n2;ok;¤\r\n3;ok;ok\r\n',
    found: [{ row: 2, column: 'b' }, { row: 3, column: 'c' }],
  },
  {
    what: 'the same, `;` given',
    text: 'a;b;c\r\n1;"x\r\ny¤";z\r\n2;ok;¤\r\n3;ok;ok\r\n',
    delimiter: ';',
    found: [{ row: 2, column: 'b' }, { row: 3, column: 'c' }],
  },
  {
    what: 'two bad bytes in one record spanning lines: one row',
    text: 'a,b\n"¤\n¤",1\n2,¤\n',
    found: [{ row: 2, column: 'a' }, { row: 3, column: 'b' }],
  },
  {
    what: 'columns beyond the header, or with an empty name: no column',
    text: 'a,,c\n1,¤,3\n1,2,3,¤\nx,y,¤\n',
    found: [{ row: 2 }, { row: 3 }, { row: 4, column: 'c' }],
  },
  {
    what: 'a delimiter given wins over the one the header suggests',
    text: 'x,y;z\n1;2¤\n',
    delimiter: ';',
    found: [{ row: 2, column: 'z' }],
  },
  {
    what: 'no delimiter given: comma on a tie',
    text: 'x,y;z\n1;2¤\n',
    found: [{ row: 2, column: 'x' }],
  },
  {
    what: 'a `sep=;` line is not a row and sets the delimiter',
    text: 'sep=;\r\na;b\r\n1;¤\r\n',
    found: [{ row: 2, column: 'b' }],
  },
  {
    what: 'a delimiter given wins over a `sep=` line',
    text: 'sep=;\r\na;b\r\n1;¤\r\n',
    delimiter: ',',
    found: [{ row: 2, column: 'a;b' }],
  },
  {
    what: 'delimiters and doubled quotes inside quotes',
    text: 'a,b,c\n"1,2",¤,3\n"x""y,¤",2,3\n',
    found: [{ row: 2, column: 'b' }, { row: 3, column: 'a' }],
  },
  {
    what: 'a bad byte in the header: its row, and no columns named for the rows after it',
    text: 'a¤,b\n1,¤\n',
    found: [{ row: 1 }, { row: 2 }],
  },
  {
    what: 'a bad byte at the very end, no final line break',
    text: 'a,b\n1,¤',
    found: [{ row: 2, column: 'b' }],
  },
  {
    what: 'the first `limit` rows named, the rest counted once a row',
    text: 'a,b\n1,¤\n2,¤\n¤,¤\n4,¤\n¤5,¤\n6,¤\n',
    limit: 3,
    found: [{ row: 2, column: 'b' }, { row: 3, column: 'b' }, { row: 4, column: 'a' }],
    more: 3,
  },
  {
    what: 'a limit of 0: every row counted',
    text: 'a,b\n1,¤\n2,¤\n¤,¤\n',
    limit: 0,
    found: [],
    more: 3,
  },
  {
    what: 'no bad byte',
    text: 'a,b\n1,"2\n3"\n',
    found: [],
  },
];

describe.each(['utf-8', 'windows-1253'] as const)('rows with bytes invalid in %s', (encoding) => {
  it.each(cases)('$what', async ({ text, delimiter, limit, found, more }) => {
    expect(await scan(encoding, withBad(text, encoding), delimiter, limit ?? 10)).toEqual({ found, more: more ?? 0 });
  });

  it('keeps the quoting and the row count across the 1 MB read steps', async () => {
    const quoted = `${'y'.repeat(99)}\n`.repeat(11_000);
    const bytes = withBad(`a,b\n1,"${quoted}"\n2,¤\n`, encoding);
    expect(bytes.length).toBeGreaterThan(1024 * 1024);
    expect(await scan(encoding, bytes, undefined, 10)).toEqual({ found: [{ row: 3, column: 'b' }], more: 0 });
  });
});

describe('rowsWithInvalidUtf8', () => {
  it('skips a byte-order mark, and reads multi-byte characters in the header and cells', async () => {
    const bytes = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('a,é\n€,'), Buffer.from([0xff]), Buffer.from('\n')]);
    expect(await rowsWithInvalidUtf8(file(bytes), undefined, 10)).toEqual({ found: [{ row: 2, column: 'é' }], more: 0 });
  });

  it('counts a character cut short in the row and cell it began in, and reads the byte that cut it', async () => {
    const cut = (s: string) => Buffer.from(s.replace(/¤/g, '\u00e2\u0082'), 'latin1');
    // Cut by a delimiter, a line break, a quote opening a cell across lines, and the end of the file.
    expect(await rowsWithInvalidUtf8(file(cut('a,b\n¤,x\n1,¤\n¤"x\ny",1\n2,¤')), ',', 10)).toEqual({
      found: [{ row: 2, column: 'a' }, { row: 3, column: 'b' }, { row: 4, column: 'a' }, { row: 5, column: 'b' }],
      more: 0,
    });
  });

  it('reads a well-formed character cut by the 1 MB read step as one', async () => {
    const head = `a,b\n${'x,y\n'.repeat(1000)}`;
    const filler = 'z'.repeat(1024 * 1024 - 1 - head.length - 2);
    const bytes = Buffer.concat([Buffer.from(`${head}1,${filler}€\n2,`), Buffer.from([0xff]), Buffer.from('\n')]);
    expect(Buffer.from(`${head}1,${filler}`).length).toBe(1024 * 1024 - 1);
    expect(await rowsWithInvalidUtf8(file(bytes), ',', 10)).toEqual({ found: [{ row: 1003, column: 'b' }], more: 0 });
  });
});

describe('rowsWithInvalidBytes', () => {
  it('reads UTF-16 with a byte-order mark, tab-separated: a lone surrogate is bad, in quotes across lines too', async () => {
    const text = '\ufeffa\tb\r\n1\t\ud800x\r\n"q\r\n\udc00"\t2\r\n3\t4\r\n';
    const le = Buffer.from(text, 'utf16le');
    const expected = { found: [{ row: 2, column: 'b' }, { row: 3, column: 'a' }], more: 0 };
    expect(await rowsWithInvalidBytes(file(le), 'utf-16le', undefined, 10)).toEqual(expected);
    expect(await rowsWithInvalidBytes(file(Buffer.from(le).swap16()), 'utf-16be', undefined, 10)).toEqual(expected);
  });

  it('counts a U+FFFD written in the file (UTF-16 can hold one), and the limit', async () => {
    const le = Buffer.from('a,b\n1,\ufffd\n\ufffd,2\n3,\ud800\n', 'utf16le');
    expect(await rowsWithInvalidBytes(file(le), 'utf-16le', ',', 2)).toEqual({ found: [{ row: 2, column: 'b' }, { row: 3, column: 'a' }], more: 1 });
  });

  it('reads Shift_JIS: a lead byte cut by a quote is bad, and the quote still opens its cell', async () => {
    const bytes = Buffer.concat([Buffer.from('a,b\n1,'), Buffer.from([0x81]), Buffer.from('"x\ny",2\n3,'), Buffer.from([0x80]), Buffer.from('\n')]);
    expect(await rowsWithInvalidBytes(file(bytes), 'shift_jis', undefined, 10)).toEqual({ found: [{ row: 2, column: 'b' }, { row: 3, column: 'b' }], more: 0 });
  });

  it('takes a delimiter that is not ASCII, as the encoding has it', async () => {
    // § is A7 in Windows-1253; D2 is no character.
    const bytes = Buffer.concat([Buffer.from('a'), Buffer.from([0xa7]), Buffer.from('b\n1'), Buffer.from([0xa7, 0xd2]), Buffer.from('\n')]);
    expect(await rowsWithInvalidBytes(file(bytes), 'windows-1253', '§', 10)).toEqual({ found: [{ row: 2, column: 'b' }], more: 0 });
  });
});
