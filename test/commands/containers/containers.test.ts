// `ship containers …` in-process against the embedded sandbox, with a fake raw-socket printer on loopback.
import { mkdtempSync, readFileSync, readdirSync, realpathSync, writeFileSync } from 'node:fs';
import * as net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { runShip } from '../../helpers/run.js';
import { apiCall, sandboxForFile, type ApiAuth } from '../../helpers/sandbox.js';

const CONSOLIDATION = 'DPD_CONSOLIDATED_EU';

const sb = await sandboxForFile();
let env: ApiAuth;
let dir: string;

/** Direct API call to the sandbox (not through ship), for setting up and checking state. */
const api = (method: string, path: string, body?: unknown) => apiCall(env, method, path, body);

/** A shipment for the container through the API directly (these tests are about the containers commands). */
function shipment(ref: string, container: string, parcel: { weight?: number; value?: number } = {}) {
  return api('POST', '/shipments', {
    shipment_reference: ref,
    delivery_service_key: CONSOLIDATION,
    container_reference: container,
    to_address: { name: 'Ana Silva', line_1: 'Rua Augusta 1', city: 'Lisboa', postcode: '1100-048', country: 'PT' },
    parcels: [{ weight: parcel.weight ?? 1200, length: 20, width: 15, depth: 10, value: parcel.value ?? 25, items: [{ sku: 'MUG-001', short_description: 'Mug', item_quantity: 2, item_value: 12.5, item_weight: 420, country_of_origin: 'GB' }] }],
  });
}

const ship = (args: string[]) => runShip(args, { env: { ...env, SHIP_CONFIG_DIR: dir, CI: 'true' } });

async function createContainer(ref: string): Promise<any> {
  const r = await ship(['containers', 'create', '--reference', ref, '--service', CONSOLIDATION, '--clearance-country', 'de', '--clearance-location', 'FRA', '--currency', 'EUR', '--json']);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout);
}

