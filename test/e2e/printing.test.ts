// Raw-socket printing, the built binary against the in-process sandbox and a loopback fake ZPL printer whose
// ~HS answer and pace are set per test: status answers it cannot read, Ctrl-C during a batch.
import { createServer } from 'node:net';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ship } from '../helpers/bin.js';
import { fakePrinter, hs, HS_READY, until } from '../helpers/printer.js';
import { apiCall, createParcels, shipmentFile, useTestSandbox } from '../helpers/sandbox.js';

const { sb, env } = useTestSandbox();

const createShipment = (ref: string, parcels: number) => createParcels(env as never, ref, parcels);

/** Runs `args`, and once the printer has two labels sends the run `signal`; resolves to how the run ended. */
async function stopWhilePrinting(args: string[], printer: { jobs: Buffer[] }, signal: NodeJS.Signals) {
  const run = ship(args, { env });
  await until(() => printer.jobs.length >= 2);
  run.kill(signal);
  return run.catch((e: unknown) => e as Awaited<typeof run>);
}

/** A work directory with DIR/orders.csv of one single-parcel shipment per reference `PREFIX1`…`PREFIXn`. */
function ordersFile(prefix: string, n: number): { dir: string; csv: string; refs: string[] } {
  const dir = mkdtempSync(join(tmpdir(), 'ship-print-csv-'));
  const csv = join(dir, 'orders.csv');
  const refs = Array.from({ length: n }, (_, i) => `${prefix}${i + 1}`);
  writeFileSync(csv, `shipment_reference,to_name,to_line_1,to_city,to_postcode,to_country,weight\n${refs.map((r) => `${r},Ann,1 High Street,London,SW1A 1AA,GB,1000`).join('\n')}\n`);
  return { dir, csv, refs };
}

describe('~HS status answers ship cannot read', () => {
  it.each([
    ['too few fields', hs('abc,x,y', 'a,b,c,d'), /too few fields/],
    ['a paper-out flag that is not 0 or 1', hs('030,Y,0,1245,000,0,0,0,000,0,0,0', '001,0,0,0,0,2,4,0,00000000,1,000'), /flags that are not 0 or 1/],
  ])('%s: refused (exit 1), nothing sent', async (_what, status, message) => {
    await createShipment(`HS-BAD-${status.length}`, 1);
    const printer = await fakePrinter({ status });
    try {
      const r = await ship(['print', `HS-BAD-${status.length}`, '--printer', printer.url], { env });
      expect(r.exitCode, String(r.stderr)).toBe(1);
      expect(String(r.stderr)).toMatch(message);
      expect(String(r.stderr)).toMatch(/--no-preflight sends without asking/);
      expect(printer.jobs).toHaveLength(0);
    } finally {
      await printer.close();
    }
  });
});

describe('~HS answered in part', () => {
  it('two of the three strings, then nothing: exit 1 saying what came (it was not silence), nothing sent', async () => {
    await createShipment('HS-PART', 1);
    const printer = await fakePrinter({ status: HS_READY.split('\r\n').slice(0, 2).join('\r\n') + '\r\n', statusKeepsOpen: true });
    try {
      const r = await ship(['print', 'HS-PART', '--printer', printer.url, '--printer-timeout', '1'], { env });
      expect(r.exitCode, String(r.stderr)).toBe(1);
      expect(String(r.stderr)).toContain(`printer ${printer.url} sent only part of its status answer (~HS) within 1s`);
      expect(printer.jobs).toHaveLength(0);
    } finally {
      await printer.close();
    }
  });
});

