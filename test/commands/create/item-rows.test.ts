// `ship create --csv` when the API refuses one item of a many-item parcel at send time: the failure names that
// item's own row and the user's own column (not the parcel's first row), in the text line, FILE.failed.csv and
// the --json line.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runShip } from '../../helpers/run.js';
import { startTestSandbox, type TestSandbox } from '../../helpers/sandbox.js';
import { startRecordingProxy, type RecordingProxy } from './recording-proxy.js';

const EXAMPLES = resolve(import.meta.dirname, '../../../examples');
const MESSAGE = 'The parcels.1.items.2.item_value is not accepted.';
let sb: TestSandbox;
let proxy: RecordingProxy;
let env: Record<string, string>;
let work: string;

beforeAll(async () => {
  sb = await startTestSandbox();
  // Shipments whose reference ends in "-BAD" get the API's 400 for the third item of their second parcel.
  proxy = await startRecordingProxy(sb.baseUrl, {
    respond: (rec) =>
      rec.method === 'POST' && rec.path.split('?')[0].endsWith('/shipments') && String(rec.body?.shipment_reference).endsWith('-BAD')
        ? { status: 400, body: { message: 'The given data failed to pass validation.', data: { 'parcels.1.items.2.item_value': [MESSAGE] } } }
        : undefined,
  });
  env = { SHIP_BASE_URL: proxy.baseUrl, SHIP_API_KEY: sb.apiKey, SHIP_TOKEN: await sb.login(), SHIP_CONFIG_DIR: mkdtempSync(join(tmpdir(), 'ship-cfg-')) };
  work = mkdtempSync(join(tmpdir(), 'ship-item-rows-'));
});
afterAll(async () => {
  await proxy?.close();
  await sb?.close();
});

/** A file whose first shipment (rows 2-5) has parcel P1 with one item and parcel P2 with three (rows 3, 4, 5). */
function writeCsv(name: string, header: string[], prefix: string): string {
  const path = join(work, name);
  const rows = [
    header.join(','),
    `${prefix}-BAD,Ann,1 High St,London,E1 1AA,GB,P1,500,SKU-A,Mug,5,1`,
    `${prefix}-BAD,,,,,,P2,700,SKU-B,Tee,6,1`,
    `${prefix}-BAD,,,,,,P2,,SKU-C,Cap,7,1`,
    `${prefix}-BAD,,,,,,P2,,SKU-D,Hat,8,1`,
    `${prefix}-OK,Bob,2 High St,Leeds,LS1 1AA,GB,C1,300,SKU-E,Pen,2,1`,
  ];
  writeFileSync(path, rows.join('\n') + '\n');
  return path;
}

const PLAIN = ['shipment_reference', 'to_name', 'to_line_1', 'to_city', 'to_postcode', 'to_country', 'parcel_reference', 'weight', 'item_sku', 'item_short_description', 'item_value', 'item_quantity'];
// examples/mapping.json's headers for the same columns.
const MAPPED = ['Order Number', 'Ship To Name', 'Ship To Address 1', 'Ship To City', 'Ship To Zip', 'Ship To Country', 'Carton ID', 'Carton Weight (g)', 'Product Code', 'Product Description', 'Unit Price', 'Qty Shipped'];

describe('ship create --csv: an API error on an item', () => {
  it('names the item\'s own row and column in the text line and FILE.failed.csv', async () => {
    const csv = writeCsv('plain.csv', PLAIN, 'ITEM');
    proxy.requests.length = 0;
    const r = await runShip(['create', '--csv', csv, '-o', join(work, 'l1')], { env });
    expect(r.code).toBe(3);
    // The item the API named really is the one from row 5 (SKU-D): the body keeps the file's item order.
    const sent = proxy.creates().find((b) => b.shipment_reference === 'ITEM-BAD');
    expect(sent.parcels[1].items[2]).toMatchObject({ sku: 'SKU-D', item_value: 8 });
    const failedLine = r.stdout.split('\n').find((l) => l.startsWith('failed\tITEM-BAD'));
    expect(failedLine).toBe(`failed\tITEM-BAD\t\trow 5, column item_value: ${MESSAGE}`);
    const failed = readFileSync(join(work, 'plain.failed.csv'), 'utf8').trim().split('\n');
    expect(failed[0]).toBe(`${PLAIN.join(',')},error`);
    expect(failed.slice(1).map((l) => l.split(',')[8])).toEqual(['SKU-A', 'SKU-B', 'SKU-C', 'SKU-D']);
    for (const l of failed.slice(1)) expect(l.endsWith(`,"row 5, column item_value: ${MESSAGE}"`)).toBe(true);
  });

  it('names the item\'s own row in the --json line, and the user\'s own header under --map', async () => {
    const plain = await runShip(['create', '--csv', writeCsv('plain-json.csv', PLAIN, 'ITEMJ'), '-o', join(work, 'l2'), '--json'], { env });
    expect(plain.code).toBe(3);
    const lines = plain.stdout.trim().split('\n').map((l) => JSON.parse(l));
    expect(lines.map((l) => [l.shipment_reference, l.status])).toEqual([['ITEMJ-BAD', 'failed'], ['ITEMJ-OK', 'created']]);
    expect(lines[0]).toMatchObject({ row: 2, error: `row 5, column item_value: ${MESSAGE}`, fields: { 'parcels.1.items.2.item_value': [MESSAGE] } });

    const csv = writeCsv('mapped.csv', MAPPED, 'ITEMM');
    // The example's entries for the columns this file has (an entry naming no header of the file is refused).
    const example = JSON.parse(readFileSync(join(EXAMPLES, 'mapping.json'), 'utf8'));
    const map = join(work, 'mapping.json');
    writeFileSync(map, JSON.stringify({ ...example, columns: Object.fromEntries(Object.entries(example.columns).filter(([from]) => MAPPED.includes(from))) }));
    const mapped = await runShip(['create', '--csv', csv, '--map', map, '-o', join(work, 'l3'), '--json'], { env });
    expect(mapped.code).toBe(3);
    const m = mapped.stdout.trim().split('\n').map((l) => JSON.parse(l));
    expect(m[0]).toMatchObject({ shipment_reference: 'ITEMM-BAD', status: 'failed', error: `row 5, column Unit Price: ${MESSAGE}` });
    const failed = readFileSync(join(work, 'mapped.failed.csv'), 'utf8').trim().split('\n');
    expect(failed).toHaveLength(5);
    for (const l of failed.slice(1)) expect(l.endsWith(`,"row 5, column Unit Price: ${MESSAGE}"`)).toBe(true);
  });
});
