// LockFile: the one exclusive lock of the bulk journal, the sandbox's --state file and config writes.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmdirSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { LockFile, type LockOwner, type LockWording, takeOver } from '../../src/util/lock-file.js';

const tmp = () => mkdtempSync(join(tmpdir(), 'ship-lock-'));

/** A wording that records what it was asked to say. */
class Held extends Error {
  constructor(readonly owner: LockOwner | undefined) {
    super(owner ? `held by ${owner.pid}` : 'held by another tool');
  }
}
const wording: LockWording = {
  held: (owner) => new Held(owner),
  takenOver: (owner) => `took over from ${owner.pid}`,
  unreadableTakenOver: (path) => `took over unreadable ${path}`,
};
const heldBy = (fn: () => unknown): Held => {
  try {
    fn();
  } catch (e) {
    if (e instanceof Held) return e;
    throw e;
  }
  throw new Error('the lock was taken');
};

/** The pid of a process that has just exited: dead, as a killed owner's is. */
function deadPid(): number {
  const r = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']);
  return Number(String(r.stdout));
}

const children: ChildProcess[] = [];
/** A live process other than this one (killed after the test). */
function liveProcess(script = 'setTimeout(() => {}, 30000)'): ChildProcess {
  const c = spawn(process.execPath, ['-e', script], { stdio: 'ignore' });
  children.push(c);
  return c;
}
afterEach(() => {
  for (const c of children.splice(0)) c.kill('SIGKILL');
});

