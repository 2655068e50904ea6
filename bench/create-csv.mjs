#!/usr/bin/env node
// Benchmark of `ship create --csv` (issue 4): 10,000 single-parcel shipments from a generated CSV against the
// sandbox running as a separate process. Prints, from one run:
//   - throughput of the built binary (`node bin/ship.js create --csv … --yes`), end to end and for the bulk phase;
//   - throughput of a minimal undici client (bench/minimal-client.mjs, its own process) POSTing the very same request bodies (taken from
//     `ship create --csv … --dry-run --json`) at the same concurrency, with a keep-alive pool;
//   - the ratio ship / minimal client (target ≥ 0.85), each ship run against the mean of client runs made just before and just after it:
//     for the bulk phase (both timed from the first request to the last answer: the like-for-like figure) and end to end (both
//     processes timed from spawn to exit: ship also reads and validates the whole CSV before its first request, as it must,
//     where the client reads bodies made ready for it; ship's time before its first request is printed beside it);
//   - ship's peak memory (target ≤ 150 MB);
//   - the ratio the CPU costs alone would allow, (sandbox + client) / (sandbox + ship) µs of CPU per shipment: on
//     2 cores the three processes share, each shipment costs the machine the sandbox's CPU plus the client's or
//     ship's, so ship's extra work (the journal, the label files: ~25 µs of kernel time each on ext4) bounds the
//     ratio whatever else it does; measured ratios sit near it.
// Peak memory is the child's own getrusage maxRSS, recorded at exit by a preload module (bench/usage-preload.mjs),
// which is the kernel's high-water mark for that process; /usr/bin/time -v is used as a cross-check when present.
// The same module records ship's CPU and main-thread busy time from its first request on, beside which the
// client's own figures are printed: on a machine the three processes share, that is what decides the ratio.
//
// The end-to-end ratio is bounded by ship's work before its first request (start, then reading and validating all
// 10,000 rows: ~410 ms on Node 20, ~340 on Node 24, of which loadCsv ~250 / ~200), which the client does not
// have; on a 2-core machine most of it is the JIT warming up and young-generation GC (~70 ms), not steady
// per-row work. Kept (2026-11-27, session 18): lines with no quote are split without csv-parse (src/csv/plain-lines.ts),
// ~70 ms less on Node 20 (~500 ms before). Measured and dropped
// (2026-11-27), each slower or within the noise on 2 cores:
//   - validating the file in parts on worker threads: each thread warms up its own JIT, and V8's background
//     compiler threads lose their core (first request 603-850 ms against 445-630; no gain at 50,000 rows either);
//   - csv-parse alone in a worker feeding the main thread's checks in one pass: 511-674 ms against 461-520;
//   - a single pass instead of two: ~20 ms (6% of loadCsv), not worth a second code path;
//   - V8 flags (--always-sparkplug, --interrupt-budget, --no-lazy-feedback-allocation, --max-semi-space-size;
//     --min-semi-space-size=8 or 16: 20-30 ms slower before the first request).
//
// Kept (2026-11-27): ship writes label files on a thread of its own once creating them proves slow (over 100 µs
// each on average; src/labels/index.ts LabelWorker). A file costs ~25 µs of kernel time on a quiet ext4
// directory and 10–20 times that after many deletions; 64 of them at a time on the main thread then held the
// event loop while answers waited and the next requests were not sent. Paired runs in a slow phase of the
// disk: 2.7–5.6 s against 4.1–7.7 s. On a quiet disk the thread gained nothing and its isolate cost ~28 MB of
// peak memory (Node 24: 145–149 MB against the 150 MB target), hence only when slow.
// Kept (2026-11-27, session 19): label files are written up to 8 a turn of the event loop, in its check phase
// (setImmediate), instead of 64 at a time or 3 ms after the first: 64 files (~25–70 µs each on ext4) held the
// loop 2–4 ms, the 8 connections idle. Paired runs of the old and new builds, labels on ext4, bulk phase
// (median of 8 pairs): Node 20 2.12 s against 2.39 s; Node 24 (6 pairs) 2.27 against 2.40; tmpfs unchanged.
// One file a turn was slower than 8, 24 no better than 64.
// Kept (2026-11-27, session 20): the young-generation cap (src/bulk/young-gen.ts) is put back once the label thread
// runs: V8 resets it when it configures the thread's isolate, and the run's young generation grew to 32 MB again
// (Node 20 with the thread: peak 126-146 MB against 151-166). Still open: with the thread, Node 24 peaks at
// 142-178 MB (without it 126-137): its isolate (~18 MB) plus ~15 MB more old generation and ~10 MB of
// ArrayBuffers on the main thread, the same when the thread writes nothing (so the messages, not the disk).
// The "label thread" line says in which rounds ship started it.
// Measured (2026-11-27, session 21), for whoever tries the label thread again:
//   - started at once instead of when slow (Node 24, quiet ext4, 4 pairs): bulk phase 2.12-2.79 s against
//     1.96-2.25, main thread as busy (159-170 µs a shipment against 157-169: postMessage costs it what the file
//     did), +30 µs of CPU a shipment, peak 145-154 MB against 131-133. Dropped again.
//   - started when slow, in a slow phase of the disk (Node 24): peak 147 MB, the heap as without it (51 MB):
//     the thread's own isolate (~16-18 MB on Node 24, ~9 on Node 20: a bare Worker measures the same).
//   - the files handed to the thread through a ring in shared memory instead of postMessage (copying a label in:
//     ~0.3 µs; the thread woken with Atomics.notify, its failures sent as messages), started at once (Node 24,
//     ext4, 4 pairs): slower again, 2.12-3.81 s against 1.84-3.60; CPU +35 µs a shipment (the thread's
//     wake-ups and the cores it takes from the others: the main thread was busier, 170-200 µs a shipment
//     against 158-173); peak 146-150 MB. On 2 cores shared with the sandbox, no core is free for it.
//   - libuv's pool instead (fs.writeFile, or open/write/close callbacks, 8 in flight; 10,000 files on tmpfs):
//     the main thread is busier than with writeFileSync (22-33 µs a file against 17).
//   - the slow phase of ext4 after deletions is kernel CPU time of the process creating files, not I/O wait
//     (250-950 µs of CPU a file in the minute after deleting 10,000 files; 23-30 µs once quiet).
//   - Node 24's peak is ~25 MB above Node 20's outside the JS heap (heaps 51 and 49 MB): V8's malloc peaks at
//     ~30 MB (Node 20: 9) just after the first POST, the TurboFan compile of llhttp's WebAssembly. Only
//     --liftoff-only on the command line avoids it (125 MB); V8 13 ignores it, and every WebAssembly tiering
//     flag tried, when set at run time.
// Session 22 (2026-11-27), Node 24, in a slow phase (10,000 files deleted before each run; ~500-670 µs a file):
//   - the label thread re-measured against none (8 pairs): 4.1-6.4 s against 5.0-7.5 (median 5.7 against 6.2;
//     Node 20, 4 pairs: 4.2-5.5 against 5.2-6.5). Kept; but it took Node 24 to 157-164 MB: its isolate, and an
//     old generation of 42 MB against 26 (tasks waiting on the thread promote more, and nothing collected it
//     before the run ended). Now, once the thread runs, the old generation is collected and then grows 30% over
//     what survives (src/bulk/young-gen.ts tightenOldGeneration), and the labels' text is not held while they
//     wait for it: 141-144 MB (Node 20: 112-113); 60% gave 147-150.
//   - libuv's pool instead of the thread (fs.writeFile, 4 in flight): 5.4-6.6 s, no faster than no thread, and
//     the main thread busier (365-437 µs a shipment against ~240); labels transferred to the thread as bytes
//     (TextEncoder, transfer list) instead of cloned strings: the same peak.
//
// Usage: node bench/create-csv.mjs [--rows 10000] [--concurrency 8] [--rounds 5] [--order client-first|ship-first] [--bin bin/ship.js]
//        [--dir DIR]  (work directory parent, default the OS temp dir; the labels are written there)
//        [--no-settle]  (start at once even when file creation on that disk is slow after recent deletions)
//        [--no-sync]  (no `sync` before each measured run: earlier runs' label files are then written back during later ones)
//        [--ram-dir DIR]  (a RAM file system for the extra "labels on tmpfs" variant; default /dev/shm when it is one,
//                          '' to skip that variant)
// Needs a build (npm run build). Not part of `npm test`.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os, { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';

