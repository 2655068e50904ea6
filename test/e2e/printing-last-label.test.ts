// Ctrl-C while the LAST label of a command is being sent to a raw printer: the label is finished (a label cut
// off prints as garbage), and then the command exits 130 saying every label went out whole, so nothing is left
// to send — as `ship label --printer` does (printing.test.ts); it used to finish and exit 0 as if nothing happened.
// The built binary against the sandbox and a loopback printer that takes 200 ms over each label.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ship } from '../helpers/bin.js';
import { fakePrinter, until, type FakePrinter } from '../helpers/printer.js';
import { createParcels, shipmentFile, useTestSandbox } from '../helpers/sandbox.js';

const { sb, env } = useTestSandbox();

const createShipment = (ref: string, parcels: number) => createParcels(env, ref, parcels);

/**
 * Runs `ship args` against `printer` (200 ms a label), presses Ctrl-C once the bytes of all `labels` labels are in
 * (all but the last finished), and returns ship's result: the last label finished before it exited, with 130.
 */
async function ctrlCAtLastLabel(printer: FakePrinter, args: string[], labels: number) {
  const run = ship(args, { env });
  await until(() => printer.jobs.length >= labels);
  expect(printer.finished).toBe(labels - 1);
  run.kill('SIGINT');
  const r = await run;
  // Not cut off: the printer had finished the job before ship exited.
  expect(printer.finished).toBe(labels);
  expect(r.exitCode, String(r.stderr)).toBe(130);
  return r;
}

// The printer takes 200 ms over each label (ship waits up to 250 ms for it to close a job), so Ctrl-C, sent
// as soon as the last label's bytes are in, lands while ship waits for the printer to finish it.
describe('Ctrl-C while the last label is being sent', () => {
  it('ship print REF --printer: the last label is finished, then exit 130 saying every label went out whole', async () => {
    const refs = await createShipment('LAST-PRN', 2);
    const printer = await fakePrinter({ closeDelayMs: 200 });
    try {
      const r = await ctrlCAtLastLabel(printer, ['print', 'LAST-PRN', '--printer', printer.url], 2);
      expect(printer.jobs).toHaveLength(2);
      const stderr = String(r.stderr);
      expect(stderr).toContain(
        `interrupted: the last label of LAST-PRN being sent was finished: all 2 labels (${refs.join(', ')}) went to printer ${printer.url} whole, and nothing is left to send. Do not send them again unless they did not print`,
      );
      expect(String(r.stdout)).toBe('');
    } finally {
      await printer.close();
    }
  });

  it('ship create --file --printer: the shipment is shown, then exit 130 saying all its labels went out whole', async () => {
    const { dir, file } = shipmentFile('LAST-CRT', 2, 'ship-last-create-');
    const printer = await fakePrinter({ closeDelayMs: 200 });
    try {
      const r = await ctrlCAtLastLabel(printer, ['create', '--file', file, '--output-dir', join(dir, 'labels'), '--printer', printer.url, '--quiet'], 2);
      expect(printer.jobs).toHaveLength(2);
      // The shipment is the data: its tracking references are printed before the error.
      const tracking = String(r.stdout).trim().split('\n');
      expect(tracking).toHaveLength(2);
      expect(String(r.stderr)).toContain(
        `interrupted: shipment LAST-CRT was created, and the last of its labels being sent was finished: all 2 went to printer ${printer.url} whole, and nothing is left to send (the label files are in ${join(dir, 'labels')}). Do not create it again, nor send its labels again unless they did not print`,
      );
    } finally {
      await printer.close();
    }
  });

  it('ship create --csv --printer: the run was interrupted (exit 130, as for Ctrl-C earlier), no label is named as not sent, and a rerun prints nothing', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ship-last-csv-'));
    const csv = join(dir, 'orders.csv');
    writeFileSync(csv, 'shipment_reference,to_name,to_line_1,to_city,to_postcode,to_country,weight\nLAST-CSV-1,Ann,1 High Street,London,SW1A 1AA,GB,1000\nLAST-CSV-2,Bob,2 High Street,London,SW1A 1AA,GB,1100\n');
    const printer = await fakePrinter({ closeDelayMs: 200 });
    const args = ['create', '--csv', csv, '--output-dir', join(dir, 'labels'), '--printer', printer.url, '--yes', '--json'];
    try {
      const r = await ctrlCAtLastLabel(printer, args, 2);
      const lines = String(r.stdout).trim().split('\n').map((l) => JSON.parse(l));
      expect(lines.map((l) => [l.shipment_reference, l.status, l.labels_not_sent])).toEqual([
        ['LAST-CSV-1', 'created', undefined],
        ['LAST-CSV-2', 'created', undefined],
      ]);
      const stderr = String(r.stderr);
      expect(stderr).toContain('interrupted: 2 of 2 shipments handled; nothing is left to do');
      expect(stderr).not.toMatch(/not sent/);
      const again = await ship(args, { env });
      expect(again.exitCode, String(again.stderr)).toBe(0);
      expect(String(again.stdout).trim().split('\n').map((l) => JSON.parse(l).status)).toEqual(['skipped', 'skipped']);
      expect(printer.jobs).toHaveLength(2);
    } finally {
      await printer.close();
    }
  });
});
