// cancel, track, label, print, invoice: the built binary against the in-process sandbox.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, existsSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ship } from '../helpers/bin.js';
import { useTestSandbox } from '../helpers/sandbox.js';
import { freePort } from '../helpers/net.js';

const { sb, env } = useTestSandbox();

/** Creates a shipment straight through the API (not through `ship create`, which has its own tests). */
async function createShipment(ref: string, parcels = 1): Promise<{ trackingRefs: string[] }> {
  const res = await fetch(`${sb.baseUrl}/shipments`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json', 'x-service-api-key': env.SHIP_API_KEY, 'x-service-token': env.SHIP_TOKEN },
    body: JSON.stringify({
      shipment_reference: ref,
      to_address: { name: 'Ann Example', line_1: '1 High Street', city: 'London', postcode: 'SW1A 1AA', country: 'GB' },
      parcels: Array.from({ length: parcels }, (_, i) => ({ reference: `${ref}-P${i + 1}`, weight: 1000 + i, length: 20, width: 15, depth: 10 })),
    }),
  });
  const body = (await res.json()) as { data: Array<{ tracking_reference: string }> };
  if (res.status >= 300) throw new Error(`create ${ref}: ${res.status} ${JSON.stringify(body)}`);
  const ev = await fetch(`${sb.baseUrl}/shipments/${encodeURIComponent(ref)}/events`, {
    headers: { accept: 'application/json', 'x-service-api-key': env.SHIP_API_KEY, 'x-service-token': env.SHIP_TOKEN },
  });
  const evBody = (await ev.json()) as { data: Record<string, unknown> };
  return { trackingRefs: Object.keys(evBody.data) };
}

/** A printer's answer to ~HS: ready (no paper out, pause or head open). */
const HS_READY = '\x02030,0,0,1245,000,0,0,0,000,0,0,0\x03\r\n\x02001,0,0,0,0,2,4,0,00000000,1,000\x03\r\n\x021234,0\x03\r\n';

/** A loopback raw printer: answers ~HS as ready, records the bytes of every other connection. */
async function rawPrinter(): Promise<{ url: string; jobs: Buffer[]; close(): Promise<void> }> {
  const jobs: Buffer[] = [];
  const server: Server = createServer((sock) => {
    const chunks: Buffer[] = [];
    sock.on('data', (d) => {
      chunks.push(d);
      if (d.toString('latin1').startsWith('~HS')) {
        sock.end(HS_READY);
      }
    });
    sock.on('close', () => {
      const all = Buffer.concat(chunks);
      if (!all.toString('latin1').startsWith('~HS')) jobs.push(all);
    });
    sock.on('error', () => {});
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  return { url: `tcp://127.0.0.1:${port}`, jobs, close: () => new Promise((r) => server.close(() => r())) };
}

async function apiGetLabel(trk: string, format: string): Promise<any> {
  const res = await fetch(`${sb.baseUrl}/parcels/${encodeURIComponent(trk)}/label?format=${format}`, {
    headers: { accept: 'application/json', 'x-service-api-key': env.SHIP_API_KEY, 'x-service-token': env.SHIP_TOKEN },
  });
  const body = (await res.json()) as { data: any };
  return Array.isArray(body.data) ? body.data[0] : body.data;
}

describe('ship create (one shipment)', () => {
  it('a 429 from the rate limit is waited out (Retry-After) and the shipment created once, as a script calling ship per order needs', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ship-429-'));
    const file = join(dir, 'shipment.json');
    writeFileSync(
      file,
      JSON.stringify({
        shipment_reference: 'RL-429-1',
        to_address: { name: 'Ann Example', line_1: '1 High Street', city: 'London', postcode: 'SW1A 1AA', country: 'GB' },
        parcels: [{ weight: 1000, length: 20, width: 15, depth: 10 }],
      }),
    );
    await sb.control('faults', { rate_limit_per_s: 1 });
    try {
      // The second-long window's one request is taken: ship's POST is refused with 429 until the window ends.
      await fetch(`${sb.baseUrl}/services`, { headers: { accept: 'application/json', 'x-service-api-key': env.SHIP_API_KEY, 'x-service-token': env.SHIP_TOKEN } });
      const r = await ship(['create', '--file', file, '-o', dir, '--json', '--verbose'], { env });
      expect(r.exitCode, String(r.stderr)).toBe(0);
      expect(String(r.stderr)).toMatch(/← 429 .*\n.*retrying in \d+ ms \(Retry-After\)/);
      expect(JSON.parse(String(r.stdout))).toEqual([expect.objectContaining({ tracking_reference: expect.any(String) })]);
    } finally {
      await sb.control('faults', {});
    }
    const ev = await fetch(`${sb.baseUrl}/shipments/RL-429-1/events`, { headers: { accept: 'application/json', 'x-service-api-key': env.SHIP_API_KEY, 'x-service-token': env.SHIP_TOKEN } });
    expect(Object.keys(((await ev.json()) as { data: Record<string, unknown> }).data)).toHaveLength(1);
  });
});

describe('ship create --csv under a rate limit', () => {
  it('waits out 429s at the rate the service takes (beyond the 3 retries), says so once, and creates every shipment once', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ship-429-bulk-'));
    const csv = join(dir, 'orders.csv');
    const refs = Array.from({ length: 10 }, (_, i) => `RL-BULK-${i + 1}`);
    writeFileSync(csv, ['shipment_reference,to_name,to_line_1,to_city,to_postcode,to_country,weight', ...refs.map((r) => `${r},Ann Example,1 High Street,London,SW1A 1AA,GB,1000`)].join('\n') + '\n');
    // 2 requests a second, 8 at a time: most of each second's requests are refused, several times over for some
    // (with the 3 retries counted for 429s, some shipments failed).
    await sb.control('faults', { rate_limit_per_s: 2 });
    let r;
    try {
      r = await ship(['create', '--csv', csv, '-o', join(dir, 'labels'), '--json'], { env });
    } finally {
      await sb.control('faults', {});
    }
    expect(r.exitCode, String(r.stderr)).toBe(0);
    const lines = String(r.stdout).trim().split('\n').map((l) => JSON.parse(l));
    expect(lines.map((l) => [l.shipment_reference, l.status])).toEqual(refs.map((ref) => [ref, 'created']));
    const stderr = String(r.stderr).trim().split('\n').map((l) => JSON.parse(l));
    expect(stderr.filter((l) => l.warning?.message.includes('limiting the request rate (429)'))).toHaveLength(1);
    expect(stderr.at(-1).summary).toMatchObject({ created: 10, failed: 0 });
    for (const ref of refs) {
      const ev = await fetch(`${sb.baseUrl}/shipments/${ref}/events`, { headers: { accept: 'application/json', 'x-service-api-key': env.SHIP_API_KEY, 'x-service-token': env.SHIP_TOKEN } });
      expect(Object.keys(((await ev.json()) as { data: Record<string, unknown> }).data)).toHaveLength(1);
    }
  }, 30_000);
});

