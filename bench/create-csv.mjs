#!/usr/bin/env node
// Benchmark of `ship create --csv` (issue 4): 10,000 single-parcel shipments from a generated CSV against the
// sandbox running as a separate process. Prints, from one run:
//   - throughput of the built binary (`node bin/ship.js create --csv … --yes`), end to end and for the bulk phase;
//   - throughput of a minimal undici client POSTing the very same request bodies (taken from
//     `ship create --csv … --dry-run --json`) at the same concurrency, with a keep-alive pool;
//   - the ratio ship / minimal client (target ≥ 0.85) and ship's peak memory (target ≤ 150 MB).
// Peak memory is the child's own getrusage maxRSS, recorded at exit by a preload module (--import), which is the
// kernel's high-water mark for that process; /usr/bin/time -v is used as a cross-check when present.
//
// Usage: node bench/create-csv.mjs [--rows 10000] [--concurrency 8] [--order client-first|ship-first] [--bin bin/ship.js]
//        [--dir DIR]  (work directory parent, default the OS temp dir; the labels are written there)
// Needs a build (npm run build). Not part of `npm test`.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os, { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { Pool } from 'undici';

const ROOT = resolve(import.meta.dirname, '..');
const { values: args } = parseArgs({
  options: {
    bin: { type: 'string', default: join(ROOT, 'bin', 'ship.js') },
    rows: { type: 'string', default: '10000' },
    concurrency: { type: 'string', default: '8' },
    order: { type: 'string', default: 'client-first' },
    keep: { type: 'boolean', default: false },
    // Where the work directory (CSV, labels, journals) goes; the labels' file system matters (see fsProbe).
    dir: { type: 'string', default: tmpdir() },
  },
});
const BIN = resolve(args.bin);
const ROWS = Number(args.rows);
const CONCURRENCY = Number(args.concurrency);
const API_KEY = 'sandbox-api-key';

if (!existsSync(BIN) || (args.bin === join(ROOT, 'bin', 'ship.js') && !existsSync(join(ROOT, 'dist', 'main.js')))) {
  console.error('no build: run `npm run build` first (or pass --bin PATH)');
  process.exit(1);
}

const work = mkdtempSync(join(resolve(args.dir), 'ship-bench-'));
const cleanups = [];
let cleaned = false;
const cleanup = () => {
  if (cleaned) return;
  cleaned = true;
  for (const c of cleanups.reverse()) {
    try {
      c();
    } catch {
      // best effort
    }
  }
  if (!args.keep) rmSync(work, { recursive: true, force: true });
};
process.on('exit', cleanup);
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => process.exit(130));

/** Starts `ship sandbox --port 0` as its own process; resolves to its base URL. */
function startSandbox() {
  return new Promise((resolveUrl, reject) => {
    const child = spawn(process.execPath, [BIN, 'sandbox', '--port', '0'], {
      stdio: ['ignore', 'pipe', 'inherit'],
      env: { ...process.env, SHIP_CONFIG_DIR: join(work, 'sandbox-config'), CI: 'true', NO_COLOR: '1' },
    });
    cleanups.push(() => child.kill('SIGTERM'));
    let buf = '';
    child.stdout.on('data', (d) => {
      buf += d;
      const nl = buf.indexOf('\n');
      if (nl >= 0) resolveUrl({ baseUrl: buf.slice(0, nl).trim(), child });
    });
    child.on('exit', (code) => reject(new Error(`sandbox exited early (${code})`)));
  });
}

async function login(baseUrl) {
  const res = await fetch(`${baseUrl}/tokens`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json', 'x-service-api-key': API_KEY },
    body: JSON.stringify({ username: 'demo@example.com', password: 'demo-password' }),
  });
  const body = await res.json();
  if (!body?.data?.token) throw new Error(`login failed: ${res.status}`);
  return body.data.token;
}

