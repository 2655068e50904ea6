// Files whose names ship chooses (labels, the journal, FILE.failed.csv) are never written through a symbolic
// link or into a named pipe someone put at that path; temp files of atomic writes are created exclusively.
import { execFileSync } from 'node:child_process';
import { existsSync, lstatSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeFileAtomic, writeFileInPlace, writeLabels } from '../../src/labels/index.js';
import { Journal } from '../../src/bulk/journal.js';
import { FailedRowsWriter } from '../../src/bulk/csv-out.js';

const ZPL = '^XA^FDParcel^FS^XZ';
const posix = process.platform !== 'win32';

function withVictim() {
  const dir = mkdtempSync(join(tmpdir(), 'ship-own-'));
  const victim = join(dir, 'victim.txt');
  writeFileSync(victim, 'precious');
  return { dir, victim, done: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Makes a named pipe (no reader): opening it to write would wait forever without O_NONBLOCK. */
function fifo(path: string): boolean {
  try {
    execFileSync('mkfifo', [path]);
    return true;
  } catch {
    return false;
  }
}

describe.skipIf(!posix)('paths ship names itself', () => {
  it('a label fetched again (the atomic write of a rerun) is refused at a link too, not written through it', () => {
    const t = withVictim();
    symlinkSync(t.victim, join(t.dir, 'R-1_1.zpl'));
    expect(() => writeLabels([ZPL], { dir: t.dir, shipmentRef: 'R-1', format: 'ZPL' })).toThrow(/R-1_1\.zpl is a symbolic link: a label is never written through one/);
    expect(readFileSync(t.victim, 'utf8')).toBe('precious');
    expect(lstatSync(join(t.dir, 'R-1_1.zpl')).isSymbolicLink()).toBe(true);
    expect(readdirSync(t.dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
    t.done();
  });

  it('a named pipe where a label goes is refused at once (in place or atomic), never waited on', () => {
    const t = withVictim();
    if (!fifo(join(t.dir, 'P-1_1.zpl'))) return t.done();
    expect(() => writeFileInPlace(join(t.dir, 'P-1_1.zpl'), ZPL)).toThrow(/P-1_1\.zpl is not a regular file \(a named pipe, a device or a directory\): a label is not written there/);
    expect(() => writeLabels([ZPL], { dir: t.dir, shipmentRef: 'P-1', format: 'ZPL' })).toThrow(/is not a regular file/);
    // The pipe is left where it is (not ours to remove).
    expect(lstatSync(join(t.dir, 'P-1_1.zpl')).isFIFO()).toBe(true);
    t.done();
  });

  it('the journal: a pipe or a link at its path is refused before anything reads or writes it (exit 1), the lock not taken', async () => {
    const t = withVictim();
    const linked = join(t.dir, 'linked.jsonl');
    symlinkSync(t.victim, linked);
    await expect(Journal.open(linked, { forget: new Set(['X']) } as never)).rejects.toMatchObject({ exitCode: 1, message: expect.stringContaining('linked.jsonl is a symbolic link'), hint: 'remove the link and run again' });
    expect(readFileSync(t.victim, 'utf8')).toBe('precious');
    expect(existsSync(`${linked}.lock`)).toBe(false);
    const piped = join(t.dir, 'piped.jsonl');
    if (fifo(piped)) {
      await expect(Journal.open(piped)).rejects.toMatchObject({ exitCode: 1, message: expect.stringContaining('piped.jsonl is not a regular file'), hint: 'remove it and run again' });
    }
    t.done();
  });

  it('FILE.failed.csv is not written through a link put beside the input; its temp file is created exclusively', () => {
    const t = withVictim();
    const failed = join(t.dir, 'orders.failed.csv');
    symlinkSync(t.victim, failed);
    const w = new FailedRowsWriter(failed, ['shipment_reference']);
    w.add([['A-1']], [2], 'refused');
    expect(() => w.finish()).toThrow(/orders\.failed\.csv is a symbolic link: the failed-rows file is never written through one/);
    expect(readFileSync(t.victim, 'utf8')).toBe('precious');
    t.done();
  });

  it('a path the user names (-o FILE) is still written through their link: it is theirs to point', () => {
    const t = withVictim();
    const mine = join(t.dir, 'current.pdf');
    symlinkSync(t.victim, mine);
    writeFileAtomic(mine, 'new');
    expect(readFileSync(t.victim, 'utf8')).toBe('new');
    t.done();
  });
});