describe.skipIf(process.platform === 'win32')('a CSV given as a pipe by its path (<(…) in a shell, /dev/stdin, a named pipe)', () => {
  it('create --csv /dev/stdin and a named pipe: read once like stdin, every shipment created, journaled as stdin\'s', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ship-csv-pipe-'));
    const header = 'shipment_reference,to_name,to_line_1,to_city,to_postcode,to_country,weight';
    const row = (ref: string, postcode = 'SW1A 1AA') => `${ref},Ann Example,1 High Street,London,${postcode},GB,1000`;
    const viaStdin = await ship(['create', '--csv', '/dev/stdin', '-o', join(dir, 'labels'), '--json'], { env, input: [header, row('PIPE-1'), row('PIPE-2')].join('\n') + '\n', stdin: undefined, cwd: dir });
    expect(viaStdin.exitCode, String(viaStdin.stderr)).toBe(0);
    expect(String(viaStdin.stdout).trim().split('\n').map((l) => JSON.parse(l).status)).toEqual(['created', 'created']);
    // A named pipe, as `<(…)` gives: written while ship reads it.
    const fifo = join(dir, 'orders.fifo');
    execFileSync('mkfifo', [fifo]);
    const run = ship(['create', '--csv', fifo, '-o', join(dir, 'labels'), '--json'], { env, cwd: dir });
    writeFileSync(fifo, [header, row('PIPE-3'), row('PIPE-4')].join('\n') + '\n');
    const viaFifo = await run;
    expect(viaFifo.exitCode, String(viaFifo.stderr)).toBe(0);
    expect(String(viaFifo.stdout).trim().split('\n').map((l) => [JSON.parse(l).shipment_reference, JSON.parse(l).status])).toEqual([['PIPE-3', 'created'], ['PIPE-4', 'created']]);
    // Its journal is stdin's (nothing can be written beside a pipe, and the next pipe holds other orders).
    const journals = readdirSync(join(dir, 'labels')).filter((f) => f.startsWith('.ship-journal-') && f.endsWith('.jsonl'));
    expect(journals.length).toBeGreaterThan(0);
    expect(journals.every((f) => f.startsWith('.ship-journal-stdin-'))).toBe(true);
    // A failed row from a file redirected to /dev/stdin goes to stdin.failed.csv, not beside /dev/stdin.
    const csv = join(dir, 'one.csv');
    writeFileSync(csv, [header, 'PIPE-BAD,Ann Example,1 High Street,London,SW1A 1AA,GB,1000'].join('\n') + '\n');
    await sb.control('faults', { fail_rate: 1, status: 400 });
    let failed;
    try {
      failed = await ship(['create', '--csv', '/dev/stdin', '-o', join(dir, 'labels'), '--json'], { env, inputFile: csv, stdin: undefined, cwd: dir });
    } finally {
      await sb.control('faults', {});
    }
    expect(failed.exitCode, String(failed.stderr)).toBe(3);
    expect(readFileSync(join(dir, 'stdin.failed.csv'), 'utf8')).toContain('PIPE-BAD');
  });

  it('--csv - with --customs /dev/stdin: both would read stdin, said as for two "-"', async () => {
    const r = await ship(['create', '--csv', '-', '--customs', '/dev/stdin', '--dry-run'], { env, input: 'a\n', stdin: undefined });
    expect(r.exitCode).toBe(2);
    expect(String(r.stderr)).toContain('--csv - and --customs /dev/stdin both read stdin');
  });

  it('skus import FILE from a named pipe: read once like stdin', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ship-skus-pipe-'));
    const fifo = join(dir, 'skus.fifo');
    execFileSync('mkfifo', [fifo]);
    const run = ship(['skus', 'import', fifo, '--json'], { env, cwd: dir });
    writeFileSync(fifo, 'sku,product_name\nPIPE-SKU-1,Mug\n');
    const r = await run;
    expect(r.exitCode, String(r.stderr)).toBe(0);
    expect(JSON.parse(String(r.stdout).trim().split('\n')[0])).toMatchObject({ sku: 'PIPE-SKU-1' });
  });
});

