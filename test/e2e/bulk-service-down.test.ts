// A bulk run in which every task failed, each for the service (503 after the retries), none for its rows: that is
// "the service is down" (exit 1), not "some of your rows are bad" (exit 3). The built binary against the sandbox
// with `POST /__sandbox/faults {"fail_rate":1,"status":503}`; the summary and FILE.failed.csv are as for exit 3.
// Each task waits out the runner's (or, for GET and DELETE, the API layer's) back-off: about 2 s.
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ship } from '../helpers/bin.js';
import { apiCall, useTestSandbox } from '../helpers/sandbox.js';

const { sb, env } = useTestSandbox();

/** Runs `body` with every API request answered 503; the faults are cleared after it, whatever happens. */
async function serviceDown<T>(body: () => Promise<T>): Promise<T> {
  await sb.control('faults', { fail_rate: 1, status: 503 });
  try {
    return await body();
  } finally {
    await sb.control('faults', {});
  }
}

const HEADER = 'shipment_reference,to_name,to_line_1,to_city,to_postcode,to_country,weight';
const row = (ref: string) => `${ref},Ann Example,1 High Street,London,SW1A 1AA,GB,500`;

describe('bulk commands when the service fails for every task', () => {
  it('create --csv: the summary and FILE.failed.csv as usual, then exit 1 saying the service failed for every one; the rerun creates them', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ship-down-'));
    const csv = join(dir, 'orders.csv');
    writeFileSync(csv, [HEADER, row('DOWN-1'), row('DOWN-2'), row('DOWN-3')].join('\n') + '\n');
    const args = ['create', '--csv', csv, '--output-dir', join(dir, 'labels'), '--yes'];
    const r = await serviceDown(() => ship(args, { env }));
    const stderr = String(r.stderr);
    expect(r.exitCode, stderr).toBe(1);
    expect(stderr).toMatch(/Done: 3 shipments/);
    expect(stderr).toMatch(/created\s+0/);
    expect(stderr).toMatch(/failed\s+3/);
    expect(stderr).toContain(`Failed rows written to ${join(dir, 'orders.failed.csv')}`);
    expect(stderr).toMatch(/error: the service failed for every one of the 3 shipments \(.*503.*\)/);
    expect(stderr).not.toMatch(/3 of 3 shipments failed/);
    // Every row in FILE.failed.csv, as for exit 3.
    const failed = readFileSync(join(dir, 'orders.failed.csv'), 'utf8').trim().split('\n');
    expect(failed[0]).toBe(`${HEADER},error`);
    expect(failed.slice(1).map((l) => l.split(',')[0])).toEqual(['DOWN-1', 'DOWN-2', 'DOWN-3']);
    expect(failed[1]).toMatch(/503/);

    // The service is back: the same command creates them, once each.
    const again = await ship(args, { env });
    expect(again.exitCode, String(again.stderr)).toBe(0);
    expect(String(again.stdout).trim().split('\n').map((l) => l.split('\t').slice(0, 2).join(' '))).toEqual(['created DOWN-1', 'created DOWN-2', 'created DOWN-3']);
    expect(existsSync(join(dir, 'orders.failed.csv'))).toBe(false);
  }, 30_000);

  it('create --csv --json: the JSON lines and the summary line as for exit 3; the error line says exit 1', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ship-down-json-'));
    const csv = join(dir, 'orders.csv');
    writeFileSync(csv, [HEADER, row('DOWNJ-1'), row('DOWNJ-2')].join('\n') + '\n');
    const r = await serviceDown(() => ship(['create', '--csv', csv, '--output-dir', join(dir, 'labels'), '--json'], { env }));
    expect(r.exitCode, String(r.stderr)).toBe(1);
    const lines = String(r.stdout).trim().split('\n').map((l) => JSON.parse(l));
    expect(lines.map((l) => [l.shipment_reference, l.status])).toEqual([
      ['DOWNJ-1', 'failed'],
      ['DOWNJ-2', 'failed'],
    ]);
    const errLines = String(r.stderr).trim().split('\n').map((l) => JSON.parse(l));
    const summary = errLines.find((l) => l.summary)!.summary;
    expect(summary).toMatchObject({ total: 2, created: 0, failed: 2, interrupted: false, failed_csv: join(dir, 'orders.failed.csv') });
    // Not a run stopped early: every row was tried.
    expect(summary).not.toHaveProperty('stopped');
    const { error } = errLines[errLines.length - 1];
    expect(error).toMatchObject({ exit_code: 1, type: 'ServiceFailure' });
    expect(error.message).toMatch(/^the service failed for every one of the 2 shipments/);
    expect(error.hint).toMatch(/rerun the same command/);
  }, 30_000);

  it('cancel with several references: exit 1, each reference still reported as failed', async () => {
    for (const ref of ['DOWNC-1', 'DOWNC-2']) {
      const res = await apiCall(env, 'POST', '/shipments', {
        shipment_reference: ref,
        to_address: { name: 'Ann Example', line_1: '1 High Street', city: 'London', postcode: 'SW1A 1AA', country: 'GB' },
        parcels: [{ weight: 500, length: 20, width: 15, depth: 10 }],
      });
      expect(res.status).toBeLessThan(300);
    }
    const r = await serviceDown(() => ship(['cancel', 'DOWNC-1', 'DOWNC-2'], { env }));
    const stderr = String(r.stderr);
    expect(r.exitCode, stderr).toBe(1);
    expect(String(r.stdout)).toMatch(/^failed\tDOWNC-1\t.*503/m);
    expect(String(r.stdout)).toMatch(/^failed\tDOWNC-2\t.*503/m);
    expect(stderr).toMatch(/failed\s+2/);
    expect(stderr).toMatch(/error: the service failed for every one of the 2 shipments/);
    // Nothing was cancelled: the same command does it once the service is back.
    const again = await ship(['cancel', 'DOWNC-1', 'DOWNC-2'], { env });
    expect(again.exitCode, String(again.stderr)).toBe(0);
  }, 30_000);

  it('skus import: exit 1, every row in FILE.failed.csv', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ship-down-skus-'));
    const file = join(dir, 'skus.csv');
    writeFileSync(file, 'sku,product_name\nDOWNS-1,One\nDOWNS-2,Two\n');
    const r = await serviceDown(() => ship(['skus', 'import', file], { env }));
    const stderr = String(r.stderr);
    expect(r.exitCode, stderr).toBe(1);
    expect(stderr).toMatch(/error: the service failed for every one of the 2 SKUs/);
    const failed = readFileSync(join(dir, 'skus.failed.csv'), 'utf8').trim().split('\n');
    expect(failed[0]).toBe('sku,product_name,error');
    expect(failed.slice(1).map((l) => l.split(',')[0])).toEqual(['DOWNS-1', 'DOWNS-2']);
  }, 30_000);
});
