// The built binary writing one config file from many processes at once (a script running `ship config set` in
// parallel, or `ship login` while another command writes): every change must survive, and the file stays 0600.
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ship, tempConfigDir } from '../helpers/bin.js';

describe('config writes from parallel processes (binary)', () => {
  it('20 parallel `ship config set printer.pN …`: all 20 are in the file afterwards, mode 0600, no lock left', async () => {
    const dir = tempConfigDir();
    const file = join(dir, 'config.json');
    const n = 20;
    const runs = await Promise.all(
      Array.from({ length: n }, (_, i) => ship(['config', 'set', `printer.p${i}`, `tcp://127.0.0.1:${9100 + i}`], { env: { SHIP_CONFIG_DIR: dir } })),
    );
    for (const r of runs) expect(r.exitCode, String(r.stderr)).toBe(0);
    const printers = JSON.parse(readFileSync(file, 'utf8')).profiles.default.printers;
    expect(printers).toEqual(Object.fromEntries(Array.from({ length: n }, (_, i) => [`p${i}`, `tcp://127.0.0.1:${9100 + i}`])));
    if (process.platform !== 'win32') expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readdirSync(dir).filter((f) => f.includes('.lock'))).toEqual([]);
  });

  it('a lock held by a live process: a write waits a few seconds, then stops with an error naming the lock file; reads never wait', async () => {
    const dir = tempConfigDir();
    const lock = join(dir, 'config.json.lock');
    // This test's own process is alive for the whole run: its lock is never stale.
    writeFileSync(lock, JSON.stringify({ pid: process.pid, hostname: hostname(), started_at: '2026-01-01T00:00:00.000Z' }) + '\n');
    const t0 = Date.now();
    const r = await ship(['config', 'set', 'timeout', '12'], { env: { SHIP_CONFIG_DIR: dir } });
    expect(r.exitCode).toBe(1);
    expect(Date.now() - t0).toBeGreaterThan(2_000);
    expect(String(r.stderr)).toContain(`the config file is locked by another ship process (process ${process.pid}, started 2026-01-01T00:00:00.000Z): gave up waiting for ${lock}`);
    expect(String(r.stderr)).toContain(`delete ${lock}`);
    expect(existsSync(join(dir, 'config.json'))).toBe(false);
    const read = await ship(['config', 'list'], { env: { SHIP_CONFIG_DIR: dir } });
    expect(read.exitCode, String(read.stderr)).toBe(0);
    expect(existsSync(lock)).toBe(true);
  });
});
