// The resume journal: an append-only JSONL file beside the output, one record per state change of a task,
// made durable (fdatasync) in group commits, guarded by a lock file so two runs never race on it.
//
// Invariants the runner relies on:
// - append() resolves only after the record is written (and fdatasync'ed when `sync`), so a "sending" record
//   is on disk before the request leaves;
// - a write that fails part way (a full disk) is cut back to the last whole commit; a torn last line that remains
//   (a kill in the middle of a write) is ignored when read and cut off before the next record (a whole record
//   lacking only its newline is ended instead), so nothing glues onto it: the file stays readable line by line.
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { ShipError } from '../errors.js';
import { LockFile, type LockWording, ownerText } from '../util/lock-file.js';
import { makeDirSync } from '../util/mkdir.js';
import { writeFileAtomic } from '../labels/index.js';
import { NO_FOLLOW, RefusedPath, refusedOr, refuseUnlessRegular } from '../util/own-files.js';

/**
 * State of a task in the journal: the request may be on its way (sending), it succeeded (done), it failed
 * (failed), or a "sending" written ahead was never used (unsent: as if there were no record).
 */
export type JournalState = 'sending' | 'done' | 'failed' | 'unsent';

/** An error as stored in the journal (enough to report it again and to decide about a retry). */
export interface StoredError {
  message: string;
  type?: string;
  status?: number;
  fields?: Record<string, string[]>;
}

/** The last known record of one key. */
export interface JournalEntry {
  key: string;
  state: JournalState;
  /** ISO time of the record. */
  at: string;
  /** Attempt number within the run that wrote it (1-based). */
  attempt?: number;
  /** For done: the task's JSON summary. */
  result?: unknown;
  /** For failed: what went wrong. */
  error?: StoredError;
  /** For failed: the outcome is unknown (it may exist on the server); settle before resending. */
  unknown?: boolean;
  /** Input fingerprint at the time of sending/done. */
  fp?: string;
}

/** What the journal is, in a refusal of its path. */
const JOURNAL = 'the resume journal';

/** Runs `fn`; a RefusedPath of the journal's path stops the run (exit 1), with the way out as its hint. */
function journalPathChecked<T>(fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    if (!(e instanceof RefusedPath)) throw e;
    throw new ShipError(e.reason, 1, { hint: e.fix });
  }
}

/** Options for Journal.open(). */
export interface JournalOpenOptions {
  /** fdatasync each group commit (default true). */
  sync?: boolean;
  /** Take the lock file (default true). */
  lock?: boolean;
  /**
   * Milliseconds records may wait to be committed together (default 10). Fewer, larger commits cost less CPU
   * and disk (each is a write and an fdatasync: a 10,000-shipment run with labels on ext4 used ~7% less CPU
   * than at 2 ms); the runner writes "sending" records ahead of need (128+ at a time), so this delay is not on
   * any request's path, only on when a finished task's line is printed.
   */
  commitDelayMs?: number;
  /** Told about stale locks taken over and unreadable lines ignored. */
  onWarning?: (message: string) => void;
  /**
   * Keys whose records may be dropped when the journal is opened, if settled ("done" or "failed"; a key whose
   * last record is "sending" is an unknown outcome and always kept): a file written anew under the same name
   * each night would otherwise grow its journal without end, every run reading all of it. The file is rewritten
   * (temp file, rename) under the lock, keeping every line of every other key, in order.
   */
  forget?: (key: string) => boolean;
}

/**
 * The journal could not be written (disk full, quota, I/O error): the run stops (exit 1). Every record that
 * is not on disk leaves its task to be settled by the next run, so rerunning is safe; the message names the file.
 */
export class JournalWriteError extends ShipError {
  constructor(path: string, cause: unknown) {
    super(`could not write the resume journal ${path}: ${cause instanceof Error ? cause.message : String(cause)}`, 1, {
      hint: 'make room on that disk (or fix its permissions), then rerun the same command: what was created is skipped, nothing is created twice',
      cause,
    });
  }
}

/** A second run on the same journal while the first one is alive (exit 1). */
export class JournalLockedError extends ShipError {
  constructor(message: string, hint: string) {
    super(message, 1, { hint });
  }
}