describe('printer addresses', () => {
  it('tcp://HOST without a port, port 0 or 70000, http://: exit 2 saying why, as `config set printers.NAME` says it', async () => {
    const cfg = { ...env, SHIP_CONFIG_DIR: mkdtempSync(join(tmpdir(), 'ship-printer-addr-')) };
    const cases: Array<[string, RegExp]> = [
      ['tcp://127.0.0.1', /"tcp:\/\/127\.0\.0\.1" has no port\nhint: a label printer's raw port is usually 9100: tcp:\/\/127\.0\.0\.1:9100/],
      ['tcp://127.0.0.1:0', /port 0 is not a TCP port \(1 to 65535\)/],
      ['tcp://127.0.0.1:70000', /port 70000 is not a TCP port \(1 to 65535\)/],
      ['http://127.0.0.1:9100', /"http:\/\/127\.0\.0\.1:9100" is not a raw printer address/],
    ];
    for (const [url, message] of cases) {
      const r = await ship(['label', 'ANY-PARCEL', '--printer', url], { env: cfg });
      expect(r.exitCode, `${url}: ${r.stderr}`).toBe(2);
      expect(String(r.stderr)).toMatch(message);
      const set = await ship(['config', 'set', 'printers.dock3', url], { env: cfg });
      expect(set.exitCode, url).toBe(2);
    }
    // Before the change --printer took tcp://HOST as port 9100 while the config refused it: now neither does.
    expect(String((await ship(['config', 'set', 'printers.dock3', 'tcp://127.0.0.1'], { env: cfg })).stderr)).toMatch(/has no port/);
  });

  it('a link-local address whose zone names no interface of this machine: exit 1 saying so, before anything is created or sent', async () => {
    const cfg = { ...env, SHIP_CONFIG_DIR: mkdtempSync(join(tmpdir(), 'ship-printer-zone-')) };
    const lacking = /the zone "%nosuchif" names a network interface this machine does not have \(or that is down\); this machine's interfaces: \S/;
    const label = await ship(['label', 'ANY-PARCEL', '--printer', 'tcp://[fe80::1%nosuchif]:9100'], { env: cfg });
    expect(label.exitCode, String(label.stderr)).toBe(1);
    expect(String(label.stderr)).toContain('error: printer tcp://[fe80::1%nosuchif]:9100: ');
    expect(String(label.stderr)).toMatch(lacking);
    expect(String(label.stderr)).toMatch(/hint: name the interface the printer is on .*, e\.g\. tcp:\/\/\[fe80::1%\S+\]:9100/);
    // A profile's printer, written as RFC 6874 does; create stops before the shipment is made.
    expect((await ship(['config', 'set', 'printers.dock3', 'tcp://[fe80::1%25nosuchif]:9100'], { env: cfg })).exitCode).toBe(0);
    const { dir, file } = shipmentFile('PRN-ZONE', 1, 'ship-printer-zone-create-');
    const create = await ship(['create', '--file', file, '--output-dir', dir, '--printer', 'dock3'], { env: cfg });
    expect(create.exitCode, String(create.stderr)).toBe(1);
    expect(String(create.stderr)).toContain('error: printer dock3 (tcp://[fe80::1%nosuchif]:9100): ');
    expect(String(create.stderr)).toMatch(lacking);
    expect(String(create.stderr)).toMatch(/hint: .*, e\.g\. ship config set printers\.dock3 tcp:\/\/\[fe80::1%\S+\]:9100/);
    expect((await apiCall(env as never, 'GET', '/shipments/PRN-ZONE/events')).status).toBe(404);
  });

  it('IPv6 loopback tcp://[::1]:PORT: the labels go there', async (t) => {
    const jobs: Buffer[] = [];
    const server = createServer((sock) => {
      const chunks: Buffer[] = [];
      sock.on('error', () => {});
      sock.on('data', (d) => {
        chunks.push(d);
        if (chunks.length === 1 && d.toString('latin1').startsWith('~HS')) sock.end(HS_READY);
      });
      sock.on('end', () => {
        if (!chunks[0]?.toString('latin1').startsWith('~HS')) jobs.push(Buffer.concat(chunks));
      });
    });
    const listening = await new Promise<boolean>((r) => {
      server.once('error', () => r(false));
      server.listen(0, '::1', () => r(true));
    });
    if (!listening) t.skip();
    try {
      const refs = await createShipment('PRN-V6', 2);
      const r = await ship(['print', 'PRN-V6', '--printer', `tcp://[::1]:${(server.address() as { port: number }).port}`, '--json'], { env });
      expect(r.exitCode, String(r.stderr)).toBe(0);
      expect(JSON.parse(String(r.stdout))).toMatchObject({ status: 'sent', labels: refs });
      expect(jobs).toHaveLength(2);
    } finally {
      await new Promise((r) => server.close(r));
    }
  });
});

describe('Ctrl-C while labels are being sent', () => {
  // The printer takes its time over each label (300 ms), so Ctrl-C lands in the middle of the batch.
  it('ship print --printer: the label under way finishes, none is started after it; exit 130 naming what was sent and not', async () => {
    const refs = await createShipment('PRN-INT', 6);
    const printer = await fakePrinter({ closeDelayMs: 300 });
    try {
      const run = ship(['print', 'PRN-INT', '--printer', printer.url], { env });
      await until(() => printer.jobs.length >= 2);
      run.kill('SIGINT');
      const r = await run;
      expect(r.exitCode, String(r.stderr)).toBe(130);
      const n = printer.jobs.length;
      expect(n).toBeGreaterThanOrEqual(2);
      expect(n).toBeLessThan(6);
      await new Promise((res) => setTimeout(res, 400));
      expect(printer.jobs).toHaveLength(n);
      const stderr = String(r.stderr);
      expect(stderr).toContain(`interrupted: ${n} of the 6 labels of PRN-INT ${n === 1 ? 'was' : 'were'} sent (${refs.slice(0, n).join(', ')}); not sent: ${refs.slice(n).join(', ')}.`);
      expect(stderr).toContain(`\`ship label ${refs[n]} --printer ${printer.url}\``);
      expect(String(r.stdout)).toBe('');
    } finally {
      await printer.close();
    }
  });

  it('ship label --printer: the label under way is finished before ship exits 130, saying it went out whole', async () => {
    const [parcel] = await createShipment('LBL-INT', 1);
    // The printer takes 200 ms over the label (ship waits up to 250 ms for it to close the job), so Ctrl-C lands
    // while ship waits for it to finish.
    const printer = await fakePrinter({ closeDelayMs: 200 });
    const dir = mkdtempSync(join(tmpdir(), 'ship-label-int-'));
    try {
      const run = ship(['label', parcel, '--printer', printer.url, '-o', join(dir, 'label.zpl')], { env });
      await until(() => printer.jobs.length >= 1);
      expect(printer.finished).toBe(0);
      run.kill('SIGINT');
      const r = await run;
      // Not cut off: the printer had finished the job (closed its side) before ship exited.
      expect(printer.finished).toBe(1);
      expect(r.exitCode, String(r.stderr)).toBe(130);
      expect(printer.jobs).toHaveLength(1);
      expect(printer.jobs[0].subarray(0, 64).toString('latin1')).toMatch(/\^XA/);
      const stderr = String(r.stderr);
      expect(stderr).toContain(
        `interrupted: the label of ${parcel} being sent was finished: it went to printer ${printer.url} whole (${printer.jobs[0].length} bytes), and nothing is left to send; the label is saved as ${join(dir, 'label.zpl')}. Do not send it again unless it did not print`,
      );
      expect(String(r.stdout)).toBe('');
    } finally {
      await printer.close();
    }
  });

  it('ship create --file --printer: the shipment is shown, then the labels not sent and how to send them (exit 130)', async () => {
    const { dir, file } = shipmentFile('CRT-INT', 5, 'ship-print-int-');
    const printer = await fakePrinter({ closeDelayMs: 300 });
    try {
      const run = ship(['create', '--file', file, '--output-dir', join(dir, 'labels'), '--printer', printer.url, '--quiet'], { env });
      await until(() => printer.jobs.length >= 1);
      run.kill('SIGINT');
      const r = await run;
      expect(r.exitCode, String(r.stderr)).toBe(130);
      const n = printer.jobs.length;
      expect(n).toBeLessThan(5);
      const tracking = String(r.stdout).trim().split('\n');
      expect(tracking).toHaveLength(5);
      expect(String(r.stderr)).toContain(`interrupted: shipment CRT-INT was created, but ${5 - n} of its 5 labels were not sent to printer ${printer.url}; do not create it again`);
      expect(String(r.stderr)).toContain(`\`ship label ${tracking[n]} --printer ${printer.url}\``);
    } finally {
      await printer.close();
    }
  });

  it('ship create --csv --printer: no label is sent after Ctrl-C; the shipments left are named ("labels_not_sent"), and the rerun sends them', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ship-print-int-csv-'));
    const csv = join(dir, 'orders.csv');
    const rows = Array.from({ length: 12 }, (_, i) => `CSV-INT-${String(i + 1).padStart(2, '0')},Ann,1 High Street,London,SW1A 1AA,GB,${1000 + i},20,15,10`);
    writeFileSync(csv, `shipment_reference,to_name,to_line_1,to_city,to_postcode,to_country,weight,length,width,depth\n${rows.join('\n')}\n`);
    const printer = await fakePrinter({ closeDelayMs: 300 });
    const args = ['create', '--csv', csv, '--output-dir', join(dir, 'labels'), '--printer', printer.url, '--yes', '--json'];
    try {
      const r = await stopWhilePrinting(args, printer, 'SIGINT');
      expect(r.exitCode, String(r.stderr)).toBe(130);
      const n = printer.jobs.length;
      const lines = String(r.stdout).trim().split('\n').map((l) => JSON.parse(l));
      const created = lines.filter((l) => l.status === 'created');
      const notSent = created.filter((l) => l.labels_not_sent === 1).map((l) => l.shipment_reference);
      // Every created shipment's label either reached the printer or is named as not sent, in input order.
      expect(created.length - notSent.length).toBe(n);
      expect(notSent.length).toBeGreaterThan(0);
      expect(created.slice(n).map((l) => l.shipment_reference)).toEqual(notSent);
      expect(String(r.stderr)).toContain(`interrupted: the labels of ${notSent.length} created shipment${notSent.length === 1 ? '' : 's'} were not sent to printer ${printer.url}: ${notSent[0]}`);
      expect(String(r.stderr)).not.toMatch(/printer \S+ failed/);
      // All of them in a file beside the CSV (the message names five), with how to send them all.
      const list = join(dir, 'orders.unprinted.txt');
      expect(readFileSync(list, 'utf8')).toBe(notSent.map((ref) => `${ref}\n`).join(''));
      expect(String(r.stderr)).toContain(`xargs -n1 ship print --printer ${printer.url} < ${list}`);
      expect(String(r.stderr)).not.toMatch(/nothing is left to do/);
      await new Promise((res) => setTimeout(res, 400));
      expect(printer.jobs).toHaveLength(n);
      // The rerun creates what was not created, and sends the labels owed (in input order) and those of what it
      // creates; those that went out are not printed twice.
      const again = await ship(args, { env });
      expect(again.exitCode, String(again.stderr)).toBe(0);
      const rerunCreated = String(again.stdout).trim().split('\n').map((l) => JSON.parse(l)).filter((l) => l.status === 'created');
      expect(printer.jobs).toHaveLength(n + notSent.length + rerunCreated.length);
      const refsPrinted = printer.jobs.map((j) => /CSV-INT-\d\d/.exec(j.toString('latin1'))?.[0]);
      expect(new Set(refsPrinted).size).toBe(refsPrinted.length);
      expect(refsPrinted.slice(n, n + notSent.length)).toEqual(notSent);
      // Nothing is owed any more: the list goes (a script following it would print them again).
      expect(existsSync(list)).toBe(false);
    } finally {
      await printer.close();
    }
  });

  it('ship create --csv --printer: Ctrl-C in the middle of a shipment\'s labels owes only those not sent (not its whole shipment again)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ship-print-int-mp-'));
    const csv = join(dir, 'orders.csv');
    // One shipment of four parcels (a row each).
    writeFileSync(csv, `shipment_reference,to_name,to_line_1,to_city,to_postcode,to_country,weight\n${[1, 2, 3, 4].map((i) => `MP-INT,Ann,1 High Street,London,SW1A 1AA,GB,${1000 + i}`).join('\n')}\n`);
    const printer = await fakePrinter({ closeDelayMs: 300 });
    try {
      const r = await stopWhilePrinting(['create', '--csv', csv, '--output-dir', join(dir, 'labels'), '--printer', printer.url, '--yes', '--json'], printer, 'SIGINT');
      expect(r.exitCode, String(r.stderr)).toBe(130);
      const line = JSON.parse(String(r.stdout).trim().split('\n')[0]);
      const sent = 4 - line.labels_not_sent;
      expect(sent).toBeGreaterThanOrEqual(2);
      expect(printer.jobs.length).toBe(sent);
      // The parcels not sent are named, each to send alone; the shipment is not owed whole.
      expect(String(r.stderr)).toContain(`ship label ${line.tracking_references[sent]} --printer ${printer.url}`);
      expect(existsSync(join(dir, 'orders.unprinted.txt'))).toBe(false);
    } finally {
      await printer.close();
    }
  });

  it('ship create --csv --printer to a printer that hangs (takes connections, reads nothing): labels not confirmed are owed, not reported sent', async () => {
    const { dir, csv, refs } = ordersFile('CSV-STALL-', 6);
    const hung = await fakePrinter({ stallAfter: 3 });
    const args = (url: string) => ['create', '--csv', csv, '--output-dir', join(dir, 'labels'), '--printer', url, '--printer-timeout', '1', '--yes', '--json'];
    try {
      const r = await ship(args(hung.url), { env });
      expect(r.exitCode, String(r.stderr)).toBe(1);
      expect(hung.jobs).toHaveLength(3);
      const error = JSON.parse(String(r.stderr).trim().split('\n').at(-1)!).error;
      expect(error.message).toMatch(/did not answer its status after the last labels/);
      // It hung after reading the 3rd: no status answer came after it, so the 3rd is not known to print (owed,
      // with the rest, not counted as sent), and nothing more was sent.
      expect(readFileSync(join(dir, 'orders.unprinted.txt'), 'utf8')).toBe(refs.slice(2).map((ref) => `${ref}\n`).join(''));
    } finally {
      await hung.close();
    }
    const good = await fakePrinter();
    try {
      const again = await ship(args(good.url), { env });
      expect(again.exitCode, String(again.stderr)).toBe(0);
      expect(good.jobs.map((j) => /CSV-STALL-\d/.exec(j.toString('latin1'))?.[0])).toEqual(refs.slice(2));
    } finally {
      await good.close();
    }
  });

  it('ship create --csv --printer to a printer that runs out of paper mid-batch: no more labels sent, the rest owed, exit 1', async () => {
    const { dir, csv, refs } = ordersFile('CSV-PAPER-', 5);
    const paperOut = hs('030,1,0,1245,000,0,0,0,000,0,0,0', '001,0,0,0,0,2,4,0,00000000,1,000');
    const printer = await fakePrinter({ later: { afterJobs: 2, status: paperOut } });
    try {
      const r = await ship(['create', '--csv', csv, '--output-dir', join(dir, 'labels'), '--printer', printer.url, '--yes', '--json'], { env });
      expect(r.exitCode, String(r.stderr)).toBe(1);
      // The two it read print once paper is loaded; the others were not sent.
      expect(printer.jobs).toHaveLength(2);
      expect(JSON.parse(String(r.stderr).trim().split('\n').at(-1)!).error.message).toMatch(/reports paper \(labels\) out: no more labels sent to it/);
      expect(readFileSync(join(dir, 'orders.unprinted.txt'), 'utf8')).toBe(refs.slice(2).map((ref) => `${ref}\n`).join(''));
    } finally {
      await printer.close();
    }
  });

  it('ship create --csv --printer killed (SIGKILL) while printing: the rerun sends every label not known to have gone out, none lost', async () => {
    // (Nine, so that one reference is never the start of another's: CSV-KILL-1 and CSV-KILL-10.)
    const { dir, csv, refs } = ordersFile('CSV-KILL-', 9);
    const printer = await fakePrinter({ closeDelayMs: 300 });
    const args = ['create', '--csv', csv, '--output-dir', join(dir, 'labels'), '--printer', printer.url, '--yes', '--json'];
    try {
      await stopWhilePrinting(args, printer, 'SIGKILL');
      // No FILE.unprinted.txt (the run never got to its end): the ledger beside the journal knows.
      const again = await ship(args, { env });
      expect(again.exitCode, String(again.stderr)).toBe(0);
      await new Promise((res) => setTimeout(res, 400));
      const printed = printer.jobs.map((j) => /CSV-KILL-\d/.exec(j.toString('latin1'))?.[0]);
      // Every shipment's label reached the printer; at most the one being sent when the process died came twice.
      expect(new Set(printed)).toEqual(new Set(refs));
      expect(printed.length - refs.length).toBeLessThanOrEqual(1);
    } finally {
      await printer.close();
    }
  });
});
