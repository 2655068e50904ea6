// A container's whole life with the built binary against the sandbox: create, add shipments with
// `ship create --container` and with a CSV container_reference column, show counts, a shipment over a limit
// refused, close, a shipment after close refused, label, documents, invoice, and delete refused then allowed.
import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ship } from '../helpers/bin.js';
import { useTestSandbox } from '../helpers/sandbox.js';

const SERVICE = 'DPD_CONSOLIDATED_EU';

const { sb, env } = useTestSandbox();
const dir = mkdtempSync(join(tmpdir(), 'ship-e2e-containers-'));

const run = (args: string[]) => ship(args, { env: { ...env, SHIP_CONFIG_DIR: dir }, cwd: dir });

/** `ship create --container REF` from flags, one parcel. */
const createInto = (container: string, reference: string, parcel: { weight: number; value: string }) =>
  run([
    'create', '--container', container, '--reference', reference,
    '--to-name', 'Ana Silva', '--to-line1', 'Rua Augusta 1', '--to-city', 'Lisboa', '--to-postcode', '1100-048', '--to-country', 'PT',
    '--weight', String(parcel.weight), '--length', '20', '--width', '15', '--depth', '10', '--value', parcel.value,
    '--item', `sku=MUG-001,description=Mug,quantity=1,value=${parcel.value},weight=${parcel.weight},origin=GB,hs=6912002310`,
    '-o', join(dir, 'labels'), '--json',
  ]);

async function showJson(ref: string): Promise<any> {
  const r = await run(['containers', 'show', ref, '--json']);
  expect(r.exitCode, String(r.stderr)).toBe(0);
  return JSON.parse(String(r.stdout));
}

