// PlainCsvLines reads the quote-free lines of a file without csv-parse: whatever the file and wherever its
// chunks end, the records (and errors, and problems of malformed rows) must be exactly csv-parse's.
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { csvFiles } from '../helpers/csv-files.js';
import { readCsvBatches, type CsvRecord, type ReadCsvOptions } from '../../src/csv/reader.js';
import { PlainCsvLines } from '../../src/csv/plain-lines.js';

const file = csvFiles('ship-plain-lines-');

/** Every record of `text` cut into chunks at `cuts`, or the error's message and problems. */
async function readAll(text: Buffer, cuts: number[], opts: ReadCsvOptions): Promise<unknown> {
  const chunks: Buffer[] = [];
  let at = 0;
  for (const cut of [...cuts, text.length]) {
    if (cut > at) chunks.push(text.subarray(at, cut));
    at = Math.max(at, cut);
  }
  const out: CsvRecord[] = [];
  try {
    for await (const batch of readCsvBatches({ stream: Readable.from(chunks, { objectMode: false }), name: 'orders.csv' }, opts)) out.push(...batch);
    return out;
  } catch (e) {
    return { error: (e as Error).message, problems: (e as { problems?: unknown }).problems };
  }
}

/** A small pseudo-random generator, so that a failure can be replayed from its seed. */
function random(seed: number) {
  let s = seed >>> 0 || 1;
  return (n: number) => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s % n;
  };
}

describe('PlainCsvLines', () => {
  it('gives csv-parse\'s records for files of every shape, however they are cut into chunks', async () => {
    // Mostly plain text, with now and then what hands the rest to csv-parse: a quote, a CR or LF out of place
    // (a lone CR before the first LF is the file's line ending for csv-parse).
    const plain = ['a', 'b', 'é', ' ', ',', ',', ';', '1', '中', '\t'];
    const odd = ['"', '\r', '\n', '\r\n', '""', 'x"y'];
    for (let seed = 1; seed <= 1500; seed++) {
      const next = random(seed);
      const lines: string[] = [];
      const ending = next(2) ? '\n' : '\r\n';
      const count = 1 + next(10);
      const oddness = 2 + next(30);
      for (let i = 0; i < count; i++) {
        let line = '';
        const length = next(8);
        for (let j = 0; j < length; j++) line += next(oddness) === 0 ? odd[next(odd.length)] : plain[next(plain.length)];
        lines.push(line);
      }
      const bom = ['', '', '', '\uFEFF', '\uFEFF\uFEFF'][next(5)];
      const text = Buffer.from(bom + lines.join(ending) + (next(3) ? ending : ''));
      const cuts = Array.from({ length: next(4) }, () => next(text.length + 1)).sort((x, y) => x - y);
      for (const malformed of ['report', 'throw'] as const) {
        const expected = await readAll(text, [], { malformed, plainLines: false });
        const got = await readAll(text, cuts, { malformed });
        expect(got, `seed ${seed}, ${malformed}: ${JSON.stringify(text.toString())} cut at ${cuts}`).toEqual(expected);
      }
    }
  });

  it('reads a quote-free file without csv-parse, and hands a file over at its first quote', () => {
    const lines = new PlainCsvLines(',');
    expect(lines.push(Buffer.from('\uFEFFa, b\nc,d\ne'))).toEqual([
      ['a', ' b'],
      ['c', 'd'],
    ]);
    expect(lines.push(Buffer.from(',f\n"g",h\n'))).toBeUndefined();
    expect(lines.rest().toString()).toBe('e,f\n"g",h\n');
    expect(lines.lineEnding()).toBe('\n');
  });

  it('reads a sep= line, a header and rows of a real file the same both ways', async () => {
    const path = file('sep=;\r\nshipment_reference;to_name\r\nA-1;Zoë Brontë\r\nA-2;"Smith; Jones"\r\nA-3;Lee\r\n');
    const read = async (plainLines: boolean) => {
      const out: CsvRecord[] = [];
      for await (const batch of readCsvBatches({ path }, { plainLines })) out.push(...batch);
      return out;
    };
    expect(await read(true)).toEqual(await read(false));
    expect((await read(true)).map((r) => r.values[1])).toEqual(['to_name', 'Zoë Brontë', 'Smith; Jones', 'Lee']);
  });

  it('hands csv-parse the file as it is when it reads from the start: two byte-order marks and a quote (csv-parse drops one mark only)', async () => {
    const text = Buffer.from('\uFEFF\uFEFF"shipment_reference",to_name\nA-1,Lee\n');
    for (const cuts of [[], [1], [3], [4], [7]]) expect(await readAll(text, cuts, { malformed: 'report' })).toEqual(await readAll(text, [], { malformed: 'report', plainLines: false }));
  });

  it('keeps the lines before a very long one when a stream gives it all in one big chunk', async () => {
    const big = Buffer.from(`a,b\n1,2\n${'x'.repeat(300_000)}`);
    expect(await readAll(big, [], {})).toEqual(await readAll(big, [], { plainLines: false }));
    expect(((await readAll(big, [], {})) as CsvRecord[]).map((r) => r.row)).toEqual([1, 2, 3]);
    // A line over csv-parse's 1 MiB in one chunk is refused as it refuses it.
    const huge = Buffer.from(`a,b\n1,${'x'.repeat(1024 * 1024 + 10)}\n2,3\n`);
    expect(await readAll(huge, [], {})).toEqual(await readAll(huge, [], { plainLines: false }));
    expect(await readAll(huge, [], {})).toMatchObject({ problems: [{ row: 2 }] });
  });

  it('leaves a line longer than csv-parse allows to it, which refuses it by its row', async () => {
    const long = Buffer.from(`a,b\n1,${'x'.repeat(1024 * 1024 + 10)}\n2,3\n`);
    const cuts = Array.from({ length: 20 }, (_, i) => (i + 1) * 65536);
    expect(await readAll(long, cuts, {})).toEqual(await readAll(long, [], { plainLines: false }));
    expect(await readAll(long, cuts, {})).toMatchObject({ problems: [{ row: 2 }] });
  });
});