describe('ship cancel', () => {
  it('an empty list (--from FILE, or - on stdin) is nothing to cancel: said, exit 0, nothing on stdout; no list at all is exit 2', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ship-cancel-empty-'));
    const file = join(dir, 'today.txt');
    writeFileSync(file, '# no cancellations today\n\n');
    const r = await ship(['cancel', '--from', file, '--json'], { env });
    expect(r.exitCode, String(r.stderr)).toBe(0);
    expect(String(r.stdout)).toBe('');
    expect(JSON.parse(String(r.stderr).trim()).info.message).toBe(`nothing to cancel: ${file} holds no references (blank lines and comments do not count)`);
    const piped = await ship(['cancel', '-'], { env, input: '\n', stdin: undefined });
    expect([piped.exitCode, String(piped.stderr).trim()]).toEqual([0, 'nothing to cancel: stdin holds no references (blank lines and comments do not count)']);
    expect((await ship(['cancel'], { env })).exitCode).toBe(2);
  });

  it('cancels several references, from args and stdin, one JSON line each; exit 3 when one is unknown', async () => {
    await createShipment('CAN-1');
    await createShipment('CAN-2');
    await createShipment('CAN-3');
    const r = await ship(['cancel', 'CAN-1', 'NOPE-404', '-', '--json'], { env, input: 'CAN-2\n\n# comment\nCAN-3\n', stdin: undefined });
    expect(r.exitCode).toBe(3);
    const lines = String(r.stdout).trim().split('\n').map((l) => JSON.parse(l));
    expect(lines.map((l) => [l.shipment_reference, l.status])).toEqual([
      ['CAN-1', 'cancelled'],
      ['NOPE-404', 'failed'],
      ['CAN-2', 'cancelled'],
      ['CAN-3', 'cancelled'],
    ]);
    expect(lines[1].error).toMatch(/not found/);
    expect(lines[1].http_status).toBe(404);
    const summary = String(r.stderr).split('\n').find((l) => l.startsWith('{"summary"'));
    expect(JSON.parse(summary!)).toMatchObject({ summary: { total: 4, cancelled: 3, failed: 1 } });
  });

  it('a reference starting with # (a Shopify order name) is a reference, not a comment', async () => {
    await createShipment('#1005');
    const dir = mkdtempSync(join(tmpdir(), 'ship-cancel-'));
    writeFileSync(join(dir, 'refs.txt'), '# orders to cancel\n#1005\n#\n');
    const r = await ship(['cancel', '--from', join(dir, 'refs.txt'), '--json'], { env });
    expect(r.exitCode, String(r.stderr)).toBe(0);
    expect(JSON.parse(String(r.stdout))).toMatchObject({ shipment_reference: '#1005', status: 'cancelled' });
  });

  it('cancelling again is no failure: "already cancelled", exit 0 (a cancel list can be rerun)', async () => {
    await createShipment('CAN-TWICE');
    expect((await ship(['cancel', 'CAN-TWICE'], { env })).exitCode).toBe(0);
    const again = await ship(['cancel', 'CAN-TWICE'], { env });
    expect(again.exitCode, String(again.stderr)).toBe(0);
    expect(String(again.stdout)).toBe('cancelled\tCAN-TWICE\talready cancelled');
    const j = await ship(['cancel', 'CAN-TWICE', '--json'], { env });
    expect(j.exitCode).toBe(0);
    expect(JSON.parse(String(j.stdout))).toMatchObject({ shipment_reference: 'CAN-TWICE', status: 'cancelled', message: 'already cancelled' });
  });

  it('a single unknown reference exits 5; a manifested one gets a clear message', async () => {
    const nf = await ship(['cancel', 'NOPE-1'], { env });
    expect(nf.exitCode).toBe(5);
    expect(nf.stderr).toMatch(/NOPE-1 not found/);
    await createShipment('CAN-MAN');
    await sb.control('tracking/advance', { shipment_reference: 'CAN-MAN' });
    const m = await ship(['cancel', 'CAN-MAN'], { env });
    expect(m.exitCode).toBe(2);
    expect(m.stdout).toMatch(/failed\tCAN-MAN\t.*already been manifested/);
    expect(m.stderr).toMatch(/already been manifested to the carrier and can no longer be cancelled/);
    // --json keeps the API's own field message beside ours.
    const mj = await ship(['cancel', 'CAN-MAN', '--json'], { env });
    expect(mj.exitCode).toBe(2);
    expect(JSON.parse(String(mj.stdout).trim().split('\n')[0])).toMatchObject({
      shipment_reference: 'CAN-MAN',
      status: 'failed',
      http_status: 400,
      fields: { shipment_reference: [expect.stringMatching(/manifested/)] },
    });
  });
});

