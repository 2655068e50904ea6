// `--state FILE`: load at start, save atomically (temp file, fsync, rename) after changes, debounced, so a kill at
// any moment leaves either the previous state or the new one, never a torn file. A lock file beside it keeps a
// second sandbox off the same file (each would overwrite the other's saves and hand out the same references);
// it is the same LockFile as a bulk run's journal's (src/util/lock-file.ts).
import { open, readdir, readFile, rename, unlink } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import type { Snapshot } from './store.js';
import { LockFile, type LockWording } from '../util/lock-file.js';
import { makeDirSync } from '../util/mkdir.js';

/** Saves snapshots of the state to a file. */
export class StateFile {
  readonly file: string;
  private timer: NodeJS.Timeout | null = null;
  private saving: Promise<void> | null = null;
  private dirty = false;
  private seq = 0;
  private held: LockFile | undefined;
  /** Time the last snapshot took to serialise (it blocks requests), which spaces out saves of a big state. */
  private lastSerializeMs = 0;

  constructor(
    file: string,
    private readonly snapshot: () => Snapshot,
    private readonly log: (line: string) => void,
    private readonly delayMs = 100,
  ) {
    this.file = resolve(file);
  }

  /** The lock file beside the state file (holds the pid and host of the sandbox using it). */
  get lockFile(): string {
    return `${this.file}.lock`;
  }

  /**
   * Takes the lock on the state file; throws when another live sandbox holds it. A lock left by a process that
   * is gone (killed) is taken over, with a line in the log; so is a bare-pid lock of an earlier version.
   */
  async lock(): Promise<void> {
    try {
      makeDirSync(dirname(this.file));
    } catch (err) {
      throw new Error(`cannot lock state file ${this.file}: ${(err as Error).message}`);
    }
    try {
      this.held = LockFile.acquire(this.lockFile, stateLockWording(this.file), { onWarning: (m) => this.log(`sandbox: ${m}`) });
    } catch (err) {
      if (err instanceof StateFileInUse) throw err;
      throw new Error(`cannot lock state file ${this.file}: ${(err as Error).message}`);
    }
  }

  /** Gives the lock back (after the last save). */
  async unlock(): Promise<void> {
    this.held?.release();
    this.held = undefined;
  }

  /**
   * Reads the saved state; null when the file does not exist or is empty (a fresh `mktemp`). A corrupt or
   * foreign file is an error (never silently replaced).
   */
  async load(): Promise<Snapshot | null> {
    await this.removeStaleTemps();
    let text: string;
    try {
      text = await readFile(this.file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw new Error(`cannot read state file ${this.file}: ${(err as Error).message}`);
    }
    if (text.trim() === '') return null;
    let parsed: Snapshot;
    try {
      parsed = JSON.parse(text) as Snapshot;
    } catch (err) {
      throw new Error(`state file ${this.file} is not valid JSON (${(err as Error).message}); move it away or pass another --state file`);
    }
    if (parsed?.version !== 1 || !Array.isArray(parsed.shipments)) {
      throw new Error(`state file ${this.file} is not a sandbox state file (version ${String((parsed as { version?: unknown })?.version)})`);
    }
    const missing: string[] = SNAPSHOT_LISTS.filter((k) => !Array.isArray(parsed[k]));
    if (typeof parsed.packaging !== 'object' || parsed.packaging === null || !Array.isArray(parsed.packaging.packaging_types)) missing.push('packaging');
    if (missing.length > 0) {
      throw new Error(`state file ${this.file} is not a sandbox state file (no ${missing.join(', ')}); move it away or pass another --state file`);
    }
    return parsed;
  }

  /** Saves now and throws when the file cannot be written (at start: better than a sandbox that forgets). */
  async saveOrThrow(): Promise<void> {
    if (this.saving) await this.saving;
    this.dirty = false;
    try {
      await this.write(JSON.stringify(this.snapshot()));
    } catch (err) {
      throw new Error(`cannot write state file ${this.file}: ${(err as Error).message}`);
    }
  }

  /** Notes a change; a save follows shortly (many changes share one save). */
  schedule(): void {
    this.dirty = true;
    if (this.timer || this.saving) return;
    // Serialising blocks the event loop: a big state is saved less often, so saves take at most ~10% of it.
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.saveNow();
    }, Math.max(this.delayMs, this.lastSerializeMs * 10));
    this.timer.unref?.();
  }

  /** Writes any pending change now and waits for it. */
  async flush(): Promise<void> {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    if (this.saving) await this.saving;
    if (this.dirty) await this.saveNow();
  }

  private saveNow(): Promise<void> {
    if (this.saving) return this.saving;
    this.dirty = false;
    const t0 = performance.now();
    const text = JSON.stringify(this.snapshot());
    this.lastSerializeMs = performance.now() - t0;
    this.saving = this.write(text)
      .catch((err) => this.log(`sandbox: could not save state to ${this.file}: ${(err as Error).message}`))
      .finally(() => {
        this.saving = null;
        if (this.dirty) this.schedule();
      });
    return this.saving;
  }

  private async write(text: string): Promise<void> {
    const dir = dirname(this.file);
    makeDirSync(dir);
    const tmp = join(dir, `.${basename(this.file)}.${process.pid}.${++this.seq}.tmp`);
    const fh = await open(tmp, 'w', 0o600);
    try {
      await fh.writeFile(text, 'utf8');
      await fh.sync();
    } finally {
      await fh.close();
    }
    await rename(tmp, this.file);
    // Make the rename itself durable; not every platform lets a directory be opened for this.
    try {
      const d = await open(dir, 'r');
      try {
        await d.sync();
      } finally {
        await d.close();
      }
    } catch {
      // best effort
    }
  }

  /** Temp files of saves that never finished (a kill mid-write) are garbage: the real file was never touched. */
  private async removeStaleTemps(): Promise<void> {
    const dir = dirname(this.file);
    const prefix = `.${basename(this.file)}.`;
    let names: string[];
    try {
      names = await readdir(dir);
    } catch {
      return;
    }
    for (const n of names) {
      if (n.startsWith(prefix) && n.endsWith('.tmp')) await unlink(join(dir, n)).catch(() => undefined);
    }
  }
}

/** Another sandbox (alive) uses the state file. */
class StateFileInUse extends Error {}

/** How the state file's lock speaks: of sandboxes. */
function stateLockWording(file: string): LockWording {
  const advice = 'stop it or pass another --state file';
  return {
    held: (owner) =>
      new StateFileInUse(
        owner === undefined
          ? `state file ${file} is in use by another sandbox (its lock ${file}.lock is being written); ${advice}`
          : `state file ${file} is in use by another sandbox (pid ${owner.pid}${owner.local ? '' : ` on ${owner.hostname}`}); ${advice}${owner.local ? '' : `, or delete ${file}.lock if that sandbox is surely gone`}`,
      ),
    takenOver: (owner) => `took over the lock of state file ${file} from process ${owner.pid}, which is no longer running`,
  };
}

const SNAPSHOT_LISTS = ['users', 'locations', 'brands', 'services', 'custom_fields', 'skus', 'tokens', 'containers'] as const;

