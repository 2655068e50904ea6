// `ship create` in-process against the sandbox, behind a recording proxy: what is sent, what is printed,
// what lands on disk.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { runShip } from '../../helpers/run.js';
import { fakePrinter } from '../../helpers/printer.js';
import { shopifyExportOneNeedsCustoms, shopifyExportWithSkus } from '../../helpers/shopify.js';
import { proxiedSandboxForFile, startRecordingProxy } from './recording-proxy.js';

// Label files named here fail to be written as on a full disk (ENOSPC). /dev/full cannot stand in for one: a
// label is never written through a symbolic link.
const fullDisk = vi.hoisted(() => new Set<string>());
vi.mock('node:fs', async (importOriginal) => {
  const fs = await importOriginal<typeof import('node:fs')>();
  const writeFileSync = (path: unknown, ...rest: unknown[]) => {
    if (typeof path === 'string' && fullDisk.has(path.split(/[\\/]/).pop()!)) {
      throw Object.assign(new Error(`ENOSPC: no space left on device, open '${path}'`), { code: 'ENOSPC', errno: -28, syscall: 'open', path });
    }
    return (fs.writeFileSync as (...a: unknown[]) => void)(path, ...rest);
  };
  return { ...fs, default: { ...fs, writeFileSync }, writeFileSync };
});

const EXAMPLES = resolve(import.meta.dirname, '../../../examples');
const { sb, proxy, ...proxied } = await proxiedSandboxForFile();
const env: Record<string, string> = { ...proxied.env, SHIP_CONFIG_DIR: mkdtempSync(join(tmpdir(), 'ship-cfg-')) };
let work: string;

beforeEach(() => {
  work = mkdtempSync(join(tmpdir(), 'ship-create-'));
});

const ship = (args: string[], opts: { stdin?: string; tty?: boolean } = {}) => runShip(args, { env, ...opts });
const ADDRESS = ['--to-name', 'Ada Lovelace', '--to-line1', '12 St James\'s Square', '--to-city', 'London', '--to-postcode', 'SW1Y 4JH', '--to-country', 'United Kingdom'];

