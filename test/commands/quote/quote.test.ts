// `ship quote`: same inputs as create, quotes sorted by total price, the recommended one marked.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { quoteRows } from '../../../src/commands/quote/run.js';
import { runShip } from '../../helpers/run.js';
import { proxiedSandboxForFile } from '../create/recording-proxy.js';

const EXAMPLES = resolve(import.meta.dirname, '../../../examples');
const { proxy, ...proxied } = await proxiedSandboxForFile();
const env: Record<string, string> = { ...proxied.env, SHIP_CONFIG_DIR: mkdtempSync(join(tmpdir(), 'ship-cfg-')) };
const ship = (args: string[]) => runShip(args, { env });

describe('quoteRows', () => {
  const q = (key: string, total: string, account = 'a') => ({ service_key: key, carrier_account: account, total_price: total });
  it('sorts by total price numerically and marks the recommended service', () => {
    const rows = quoteRows({ recommended_service: q('B', '10.50'), services: [q('A', '9.99'), q('B', '10.50'), q('C', '100.00'), q('D', '2.00')] } as never);
    expect(rows.map((r) => [r.service_key, r.recommended])).toEqual([['D', false], ['A', false], ['B', true], ['C', false]]);
  });
  it('shows a recommended service missing from the list', () => {
    const rows = quoteRows({ recommended_service: q('Z', '5.00'), services: [q('A', '9.99')] } as never);
    expect(rows.map((r) => [r.service_key, r.recommended])).toEqual([['Z', true], ['A', false]]);
  });
});