/** How the journal's lock speaks: of runs. */
function journalLockWording(path: string): LockWording {
  return {
    held: (owner) =>
      owner === undefined
        ? new JournalLockedError(`the journal is locked by another run (${path})`, 'wait for it to finish')
        : new JournalLockedError(
            `another run is already using this journal: ${ownerText(owner)}`,
            owner.local
              ? `wait for it to finish (or stop it); if no such run is going on (its process ID now belongs to another program), delete ${path}`
              : `if that run is surely gone, delete ${path} and run again`,
          ),
    takenOver: (owner) =>
      `took over the journal lock of process ${owner.pid}, which is no longer running${owner.startedAt ? ` (started ${owner.startedAt})` : ''}`,
  };
}

// Short keys keep 10k-record journals small and quick to parse.
interface Line {
  k: string;
  s: JournalState;
  t: string;
  a?: number;
  r?: unknown;
  e?: StoredError;
  u?: boolean;
  f?: string;
}

/**
 * The records waiting for the next commit, and the one promise they all get: they become durable (or fail)
 * together, and a bulk run appends two records a shipment, so one promise per commit rather than per record.
 */
interface Pending {
  texts: string[];
  done: Promise<void>;
  resolve: () => void;
  reject: (e: unknown) => void;
}

function newPending(): Pending {
  let resolve!: () => void;
  let reject!: (e: unknown) => void;
  const done = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { texts: [], done, resolve, reject };
}

/** The resume journal of one bulk run. */
export class Journal {
  private readonly entries = new Map<string, JournalEntry>();
  private fd: number | undefined;
  private queue: Pending | undefined;
  private flushing = false;
  private closed = false;
  private lock: LockFile | undefined;
  /** Told when the journal was deleted under the run (see close). */
  private onWarning: ((message: string) => void) | undefined;
  /** Size of the file up to the end of its last complete commit (where a failed write is cut back to). */
  private written = 0;
  /** Set when a failed write could not be cut back: nothing more is appended. */
  private torn: JournalWriteError | undefined;
  /** Lines that could not be parsed when the journal was read (a torn last line after a kill). */
  ignoredLines = 0;
  /** Bytes of an unreadable last line without its newline (torn by a kill or a failed write), cut off at open. */
  private tornTailBytes = 0;
  /** Group commits done so far (for benchmarks and tests). */
  commits = 0;

  private constructor(
    readonly path: string,
    private readonly sync: boolean,
    private readonly commitDelayMs: number,
  ) {}

  /** Opens (creating if needed) the journal, takes its lock and reads what earlier runs recorded. */
  static async open(path: string, opts: JournalOpenOptions = {}): Promise<Journal> {
    const j = new Journal(resolve(path), opts.sync ?? true, Math.max(0, opts.commitDelayMs ?? 10));
    j.onWarning = opts.onWarning;
    makeDirSync(dirname(j.path));
    // Its name can be read from the directory: a link or a pipe put there is neither read nor written through.
    journalPathChecked(() => refuseUnlessRegular(j.path, JOURNAL));
    if (opts.lock ?? true) j.lock = LockFile.acquire(`${j.path}.lock`, journalLockWording(`${j.path}.lock`), { onWarning: opts.onWarning });
    try {
      // How the previous run ended, as its lock tells: a run that ends (even on an error) removes its lock; a
      // killed one leaves it behind, to be taken over.
      const previousRun = j.lock === undefined ? 'unknown' : j.lock.tookOverFrom ? 'killed' : 'ended';
      const readable: Array<[key: string, raw: string]> | undefined = opts.forget ? [] : undefined;
      j.load(opts.onWarning, previousRun, readable);
      if (opts.forget) j.forgetSettled(opts.forget, readable!);
      // Owner-only, like the credentials file: it holds recipients' addresses and the service's answers. Never
      // through a link or into a pipe put there since the check above (appending to, and changing the mode of,
      // the file it points to).
      j.fd = journalPathChecked(() => {
        try {
          return fs.openSync(j.path, fs.constants.O_WRONLY | fs.constants.O_APPEND | fs.constants.O_CREAT | NO_FOLLOW, 0o600);
        } catch (e) {
          throw refusedOr(e, j.path, JOURNAL);
        }
      });
      // A journal from before it was made owner-only gets the same mode (not ours to change: left as it is).
      if (process.platform !== 'win32') {
        try {
          fs.fchmodSync(j.fd, 0o600);
        } catch {
          // another user's file
        }
      }
      const size = fs.fstatSync(j.fd).size;
      j.written = size;
      if (size > 0 && !endsWithNewline(j.path, size)) {
        if (j.tornTailBytes > 0 && j.tornTailBytes <= size) {
          // An unreadable torn last line (warned about above): cut off, so the next record starts a line of its
          // own and later runs do not warn about the same fragment again, forever, from the middle of the file.
          fs.ftruncateSync(j.fd, size - j.tornTailBytes);
          j.written = size - j.tornTailBytes;
        } else {
          // A whole record that only lacks its newline: end it here.
          fs.writeSync(j.fd, '\n');
          j.written++;
        }
        if (j.sync) fs.fdatasyncSync(j.fd);
      }
    } catch (e) {
      j.lock?.release();
      throw e;
    }
    return j;
  }