describe('ship create from flags', () => {
  it('custom field values the service refuses are said by the account\'s rules (the choices, the length, the key meant), as a CSV\'s are', async () => {
    const r = await ship([
      'create', '--reference', 'CFF-1', ...ADDRESS, '--weight', '500', '-o', work, '--json',
      '--custom-field', 'Gift_Message=Hi', '--custom-field', 'priority=urgent', '--parcel', 'weight=500,cf.declared_value=-4',
    ]);
    expect(r.code, r.stderr).toBe(2);
    const problems = JSON.parse(r.stderr.trim().split('\n').at(-1)!).error.problems as Array<{ message: string }>;
    const messages = problems.map((p) => p.message);
    expect(messages).toContain('"urgent" is not one of the choices of custom field priority: standard, express, overnight');
    expect(messages).toContain('the account has no SHIPMENT custom field with the key "Gift_Message" (keys are matched exactly: its key is gift_message)');
    expect(messages.some((m) => /^-4 is less than 0, the least custom field declared_value takes$/.test(m))).toBe(true);
  });

  it("takes the profile's label_format when --format is not given (ZPL with --printer); --format wins", async () => {
    const own = { ...env, SHIP_CONFIG_DIR: mkdtempSync(join(tmpdir(), 'ship-cfg-lf-')) };
    expect((await runShip(['config', 'set', 'label_format', 'PDF'], { env: own })).code).toBe(0);
    const flags = (ref: string) => ['create', '--reference', ref, ...ADDRESS, '--weight', '500', '-o', work, '--quiet'];
    expect((await runShip(flags('LF-1'), { env: own })).code).toBe(0);
    expect(readFileSync(join(work, 'LF-1_1.pdf')).subarray(0, 5).toString()).toBe('%PDF-');
    expect(proxy.creates().at(-1).format).toBe('PDF');
    expect((await runShip([...flags('LF-2'), '--format', 'zpl'], { env: own })).code).toBe(0);
    expect(proxy.creates().at(-1).format).toBe('ZPL');
  });

  it('--print and --printer together are refused before anything is sent (each would print every label)', async () => {
    const before = proxy.creates().length;
    const r = await ship(['create', '--reference', 'PP-1', ...ADDRESS, '--weight', '500', '-o', work, '--print', '--printer', 'tcp://127.0.0.1:9']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--print (the desktop printing application) and --printer (a thermal printer) would each print every label: give one');
    expect(proxy.creates()).toHaveLength(before);
  });

  it('--merge with --print is refused before anything is sent (the desktop application picks the label format, so the labels may not be PDF)', async () => {
    const before = proxy.creates().length;
    const r = await ship(['create', '--reference', 'MP-1', ...ADDRESS, '--weight', '500', '-o', work, '--print', '--format', 'PDF', '--merge', join(work, 'm.pdf')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--merge joins PDF labels, and with --print the desktop printing application picks the label format: give one');
    expect(proxy.creates()).toHaveLength(before);
  });

  it('--merge goes by the format a --file body asks for: ZPL there is refused before anything is created, PDF there is merged', async () => {
    const own = { ...env, SHIP_CONFIG_DIR: mkdtempSync(join(tmpdir(), 'ship-cfg-mg-')) };
    expect((await runShip(['config', 'set', 'label_format', 'PDF'], { env: own })).code).toBe(0);
    const body = (ref: string, format: string) => ({
      shipment_reference: ref, format,
      to_address: { name: 'Ann', line_1: '1 High St', city: 'London', postcode: 'SW1A 1AA', country: 'GB' },
      parcels: [{ weight: 500, length: 10, width: 10, depth: 10 }],
    });
    const zplFile = join(work, 'zpl.json');
    writeFileSync(zplFile, JSON.stringify(body('MGF-1', 'ZPL')));
    const before = proxy.creates().length;
    const zpl = await runShip(['create', '--file', zplFile, '--merge', join(work, 'm.pdf'), '-o', work], { env: own });
    expect(zpl.code).toBe(2);
    expect(zpl.stderr).toContain(`--merge joins PDF labels, and ${zplFile} asks for ZPL: add --format PDF`);
    // A file that names no format gets the default, and the message says that is where ZPL or PNG came from.
    expect((await runShip(['config', 'set', 'label_format', 'PNG'], { env: own })).code).toBe(0);
    const noFormat = join(work, 'none.json');
    writeFileSync(noFormat, JSON.stringify({ ...body('MGF-3', 'PDF'), format: undefined }));
    const none = await runShip(['create', '--file', noFormat, '--merge', join(work, 'm.pdf'), '-o', work], { env: own });
    expect(none.code).toBe(2);
    expect(none.stderr).toContain(`--merge joins PDF labels, and ${noFormat} names no "format" and the default is PNG: add --format PDF`);
    expect((await runShip(['config', 'set', 'label_format', 'PDF'], { env: own })).code).toBe(0);
    expect(proxy.creates()).toHaveLength(before);
    const pdfFile = join(work, 'pdf.json');
    writeFileSync(pdfFile, JSON.stringify(body('MGF-2', 'PDF')));
    const pdf = await ship(['create', '--file', pdfFile, '--merge', join(work, 'm.pdf'), '-o', work]);
    expect(pdf.code, pdf.stderr).toBe(0);
    expect(readFileSync(join(work, 'm.pdf')).subarray(0, 5).toString()).toBe('%PDF-');
  });

  it('sends exactly the flags, writes one label per parcel and prints the parcels', async () => {
    const r = await ship([
      'create', '--reference', 'FLAGS-1', '--order-reference', 'WEB-1', '--service', 'DPD_NEXT_DAY', ...ADDRESS,
      '--to-phone', '07700 900001', '--custom-field', 'gift_message=Hello, Ada', '--parcel', 'weight=1200,length=30,width=20,depth=10,reference=P1',
      '--parcel', 'weight=800,packaging=SMALL_BOX', '--item', 'sku=MUG-001,description="Mug, large",quantity=2,value=10.00', '--item', 'parcel=2,description=Tee,quantity=1,value=15,origin=Portugal',
      '-o', work,
    ]);
    expect(r.stderr).toContain('Created shipment FLAGS-1: 2 parcels');
    expect(r.code).toBe(0);
    expect(proxy.creates()).toEqual([
      {
        shipment_reference: 'FLAGS-1',
        order_reference: 'WEB-1',
        delivery_service_key: 'DPD_NEXT_DAY',
        to_address: { name: 'Ada Lovelace', telephone: '07700 900001', line_1: "12 St James's Square", city: 'London', postcode: 'SW1Y 4JH', country: 'GB' },
        custom_fields: { gift_message: 'Hello, Ada' },
        parcels: [
          { reference: 'P1', weight: 1200, length: 30, width: 20, depth: 10, items: [{ sku: 'MUG-001', short_description: 'Mug, large', item_value: 10, item_quantity: 2 }] },
          { packaging_type_key: 'SMALL_BOX', weight: 800, items: [{ short_description: 'Tee', country_of_origin: 'PT', item_value: 15, item_quantity: 1 }] },
        ],
        format: 'ZPL',
      },
    ]);
    const lines = r.stdout.trim().split('\n').map((l) => l.split('\t'));
    expect(lines).toHaveLength(2);
    expect(lines.map((l) => [l[0], l[5]])).toEqual([
      ['1', join(work, 'FLAGS-1_1.zpl')],
      ['2', join(work, 'FLAGS-1_2.zpl')],
    ]);
    for (const l of lines) expect(readFileSync(l[5], 'utf8')).toMatch(/\^XA[\s\S]*\^XZ/);
    // The tracking references printed are the ones the service knows.
    const events: any = await (await fetch(`${sb.baseUrl}/shipments/FLAGS-1/events`, { headers: { 'x-service-api-key': sb.apiKey, 'x-service-token': env.SHIP_TOKEN } })).json();
    expect(Object.keys(events.data).sort()).toEqual(lines.map((l) => l[2]).sort());
  });

  it('--quiet prints only the tracking references; --json the created parcels without label bytes', async () => {
    const q = await ship(['create', '--reference', 'FLAGS-Q', ...ADDRESS, '--weight', '500', '--parcels', '2', '-o', work, '--quiet']);
    expect(q.code).toBe(0);
    expect(q.stdout.trim().split('\n')).toHaveLength(2);
    for (const t of q.stdout.trim().split('\n')) expect(t).toMatch(/^[A-Z0-9]+$/);
    expect(proxy.creates()[0].parcels).toEqual([{ weight: 500 }, { weight: 500 }]);

    const j = await ship(['create', '--reference', 'FLAGS-J', ...ADDRESS, '--weight', '500', '-o', work, '--json', '--format', 'pdf']);
    expect(j.code).toBe(0);
    const out = JSON.parse(j.stdout);
    expect(out).toHaveLength(1);
    expect(out[0]).toMatchObject({ shipment_reference: 'FLAGS-J', label_path: join(work, 'FLAGS-J_1.pdf') });
    expect(out[0].tracking_reference).toBeTruthy();
    expect(out[0]).not.toHaveProperty('pdf');
    expect(readFileSync(join(work, 'FLAGS-J_1.pdf')).subarray(0, 5).toString()).toBe('%PDF-');
  });

  it('names the flag of every problem and sends nothing', async () => {
    const r = await ship(['create', '--reference', 'BAD^1', '--to-name', 'Ann', '--to-line1', 'x\\y', '--to-country', 'FRA', '--weight', '1.5', '-o', work]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('error: the shipment has 6 problems; nothing was sent');
    expect(r.stderr).toContain('--reference: must not contain a backslash (\\) or caret (^)');
    expect(r.stderr).toContain('--to-line1: must not contain a backslash (\\) or caret (^)');
    expect(r.stderr).toContain('--to-country: must be a two-letter ISO 3166-1 country code, not "FRA" (did you mean FR?)');
    expect(r.stderr).toContain('--weight: must be a whole number of grammes, not "1.5"');
    expect(r.stderr).toContain('--to-city: is required');
    expect(r.stderr).toContain('--to-postcode: is required');
    expect(proxy.requests).toEqual([]);
  });

  it('abroad, each item given by flags is named with what it lacks, and a parcel without items by its number', async () => {
    const fr = ['--reference', 'CUS-1', '--to-name', 'Marie', '--to-line1', '1 Rue X', '--to-city', 'Paris', '--to-postcode', '75001', '--to-country', 'FR'];
    const r = await ship(['create', ...fr, '--weight', '1000', '--parcels', '2', '--item', 'description=Mug,parcel=2', '--item', 'description=Cup,parcel=2', '--dry-run']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--item sku=…,parcel=1: is required for deliveries outside mainland UK');
    for (const n of [1, 2]) expect(r.stderr).toContain(`--item #${n} harmonised_code=…: is required for deliveries outside mainland UK (or give the item a SKU)`);
    expect(proxy.creates()).toEqual([]);
  });

  it('when the answer to the create is lost, finds the shipment instead of failing or creating it twice', async () => {
    proxy.dropNextCreates = 1;
    const r = await ship(['create', '--reference', 'LOST-1', ...ADDRESS, '--weight', '500', '-o', work, '--quiet']);
    expect(r.stderr).toContain('a shipment LOST-1 exists, perhaps a cancelled one: sending it again (the service refuses a live duplicate)');
    expect(r.stderr).toContain('but shipment LOST-1 exists: using it');
    expect(r.code).toBe(0);
    // Sent again, and refused as a duplicate: created once.
    expect(proxy.creates().map((b) => b.shipment_reference)).toEqual(['LOST-1', 'LOST-1']);
    expect(proxy.created().map((b) => b.shipment_reference)).toEqual(['LOST-1']);
    const tracking = r.stdout.trim();
    expect(tracking).toMatch(/^[A-Z0-9]+$/);
    // The label came from GET /parcels/:ref/label, since the create answer never arrived.
    expect(proxy.requests.some((x) => x.path.startsWith(`/v1.2/parcels/${tracking}/label`))).toBe(true);
    expect(readFileSync(join(work, 'LOST-1_1.zpl'), 'utf8')).toMatch(/\^XA/);
    // On a terminal's table: which request made it.
    proxy.dropNextCreates = 1;
    const shown = await ship(['create', '--reference', 'LOST-2', ...ADDRESS, '--weight', '500', '-o', work]);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout + shown.stderr).toContain('Created shipment LOST-2 (by the first request, whose answer was lost): 1 parcel');
  });

  it('a reference given again after its shipment was cancelled: a create whose outcome is unknown is sent again, not taken for the cancelled one', async () => {
    const old = await ship(['create', '--reference', 'REUSE-S', ...ADDRESS, '--weight', '500', '-o', work, '--json']);
    expect(old.code, old.stderr).toBe(0);
    const oldTracking = JSON.parse(old.stdout)[0].tracking_reference as string;
    // To change a shipment, cancel it and create it again with the same reference (api-notes).
    expect((await ship(['cancel', 'REUSE-S', '--yes'])).code).toBe(0);
    proxy.failNextCreates = 1; // a 503: nothing created, but ship cannot know that
    const r = await ship(['create', '--reference', 'REUSE-S', ...ADDRESS, '--weight', '600', '-o', work, '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('sending it again');
    const created = JSON.parse(r.stdout) as Array<{ tracking_reference: string }>;
    expect(created[0].tracking_reference).not.toBe(oldTracking);
    expect(proxy.created().filter((b) => b.shipment_reference === 'REUSE-S').map((b) => b.parcels[0].weight)).toEqual([500, 600]);
    // The new one is live: cancelling it cancels it (the cancelled one alone would be "already cancelled").
    const cancel = await ship(['cancel', 'REUSE-S', '--yes', '--json']);
    expect(JSON.parse(cancel.stdout.split('\n')[0])).toMatchObject({ status: 'cancelled', message: 'Shipment Cancelled' });
  });

  it('a create whose outcome is unknown and that made nothing is sent again once, after a look-up; a second failure says to check', async () => {
    proxy.failNextCreates = 1;
    const r = await ship(['create', '--reference', 'AGAIN-1', ...ADDRESS, '--weight', '500', '-o', work, '--quiet']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('no shipment AGAIN-1 exists: sending it again');
    expect(proxy.created().map((b) => b.shipment_reference)).toEqual(['AGAIN-1']);
    expect(proxy.requests.map((x) => `${x.method} ${x.path.split('?')[0]}`).filter((x) => /shipments/.test(x))).toEqual([
      'POST /v1.2/shipments',
      'GET /v1.2/shipments/AGAIN-1/events',
      'POST /v1.2/shipments',
    ]);
    proxy.failNextCreates = 2;
    const twice = await ship(['create', '--reference', 'AGAIN-2', ...ADDRESS, '--weight', '500', '-o', work]);
    expect(twice.code).toBe(1);
    expect(twice.stderr).toMatch(/hint: the first attempt \(.*503.*\) may or may not have created it: check with `ship track AGAIN-2` before creating it again/);
    expect(proxy.created().map((b) => b.shipment_reference)).toEqual(['AGAIN-1']);
  });

  it('requires --reference', async () => {
    const r = await ship(['create', ...ADDRESS, '--weight', '100']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--reference is required');
    expect(proxy.requests).toEqual([]);
  });

  it('explains a duplicate reference', async () => {
    expect((await ship(['create', '--reference', 'DUP-1', ...ADDRESS, '--weight', '100', '-o', work])).code).toBe(0);
    const r = await ship(['create', '--reference', 'DUP-1', ...ADDRESS, '--weight', '100', '-o', work]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/already been taken/);
    expect(r.stderr).toContain('ship track DUP-1');
  });
});

describe('ship create --file', () => {
  it('sends the file as it is (plus --format), flags overriding its fields', async () => {
    const file = JSON.parse(readFileSync(join(EXAMPLES, 'shipment.json'), 'utf8'));
    const r = await ship(['create', '--file', join(EXAMPLES, 'shipment.json'), '--reference', 'FILE-1', '-o', work]);
    expect(r.stderr).toContain('Created shipment FILE-1: 2 parcels');
    expect(r.code).toBe(0);
    expect(proxy.creates()).toEqual([{ ...file, shipment_reference: 'FILE-1', format: 'ZPL' }]);
    expect(readdirSync(work).filter((f) => !f.startsWith('.')).sort()).toEqual(['FILE-1_1.zpl', 'FILE-1_2.zpl']);
  });

  it('a dry run shows what would be sent: numbers written as text sent as numbers, codes upper-cased', async () => {
    const body = JSON.parse(readFileSync(join(EXAMPLES, 'shipment.json'), 'utf8'));
    body.shipment_reference = 'FILE-DRY';
    body.to_address.country = 'gb';
    body.parcels[0].weight = '1650';
    const r = await ship(['create', '--file', '-', '--dry-run', '--json'], { stdin: JSON.stringify(body) });
    expect(r.code, r.stderr).toBe(0);
    const sent = JSON.parse(r.stdout);
    expect(sent.parcels[0].weight).toBe(1650);
    expect(sent.to_address.country).toBe('GB');
  });

  it('--service overrides a file that names its service by the deprecated alias service_key', async () => {
    const body = JSON.parse(readFileSync(join(EXAMPLES, 'shipment.json'), 'utf8'));
    delete body.delivery_service_key;
    body.service_key = 'DPD_CLASSIC_EU';
    const r = await ship(['create', '--file', '-', '--service', 'RM_INTL_TRACKED', '--dry-run', '--json'], { stdin: JSON.stringify(body) });
    expect(r.code, r.stderr).toBe(0);
    const sent = JSON.parse(r.stdout);
    expect(sent.delivery_service_key).toBe('RM_INTL_TRACKED');
    expect(sent.service_key).toBeUndefined();
  });

  it('warns about a key one or two letters from a field of the API (a typo the tolerant schemas would send unseen)', async () => {
    const body = JSON.parse(readFileSync(join(EXAMPLES, 'shipment.json'), 'utf8'));
    body.delivery_servce_key = 'DPD_NEXT_DAY';
    body.parcels[0].wieght = 5;
    body.to_address.what3words = 'kept.without.warning';
    const r = await ship(['create', '--file', '-', '--dry-run'], { stdin: JSON.stringify(body) });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('field delivery_servce_key in stdin: not a field of the API (sent as it is): did you mean delivery_service_key?');
    expect(r.stderr).toContain('field parcels.0.wieght in stdin: not a field of the API (sent as it is): did you mean weight?');
    expect(r.stderr).not.toContain('what3words');
  });

  it("keeps the file's own format when --format is not given (labels written in it); --format overrides it", async () => {
    const body = { ...JSON.parse(readFileSync(join(EXAMPLES, 'shipment.json'), 'utf8')), shipment_reference: 'FILE-PDF', format: 'PDF' };
    const r = await ship(['create', '--file', '-', '-o', work, '--quiet'], { stdin: JSON.stringify(body) });
    expect(r.code, r.stderr).toBe(0);
    expect(proxy.creates().at(-1).format).toBe('PDF');
    expect(readFileSync(join(work, 'FILE-PDF_1.pdf')).subarray(0, 5).toString()).toBe('%PDF-');
    const z = await ship(['create', '--file', '-', '--format', 'ZPL', '-o', work, '--quiet'], { stdin: JSON.stringify({ ...body, shipment_reference: 'FILE-ZPL' }) });
    expect(z.code, z.stderr).toBe(0);
    expect(proxy.creates().at(-1).format).toBe('ZPL');
  });

  it('reads stdin with "-" and reports JSON field paths', async () => {
    const body = { shipment_reference: 'STDIN-1', to_address: { name: 'A', line_1: '1', city: 'B', country: 'gbr' }, parcels: [{ weight: -1 }] };
    const r = await ship(['create', '--file', '-'], { stdin: JSON.stringify(body) });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('to_address.postcode in stdin: is required');
    expect(r.stderr).toContain('to_address.country in stdin: must be a two-letter ISO 3166-1 country code');
    expect(r.stderr).toContain('parcels.0.weight in stdin: must be greater than 0');
    const bad = await ship(['create', '--file', '-'], { stdin: '{ nope' });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('stdin is not valid JSON');
    expect(proxy.requests).toEqual([]);
  });

  it('places a --file or --map that is not JSON by line and column (Node 20 says a character position at most)', async () => {
    const json = join(work, 'broken.json');
    writeFileSync(json, '{\n  "shipment_reference": "J-1",\n  "parcels": [{ "weight": 1000, }]\n}\n');
    const r = await ship(['create', '--file', json, '--dry-run']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${json} is not valid JSON`);
    expect(r.stderr).toContain('line 3, column 33: Expected double-quoted property name');
    expect(r.stderr).not.toContain('position');
    // An unexpected character, which neither Node version places.
    writeFileSync(json, '{\n  "shipment_reference": J-1\n}\n');
    expect((await ship(['create', '--file', json, '--dry-run'])).stderr).toContain("line 2, column 25: Unexpected token 'J'");

    const map = join(work, 'map.json');
    writeFileSync(map, '{\n  "Order N": "shipment_reference"\n  "Kg": "weight"\n}\n');
    const csv = join(work, 'orders.csv');
    writeFileSync(csv, 'Order N,to_name,to_line_1,to_city,to_postcode,to_country,Kg\nJ-2,Ann,1 High St,London,E1 1AA,GB,800\n');
    const m = await ship(['create', '--csv', csv, '--map', map, '--dry-run']);
    expect(m.code).toBe(2);
    expect(m.stderr).toContain(`--map ${map} is not valid JSON: line 3, column 3: Expected ',' or '}' after property value`);
    expect(proxy.requests).toEqual([]);
  });
});

describe('JSON files saved by Windows Notepad (a UTF-8 byte-order mark first)', () => {
  const BOM = '\uFEFF';
  it('--file and --map read them as they are', async () => {
    const json = join(work, 'notepad.json');
    writeFileSync(json, BOM + readFileSync(join(EXAMPLES, 'shipment.json'), 'utf8'));
    const r = await ship(['create', '--file', json, '--reference', 'BOM-1', '--dry-run', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).shipment_reference).toBe('BOM-1');
    const piped = await ship(['create', '--file', '-', '--reference', 'BOM-2', '--dry-run', '--json'], { stdin: BOM + readFileSync(join(EXAMPLES, 'shipment.json'), 'utf8') });
    expect(piped.code, piped.stderr).toBe(0);

    const map = join(work, 'map.json');
    writeFileSync(map, BOM + JSON.stringify({ 'Order N': 'shipment_reference', 'Carton Weight (g)': 'weight' }));
    const csv = join(work, 'orders.csv');
    writeFileSync(csv, 'Order N,to_name,to_line_1,to_city,to_postcode,to_country,Carton Weight (g)\nBOM-3,Ann,1 High St,London,E1 1AA,GB,800\n');
    const m = await ship(['create', '--csv', csv, '--map', map, '--dry-run', '--json']);
    expect(m.code, m.stderr).toBe(0);
    expect(JSON.parse(m.stdout).request).toMatchObject({ shipment_reference: 'BOM-3', parcels: [{ weight: 800 }] });
    expect(proxy.requests).toEqual([]);
  });

  it('a --map entry that matches no header is refused, with the header it likely meant, also under ignore_unknown', async () => {
    const map = join(work, 'map.json');
    writeFileSync(map, JSON.stringify({ columns: { 'Order N': 'shipment_reference', 'Carton Weight': 'weight' }, ignore_unknown: true }));
    const csv = join(work, 'orders.csv');
    writeFileSync(csv, 'Order N,to_name,to_line_1,to_city,to_postcode,to_country,Carton Weight (g)\nM-1,Ann,1 High St,London,E1 1AA,GB,800\n');
    const r = await ship(['create', '--csv', csv, '--map', map, '--dry-run']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--map: "Carton Weight" matches no column of the file (did you mean "Carton Weight (g)"?)');
    expect(proxy.requests).toEqual([]);
  });

  it('a --map file that gives a header twice, or two headers one column, is refused naming the map and the entries', async () => {
    const csv = join(work, 'orders.csv');
    writeFileSync(csv, 'Ref,Name,Addr,Town,Zip,Country,Kg\nM-1,Ann,1 High St,London,E1 1AA,GB,800\n');
    const map = join(work, 'map.json');
    const entries = '"Ref": "shipment_reference", "Addr": "to_line_1", "Town": "to_city", "Zip": "to_postcode", "Country": "to_country", "Kg": "weight"';
    // JSON.parse would keep the second "Name" alone: the recipient name lost without a word.
    writeFileSync(map, `{${entries}, "Name": "to_name", "Name": "to_company_name"}`);
    const twice = await ship(['create', '--csv', csv, '--map', map, '--dry-run']);
    expect(twice.code).toBe(2);
    expect(twice.stderr).toContain(`--map ${map}: "Name" is given twice (only the last would count): keep one of each`);
    writeFileSync(map, `{${entries.replace('"to_city"', '"to_line_1"')}, "Name": "to_name"}`);
    const clash = await ship(['create', '--csv', csv, '--map', map, '--dry-run']);
    expect(clash.code).toBe(2);
    expect(clash.stderr).toContain(`row 1, column Town: is the same column as "Addr" (to_line_1) by --map ${map}: map one of them to another column, or to null`);
    expect(proxy.requests).toEqual([]);
  });
});

describe('ship create --csv', () => {
  it('creates the example file, then a rerun skips every shipment without sending anything', async () => {
    const csv = join(EXAMPLES, 'orders.csv');
    const r = await ship(['create', '--csv', csv, '-o', work, '--json']);
    expect(r.code).toBe(0);
    const lines = r.stdout.trim().split('\n').map((l) => JSON.parse(l));
    expect(lines.map((l) => [l.row, l.shipment_reference, l.status])).toEqual([
      [2, 'ORD-1001', 'created'], [3, 'ORD-1002', 'created'], [5, 'ORD-1003', 'created'], [8, 'ORD-1004', 'created'],
      [10, 'ORD-1005', 'created'], [12, 'ORD-1006', 'created'], [14, 'ORD-1007', 'created'], [15, 'ORD-1008', 'created'],
      [18, 'ORD-1009', 'created'], [19, 'ORD-1010', 'created'],
    ]);
    expect(lines[1].labels).toEqual([join(work, 'ORD-1002_1.zpl'), join(work, 'ORD-1002_2.zpl')]);
    expect(lines[7].tracking_references).toHaveLength(3);
    for (const l of lines) for (const p of l.labels) expect(existsSync(p)).toBe(true);
    expect(proxy.creates()).toHaveLength(10);
    expect(proxy.creates().find((b) => b.shipment_reference === 'ORD-1004').to_address.country).toBe('DE');

    proxy.requests.length = 0;
    const again = await ship(['create', '--csv', csv, '-o', work, '--json']);
    expect(again.code).toBe(0);
    const second = again.stdout.trim().split('\n').map((l) => JSON.parse(l));
    expect(second.map((l) => l.status)).toEqual(Array(10).fill('skipped'));
    expect(second[1].tracking_references).toEqual(lines[1].tracking_references);
    expect(proxy.creates()).toEqual([]);
  });

  it('keeps one journal per API; against another URL a duplicate reference is recognised and settled, not failed', async () => {
    const csv = join(work, 'dup.csv');
    writeFileSync(csv, 'shipment_reference,to_name,to_line_1,to_city,to_postcode,to_country,weight\nDUPB-1,Ann,1 St,London,E1 1AA,GB,100\nDUPB-1,,,,,,200\n');
    const first = await ship(['create', '--csv', csv, '-o', join(work, 'l'), '--json']);
    expect(first.code).toBe(0);
    const created = JSON.parse(first.stdout.trim());
    // Same server, another base URL (no proxy): a fresh journal, so the shipment is sent again…
    const r = await runShip(['create', '--csv', csv, '-o', join(work, 'l2'), '--json'], { env: { ...env, SHIP_BASE_URL: sb.baseUrl } });
    expect(r.code).toBe(0);
    const line = JSON.parse(r.stdout.trim());
    // …and the API's "already been taken" answer is settled via GET /shipments/:ref/events, labels fetched.
    expect(line).toMatchObject({ shipment_reference: 'DUPB-1', status: 'skipped', reason: 'already exists' });
    // Nothing tells whether it is this row's shipment (a reference used before for another order?): said once.
    // Under --json the warning is a JSON line like every other line of stderr.
    const talk = r.stderr.trimEnd().split('\n').map((l) => JSON.parse(l));
    const warning = talk.find((l) => l.warning?.message.includes('already on the service'))?.warning.message;
    expect(warning).toContain("1 shipment reference was already on the service, not created by this run's journal: DUPB-1.");
    expect(warning).toContain(`their existing labels were fetched into ${join(work, 'l2')}`);
    expect(warning).toContain('give the row a new reference');
    expect([...line.tracking_references].sort()).toEqual([...created.tracking_references].sort());
    expect(line.labels).toHaveLength(2);
    for (const p of line.labels) expect(readFileSync(p, 'utf8')).toMatch(/\^XA/);
    expect(readdirSync(join(work, 'l2')).filter((f) => f.startsWith('.ship-journal-'))).toHaveLength(1);
    expect(readdirSync(join(work, 'l')).filter((f) => f.startsWith('.ship-journal-') && f.endsWith('.jsonl'))).toHaveLength(1);
  });

  it('a rerun after the rows changed still skips what was created, and says it changed', async () => {
    const csv = join(work, 'change.csv');
    writeFileSync(csv, 'shipment_reference,to_name,to_line_1,to_city,to_postcode,to_country,weight\nCHG-1,Ann,1 St,London,E1 1AA,GB,100\n');
    expect((await ship(['create', '--csv', csv, '-o', join(work, 'l'), '--json'])).code).toBe(0);
    writeFileSync(csv, 'shipment_reference,to_name,to_line_1,to_city,to_postcode,to_country,weight\nCHG-1,Ann,1 St,London,E1 1AA,GB,900\nCHG-2,Bob,2 St,Leeds,LS1 1AA,GB,200\n');
    proxy.requests.length = 0;
    const r = await ship(['create', '--csv', csv, '-o', join(work, 'l'), '--json']);
    expect(r.code).toBe(0);
    const lines = r.stdout.trim().split('\n').map((l) => JSON.parse(l));
    expect(lines.map((l) => [l.shipment_reference, l.status, l.changed ?? false])).toEqual([['CHG-1', 'skipped', true], ['CHG-2', 'created', false]]);
    expect(r.stderr).toContain('CHG-1 was created by an earlier run from different values');
    expect(proxy.creates().map((b) => b.shipment_reference)).toEqual(['CHG-2']);
  });

  it('a row edited after an attempt whose outcome was never journaled: found on the service, and said to have changed', async () => {
    const csv = join(work, 'change2.csv');
    const header = 'shipment_reference,to_name,to_line_1,to_city,to_postcode,to_country,weight\n';
    writeFileSync(csv, `${header}CHS-1,Ann,1 St,London,E1 1AA,GB,100\n`);
    expect((await ship(['create', '--csv', csv, '-o', join(work, 'l'), '--json'])).code).toBe(0);
    // As after a kill between the POST and its "done" record.
    const journal = readdirSync(join(work, 'l')).find((f) => f.startsWith('.ship-journal-change2') && f.endsWith('.jsonl'))!;
    const jpath = join(work, 'l', journal);
    writeFileSync(jpath, readFileSync(jpath, 'utf8').split('\n').filter((l) => !l.includes('"s":"done"')).join('\n'));
    writeFileSync(csv, `${header}CHS-1,Ann,1 St,London,E1 1AA,GB,900\n`);
    for (let run = 0; run < 2; run++) {
      const r = await ship(['create', '--csv', csv, '-o', join(work, 'l'), '--json']);
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout.trim())).toMatchObject({ shipment_reference: 'CHS-1', status: 'skipped', changed: true });
      expect(r.stderr).toContain('CHS-1 was created by an earlier run from different values');
      expect(r.stderr).toContain('`ship cancel CHS-1`, then create it from a file or flags of its own');
    }
  });

  it('a reference given again after its shipment was cancelled: an unknown outcome is settled by sending again, so the row gets a live shipment, once', async () => {
    const csv = join(work, 'reuse.csv');
    const rows = (w: number) => `shipment_reference,to_name,to_line_1,to_city,to_postcode,to_country,weight\nREUSE-B,Ann,1 St,London,E1 1AA,GB,${w}\nREUSE-C,Bob,2 St,Leeds,LS1 1AA,GB,${w}\n`;
    writeFileSync(csv, rows(100));
    const first = await ship(['create', '--csv', csv, '-o', join(work, 'a'), '--json']);
    expect(first.code, first.stderr).toBe(0);
    const oldTracking = first.stdout.trim().split('\n').slice(0, 2).map((l) => JSON.parse(l).tracking_reference as string);
    // To change shipments, cancel them and create them again with the same references (api-notes).
    expect((await ship(['cancel', 'REUSE-B', 'REUSE-C', '--yes'])).code).toBe(0);
    writeFileSync(csv, rows(200));
    proxy.requests.length = 0;
    // REUSE-B's first POST is answered 503 (nothing created, outcome unknown); REUSE-C goes through as usual.
    proxy.failNextCreates = 1;
    const r = await ship(['create', '--csv', csv, '-o', join(work, 'b'), '--json', '--concurrency', '1']);
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trim().split('\n').slice(0, 2).map((l) => JSON.parse(l));
    expect(lines.map((l) => [l.shipment_reference, l.status])).toEqual([['REUSE-B', 'created'], ['REUSE-C', 'created']]);
    for (const [i, l] of lines.entries()) expect(l.tracking_reference).not.toBe(oldTracking[i]);
    // Created once each in this run (a look-up would have found the cancelled REUSE-B and sent nothing).
    expect(proxy.created().map((b) => [b.shipment_reference, b.parcels[0].weight])).toEqual([['REUSE-B', 200], ['REUSE-C', 200]]);
    const cancel = await ship(['cancel', 'REUSE-B', 'REUSE-C', '--yes', '--json']);
    expect(cancel.stdout.trim().split('\n').slice(0, 2).map((l) => JSON.parse(l).message)).toEqual(['Shipment Cancelled', 'Shipment Cancelled']);
  });

  it('a reused reference whose send had an unknown outcome, its row then edited: the rerun creates it from the new values, not reports the cancelled one', async () => {
    const csv = join(work, 'edited.csv');
    const rows = (w: number) => `shipment_reference,to_name,to_line_1,to_city,to_postcode,to_country,weight\nEDIT-1,Ann,1 St,London,E1 1AA,GB,${w}\n`;
    writeFileSync(csv, rows(100));
    expect((await ship(['create', '--csv', csv, '-o', join(work, 'a'), '--json'])).code).toBe(0);
    expect((await ship(['cancel', 'EDIT-1', '--yes'])).code).toBe(0);
    // Every POST answered 503: the run ends with EDIT-1's outcome unknown.
    proxy.failNextCreates = 20;
    const failed = await ship(['create', '--csv', csv, '-o', join(work, 'b'), '--json']);
    proxy.failNextCreates = 0;
    expect(failed.code).not.toBe(0);
    writeFileSync(csv, rows(300));
    proxy.requests.length = 0;
    const r = await ship(['create', '--csv', csv, '-o', join(work, 'b'), '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout.trim().split('\n')[0])).toMatchObject({ shipment_reference: 'EDIT-1', status: 'created' });
    expect(proxy.created().map((b) => [b.shipment_reference, b.parcels[0].weight])).toEqual([['EDIT-1', 300]]);
  });

  it('a killed run\'s shipment is found through the duplicate refusal on the rerun: sent again, refused, reported as the earlier run\'s', async () => {
    const csv = join(work, 'lost.csv');
    writeFileSync(csv, 'shipment_reference,to_name,to_line_1,to_city,to_postcode,to_country,weight\nLOSTB-1,Ann,1 St,London,E1 1AA,GB,100\n');
    const dir = join(work, 'lost');
    const first = await ship(['create', '--csv', csv, '-o', dir, '--json']);
    expect(first.code, first.stderr).toBe(0);
    const tracking = JSON.parse(first.stdout.trim().split('\n')[0]).tracking_reference as string;
    // As a run killed after sending leaves its journal: "sending", and no outcome.
    const journal = join(dir, readdirSync(dir).find((f) => f.startsWith('.ship-journal'))!);
    writeFileSync(journal, JSON.stringify({ k: 'LOSTB-1', s: 'sending', t: new Date().toISOString(), a: 1 }) + '\n');
    proxy.requests.length = 0;
    const r = await ship(['create', '--csv', csv, '-o', dir, '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout.trim().split('\n')[0])).toMatchObject({ shipment_reference: 'LOSTB-1', status: 'skipped', tracking_reference: tracking });
    expect(r.stdout).not.toContain('already exist');
    expect(proxy.creates().map((b) => b.shipment_reference)).toEqual(['LOSTB-1']); // sent again…
    expect(proxy.created()).toEqual([]); // …and refused as a duplicate
    expect(readFileSync(join(dir, 'LOSTB-1_1.zpl'), 'utf8')).toMatch(/\^XA/);
  });

  it('a shipment found on a rerun whose label cannot be written stays unsettled: exit 3 until the label is on disk', async () => {
    const csv = join(work, 'lw.csv');
    writeFileSync(csv, 'shipment_reference,to_name,to_line_1,to_city,to_postcode,to_country,weight\nLW-1,Ann,1 St,London,E1 1AA,GB,100\nLW-2,Bob,2 St,Leeds,LS1 1AA,GB,100\n');
    const dir = join(work, 'lw');
    const { mkdirSync, rmdirSync, existsSync } = await import('node:fs');
    mkdirSync(join(dir, 'LW-2_1.zpl'), { recursive: true }); // a directory where the label file should go
    const first = await ship(['create', '--csv', csv, '-o', dir, '--json']);
    expect(first.code).toBe(3);
    const again = await ship(['create', '--csv', csv, '-o', dir, '--json']);
    expect(again.code, 'the label is still not on disk').toBe(3);
    const lw2 = again.stdout.trim().split('\n').map((l) => JSON.parse(l)).find((l) => l.shipment_reference === 'LW-2');
    expect(lw2).toMatchObject({ status: 'failed', tracking_references: [expect.any(String)] });
    rmdirSync(join(dir, 'LW-2_1.zpl'));
    const last = await ship(['create', '--csv', csv, '-o', dir, '--json']);
    expect(last.code, last.stderr).toBe(0);
    expect(existsSync(join(dir, 'LW-2_1.zpl'))).toBe(true);
    expect(readFileSync(join(dir, 'LW-2_1.zpl'), 'utf8')).toMatch(/\^XA/);
    expect(proxy.creates().filter((b) => b.shipment_reference === 'LW-2')).toHaveLength(1);
  });

  it('writes FILE.failed.csv and --results, and exits 3 when some fail', async () => {
    const csv = join(work, 'mixed.csv');
    writeFileSync(
      csv,
      [
        'shipment_reference,to_name,to_line_1,to_city,to_postcode,to_country,weight,delivery_service_key',
        'MIX-1,Ann,1 High St,London,E1 1AA,GB,1000,RM_TRACKED_48',
        'MIX-2,Bob,2 High St,Leeds,LS1 1AA,GB,5000,RM_TRACKED_48', // too heavy for that service: refused by the API
        'MIX-3,Cy,3 High St,York,YO1 1AA,GB,900,',
        'MIX-3,,,,,,800,',
      ].join('\n') + '\n',
    );
    const r = await ship(['create', '--csv', csv, '-o', join(work, 'labels'), '--results', join(work, 'results.csv'), '--json']);
    expect(r.code).toBe(3);
    const lines = r.stdout.trim().split('\n').map((l) => JSON.parse(l));
    expect(lines.map((l) => [l.shipment_reference, l.status])).toEqual([['MIX-1', 'created'], ['MIX-2', 'failed'], ['MIX-3', 'created']]);
    expect(lines[1].fields).toHaveProperty('delivery_service_key');
    // The --json summary names both files, as skus import's does (from stdin the failed rows go to stdin.failed.csv).
    const summary = JSON.parse(r.stderr.trim().split('\n').find((l) => l.includes('"summary"'))!).summary;
    expect(summary).toMatchObject({ failed: 1, failed_csv: join(work, 'mixed.failed.csv'), results_csv: join(work, 'results.csv') });
    const failed = readFileSync(join(work, 'mixed.failed.csv'), 'utf8').trim().split('\n');
    expect(failed[0]).toBe('shipment_reference,to_name,to_line_1,to_city,to_postcode,to_country,weight,delivery_service_key,error');
    expect(failed).toHaveLength(2);
    // The API's field message, told in the file's terms.
    expect(failed[1]).toMatch(/^MIX-2,Bob,2 High St,Leeds,LS1 1AA,GB,5000,RM_TRACKED_48,"row 3, column delivery_service_key: .*cannot carry/);
    expect(lines[1].error).toMatch(/^row 3, column delivery_service_key: /);
    const results = readFileSync(join(work, 'results.csv'), 'utf8').trim().split('\n').map((l) => l.split(','));
    expect(results[0].slice(-5)).toEqual(['status', 'id', 'tracking_reference', 'label_paths', 'error']);
    expect(results.slice(1).map((c) => [c[0], c[8]])).toEqual([['MIX-1', 'created'], ['MIX-2', 'failed'], ['MIX-3', 'created'], ['MIX-3', 'created']]);
    // Each row of a multi-parcel shipment carries its own parcel's tracking reference and label.
    expect(results[3][10]).toBe(lines[2].tracking_references[0]);
    expect(results[4][10]).toBe(lines[2].tracking_references[1]);
    expect(results[4][11]).toBe(join(work, 'labels', 'MIX-3_2.zpl'));

    // Fix the failed file and run it as it is (its `error` column is ignored).
    const failedPath = join(work, 'mixed.failed.csv');
    writeFileSync(failedPath, readFileSync(failedPath, 'utf8').replace(',5000,RM_TRACKED_48', ',1000,RM_TRACKED_48'));
    proxy.requests.length = 0;
    const fixed = await ship(['create', '--csv', failedPath, '-o', join(work, 'labels'), '--json']);
    expect(fixed.code).toBe(0);
    expect(fixed.stdout.trim().split('\n').map((l) => JSON.parse(l).status)).toEqual(['created']);
    expect(proxy.creates().map((b) => [b.shipment_reference, b.delivery_service_key])).toEqual([['MIX-2', 'RM_TRACKED_48']]);
  });

  it('FILE.failed.csv and --results are laid out as the input was: its delimiter and its sep= line (a European spreadsheet\'s file)', async () => {
    const csv = join(work, 'semi.csv');
    writeFileSync(
      csv,
      [
        'sep=;',
        'shipment_reference;to_name;to_line_1;to_city;to_postcode;to_country;weight;delivery_service_key',
        'SEMI-1;Ann;1 High St, Flat 2;London;E1 1AA;GB;1000;RM_TRACKED_48',
        'SEMI-2;Bob;2 High St;Leeds;LS1 1AA;GB;5000;RM_TRACKED_48',
      ].join('\r\n') + '\r\n',
    );
    const results = join(work, 'semi-results.csv');
    const r = await ship(['create', '--csv', csv, '-o', join(work, 'labels'), '--results', results, '--json']);
    expect(r.code, r.stderr).toBe(3);
    const failed = readFileSync(join(work, 'semi.failed.csv'), 'utf8').split('\n');
    expect(failed.slice(0, 2)).toEqual(['sep=;', 'shipment_reference;to_name;to_line_1;to_city;to_postcode;to_country;weight;delivery_service_key;error']);
    expect(failed[2]).toMatch(/^SEMI-2;Bob;2 High St;Leeds;LS1 1AA;GB;5000;RM_TRACKED_48;"?row 3, column delivery_service_key: /);
    const res = readFileSync(results, 'utf8').split('\n');
    expect(res[0]).toBe('sep=;');
    // A cell holding the delimiter's neighbour (a comma) needs no quotes; the label paths are joined with ';', so quoted.
    expect(res[2]).toMatch(/^SEMI-1;Ann;1 High St, Flat 2;London;E1 1AA;GB;1000;RM_TRACKED_48;created;/);
    // The failed rows' file, fixed, is read back as it is.
    writeFileSync(join(work, 'semi.failed.csv'), readFileSync(join(work, 'semi.failed.csv'), 'utf8').replace(';5000;', ';1000;'));
    const fixed = await ship(['create', '--csv', join(work, 'semi.failed.csv'), '-o', join(work, 'labels'), '--json']);
    expect(fixed.code, fixed.stderr).toBe(0);
    expect(JSON.parse(fixed.stdout)).toMatchObject({ row: 2, shipment_reference: 'SEMI-2', status: 'created' });
  });

  it('a journal of the same file in another account at this URL (another API key) does not skip its rows', async () => {
    const { journalPathFor } = await import('../../../src/bulk/journal.js');
    const csv = join(work, 'accounts.csv');
    writeFileSync(csv, 'shipment_reference,to_name,to_line_1,to_city,to_postcode,to_country,weight\nACC-1,Ann,1 High St,London,E1 1AA,GB,1000\n');
    const dir = join(work, 'labels-acc');
    mkdirSync(dir);
    // Another account's run of this file created ACC-1 there: not in this account.
    const elsewhere = journalPathFor(dir, csv, { baseUrl: env.SHIP_BASE_URL, apiKey: 'another-account-key' });
    writeFileSync(elsewhere, JSON.stringify({ k: 'ACC-1', s: 'done', t: '2026-11-27T00:00:00.000Z', r: { shipment_reference: 'ACC-1', tracking_references: ['X'], labels: [] } }) + '\n');
    const r = await ship(['create', '--csv', csv, '-o', dir, '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).status).toBe('created');
    // This account's own journal, which the next run resumes from.
    expect(existsSync(journalPathFor(dir, csv, { baseUrl: env.SHIP_BASE_URL, apiKey: env.SHIP_API_KEY }))).toBe(true);
    const again = await ship(['create', '--csv', csv, '-o', dir, '--json']);
    expect(JSON.parse(again.stdout)).toMatchObject({ status: 'skipped', reason: 'created by an earlier run' });
  });

  it('refuses --results naming the input file (or its failed rows\' file), which it would overwrite, before sending', async () => {
    const csv = join(work, 'own-results.csv');
    const text = 'shipment_reference,to_name,to_line_1,to_city,to_postcode,to_country,weight\nOR-1,Ann,1 High St,London,E1 1AA,GB,1000\n';
    writeFileSync(csv, text);
    proxy.requests.length = 0;
    for (const results of [csv, join(work, '.', 'own-results.failed.csv')]) {
      const r = await ship(['create', '--csv', csv, '-o', join(work, 'labels'), '--results', results, '--json']);
      expect(r.code).toBe(2);
      expect(JSON.parse(r.stderr.trim().split('\n').at(-1)!).error.message).toMatch(/^--results .* is (the input file|the failed rows' file) .*: it would be overwritten$/);
    }
    expect(readFileSync(csv, 'utf8')).toBe(text);
    expect(proxy.requests).toEqual([]);
  });

  it('refuses --merge naming the input file, the request file or the --results file, which it would overwrite, before sending', async () => {
    const csv = join(work, 'own-merge.csv');
    const text = 'shipment_reference,to_name,to_line_1,to_city,to_postcode,to_country,weight\nOM-1,Ann,1 High St,London,E1 1AA,GB,1000\n';
    writeFileSync(csv, text);
    const body = join(work, 'own-merge.json');
    const bodyText = readFileSync(join(EXAMPLES, 'shipment.json'), 'utf8');
    writeFileSync(body, bodyText);
    proxy.requests.length = 0;
    const refused = async (args: string[], message: RegExp) => {
      const r = await ship([...args, '-o', join(work, 'labels'), '--format', 'PDF', '--json']);
      expect(r.code, r.stderr).toBe(2);
      expect(JSON.parse(r.stderr.trim().split('\n').at(-1)!).error.message).toMatch(message);
    };
    await refused(['create', '--csv', csv, '--merge', csv], /^--merge .*own-merge\.csv is the input file \(--csv .*\): it would be overwritten$/);
    await refused(['create', '--csv', csv, '--merge', join(work, 'own-merge.failed.csv')], /^--merge .* is the failed rows' file .*: it would be overwritten$/);
    await refused(['create', '--csv', csv, '--merge', join(work, 'out.pdf'), '--results', join(work, '.', 'out.pdf')], /^--results and --merge name the same file/);
    await refused(['create', '--file', body, '--merge', body], /^--merge .*own-merge\.json is the input file \(--file .*\): it would be overwritten$/);
    expect(readFileSync(csv, 'utf8')).toBe(text);
    expect(readFileSync(body, 'utf8')).toBe(bodyText);
    expect(proxy.requests.filter((q) => q.method === 'POST')).toEqual([]);
  });

  it('refuses the whole file, sending no shipment, when a custom field value breaks the account\'s rules (exit 2)', async () => {
    const csv = join(work, 'custom.csv');
    writeFileSync(
      csv,
      [
        'shipment_reference,to_name,to_line_1,to_city,to_postcode,to_country,weight,custom_fields.gift_message,custom_fields.priority',
        `CFR-1,Ann,1 High St,London,E1 1AA,GB,1000,${'g'.repeat(101)},standard`,
        'CFR-2,Bob,2 High St,Leeds,LS1 1AA,GB,1000,hi,bogus',
        'CFR-3,Cy,3 High St,York,YO1 1AA,GB,900,hi,express',
      ].join('\n') + '\n',
    );
    proxy.requests.length = 0;
    const r = await ship(['create', '--csv', csv, '-o', join(work, 'labels'), '--json']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(JSON.parse(r.stderr.trim().split('\n').at(-1)!).error.problems).toEqual([
      { row: 2, column: 'custom_fields.gift_message', message: '101 characters; custom field gift_message takes at most 100' },
      { row: 3, column: 'custom_fields.priority', message: '"bogus" is not one of the choices of custom field priority: standard, express, overnight' },
    ]);
    expect(proxy.creates()).toEqual([]);
  });

  it('refuses unknown custom field keys and values that are not Booleans before sending, in a dry run too', async () => {
    const csv = join(work, 'custom-keys.csv');
    writeFileSync(
      csv,
      [
        'shipment_reference,to_name,to_line_1,to_city,to_postcode,to_country,weight,custom_fields.Gift Message,custom_fields.fragile,parcel_custom_fields.fragile,custom_fields.gift_mesage',
        'CFK-1,Ann,1 High St,London,E1 1AA,GB,1000,hi,,yes,',
        'CFK-2,Bob,2 High St,Leeds,LS1 1AA,GB,1000,,true,maybe,thanks',
      ].join('\n') + '\n',
    );
    const expected = [
      { row: 2, column: 'custom_fields.Gift Message', message: 'the account has no SHIPMENT custom field with the key "Gift Message" (keys are matched exactly: name the column custom_fields.gift_message)' },
      { row: 3, column: 'custom_fields.fragile', message: 'the account has no SHIPMENT custom field with the key "fragile"; fragile is a PARCEL custom field: name the column parcel_custom_fields.fragile' },
      { row: 3, column: 'parcel_custom_fields.fragile', message: 'custom field fragile takes true or false (or yes/no, 1/0), not "maybe"' },
      { row: 3, column: 'custom_fields.gift_mesage', message: expect.stringMatching(/^the account has no SHIPMENT custom field with the key "gift_mesage" \(its SHIPMENT fields: gift_message, priority, channel/) },
    ];
    proxy.requests.length = 0;
    const dry = await ship(['create', '--csv', csv, '--dry-run', '--json']);
    expect(dry.code).toBe(2);
    expect(dry.stdout).toBe('');
    expect(JSON.parse(dry.stderr.trim().split('\n').at(-1)!).error.problems).toEqual(expected);
    const r = await ship(['create', '--csv', csv, '-o', join(work, 'labels'), '--json']);
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stderr.trim().split('\n').at(-1)!).error.problems).toEqual(expected);
    expect(proxy.creates()).toEqual([]);
    // A dry run that cannot read the account's fields (not logged in) validates the rest and says what it could not check.
    const offline = await runShip(['create', '--csv', csv, '--dry-run'], { env: { ...env, SHIP_TOKEN: '', SHIP_CONFIG_DIR: mkdtempSync(join(tmpdir(), 'ship-cfg-cfk-')) } });
    expect(offline.code, offline.stderr).toBe(0);
    expect(offline.stderr).toMatch(/custom fields not checked against the account, which could not be read \(not logged in/);
    // So does one whose file has problems of its own (it used to list those alone, a misspelt key unmentioned).
    const broken = join(work, 'custom-fields-broken.csv');
    writeFileSync(broken, 'shipment_reference,to_name,to_line_1,to_city,to_postcode,to_country,weight,delivery_service_key\nCB-1,Ann,1 St,London,E1 1AA,GB,heavy,RM_TRACKD_48\n');
    const offlineBroken = await runShip(['create', '--csv', broken, '--dry-run'], { env: { ...env, SHIP_TOKEN: '', SHIP_CONFIG_DIR: mkdtempSync(join(tmpdir(), 'ship-cfg-cfk-')) } });
    expect(offlineBroken.code, offlineBroken.stderr).toBe(2);
    expect(offlineBroken.stderr).toMatch(/row 2, column weight/);
    expect(offlineBroken.stderr).toMatch(/delivery service keys not checked against the account, which could not be read \(not logged in/);
  });

  it('refuses delivery services, packaging types and brands the account does not have before sending, with a "did you mean"', async () => {
    const csv = join(work, 'account-refs.csv');
    writeFileSync(
      csv,
      [
        'shipment_reference,to_name,to_line_1,to_city,to_postcode,to_country,weight,delivery_service_key,parcel_reference,packaging_type_key,brand',
        'AR-1,Ann,1 High St,London,E1 1AA,GB,1000,RM_TRACKED_84,P1,SMALL_BOX,SANDBOX',
        'AR-1,,,,,,500,,P2,BOXX,',
        'AR-2,Bob,2 High St,Leeds,LS1 1AA,GB,1000,RM_TRACKED_48,,,NOPE',
      ].join('\n') + '\n',
    );
    const expected = [
      { row: 2, column: 'delivery_service_key', message: '"RM_TRACKED_84" is not a delivery service of the account (did you mean RM_TRACKED_48 or RM_TRACKED_24?); `ship services` lists them' },
      { row: 3, column: 'packaging_type_key', message: '"BOXX" is not a packaging type of the account; `ship packaging` lists them' },
      { row: 4, column: 'brand', message: '"NOPE" is not a brand of the account (its key or ID); `ship brands` lists them' },
    ];
    proxy.requests.length = 0;
    for (const extra of [['--dry-run'], ['-o', join(work, 'labels')]]) {
      const r = await ship(['create', '--csv', csv, ...extra, '--json']);
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      const err = JSON.parse(r.stderr.trim().split('\n').at(-1)!).error;
      expect(err.message).toBe(`${csv}: 3 values the service would refuse; nothing was sent`);
      expect(err.problems).toEqual(expected);
    }
    expect(proxy.creates()).toEqual([]);
    // A brand given by its ID is the brand.
    const brands = await ship(['brands', '--json']);
    const id = (JSON.parse(brands.stdout) as Array<{ key: string; id: string }>).find((b) => b.key === 'SANDBOX')!.id;
    writeFileSync(csv, readFileSync(csv, 'utf8').replace('RM_TRACKED_84', 'RM_TRACKED_48').replace('BOXX', 'MEDIUM_BOX').replace('NOPE', id));
    const fixed = await ship(['create', '--csv', csv, '--dry-run', '--json']);
    expect(fixed.code, fixed.stderr).toBe(0);
  });

  it("reports the file's own problems and the account's together, in one run (not the account's only once the others are fixed)", async () => {
    const csv = join(work, 'both-kinds.csv');
    writeFileSync(
      csv,
      [
        'shipment_reference,to_name,to_line_1,to_city,to_postcode,to_country,weight,delivery_service_key,custom_fields.gift_mesage',
        'BK-1,Ann,1 High St,London,,GB,1000,RM_TRACKED_48,',
        'BK-2,Bob,2 High St,Leeds,LS1 1AA,GB,1000,RM_TRACKED_84,',
        'BK-3,Cat,3 High St,York,YO1 1AA,GB,1000,RM_TRACKED_48,thanks',
        'BK-4,Dan,4 High St,York,YO1 1AA,GB,-5,RM_TRACKED_84,',
      ].join('\n') + '\n',
    );
    proxy.requests.length = 0;
    // A dry run (which keeps no bodies, and reads the file again for the check) and a real run alike.
    for (const extra of [['--dry-run'], ['-o', join(work, 'labels-both')]]) {
      const r = await ship(['create', '--csv', csv, ...extra, '--json']);
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      const err = JSON.parse(r.stderr.trim().split('\n').at(-1)!).error;
      expect(err.message).toBe(`${csv}: 5 problems in 4 rows; nothing was sent`);
      // BK-4's service is checked too, though its shipment has a problem of its own: one round of fixes.
      expect(err.problems.map((p: { row: number; column: string; message: string }) => [p.row, p.column, p.message.slice(0, 40)])).toEqual([
        [2, 'to_postcode', 'is required'],
        [3, 'delivery_service_key', '"RM_TRACKED_84" is not a delivery servic'],
        [4, 'custom_fields.gift_mesage', 'the account has no SHIPMENT custom field'],
        [5, 'weight', expect.any(String)],
        [5, 'delivery_service_key', '"RM_TRACKED_84" is not a delivery servic'],
      ]);
      expect(err.hint).toMatch(/each value refused names the command/);
    }
    expect(proxy.creates()).toEqual([]);
    // When the account cannot be read, the file's own problems are said as before.
    const offline = await runShip(['create', '--csv', csv, '--dry-run', '--json'], { env: { ...env, SHIP_TOKEN: '', SHIP_CONFIG_DIR: mkdtempSync(join(tmpdir(), 'ship-cfg-bk-')) } });
    expect(offline.code).toBe(2);
    expect(JSON.parse(offline.stderr.trim().split('\n').at(-1)!).error.problems.map((p: { row: number }) => p.row)).toEqual([2, 5]);
  });

  it('a cell the file\'s own check refused is said once, not again by the account check (a service key with a caret)', async () => {
    const csv = join(work, 'caret-service.csv');
    writeFileSync(csv, 'shipment_reference,to_name,to_line_1,to_city,to_postcode,to_country,weight,delivery_service_key\nCS-1,Ann,1 High St,London,E1 1AA,GB,1000,RM^48\nCS-2,Bob,2 High St,Leeds,,GB,1000,RM_TRACKED_84\n');
    const r = await ship(['create', '--csv', csv, '--dry-run', '--json']);
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stderr.trim().split('\n').at(-1)!).error.problems.map((p: { row: number; column: string }) => [p.row, p.column])).toEqual([
      [2, 'delivery_service_key'],
      [3, 'to_postcode'],
      [3, 'delivery_service_key'],
    ]);
  });

  it('checks only what a rerun will send against the custom field rules: a shipment created earlier is skipped, not refused', async () => {
    const defined = await ship(['custom-fields', 'create', '--name', 'Dock note', '--key', 'dock_note', '--entity', 'SHIPMENT', '--data-type', 'TEXT', '--source', 'DIRECT', '--max-length', '20']);
    expect(defined.code, defined.stderr).toBe(0);
    const csv = join(work, 'custom-rerun.csv');
    const dir = join(work, 'labels-cf-rerun');
    writeFileSync(
      csv,
      [
        'shipment_reference,to_name,to_line_1,to_city,to_postcode,to_country,weight,delivery_service_key,custom_fields.dock_note',
        'CFX-1,Ann,1 High St,London,E1 1AA,GB,1000,RM_TRACKED_48,gate 2',
        'CFX-2,Bob,2 High St,Leeds,LS1 1AA,GB,5000,RM_TRACKED_48,short',
      ].join('\n') + '\n',
    );
    const first = await ship(['create', '--csv', csv, '-o', dir, '--json']);
    expect(first.code, first.stderr).toBe(3); // CFX-1 created, CFX-2 refused by the API (its service)
    // Fixing CFX-2, the user also spoils CFX-1's note, which an earlier run already sent: CFX-1 is skipped (with
    // a warning that its rows changed), so its value is not the run's problem.
    writeFileSync(csv, readFileSync(csv, 'utf8').replace(',5000,RM_TRACKED_48', ',1000,RM_TRACKED_48').replace('gate 2', 'n'.repeat(30)));
    proxy.requests.length = 0;
    const rerun = await ship(['create', '--csv', csv, '-o', dir, '--json']);
    expect(rerun.code, rerun.stderr).toBe(0);
    expect(rerun.stdout.trim().split('\n').map((l) => JSON.parse(l).status)).toEqual(['skipped', 'created']);
    expect(proxy.creates().map((b) => b.shipment_reference)).toEqual(['CFX-2']);
    // A row still to be sent is checked as before.
    writeFileSync(csv, readFileSync(csv, 'utf8').replace(',short', `,${'s'.repeat(21)}`).replace('CFX-2', 'CFX-3'));
    const third = await ship(['create', '--csv', csv, '-o', dir, '--json']);
    expect(third.code).toBe(2);
    expect(JSON.parse(third.stderr.trim().split('\n').at(-1)!).error.problems).toEqual([
      { row: 3, column: 'custom_fields.dock_note', message: '21 characters; custom field dock_note takes at most 20' },
    ]);
    // With a problem of the file's own as well, the list has both (the note of the row with that problem too),
    // and still not CFX-1's note (created earlier).
    writeFileSync(csv, readFileSync(csv, 'utf8').replace('LS1 1AA', ''));
    const fourth = await ship(['create', '--csv', csv, '-o', dir, '--json']);
    expect(fourth.code).toBe(2);
    expect(JSON.parse(fourth.stderr.trim().split('\n').at(-1)!).error.problems.map((p: { row: number; column: string }) => [p.row, p.column])).toEqual([
      [3, 'to_postcode'],
      [3, 'custom_fields.dock_note'],
    ]);
  });

  it('stops at a full disk for the labels instead of creating shipments without them; a rerun finishes, each once', async () => {
    const csv = join(work, 'disk-full.csv');
    const dir = join(work, 'labels-full');
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      csv,
      ['shipment_reference,to_name,to_line_1,to_city,to_postcode,to_country,weight', ...[1, 2, 3, 4, 5, 6].map((i) => `DF-${i},Ann,${i} High St,London,E1 1AA,GB,1000`)].join('\n') + '\n',
    );
    // Writing DF-2's label file fails with ENOSPC, as on a disk with no room left.
    fullDisk.add('DF-2_1.zpl');
    proxy.requests.length = 0;
    const r = await ship(['create', '--csv', csv, '-o', dir, '--json', '--concurrency', '1']);
    expect(r.code, r.stderr).toBe(1);
    // A request is let go once its answer is in, its labels written with the next batch: the one or two that
    // left before DF-2's write failed finish (their labels kept, or fetched again by the rerun), no more.
    const firstRun = proxy.creates().map((b) => b.shipment_reference);
    expect(firstRun.slice(0, 2)).toEqual(['DF-1', 'DF-2']);
    expect(firstRun.length).toBeLessThanOrEqual(4);
    const summary = JSON.parse(r.stderr.trim().split('\n').find((l) => l.includes('"summary"'))!).summary;
    expect(summary).toMatchObject({ failed: 1, stopped: 'local_error', not_started: 6 - firstRun.length });
    expect(summary.created).toBe(firstRun.length - 1);
    const error = JSON.parse(r.stderr.trim().split('\n').at(-1)!).error;
    expect(error.message).toBe(`the disk of ${dir} is full (ENOSPC): labels cannot be written, so no more shipments are created`);
    expect(error.hint).toMatch(/rerun the same command/);
    fullDisk.delete('DF-2_1.zpl');
    proxy.requests.length = 0;
    const again = await ship(['create', '--csv', csv, '-o', dir, '--json', '--concurrency', '1']);
    expect(again.code, again.stderr).toBe(0);
    expect(proxy.creates().map((b) => b.shipment_reference)).toEqual(['DF-3', 'DF-4', 'DF-5', 'DF-6'].filter((ref) => !firstRun.includes(ref)));
    for (let i = 1; i <= 6; i++) expect(readFileSync(join(dir, `DF-${i}_1.zpl`), 'utf8')).toMatch(/\^XA/);
  });

  it('with --printer, a shipment whose label file could not be written is owed to the printer: listed, and printed by the rerun that writes it', async () => {
    const csv = join(work, 'lw.csv');
    const dir = join(work, 'labels-lw');
    writeFileSync(csv, 'shipment_reference,to_name,to_line_1,to_city,to_postcode,to_country,weight\nOWED-1,Ann,1 St,London,E1 1AA,GB,100\nOWED-2,Bob,2 St,Leeds,LS1 1AA,GB,100\n');
    const received: Buffer[] = [];
    const printer: Server = createServer((sock) => sock.on('data', (d: Buffer) => received.push(d)));
    await new Promise<void>((res) => printer.listen(0, '127.0.0.1', res));
    const args = ['create', '--csv', csv, '-o', dir, '--printer', `tcp://127.0.0.1:${(printer.address() as AddressInfo).port}`, '--no-preflight', '--concurrency', '1'];
    fullDisk.add('OWED-2_1.zpl');
    try {
      const r = await ship(args);
      expect(r.code, r.stderr + r.stdout).not.toBe(0);
      const list = join(work, 'lw.unprinted.txt');
      expect(readFileSync(list, 'utf8')).toBe('OWED-2\n');
      await vi.waitFor(() => expect(Buffer.concat(received).equals(readFileSync(join(dir, 'OWED-1_1.zpl')))).toBe(true));
      received.length = 0;
      fullDisk.delete('OWED-2_1.zpl');
      const again = await ship(args);
      expect(again.code, again.stderr).toBe(0);
      await vi.waitFor(() => expect(Buffer.concat(received).equals(readFileSync(join(dir, 'OWED-2_1.zpl')))).toBe(true));
      expect(existsSync(list)).toBe(false);
    } finally {
      fullDisk.delete('OWED-2_1.zpl');
      printer.close();
    }
  });

  it('owed labels come from FILE.unprinted.txt or the print ledger, the ledger having the last word; never for a shipment not created, nor one the service had already', async () => {
    const csv = join(work, 'owe.csv');
    const dir = join(work, 'labels-owe');
    // OWE-3 names a container the service does not have (refused: never created); OWE-4 exists already, made elsewhere.
    const rows = ['OWE-1,Ann,1 St,London,E1 1AA,GB,100,', 'OWE-2,Bob,2 St,Leeds,LS1 1AA,GB,100,', 'OWE-3,Cy,3 St,York,YO1 1AA,GB,100,NO-SUCH-CT', 'OWE-4,Di,4 St,Bath,BA1 1AA,GB,100,', 'OWE-5,Ed,5 St,Hull,HU1 1AA,GB,100,'];
    const write = (keep: string[]) => writeFileSync(csv, 'shipment_reference,to_name,to_line_1,to_city,to_postcode,to_country,weight,container_reference\n' + keep.join('\n') + '\n');
    expect((await ship(['create', '--reference', 'OWE-4', ...ADDRESS, '--weight', '100', '-o', join(work, 'elsewhere'), '--quiet'])).code).toBe(0);
    // The earlier run: every shipment but OWE-4 (added to the file since).
    write(rows.filter((r) => !r.startsWith('OWE-4')));
    const first = await ship(['create', '--csv', csv, '-o', dir, '--concurrency', '1']);
    expect(first.code, first.stderr).toBe(3);
    write(rows);
    // As an earlier run that died would leave them: the list owes OWE-1 and OWE-5, the ledger OWE-2, OWE-3 and
    // OWE-4 (sent when it died), and says OWE-5's labels went out after the list was written.
    writeFileSync(join(work, 'owe.unprinted.txt'), 'OWE-1\nOWE-5\n');
    const journal = readdirSync(dir).find((f) => /^\.ship-journal-.*\.jsonl$/.test(f))!;
    const ledger = join(dir, `${journal}.printing`);
    writeFileSync(ledger, '+"OWE-2"\n+"OWE-3"\n+"OWE-4"\n+"OWE-5"\n-"OWE-5"\n');
    const printer = await fakePrinter();
    try {
      const r = await ship(['create', '--csv', csv, '-o', dir, '--printer', printer.url, '--concurrency', '1']);
      expect(r.code, r.stderr).toBe(3); // OWE-3 is refused again
      await vi.waitFor(() => expect(printer.jobs.map((j) => /OWE-\d/.exec(j.toString('latin1'))?.[0])).toEqual(['OWE-1', 'OWE-2']));
      expect(existsSync(join(work, 'owe.unprinted.txt'))).toBe(false);
      expect(existsSync(ledger)).toBe(false);
    } finally {
      await printer.close();
    }
  });

  it('with --printer, a print ledger that cannot be kept (a link planted at its path) stops the run before it creates anything', async () => {
    const { journalPathFor } = await import('../../../src/bulk/journal.js');
    const { symlinkSync } = await import('node:fs');
    const csv = join(work, 'linked.csv');
    const dir = join(work, 'labels-linked');
    mkdirSync(dir);
    writeFileSync(csv, 'shipment_reference,to_name,to_line_1,to_city,to_postcode,to_country,weight\nLNK-1,Ann,1 St,London,E1 1AA,GB,100\n');
    const victim = join(work, 'victim.txt');
    writeFileSync(victim, 'mine\n');
    symlinkSync(victim, `${journalPathFor(dir, csv, { baseUrl: env.SHIP_BASE_URL, apiKey: env.SHIP_API_KEY })}.printing`);
    const printer = await fakePrinter();
    try {
      proxy.requests.length = 0;
      const r = await ship(['create', '--csv', csv, '-o', dir, '--printer', printer.url]);
      expect(r.code).not.toBe(0);
      expect(r.stderr).toMatch(/is a symbolic link: the print ledger is never written through one/);
      expect(proxy.creates()).toEqual([]);
      expect(readFileSync(victim, 'utf8')).toBe('mine\n');
    } finally {
      await printer.close();
    }
  });

  it('with --printer, a shipment whose answer never came is still owed: the rerun that finds it prints it', async () => {
    const csv = join(work, 'lost.csv');
    const dir = join(work, 'labels-lost');
    writeFileSync(csv, 'shipment_reference,to_name,to_line_1,to_city,to_postcode,to_country,weight\nLOST-1,Ann,1 St,London,E1 1AA,GB,100\n');
    let broken = true;
    const lossy = await startRecordingProxy(sb.baseUrl, {
      onResponse: (rec) => {
        if (broken && rec.method === 'POST' && rec.body?.shipment_reference === 'LOST-1') throw new Error('answer lost');
      },
      respond: (rec) => (broken && rec.method === 'GET' && rec.path.includes('LOST-1') ? { status: 503, body: { message: 'Service Unavailable', data: null } } : undefined),
    });
    const printer = await fakePrinter();
    const run = () => runShip(['create', '--csv', csv, '-o', dir, '--printer', printer.url], { env: { ...env, SHIP_BASE_URL: lossy.baseUrl } });
    try {
      expect((await run()).code).not.toBe(0);
      expect(printer.jobs).toHaveLength(0);
      broken = false;
      const again = await run();
      expect(again.code, again.stderr).toBe(0);
      await vi.waitFor(() => expect(printer.jobs.map((j) => /LOST-1/.exec(j.toString('latin1'))?.[0])).toEqual(['LOST-1']));
    } finally {
      await lossy.close();
      await printer.close();
    }
  });

  it('a rerun says which shipments an earlier run sent without hearing back exist and are no longer in the file (renamed): asked of the service', async () => {
    const csv = join(work, 'unheard.csv');
    const dir = join(work, 'labels-unheard');
    const rows = (ref: string) => `shipment_reference,to_name,to_line_1,to_city,to_postcode,to_country,weight\n${ref},Ann,1 St,London,E1 1AA,GB,100\nUNH-2,Bob,2 St,Leeds,LS1 1AA,GB,100\n`;
    writeFileSync(csv, rows('UNH-1'));
    // UNH-1 is created but its answer lost, and every look-up fails: the run ends not knowing.
    let broken = true;
    const lossy = await startRecordingProxy(sb.baseUrl, {
      onResponse: (rec) => {
        if (broken && rec.method === 'POST' && rec.body?.shipment_reference === 'UNH-1') throw new Error('answer lost');
      },
      respond: (rec) => (broken && rec.method === 'GET' && rec.path.includes('UNH-1') ? { status: 503, body: { message: 'Service Unavailable', data: null } } : undefined),
    });
    const run = () => runShip(['create', '--csv', csv, '-o', dir, '--concurrency', '1'], { env: { ...env, SHIP_BASE_URL: lossy.baseUrl } });
    try {
      const first = await run();
      expect(first.code, first.stderr).not.toBe(0);
      // The row renamed (a typo fixed); the service answers again.
      broken = false;
      writeFileSync(csv, rows('UNH-1B'));
      const again = await run();
      expect(again.code, again.stderr).toBe(0);
      expect(again.stderr).toContain(`1 shipment an earlier run of ${csv} sent without hearing back exists on the service and is no longer in it (reference changed or row removed): UNH-1; \`ship cancel UNH-1\` if it should not be`);
    } finally {
      await lossy.close();
    }
  });

  it('a rerun says which shipments an earlier run created are no longer in the file (renamed or removed): still on the service', async () => {
    const csv = join(work, 'renamed.csv');
    const dir = join(work, 'labels-renamed');
    const rows = (refs: string[]) => ['shipment_reference,to_name,to_line_1,to_city,to_postcode,to_country,weight', ...refs.map((r) => `${r},Ann,1 High St,London,E1 1AA,GB,1000`)].join('\n') + '\n';
    writeFileSync(csv, rows(['RN-A', 'RN-B', 'RN-C']));
    expect((await ship(['create', '--csv', csv, '-o', dir, '--json'])).code).toBe(0);
    writeFileSync(csv, rows(['RN-A', 'RN-B', 'RN-C2']));
    proxy.requests.length = 0;
    const again = await ship(['create', '--csv', csv, '-o', dir, '--json']);
    expect(again.code, again.stderr).toBe(0);
    expect(proxy.creates().map((b) => b.shipment_reference)).toEqual(['RN-C2']);
    expect(again.stderr).toContain(`1 shipment an earlier run of ${csv} created is no longer in it (reference changed or row removed): RN-C; still on the service`);
    // Said on each rerun of the edited file.
    expect((await ship(['create', '--csv', csv, '-o', dir, '--json'])).stderr).toContain('RN-C; still on the service');
    // Said on each rerun while it holds, and not at all on a first run.
    const first = await ship(['create', '--csv', csv, '-o', join(work, 'labels-renamed-2'), '--json']);
    expect(first.stderr).not.toContain('no longer in it');
    // The same file name written anew with the next batch (a nightly export), one order carried over: the
    // earlier batch's shipments are not "gone" from it (they were shipped, not removed).
    writeFileSync(csv, rows(['RN-B', 'RN-N1', 'RN-N2']));
    proxy.requests.length = 0;
    const nextNight = await ship(['create', '--csv', csv, '-o', dir, '--json']);
    expect(nextNight.code, nextNight.stderr).toBe(0);
    expect(proxy.creates().map((b) => b.shipment_reference)).toEqual(['RN-N1', 'RN-N2']);
    expect(nextNight.stderr).not.toContain('no longer in it');
    // Its journal forgot the earlier batch (it grew by a night's shipments every night, each run reading it all).
    const journal = readdirSync(dir).find((f) => f.startsWith('.ship-journal-') && f.endsWith('.jsonl'))!;
    const keys = new Set(readFileSync(join(dir, journal), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l).k));
    expect([...keys].sort()).toEqual(['RN-B', 'RN-N1', 'RN-N2']);
    // And a rerun of this night's file still skips what it created.
    proxy.requests.length = 0;
    const rerun = await ship(['create', '--csv', csv, '-o', dir, '--json']);
    expect(rerun.code, rerun.stderr).toBe(0);
    expect(proxy.creates()).toEqual([]);
    // Batches piped to --csv - share one journal per directory: it forgets an earlier batch the same way.
    const piped = join(work, 'labels-piped');
    expect((await ship(['create', '--csv', '-', '-o', piped, '--json'], { stdin: rows(['RN-S1', 'RN-S2']) })).code).toBe(0);
    const second = await ship(['create', '--csv', '-', '-o', piped, '--json'], { stdin: rows(['RN-S3']) });
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).not.toContain('no longer in it');
    const pipedJournal = readdirSync(piped).find((f) => f.startsWith('.ship-journal-') && f.endsWith('.jsonl'))!;
    expect(new Set(readFileSync(join(piped, pipedJournal), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l).k))).toEqual(new Set(['RN-S3']));
  });

  it('--dry-run validates and prints the bodies as JSON lines, sending nothing', async () => {
    const r = await ship(['create', '--csv', join(EXAMPLES, 'orders.csv'), '--dry-run', '--json']);
    expect(r.code).toBe(0);
    const lines = r.stdout.trim().split('\n').map((l) => JSON.parse(l));
    expect(lines).toHaveLength(10);
    expect(lines[0]).toMatchObject({ row: 2, shipment_reference: 'ORD-1001', status: 'valid', request: { shipment_reference: 'ORD-1001', format: 'ZPL' } });
    // Only what the account defines is read: the file's services, packaging types and custom fields are checked against it.
    expect(proxy.requests.map((q) => `${q.method} ${q.path}`).sort()).toEqual(['GET /v1.2/custom-fields', 'GET /v1.2/packaging-options', 'GET /v1.2/services']);
    const table = await ship(['create', '--csv', join(EXAMPLES, 'orders.csv'), '--dry-run']);
    expect(table.stdout.split('\n')[1]).toBe('3\tORD-1002\t2\t2\t3100\tM4 6BD Manchester GB\tDPD_NEXT_DAY');
    expect(table.stderr).toContain('Dry run: 10 shipments (14 parcels) valid; nothing sent.');
  });

  it('lists skipped Shopify orders as JSON lines and creates the shippable ones', async () => {
    // The export from a shop whose products are in the SKU inventory (the genuine one's Canadian orders have none:
    // test/csv/shopify.test.ts); the inventory supplies customs data.
    const r = await ship(['create', '--csv', shopifyExportWithSkus(work), '--preset', 'shopify', '-o', work, '--json', '--default-weight', '900']);
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trim().split('\n').map((l) => JSON.parse(l));
    expect(lines.filter((l) => l.status === 'skipped')).toHaveLength(17);
    expect(lines.find((l) => l.shipment_reference === '#1001')).toEqual({ row: 2, shipment_reference: '#1001', status: 'skipped', reason: 'already fulfilled (Fulfillment Status; --include-fulfilled ships it again)' });
    expect(lines.find((l) => l.shipment_reference === '#1019')).toEqual({ row: 38, shipment_reference: '#1019', status: 'skipped', reason: 'no shipping address' });
    expect(lines.filter((l) => l.status === 'created').map((l) => l.shipment_reference)).toEqual(['#1005', '#1013']);
    expect(proxy.creates().map((b) => [b.shipment_reference, b.parcels[0].weight])).toEqual([['#1005', 900], ['#1013', 900]]);
    // Under --json the preset's warnings are JSON lines on stderr.
    const warnings = r.stderr.trimEnd().split('\n').map((l) => JSON.parse(l)).filter((l) => l.warning).map((l) => l.warning.message);
    expect(warnings).toContain('row 11, column Shipping Name: empty; order #1005 is addressed to the company "Receiving Department"');
    expect(warnings).toContain('row 31, column Financial Status: pending: order #1013 is not paid (yet), and is shipped');
    // The left-out orders are counted apart from the run's shipments, so the summary adds up.
    const summary = JSON.parse(r.stderr.trim().split('\n').find((l) => l.includes('"summary"'))!).summary;
    expect(summary).toMatchObject({ total: 2, created: 2, skipped: 0, failed: 0, left_out: 17 });
  });

  it('a Shopify order left out for want of customs data is a failed row (exit 3, FILE.failed.csv), beside the orders created', async () => {
    const csv = shopifyExportOneNeedsCustoms(work);
    const r = await ship(['create', '--csv', csv, '--preset', 'shopify', '-o', work, '--json', '--default-weight', '900']);
    expect(r.code, r.stderr).toBe(3);
    const lines = r.stdout.trim().split('\n').map((l) => JSON.parse(l));
    expect(lines.filter((l) => l.status === 'created').map((l) => l.shipment_reference)).toEqual(['#9013']);
    const held = lines.find((l) => l.shipment_reference === '#9005');
    expect(held).toMatchObject({ status: 'failed', error: expect.stringMatching(/customs/) });
    const summary = JSON.parse(r.stderr.trim().split('\n').find((l) => l.includes('"summary"'))!).summary;
    // 19 orders: 1 created, 1 failed awaiting customs data, 17 left out by design; total and listed agree.
    expect(summary).toMatchObject({ total: 2, listed: 2, created: 1, failed: 1, left_out: 17 });
    const failedCsv = readFileSync(join(work, 'orders_mixed.failed.csv'), 'utf8');
    expect(failedCsv).toContain('#9005');
    expect(failedCsv).not.toContain('#9013');
    // At a terminal it is said apart from the orders left out by design.
    const tty = await ship(['create', '--csv', csv, '--preset', 'shopify', '-o', work, '--default-weight', '900']);
    expect(tty.code).toBe(3);
    expect(tty.stderr).toMatch(/1 order cannot ship without data you can give/);
    // A dry run's closing line says it too (it would be a failed row of the run).
    const dry = await ship(['create', '--csv', csv, '--preset', 'shopify', '-o', work, '--default-weight', '900', '--dry-run']);
    expect(dry.code).toBe(0);
    expect(dry.stderr).toMatch(/Dry run: 1 shipment \(1 parcel\) valid; 1 order awaits data you can give \(listed above: it would fail\); nothing sent\./);
  });

  it('every order to ship awaiting customs data: exit 2 with their rows in FILE.failed.csv, and a stale one removed once none await', async () => {
    const { parse } = await import('csv-parse/sync');
    const rows = parse(readFileSync(shopifyExportOneNeedsCustoms(work), 'utf8'), { relax_column_count: true }) as string[][];
    const quote = (v: string) => (/[",\n\r]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v);
    const csv = join(work, 'orders_held.csv');
    const writeOrders = (keep: (order: string) => boolean) => writeFileSync(csv, rows.filter((r, i) => i === 0 || keep(r[0])).map((r) => r.map(quote).join(',')).join('\n') + '\n');
    // #9013 (shippable) taken out: #9005, awaiting customs data, is the only order to ship.
    writeOrders((order) => order !== '#9013');
    const failedCsv = join(work, 'orders_held.failed.csv');
    const results = join(work, 'results.csv');
    const r = await ship(['create', '--csv', csv, '--preset', 'shopify', '-o', work, '--default-weight', '900', '--results', results]);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(`(their rows are in ${failedCsv})`);
    const failed = parse(readFileSync(failedCsv, 'utf8'), { columns: true }) as Array<Record<string, string>>;
    expect(new Set(failed.map((f) => f.Name))).toEqual(new Set(['#9005']));
    expect(failed[0].error).toMatch(/customs/);
    // --results holds every row: #9005's failed, the orders left out by design skipped.
    const written = parse(readFileSync(results, 'utf8'), { columns: true }) as Array<Record<string, string>>;
    expect(written.length).toBe(rows.length - 1 - rows.filter((row) => row[0] === '#9013').length);
    expect(new Set(written.filter((w) => w.Name === '#9005').map((w) => w.status))).toEqual(new Set(['failed']));
    expect(new Set(written.filter((w) => w.Name !== '#9005').map((w) => w.status))).toEqual(new Set(['skipped']));
    expect(proxy.creates()).toEqual([]);
    // The next export holds nothing to ship (#9005 shipped elsewhere): a quiet run, and the stale FILE.failed.csv goes.
    writeOrders((order) => order !== '#9013' && order !== '#9005');
    const quiet = await ship(['create', '--csv', csv, '--preset', 'shopify', '-o', work, '--default-weight', '900']);
    expect(quiet.code, quiet.stderr).toBe(0);
    expect(existsSync(failedCsv)).toBe(false);
  });

  it('--include-fulfilled belongs to --preset shopify', async () => {
    const r = await ship(['create', '--csv', join(EXAMPLES, 'orders.csv'), '--include-fulfilled', '--dry-run']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--include-fulfilled applies to --preset shopify');
  });

  it('reads a piped CSV (--csv -) and writes --results for it', async () => {
    const text = 'shipment_reference,to_name,to_line_1,to_city,to_postcode,to_country,weight\nIN-1,Ann,1 St,London,E1 1AA,GB,100\nIN-2,Bob,2 St,Leeds,LS1 1AA,GB,200\n';
    const r = await ship(['create', '--csv', '-', '-o', join(work, 'l'), '--results', join(work, 'r.csv'), '--quiet'], { stdin: text });
    expect(r.code).toBe(0);
    expect(r.stdout.trim().split('\n')).toHaveLength(2);
    expect(proxy.creates().map((b) => b.shipment_reference)).toEqual(['IN-1', 'IN-2']);
    const rows = readFileSync(join(work, 'r.csv'), 'utf8').trim().split('\n').map((l) => l.split(','));
    expect(rows.slice(1).map((c) => [c[0], c[7], c[9]])).toEqual([
      ['IN-1', 'created', r.stdout.trim().split('\n')[0]],
      ['IN-2', 'created', r.stdout.trim().split('\n')[1]],
    ]);
  });

  it('reads the customs table from stdin (--customs -) when the orders are a file; never both from stdin', async () => {
    const csv = join(work, 'abroad.csv');
    writeFileSync(csv, 'shipment_reference,to_name,to_line_1,to_city,to_postcode,to_country,weight,item_short_description,item_value,item_quantity\nC-1,Marie,1 Rue X,Paris,75005,FR,900,Scarf,10.00,1\n');
    const r = await ship(['create', '--csv', csv, '--customs', '-', '--dry-run', '--json'], { stdin: 'product,origin,hs_code,weight\nScarf,GB,6117.10,150\n' });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout.trim()).request.parcels[0].items[0]).toEqual({ short_description: 'Scarf', full_description: 'Scarf', country_of_origin: 'GB', harmonised_code: '611710', item_weight: 150, item_value: 10, item_quantity: 1 });
    // A problem in the piped table is named as stdin's.
    const bad = await ship(['create', '--csv', csv, '--customs', '-', '--dry-run'], { stdin: 'product,origin\nScarf,Atlantis\n' });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/stdin.*row 2, column origin/s);
    const both = await ship(['create', '--csv', '-', '--customs', '-', '--dry-run'], { stdin: 'x' });
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('--csv - and --customs - both read stdin');
    expect(proxy.creates()).toEqual([]);
  });

  it('refuses to read a file from stdin when stdin is a terminal (instead of waiting silently), or two files from stdin', async () => {
    const r = await ship(['create', '--csv', '-', '--dry-run'], { tty: true });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--csv -: reading a file from stdin, but stdin is a terminal');
    expect(r.stderr).toContain('pipe the file in, or give its path instead of -');
    const file = await ship(['create', '--file', '-', '--dry-run'], { tty: true });
    expect(file.code).toBe(2);
    expect(file.stderr).toContain('--file -: reading a file from stdin, but stdin is a terminal');
    const both = await ship(['create', '--csv', '-', '--map', '-', '--dry-run'], { stdin: 'x' });
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('--csv - and --map - both read stdin');
    const tableAndMap = await ship(['create', '--csv', join(EXAMPLES, 'orders.csv'), '--customs', '-', '--map', '-', '--dry-run'], { stdin: 'x' });
    expect(tableAndMap.code).toBe(2);
    expect(tableAndMap.stderr).toContain('--customs - and --map - both read stdin');
  });

  it('on a terminal with --yes: no question, and a table of results at the end', async () => {
    const csv = join(work, 'ask.csv');
    writeFileSync(csv, 'shipment_reference,to_name,to_line_1,to_city,to_postcode,to_country,weight\nASK-1,Ann,1 St,London,E1 1AA,GB,100\nASK-1,,,,,,200\n');
    const yes = await ship(['create', '--csv', csv, '-o', join(work, 'l'), '--yes'], { tty: true });
    expect(yes.code).toBe(0);
    expect(yes.stderr).not.toContain('Create 1 shipment');
    expect(proxy.creates().map((b) => b.shipment_reference)).toEqual(['ASK-1']);
    expect(yes.stdout).toMatch(/ASK-1.*created/);
    // Label files by name; the summary says where they are.
    expect(yes.stdout).toContain('ASK-1_2.zpl');
    expect(yes.stdout).not.toContain(join(work, 'l', 'ASK-1_2.zpl'));
    expect(yes.stdout + yes.stderr).toContain(`Labels in ${join(work, 'l')}`);
  });

  it('on a terminal, a large batch ends with a table of its failed shipments only (the counts are in the summary)', async () => {
    const csv = join(work, 'many.csv');
    const rows = Array.from({ length: 60 }, (_, i) => `MANY-${i},Ann,1 St,London,E1 1AA,GB,${i === 7 || i === 42 ? 99_999_999 : 100}`);
    writeFileSync(csv, ['shipment_reference,to_name,to_line_1,to_city,to_postcode,to_country,weight', ...rows].join('\n') + '\n');
    const r = await ship(['create', '--csv', csv, '-o', join(work, 'many'), '--yes'], { tty: true });
    expect(r.code).toBe(3);
    expect(proxy.creates()).toHaveLength(60);
    expect(r.stdout).toContain('Failed shipments:');
    expect(r.stdout).toMatch(/MANY-7\b/);
    expect(r.stdout).toMatch(/MANY-42\b/);
    expect(r.stdout).not.toMatch(/MANY-8\b/);
  });

  it('renames another system\'s headers with --map (examples/mapping.json), naming their own columns in problems', async () => {
    const header = 'Order Number,Customer PO,Carrier Service,Ship To Name,Ship To Company,Ship To Phone,Ship To Email,Ship To Address 1,Ship To Address 2,Ship To City,Ship To State,Ship To Zip,Ship To Country,Carton ID,Carton Type,Carton Weight (g),Product Code,Product Description,Qty Shipped,Unit Price,Country of Manufacture,HS Code,Gift Note,Picker,Pick Time';
    const good = join(work, 'wms.csv');
    writeFileSync(
      good,
      [
        header,
        'WMS-1,PO-1,RM_TRACKED_48,Ann Smith,,07700 900100,ann@example.com,1 High St,,London,,E1 1AA,UK,C1,SMALL_BOX,800,MUG-001,Ceramic mug,1,10.00,GB,6912002310,,jo,10:01',
        'WMS-1,,,,,,,,,,,,,C1,,,BOOK-042,Printed book,1,14.99,GB,4901990000,,jo,10:02',
        'WMS-2,PO-2,DPD_CLASSIC_EU,Jean Dupont,,+33 1 00 00 00 00,jean@example.com,2 Rue de Rivoli,,Paris,,75001,France,C2,MEDIUM_BOX,1500,CANDLE-LG,Soy wax candle,1,25.00,France,3406000000,Joyeux Noël,al,10:05',
      ].join('\n') + '\n',
    );
    const r = await ship(['create', '--csv', good, '--map', join(EXAMPLES, 'mapping.json'), '-o', join(work, 'l'), '--json']);
    expect(r.code).toBe(0);
    expect(proxy.creates()).toEqual([
      {
        shipment_reference: 'WMS-1', order_reference: 'PO-1', delivery_service_key: 'RM_TRACKED_48',
        to_address: { name: 'Ann Smith', telephone: '07700 900100', email_address: 'ann@example.com', line_1: '1 High St', city: 'London', postcode: 'E1 1AA', country: 'GB' },
        parcels: [{ reference: 'C1', packaging_type_key: 'SMALL_BOX', weight: 800, items: [
          { sku: 'MUG-001', short_description: 'Ceramic mug', country_of_origin: 'GB', harmonised_code: '6912002310', item_value: 10, item_quantity: 1 },
          { sku: 'BOOK-042', short_description: 'Printed book', country_of_origin: 'GB', harmonised_code: '4901990000', item_value: 14.99, item_quantity: 1 },
        ] }],
        format: 'ZPL',
      },
      {
        shipment_reference: 'WMS-2', order_reference: 'PO-2', delivery_service_key: 'DPD_CLASSIC_EU',
        to_address: { name: 'Jean Dupont', telephone: '+33 1 00 00 00 00', email_address: 'jean@example.com', line_1: '2 Rue de Rivoli', city: 'Paris', postcode: '75001', country: 'FR' },
        custom_fields: { gift_message: 'Joyeux Noël' },
        parcels: [{ reference: 'C2', packaging_type_key: 'MEDIUM_BOX', weight: 1500, items: [
          { sku: 'CANDLE-LG', short_description: 'Soy wax candle', country_of_origin: 'FR', harmonised_code: '3406000000', item_value: 25, item_quantity: 1 },
        ] }],
        format: 'ZPL',
      },
    ]);
    proxy.requests.length = 0;
    const bad = join(work, 'wms-bad.csv');
    writeFileSync(bad, `${header}\nWMS-3,PO-3,,Bo,,,,3 St,,York,,,Narnia,C3,,heavy,,,1,1.00,,,,x,y\n`);
    const e = await ship(['create', '--csv', bad, '--map', join(EXAMPLES, 'mapping.json')]);
    expect(e.code).toBe(2);
    expect(e.stderr).toContain('row 2, column Ship To Zip: is required');
    expect(e.stderr).toContain('row 2, column Ship To Country: must be a two-letter ISO 3166-1 country code; "Narnia" is not a country name we know');
    expect(e.stderr).toContain('row 2, column Carton Weight (g): must be a whole number of grammes, not "heavy"');
    expect(proxy.requests).toEqual([]);
  });

  it('merges PDF labels in input order with --merge', async () => {
    const csv = join(work, 'two.csv');
    writeFileSync(csv, 'shipment_reference,to_name,to_line_1,to_city,to_postcode,to_country,weight\nM-1,Ann,1 St,London,E1 1AA,GB,100\nM-2,Bob,2 St,Leeds,LS1 1AA,GB,100\nM-2,,,,,,200\n');
    const merged = join(work, 'all.pdf');
    const r = await ship(['create', '--csv', csv, '-o', join(work, 'l'), '--format', 'PDF', '--merge', merged]);
    expect(r.code).toBe(0);
    const { PDFDocument } = await import('pdf-lib');
    const doc = await PDFDocument.load(readFileSync(merged));
    let pages = 0;
    for (const f of ['M-1_1.pdf', 'M-2_1.pdf', 'M-2_2.pdf']) pages += (await PDFDocument.load(readFileSync(join(work, 'l', f)))).getPageCount();
    expect(doc.getPageCount()).toBe(pages);
  });

  it('asks the printer for its status first and refuses (sending nothing) when it is out of paper', async () => {
    const server: Server = createServer((sock) => {
      sock.on('data', (d) => {
        // ~HS answer: string 1 field 2 = paper out.
        if (d.toString('latin1').includes('~HS')) sock.write('\x02030,1,0,0000,000,0,0,0,000,0,0,0\x03\r\n\x02000,0,0,0,0,2,4,0,00000000,1,000\x03\r\n\x021234,0\x03\r\n');
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    try {
      const r = await ship(['create', '--csv', join(EXAMPLES, 'orders.csv'), '-o', work, '--printer', `tcp://127.0.0.1:${port}`]);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/is not ready: paper \(labels\) out/);
      expect(proxy.creates()).toEqual([]);
    } finally {
      server.close();
    }
  });

  it('--printer-timeout bounds the status question: a printer that never answers ~HS fails in that time, nothing created', async () => {
    const server: Server = createServer((sock) => {
      sock.resume();
      sock.on('error', () => {});
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    try {
      const started = Date.now();
      const r = await ship(['create', '--csv', join(EXAMPLES, 'orders.csv'), '-o', work, '--printer', `tcp://127.0.0.1:${port}`, '--printer-timeout', '0.3']);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/did not answer the status request \(~HS\) within 0\.3s/);
      expect(Date.now() - started).toBeLessThan(4000);
      expect(proxy.creates()).toEqual([]);
      const alone = await ship(['create', '--csv', join(EXAMPLES, 'orders.csv'), '-o', work, '--printer-timeout', '2']);
      expect(alone.code).toBe(2);
      expect(alone.stderr).toContain('--printer-timeout goes with --printer');
    } finally {
      server.close();
    }
  });

  it('sends ZPL labels to a raw-socket printer unchanged and in input order', async () => {
    const received: Buffer[] = [];
    const server: Server = createServer((sock) => {
      const parts: Buffer[] = [];
      sock.on('data', (d) => parts.push(d));
      sock.on('end', () => received.push(Buffer.concat(parts)));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    try {
      const csv = join(work, 'print.csv');
      writeFileSync(csv, 'shipment_reference,to_name,to_line_1,to_city,to_postcode,to_country,weight\nP-1,Ann,1 St,London,E1 1AA,GB,100\nP-2,Bob,2 St,Leeds,LS1 1AA,GB,100\nP-2,,,,,,200\nP-3,Cy,3 St,York,YO1 1AA,GB,300\n');
      const r = await ship(['create', '--csv', csv, '-o', join(work, 'l'), '--printer', `tcp://127.0.0.1:${port}`, '--no-preflight', '--concurrency', '3']);
      expect(r.code).toBe(0);
      // How many went out, and never "printed": a raw port does not confirm it.
      expect(r.stderr).toContain(`4 labels sent to printer tcp://127.0.0.1:${port} (sent, not confirmed printed)`);
      await new Promise((res) => setTimeout(res, 100));
      const expected = ['P-1_1.zpl', 'P-2_1.zpl', 'P-2_2.zpl', 'P-3_1.zpl'].map((f) => readFileSync(join(work, 'l', f)));
      expect(Buffer.concat(received).equals(Buffer.concat(expected))).toBe(true);
    } finally {
      server.close();
    }
  });

  it('one shipment whose printer is down: the created shipment is still printed (JSON), then the error naming it, exit 1', async () => {
    const { freePort } = await import('../../helpers/net.js');
    const port = await freePort();
    const r = await ship(['create', '--reference', 'PD-1', '--to-name', 'Ann', '--to-line1', '1 St', '--to-city', 'Leeds', '--to-postcode', 'LS1 1AA', '--to-country', 'GB', '--weight', '500', '-o', join(work, 'l'), '--printer', `tcp://127.0.0.1:${port}`, '--no-preflight', '--json']);
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout)[0]).toMatchObject({ shipment_reference: 'PD-1', label_path: join(work, 'l', 'PD-1_1.zpl') });
    const err = JSON.parse(r.stderr.trim().split('\n').pop()!).error;
    expect(err.message).toMatch(/^shipment PD-1 was created, but its labels were not sent to printer tcp:\/\/127\.0\.0\.1:\d+: /);
    expect(err.hint).toContain('do not create it again');
    expect(proxy.creates()).toHaveLength(1);
  });

  it('one shipment whose printer fails after its first label: the hint sends only the parcels not sent', async () => {
    // Takes one label, then resets every later connection.
    let taken = 0;
    const server: Server = createServer((sock) => {
      sock.on('error', () => {});
      if (++taken > 1) return sock.resetAndDestroy();
      sock.resume();
      sock.on('end', () => sock.end());
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    try {
      const r = await ship(['create', '--reference', 'PC-1', '--to-name', 'Ann', '--to-line1', '1 St', '--to-city', 'Leeds', '--to-postcode', 'LS1 1AA', '--to-country', 'GB', '--parcel', 'weight=500', '--parcel', 'weight=600', '--parcel', 'weight=700', '-o', join(work, 'l'), '--printer', `tcp://127.0.0.1:${port}`, '--no-preflight', '--json']);
      expect(r.code, r.stderr).toBe(1);
      const parcels = JSON.parse(r.stdout) as Array<{ tracking_reference: string }>;
      expect(parcels).toHaveLength(3);
      const err = JSON.parse(r.stderr.trim().split('\n').pop()!).error;
      expect(err.message).toMatch(/^shipment PC-1 was created, but 2 of its 3 labels were not sent to printer /);
      const url = `tcp://127.0.0.1:${port}`;
      expect(err.hint).toContain(`\`ship label ${parcels[1].tracking_reference} --printer ${url}\`, \`ship label ${parcels[2].tracking_reference} --printer ${url}\``);
      expect(err.hint).not.toContain(`\`ship print PC-1 --printer`);
    } finally {
      server.close();
    }
  });

  it('a printer that fails mid-run: every shipment still reported, the ones whose labels were not sent named, exit 1', async () => {
    // Takes two labels (PF-1's, and PF-2's first of two), then goes away (connections refused).
    let taken = 0;
    const server: Server = createServer((sock) => {
      sock.resume();
      if (++taken === 2) server.close();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    const csv = join(work, 'pfail.csv');
    writeFileSync(csv, 'shipment_reference,to_name,to_line_1,to_city,to_postcode,to_country,weight\nPF-1,Ann,1 St,London,E1 1AA,GB,100\nPF-2,Bob,2 St,Leeds,LS1 1AA,GB,100\nPF-2,,,,,,200\nPF-3,Cy,3 St,York,YO1 1AA,GB,300\nPF-4,Di,4 St,Bath,BA1 1AA,GB,300\n');
    const r = await ship(['create', '--csv', csv, '-o', join(work, 'l'), '--printer', `tcp://127.0.0.1:${port}`, '--no-preflight', '--concurrency', '1', '--json']);
    expect(r.code, r.stderr).toBe(1);
    const lines = r.stdout.trim().split('\n').map((l) => JSON.parse(l));
    expect(lines.map((l) => [l.shipment_reference, l.status, l.labels_not_sent])).toEqual([
      ['PF-1', 'created', undefined],
      ['PF-2', 'created', 1],
      ['PF-3', 'created', 1],
      ['PF-4', 'created', 1],
    ]);
    expect(proxy.creates()).toHaveLength(4);
    const err = JSON.parse(r.stderr.trim().split('\n').pop()!).error;
    expect(err.message).toMatch(/^printer tcp:\/\/127\.0\.0\.1:\d+ failed \(.*\): the labels of 3 created shipments were not sent: PF-2 PF-3 PF-4$/);
    expect(err.hint).toContain('ship print REF --printer');
    // PF-2's first label went out before the printer failed: the hint resends its second parcel alone.
    const pf2Second = lines[1].tracking_references[1];
    expect(err.hint).toContain(`but of PF-2 only parcel ${pf2Second} (\`ship label ${pf2Second} --printer tcp://127.0.0.1:${port}\`), the others went out`);
    // The list beside the CSV holds the shipments none of whose labels went out (printed whole from it), and says so.
    const list = join(work, 'pfail.unprinted.txt');
    expect(readFileSync(list, 'utf8')).toBe('PF-3\nPF-4\n');
    expect(err.hint).toContain(`; the 2 in that list with \`xargs -n1 ship print --printer tcp://127.0.0.1:${port} < ${list}\``);
    const summary = JSON.parse(r.stderr.trim().split('\n').find((l) => l.includes('"summary"'))!).summary;
    expect(summary).toMatchObject({ created: 4, failed: 0 });
    expect(err.hint).toContain(`or rerun this command with --printer: it sends those in ${list}`);

    // A rerun without --printer (to retry something else) keeps the list, and says what is still owed.
    const again = await ship(['create', '--csv', csv, '-o', join(work, 'l'), '--concurrency', '1']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain(`the labels of 2 created shipments have not been sent to a printer: PF-3 PF-4 (listed in ${list})`);
    expect(readFileSync(list, 'utf8')).toBe('PF-3\nPF-4\n');

    // The rerun with a working printer sends what is owed, in input order, and nothing else; the list goes.
    const received: Buffer[] = [];
    const good: Server = createServer((sock) => sock.on('data', (d: Buffer) => received.push(d)));
    await new Promise<void>((res) => good.listen(0, '127.0.0.1', res));
    try {
      const resumed = await ship(['create', '--csv', csv, '-o', join(work, 'l'), '--printer', `tcp://127.0.0.1:${(good.address() as AddressInfo).port}`, '--no-preflight', '--json']);
      expect(resumed.code, resumed.stderr).toBe(0);
      expect(proxy.creates()).toHaveLength(4);
      const owedLabels = [...lines[2].labels, ...lines[3].labels].map((f: string) => readFileSync(f));
      await vi.waitFor(() => expect(Buffer.concat(received).equals(Buffer.concat(owedLabels))).toBe(true));
      expect(existsSync(list)).toBe(false);
    } finally {
      good.close();
    }
  });
});
