#!/usr/bin/env node
// Benchmark: `ship skus export` of 10,000 SKUs (334 pages of 30) against `ship sandbox` in its own process,
// next to the sum of fetching the same 334 pages one by one with a minimal undici client (its own process,
// bench/minimal-sku-pages.mjs) and to ship itself without look-ahead (`--concurrency 1`: what prefetching
// gains), plus the peak memory of the export (and of an export of 1,000 SKUs, to show that memory does not
// grow with the number of SKUs).
//
// Usage: npm run build && node bench/skus-export.mjs [--skus 10000] [--runs 5] [--bin path/to/ship.js]
// Needs the built binary (dist/) and the sandbox control endpoint POST /__sandbox/seed/skus {count, prefix}.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import os, { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Agent, request } from 'undici';
import { BASE_ENV, ROOT, arg, startSandbox } from './lib.mjs';

const BIN = resolve(arg('--bin', join(ROOT, 'bin/ship.js')));
const TOTAL = arg('--skus', 10_000);
const RUNS = arg('--runs', 5);
// Added per-request latency (sandbox fault injection) to stand for a real network; 0 is bare loopback.
const LATENCIES = String(arg('--latency', '20')).split(',').map(Number).filter((n) => n > 0);
const API_KEY = 'sandbox-api-key';

async function json(res) {
  const text = await res.body.text();
  if (res.statusCode >= 400) throw new Error(`HTTP ${res.statusCode}: ${text.slice(0, 200)}`);
  return JSON.parse(text);
}