describe('ship track', () => {
  it('prints a timeline per parcel, latest last; --parcel and --json', async () => {
    const { trackingRefs } = await createShipment('TRK-1', 2);
    await sb.control('tracking/advance', { shipment_reference: 'TRK-1' });
    await sb.control('tracking/advance', { shipment_reference: 'TRK-1' });
    const r = await ship(['track', 'TRK-1'], { env });
    expect(r.exitCode, String(r.stderr)).toBe(0);
    for (const t of trackingRefs) expect(r.stdout).toContain(`Parcel ${t}`);
    const order = ['Label created', 'Manifested', 'Collected'].map((s) => String(r.stdout).indexOf(s));
    expect(order.every((i, k) => i >= 0 && (k === 0 || i > order[k - 1]))).toBe(true);

    const j = await ship(['track', 'TRK-1', '--json'], { env });
    const doc = JSON.parse(String(j.stdout));
    expect(doc.shipments[0].reference).toBe('TRK-1');
    expect(doc.shipments[0].shipment_reference).toBe('TRK-1');
    expect(doc.shipments[0].parcels).toHaveLength(2);
    expect(doc.shipments[0].parcels[0].status).toBe('COLLECTED');
    expect(doc.shipments[0].parcels[0].events.map((e: any) => e.type)).toEqual(['LABEL_CREATED', 'MANIFESTED', 'COLLECTED']);

    const p = await ship(['track', trackingRefs[1], '--parcel', '--json'], { env });
    expect(JSON.parse(String(p.stdout)).shipments[0].parcels[0].events.at(-1).type).toBe('COLLECTED');
    expect(JSON.parse(String(p.stdout)).shipments[0]).not.toHaveProperty('shipment_reference');
    // A parcel's tracking number without --parcel (a scanned label): no shipment has it, so it is tracked as a parcel.
    const scanned = await ship(['track', trackingRefs[1], '--json'], { env });
    expect(scanned.exitCode, String(scanned.stderr)).toBe(0);
    expect(JSON.parse(String(scanned.stdout)).shipments[0].parcels[0]).toMatchObject({ tracking_reference: trackingRefs[1], status: 'COLLECTED' });
  });

  it('--watch polls until delivered (advanced in the background), appending new events', async () => {
    await createShipment('TRK-W');
    const proc = ship(['track', 'TRK-W', '--watch', '--interval', '0.2'], { env });
    let delivered = false;
    const advancer = (async () => {
      for (let i = 0; i < 4; i++) {
        await new Promise((r) => setTimeout(r, 300));
        await sb.control('tracking/advance', { shipment_reference: 'TRK-W' });
      }
      delivered = true;
    })();
    const r = await proc;
    await advancer;
    expect(delivered).toBe(true);
    expect(r.exitCode, String(r.stderr)).toBe(0);
    const lines = String(r.stdout).trim().split('\n');
    expect(lines[0]).toMatch(/\tTRK-W\t.*\tLabel created\t/);
    expect(lines.at(-1)).toMatch(/\tDelivered\t/);
    expect(new Set(lines).size).toBe(lines.length); // nothing printed twice
  });

  it('--watch --max-wait stops on a shipment cancelled after it was watched (no tracking event says so): one JSON document, exit 1', async () => {
    await createShipment('TRK-CXL');
    const refs = 'TRK-CXL\n';
    const proc = ship(['track', '-', '--watch', '--interval', '0.2', '--max-wait', '2', '--json'], { env, stdin: 'pipe', input: refs });
    await new Promise((r) => setTimeout(r, 300));
    expect((await ship(['cancel', 'TRK-CXL'], { env })).exitCode).toBe(0);
    const r = await proc;
    expect(r.exitCode, String(r.stderr)).toBe(1);
    const doc = JSON.parse(String(r.stdout));
    expect(doc.shipments[0]).toMatchObject({ reference: 'TRK-CXL', parcels: [{ status: 'LABEL_CREATED', delivered: false }] });
    const err = JSON.parse(String(r.stderr).trim().split('\n').at(-1)!).error;
    expect(err).toMatchObject({ exit_code: 1, type: 'TimedOut', message: expect.stringContaining('not delivered yet: TRK-CXL (Label created)') });
    expect(err.hint).toMatch(/cancelled/);
  });

  it('an unknown reference exits 5, said once on stderr; among several it is said on stderr (stdout is data off a terminal), exit 3', async () => {
    const r = await ship(['track', 'NOPE-T'], { env });
    expect(r.exitCode).toBe(5);
    expect(String(r.stdout)).toBe('');
    expect(String(r.stderr).match(/not found/g)).toHaveLength(1);
    expect(String(r.stderr)).toContain('no shipment or parcel "NOPE-T": not found');
    const j = await ship(['track', 'NOPE-T', '--json'], { env });
    expect(j.exitCode).toBe(5);
    expect(String(j.stdout)).toBe('');
    expect(JSON.parse(String(j.stderr)).error.exit_code).toBe(5);
    const lone = await ship(['track', 'NOPE-T', '--interval', '5'], { env });
    expect(lone.exitCode).toBe(2);
    expect(String(lone.stderr)).toContain('--interval is how often --watch polls: add --watch');
    const w = await ship(['track', 'NOPE-T', '--watch', '--interval', '0.2'], { env });
    expect(w.exitCode).toBe(5);
    expect(String(w.stdout)).toBe('');

    await createShipment('TRK-OK');
    const two = await ship(['track', 'NOPE-T', 'TRK-OK'], { env });
    expect(two.exitCode).toBe(3);
    expect(String(two.stdout)).toMatch(/^TRK-OK\n/);
    expect(String(two.stdout)).not.toMatch(/NOPE-T|error/);
    expect(String(two.stderr)).toMatch(/error: NOPE-T: .*not found/);
    // Watched off a terminal too: which reference failed is said on stderr, not only how many.
    await sb.control('tracking/advance', { shipment_reference: 'TRK-OK', to: 'DELIVERED' });
    const watched = await ship(['track', 'NOPE-T', 'TRK-OK', '--watch', '--interval', '0.2'], { env });
    expect(watched.exitCode).toBe(3);
    expect(String(watched.stdout)).not.toMatch(/NOPE-T/);
    expect(String(watched.stderr).match(/error: NOPE-T: .*not found/g)).toHaveLength(1);
  });

  it('among several references, credentials refused exit 4 and an unreachable API exits 1 (the command failed, not some references)', async () => {
    await createShipment('TRK-A1');
    await createShipment('TRK-A2');
    await sb.control('faults', { fail_rate: 1, status: 403 });
    try {
      const r = await ship(['track', 'TRK-A1', 'TRK-A2', '--json'], { env });
      expect(r.exitCode).toBe(4);
      expect(JSON.parse(String(r.stderr).trim().split('\n').at(-1)!).error).toMatchObject({ exit_code: 4, status: 403 });
    } finally {
      await sb.control('faults', {});
    }
    const down = await ship(['track', 'TRK-A1', 'TRK-A2', '--json', '--timeout', '1'], { env: { ...env, SHIP_BASE_URL: `http://127.0.0.1:${await freePort()}/v1.2` } });
    expect(down.exitCode).toBe(1);
    expect(JSON.parse(String(down.stderr).trim().split('\n').at(-1)!).error).toMatchObject({ exit_code: 1, type: 'NetworkError' });
  });
});

