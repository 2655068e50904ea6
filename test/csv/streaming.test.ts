// The CSV is streamed: records come out while the file is still being read, and a 10,000-row file validates
// without holding the file's text in memory.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { loadCsv } from '../../src/csv/load.js';
import { contractLayout } from '../../src/csv/presets/index.js';
import { readCsv, readCsvBatches } from '../../src/csv/reader.js';
import { apiValidator } from '../../src/shipment-input/validate.js';

const HEADER = 'shipment_reference,to_name,to_line_1,to_city,to_postcode,to_country,weight,length,width,depth,item_sku,item_quantity,item_value\n';
const row = (i: number) => `BULK-${String(i).padStart(6, '0')},Customer ${i},${i} Long Road,Derby,DE1 ${i % 9}AA,GB,${500 + (i % 1000)},30,20,10,SKU-${i % 50},1,9.99\n`;

describe('streaming', () => {
  it('yields the first records before the source has been read to the end', async () => {
    let pulled = 0;
    // Far more than the streams' buffers hold (Node 22+ buffers 64 KiB per byte stream, Node 20 16 KiB): ~2.6 MB.
    const chunks = 20_000;
    const source = new Readable({
      read() {
        pulled++;
        this.push(pulled === 1 ? HEADER : pulled <= chunks ? row(pulled) : null);
      },
    });
    const seen: number[] = [];
    for await (const rec of readCsv({ stream: source, name: 'gen' })) {
      seen.push(rec.row);
      if (seen.length === 10) break;
    }
    expect(seen).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    // Back-pressure: only a small part of the 20,000 chunks was produced to get 10 records out.
    expect(pulled).toBeLessThan(chunks / 4);
    source.destroy();
  });

  it('validates a generated 10,000-row file with bounded memory', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'ship-stream-')), 'big.csv');
    let text = HEADER;
    for (let i = 1; i <= 10_000; i++) text += row(i);
    writeFileSync(path, text);
    text = '';
    const before = process.memoryUsage().heapUsed;
    let peak = before;
    const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().heapUsed)), 5);
    const started = Date.now();
    const r = await loadCsv({ source: { path }, layout: contractLayout(), validate: await apiValidator() });
    clearInterval(timer);
    peak = Math.max(peak, process.memoryUsage().heapUsed);
    expect(r.shipments).toHaveLength(10_000);
    expect(r.shipments[9_999].body).toMatchObject({ shipment_reference: 'BULK-010000', parcels: [{ weight: 500, items: [{ sku: 'SKU-0', item_quantity: 1, item_value: 9.99 }] }] });
    expect(Date.now() - started).toBeLessThan(15_000);
    // The validated bodies themselves are kept (they are sent next); everything else is garbage. Generous bound.
    expect((peak - before) / 1024 / 1024).toBeLessThan(150);
  });
});

describe('two passes, one read', () => {
  it('gives the same shipments whether the first pass keeps the records or the file is read again', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'ship-passes-')), 'spread.csv');
    // Shipments whose rows are spread over the file (a second parcel much later), across many read batches.
    let text = HEADER;
    for (let i = 1; i <= 3000; i++) text += row(i);
    for (let i = 1; i <= 3000; i += 7) text += row(i).replace(',SKU-', ',LATE-');
    writeFileSync(path, text);
    const load = async (keepRecordsLimit?: number) =>
      loadCsv({ source: { path }, layout: contractLayout(), validate: await apiValidator(), keep: 'json', keepRecordsLimit });
    const [kept, reread] = await Promise.all([load(), load(0)]);
    expect(kept.counts).toEqual({ shipments: 3000, parcels: 3000 + 429, items: 3000 + 429 });
    expect(reread.counts).toEqual(kept.counts);
    expect(reread.compact).toEqual(kept.compact);
    expect(kept.compact[0].rows).toEqual([2, 3002]);
  });
});

describe('progress', () => {
  it('says how many rows were read, then how many of them were checked', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'ship-progress-')), 'many.csv');
    let text = HEADER;
    for (let i = 1; i <= 4000; i++) text += row(i);
    writeFileSync(path, text);
    const seen: Array<{ phase: string; rows: number; total?: number }> = [];
    const loaded = await loadCsv({ source: { path }, layout: contractLayout(), validate: await apiValidator(), keep: 'json', onProgress: (p) => seen.push({ ...p }) });
    expect(loaded.counts.shipments).toBe(4000);
    const reading = seen.filter((p) => p.phase === 'reading');
    const checking = seen.filter((p) => p.phase === 'checking');
    // Reading first, then checking; counts only grow, and each phase ends at the file's 4,000 data rows.
    expect(seen.findIndex((p) => p.phase === 'checking')).toBe(reading.length);
    expect(reading.length).toBeGreaterThan(1);
    expect(reading.at(-1)!.rows).toBe(4000);
    expect(checking.at(-1)).toEqual({ phase: 'checking', rows: 4000, total: 4000 });
    for (const list of [reading, checking]) for (let i = 1; i < list.length; i++) expect(list[i].rows).toBeGreaterThan(list[i - 1].rows);
  });
});

describe('a parse error while the reader is busy', () => {
  it('is reported as the file\'s problem (row named), not an unhandled error, even when found between batches', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'ship-badcsv-')), 'bad.csv');
    let text = HEADER;
    for (let i = 1; i <= 3000; i++) text += row(i);
    text += 'BAD-1,"unterminated,x\n'; // a quote that never closes: csv-parse fails at the end of the file
    writeFileSync(path, text);
    const seen: number[] = [];
    let caught: unknown;
    try {
      for await (const batch of readCsvBatches({ path })) {
        seen.push(batch.length);
        // The caller takes its time with each batch while the parser reads on.
        await new Promise((r) => setTimeout(r, 5));
      }
    } catch (e) {
      caught = e;
    }
    expect(seen.length).toBeGreaterThan(1);
    expect(caught).toMatchObject({ name: 'InputError' });
    expect(String((caught as Error).message)).toMatch(/not a readable CSV file/);
  });
});

describe('stream() order', () => {
  it('gives shipments in the order they first appear, a shipment whose rows are not next to each other included', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'ship-stream-order-')), 'order.csv');
    // A's rows span B and C's; D starts inside A too and ends after it; E stands alone.
    writeFileSync(
      path,
      'shipment_reference,to_name,to_line_1,to_city,to_postcode,to_country,weight\n' +
        ['A,Ann,1 St,London,E1 1AA,GB,100', 'B,Bob,2 St,Leeds,LS1 1AA,GB,100', 'D,Di,4 St,Bath,BA1 1AA,GB,100', 'C,Cy,3 St,York,YO1 1AA,GB,100', 'A,,,,,,200', 'D,,,,,,300', 'E,Ed,5 St,Ely,CB7 4AA,GB,100'].join('\n') +
        '\n',
    );
    const r = await loadCsv({ source: { path }, layout: contractLayout(), validate: await apiValidator(), keep: false });
    const streamed: Array<[string, number]> = [];
    for await (const s of r.stream()) streamed.push([s.reference, s.row]);
    expect(streamed).toEqual([
      ['A', 2],
      ['B', 3],
      ['D', 4],
      ['C', 5],
      ['E', 8],
    ]);
  });
});