const ROOT = resolve(import.meta.dirname, '..');
const { values: args } = parseArgs({
  options: {
    bin: { type: 'string', default: join(ROOT, 'bin', 'ship.js') },
    rows: { type: 'string', default: '10000' },
    concurrency: { type: 'string', default: '8' },
    order: { type: 'string', default: 'client-first' },
    keep: { type: 'boolean', default: false },
    rounds: { type: 'string', default: '5' },
    // Where the work directory (CSV, labels, journals) goes; the labels' file system matters (see fsProbe).
    dir: { type: 'string', default: tmpdir() },
    'ram-dir': { type: 'string' },
    // Do not wait for a slow file system to settle before the rounds (see the settle loop in main).
    'no-settle': { type: 'boolean', default: false },
    // Do not write back the file systems' dirty data before each measured run (see quiesce).
    'no-sync': { type: 'boolean', default: false },
  },
});
const BIN = resolve(args.bin);
const ROWS = Number(args.rows);
const CONCURRENCY = Number(args.concurrency);
const ROUNDS = Math.max(1, Number(args.rounds));
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
    const child = spawn(process.execPath, [BIN, 'sandbox', '--port', '0', '--auto-advance', '0'], {
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

/**
 * CPU time (µs, user + system) a process has used so far, from /proc (Linux); undefined elsewhere. Read before
 * and after each run, it gives the sandbox's CPU per request: on a 2-core machine the client, ship and the
 * sandbox share the cores, and how much each takes is what decides the throughputs.
 */
function processCpuUs(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(f[11]) + Number(f[12])) * 1e6) / CLOCK_TICKS;
  } catch {
    return undefined;
  }
}
const CLOCK_TICKS = 100; // USER_HZ: 100 on every Linux architecture Node runs on

