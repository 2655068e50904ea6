// The built binary's `ship sandbox`: base URL first on stdout, fast start, clean stop on SIGTERM (exit 0) and SIGINT (130), --state
// surviving a SIGKILL.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN, binEnv, ship } from '../helpers/bin.js';

const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
});

interface Started {
  child: ChildProcess;
  lines: string[];
  firstLineMs: number;
  stderr: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

async function startBinary(args: string[]): Promise<Started> {
  const t0 = performance.now();
  const child = spawn(process.execPath, [BIN, ...args], { env: binEnv() as NodeJS.ProcessEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let err = '';
  child.stderr!.on('data', (c: Buffer) => (err += c.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) => child.on('exit', (code, signal) => r({ code, signal })));
  const lines: string[] = [];
  const rl = createInterface({ input: child.stdout! });
  let firstLineMs = 0;
  await new Promise<void>((resolve, reject) => {
    rl.on('line', (l) => {
      if (lines.length === 0) firstLineMs = performance.now() - t0;
      lines.push(l);
      if (lines.length === 3 || l.startsWith('{')) resolve();
    });
    void exited.then(({ code }) => reject(new Error(`ship sandbox exited early (${code}): ${err}`)));
  });
  return { child, lines, firstLineMs, stderr: () => err, exited };
}

describe('ship sandbox (cli-contract: `ship sandbox`)', () => {
  it('prints the base URL as its first stdout line, quickly, then the export lines; serves the API', async () => {
    const s = await startBinary(['sandbox', '--port', '0']);
    console.log(`ship sandbox: first stdout line after ${s.firstLineMs.toFixed(0)} ms`);
    expect(s.firstLineMs).toBeLessThan(1500);
    const [url, exp1, exp2] = s.lines;
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1\.2$/);
    expect(exp1).toBe(`export SHIP_BASE_URL=${url}`);
    expect(exp2).toBe('export SHIP_API_KEY=sandbox-api-key');
    const res = await fetch(`${url}/tokens`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-service-api-key': 'sandbox-api-key' },
      body: JSON.stringify({ username: 'demo@example.com', password: 'demo-password' }),
    });
    expect(res.status).toBe(200);
    s.child.kill('SIGTERM');
    const { code } = await s.exited;
    expect(code).toBe(0);
    expect(s.stderr()).toContain('Sandbox stopped.');
  });

  it('the built binary renders ZPL, PDF and PNG labels and the invoice PDF (bundled CommonJS libraries load)', async () => {
    const s = await startBinary(['sandbox', '--port', '0']);
    const url = s.lines[0];
    const headers = { 'content-type': 'application/json', 'x-service-api-key': 'sandbox-api-key' };
    const login = await fetch(`${url}/tokens`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ username: 'demo@example.com', password: 'demo-password' }),
    });
    const token = ((await login.json()) as { data: { token: string } }).data.token;
    const auth = { ...headers, 'x-service-token': token };
    const signatures = { ZPL: (b: string) => b.startsWith('^XA') || b.includes('^XA'), PDF: (b: string) => Buffer.from(b, 'base64').subarray(0, 5).toString() === '%PDF-', PNG: (b: string) => Buffer.from(b, 'base64').subarray(1, 4).toString() === 'PNG' };
    for (const format of ['ZPL', 'PDF', 'PNG'] as const) {
      const res = await fetch(`${url}/shipments`, {
        method: 'POST',
        headers: auth,
        body: JSON.stringify({
          shipment_reference: `BIN-${format}`,
          format,
          to_address: { name: 'Ada', line_1: '1 High St', city: 'Leeds', postcode: 'LS1 1AA', country: 'GB' },
          parcels: [{ weight: 500, length: 10, width: 10, depth: 10 }],
        }),
      });
      const body = (await res.json()) as { data: Array<Record<string, unknown>>; message: string };
      expect(res.status, body.message).toBe(201);
      const label = body.data[0][format.toLowerCase()];
      const text = Array.isArray(label) ? String(label[0]) : String(label);
      expect(signatures[format](text), `${format} label`).toBe(true);
    }
    const inv = await fetch(`${url}/shipments/BIN-PDF/commercial-invoice`, { headers: auth });
    expect(inv.status).toBe(200);
    expect(JSON.stringify(await inv.json())).toContain('JVBERi0'); // base64 of "%PDF-"
    s.child.kill('SIGTERM');
    await s.exited;
  });

  it('the built binary delivers outbound webhooks (bundled HTTP client loads)', async () => {
    const received: Array<Record<string, unknown>> = [];
    const { createServer } = await import('node:http');
    const receiver = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c));
      req.on('end', () => {
        received.push(JSON.parse(body) as Record<string, unknown>);
        res.end('ok');
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    const port = (receiver.address() as import('node:net').AddressInfo).port;
    try {
      const s = await startBinary(['sandbox', '--port', '0']);
      const url = s.lines[0];
      const origin = new URL(url).origin;
      const json = { 'content-type': 'application/json' };
      const sub = await fetch(`${origin}/__sandbox/webhooks`, {
        method: 'POST',
        headers: json,
        body: JSON.stringify({ url: `http://127.0.0.1:${port}/hook`, auth_token: 'hook-token', format: 'json', events: [] }),
      });
      expect(sub.status).toBeLessThan(300);
      const headers = { ...json, 'x-service-api-key': 'sandbox-api-key' };
      const login = await fetch(`${url}/tokens`, { method: 'POST', headers, body: JSON.stringify({ username: 'demo@example.com', password: 'demo-password' }) });
      const token = ((await login.json()) as { data: { token: string } }).data.token;
      const created = await fetch(`${url}/shipments`, {
        method: 'POST',
        headers: { ...headers, 'x-service-token': token },
        body: JSON.stringify({
          shipment_reference: 'HOOK-BIN',
          to_address: { name: 'Ada', line_1: '1 High St', city: 'Leeds', postcode: 'LS1 1AA', country: 'GB' },
          parcels: [{ weight: 500, length: 10, width: 10, depth: 10 }],
        }),
      });
      expect(created.status).toBe(201);
      const deadline = Date.now() + 5000;
      while (received.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      expect(received[0]).toMatchObject({ event: 'SHIPMENT_CREATED', shipment_reference: 'HOOK-BIN', auth_token: 'hook-token' });
      s.child.kill('SIGTERM');
      await s.exited;
    } finally {
      receiver.closeAllConnections();
      await new Promise((r) => receiver.close(r));
    }
  });

  it('Ctrl-C (SIGINT) stops it cleanly too, saving --state, then exits 130 (interrupted, cli-contract exit codes)', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'sb-e2e-')), 'state.json');
    const s = await startBinary(['sandbox', '--port', '0', '--state', file]);
    const res = await fetch(`${s.lines[0]}/tokens`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-service-api-key': 'sandbox-api-key' },
      body: JSON.stringify({ username: 'demo@example.com', password: 'demo-password' }),
    });
    const token = ((await res.json()) as { data: { token: string } }).data.token;
    s.child.kill('SIGINT');
    expect((await s.exited).code).toBe(130);
    expect(s.stderr()).toContain('Sandbox stopped.');
    expect(JSON.parse(readFileSync(file, 'utf8')).tokens.map((t: { token: string }) => t.token)).toContain(token);
    expect(existsSync(`${file}.lock`)).toBe(false);
  });

  it('--json: a Ctrl-C stop is one JSON error line on stderr with exit_code 130', async () => {
    const s = await startBinary(['--json', 'sandbox', '--port', '0']);
    s.child.kill('SIGINT');
    expect((await s.exited).code).toBe(130);
    const last = s.stderr().trim().split('\n').at(-1)!;
    expect(JSON.parse(last)).toEqual({ error: { message: 'Sandbox stopped.', exit_code: 130, type: 'Interrupted' } });
  });

  it('--json prints one JSON object with the base URL', async () => {
    const s = await startBinary(['--json', 'sandbox', '--port', '0', '--api-key', 'k-1']);
    const info = JSON.parse(s.lines[0]);
    expect(info).toMatchObject({ api_key: 'k-1', base_url: expect.stringMatching(/\/v1\.2$/), auto_advance_s: 60 });
    // On stderr, how tracking moves.
    for (let i = 0; i < 100 && !s.stderr().includes('Tracking moves'); i++) await new Promise((r) => setTimeout(r, 50));
    expect(s.stderr()).toContain('Tracking moves one stage every 60 s');
    s.child.kill('SIGTERM');
    expect((await s.exited).code).toBe(0);
  });

  it('a bad --port is a usage error (exit 2)', async () => {
    const r = await ship(['sandbox', '--port', 'abc']);
    expect(r.exitCode).toBe(2);
    expect(String(r.stderr)).toContain('--port');
  });

  it('tracking moves forward on its own: ship track --watch against ship sandbox ends at DELIVERED (exit 0)', async () => {
    const { s, env } = await sandboxWithShipment('0.3', 'W-1');
    const watched = await ship(['track', 'W-1', '--watch', '--interval', '1', '--json'], { env });
    expect(watched.exitCode, String(watched.stderr)).toBe(0);
    // With --watch, one JSON document printed once at the end.
    const last = JSON.parse(String(watched.stdout));
    expect(last.shipments[0].parcels[0].events.map((e: { type: string }) => e.type)).toEqual(['LABEL_CREATED', 'MANIFESTED', 'COLLECTED', 'IN_TRANSIT', 'DELIVERED']);
    s.child.kill('SIGTERM');
    expect((await s.exited).code).toBe(0);
  });

  it('track --watch --json stopped by a signal (Ctrl-C, `timeout`) still prints the last known state, then exits 130 (143 for SIGTERM)', async () => {
    const { s, env } = await sandboxWithShipment('0', 'W-2');
    for (const signal of ['SIGINT', 'SIGTERM'] as const) {
      const watching = ship(['track', 'W-2', '--watch', '--interval', '0.2', '--json'], { env });
      await new Promise((r) => setTimeout(r, 1500));
      watching.kill(signal);
      const watched = await watching;
      expect(watched.exitCode, String(watched.stderr)).toBe(signal === 'SIGINT' ? 130 : 143);
      expect(JSON.parse(String(watched.stdout)).shipments[0].parcels[0].events.map((e: { type: string }) => e.type)).toEqual(['LABEL_CREATED']);
    }
    s.child.kill('SIGTERM');
    expect((await s.exited).code).toBe(0);
  });

  it('a bad --auto-advance is a usage error (exit 2); its help says tracking moves on its own', async () => {
    for (const bad of ['abc', '-5', '']) {
      const r = await ship(['sandbox', '--port', '0', '--auto-advance', bad]);
      expect(r.exitCode).toBe(2);
      expect(String(r.stderr)).toContain('--auto-advance');
    }
    const help = await ship(['sandbox', '--help']);
    expect(String(help.stdout)).toMatch(/manifested 60 s after it was\s+created/);
  });

  it('--state survives SIGKILL in the middle of writes: the file is always complete JSON, and a restart serves it', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'sb-e2e-')), 'state.json');
    const s = await startBinary(['sandbox', '--port', '0', '--state', file]);
    const base = s.lines[0];
    const h = { 'content-type': 'application/json', 'x-service-api-key': 'sandbox-api-key' };
    const token = ((await (await fetch(`${base}/tokens`, { method: 'POST', headers: h, body: JSON.stringify({ username: 'demo@example.com', password: 'demo-password' }) })).json()) as any).data.token;
    const mk = (ref: string) =>
      fetch(`${base}/shipments`, {
        method: 'POST',
        headers: { ...h, 'x-service-token': token },
        body: JSON.stringify({ shipment_reference: ref, to_address: { name: 'A', line_1: 'B', city: 'C', postcode: 'D', country: 'GB' }, parcels: [{ weight: 100 }] }),
      }).then((r) => r.status);
    expect(await mk('K-0')).toBe(201);
    await new Promise((r) => setTimeout(r, 400)); // let the first save land
    let i = 1;
    const until = Date.now() + 600;
    while (Date.now() < until) await mk(`K-${i++}`);
    s.child.kill('SIGKILL');
    await s.exited;
    const saved = JSON.parse(readFileSync(file, 'utf8'));
    expect(saved.version).toBe(1);
    expect(saved.shipments.some((x: any) => x.shipment_reference === 'K-0')).toBe(true);

    const again = await startBinary(['sandbox', '--port', '0', '--state', file]);
    const ev = await fetch(`${again.lines[0]}/shipments/K-0/events`, { headers: { ...h, 'x-service-token': token } });
    expect(ev.status).toBe(200);
    again.child.kill('SIGTERM');
    expect((await again.exited).code).toBe(0);
  });
});

/** `ship sandbox` as its own process, logged in, with one shipment REF created through the binary. */
async function sandboxWithShipment(autoAdvance: string, ref: string) {
  const s = await startBinary(['sandbox', '--port', '0', '--auto-advance', autoAdvance]);
  const baseUrl = s.lines[0];
  const login = await fetch(`${baseUrl}/tokens`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-service-api-key': 'sandbox-api-key' },
    body: JSON.stringify({ username: 'demo@example.com', password: 'demo-password' }),
  });
  const env = { SHIP_BASE_URL: baseUrl, SHIP_API_KEY: 'sandbox-api-key', SHIP_TOKEN: ((await login.json()) as { data: { token: string } }).data.token };
  const dir = mkdtempSync(join(tmpdir(), 'ship-e2e-watch-'));
  const created = await ship(['create', '--reference', ref, '--to-name', 'Ann', '--to-line1', '1 St', '--to-city', 'Leeds', '--to-postcode', 'LS1 1AA', '--to-country', 'GB', '--weight', '500', '-o', dir, '--quiet'], { env });
  expect(created.exitCode, String(created.stderr)).toBe(0);
  return { s, env };
}