  /**
   * The last record of each key of a journal on disk, read without its lock (a run that stopped early reads
   * what earlier runs left for the tasks it never reached). Empty when there is no journal.
   */
  static readEntries(path: string): Map<string, JournalEntry> {
    const j = new Journal(resolve(path), false, 0);
    j.load();
    return j.entries;
  }

  /** The last record of a key, if any (records appended by this process carry no result or error). */
  get(key: string): JournalEntry | undefined {
    return this.entries.get(key);
  }

  /** Number of keys with any record. */
  get size(): number {
    return this.entries.size;
  }

  /** Every key's last record, in first-seen order. */
  values(): IterableIterator<JournalEntry> {
    return this.entries.values();
  }

  /** Appends a record; resolves once it is durable (group commit with the other records of the same tick). */
  append(entry: Omit<JournalEntry, 'at'> & { at?: string }): Promise<void> {
    if (this.closed) return Promise.reject(new Error('journal is closed'));
    if (this.torn) return Promise.reject(this.torn);
    const at = entry.at ?? isoNow();
    const line: Line = { k: entry.key, s: entry.state, t: at };
    if (entry.attempt !== undefined) line.a = entry.attempt;
    if (entry.result !== undefined) line.r = entry.result;
    if (entry.error !== undefined) line.e = entry.error;
    if (entry.unknown) line.u = true;
    if (entry.fp !== undefined) line.f = entry.fp;
    // This run reads a key's record only before starting it, so what it appends is remembered without the
    // result and error bodies: 10,000 results would otherwise stay in memory until the end.
    const light: JournalEntry = { key: entry.key, state: entry.state, at };
    if (entry.unknown) light.unknown = true;
    if (entry.fp !== undefined) light.fp = entry.fp;
    this.remember(light);
    const pending = (this.queue ??= newPending());
    pending.texts.push(JSON.stringify(line) + '\n');
    if (!this.flushing) {
      this.flushing = true;
      this.schedule();
    }
    return pending.done;
  }

  /** Flushes, closes the file and releases the lock. */
  async close(): Promise<void> {
    if (this.closed) return;
    while (this.flushing || this.queue) await new Promise((r) => setImmediate(r));
    this.closed = true;
    try {
      if (this.fd !== undefined) {
        try {
          if (this.sync) fs.fsyncSync(this.fd);
          // Deleted under the run (its directory removed: `rm -rf labels`): what was written went to a file no
          // one can open, and a rerun will not know what this run created.
          if (fs.fstatSync(this.fd).nlink === 0) {
            this.onWarning?.(
              `the resume journal ${this.path} was deleted during the run (its directory removed?): a rerun of this file will not know what this run created, and will send it again; the service refuses those references as duplicates, reported as already existing`,
            );
          }
        } catch (e) {
          throw new JournalWriteError(this.path, e);
        } finally {
          fs.closeSync(this.fd);
          this.fd = undefined;
        }
      }
    } finally {
      this.lock?.release();
    }
  }

  private schedule(): void {
    // Records appended meanwhile (several tasks finishing together) share one write and one fdatasync. The first
    // commit of a run goes at once: the first requests wait for their "sending" records (reserved together).
    if (this.commitDelayMs > 0 && this.commits > 0) setTimeout(() => this.flush(), this.commitDelayMs);
    else setImmediate(() => this.flush());
  }

