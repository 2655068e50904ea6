// `--state FILE`: load at start, save atomically (temp file, fsync, rename) after changes, debounced, so a kill at
// any moment leaves either the previous state or the new one, never a torn file.
import { open, readdir, readFile, rename, unlink } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import type { Snapshot } from './store.js';
import { makeDirSync } from '../util/mkdir.js';

/** Saves snapshots of the state to a file. */
export class StateFile {
  readonly file: string;
  private timer: NodeJS.Timeout | null = null;
  private saving: Promise<void> | null = null;
  private dirty = false;
  private seq = 0;

  constructor(
    file: string,
    private readonly snapshot: () => Snapshot,
    private readonly log: (line: string) => void,
    private readonly delayMs = 100,
  ) {
    this.file = resolve(file);
  }

  /** Reads the saved state; null when the file does not exist. A corrupt file is an error (never silently replaced). */
  async load(): Promise<Snapshot | null> {
    await this.removeStaleTemps();
    let text: string;
    try {
      text = await readFile(this.file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
    let parsed: Snapshot;
    try {
      parsed = JSON.parse(text) as Snapshot;
    } catch (err) {
      throw new Error(`state file ${this.file} is not valid JSON (${(err as Error).message}); move it away or pass another --state file`);
    }
    if (parsed?.version !== 1 || !Array.isArray(parsed.shipments)) {
      throw new Error(`state file ${this.file} is not a sandbox state file (version ${String((parsed as { version?: unknown })?.version)})`);
    }
    return parsed;
  }

  /** Notes a change; a save follows shortly (many changes share one save). */
  schedule(): void {
    this.dirty = true;
    if (this.timer || this.saving) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.saveNow();
    }, this.delayMs);
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
    const text = JSON.stringify(this.snapshot());
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