describe('ship label', () => {
  it('saves ZPL byte for byte, PDF and PNG files, and -o - writes raw bytes', async () => {
    const { trackingRefs } = await createShipment('LBL-1');
    const trk = trackingRefs[0];
    const dir = mkdtempSync(join(tmpdir(), 'ship-lbl-'));
    const z = await ship(['label', trk, '-o', join(dir, 'a.zpl')], { env });
    expect(z.exitCode).toBe(0);
    expect(String(z.stdout).trim()).toBe(join(dir, 'a.zpl'));
    const apiZpl = (await apiGetLabel(trk, 'ZPL')).zpl as string;
    expect(readFileSync(join(dir, 'a.zpl'))).toEqual(Buffer.from(apiZpl, 'utf8'));

    const p = await ship(['label', trk, '--format', 'pdf', '-o', `${dir}/`, '--json'], { env });
    const doc = JSON.parse(String(p.stdout));
    expect(doc).toMatchObject({ tracking_reference: trk, format: 'PDF' });
    expect(readFileSync(doc.path).subarray(0, 5).toString()).toBe('%PDF-');

    const g = await ship(['label', trk, '--format', 'PNG', '-o', join(dir, 'l.png')], { env });
    expect(g.exitCode).toBe(0);
    expect(readFileSync(join(dir, 'l.png')).subarray(1, 4).toString()).toBe('PNG');
    // The file name's extension names the format when --format does not; never PDF bytes in a .zpl file.
    const byName = await ship(['label', trk, '-o', join(dir, 'named.pdf')], { env });
    expect(byName.exitCode).toBe(0);
    expect(readFileSync(join(dir, 'named.pdf')).subarray(0, 5).toString()).toBe('%PDF-');
    const clash = await ship(['label', trk, '--format', 'PDF', '-o', join(dir, 'clash.zpl')], { env });
    expect(clash.exitCode).toBe(2);
    expect(String(clash.stderr)).toContain('a .zpl file for a PDF label');

    const raw = await ship(['label', trk, '-o', '-'], { env, encoding: 'buffer', stripFinalNewline: false } as any);
    expect(Buffer.from(raw.stdout as unknown as Uint8Array).equals(Buffer.from(apiZpl, 'utf8'))).toBe(true);
    // /dev/stdout is stdout itself: the label alone there, as with -o - (its path once followed it), and --json refused.
    const devStdout = await ship(['label', trk, '-o', '/dev/stdout'], { env, encoding: 'buffer', stripFinalNewline: false } as any);
    expect(devStdout.exitCode).toBe(0);
    expect(Buffer.from(devStdout.stdout as unknown as Uint8Array).equals(Buffer.from(apiZpl, 'utf8'))).toBe(true);
    const devStdoutJson = await ship(['label', trk, '-o', '/dev/stdout', '--json'], { env });
    expect(devStdoutJson.exitCode).toBe(2);
    expect(String(devStdoutJson.stdout)).toBe('');
  });

  it('--printer sends the ZPL to a raw socket printer unchanged', async () => {
    const { trackingRefs } = await createShipment('LBL-P');
    const printer = await rawPrinter();
    try {
      const r = await ship(['label', trackingRefs[0], '--printer', printer.url], { env });
      expect(r.exitCode, String(r.stderr)).toBe(0);
      expect(r.stderr).toMatch(/sent to printer/);
      expect(r.stderr).not.toMatch(/printed/);
      const apiZpl = (await apiGetLabel(trackingRefs[0], 'ZPL')).zpl as string;
      await new Promise((res) => setTimeout(res, 50));
      expect(printer.jobs).toHaveLength(1);
      expect(printer.jobs[0].equals(Buffer.from(apiZpl, 'utf8'))).toBe(true);
    } finally {
      await printer.close();
    }
  });

  it('an unreachable printer fails with exit 1 and a hint', async () => {
    const printer = await rawPrinter();
    await printer.close();
    const r = await ship(['label', 'WHATEVER', '--printer', printer.url], { env });
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(/refused the connection/);
  });

  it('a shipment reference is not a parcel\'s: exit 5, and the hint names its parcels\' tracking references', async () => {
    const { trackingRefs } = await createShipment('LBL-SHIP', 2);
    const r = await ship(['label', 'LBL-SHIP'], { env });
    expect(r.exitCode).toBe(5);
    expect(String(r.stderr)).toContain('parcel "LBL-SHIP" not found');
    expect(String(r.stderr)).toContain(`hint: LBL-SHIP is a shipment; labels are per parcel: ship label ${trackingRefs[0]}, ship label ${trackingRefs[1]}`);
    // Neither a shipment nor a parcel: no hint to follow.
    const none = await ship(['label', 'LBL-NOPE'], { env });
    expect(none.exitCode).toBe(5);
    expect(String(none.stderr)).not.toContain('hint:');
  });

  it('"-" for the one reference of label, print and invoice is a usage error (it is not stdin there), not a 404', async () => {
    for (const cmd of ['label', 'print', 'invoice']) {
      const r = await ship([cmd, '-'], { env });
      expect(r.exitCode, cmd).toBe(2);
      expect(String(r.stderr)).toContain(`${cmd} takes one reference; "-" (references from stdin) is for cancel and track`);
      expect(String(r.stderr)).toContain(`hint: run it once per line: xargs -n1 ship ${cmd} < refs.txt`);
    }
  });
});