describe('ship quote', () => {
  const FLAGS = ['--to-name', 'Ada', '--to-line1', '1 High St', '--to-city', 'London', '--to-postcode', 'SW1A 1AA', '--to-country', 'GB', '--weight', '1200', '--length', '30', '--width', '20', '--depth', '10'];

  it('prints every service cheapest first with the recommended one marked (a placeholder reference is sent)', async () => {
    const r = await ship(['quote', ...FLAGS]);
    expect(r.code).toBe(0);
    const rows = r.stdout.trim().split('\n').map((l) => l.split('\t'));
    expect(rows.length).toBeGreaterThan(1);
    const totals = rows.map((c) => Number(c[8]));
    expect(totals).toEqual([...totals].sort((a, b) => a - b));
    expect(rows.filter((c) => c[0] === 'recommended')).toHaveLength(1);
    const sent = proxy.requests.find((x) => x.path.endsWith('/shipments/get-services'))!.body;
    expect(sent.shipment_reference).toMatch(/^QUOTE-\d{14}$/);
    expect(sent.parcels).toEqual([{ weight: 1200, length: 30, width: 20, depth: 10 }]);
    expect(proxy.creates()).toEqual([]);
  });

  it('a service asked for that cannot take the shipment is an error (exit 1; the API data still printed with --json); one that can is the one row', async () => {
    const heavy = FLAGS.map((f, i) => (FLAGS[i - 1] === '--weight' ? '25000' : f));
    const r = await ship(['quote', ...heavy, '--service', 'RM_TRACKED_48', '--json']);
    expect(r.code).toBe(1);
    const recommended = JSON.parse(r.stdout).recommended_service.service_key;
    expect(recommended).not.toBe('RM_TRACKED_48');
    expect(JSON.parse(r.stderr).error.message).toBe(`RM_TRACKED_48 cannot take this shipment: ${recommended} is recommended instead`);
    const fits = await ship(['quote', ...FLAGS, '--service', 'RM_TRACKED_48']);
    expect(fits.code).toBe(0);
    expect(fits.stderr).not.toContain('cannot take');
    expect(fits.stdout.trim().split('\n')).toHaveLength(1);
    expect(fits.stdout).toMatch(/\tRM_TRACKED_48\t/);
    expect((await ship(['quote', ...FLAGS, '--service', 'RM_TRACKED_48', '--quiet'])).stdout).toBe('RM_TRACKED_48\n');
    // At a terminal the legend says what the star is: the service asked for, not the routing rules' pick.
    const tty = await runShip(['quote', ...FLAGS, '--service', 'RM_TRACKED_48'], { env, tty: true });
    expect(tty.stderr).toContain('★ the service asked for (RM_TRACKED_48), which can take this shipment');
    expect(tty.stderr).not.toContain('routing rules');
    expect((await runShip(['quote', ...FLAGS], { env, tty: true })).stderr).toContain('★ recommended by your routing rules');
  });

  it('--json prints the API data', async () => {
    const r = await ship(['quote', ...FLAGS, '--json']);
    expect(r.code).toBe(0);
    const data = JSON.parse(r.stdout);
    expect(data.recommended_service.service_key).toBeTruthy();
    expect(Array.isArray(data.services)).toBe(true);
    expect(data.services.some((s: { service_key: string }) => s.service_key === data.recommended_service.service_key)).toBe(true);
  });

  it('quotes one shipment of a CSV (the same body create would send, without label options)', async () => {
    const none = await ship(['quote', '--csv', join(EXAMPLES, 'orders.csv')]);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('holds 10 shipments');
    expect(none.stderr).toContain('--shipment REF');
    const r = await ship(['quote', '--csv', join(EXAMPLES, 'orders.csv'), '--shipment', 'ORD-1002', '--quiet']);
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe('DPD_NEXT_DAY');
    const sent = proxy.requests.find((x) => x.path.endsWith('/shipments/get-services'))!.body;
    expect(sent.shipment_reference).toBe('ORD-1002');
    expect(sent.parcels.map((p: { reference: string }) => p.reference)).toEqual(['ORD-1002-A', 'ORD-1002-B']);
    expect(sent).not.toHaveProperty('format');
  });

  it('--service with --csv prices that service, over the row\'s key, as with --file: exit 1 when it cannot take the shipment', async () => {
    proxy.requests.length = 0;
    // ORD-1002's row names DPD_NEXT_DAY; its 2,300 g parcel is too heavy for RM_TRACKED_24.
    const r = await ship(['quote', '--csv', join(EXAMPLES, 'orders.csv'), '--shipment', 'ORD-1002', '--service', 'RM_TRACKED_24', '--quiet']);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout.trim()).not.toBe('DPD_NEXT_DAY');
    const sent = proxy.requests.find((x) => x.path.endsWith('/shipments/get-services'))!.body;
    expect(sent.delivery_service_key).toBe('RM_TRACKED_24');
    const dpd = await ship(['quote', '--csv', join(EXAMPLES, 'orders.csv'), '--shipment', 'ORD-1002', '--service', 'DPD_NEXT_DAY', '--quiet']);
    expect(dpd.code, dpd.stderr).toBe(0);
    expect(dpd.stdout.trim()).toBe('DPD_NEXT_DAY');
  });

  it('quotes the API\'s own request body from --file', async () => {
    const r = await ship(['quote', '--file', join(EXAMPLES, 'shipment.json'), '--json']);
    expect(r.code).toBe(0);
    const sent = proxy.requests.find((x) => x.path.endsWith('/shipments/get-services'))!.body;
    expect(sent.shipment_reference).toBe('EXAMPLE-2001');
    expect(sent.parcels).toHaveLength(2);
    expect(JSON.parse(r.stdout).services.length).toBeGreaterThan(0);
  });

  it('validates the input like create, naming flags', async () => {
    const r = await ship(['quote', '--to-name', 'Ada', '--weight', 'heavy']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--weight: must be a whole number of grammes, not "heavy"');
    expect(r.stderr).toContain('--to-postcode: is required');
    expect(proxy.requests).toEqual([]);
  });

  it('quotes a one-shipment CSV without --shipment; with --shipment, other shipments\' problems do not block it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ship-quote-'));
    const csv = join(dir, 'one.csv');
    writeFileSync(csv, 'shipment_reference,to_name,to_line_1,to_city,to_postcode,to_country,weight\nQ-1,Ann,1 St,Leeds,LS1 1AA,Great Britain,900\n');
    const r = await ship(['quote', '--csv', csv, '--json']);
    expect(r.code).toBe(0);
    expect(proxy.requests.find((x) => x.path.endsWith('/get-services'))!.body.to_address.country).toBe('GB');
    const two = join(dir, 'two.csv');
    writeFileSync(two, 'shipment_reference,to_name,to_line_1,to_city,to_postcode,to_country,weight\nQ-1,Ann,1 St,Leeds,LS1 1AA,GB,900\nQ-2,Bob,2 St^,York,,XX,heavy\n');
    expect((await ship(['quote', '--csv', two, '--shipment', 'Q-1', '--json'])).code).toBe(0);
    const bad = await ship(['quote', '--csv', two, '--shipment', 'Q-2']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('row 3, column weight: must be a whole number of grammes, not "heavy"');
  });

  it('a blank-filling flag the API refuses is said of the shipment picked with --shipment, once (not "no shipment Q-2")', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ship-quote-'));
    const two = join(dir, 'two.csv');
    writeFileSync(two, 'shipment_reference,to_name,to_line_1,to_city,to_postcode,to_country,weight\nQ-1,Ann,1 St,Leeds,LS1 1AA,GB,900\nQ-2,Bob,2 St,York,YO1 1AA,GB,\n');
    const r = await ship(['quote', '--csv', two, '--shipment', 'Q-2', '--default-weight', '0']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${two}: 1 problem; nothing was sent\n  --default-weight: must be greater than 0\n`);
    // A value that is not a weight at all is refused before the file is read.
    const kg = await ship(['quote', '--csv', two, '--shipment', 'Q-2', '--default-weight', '1kg']);
    expect(kg.code).toBe(2);
    expect(kg.stderr).toContain('a flag that fills blank cells has a problem; nothing was sent\n  --default-weight: must be a whole number of grammes, not "1kg"\n');
  });
});
