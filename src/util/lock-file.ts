// An exclusive lock file: one process at a time may use the file it guards (a bulk run's journal, a sandbox's
// --state file, the config file while it is rewritten). The lock is created whole and exclusively (a complete
// temp file link()ed into place), holds the owner's pid, hostname and start time, and a lock whose local owner
// is gone (killed) is taken over under a guard, so two processes judging the same lock stale never both win.
//
// Each caller words its own errors and warnings (LockWording): a journal speaks of runs, a sandbox of sandboxes.
import * as fs from 'node:fs';
import { hostname } from 'node:os';
import { basename, dirname, join } from 'node:path';

/** What a lock file says about its owner. */
export interface LockInfo {
  pid: number;
  hostname: string;
  started_at: string;
}

/** The owner of a lock as a caller's messages describe it. */
export interface LockOwner {
  pid: number;
  /** Undefined for a legacy lock (a bare pid: such locks were only ever written and read on one machine). */
  hostname?: string;
  /** Undefined for a legacy lock. */
  startedAt?: string;
  /** On this machine (its pid can be checked). */
  local: boolean;
}

/** The words of one kind of lock: each caller keeps its own. */
export interface LockWording {
  /** The error when a live process holds the lock; `owner` is undefined when another tool is writing the file. */
  held(owner: LockOwner | undefined): Error;
  /** The warning when the lock of a process that is gone is taken over (none: taken over silently). */
  takenOver?(owner: LockOwner): string;
  /** The warning when a lock file nobody could have written (not a lock's content) is taken over. */
  unreadableTakenOver?(path: string): string;
}

/** Options of LockFile.acquire(). */
export interface LockOptions {
  /** Told about stale locks taken over and leftovers removed. */
  onWarning?: (message: string) => void;
  /**
   * How long to wait for a live owner to release the lock before `wording.held` (default 0: refuse at once).
   * For short holds (a config write takes milliseconds) that another process is likely to end soon.
   */
  waitMs?: number;
}

/** Age after which a takeover guard is someone's leftover, not a takeover going on (it lives microseconds). */
const GUARD_STALE_MS = 10_000;

/** Age under which an unreadable lock file is taken to be another tool's, still being written. */
const UNREADABLE_YOUNG_MS = 5_000;

/** Locks held by this process: a lock naming this pid and not held here is a leftover of an earlier process. */
const HELD_HERE = new Set<string>();

/** An exclusive lock file holding the owner's pid and hostname; a lock of a dead local process is taken over. */
export class LockFile {
  private released = false;
  private constructor(
    readonly path: string,
    /**
     * The owner of a lock this acquisition took over: a local process that ended without releasing it (killed,
     * or its machine went down). Undefined when the lock was free: whoever used the file last let it go.
     */
    readonly tookOverFrom?: LockOwner,
  ) {}

  /** Takes the lock or throws `wording.held(owner)` (after waiting up to `waitMs` for a live owner). */
  static acquire(path: string, wording: LockWording, opts: LockOptions = {}): LockFile {
    const me: LockInfo = { pid: process.pid, hostname: hostname(), started_at: new Date().toISOString() };
    const waitUntil = Date.now() + Math.max(0, opts.waitMs ?? 0);
    // A takeover guard left by a process killed inside it is cleared after GUARD_STALE_MS: wait for that rather
    // than refuse (a rerun right after such a kill would otherwise fail for ten seconds).
    const guardDeadline = Date.now() + GUARD_STALE_MS + 2_000;
    let lastOwner: LockOwner | undefined;
    let tookOverFrom: LockOwner | undefined;
    for (let attempt = 0; attempt < 5 || Date.now() < Math.max(guardDeadline, waitUntil); attempt++) {
      if (attempt >= 5) pause(Math.min(25, 5 + attempt));
      if (tryCreate(path, me)) {
        HELD_HERE.add(path);
        removeLeftoverTemps(path, opts.onWarning);
        return new LockFile(path, tookOverFrom);
      }
      const owner = readLock(path);
      if (owner === 'missing') continue;
      if (owner === 'unreadable') {
        // Written with link() from a complete temp file, so a half-written lock means another tool made it.
        const age = fileAge(path);
        if (age !== undefined && age < UNREADABLE_YOUNG_MS) {
          if (Date.now() < waitUntil) continue;
          throw wording.held(undefined);
        }
        if (takeOver(path, (now) => now === 'unreadable')) opts.onWarning?.(wording.unreadableTakenOver?.(path) ?? `took over an unreadable lock file ${path}`);
        continue;
      }
      const who = ownerOf(owner, me.hostname);
      if (who.local && !ownerAlive(path, owner)) {
        const stale = (now: ReturnType<typeof readLock>) => typeof now === 'object' && sameLock(now, owner);
        if (takeOver(path, stale)) {
          tookOverFrom = who;
          const warning = wording.takenOver?.(who);
          if (warning) opts.onWarning?.(warning);
        }
        continue;
      }
      lastOwner = who;
      if (Date.now() < waitUntil) continue;
      throw wording.held(who);
    }
    // Only a takeover guard that never went away (or a lock that keeps changing hands) gets here.
    throw wording.held(lastOwner);
  }

  /** Removes the lock (only if it is still ours). */
  release(): void {
    if (this.released) return;
    this.released = true;
    HELD_HERE.delete(this.path);
    const owner = readLock(this.path);
    if (typeof owner === 'object' && owner.pid === process.pid && owner.hostname === hostname()) {
      try {
        fs.unlinkSync(this.path);
      } catch {
        // already gone
      }
    }
  }
}