  private flush(): void {
    const batch = this.queue;
    this.queue = undefined;
    if (batch === undefined || this.fd === undefined) {
      this.flushing = false;
      batch?.reject(new Error('journal is closed'));
      return;
    }
    const buf = Buffer.from(batch.texts.join(''), 'utf8');
    const fd = this.fd;
    // Asynchronous write + fdatasync: responses keep arriving while the disk works, and queue up for the
    // next commit — that is what keeps the journal's cost per record small at high concurrency.
    writeAll(fd, buf, (err) => {
      if (err) {
        // A full disk takes part of a commit (ENOSPC after a short write): cut it off, so the journal keeps
        // whole lines only and the next run has nothing to ignore. (Shrinking a file needs no room.)
        try {
          fs.ftruncateSync(fd, this.written);
        } catch {
          // Left torn (the next run ignores that line, with a warning): a later record would glue onto it.
          this.torn = new JournalWriteError(this.path, err);
        }
        return this.finish(batch, err);
      }
      this.written += buf.length;
      if (!this.sync) return this.finish(batch);
      fs.fdatasync(fd, (e) => this.finish(batch, e ?? undefined));
    });
  }

  private finish(batch: Pending, err?: unknown): void {
    this.commits++;
    if (err) batch.reject(new JournalWriteError(this.path, err));
    else batch.resolve();
    if (this.queue) this.schedule();
    else this.flushing = false;
  }

  /**
   * A key's record from before its "sending" one, while that is its last: an "unsent" (the request never left)
   * undoes the "sending" and brings it back, so an earlier run's failure is still known (FILE.failed.csv).
   */
  private readonly beforeSending = new Map<string, JournalEntry>();

  private remember(e: JournalEntry): void {
    const prev = this.entries.get(e.key);
    // A failed record after done (should not happen) must not hide the success; keep the result.
    if (prev?.state === 'done' && e.state !== 'done') return;
    if (e.state === 'unsent') {
      if (prev?.state === 'sending') {
        const before = this.beforeSending.get(e.key);
        if (before) this.entries.set(e.key, before);
        else this.entries.delete(e.key);
        this.beforeSending.delete(e.key);
      }
      return;
    }
    if (e.state !== 'sending') this.beforeSending.delete(e.key);
    else if (prev !== undefined && prev.state !== 'sending') this.beforeSending.set(e.key, prev);
    if (e.fp === undefined && prev?.fp !== undefined) e = { ...e, fp: prev.fp };
    this.entries.set(e.key, e);
  }

  /**
   * Drops the records of settled keys `forget` names, rewriting the file atomically from the lines load() read
   * (see JournalOpenOptions.forget). Unreadable lines were warned about when read: not carried over.
   */
  private forgetSettled(forget: (key: string) => boolean, readable: ReadonlyArray<[key: string, raw: string]>): void {
    const dropped = new Set<string>();
    for (const [key, e] of this.entries) if (e.state !== 'sending' && forget(key)) dropped.add(key);
    if (dropped.size === 0) return;
    const kept = readable.filter(([key]) => !dropped.has(key)).map(([, raw]) => `${raw}\n`);
    writeFileAtomic(this.path, kept.join(''), { sync: this.sync, mode: 0o600, own: JOURNAL });
    for (const key of dropped) {
      this.entries.delete(key);
      this.beforeSending.delete(key);
    }
    this.ignoredLines = 0;
    this.tornTailBytes = 0;
  }

