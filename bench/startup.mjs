#!/usr/bin/env node
// Benchmark: start-up cost of `ship`. Wall time of whole processes (spawn to exit), median of N runs taken in
// turns (so load on the machine spreads over every command alike), as ratios to plain `node -e 0`:
// `ship --version`, `ship --help`, and one-request commands against `ship sandbox` running in its own process
// on a free loopback port (`services --json`, `skus list --json`; `whoami --json` with the token stored in a
// profile by `ship login`).
// Reports ratios from one run; no pass/fail on time. Fails only if a command itself fails.
//
// Usage: npm run build && node bench/startup.mjs [--runs 15] [--bin path/to/ship.js] [--no-compile-cache]
// (--no-compile-cache sets NODE_DISABLE_COMPILE_CACHE=1: on Node >= 22.1, what bin/ship.js's module.enableCompileCache() saves.)
import { spawn } from 'node:child_process';
import module from 'node:module';
import { mkdtempSync, rmSync } from 'node:fs';
import os, { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { BASE_ENV, ROOT, arg, startSandbox } from './lib.mjs';

const BIN = resolve(arg('--bin', join(ROOT, 'bin/ship.js')));
const RUNS = Math.max(1, arg('--runs', 15));
const NO_COMPILE_CACHE = process.argv.includes('--no-compile-cache');
const baseEnv = { ...BASE_ENV, ...(NO_COMPILE_CACHE ? { NODE_DISABLE_COMPILE_CACHE: '1' } : {}) };

/** Runs one process to completion; resolves to its wall time in ms. A non-zero exit is an error. */
function timed(args, env, input) {
  return new Promise((resolveP, reject) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, args, { env, stdio: [input === undefined ? 'ignore' : 'pipe', 'ignore', 'pipe'] });
    let err = '';
    child.stderr.on('data', (c) => (err += c));
    if (input !== undefined) child.stdin.end(input);
    child.on('error', reject);
    child.on('exit', (code) => {
      const ms = performance.now() - t0;
      if (code !== 0) reject(new Error(`node ${args.join(' ')} exited ${code}: ${err.trim()}`));
      else resolveP(ms);
    });
  });
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

const { child: sandbox, baseUrl } = await startSandbox(BIN, baseEnv);
const configDir = mkdtempSync(join(tmpdir(), 'ship-bench-startup-'));
try {
  const env = { ...baseEnv, SHIP_BASE_URL: baseUrl, SHIP_API_KEY: 'sandbox-api-key', SHIP_CONFIG_DIR: configDir };
  await timed([BIN, 'login', '--username', 'demo@example.com', '--password-stdin'], env, 'demo-password\n');

  const cases = [
    { name: 'node -e 0 (baseline)', args: ['-e', '0'] },
    { name: 'ship --version', args: [BIN, '--version'] },
    { name: 'ship --help', args: [BIN, '--help'] },
    { name: 'ship services --json', args: [BIN, 'services', '--json'] },
    { name: 'ship skus list --json', args: [BIN, 'skus', 'list', '--json'] },
    { name: 'ship whoami --json', args: [BIN, 'whoami', '--json'] },
  ];
  // One untimed round first: the page cache and the sandbox's own JIT warm up for every case alike.
  for (const c of cases) await timed(c.args, env);
  const times = cases.map(() => []);
  for (let i = 0; i < RUNS; i++) {
    for (const [k, c] of cases.entries()) times[k].push(await timed(c.args, env));
  }

  const base = median(times[0]);
  const cache = typeof module.enableCompileCache !== 'function' ? 'no compile cache in this Node' : NO_COMPILE_CACHE ? 'compile cache disabled' : 'compile cache on';
  console.log(`ship start-up, median of ${RUNS} runs each (Node ${process.version}, ${cache}; ${os.cpus().length} CPUs, load ${os.loadavg()[0].toFixed(1)}; sandbox in its own process)\n`);
  const widths = [24, 10, 10, 18];
  console.log(['command', 'median', 'ratio', 'over baseline'].map((h, i) => h.padEnd(widths[i])).join(' '));
  for (const [k, c] of cases.entries()) {
    const m = median(times[k]);
    const cells = [c.name, `${m.toFixed(0)} ms`, `${(m / base).toFixed(2)}x`, k === 0 ? '' : `+${(m - base).toFixed(0)} ms`];
    console.log(cells.map((x, i) => x.padEnd(widths[i])).join(' '));
  }
} finally {
  sandbox.kill('SIGTERM');
  rmSync(configDir, { recursive: true, force: true });
}