async function reset(baseUrl) {
  const origin = new URL(baseUrl).origin;
  const res = await fetch(`${origin}/__sandbox/reset`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
  if (res.status >= 300) throw new Error(`reset failed: ${res.status}`);
}

/** Runs a command to completion; resolves to { code, stdout, stderr, ms }. */
function run(cmd, argv, env, opts = {}) {
  return new Promise((resolveRun) => {
    const started = performance.now();
    const child = spawn(cmd, argv, { env, stdio: ['ignore', opts.stdoutFile ? 'pipe' : 'pipe', 'pipe'] });
    const out = [];
    const err = [];
    child.stdout.on('data', (d) => out.push(d));
    child.stderr.on('data', (d) => err.push(d));
    child.on('exit', (code) => resolveRun({ code, stdout: Buffer.concat(out).toString(), stderr: Buffer.concat(err).toString(), ms: performance.now() - started }));
  });
}

function generateCsv(path, prefix) {
  const lines = ['shipment_reference,order_reference,delivery_service_key,to_name,to_line_1,to_city,to_postcode,to_country,weight,length,width,depth,value,item_sku,item_short_description,item_quantity,item_value'];
  for (let i = 1; i <= ROWS; i++) {
    const n = String(i).padStart(6, '0');
    lines.push(`${prefix}-${n},WEB-${n},RM_TRACKED_48,Customer ${i},${i} Long Road,Derby,DE1 ${(i % 9) + 1}AA,GB,${400 + (i % 1000)},30,20,10,9.99,MUG-001,Ceramic mug,1,9.99`);
  }
  writeFileSync(path, lines.join('\n') + '\n');
}

/** The minimal client: the same bodies, POST /shipments, `CONCURRENCY` at a time over one keep-alive pool. */
async function minimalClient(baseUrl, token, bodies) {
  const url = new URL(baseUrl);
  const pool = new Pool(url.origin, { connections: CONCURRENCY, pipelining: 1 });
  const path = `${url.pathname.replace(/\/$/, '')}/shipments`;
  const headers = { 'content-type': 'application/json', accept: 'application/json', 'x-service-api-key': API_KEY, 'x-service-token': token };
  let next = 0;
  let failed = 0;
  const cpu0 = process.cpuUsage();
  const started = performance.now();
  const worker = async () => {
    while (next < bodies.length) {
      const body = bodies[next++];
      const res = await pool.request({ method: 'POST', path, headers, body });
      const text = await res.body.text();
      if (res.statusCode >= 300) failed++;
      else JSON.parse(text); // a real client reads the labels out of the answer
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  const ms = performance.now() - started;
  const cpu = process.cpuUsage(cpu0);
  await pool.close();
  return { ms, failed, cpuUs: cpu.user + cpu.system };
}

async function shipRun(baseUrl, token, csv, outDir, extraArgs = []) {
  const rssFile = join(work, `maxrss-${Date.now()}.txt`);
  const preload = join(work, 'maxrss.mjs');
  writeFileSync(
    preload,
    `import { writeFileSync } from 'node:fs';\nprocess.on('exit', () => { const u = process.resourceUsage(); writeFileSync(${JSON.stringify(rssFile)}, JSON.stringify({ maxRSS: u.maxRSS, cpuUs: u.userCPUTime + u.systemCPUTime })); });\n`,
  );
  const env = { PATH: process.env.PATH, HOME: process.env.HOME, CI: 'true', NO_COLOR: '1', SHIP_CONFIG_DIR: join(work, 'ship-config'), SHIP_BASE_URL: baseUrl, SHIP_API_KEY: API_KEY, SHIP_TOKEN: token };
  const argv = ['--import', preload, BIN, 'create', '--csv', csv, '--yes', '-o', outDir, '--concurrency', String(CONCURRENCY), '--json', ...extraArgs];
  const useTime = existsSync('/usr/bin/time');
  const r = useTime ? await run('/usr/bin/time', ['-v', process.execPath, ...argv], env) : await run(process.execPath, argv, env);
  const summaryLine = r.stderr.split('\n').find((l) => l.startsWith('{"summary"'));
  const summary = summaryLine ? JSON.parse(summaryLine).summary : undefined;
  const timeKb = useTime ? Number(/Maximum resident set size \(kbytes\): (\d+)/.exec(r.stderr)?.[1]) : undefined;
  const usage = existsSync(rssFile) ? JSON.parse(readFileSync(rssFile, 'utf8')) : {};
  const maxRssKb = usage.maxRSS;
  const cpuUs = usage.cpuUs;
  const created = r.stdout.split('\n').filter((l) => l.includes('"status":"created"')).length;
  return { ...r, summary, created, maxRssKb, timeKb, cpuUs };
}

/**
 * What creating a new file costs on the labels' file system right now (µs per file, 1,000 small files). On ext4
 * without a journal, creating files in a block group where many files were deleted in the last ~30 s costs
 * 10–20× more (the kernel skips recently deleted inodes one by one): a shared /tmp with other test runs
 * deleting temp dirs shows 300 µs per file where a quiet directory shows 20 µs. Printed so the figures can
 * be read in that light; the probe's files are removed at the end with the rest of the work dir.
 */
function fsProbe(dir) {
  mkdirSync(dir, { recursive: true });
  const data = 'x'.repeat(3500);
  const cpu0 = process.cpuUsage();
  const t = performance.now();
  for (let i = 0; i < 1000; i++) writeFileSync(join(dir, `probe-${i}.zpl`), data);
  const cpu = process.cpuUsage(cpu0);
  return { wallUs: (performance.now() - t), cpuUs: (cpu.user + cpu.system) / 1000 };
}

const fmt = (n, d = 1) => n.toFixed(d);
const t0 = performance.now();
const step = (what) => console.error(`[${fmt((performance.now() - t0) / 1000, 1)}s] ${what}`);

async function main() {
  console.log(`ship create --csv benchmark: ${ROWS} single-parcel shipments, concurrency ${CONCURRENCY}, Node ${process.version}`);
  const { baseUrl } = await startSandbox();
  step(`sandbox at ${baseUrl}`);
  const token = await login(baseUrl);
  const csv = join(work, 'bench.csv');
  generateCsv(csv, 'BENCH');
  step('CSV generated');

  // The exact bodies ship sends, from its own dry run (so both clients send the same bytes' worth of work).
  const env = { PATH: process.env.PATH, HOME: process.env.HOME, CI: 'true', NO_COLOR: '1', SHIP_CONFIG_DIR: join(work, 'ship-config') };
  const dry = await run(process.execPath, [BIN, 'create', '--csv', csv, '--dry-run', '--json'], env);
  if (dry.code !== 0) throw new Error(`dry run failed: ${dry.stderr}`);
  const bodies = dry.stdout.trim().split('\n').map((l) => JSON.stringify(JSON.parse(l).request));
  if (bodies.length !== ROWS) throw new Error(`dry run gave ${bodies.length} bodies`);
  step('request bodies taken from the dry run');

  // Warm the sandbox (JIT, label templates) so neither measured run pays for it.
  await minimalClient(baseUrl, token, bodies.slice(0, Math.min(300, ROWS)));
  await reset(baseUrl);
  step('sandbox warmed up and reset');

  let client;
  const ships = [];
  const doClient = async () => {
    client = await minimalClient(baseUrl, await login(baseUrl), bodies);
    step('minimal client done');
    await reset(baseUrl);
  };
  // The default run writes one label file per parcel; the --no-labels run shows the client's own overhead
  // without the file system (on some disks creating 10,000 files costs more than the HTTP work).
  const doShip = async (label, extra) => {
    const outDir = join(work, `labels-${ships.length}`);
    // Not deleted until the end: deleting files would itself slow the run's file creation (see fsProbe).
    const probe = extra.includes('--no-labels') ? undefined : fsProbe(join(work, `probe-${ships.length}`));
    const r = await shipRun(baseUrl, await login(baseUrl), csv, outDir, extra);
    r.probe = probe;
    step(`ship (${label}) done`);
    if (r.code !== 0) {
      console.error(r.stderr.slice(-2000));
      throw new Error(`ship exited ${r.code}`);
    }
    ships.push({ label, ...r });
    await reset(baseUrl);
  };
  const variants = [['labels written', []], ['--no-labels', ['--no-labels']]];
  if (args.order === 'ship-first') {
    for (const [l, e] of variants) await doShip(l, e);
    await doClient();
  } else {
    await doClient();
    for (const [l, e] of variants) await doShip(l, e);
  }

  const clientRate = ROWS / (client.ms / 1000);
  console.log('');
  console.log(`minimal undici client      ${fmt(clientRate)} shipments/s  (${fmt(client.ms / 1000, 2)} s, ${client.failed} failed; ${fmt(client.cpuUs / ROWS, 0)} µs CPU per shipment)`);
  for (const r of ships) {
    const e2e = ROWS / (r.ms / 1000);
    const bulkS = r.summary?.elapsed_s;
    const bulk = bulkS ? ROWS / bulkS : NaN;
    const peakMb = (r.maxRssKb ?? r.timeKb ?? NaN) / 1024;
    console.log(`ship create --csv (${r.label})`);
    console.log(`  throughput               ${fmt(e2e)} shipments/s end to end (${fmt(r.ms / 1000, 2)} s incl. start, read+validate), ${fmt(bulk)}/s in the bulk phase (${bulkS} s)`);
    console.log(`  created                  ${r.created} of ${ROWS}`);
    console.log(`  ratio ship / client      ${fmt(e2e / clientRate, 2)} end to end, ${fmt(bulk / clientRate, 2)} bulk phase  (target ≥ 0.85)`);
    console.log(`  peak memory (RSS)        ${fmt(peakMb)} MB  (target ≤ 150 MB)${r.timeKb ? `; /usr/bin/time -v: ${fmt(r.timeKb / 1024)} MB` : ''}`);
    if (r.probe) console.log(`  new file on that disk     ${fmt(r.probe.wallUs, 0)} µs each just before the run (${fmt(r.probe.cpuUs, 0)} µs CPU; ~20 µs on a quiet ext4 directory)`);
    if (r.cpuUs) console.log(`  CPU per shipment         ${fmt(r.cpuUs / ROWS, 0)} µs (whole process: start, validation, run) on ${os.cpus().length} cores shared with the sandbox`);
  }
  process.exitCode = 0;
}

// The sandbox child keeps the event loop alive: stop it and exit explicitly, whatever happened.
main().then(
  () => {
    cleanup();
    process.exit(process.exitCode ?? 0);
  },
  (e) => {
    console.error(e);
    cleanup();
    process.exit(1);
  },
);
