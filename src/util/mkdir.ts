// Making a directory and its missing parents. Node's own `mkdir(dir, { recursive: true })` loops forever
// where mkdir(2) answers ENOENT although the parent exists (a pseudo file system such as /proc: `-o /proc/x`
// hung the process, sync and async alike, on Node 20 and 24); this walks up and down itself and fails then.
import * as fs from 'node:fs';
import { dirname } from 'node:path';

/** The error mkdir gave for `dir` after its parent was made or found: it will not go away by trying again. */
function settled(e: NodeJS.ErrnoException, dir: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${e.code}: cannot create directory '${dir}'`), { code: e.code, path: dir, syscall: 'mkdir' });
}

/**
 * Makes `dir` and any missing parent (like `mkdir -p`), with `mode` for the directories it creates. An
 * existing directory is fine; an existing file of that name is ENOTDIR-like EEXIST, as Node reports it.
 */
export function makeDirSync(dir: string, mode?: number): void {
  try {
    fs.mkdirSync(dir, { mode });
    return;
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    if (err.code === 'EEXIST') {
      if (fs.statSync(dir).isDirectory()) return;
      throw err;
    }
    if (err.code !== 'ENOENT') throw err;
  }
  const parent = dirname(dir);
  if (parent === dir) throw settled(Object.assign(new Error(), { code: 'ENOENT' }), dir);
  makeDirSync(parent, mode);
  try {
    fs.mkdirSync(dir, { mode });
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    if (err.code === 'EEXIST' && fs.statSync(dir).isDirectory()) return; // made meanwhile by someone else
    throw err.code === 'ENOENT' ? settled(err, dir) : err;
  }
}
