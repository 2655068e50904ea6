// Label files: safe names for any file system, atomic writes of the bytes exactly as the API sent them (or
// in-place writes for a caller whose journal makes a torn file harmless), and merging PDF labels into one file.
import { loadPdfLib } from '../util/interop.js';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import { dirname, join } from 'node:path';
import { ApiError } from '../errors.js';
import { makeDirSync } from '../util/mkdir.js';
import { isSpecialFile } from '../util/special-file.js';
import { NO_FOLLOW, openTempBeside, RefusedPath, refusedOr, refuseUnlessRegular, renameIntoPlace } from '../util/own-files.js';

/** The label formats of the API. */
export type LabelFormat = 'ZPL' | 'PDF' | 'PNG';

/** The formats, for flag validation. */
export const LABEL_FORMATS: readonly LabelFormat[] = ['ZPL', 'PDF', 'PNG'];

/** Parses a --format value (any case) or returns undefined. */
export function parseLabelFormat(v: string | undefined): LabelFormat | undefined {
  const u = v?.trim().toUpperCase();
  return u === 'ZPL' || u === 'PDF' || u === 'PNG' ? u : undefined;
}

/** File extension of a format, without the dot. */
export function labelExtension(format: LabelFormat): 'zpl' | 'pdf' | 'png' {
  return format.toLowerCase() as 'zpl' | 'pdf' | 'png';
}

/**
 * Longest file-name stem we produce (before the extension), in UTF-8 bytes: file systems count bytes (255 on
 * ext4, APFS and NTFS alike), and 90 CJK characters are already 270 of them.
 */
export const MAX_STEM = 100;

const WINDOWS_RESERVED = /^(con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³])$/i;
const PLAIN = /^[A-Za-z0-9_-]+$/;

/**
 * Turns any text into a file-name stem that is safe on Linux, macOS and Windows: no path separators, no `..`,
 * no control or reserved characters, no reserved device names, no leading/trailing dots or spaces, at most
 * `max` UTF-8 bytes. Whenever the text had to change (or was cut), a short hash of the ORIGINAL text is
 * appended, so two different references never end up with the same name (`A/B` vs `A_B`).
 */
