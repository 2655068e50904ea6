// -o PATH naming a device or a pipe is written in place, never replaced by the temp file + rename of a regular file.
import { execFileSync, spawn } from 'node:child_process';
import { linkSync, lstatSync, mkdtempSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeFileAtomic } from '../../src/labels/index.js';
import { ResultsWriter } from '../../src/bulk/csv-out.js';
import { isSpecialFile, sameFile, stdoutAlias } from '../../src/util/special-file.js';

const dir = mkdtempSync(join(tmpdir(), 'ship-special-'));

/**
 * A named pipe with a reader collecting what is written to it: another process (`cat`), since opening a pipe to
 * write waits for its reader, and a synchronous open here would block the reader's open in this process.
 */
function fifo(name: string): { path: string; read: Promise<string> } {
  const path = join(dir, name);
  execFileSync('mkfifo', [path]);
  const cat = spawn('cat', [path]);
  const read = new Promise<string>((res, rej) => {
    let text = '';
    cat.stdout.setEncoding('utf8').on('data', (d: string) => (text += d));
    cat.on('close', () => res(text)).on('error', rej);
  });
  return { path, read };
}

describe('writing to a device or a pipe', () => {
  it('tells devices and pipes from regular files, directories and missing paths', () => {
    expect(isSpecialFile('/dev/null')).toBe(true);
    const f = join(dir, 'plain.txt');
    writeFileSync(f, 'x');
    expect(isSpecialFile(f)).toBe(false);
    expect(isSpecialFile(dir)).toBe(false);
    expect(isSpecialFile(join(dir, 'missing'))).toBe(false);
  });

  it('writes labels, failed rows and results into the pipe, which stays a pipe', async () => {
    const a = fifo('a');
    writeFileAtomic(a.path, '^XA^XZ');
    expect(await a.read).toBe('^XA^XZ');
    const c = fifo('c');
    const results = new ResultsWriter(c.path, ['shipment_reference']);
    results.add([['R-1']], { status: 'created', id: 'id-1' });
    results.finish();
    expect(await c.read).toBe('shipment_reference,status,id,tracking_reference,label_paths,error\nR-1,created,id-1,,,\n');
    for (const p of [a.path, c.path]) expect(statSync(p).isFIFO()).toBe(true);
    // A regular file is still written whole through a temporary file.
    const plain = join(dir, 'plain.zpl');
    writeFileAtomic(plain, '^XA');
    expect(readFileSync(plain, 'utf8')).toBe('^XA');
  });

  it('writes through a symbolic link, which stays a link (/dev/stdout redirected to a file links to /proc/self/fd/1)', async () => {
    const target = join(dir, 'target.zpl');
    writeFileSync(target, 'old');
    const link = join(dir, 'stdout');
    symlinkSync(target, link);
    expect(isSpecialFile(link)).toBe(true);
    writeFileAtomic(link, '^XA^XZ^XA^XZ');
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readFileSync(target, 'utf8')).toBe('^XA^XZ^XA^XZ');
    const results = new ResultsWriter(link, ['shipment_reference']);
    results.add([['R-1']], { status: 'created', id: 'id-1' });
    results.finish();
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readFileSync(target, 'utf8')).toContain('R-1,created,id-1');
    // A dangling link: written through as well (the link names where the bytes go).
    const dangling = join(dir, 'dangling');
    symlinkSync(join(dir, 'not-yet.zpl'), dangling);
    writeFileAtomic(dangling, '^XA');
    expect(lstatSync(dangling).isSymbolicLink()).toBe(true);
    expect(readFileSync(join(dir, 'not-yet.zpl'), 'utf8')).toBe('^XA');
  });

  it('stdoutAlias: a path that is the same file as stdout reads as -, anything else unchanged', async () => {
    const { openSync, closeSync } = await import('node:fs');
    const file = join(dir, 'as-stdout.txt');
    writeFileSync(file, '');
    const fd = openSync(file, 'w');
    try {
      expect(stdoutAlias(file, fd)).toBe('-');
      const link = join(dir, 'link-to-stdout');
      symlinkSync(file, link);
      expect(stdoutAlias(link, fd)).toBe('-');
      expect(stdoutAlias(join(dir, 'plain.zpl'), fd)).toBe(join(dir, 'plain.zpl'));
      expect(stdoutAlias(join(dir, 'missing.zpl'), fd)).toBe(join(dir, 'missing.zpl'));
      expect(stdoutAlias(dir, fd)).toBe(dir);
      expect(stdoutAlias('-', fd)).toBe('-');
      expect(stdoutAlias(undefined, fd)).toBeUndefined();
    } finally {
      closeSync(fd);
    }
  });
});

describe('sameFile', () => {
  it('tells one file under another spelling, a symbolic link or a hard link; not two files, nor a path not there', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ship-same-'));
    const a = join(dir, 'orders.csv');
    writeFileSync(a, 'x\n');
    writeFileSync(join(dir, 'other.csv'), 'x\n');
    symlinkSync(a, join(dir, 'link.csv'));
    linkSync(a, join(dir, 'hard.csv'));
    expect(sameFile(a, join(dir, '.', 'sub', '..', 'orders.csv'))).toBe(true);
    expect(sameFile(join(dir, 'link.csv'), a)).toBe(true);
    expect(sameFile(join(dir, 'hard.csv'), a)).toBe(true);
    expect(sameFile(join(dir, 'other.csv'), a)).toBe(false);
    expect(sameFile(join(dir, 'results.csv'), a)).toBe(false);
  });
});