/** A raw-port printer double: answers ~HS as a ready Zebra and records every other payload. */
async function fakePrinter(opts: { silent?: boolean } = {}): Promise<{ url: string; jobs: Buffer[]; close(): Promise<void> }> {
  const jobs: Buffer[] = [];
  const sockets = new Set<net.Socket>();
  const server = net.createServer((sock) => {
    sockets.add(sock);
    const chunks: Buffer[] = [];
    sock.on('data', (c) => {
      if (c.toString('latin1').includes('~HS')) {
        // A printer without ~HS support (or a print server in front of one) never answers the status query.
        if (opts.silent) return;
        sock.write('\x02030,0,0,1245,000,0,0,0,000,0,0,0\x03\r\n\x02000,0,0,0,0,2,4,0,00000000,1,000\x03\r\n\x021234,0\x03\r\n');
      } else chunks.push(c);
    });
    sock.on('close', () => {
      sockets.delete(sock);
      if (chunks.length) jobs.push(Buffer.concat(chunks));
    });
    sock.on('error', () => {});
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `tcp://127.0.0.1:${port}`,
    jobs,
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}

beforeEach(async () => {
  env = await sb.authEnv();
  dir = mkdtempSync(join(tmpdir(), 'ship-containers-'));
});

describe('containers create / show / shipments', () => {
  it('refuses a service that is not a consolidation service, in terms of the flags', async () => {
    const r = await ship(['containers', 'create', '--service', 'RM_TRACKED_48', '--clearance-country', 'DE', '--clearance-location', 'FRA']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--service: .*consolidation/i);
    expect(r.stderr).not.toMatch(/delivery_service_key:/);
    // --json: `fields` keeps the API's field paths, as every command's error does; the flag is in `problems`.
    const j = await ship(['containers', 'create', '--service', 'RM_TRACKED_48', '--clearance-country', 'DE', '--clearance-location', 'FRA', '--json']);
    expect(j.code).toBe(2);
    const err = JSON.parse(j.stderr).error;
    expect(Object.keys(err.fields)).toEqual(['delivery_service_key']);
    expect(err.problems).toEqual([{ column: '--service', message: err.fields.delivery_service_key[0] }]);
  });

  it('warns of a --despatch-date before today (sent as it is), as create does for a shipment', async () => {
    const r = await ship(['containers', 'create', '--service', CONSOLIDATION, '--clearance-country', 'DE', '--clearance-location', 'FRA', '--despatch-date', '2020-01-06', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stderr.trim().split('\n')[0]).warning.message).toMatch(/^--despatch-date: 2020-01-06 is in the past \(today is \d{4}-\d{2}-\d{2}\); sent as it is$/);
    expect(JSON.parse(r.stdout).despatch_date).toMatch(/^2020-01-06/);
  });

  it('checks the values before sending, naming the flags', async () => {
    const r = await ship(['containers', 'create', '--service', CONSOLIDATION, '--clearance-country', 'Germany', '--clearance-location', 'FRA', '--despatch-date', '23/11/2026', '--currency', 'EURO']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--clearance-country: /);
    expect(r.stderr).toMatch(/--despatch-date: /);
    expect(r.stderr).toMatch(/--currency: /);
  });

  it('names the missing flags without a terminal', async () => {
    const r = await ship(['containers', 'create', '--service', CONSOLIDATION]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/missing --clearance-country, --clearance-location/);
  });

  it('shows limits and counts side by side, and lists the shipments', async () => {
    const c = await createContainer('CT-SHOW');
    expect(c).toMatchObject({ reference: 'CT-SHOW', status: 'Open', value_currency: 'EUR' });
    expect((await shipment('S-1', 'CT-SHOW', { weight: 8200, value: 123.45 })).status).toBeLessThan(300);
    const show = await ship(['containers', 'show', 'CT-SHOW']);
    expect(show.code, show.stderr).toBe(0);
    const got = (await api('GET', '/containers/CT-SHOW')).body.data;
    const kv = Object.fromEntries(show.stdout.trim().split('\n').map((l) => l.split('\t')));
    expect(kv.status).toBe('Open');
    expect(kv.parcels).toBe(`1 / ${got.max_parcels ?? 'unlimited'}`);
    expect(kv.weight).toMatch(/^8\.2 kg \/ /);
    expect(kv.value).toMatch(new RegExp(`^${(got.value / 100).toFixed(2)} EUR / `));
    const list = await ship(['containers', 'shipments', 'CT-SHOW']);
    expect(list.stdout.trim().split('\t')[0]).toBe('S-1');
    const json = await ship(['containers', 'shipments', 'CT-SHOW', '--json']);
    expect(JSON.parse(json.stdout).map((s: any) => s.reference)).toEqual(['S-1']);
  });

  it('exits 5 for an unknown container', async () => {
    expect((await ship(['containers', 'show', 'NOPE'])).code).toBe(5);
  });
});

describe('containers close / label / documents / invoice / delete', () => {
  it('close needs --yes without a terminal and leaves the container open', async () => {
    await createContainer('CT-CLOSE');
    const r = await ship(['containers', 'close', 'CT-CLOSE']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--yes/);
    expect((await api('GET', '/containers/CT-CLOSE')).body.data.status).toBe('Open');
  });

  it('close --print sends the container label to the printer after closing', async () => {
    await createContainer('CT-PRINT');
    await shipment('S-P', 'CT-PRINT');
    const printer = await fakePrinter();
    try {
      const r = await ship(['containers', 'close', 'CT-PRINT', '--yes', '--print', '--printer', printer.url, '--json']);
      expect(r.code, r.stderr).toBe(0);
      // The printer as `print --printer --json` and `label --printer --json` give it: {url, name}.
      expect(JSON.parse(r.stdout)).toMatchObject({ reference: 'CT-PRINT', status: 'Closed', label: { format: 'ZPL', printer: { url: printer.url, name: null } } });
      expect((await api('GET', '/containers/CT-PRINT')).body.data.status).toBe('Closed');
      await new Promise((res) => setTimeout(res, 50));
      expect(printer.jobs).toHaveLength(1);
      expect(printer.jobs[0].toString('utf8')).toMatch(/\^XA[\s\S]*\^XZ/);
      // The same closing script run again prints nothing again (the label went out with the close), and says how to.
      const again = await ship(['containers', 'close', 'CT-PRINT', '--yes', '--print', '--printer', printer.url, '--json']);
      expect(again.code, again.stderr).toBe(0);
      expect(JSON.parse(again.stdout)).toEqual({ reference: 'CT-PRINT', status: 'Closed', message: 'already closed', label: null });
      expect(again.stderr).toContain(`its label is not printed again (whoever closed it printed it, or was told it failed); if it did not come out, \`ship containers label CT-PRINT --printer ${printer.url}\` prints it`);
      await new Promise((res) => setTimeout(res, 50));
      expect(printer.jobs).toHaveLength(1);
      // Nor is the printer asked about: off, out of paper or unplugged, the rerun is still "already closed", exit 0.
      const off = await ship(['containers', 'close', 'CT-PRINT', '--yes', '--print', '--printer', 'tcp://127.0.0.1:1', '--json']);
      expect(off.code, off.stderr).toBe(0);
      expect(JSON.parse(off.stdout)).toMatchObject({ message: 'already closed', label: null });
    } finally {
      await printer.close();
    }
  });

  it('without --yes and without a terminal, a container closed already is said at once (exit 0): nothing needs confirming', async () => {
    await createContainer('CT-NOTTY');
    expect((await ship(['containers', 'close', 'CT-NOTTY', '--yes'])).code).toBe(0);
    const r = await ship(['containers', 'close', 'CT-NOTTY']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('Container CT-NOTTY was already closed');
    // An open one still needs --yes there.
    await createContainer('CT-NOTTY2');
    const open = await ship(['containers', 'close', 'CT-NOTTY2']);
    expect(open.code).toBe(2);
    expect(open.stderr).toMatch(/needs confirmation/);
  });

  it('close --print -o PATH: a label that cannot be written still says the container is closed', async () => {
    await createContainer('CT-NOFILE');
    const blocker = join(mkdtempSync(join(tmpdir(), 'ship-ct-')), 'blocker');
    writeFileSync(blocker, 'a file where a directory is needed');
    const r = await ship(['containers', 'close', 'CT-NOFILE', '--yes', '--print', '--format', 'PDF', '-o', join(blocker, 'the label.pdf')]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/container CT-NOFILE was closed, but its label could not be delivered/);
    // The way to get it names the same destination, and says closing again prints nothing.
    // (Its format too, and the path quoted for the shell.)
    expect(r.stderr).toContain(`closing it again prints nothing); get its label with \`ship containers label CT-NOFILE --format PDF -o '${join(blocker, 'the label.pdf')}'\``);
    expect((await api('GET', '/containers/CT-NOFILE')).body.data.status).toBe('Closed');
  });

  it('close --print --printer to a printer that is down: the hint to get the label keeps --printer', async () => {
    await createContainer('CT-NOPRINTER');
    const r = await ship(['containers', 'close', 'CT-NOPRINTER', '--yes', '--print', '--printer', 'tcp://127.0.0.1:1', '--no-preflight', '--printer-timeout', '1']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('get its label with `ship containers label CT-NOPRINTER --printer tcp://127.0.0.1:1`');
  });

  it('a printer that does not answer ~HS: close and label refuse naming --no-preflight, which they accept and send without asking', async () => {
    await createContainer('CT-SILENT');
    const printer = await fakePrinter({ silent: true });
    try {
      const refused = await ship(['containers', 'close', 'CT-SILENT', '--yes', '--print', '--printer', printer.url, '--printer-timeout', '0.3']);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(/--no-preflight/);
      expect((await api('GET', '/containers/CT-SILENT')).body.data.status).toBe('Open');

      const closed = await ship(['containers', 'close', 'CT-SILENT', '--yes', '--print', '--printer', printer.url, '--no-preflight', '--json']);
      expect(closed.code, closed.stderr).toBe(0);
      expect((await api('GET', '/containers/CT-SILENT')).body.data.status).toBe('Closed');

      const label = await ship(['containers', 'label', 'CT-SILENT', '--printer', printer.url, '--no-preflight', '--printer-timeout', '2']);
      expect(label.code, label.stderr).toBe(0);
      await new Promise((res) => setTimeout(res, 50));
      expect(printer.jobs).toHaveLength(2);
      for (const job of printer.jobs) expect(job.toString('utf8')).toMatch(/\^XA[\s\S]*\^XZ/);
      expect((await ship(['containers', 'label', 'CT-SILENT', '--printer', printer.url, '--printer-timeout', 'soon'])).code).toBe(2);
    } finally {
      await printer.close();
    }
  });

  it('does not close when the printer cannot be reached', async () => {
    await createContainer('CT-NOPRINT');
    const printer = await fakePrinter();
    await printer.close();
    const r = await ship(['containers', 'close', 'CT-NOPRINT', '--yes', '--print', '--printer', printer.url]);
    expect(r.code).toBe(1);
    expect((await api('GET', '/containers/CT-NOPRINT')).body.data.status).toBe('Open');
  });

  it('saves the label (ZPL and PDF), the documents and the invoice of a closed container', async () => {
    await createContainer('CT-DOCS');
    await shipment('S-D', 'CT-DOCS');
    expect((await ship(['containers', 'close', 'CT-DOCS', '--yes'])).code).toBe(0);

    const zpl = await ship(['containers', 'label', 'CT-DOCS', '-o', '-']);
    expect(zpl.code, zpl.stderr).toBe(0);
    expect(zpl.stdout).toMatch(/\^XA/);
    const pdfPath = join(dir, 'label.pdf');
    const pdf = await ship(['containers', 'label', 'CT-DOCS', '--format', 'pdf', '-o', pdfPath]);
    expect(pdf.code, pdf.stderr).toBe(0);
    expect(readFileSync(pdfPath).subarray(0, 5).toString('latin1')).toBe('%PDF-');

    const docsDir = join(dir, 'docs');
    const docs = await ship(['containers', 'documents', 'CT-DOCS', '-o', docsDir, '--json']);
    expect(docs.code, docs.stderr).toBe(0);
    const files = readdirSync(docsDir);
    expect(files.length).toBeGreaterThan(0);
    for (const f of files) expect(readFileSync(join(docsDir, f)).subarray(0, 5).toString('latin1')).toBe('%PDF-');
    expect(JSON.parse(docs.stdout).documents).toHaveLength(files.length);

    const invPath = join(dir, 'invoice.pdf');
    const inv = await ship(['containers', 'invoice', 'CT-DOCS', '-o', invPath]);
    expect(inv.code, inv.stderr).toBe(0);
    expect(readFileSync(invPath).subarray(0, 5).toString('latin1')).toBe('%PDF-');
  });

  it('a container addressed by its ID is named by its reference: results, messages and file names', async () => {
    const c = await createContainer('CT-BYID');
    await shipment('S-ID', 'CT-BYID');
    const closed = await ship(['containers', 'close', c.id, '--yes', '--json']);
    expect(closed.code, closed.stderr).toBe(0);
    expect(JSON.parse(closed.stdout)).toMatchObject({ reference: 'CT-BYID', status: 'Closed' });
    const cwd = process.cwd();
    process.chdir(dir);
    try {
      const label = await ship(['containers', 'label', c.id, '--json']);
      expect(label.code, label.stderr).toBe(0);
      expect(JSON.parse(label.stdout)).toMatchObject({ reference: 'CT-BYID', path: join(realpathSync(dir), 'container-CT-BYID.zpl') });
    } finally {
      process.chdir(cwd);
    }
  });

  it('says to close the container first when documents are asked of an open one', async () => {
    await createContainer('CT-OPENDOCS');
    const r = await ship(['containers', 'invoice', 'CT-OPENDOCS', '-o', join(dir, 'x.pdf')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/ship containers close CT-OPENDOCS/);
  });

  it('explains a refused delete with the shipments to cancel, and deletes once they are cancelled', async () => {
    await createContainer('CT-DEL');
    await shipment('S-DEL-1', 'CT-DEL');
    const refused = await ship(['containers', 'delete', 'CT-DEL', '--yes']);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/S-DEL-1/);
    expect(refused.stderr).toMatch(/ship cancel S-DEL-1/);
    expect((await api('DELETE', '/shipments/S-DEL-1')).status).toBe(200);
    const ok = await ship(['containers', 'delete', 'CT-DEL', '--yes']);
    expect(ok.code, ok.stderr).toBe(0);
    expect((await ship(['containers', 'show', 'CT-DEL'])).code).toBe(5);
  });

  it('closing a container that is closed already is no failure: "already closed", exit 0 (a script can be rerun); --print still delivers the label', async () => {
    await createContainer('CT-TWICE');
    await shipment('S-TWICE', 'CT-TWICE');
    expect((await ship(['containers', 'close', 'CT-TWICE', '--yes'])).code).toBe(0);
    // The API refuses the transition itself (there is none from Closed)…
    const refused = await api('PATCH', '/containers/CT-TWICE/close');
    expect(refused.status).toBe(400);
    // …and ship reads the container's state to say what it is.
    const again = await ship(['containers', 'close', 'CT-TWICE', '--yes']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain('Container CT-TWICE was already closed');
    expect(again.stdout).toBe('');
    const j = await ship(['containers', 'close', 'CT-TWICE', '--yes', '--json']);
    expect(j.code, j.stderr).toBe(0);
    expect(JSON.parse(j.stdout)).toEqual({ reference: 'CT-TWICE', status: 'Closed', message: 'already closed' });
    const q = await ship(['containers', 'close', 'CT-TWICE', '--yes', '--quiet']);
    expect([q.code, q.stdout]).toEqual([0, 'CT-TWICE\n']);
    const out = join(dir, 'twice.zpl');
    const printed = await ship(['containers', 'close', 'CT-TWICE', '--yes', '--print', '-o', out, '--json']);
    expect(printed.code, printed.stderr).toBe(0);
    expect(JSON.parse(printed.stdout)).toMatchObject({ message: 'already closed', label: { format: 'ZPL', path: out } });
    expect(readFileSync(out, 'utf8')).toMatch(/\^XA/);
  });

  it('other refusals to close keep their exit code: an unknown container is 5', async () => {
    const r = await ship(['containers', 'close', 'CT-NOSUCH', '--yes']);
    expect(r.code).toBe(5);
    expect(r.stderr).toContain('CT-NOSUCH');
  });

  it('an empty closed container: the refused delete says it is closed, not that shipments are manifested', async () => {
    await createContainer('CT-DELE');
    expect((await ship(['containers', 'close', 'CT-DELE', '--yes'])).code).toBe(0);
    const refused = await ship(['containers', 'delete', 'CT-DELE', '--yes']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('the container is closed (handed to the carrier), so it cannot be deleted');
    expect(refused.stderr).not.toMatch(/manifested|ship cancel/);
  });

  it('a closed container: the refused delete says it is closed, without advice to cancel what cannot be', async () => {
    await createContainer('CT-DELC');
    await shipment('S-DELC-1', 'CT-DELC');
    expect((await ship(['containers', 'close', 'CT-DELC', '--yes'])).code).toBe(0);
    const refused = await ship(['containers', 'delete', 'CT-DELC', '--yes']);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('the container is closed: its 1 shipment is manifested and can no longer be cancelled, so it cannot be deleted');
    expect(refused.stderr).not.toMatch(/ship cancel/);
  });
});