export function safeFileStem(text: string, max = MAX_STEM): string {
  // The usual reference (letters, digits, - and _) is safe as it is: nothing below would change it.
  if (text.length <= max && PLAIN.test(text) && !WINDOWS_RESERVED.test(text)) return text;
  // NFC: the same reference typed on macOS (NFD) and elsewhere gives the same name.
  const nfc = text.normalize('NFC');
  let s = nfc
    .replace(/[\u0000-\u001f\u007f-\u009f]/g, '')
    .replace(/[<>:"/\\|?*\u202a-\u202e\u2066-\u2069\u200b-\u200f\ufeff]/g, '_')
    .replace(/\s+/g, ' ')
    .replace(/\.{2,}/g, '.')
    .replace(/^[\s.]+|[\s.]+$/g, '');
  const stemOnly = s.split('.')[0] ?? '';
  if (WINDOWS_RESERVED.test(stemOnly.trim())) s = `_${s}`;
  let changed = s !== nfc || s.length === 0;
  const budget = max - 9; // room for "-" and 8 hex characters
  const bytes = Buffer.byteLength(s, 'utf8');
  if (bytes > max || (changed && bytes > budget)) {
    s = cutTo(s, budget);
    changed = true;
  }
  if (s.length === 0) s = 'label';
  if (changed) s = `${s.replace(/[\s.]+$/, '')}-${shortHash(text)}`;
  return s;
}

/** The longest start of `s` of at most `n` UTF-8 bytes, in whole code points (never half a surrogate pair). */
function cutTo(s: string, n: number): string {
  let out = '';
  let bytes = 0;
  for (const ch of s) {
    const size = Buffer.byteLength(ch, 'utf8');
    if (bytes + size > n) break;
    out += ch;
    bytes += size;
  }
  return out;
}

/** 8 hex characters of SHA-256: enough to tell references apart, short enough for file names. */
export function shortHash(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex').slice(0, 8);
}

/** The file name of one parcel's label, e.g. `ORDER-1001_1.zpl` (parcel numbers are 1-based). */
export function safeLabelFileName(shipmentRef: string, parcelNumber: number, format: LabelFormat): string {
  return `${safeFileStem(shipmentRef)}_${parcelNumber}.${labelExtension(format)}`;
}

/**
 * Hands out label file names for one batch. Names are deterministic per reference; the only extra rule is
 * for references that differ only in letter case (`a-1` vs `A-1`), which collide on case-insensitive file
 * systems (macOS, Windows): the later one in input order gets a hash suffix. Given the output directory, the
 * label files already in it count too: `ABC` written beside an earlier run's `abc_1.zpl` gets the suffix,
 * instead of overwriting that file where case is not told apart.
 */
export class LabelNamer {
  /** Folded stem → the reference that owns it in this batch. */
  private readonly owners = new Map<string, string>();
  /** Reference → its stem, so every parcel of a shipment gets the same one. */
  private readonly stems = new Map<string, string>();
  /** Folded stem → the exact stems of the label files in the directory when first asked (read once). */
  private onDisk: Map<string, Set<string>> | undefined;

  constructor(private readonly dir?: string) {}

  /** The file name for a parcel of a shipment. */
  name(shipmentRef: string, parcelNumber: number, format: LabelFormat): string {
    let stem = this.stems.get(shipmentRef);
    if (stem === undefined) {
      stem = safeFileStem(shipmentRef);
      const folded = stem.toLowerCase();
      const owner = this.owners.get(folded);
      // Another reference of this batch has the name, or a file of another case is there already.
      const taken = owner !== undefined ? owner !== shipmentRef : this.takenOnDisk(folded, stem);
      if (owner === undefined) this.owners.set(folded, shipmentRef);
      if (taken) stem = `${cutTo(stem, MAX_STEM - 9)}-${shortHash(shipmentRef)}`;
      this.stems.set(shipmentRef, stem);
    }
    return `${stem}_${parcelNumber}.${labelExtension(format)}`;
  }

  private takenOnDisk(folded: string, stem: string): boolean {
    if (this.dir === undefined) return false;
    if (this.onDisk === undefined) {
      this.onDisk = new Map();
      let names: string[] = [];
      try {
        names = fs.readdirSync(this.dir);
      } catch {
        // not there yet (or unreadable): nothing to collide with
      }
      for (const f of names) {
        const m = /^(.+)_\d+\.(?:zpl|pdf|png)$/i.exec(f);
        if (!m) continue;
        const key = m[1].toLowerCase();
        let set = this.onDisk.get(key);
        if (!set) this.onDisk.set(key, (set = new Set()));
        set.add(m[1]);
      }
    }
    const there = this.onDisk.get(folded);
    return there !== undefined && !there.has(stem);
  }
}

/** One parcel's label as the API returned it: ZPL text, or base64 PDF/PNG (or bytes already decoded). */
export interface LabelContent {
  /** ZPL as a string (sent as-is), PDF/PNG as base64 text; or the raw bytes. */
  content: string | Uint8Array;
}

/** The bytes of a label: ZPL exactly as sent (UTF-8 of the JSON string), PDF/PNG decoded from base64 and checked. */
export function labelBytes(content: string | Uint8Array, format: LabelFormat): Buffer {
  if (typeof content !== 'string') return Buffer.from(content);
  if (format === 'ZPL') return Buffer.from(content, 'utf8');
  const bytes = Buffer.from(content, 'base64');
  checkMagic(bytes, format);
  return bytes;
}

/** Throws ApiError when bytes are not the format they claim to be (an empty or mangled label). */
export function checkMagic(bytes: Uint8Array, format: LabelFormat): void {
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (format === 'PDF' && b.subarray(0, 5).toString('latin1') !== '%PDF-') {
    throw new ApiError('the API returned a PDF label that is not a PDF (no %PDF- header)');
  }
  if (format === 'PNG' && !b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) {
    throw new ApiError('the API returned a PNG label that is not a PNG');
  }
  if (format === 'ZPL' && b.length === 0) throw new ApiError('the API returned an empty ZPL label');
}

/**
 * Writes a file atomically (temp file in the same directory, fsync, rename), so readers never see half a label;
 * `mode` for a new file (e.g. 0o600). `own` names what is written when ship chose the path itself (a label
 * file, the journal): then whatever other than a regular file is there is refused (see util/own-files.ts);
 * otherwise a device, a pipe or a link the user named is written in place (isSpecialFile).
 */
export function writeFileAtomic(path: string, data: Uint8Array | string, opts: { sync?: boolean; mode?: number; own?: string } = {}): void {
  if (opts.own !== undefined) refuseUnlessRegular(path, opts.own);
  else if (isSpecialFile(path)) return fs.writeFileSync(path, data);
  ensureDirSync(dirname(path));
  let temp: { tmp: string; fd: number };
  try {
    temp = openTempBeside(path, opts.mode);
  } catch (e) {
    // The directory went away since we made it (someone cleaned up): make it again, once.
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    knownDirs.delete(dirname(path));
    ensureDirSync(dirname(path));
    temp = openTempBeside(path, opts.mode);
  }
  renameIntoPlace(temp, path, data, opts.sync);
}

/**
 * How label files are opened for writing in place: created or truncated, but never through a symbolic link or
 * into a pipe already where the label goes (NO_FOLLOW: see util/own-files.ts). A link to the directory itself is
 * followed as usual.
 */
const IN_PLACE_FLAGS = fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_TRUNC | NO_FOLLOW;
/**
 * writeFileSync's options with those flags (Node takes numeric flags; its types say string only). The encoding
 * must be named: only `encoding: 'utf8'` takes Node's native path for a string (open, write and close in one
 * call, no Buffer copy); without it, a label went through openSync, Buffer.from, writeSync and closeSync.
 */
const IN_PLACE = { flag: IN_PLACE_FLAGS as unknown as string, encoding: 'utf8' as const };
/** What a label file is, in a refusal of its path. */
const A_LABEL = 'a label';

/**
 * Writes a file in place: one open (created or truncated), one write, one close — no temp file, no rename,
 * about half the system calls and directory updates of writeFileAtomic. A process killed meanwhile can leave
 * the file torn, so this is only for callers whose own records make that harmless (see
 * WriteLabelsOptions.inPlace). A write that fails removes the partial file. `dir` is the file's directory
 * (made if missing), when the caller has it at hand.
 */
export function writeFileInPlace(path: string, data: Uint8Array | string, dir = dirname(path)): void {
  ensureDirSync(dir);
  try {
    try {
      fs.writeFileSync(path, data, IN_PLACE);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
      // The directory went away since we made it (someone cleaned up): make it again, once.
      knownDirs.delete(dir);
      ensureDirSync(dir);
      fs.writeFileSync(path, data, IN_PLACE);
    }
  } catch (e) {
    // A link or a pipe at the path is not ours to remove: whoever put it there.
    const refused = refusedOr(e, path, A_LABEL);
    if (refused instanceof RefusedPath) throw refused;
    try {
      fs.rmSync(path, { force: true });
    } catch {
      // best effort: the write's own error is the one to report
    }
    throw e;
  }
}

/** Whether the jobs' directories exist (made if missing); when one cannot be made, the jobs are written here, each failing on its own. */
function dirsReady(jobs: ReadonlyArray<{ dir: string }>): boolean {
  try {
    for (const job of jobs) ensureDirSync(job.dir);
    return true;
  } catch {
    return false;
  }
}

// Directories known to exist: a bulk run writes thousands of labels into one directory.
const knownDirs = new Set<string>();

function ensureDirSync(dir: string): void {
  if (knownDirs.has(dir)) return;
  makeDirSync(dir);
  knownDirs.add(dir);
}

/** Options of writeLabels(). */
export interface WriteLabelsOptions {
  dir: string;
  shipmentRef: string;
  format: LabelFormat;
  /** Shared across a batch to separate references that differ only in case. */
  namer?: LabelNamer;
  /** fsync each file before the rename (default false: the journal's done record comes after anyway). */
  sync?: boolean;
  /**
   * Write each file in place (writeFileInPlace) instead of through a temp file and a rename. Only for a
   * caller that (1) reports a path only after this returned (the whole label is then in the file, whatever
   * happens to the process later), and (2) keeps a record that makes a torn file harmless: the bulk create
   * journals a shipment `done` only after its labels are written, and a shipment not journaled `done` is
   * settled on the next run, which writes its labels again (or removes them when they cannot be fetched).
   */
  inPlace?: boolean;
}

/** Writes each parcel's label (parcel numbers 1…n in array order) into the output dir; returns the paths. */
export function writeLabels(labels: ReadonlyArray<LabelContent | string | Uint8Array>, opts: WriteLabelsOptions): string[] {
  ensureDirSync(opts.dir);
  // join(dir, name) for a plain file name, without normalising the directory again for every label.
  const dir = dirPrefix(opts.dir);
  return labels.map((l, i) => {
    const content = contentOf(l);
    const path = dir + labelName(opts, i);
    // opts.dir, not dirname(path): the same string for every label of a run, so checking it is a lookup.
    if (opts.inPlace && !opts.sync) writeFileInPlace(path, inPlaceData(content, opts.format), opts.dir);
    else writeFileAtomic(path, labelBytes(content, opts.format), { sync: opts.sync, own: A_LABEL });
    return path;
  });
}

function contentOf(l: LabelContent | string | Uint8Array): string | Uint8Array {
  return typeof l === 'string' || l instanceof Uint8Array ? l : l.content;
}

function labelName(opts: Pick<WriteLabelsOptions, 'namer' | 'shipmentRef' | 'format'>, index: number): string {
  return opts.namer ? opts.namer.name(opts.shipmentRef, index + 1, opts.format) : safeLabelFileName(opts.shipmentRef, index + 1, opts.format);
}

/**
 * What an in-place write puts in the file: ZPL text as the string itself (the same UTF-8 bytes as labelBytes
 * gives, and Node writes a string in one native call, open, write, close, without a Buffer copy: ~25% less
 * per file); PDF and PNG decoded and checked.
 */
function inPlaceData(content: string | Uint8Array, format: LabelFormat): string | Uint8Array {
  return format === 'ZPL' && typeof content === 'string' ? content : labelBytes(content, format);
}

/**
 * Writes a bulk run's label files in place, a few at a time between network reads, for the tasks that hand them
 * over (writeLabels with `inPlace`, the same file names and bytes). A call's files wait for the event loop's
 * next check phase (setImmediate), after the answers that have arrived were read and the requests they free
 * were sent; each turn then writes up to `filesPerTurn` files back to back and leaves the rest to the next
 * turn. Once `maxWaiting` files wait (answers coming faster than the turns write them: a high --concurrency),
 * all of them are written at once, as before, so the backlog stays bounded, and so does what a full disk lets
 * through before it stops the run. Measured (bench/create-csv.mjs's CSV, labels on ext4, Node 20, paired
 * runs): 64 files at a time held the event loop for 2–4 ms (~25–60 µs of kernel time each), every connection
 * idle meanwhile, the bulk phase ~12% slower than 8 a turn; one file a turn was slower again (a file-creation
 * path cold each time costs the kernel more). Meant for work that no longer holds a request slot (the bulk
 * runner's release()), so the wait costs no throughput.
 */
export class LabelBatchWriter {
  private readonly pending: Array<{ files: Array<{ path: string; data: string | Uint8Array }>; dir: string; done: (err?: unknown) => void }> = [];
  private turnScheduled = false;
  /** Files of the jobs in `pending`. */
  private pendingFiles = 0;
  private worker: LabelWorker | undefined;

  constructor(
    /**
     * Files a turn writes (8), and how many may wait before all of them are written at once (64: see write()).
     */
    limits: { filesPerTurn?: number; maxWaiting?: number } = {},
    /**
     * When to write the files on a thread of their own (LabelWorker), the event loop going on reading answers
     * and sending requests meanwhile: 'never'; 'always' (started at once: a thread takes ~30 ms to start); or
     * 'when-slow', once the files written here took more than `slowFileUs` each on average (over `minFiles` at
     * least: a single slow turn is a passing stall). Creating files is slow on an
     * ext4 directory after many deletions (10–20 times the usual ~25 µs), on network file systems, under
     * virus scanners: a 10,000-shipment run then took 2.7–5.6 s with the thread against 4.1–7.7 s without
     * (paired runs, bench/create-csv.mjs's CSV). Where it is fast, the thread gains nothing and its own
     * isolate costs ~28 MB of memory: so not started.
     */
    private readonly thread: { use: 'never' | 'always' | 'when-slow'; slowFileUs?: number; minFiles?: number } = { use: 'never' },
  ) {
    this.filesPerTurn = limits.filesPerTurn ?? 8;
    this.maxWaiting = limits.maxWaiting ?? 64;
    if (thread.use === 'always') this.worker = new LabelWorker();
  }

  private readonly filesPerTurn: number;
  private readonly maxWaiting: number;

  /**
   * Writes a shipment's labels (as writeLabels does with `inPlace`) in a coming turn of the event loop; resolves
   * to their paths once every file is whole on disk. Rejects with the first file's error (that file removed; the
   * files of its earlier parcels stay, as with writeLabels); a label that is not its format's bytes rejects at
   * once, and nothing of that shipment is written.
   */
  write(labels: ReadonlyArray<LabelContent | string | Uint8Array>, opts: Omit<WriteLabelsOptions, 'inPlace' | 'sync'>): Promise<string[]> {
    if (labels.length === 0) return Promise.resolve([]);
    let files: Array<{ path: string; data: string | Uint8Array }>;
    try {
      const dir = dirPrefix(opts.dir);
      files = labels.map((l, i) => ({ path: dir + labelName(opts, i), data: inPlaceData(contentOf(l), opts.format) }));
    } catch (e) {
      return Promise.reject(e);
    }
    // The paths apart from the files: once handed to the thread, nothing here holds the labels' text (what waits
    // for the thread's answer outlives scavenges, and would be promoted with it).
    const paths = files.map((f) => f.path);
    return new Promise<string[]>((resolve, reject) => {
      this.pending.push({ files, dir: opts.dir, done: (err) => (err === undefined ? resolve(paths) : reject(err)) });
      this.pendingFiles += files.length;
      // More answers than a few turns write (a high --concurrency): everything waiting is written now, so the
      // backlog, and what a full disk lets through before it stops the run, stay bounded.
      if (this.pendingFiles >= this.maxWaiting) this.turn(Infinity);
      else this.scheduleTurn();
    });
  }

  /** Files written on the main thread, and the time they took (µs). */
  private mainFiles = 0;
  private mainUs = 0;
  /** Jobs handed to the thread so far (the others were written on the main thread). */
  jobsOffThread = 0;

  /** Whether the writer has its thread (started, or starting). */
  get threaded(): boolean {
    return this.worker !== undefined;
  }

  /** Resolves once the writer's thread runs (at once without one). */
  threadStarted(): Promise<void> {
    return this.worker?.started ?? Promise.resolve();
  }

  /** Stops the writer's thread, if it has one (after the run: every write awaited). */
  async close(): Promise<void> {
    this.noThread = true;
    await this.worker?.close();
    this.worker = undefined;
  }

  /** close() was called (nothing would end a thread started after it), or no thread could be made. */
  private noThread = false;

  private scheduleTurn(): void {
    if (this.turnScheduled) return;
    this.turnScheduled = true;
    setImmediate(() => {
      this.turnScheduled = false;
      this.turn();
    });
  }

  /** One turn: everything waiting to the thread once it runs; else up to `maxFiles` files here. */
  private turn(maxFiles = this.filesPerTurn): void {
    // On the thread once it runs; until then here (a short run is over before a thread has started, and its
    // first failing write, a full disk, stops it as early as ever).
    if (this.pending.length && this.worker?.ready && dirsReady(this.pending)) {
      const all = this.pending.splice(0);
      this.pendingFiles = 0;
      this.worker.write(all);
      this.jobsOffThread += all.length;
      return;
    }
    let take = 0;
    let taken = 0;
    for (; take < this.pending.length && taken < maxFiles; take++) taken += this.pending[take].files.length;
    const jobs = this.pending.splice(0, take);
    this.pendingFiles -= taken;
    if (this.pending.length) this.scheduleTurn();
    const started = performance.now();
    let files = 0;
    for (const job of jobs) {
      try {
        // (writeFileInPlace makes the directory when it is missing.)
        for (const f of job.files) {
          writeFileInPlace(f.path, f.data, job.dir);
          files++;
        }
      } catch (e) {
        job.done(e);
        continue;
      }
      job.done();
    }
    // Slow to create here, on average over the files so far (one slow turn is a passing stall of the disk):
    // the next ones go to a thread, started now.
    this.mainFiles += files;
    this.mainUs += (performance.now() - started) * 1000;
    if (this.thread.use === 'when-slow' && !this.worker && !this.noThread && this.mainFiles >= (this.thread.minFiles ?? SLOW_AFTER_FILES) && this.mainUs / this.mainFiles > (this.thread.slowFileUs ?? SLOW_FILE_US)) {
      try {
        this.worker = new LabelWorker();
      } catch {
        // No thread to be had (a resource limit): the files go on being written here.
        this.noThread = true;
      }
    }
  }
}

/** Creating label files slower than this (µs each, on average) moves the writing to a thread… */
const SLOW_FILE_US = 100;
/** …judged over this many files at least. */
const SLOW_AFTER_FILES = 256;

/**
 * A thread that writes label files, so that creating them (~25 µs of kernel time each on ext4, 64 at a time)
 * does not hold the event loop while answers wait to be read and the next requests to be sent. Each job's
 * files are written in order as writeFileInPlace writes them (a file whose write fails is removed, and the
 * job's later files are not written); its `done` is called once they are all whole on disk, or with the error.
 * Its message port keeps the process alive while the thread runs: close() ends it once the run is over.
 */
class LabelWorker {
  private readonly thread: import('node:worker_threads').Worker;
  private readonly waiting = new Map<number, Array<(err?: unknown) => void>>();
  private next = 0;
  /** close() was called: the thread's exit then fails nothing (every job was awaited). */
  private closing = false;
  /** The thread runs its code (it takes ~30 ms to start). */
  ready = false;
  readonly started: Promise<void>;

  constructor() {
    // Plain JS run from a string: nothing to bundle, nothing else loaded in the thread.
    const code = `
      const { parentPort } = require('node:worker_threads');
      const fs = require('node:fs');
      const flag = ${IN_PLACE_FLAGS};
      const write = (f, dir) => {
        try {
          fs.writeFileSync(f.path, f.data, { flag, encoding: 'utf8' });
        } catch (e) {
          // The directory went away since it was made (someone cleaned up): made again, once.
          if (e.code !== 'ENOENT') throw e;
          fs.mkdirSync(dir, { recursive: true });
          fs.writeFileSync(f.path, f.data, { flag, encoding: 'utf8' });
        }
      };
      parentPort.on('message', ({ id, jobs }) => {
        const results = jobs.map(({ files, dir }) => {
          for (const f of files) {
            try {
              write(f, dir);
            } catch (e) {
              // A link or a pipe at the path (O_NOFOLLOW, O_NONBLOCK) is not ours to remove: said by the main thread.
              if (['ELOOP', 'EMLINK', 'EFTYPE', 'ENXIO'].includes(e.code)) return { message: e.message, code: e.code, path: f.path };
              try { fs.rmSync(f.path, { force: true }); } catch {}
              return { message: e.message, code: e.code };
            }
          }
          return null;
        });
        parentPort.postMessage({ id, results });
      });`;
    const { Worker } = process.getBuiltinModule('node:worker_threads');
    // A small heap: it holds one batch of label texts at a time (the default young generation alone is 16 MB+ of RSS).
    this.thread = new Worker(code, { eval: true, resourceLimits: { maxYoungGenerationSizeMb: 2, maxOldGenerationSizeMb: 16, codeRangeSizeMb: 2 } });
    this.started = new Promise((resolve) =>
      this.thread.once('online', () => {
        this.ready = true;
        resolve();
      }),
    );
    this.thread.on('message', ({ id, results }: { id: number; results: Array<{ message: string; code?: string; path?: string } | null> }) => {
      const dones = this.waiting.get(id) ?? [];
      this.waiting.delete(id);
      const errorOf = (r: { message: string; code?: string; path?: string }) => {
        const err = Object.assign(new Error(r.message), { code: r.code });
        return r.path !== undefined ? refusedOr(err, r.path, A_LABEL) : err;
      };
      results.forEach((r, i) => dones[i]?.(r === null ? undefined : errorOf(r)));
    });
    // The thread itself failed (out of memory…): every job waiting fails with it.
    this.thread.on('error', (e) => this.failAll(e));
    this.thread.on('exit', (code) => {
      this.ready = false;
      this.failAll(new Error(`the label writer thread stopped (exit ${code})`));
    });
  }

  write(jobs: ReadonlyArray<{ files: Array<{ path: string; data: string | Uint8Array }>; dir: string; done: (err?: unknown) => void }>): void {
    const id = this.next++;
    this.waiting.set(id, jobs.map((j) => j.done));
    this.thread.postMessage({ id, jobs: jobs.map((j) => ({ files: j.files, dir: j.dir })) });
  }

  /** Ends the thread (its message port would otherwise keep the process alive). */
  async close(): Promise<void> {
    this.closing = true;
    await this.thread.terminate();
  }

  private failAll(e: unknown): void {
    if (this.closing && this.waiting.size === 0) return;
    for (const dones of this.waiting.values()) for (const done of dones) done(e);
    this.waiting.clear();
  }
}

let lastDir: [string, string] = ['', ''];

/** The directory as join() gives it, ending in a separator (a run writes thousands of labels into one). */
function dirPrefix(dir: string): string {
  if (lastDir[0] !== dir) lastDir = [dir, join(dir, 'x').slice(0, -1)];
  return lastDir[1];
}

/** Joins PDF files or buffers (in the given order, every page) into one PDF written atomically; returns the page count. */
export async function mergePdfs(inputs: ReadonlyArray<string | Uint8Array>, outPath: string): Promise<number> {
  const { PDFDocument } = await loadPdfLib();
  const merged = await PDFDocument.create();
  for (const input of inputs) {
    const bytes = typeof input === 'string' ? fs.readFileSync(input) : input;
    const src = await PDFDocument.load(bytes);
    const pages = await merged.copyPages(src, src.getPageIndices());
    for (const p of pages) merged.addPage(p);
  }
  const out = await merged.save();
  writeFileAtomic(outPath, out);
  return merged.getPageCount();
}
