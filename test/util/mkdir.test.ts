// makeDirSync: `mkdir -p` that fails where Node's recursive mkdir loops forever (a path under /proc).
import { mkdtempSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeDirSync } from '../../src/util/mkdir.js';

describe('makeDirSync', () => {
  it('makes a directory and its missing parents, with the mode asked; an existing one is fine', () => {
    const base = mkdtempSync(join(tmpdir(), 'ship-mkdir-'));
    const deep = join(base, 'a', 'b', 'c');
    makeDirSync(deep, 0o700);
    expect(statSync(deep).isDirectory()).toBe(true);
    expect(statSync(join(base, 'a')).mode & 0o777).toBe(0o700);
    expect(() => makeDirSync(deep)).not.toThrow();
  });

  it('refuses a path whose part is a file (EEXIST or ENOTDIR, as mkdir says)', () => {
    const base = mkdtempSync(join(tmpdir(), 'ship-mkdir-'));
    writeFileSync(join(base, 'f'), '');
    expect(() => makeDirSync(join(base, 'f'))).toThrow(expect.objectContaining({ code: 'EEXIST' }));
    expect(() => makeDirSync(join(base, 'f', 'g'))).toThrow(expect.objectContaining({ code: 'ENOTDIR' }));
  });

  it.runIf(process.platform === 'linux')('fails under /proc, where mkdir answers ENOENT although the parent exists (Node loops forever there)', () => {
    expect(() => makeDirSync('/proc/ship-test/labels')).toThrow(expect.objectContaining({ code: 'ENOENT', path: '/proc/ship-test' }));
  });
});