describe('ship print', () => {
  it('asks the desktop application and prints its message', async () => {
    await createShipment('PRN-1', 2);
    const r = await ship(['print', 'PRN-1'], { env });
    expect(r.exitCode, String(r.stderr)).toBe(0);
    expect(String(r.stdout).trim().length).toBeGreaterThan(0);
    const j = await ship(['print', 'PRN-1', '--json'], { env });
    expect(JSON.parse(String(j.stdout))).toMatchObject({ shipment_reference: 'PRN-1', via: 'desktop' });
    const q = await ship(['print', 'PRN-1', '--quiet'], { env });
    expect([q.exitCode, String(q.stdout)]).toEqual([0, 'PRN-1']);
    // The API's field is the user's flag in the message.
    const bad = await ship(['print', 'PRN-1', '--to-user', 'nobody'], { env });
    expect(bad.exitCode).toBe(2);
    expect(String(bad.stderr)).toMatch(/^ {2}--to-user: /m);    expect(String(bad.stderr)).toMatch(/^error: labels of PRN-1 not printed: /m);
  });

  it('a cancelled shipment: the refusal names it, exit 2', async () => {
    await createShipment('PRN-CXL');
    expect((await ship(['cancel', 'PRN-CXL'], { env })).exitCode).toBe(0);
    const r = await ship(['print', 'PRN-CXL', '--json'], { env });
    expect(r.exitCode).toBe(2);
    expect(String(r.stdout)).toBe('');
    const err = JSON.parse(String(r.stderr)).error;
    expect(err.message).toMatch(/^labels of PRN-CXL not printed: /);
    expect(err.fields.shipment_reference[0]).toMatch(/cancelled/);
  });

  it('--printer sends each parcel label, in parcel order, byte for byte', async () => {
    const { trackingRefs } = await createShipment('PRN-RAW', 3);
    const printer = await rawPrinter();
    try {
      const r = await ship(['print', 'PRN-RAW', '--printer', printer.url, '--json'], { env });
      expect(r.exitCode, String(r.stderr)).toBe(0);
      expect(JSON.parse(String(r.stdout))).toMatchObject({ status: 'sent', labels: trackingRefs });
      await new Promise((res) => setTimeout(res, 50));
      const expected = await Promise.all(trackingRefs.map(async (t) => Buffer.from((await apiGetLabel(t, 'ZPL')).zpl, 'utf8')));
      expect(printer.jobs.map((b) => b.toString('utf8'))).toEqual(expected.map((b) => b.toString('utf8')));
    } finally {
      await printer.close();
    }
  });

  it('--printer takes a parcel\'s tracking reference as the desktop print does (a scanned label): its whole shipment is sent', async () => {
    const { trackingRefs } = await createShipment('PRN-SCAN', 2);
    const printer = await rawPrinter();
    try {
      const r = await ship(['print', trackingRefs[1], '--printer', printer.url, '--json'], { env });
      expect(r.exitCode, String(r.stderr)).toBe(0);
      expect(JSON.parse(String(r.stdout))).toMatchObject({ shipment_reference: 'PRN-SCAN', status: 'sent', labels: trackingRefs });
      await new Promise((res) => setTimeout(res, 50));
      expect(printer.jobs).toHaveLength(2);
      // Neither a shipment nor a parcel: 404, and what --printer can find labels by.
      const none = await ship(['print', 'NO-SUCH-REF', '--printer', printer.url], { env });
      expect(none.exitCode).toBe(5);
      expect(String(none.stderr)).toContain('no shipment or parcel "NO-SUCH-REF"');
      expect(String(none.stderr)).toMatch(/hint: with --printer, give the shipment reference or ID, or a parcel's tracking reference/);
    } finally {
      await printer.close();
    }
  });

  it('a printer that fails partway names the labels sent and those not, and how to send only the rest', async () => {
    const { trackingRefs } = await createShipment('PRN-CUT', 3);
    // Answers ~HS as ready, takes the first label, then resets every later connection.
    const jobs: Buffer[] = [];
    let labelConnections = 0;
    const server: Server = createServer((sock) => {
      const chunks: Buffer[] = [];
      sock.on('data', (d) => {
        chunks.push(d);
        if (d.toString('latin1').startsWith('~HS')) {
          sock.end(HS_READY);
        } else if (chunks.length === 1 && ++labelConnections > 1) {
          sock.resetAndDestroy();
        }
      });
      sock.on('end', () => {
        jobs.push(Buffer.concat(chunks));
        sock.end();
      });
      sock.on('error', () => {});
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `tcp://127.0.0.1:${(server.address() as { port: number }).port}`;
    try {
      const r = await ship(['print', 'PRN-CUT', '--printer', url, '--json'], { env });
      expect(r.exitCode).toBe(1);
      expect(String(r.stdout)).toBe('');
      const err = JSON.parse(String(r.stderr).trim().split('\n').pop()!).error;
      expect(err.message).toContain(`1 of the 3 labels of PRN-CUT was sent (${trackingRefs[0]})`);
      expect(err.message).toContain(`not sent: ${trackingRefs[1]}, ${trackingRefs[2]}`);
      expect(err.hint).toContain(`\`ship label ${trackingRefs[1]} --printer ${url}\``);
      expect(err.hint).toContain(`\`ship label ${trackingRefs[2]} --printer ${url}\``);
      expect(err.message).not.toMatch(/printed/);
      const labels = jobs.filter((j) => !j.toString('latin1').startsWith('~HS')).map((j) => j.toString('utf8'));
      expect(labels).toEqual([(await apiGetLabel(trackingRefs[0], 'ZPL')).zpl]);
    } finally {
      await new Promise((r) => server.close(() => r(undefined)));
    }
  });
});

describe('named printers', () => {
  it('--printer NAME resolves through the profile (config set printer.NAME, as the issue writes it, or printers.NAME)', async () => {
    const { trackingRefs } = await createShipment('PRN-NAMED');
    const printer = await rawPrinter();
    const cfg = mkdtempSync(join(tmpdir(), 'ship-cfg-'));
    try {
      const set = await ship(['config', 'set', 'printer.dock3', printer.url], { env: { ...env, SHIP_CONFIG_DIR: cfg } });
      expect(set.exitCode, String(set.stderr)).toBe(0);
      expect(String((await ship(['config', 'get', 'printers.dock3'], { env: { ...env, SHIP_CONFIG_DIR: cfg } })).stdout)).toBe(printer.url);
      const r = await ship(['print', 'PRN-NAMED', '--printer', 'dock3'], { env: { ...env, SHIP_CONFIG_DIR: cfg } });
      expect(r.exitCode, String(r.stderr)).toBe(0);
      expect(r.stderr).toMatch(/sent to printer dock3/);
      await new Promise((res) => setTimeout(res, 50));
      expect(printer.jobs.map((b) => b.toString('utf8'))).toEqual([(await apiGetLabel(trackingRefs[0], 'ZPL')).zpl]);
      const unknown = await ship(['print', 'PRN-NAMED', '--printer', 'dock9'], { env: { ...env, SHIP_CONFIG_DIR: cfg } });
      expect(unknown.exitCode).toBe(2);
      expect(unknown.stderr).toMatch(/no printer named "dock9"/);
    } finally {
      await printer.close();
    }
  });

  it('--printer alone sends to the profile\'s printer (config set printer NAME), and says so when there is none', async () => {
    const { trackingRefs } = await createShipment('PRN-DEFAULT');
    const printer = await rawPrinter();
    const cfg = mkdtempSync(join(tmpdir(), 'ship-cfg-'));
    const withCfg = { env: { ...env, SHIP_CONFIG_DIR: cfg } };
    try {
      const none = await ship(['label', trackingRefs[0], '--printer'], withCfg);
      expect(none.exitCode).toBe(2);
      expect(none.stderr).toContain("--printer alone sends to the profile's printer, and it has none");
      expect((await ship(['config', 'set', 'printers.dock3', printer.url], withCfg)).exitCode).toBe(0);
      expect((await ship(['config', 'set', 'printer', 'dock3'], withCfg)).exitCode).toBe(0);
      const label = await ship(['label', trackingRefs[0], '--printer', '--no-preflight'], withCfg);
      expect(label.exitCode, String(label.stderr)).toBe(0);
      expect(label.stderr).toMatch(/sent to printer dock3/);
      const print = await ship(['print', 'PRN-DEFAULT', '--printer', '--json'], withCfg);
      expect(print.exitCode, String(print.stderr)).toBe(0);
      expect(JSON.parse(String(print.stdout))).toMatchObject({ via: 'raw' });
      await new Promise((res) => setTimeout(res, 50));
      const zpl = (await apiGetLabel(trackingRefs[0], 'ZPL')).zpl;
      expect(printer.jobs.map((b) => b.toString('utf8'))).toEqual([zpl, zpl]);
    } finally {
      await printer.close();
    }
  });

  it('a printer that reports paper out is refused before anything is sent', async () => {
    const jobs: Buffer[] = [];
    const server: Server = createServer((sock) => {
      sock.on('data', (d) => {
        if (d.toString('latin1').startsWith('~HS')) sock.end('\x02030,1,0,1245,000,0,0,0,000,0,0,0\x03\r\n\x02001,0,0,0,0,2,4,0,00000000,1,000\x03\r\n\x021234,0\x03\r\n');
        else jobs.push(d);
      });
      sock.on('error', () => {});
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `tcp://127.0.0.1:${(server.address() as { port: number }).port}`;
    try {
      await createShipment('PRN-PAPER');
      const r = await ship(['print', 'PRN-PAPER', '--printer', url], { env });
      expect(r.exitCode).toBe(1);
      expect(r.stderr).toMatch(/not ready: paper \(labels\) out/);
      expect(jobs).toEqual([]);
    } finally {
      await new Promise((r) => server.close(() => r(undefined)));
    }
  });
});

describe('ship invoice', () => {
  it('saves the commercial invoice PDF under a safe default name', async () => {
    await createShipment('INV/1');
    const dir = mkdtempSync(join(tmpdir(), 'ship-inv-'));
    const r = await ship(['invoice', 'INV/1', '--json'], { env, cwd: dir });
    expect(r.exitCode, String(r.stderr)).toBe(0);
    const doc = JSON.parse(String(r.stdout));
    expect(doc.path).not.toContain('/');
    const path = join(dir, doc.path);
    expect(existsSync(path)).toBe(true);
    expect(readFileSync(path).subarray(0, 5).toString()).toBe('%PDF-');
  });

  it('--json names the shipment\'s own reference when REF is a tracking reference', async () => {
    const { trackingRefs } = await createShipment('INV-2');
    const dir = mkdtempSync(join(tmpdir(), 'ship-inv-'));
    const r = await ship(['invoice', trackingRefs[0], '--json'], { env, cwd: dir });
    expect(r.exitCode, String(r.stderr)).toBe(0);
    expect(JSON.parse(String(r.stdout))).toMatchObject({ shipment_reference: 'INV-2' });
  });
});