/** Runs the built binary with a peak-RSS probe; resolves to wall time (ms), peak RSS (bytes) and the exit code. */
function runShip(args, env) {
  const probe = "data:text/javascript,process.on('exit',()=>process.stderr.write('\\nMAXRSS '+process.resourceUsage().maxRSS+'\\n'))";
  return new Promise((resolveP) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, ['--import', probe, BIN, ...args], {
      env: { ...BASE_ENV, ...env },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let err = '';
    let doneMs;
    child.stderr.on('data', (c) => {
      err += c;
      // The success line is printed once the file is complete: the work is done, the rest is process exit.
      if (doneMs === undefined && /written to/.test(err)) doneMs = performance.now() - t0;
    });
    child.on('exit', (code) => {
      const ms = performance.now() - t0;
      const m = /MAXRSS (\d+)/.exec(err);
      resolveP({ ms, doneMs: doneMs ?? ms, maxRssBytes: m ? Number(m[1]) * 1024 : undefined, code, stderr: err });
    });
  });
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const mb = (b) => (b === undefined ? 'n/a' : `${(b / 1024 / 1024).toFixed(1)} MB`);

const { child: sandbox, baseUrl } = await startSandbox(BIN, BASE_ENV);
const origin = new URL(baseUrl).origin;
const agent = new Agent({ keepAliveTimeout: 10_000, connections: 1 });
const tmp = mkdtempSync(join(tmpdir(), 'ship-bench-skus-'));
try {
  const tok = await json(
    await request(`${baseUrl}/tokens`, {
      method: 'POST',
      dispatcher: agent,
      headers: { 'content-type': 'application/json', accept: 'application/json', 'x-service-api-key': API_KEY },
      body: JSON.stringify({ username: 'demo@example.com', password: 'demo-password' }),
    }),
  );
  const headers = { accept: 'application/json', 'x-service-api-key': API_KEY, 'x-service-token': tok.data.token };
  const env = { SHIP_BASE_URL: baseUrl, SHIP_API_KEY: API_KEY, SHIP_TOKEN: tok.data.token, SHIP_CONFIG_DIR: tmp };
  const seed = async (count) =>
    json(await request(`${origin}/__sandbox/seed/skus`, { method: 'POST', dispatcher: agent, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ count, prefix: 'BENCH' }) }));
  const countSkus = async () => (await json(await request(`${baseUrl}/skus`, { dispatcher: agent, headers }))).meta.total;

  /**
   * The baseline: every page one after another, following links.next, with one keep-alive connection, by a
   * minimal client in its own process (bench/minimal-sku-pages.mjs): its JIT starts cold as ship's does, where
   * a loop inside this process would run warmed up by every earlier run. Its own start-up is not counted.
   */
  const sequentialFetch = () =>
    new Promise((resolveP, reject) => {
      const child = spawn(process.execPath, [join(ROOT, 'bench', 'minimal-sku-pages.mjs'), baseUrl], {
        env: { ...BASE_ENV, SHIP_API_KEY: API_KEY, SHIP_TOKEN: tok.data.token },
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      let out = '';
      child.stdout.on('data', (c) => (out += c));
      child.on('exit', (code) => (code === 0 ? resolveP(JSON.parse(out.trim().split('\n').at(-1))) : reject(new Error(`baseline exited ${code}`))));
    });

  /**
   * RUNS rounds of: the sequential baseline, the one-request command ("fixed") and the export, in a rotating
   * order. On a shared 2-core machine speed drifts by ±20% within minutes, so the ratios are taken within each
   * round (runs seconds apart) and their median is reported, beside the medians of the times themselves.
   */
  const measure = async (label) => {
    const base = [];
    const ship = [];
    const done = [];
    const fixed = [];
    const single = [];
    const netRatios = [];
    const prefetchRatios = [];
    const wholeRatios = [];
    let rss = 0;
    let rows = 0;
    let pages = 0;
    for (let i = 0; i < RUNS; i++) {
      let b;
      let f;
      let r;
      let one;
      const out = join(tmp, `export-${label}-${i}.csv`);
      const jobs = [
        async () => {
          b = await sequentialFetch();
        },
        async () => {
          f = await fixedRun();
        },
        async () => {
          r = await runShip(['skus', 'export', '-o', out], env);
          if (r.code !== 0) throw new Error(`ship skus export exited ${r.code}: ${r.stderr}`);
        },
        async () => {
          one = await runShip(['skus', 'export', '-o', `${out}.one`, '--concurrency', '1'], env);
          if (one.code !== 0) throw new Error(`ship skus export --concurrency 1 exited ${one.code}: ${one.stderr}`);
        },
      ];
      for (let k = 0; k < jobs.length; k++) await jobs[(k + i) % jobs.length]();
      base.push(b.ms);
      pages = b.pages;
      rows = b.rows;
      const lines = readFileSync(out, 'utf8').split('\n').filter(Boolean).length;
      if (lines !== rows + 1) throw new Error(`export wrote ${lines - 1} rows, expected ${rows}`);
      ship.push(r.ms);
      done.push(r.doneMs);
      fixed.push(f);
      single.push(one.doneMs);
      netRatios.push((r.doneMs - f) / b.ms);
      prefetchRatios.push((r.doneMs - f) / (one.doneMs - f));
      wholeRatios.push(r.doneMs / b.ms);
      rss = Math.max(rss, r.maxRssBytes ?? 0);
      if (i === RUNS - 1) console.log(`  (${label}: ${statSync(out).size} bytes of CSV)`);
    }
    return {
      label,
      rows,
      pages,
      baseMs: median(base),
      shipMs: median(ship),
      doneMs: median(done),
      fixed: median(fixed),
      singleMs: median(single),
      prefetchRatio: median(prefetchRatios),
      prefetchRatios,
      netRatio: median(netRatios),
      netRatios,
      wholeRatio: median(wholeRatios),
      rss,
    };
  };

  const setLatency = async (ms) =>
    json(await request(`${origin}/__sandbox/faults`, { method: 'POST', dispatcher: agent, headers: { 'content-type': 'application/json' }, body: JSON.stringify(ms ? { latency_ms: ms } : {}) }));

  /** Fixed cost of any API command: start-up, loading the API layer, one request (ship skus get). */
  let fixedRss = 0;
  const fixedRun = async () => {
    const r = await runShip(['skus', 'get', 'MUG-001', '-q'], env);
    if (r.code !== 0) throw new Error(`ship skus get exited ${r.code}: ${r.stderr}`);
    fixedRss = Math.max(fixedRss, r.maxRssBytes ?? 0);
    return r.ms;
  };

  const rows = [];
  // The control endpoint makes sure BENCH-000001…BENCH-<count> exist; the seeded account has a few SKUs already.
  const seededByAccount = await countSkus();
  await seed(1000 - seededByAccount);
  rows.push({ latency: 0, ...(await measure('1,000 SKUs')) });
  await seed(TOTAL - seededByAccount);
  rows.push({ latency: 0, ...(await measure(`${TOTAL.toLocaleString('en')} SKUs`)) });
  for (const latency of LATENCIES) {
    await setLatency(latency);
    rows.push({ latency, ...(await measure(`${TOTAL.toLocaleString('en')} SKUs, ${latency} ms latency`)) });
  }
  await setLatency(0);

  console.log(`\nship skus export vs fetching the same pages one by one (median of ${RUNS} rounds; Node ${process.version}; ${os.cpus().length} CPUs, load ${os.loadavg()[0].toFixed(1)}; sandbox in its own process)`);
  console.log('"fixed" = a one-request command (ship skus get): start-up, API layer, one round trip.\n');
  const head = ['SKUs', 'pages', 'added latency', 'sequential fetch (sum)', 'ship export (process)', 'ship export - fixed', '--concurrency 1 - fixed', 'fixed', 'peak RSS'];
  const widths = [7, 6, 14, 23, 22, 20, 24, 8, 10];
  console.log(head.map((h, i) => h.padEnd(widths[i])).join(' '));
  for (const r of rows) {
    const cells = [String(r.rows), String(r.pages), `${r.latency} ms`, `${r.baseMs.toFixed(0)} ms`, `${r.doneMs.toFixed(0)} ms`, `${(r.doneMs - r.fixed).toFixed(0)} ms`, `${(r.singleMs - r.fixed).toFixed(0)} ms`, `${r.fixed.toFixed(0)} ms`, mb(r.rss)];
    console.log(cells.map((c, i) => c.padEnd(widths[i])).join(' '));
  }
  console.log(`peak RSS of the one-request command (ship skus get): ${mb(fixedRss)}`);
  for (const r of rows.slice(1)) {
    console.log(
      `${r.rows} SKUs at +${r.latency} ms: (export - fixed) / sequential = ${r.netRatio.toFixed(2)} (per round: ${r.netRatios.map((x) => x.toFixed(2)).join(', ')}); whole process / sequential = ${r.wholeRatio.toFixed(2)}`,
    );
    console.log(
      `${' '.repeat(String(r.rows).length)}  prefetching: export / export --concurrency 1 (both - fixed) = ${r.prefetchRatio.toFixed(2)} (per round: ${r.prefetchRatios.map((x) => x.toFixed(2)).join(', ')})`,
    );
  }
} finally {
  await agent.close();
  sandbox.kill('SIGTERM');
  rmSync(tmp, { recursive: true, force: true });
}