describe('LockFile', () => {
  it('is exclusive: a second acquire (even in this process) gets the owner; after release the lock is free again', () => {
    const path = join(tmp(), 'f.lock');
    const a = LockFile.acquire(path, wording);
    const info = JSON.parse(readFileSync(path, 'utf8'));
    expect(info).toMatchObject({ pid: process.pid, hostname: hostname() });
    expect(heldBy(() => LockFile.acquire(path, wording)).owner).toEqual({ pid: process.pid, hostname: hostname(), startedAt: info.started_at, local: true });
    a.release();
    expect(existsSync(path)).toBe(false);
    const b = LockFile.acquire(path, wording);
    expect(b.tookOverFrom).toBeUndefined();
    b.release();
  });

  it('takes over the lock of a local process that is gone, with the caller\'s warning, and says whose it was', () => {
    const path = join(tmp(), 'f.lock');
    const pid = deadPid();
    writeFileSync(path, JSON.stringify({ pid, hostname: hostname(), started_at: 'earlier' }));
    const warnings: string[] = [];
    const lock = LockFile.acquire(path, wording, { onWarning: (m) => warnings.push(m) });
    expect(warnings).toEqual([`took over from ${pid}`]);
    expect(lock.tookOverFrom).toEqual({ pid, hostname: hostname(), startedAt: 'earlier', local: true });
    expect(JSON.parse(readFileSync(path, 'utf8')).pid).toBe(process.pid);
    lock.release();
  });

  it('refuses a lock of a live local process, and one held on another host (its pid cannot be checked)', () => {
    const path = join(tmp(), 'f.lock');
    const live = liveProcess();
    writeFileSync(path, JSON.stringify({ pid: live.pid, hostname: hostname(), started_at: 'earlier' }));
    expect(heldBy(() => LockFile.acquire(path, wording)).owner).toMatchObject({ pid: live.pid, local: true });
    writeFileSync(path, JSON.stringify({ pid: deadPid(), hostname: 'some-other-host', started_at: 'earlier' }));
    expect(heldBy(() => LockFile.acquire(path, wording)).owner).toMatchObject({ hostname: 'some-other-host', local: false });
  });

  it('a lock naming this pid that this process does not hold is a leftover of an earlier process with the same pid', () => {
    const path = join(tmp(), 'f.lock');
    writeFileSync(path, JSON.stringify({ pid: process.pid, hostname: hostname(), started_at: 'before a reboot' }));
    const warnings: string[] = [];
    const lock = LockFile.acquire(path, wording, { onWarning: (m) => warnings.push(m) });
    expect(warnings).toEqual([`took over from ${process.pid}`]);
    lock.release();
  });

  it('a legacy lock (a bare pid, as `ship sandbox --state` wrote before): taken over when its process is gone, refused while it runs', () => {
    const path = join(tmp(), 'f.lock');
    const dead = deadPid();
    writeFileSync(path, `${dead}\n`);
    const warnings: string[] = [];
    const lock = LockFile.acquire(path, wording, { onWarning: (m) => warnings.push(m) });
    expect(warnings).toEqual([`took over from ${dead}`]);
    expect(lock.tookOverFrom).toEqual({ pid: dead, local: true });
    lock.release();
    const live = liveProcess();
    writeFileSync(path, `${live.pid}\n`);
    expect(heldBy(() => LockFile.acquire(path, wording)).owner).toEqual({ pid: live.pid, local: true });
    // This process never writes a bare pid: one naming it was left by an earlier process.
    writeFileSync(path, `${process.pid}\n`);
    LockFile.acquire(path, wording).release();
  });

  it('an unreadable lock file: refused while young (another tool may be writing it), taken over once old', () => {
    const path = join(tmp(), 'f.lock');
    writeFileSync(path, '');
    expect(heldBy(() => LockFile.acquire(path, wording)).owner).toBeUndefined();
    const then = (Date.now() - 60_000) / 1000;
    utimesSync(path, then, then);
    const warnings: string[] = [];
    LockFile.acquire(path, wording, { onWarning: (m) => warnings.push(m) }).release();
    expect(warnings).toEqual([`took over unreadable ${path}`]);
  });

  it('with waitMs, waits for a live owner to let go; gives up with the owner after waitMs', () => {
    const dir = tmp();
    const path = join(dir, 'f.lock');
    // A live owner that removes its lock 300 ms later.
    const owner = liveProcess(`setTimeout(() => require('fs').unlinkSync(${JSON.stringify(path)}), 300); setTimeout(() => {}, 30000)`);
    writeFileSync(path, JSON.stringify({ pid: owner.pid, hostname: hostname(), started_at: 'now' }));
    const t0 = Date.now();
    const lock = LockFile.acquire(path, wording, { waitMs: 5_000 });
    expect(Date.now() - t0).toBeLessThan(5_000);
    expect(existsSync(path)).toBe(true);
    lock.release();
    // One that keeps it.
    const keeper = liveProcess();
    writeFileSync(path, JSON.stringify({ pid: keeper.pid, hostname: hostname(), started_at: 'now' }));
    const t1 = Date.now();
    expect(heldBy(() => LockFile.acquire(path, wording, { waitMs: 400 })).owner).toMatchObject({ pid: keeper.pid });
    expect(Date.now() - t1).toBeGreaterThanOrEqual(390);
  });

  it('removes the empty temp files that lock attempts of killed processes left, and only those', () => {
    const dir = tmp();
    const path = join(dir, 'f.lock');
    const dead = deadPid();
    const live = liveProcess();
    // A SIGKILL between writing the attempt's temp file and removing it leaves it behind.
    writeFileSync(join(dir, `f.lock.${dead}.k3j9x.tmp`), '');
    writeFileSync(join(dir, `f.lock.${process.pid}.earlier.tmp`), '');
    writeFileSync(join(dir, `f.lock.${live.pid}.inflight.tmp`), '');
    writeFileSync(join(dir, 'f.lock.notes.tmp'), 'not ours');
    writeFileSync(join(dir, `other.lock.${dead}.k3j9x.tmp`), '');
    const lock = LockFile.acquire(path, wording);
    expect(readdirSync(dir).sort()).toEqual(['f.lock', `f.lock.${live.pid}.inflight.tmp`, 'f.lock.notes.tmp', `other.lock.${dead}.k3j9x.tmp`].sort());
    lock.release();
  });

  it('a process killed between writing its attempt and removing it: the next lock cleans up after it', async () => {
    const dir = tmp();
    const path = join(dir, 'f.lock');
    // The child writes its attempt as tryCreate does, then is killed before it could link or remove it.
    const child = spawn(process.execPath, ['-e', `require('fs').writeFileSync(${JSON.stringify(path)} + '.' + process.pid + '.abc123.tmp', ''); setInterval(() => {}, 1000)`], { stdio: 'ignore' });
    children.push(child);
    const leftover = `f.lock.${child.pid}.abc123.tmp`;
    for (let i = 0; i < 200 && !existsSync(join(dir, leftover)); i++) await new Promise((r) => setTimeout(r, 25));
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
    expect(readdirSync(dir)).toEqual([leftover]);
    LockFile.acquire(path, wording).release();
    expect(readdirSync(dir)).toEqual([]);
  });

  it('two processes taking over the same stale lock: the slower one leaves the lock the faster one took', () => {
    const path = join(tmp(), 'j.jsonl.lock');
    const dead = { pid: deadPid(), hostname: hostname(), started_at: 'earlier' };
    const sameDead = (now: unknown) => typeof now === 'object' && (now as { pid: number }).pid === dead.pid;
    // Both judged the dead lock stale; the faster one removed it and wrote its own meanwhile.
    writeFileSync(path, JSON.stringify({ pid: process.pid, hostname: hostname(), started_at: 'now' }));
    expect(takeOver(path, sameDead)).toBe(false);
    expect(JSON.parse(readFileSync(path, 'utf8')).pid).toBe(process.pid);
    // Still the dead one: removed. While another process holds the guard: left for that process.
    writeFileSync(path, JSON.stringify(dead));
    mkdirSync(`${path}.takeover`);
    expect(takeOver(path, sameDead)).toBe(false);
    rmdirSync(`${path}.takeover`);
    expect(takeOver(path, sameDead)).toBe(true);
    expect(existsSync(path)).toBe(false);
    expect(existsSync(`${path}.takeover`)).toBe(false);
  });

  it('release leaves a lock that is no longer ours (taken over meanwhile) in place', () => {
    const path = join(tmp(), 'f.lock');
    const lock = LockFile.acquire(path, wording);
    writeFileSync(path, JSON.stringify({ pid: 12345, hostname: 'elsewhere', started_at: 'now' }));
    lock.release();
    expect(JSON.parse(readFileSync(path, 'utf8')).hostname).toBe('elsewhere');
  });
});
