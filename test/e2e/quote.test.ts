// The built binary: `ship quote` against the sandbox.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ship } from '../helpers/bin.js';
import { useTestSandbox } from '../helpers/sandbox.js';

const { sb, env } = useTestSandbox();

describe('ship quote (binary)', () => {
  const FLAGS = ['--to-name', 'Ada', '--to-line1', '1 High St', '--to-city', 'London', '--to-postcode', 'SW1A 1AA', '--to-country', 'United Kingdom', '--weight', '1200', '--length', '30', '--width', '20', '--depth', '10'];

  it('prints a table sorted by total price with the recommended service marked', async () => {
    const r = await ship(['quote', ...FLAGS], { env });
    expect(r.exitCode, String(r.stderr)).toBe(0);
    const rows = String(r.stdout).trim().split('\n').map((l) => l.split('\t'));
    expect(rows.length).toBeGreaterThanOrEqual(3);
    for (const row of rows) expect(row).toHaveLength(10);
    const totals = rows.map((c) => Number(c[8]));
    expect(totals).toEqual([...totals].sort((a, b) => a - b));
    expect(rows.filter((c) => c[0] === 'recommended')).toHaveLength(1);
    // Only services that take this parcel to GB are offered.
    expect(rows.map((c) => c[1])).not.toContain('DPD_CLASSIC_EU');
  });

  it('--json prints the API data, and the CSV input picks one shipment', async () => {
    const r = await ship(['quote', '--csv', resolve(import.meta.dirname, '../../examples/orders.csv'), '--shipment', 'ORD-1004', '--json'], { env });
    expect(r.exitCode, String(r.stderr)).toBe(0);
    const data = JSON.parse(String(r.stdout));
    expect(data.recommended_service.service_key).toBe('DPD_CLASSIC_EU');
    for (const s of data.services) expect(s.total_price).toMatch(/^\d+\.\d{2}$/);
  });

  it('outside mainland UK, items are required: said before sending, in the user\'s own flags or columns', async () => {
    // The API wants items for customs abroad (Parcel: items): given by flags, the message points at --item.
    const abroad = ['--to-name', 'Ada', '--to-line1', '1 Rue', '--to-city', 'Paris', '--to-postcode', '75001', '--to-country', 'FR', '--weight', '1200'];
    const r = await ship(['quote', ...abroad], { env });
    expect(r.exitCode).toBe(2);
    expect(String(r.stderr)).toMatch(/^ {2}--item sku=…: is required for deliveries outside mainland UK$/m);
    const j = await ship(['create', '--reference', 'LOC-1', ...abroad, '--json'], { env });
    expect(j.exitCode).toBe(2);
    expect(JSON.parse(String(j.stderr)).error.problems[0]).toMatchObject({ column: '--item sku=…' });
    // From a CSV: the row of the parcel and the user's own column.
    const csv = join(mkdtempSync(join(tmpdir(), 'ship-quote-')), 'abroad.csv');
    writeFileSync(csv, 'Ref,to_name,to_line_1,to_city,to_postcode,to_country,Parcel Weight\nQ-1,Ada,1 Rue,Paris,75001,FR,1200\n');
    writeFileSync(`${csv}.map.json`, JSON.stringify({ Ref: 'shipment_reference', 'Parcel Weight': 'weight' }));
    const c = await ship(['quote', '--csv', csv, '--map', `${csv}.map.json`], { env });
    expect(c.exitCode).toBe(2);
    expect(String(c.stderr)).toMatch(/^ {2}row 2, column item_sku: is required for deliveries outside mainland UK$/m);
    expect(String(c.stderr)).toContain('nothing was sent');
  });

  it("the API's refusal names the user's own flags and columns (and keeps the API's field paths in --json)", async () => {
    // Only the service knows its delivery services: an unknown key is refused by the API (400).
    const home = ['--to-name', 'Ada', '--to-line1', '1 St', '--to-city', 'Leeds', '--to-postcode', 'LS1 1AA', '--to-country', 'GB', '--weight', '1200', '--service', 'NOPE_SVC'];
    const r = await ship(['quote', ...home], { env });
    expect(r.exitCode).toBe(2);
    expect(String(r.stderr)).toMatch(/^ {2}--service: The selected delivery service key is invalid\.$/m);
    expect(String(r.stderr)).not.toMatch(/^ {2}delivery_service_key:/m);
    const j = await ship(['create', '--reference', 'LOC-2', ...home, '--json'], { env });
    expect(j.exitCode).toBe(2);
    const err = JSON.parse(String(j.stderr)).error;
    expect(Object.keys(err.fields)).toEqual(['delivery_service_key']);
    expect(err.problems[0]).toMatchObject({ column: '--service', value: 'NOPE_SVC' });

    const csv = join(mkdtempSync(join(tmpdir(), 'ship-quote-')), 'service.csv');
    writeFileSync(csv, 'Ref,to_name,to_line_1,to_city,to_postcode,to_country,Parcel Weight,Service\nQ-2,Ada,1 St,Leeds,LS1 1AA,GB,1200,NOPE_SVC\n');
    writeFileSync(`${csv}.map.json`, JSON.stringify({ Ref: 'shipment_reference', 'Parcel Weight': 'weight', Service: 'delivery_service_key' }));
    const c = await ship(['quote', '--csv', csv, '--map', `${csv}.map.json`], { env });
    expect(c.exitCode).toBe(2);
    expect(String(c.stderr)).toMatch(/^ {2}row 2, column Service: The selected delivery service key is invalid\.$/m);
  });
});