/** A lock as read: a legacy lock (a bare pid, as `ship sandbox --state` wrote before) has no hostname. */
type ReadLock = (LockInfo & { legacy?: boolean }) | 'missing' | 'unreadable';

function ownerOf(info: LockInfo & { legacy?: boolean }, myHost: string): LockOwner {
  if (info.legacy) return { pid: info.pid, local: true };
  return { pid: info.pid, hostname: info.hostname, startedAt: info.started_at, local: info.hostname === myHost };
}

function sameLock(a: LockInfo & { legacy?: boolean }, b: LockInfo & { legacy?: boolean }): boolean {
  return a.pid === b.pid && a.hostname === b.hostname && a.started_at === b.started_at && Boolean(a.legacy) === Boolean(b.legacy);
}

/**
 * Whether the process named by a local lock is still using it. This process's own pid counts only for a lock it
 * holds now: otherwise the lock was left by an earlier process that had the same pid (and, for a legacy lock,
 * this process never writes that format).
 */
function ownerAlive(path: string, owner: LockInfo & { legacy?: boolean }): boolean {
  if (owner.pid === process.pid) return !owner.legacy && HELD_HERE.has(path);
  return pidAlive(owner.pid);
}

function tryCreate(path: string, info: LockInfo): boolean {
  // Write a complete temp file, then link() it into place: link fails if the lock exists, so creation is
  // exclusive and nobody ever reads a half-written lock.
  const tmp = `${path}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  fs.writeFileSync(tmp, JSON.stringify(info) + '\n', { mode: 0o600 });
  try {
    fs.linkSync(tmp, path);
    return true;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return false;
    if (code === 'EPERM' || code === 'ENOTSUP' || code === 'EOPNOTSUPP') {
      // File systems without hard links: fall back to O_EXCL.
      try {
        fs.writeFileSync(path, JSON.stringify(info) + '\n', { flag: 'wx', mode: 0o600 });
        return true;
      } catch (e2) {
        if ((e2 as NodeJS.ErrnoException).code === 'EEXIST') return false;
        throw e2;
      }
    }
    throw e;
  } finally {
    try {
      fs.unlinkSync(tmp);
    } catch {
      // ignore
    }
  }
}

/**
 * Removes the temp files of lock attempts whose process is gone: a process killed (SIGKILL) between writing its
 * temp file and removing it leaves an empty `LOCK.PID.RANDOM.tmp` beside the lock for good. Called once the lock
 * is held, so no attempt of a live process is racing with it (their pids are alive anyway).
 */
function removeLeftoverTemps(path: string, onWarning?: (m: string) => void): void {
  const dir = dirname(path);
  const prefix = `${basename(path)}.`;
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    if (!name.startsWith(prefix)) continue;
    const m = /^(\d+)\.[a-z0-9]*\.tmp$/.exec(name.slice(prefix.length));
    if (!m) continue;
    const pid = Number(m[1]);
    // This process's own attempts never outlive tryCreate(): one with its pid is an earlier process's.
    if (pid !== process.pid && pidAlive(pid)) continue;
    try {
      fs.unlinkSync(join(dir, name));
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') onWarning?.(`could not remove ${join(dir, name)}, left by a lock attempt of process ${pid}: ${(e as Error).message}`);
    }
  }
}

function readLock(path: string): ReadLock {
  let text: string;
  try {
    text = fs.readFileSync(path, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return 'missing';
    throw e;
  }
  // `ship sandbox --state` used to write its pid alone (no hostname: it only ever judged local locks).
  const bare = /^\s*(\d+)\s*$/.exec(text);
  if (bare) return { pid: Number(bare[1]), hostname: '', started_at: '', legacy: true };
  try {
    const v = JSON.parse(text) as LockInfo;
    if (typeof v.pid === 'number' && typeof v.hostname === 'string') return v;
  } catch {
    // fall through
  }
  return 'unreadable';
}

function fileAge(path: string): number | undefined {
  try {
    return Date.now() - fs.statSync(path).mtimeMs;
  } catch {
    return undefined;
  }
}

/** Blocks the thread for a moment (lock acquisition is synchronous: short, and before any other work). */
function pause(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/**
 * Removes a lock judged stale, if it still is. Two processes may judge the same stale lock at once; without a
 * guard the slower one would remove the lock the faster one has just taken (both would then run). So the
 * removal happens under a second, short-lived lock (a directory: mkdir is atomic), after reading the lock again.
 * False when another process holds the guard or the lock changed meanwhile; the caller then reads the lock again.
 */
export function takeOver(path: string, stillStale: (now: ReadLock) => boolean): boolean {
  const guard = `${path}.takeover`;
  try {
    fs.mkdirSync(guard);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    // A guard left by a process killed inside the few microseconds it exists.
    const age = fileAge(guard);
    if (age !== undefined && age > GUARD_STALE_MS) fs.rmSync(guard, { recursive: true, force: true });
    return false;
  }
  try {
    const now = readLock(path);
    if (now === 'missing') return false;
    if (!stillStale(now)) return false;
    fs.unlinkSync(path);
    return true;
  } catch {
    return false;
  } finally {
    fs.rmSync(guard, { recursive: true, force: true });
  }
}

/** Whether a local process is alive (EPERM: alive but not ours). */
export function pidAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** How a lock's owner is named in messages: "process 123, started …" or "process 123 on HOST, started …". */
export function ownerText(owner: LockOwner): string {
  const where = owner.local ? `process ${owner.pid}` : `process ${owner.pid} on ${owner.hostname}`;
  return owner.startedAt ? `${where}, started ${owner.startedAt}` : where;
}