describe('a container, from creation to deletion (built binary)', () => {
  it('lives through its whole life', async () => {
    // A service that is not a consolidation service is refused, in the user's flag names.
    const wrong = await run(['containers', 'create', '--service', 'RM_TRACKED_48', '--clearance-country', 'DE', '--clearance-location', 'FRA']);
    expect(wrong.exitCode).toBe(2);
    expect(String(wrong.stderr)).toMatch(/--service: .*consolidation service/);

    const made = await run(['containers', 'create', '--service', SERVICE, '--clearance-country', 'de', '--clearance-location', 'FRA', '--currency', 'EUR', '--json']);
    expect(made.exitCode, String(made.stderr)).toBe(0);
    const container = JSON.parse(String(made.stdout));
    const ref: string = container.reference;
    expect(ref).toMatch(/^C\d{8}$/);
    expect(container).toMatchObject({ status: 'Open', value_currency: 'EUR', parcels: 0 });
    const limits = { parcels: container.max_parcels, weight: container.max_weight, value: container.max_value };
    expect(limits.value).toBeGreaterThan(0);

    // By flag.
    const byFlag = await createInto(ref, 'CT-FLAG-1', { weight: 1200, value: '25.00' });
    expect(byFlag.exitCode, String(byFlag.stderr)).toBe(0);
    expect((await showJson(ref)).parcels).toBe(1);

    // By CSV: two shipments (one of two parcels) with the container_reference column.
    const csv = join(dir, 'orders.csv');
    writeFileSync(
      csv,
      'shipment_reference,container_reference,to_name,to_line_1,to_city,to_postcode,to_country,parcel_reference,weight,length,width,depth,value,' +
        'item_sku,item_short_description,item_quantity,item_value,item_weight,item_country_of_origin,item_harmonised_code\n' +
        `CT-CSV-1,${ref},Jan Novak,Hlavni 1,Praha,11000,CZ,P1,2000,20,20,20,40.00,TEE-BLK-M,T-shirt,2,20.00,1000,PT,6109100010\n` +
        `CT-CSV-2,${ref},Eva Berg,Storgatan 2,Stockholm,11122,SE,P1,1500,20,20,20,10.50,BOOK-042,Book,1,10.50,1500,GB,4901990000\n` +
        `CT-CSV-2,${ref},Eva Berg,Storgatan 2,Stockholm,11122,SE,P2,800,10,10,10,4.50,SOCKS-3PK,Socks,1,4.50,800,IT,6115950000\n`,
    );
    const byCsv = await run(['create', '--csv', csv, '--yes', '--json', '-o', join(dir, 'labels')]);
    expect(byCsv.exitCode, String(byCsv.stderr)).toBe(0);
    expect(String(byCsv.stdout).trim().split('\n').map((l) => JSON.parse(l).status)).toEqual(['created', 'created']);

    // Counts: 4 parcels, 5.5 kg, 80.00 EUR.
    const open = await showJson(ref);
    expect(open).toMatchObject({ parcels: 4, weight: 5500, value: 8000, status: 'Open' });
    const shown = await run(['containers', 'show', ref]);
    const kv = Object.fromEntries(String(shown.stdout).trim().split('\n').map((l) => l.split('\t')));
    expect(kv.parcels).toBe(`4 / ${limits.parcels ?? 'unlimited'}`);
    expect(kv.weight).toMatch(/^5\.5 kg \/ /);
    expect(kv.value).toBe(`80.00 EUR / ${(limits.value / 100).toFixed(2)} EUR`);
    const listed = await run(['containers', 'shipments', ref, '--json']);
    expect(JSON.parse(String(listed.stdout)).map((s: any) => s.reference).sort()).toEqual(['CT-CSV-1', 'CT-CSV-2', 'CT-FLAG-1']);

    // Over the value limit: refused as the API reports it, counts unchanged.
    const over = await createInto(ref, 'CT-OVER', { weight: 1000, value: ((limits.value - 8000) / 100 + 1).toFixed(2) });
    expect(over.exitCode).toBe(2);
    expect(String(over.stderr)).toMatch(/exceed/i);
    expect((await showJson(ref)).parcels).toBe(4);

    // Close: scripts must say --yes.
    const noYes = await run(['containers', 'close', ref]);
    expect(noYes.exitCode).toBe(2);
    expect(String(noYes.stderr)).toMatch(/--yes/);
    const closed = await run(['containers', 'close', ref, '--yes', '--json']);
    expect(closed.exitCode, String(closed.stderr)).toBe(0);
    expect((await showJson(ref)).status).toBe('Closed');
    // Closing it again (a rerun script): the state asked for holds, so exit 0, saying so.
    const again = await run(['containers', 'close', ref, '--yes', '--json']);
    expect(again.exitCode, String(again.stderr)).toBe(0);
    expect(JSON.parse(String(again.stdout))).toEqual({ reference: ref, status: 'Closed', message: 'already closed' });

    // After close: no more shipments.
    const late = await createInto(ref, 'CT-LATE', { weight: 500, value: '5.00' });
    expect(late.exitCode).toBe(2);
    expect(String(late.stderr)).toMatch(/closed/i);

    // Label, documents, invoice.
    const zplPath = join(dir, 'container.zpl');
    expect((await run(['containers', 'label', ref, '-o', zplPath])).exitCode).toBe(0);
    expect(readFileSync(zplPath, 'utf8')).toMatch(/\^XA[\s\S]*\^XZ/);
    const docsDir = join(dir, 'docs');
    const docs = await run(['containers', 'documents', ref, '-o', docsDir]);
    expect(docs.exitCode, String(docs.stderr)).toBe(0);
    const files = readdirSync(docsDir);
    expect(files.length).toBeGreaterThan(0);
    for (const f of files) expect(readFileSync(join(docsDir, f)).subarray(0, 5).toString('latin1')).toBe('%PDF-');
    const invoice = join(dir, 'invoice.pdf');
    expect((await run(['containers', 'invoice', ref, '-o', invoice])).exitCode).toBe(0);
    expect(readFileSync(invoice).subarray(0, 5).toString('latin1')).toBe('%PDF-');
  });

  it('refuses to delete a container with live shipments, explains why, and deletes it once they are cancelled', async () => {
    const made = await run(['containers', 'create', '--service', SERVICE, '--clearance-country', 'FR', '--clearance-location', 'CDG', '-q']);
    expect(made.exitCode, String(made.stderr)).toBe(0);
    const ref = String(made.stdout).trim();
    expect((await createInto(ref, 'CT-DEL-1', { weight: 700, value: '9.99' })).exitCode).toBe(0);

    const refused = await run(['containers', 'delete', ref, '--yes']);
    expect(refused.exitCode).not.toBe(0);
    expect(String(refused.stderr)).toMatch(/not cancelled|cancel/i);
    expect(String(refused.stderr)).toMatch(/ship cancel CT-DEL-1/);
    expect((await showJson(ref)).status).toBe('Open');

    const cancel = await run(['cancel', 'CT-DEL-1']);
    expect(cancel.exitCode, String(cancel.stderr)).toBe(0);
    const deleted = await run(['containers', 'delete', ref, '--yes', '--json']);
    expect(deleted.exitCode, String(deleted.stderr)).toBe(0);
    expect(JSON.parse(String(deleted.stdout))).toMatchObject({ reference: ref, status: 'deleted' });
    expect((await run(['containers', 'show', ref])).exitCode).toBe(5);
  });
});