  /** Reads the file's records; `readable`, when given, collects each readable line with its key. */
  private load(onWarning?: (m: string) => void, previousRun: 'killed' | 'ended' | 'unknown' = 'unknown', readable?: Array<[key: string, raw: string]>): void {
    let bytes: Buffer;
    try {
      bytes = fs.readFileSync(this.path);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw e;
    }
    const text = bytes.toString('utf8');
    const lines = text.split('\n');
    for (let i = 0; i < lines.length; i++) {
      const raw = lines[i];
      if (!raw.trim()) continue;
      const rec = parseLine(raw);
      if (!rec) {
        this.ignoredLines++;
        const last = i === lines.length - 1;
        // In bytes as on disk, after the last newline: a line torn inside a character decodes to U+FFFD (3 bytes
        // for each 1 or 2 cut), and measuring the decoded text cut into the record before it.
        if (last) this.tornTailBytes = bytes.length - (bytes.lastIndexOf(0x0a) + 1);
        onWarning?.(last ? `journal ${this.path}: ignored an incomplete last line (${TORN_LAST_LINE_CAUSE[previousRun]})` : `journal ${this.path}: ignored unreadable line ${i + 1}`);
        continue;
      }
      readable?.push([rec.key, raw]);
      this.remember(rec);
    }
  }
}

/**
 * Why a journal's last line is incomplete, by how the previous run ended (see Journal.open). One that ended on its
 * own, having released its lock, was stopped by a write that failed part way (a full disk: ENOSPC mid-record)
 * and could not cut it off, or was a version of ship that did not; or the file was changed since (cut short by
 * hand, or by a tool).
 */
const TORN_LAST_LINE_CAUSE = {
  killed: 'the previous run was killed while writing it',
  ended: 'a write that failed part way, as on a full disk, or the file changed since the previous run',
  unknown: 'the previous run stopped while writing it',
} as const;

let isoMs = -1;
let isoText = '';

/** The current time as ISO text; many records share a millisecond in a bulk run, and so their text. */
function isoNow(): string {
  const ms = Date.now();
  if (ms !== isoMs) {
    isoMs = ms;
    isoText = new Date(ms).toISOString();
  }
  return isoText;
}

function parseLine(raw: string): JournalEntry | undefined {
  let v: unknown;
  try {
    v = JSON.parse(raw);
  } catch {
    return undefined;
  }
  if (!v || typeof v !== 'object') return undefined;
  const l = v as Partial<Line>;
  if (typeof l.k !== 'string' || (l.s !== 'sending' && l.s !== 'done' && l.s !== 'failed' && l.s !== 'unsent')) return undefined;
  const e: JournalEntry = { key: l.k, state: l.s, at: typeof l.t === 'string' ? l.t : '' };
  if (typeof l.a === 'number') e.attempt = l.a;
  if (l.r !== undefined) e.result = l.r;
  if (l.e && typeof l.e === 'object') e.error = l.e;
  if (l.u) e.unknown = true;
  if (typeof l.f === 'string') e.fp = l.f;
  return e;
}

function endsWithNewline(path: string, size: number): boolean {
  const fd = fs.openSync(path, 'r');
  try {
    const b = Buffer.alloc(1);
    fs.readSync(fd, b, 0, 1, size - 1);
    return b[0] === 0x0a;
  } finally {
    fs.closeSync(fd);
  }
}

function writeAll(fd: number, buf: Buffer, cb: (err?: unknown) => void, offset = 0): void {
  fs.write(fd, buf, offset, buf.length - offset, null, (err, n) => {
    if (err) return cb(err);
    if (offset + n < buf.length) return writeAll(fd, buf, cb, offset + n);
    cb();
  });
}

/** The service and account a bulk run works on: what it did for one is not done for another. */
export interface JournalScope {
  /** The base URL the run sends to: rows done on the test service are not done on the live one. */
  baseUrl: string;
  /**
   * The API key it sends (the merchant account): rows done in one account are not done in another at the same
   * URL. Only a hash of the whole name reaches the file system.
   */
  apiKey?: string;
}

/**
 * Where the journal of a bulk run over FILE lives: in `outputDir`, named after the file and a hash of its
 * absolute path (two different orders.csv files stay apart) and of `scope`.
 */
export function journalPathFor(outputDir: string, inputPath: string, scope?: JournalScope): string {
  const abs = resolve(inputPath);
  const stem = basename(abs).replace(/[^A-Za-z0-9._-]+/g, '_').slice(0, 60);
  let key = abs;
  if (scope) key += `\n${scope.baseUrl.replace(/\/+$/, '')}`;
  if (scope?.apiKey) key += `\n${scope.apiKey}`;
  const h = createHash('sha256').update(key).digest('hex').slice(0, 8);
  return join(outputDir, `.ship-journal-${stem}-${h}.jsonl`);
}