/**
 * A RAM file system to write labels to, for the variant that takes the disk out of the picture: /dev/shm when
 * it is a tmpfs (Linux), unless --ram-dir says otherwise ('' skips the variant).
 */
function ramDir() {
  if (args['ram-dir'] !== undefined) return args['ram-dir'] || undefined;
  try {
    const mounts = readFileSync('/proc/mounts', 'utf8');
    return /^\S+ \/dev\/shm tmpfs /m.test(mounts) ? '/dev/shm' : undefined;
  } catch {
    return undefined;
  }
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

/**
 * The minimal client (bench/minimal-client.mjs), as its own fresh process like ship: the same bodies,
 * POST /shipments, `CONCURRENCY` at a time over one keep-alive pool. Resolves to its posting time and CPU,
 * and the whole process's time.
 */
async function minimalClient(baseUrl, token, bodiesFile, labelsDir) {
  const env = { PATH: process.env.PATH, HOME: process.env.HOME, SHIP_API_KEY: API_KEY, SHIP_TOKEN: token, ...(labelsDir ? { LABELS_DIR: labelsDir } : {}) };
  quiesce();
  const r = await run(process.execPath, [join(ROOT, 'bench', 'minimal-client.mjs'), bodiesFile, baseUrl, String(CONCURRENCY)], env);
  if (r.code !== 0) throw new Error(`minimal client failed: ${r.stderr}`);
  return { ...JSON.parse(r.stdout.trim().split('\n').at(-1)), processMs: r.ms };
}

async function shipRun(baseUrl, token, csv, outDir, extraArgs = []) {
  const usageFile = join(work, `usage-${Date.now()}.json`);
  const env = { PATH: process.env.PATH, HOME: process.env.HOME, CI: 'true', NO_COLOR: '1', SHIP_CONFIG_DIR: join(work, 'ship-config'), SHIP_BASE_URL: baseUrl, SHIP_API_KEY: API_KEY, SHIP_TOKEN: token, SHIP_BENCH_USAGE_FILE: usageFile };
  const argv = ['--import', join(ROOT, 'bench', 'usage-preload.mjs'), BIN, 'create', '--csv', csv, '--yes', '-o', outDir, '--concurrency', String(CONCURRENCY), '--json', ...extraArgs];
  const useTime = existsSync('/usr/bin/time');
  quiesce();
  const r = useTime ? await run('/usr/bin/time', ['-v', process.execPath, ...argv], env) : await run(process.execPath, argv, env);
  const summaryLine = r.stderr.split('\n').find((l) => l.startsWith('{"summary"'));
  const summary = summaryLine ? JSON.parse(summaryLine).summary : undefined;
  const timeKb = useTime ? Number(/Maximum resident set size \(kbytes\): (\d+)/.exec(r.stderr)?.[1]) : undefined;
  const usage = existsSync(usageFile) ? JSON.parse(readFileSync(usageFile, 'utf8')) : {};
  const created = r.stdout.split('\n').filter((l) => l.includes('"status":"created"')).length;
  return { ...r, summary, created, maxRssKb: usage.maxRSS, timeKb, cpuUs: usage.cpuUs, bulkCpuUs: usage.bulkCpuUs, bulkMainUs: usage.bulkMainUs, threads: usage.threads };
}

/**
 * What creating a new file costs on the labels' file system right now (µs per file, 1,000 small files). On ext4
 * without a journal, the inode allocator will not reuse an inode freed in the last 60 s (360 s while its inode
 * table block is still dirty): for every new file it walks the group's free inodes from the start and checks
 * each one's deletion time (find_inode_bit → recently_deleted in `perf`), so after many deletions creating a
 * file costs 10–20× more: a shared /tmp with other test runs deleting temp dirs shows 100–300 µs per file
 * where a quiet one shows 20 µs. Printed so the figures can be read in that light; the probe's files are
 * removed at the end with the rest of the work dir (which makes the next few minutes slow in its turn).
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

/**
 * Writes back what earlier runs left dirty (sync), before a measured run starts its clock. A run's 10,000 label
 * files are written back by the kernel ~30 s later (vm.dirty_expire_centisecs), on the cores of whichever run
 * is going on then: each run is measured without the one before it, client and ship alike.
 */
function quiesce() {
  if (!args['no-sync']) spawnSync('sync');
}

const fmt = (n, d = 1) => n.toFixed(d);
const t0 = performance.now();
const step = (what) => console.error(`[${fmt((performance.now() - t0) / 1000, 1)}s] ${what}`);

async function main() {
  console.log(`ship create --csv benchmark: ${ROWS} single-parcel shipments, concurrency ${CONCURRENCY}, Node ${process.version}`);
  const { baseUrl, child: sandbox } = await startSandbox();
  step(`sandbox at ${baseUrl}`);
  const ram = ramDir();
  const ramWork = ram ? mkdtempSync(join(ram, 'ship-bench-')) : undefined;
  if (ramWork && !args.keep) cleanups.push(() => rmSync(ramWork, { recursive: true, force: true }));
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
  const bodiesFile = join(work, 'bodies.jsonl');
  writeFileSync(bodiesFile, bodies.join('\n') + '\n');
  const warmFile = join(work, 'warm.jsonl');
  writeFileSync(warmFile, bodies.slice(0, Math.min(300, ROWS)).join('\n') + '\n');
  step('request bodies taken from the dry run');

  // Warm the sandbox (JIT, label templates) so no measured run pays for it.
  await minimalClient(baseUrl, token, warmFile);
  await reset(baseUrl);
  step('sandbox warmed up and reset');

  // A file system still in a slow phase (files deleted in the last minutes: an earlier bench's cleanup, a test
  // run) would make the "labels written" figures a measure of the disk. Flush its dirty metadata (sync) and
  // wait until creating a file costs what it does on a quiet disk, for a few minutes at most.
  for (let waited = 0; ; waited += 30) {
    const probe = fsProbe(join(work, `settle-${waited}`));
    const perFile = probe.wallUs; // µs per file (1,000 files in ms)
    if (perFile <= 60 || waited >= 300 || args['no-settle']) {
      step(`new file on the work dir's disk: ${fmt(perFile, 0)} µs${perFile > 60 ? ' (still slow: the labels-on-disk figures below say more about the disk than about ship)' : ''}`);
      break;
    }
    step(`new file on the work dir's disk: ${fmt(perFile, 0)} µs, a slow phase (recent deletions): waiting 30 s for it to pass`);
    spawnSync('sync');
    await new Promise((r) => setTimeout(r, 30_000));
  }

  // Rounds: the client and both ship runs once each per round, in a rotating order, each after a reset. On a
  // shared 2-core machine one run's speed varies by ±20% from minute to minute; a ratio taken within a round
  // compares runs made moments apart, and the median over rounds is what the bench reports.
  const variants = [
    { label: 'labels written', extra: [], dir: work },
    // The same, with the labels on a RAM file system: creating a file on disk costs 10–20 µs on a quiet ext4
    // and 100+ µs on one without a journal that has just deleted many files (see fsProbe); on tmpfs ~10 µs.
    ...(ramWork ? [{ label: 'labels on tmpfs', extra: [], dir: ramWork }] : []),
    // Without label files: the client's own overhead, without the file system.
    { label: '--no-labels', extra: ['--no-labels'], dir: work },
  ];
  const rounds = [];
  let outDirs = 0;
  for (let round = 0; round < ROUNDS; round++) {
    const runs = {};
    const jobs = [
      async () => {
        const cpu0 = processCpuUs(sandbox.pid);
        runs.client = await minimalClient(baseUrl, await login(baseUrl), bodiesFile);
        runs.client.sandboxCpuUs = processCpuUs(sandbox.pid) - cpu0;
        step(`round ${round + 1}: minimal client done`);
      },
      // Context, not the target's baseline: the same client also writing each label file, as ship does.
      async () => {
        runs.clientFiles = await minimalClient(baseUrl, await login(baseUrl), bodiesFile, join(work, `client-labels-${outDirs++}`));
        step(`round ${round + 1}: minimal client writing label files done`);
      },
      ...variants.map((v) => async () => {
        const outDir = join(v.dir, `labels-${outDirs++}`);
        // Not deleted until the end: deleting files would itself slow the next run's file creation (see fsProbe).
        const probe = v.extra.includes('--no-labels') ? undefined : fsProbe(join(v.dir, `probe-${outDirs}`));
        // The client once more right before this ship run and once right after: this machine's speed drifts
        // by ±20% within a minute, and ship against the mean of two client runs made seconds before and after
        // it cancels a drift that goes one way over those seconds (a client run just before it alone does not).
        const before = await minimalClient(baseUrl, await login(baseUrl), bodiesFile);
        await reset(baseUrl);
        const cpu0 = processCpuUs(sandbox.pid);
        const r = await shipRun(baseUrl, await login(baseUrl), csv, outDir, v.extra);
        const sandboxCpuUs = processCpuUs(sandbox.pid) - cpu0;
        step(`round ${round + 1}: ship (${v.label}) done`);
        if (r.code !== 0) {
          console.error(r.stderr.slice(-2000));
          throw new Error(`ship exited ${r.code}`);
        }
        await reset(baseUrl);
        const after = await minimalClient(baseUrl, await login(baseUrl), bodiesFile);
        runs[v.label] = { ...r, probe, sandboxCpuUs, pairedClientMs: (before.ms + after.ms) / 2, pairedClientProcessMs: (before.processMs + after.processMs) / 2 };
      }),
    ];
    // Rotating order: each job goes first in some round (ship-first starts with the ship runs).
    const order = jobs.map((_, k) => (args.order === 'ship-first' ? (k + 2) % jobs.length : k));
    for (let k = 0; k < jobs.length; k++) {
      await jobs[order[(k + round) % jobs.length]]();
      await reset(baseUrl);
    }
    rounds.push(runs);
  }

  const median = (xs) => {
    const v = xs.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
    if (!v.length) return NaN;
    const m = Math.floor(v.length / 2);
    return v.length % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
  };
  const clientRates = rounds.map((r) => ROWS / (r.client.ms / 1000));
  const clientRate = median(clientRates);
  console.log('');
  console.log(`${ROUNDS} round${ROUNDS === 1 ? '' : 's'}; figures are medians over the rounds, ratios are taken within each round`);
  console.log(`minimal undici client      ${fmt(clientRate)} shipments/s posting, ${fmt(median(rounds.map((r) => ROWS / (r.client.processMs / 1000))))}/s spawn to exit  (per round: ${clientRates.map((x) => fmt(x, 0)).join(', ')}; ${rounds.reduce((n, r) => n + r.client.failed, 0)} failed; ${fmt(median(rounds.map((r) => r.client.cpuUs / ROWS)), 0)} µs CPU per shipment; its own process, started cold like ship's)`);
  const clientMain = median(rounds.map((r) => r.client.mainUs / ROWS));
  const clientCpu = median(rounds.map((r) => r.client.cpuUs / ROWS));
  if (Number.isFinite(clientMain)) console.log(`  its main thread            busy ${fmt(clientMain, 0)} µs per shipment`);
  const clientSandbox = median(rounds.map((r) => r.client.sandboxCpuUs / ROWS));
  if (Number.isFinite(clientSandbox)) console.log(`  the sandbox meanwhile      ${fmt(clientSandbox, 0)} µs CPU per request`);
  const filesRates = rounds.map((r) => ROWS / (r.clientFiles.ms / 1000));
  console.log(`  … also writing label files ${fmt(median(filesRates))} shipments/s  (context: the file system's share of the gap; per round: ${filesRates.map((x) => fmt(x, 0)).join(', ')})`);
  for (const v of variants) {
    const rs = rounds.map((r) => r[v.label]);
    const e2e = rs.map((r) => ROWS / (r.ms / 1000));
    const bulk = rs.map((r) => (r.summary?.elapsed_s ? ROWS / r.summary.elapsed_s : NaN));
    // Each ship run against the client runs just before and just after it (see `before` above).
    const pairedRates = rs.map((r) => ROWS / (r.pairedClientMs / 1000));
    // End to end, both processes from spawn to exit: ship also reads and validates the whole CSV before its
    // first request (as it must), the client reads bodies made ready for it.
    const e2eRatio = rs.map((r, i) => e2e[i] / (ROWS / (r.pairedClientProcessMs / 1000)));
    const before = rs.map((r) => (r.summary?.elapsed_s ? r.ms - r.summary.elapsed_s * 1000 : NaN));
    const bulkRatio = rs.map((_, i) => bulk[i] / pairedRates[i]);
    const peaks = rs.map((r) => (r.maxRssKb ?? r.timeKb ?? NaN) / 1024);
    console.log(`ship create --csv (${v.label})`);
    console.log(`  throughput               ${fmt(median(e2e))} shipments/s end to end (incl. start, read+validate), ${fmt(median(bulk))}/s in the bulk phase`);
    console.log(`  created                  ${rs.map((r) => r.created).join(', ')} of ${ROWS}`);
    console.log(`  ratio ship / client      ${fmt(median(bulkRatio), 2)} bulk phase, first request to last answer for both  (target ≥ 0.85; each against the client runs just before and after it; per round: ${bulkRatio.map((x) => fmt(x, 2)).join(', ')})`);
    console.log(`                           ${fmt(median(e2eRatio), 2)} end to end, spawn to exit for both  (per round: ${e2eRatio.map((x) => fmt(x, 2)).join(', ')}; ship's start, read and validation of the whole file before its first request: ${fmt(median(before), 0)} ms)`);
    if (!v.extra.includes('--no-labels') && v.dir === work) {
      // The like-for-like baseline of this variant: the client writing the same label files on the same disk
      // (one run per round, so noisier than the paired ratio above).
      const vsFiles = rs.map((_, i) => bulk[i] / filesRates[i]);
      const vsFilesE2e = rs.map((_, i) => e2e[i] / (ROWS / (rounds[i].clientFiles.processMs / 1000)));
      console.log(`  vs client writing files  ${fmt(median(vsFiles), 2)} bulk phase, ${fmt(median(vsFilesE2e), 2)} end to end  (per round: ${vsFiles.map((x) => fmt(x, 2)).join(', ')}; ${vsFilesE2e.map((x) => fmt(x, 2)).join(', ')})`);
    }
    console.log(`  peak memory (RSS)        ${fmt(Math.max(...peaks))} MB, the highest of the rounds  (target ≤ 150 MB; per round: ${peaks.map((x) => fmt(x, 0)).join(', ')})`);
    // ship moves its label writing to a thread of its own when creating files proves slow (a disk in a slow
    // phase): that round's memory includes the thread's isolate (~10 MB on Node 20, ~18 on Node 24) and more.
    const threaded = rs.flatMap((r, i) => (r.threads > 0 ? [i + 1] : []));
    if (threaded.length) console.log(`  label thread             started in round${threaded.length > 1 ? 's' : ''} ${threaded.join(', ')} (creating files proved slow: see src/labels/index.ts LabelWorker)`);
    const probes = rs.map((r) => r.probe).filter(Boolean);
    if (probes.length) {
      const perFile = median(probes.map((p) => p.wallUs));
      console.log(`  new file on that disk    ${fmt(perFile, 0)} µs each just before the runs (${fmt(median(probes.map((p) => p.cpuUs)), 0)} µs CPU; ~20 µs on a quiet ext4 directory)`);
      // Seen on ext4 for minutes after many files were deleted (an earlier bench run cleaning up, say).
      if (perFile > 60) console.log(`  (the file system is in a slow phase: this variant's figures say more about the disk than about ship; rerun in a few minutes)`);
    }
    const bulkMain = median(rs.map((r) => r.bulkMainUs / ROWS));
    if (Number.isFinite(bulkMain)) {
      // On a machine whose cores the client (or ship) and the sandbox share, a process's main thread is one
      // core's worth at most: the busier one per shipment sets the pace, and the rest of the CPU is what the
      // two processes' other threads and the kernel take from the other core.
      console.log(`  bulk phase, per shipment main thread busy ${fmt(bulkMain, 0)} µs, CPU ${fmt(median(rs.map((r) => r.bulkCpuUs / ROWS)), 0)} µs  (the client: ${fmt(clientMain, 0)} µs busy, ${fmt(clientCpu, 0)} µs CPU)`);
    }
    const sandboxCpu = median(rs.map((r) => r.sandboxCpuUs / ROWS));
    // When the cores are what limits (2 cores for the sandbox and the client or ship), each shipment costs the
    // machine the sandbox's CPU plus the client's or ship's: the ratio those costs allow, whatever ship does with
    // its time. (The client's CPU includes its short start; ship's is its bulk phase.)
    const shipBulkCpu = median(rs.map((r) => r.bulkCpuUs / ROWS));
    const cpuBound = (clientSandbox + clientCpu) / (sandboxCpu + shipBulkCpu);
    if (Number.isFinite(cpuBound)) {
      console.log(`  ratio the CPU allows     ${fmt(cpuBound, 2)}  (if the cores were the only limit: (sandbox + client) / (sandbox + ship) CPU per shipment: (${fmt(clientSandbox, 0)} + ${fmt(clientCpu, 0)}) / (${fmt(sandboxCpu, 0)} + ${fmt(shipBulkCpu, 0)}) µs, on ${os.cpus().length} cores)`);
    }
    console.log(`  CPU per shipment         ${fmt(median(rs.map((r) => r.cpuUs / ROWS)), 0)} µs (whole process: start, validation, run) on ${os.cpus().length} cores shared with the sandbox${Number.isFinite(sandboxCpu) ? ` (${fmt(sandboxCpu, 0)} µs per request)` : ''}`);
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
