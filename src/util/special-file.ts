// A path that names something other than a regular file (a device such as /dev/null, a pipe, /dev/stdout) is
// written in place: the usual temporary file + rename would replace the device or pipe itself with a regular
// file (run as root, `-o /dev/null` replaced /dev/null for the whole system). A symbolic link is written in
// place too (through the link): /dev/stdout with stdout redirected to a file is a link to /proc/self/fd/1, a
// regular file, and the rename replaced the link /dev/stdout itself (and the redirected file stayed empty).
import * as fs from 'node:fs';
import { resolve } from 'node:path';

/**
 * A pipe, socket or character device given by its path (`<(…)` in a shell, /dev/stdin, a named pipe): read once,
 * in order, like stdin. An input read twice (validated whole, then sent) is copied to a temporary file first, and
 * nothing is written beside it (FILE.failed.csv goes where `-`'s does).
 */
export function isStreamPath(path: string): boolean {
  if (path === '-') return false;
  // One of the process's own descriptors by name (/dev/stdin, /dev/fd/N, /proc/self/fd/N), a file redirected
  // to it included: nothing is written beside it either (/dev/stdin.failed.csv).
  if (/^\/(?:dev\/(?:stdin|fd\/\d+)|proc\/self\/fd\/\d+)$/.test(path)) return true;
  const st = fs.statSync(path, { throwIfNoEntry: false });
  return st !== undefined && (st.isFIFO() || st.isSocket() || st.isCharacterDevice());
}

/**
 * Whether `path` exists and is a symbolic link, or neither a regular file nor a directory (a device, a pipe):
 * a path to write in place, never to replace by a rename.
 */
export function isSpecialFile(path: string): boolean {
  const link = fs.lstatSync(path, { throwIfNoEntry: false });
  if (link === undefined) return false;
  if (link.isSymbolicLink()) {
    // A link to a directory is not written at all (the caller's own error says so); anything else in place.
    const st = fs.statSync(path, { throwIfNoEntry: false });
    return st === undefined || !st.isDirectory();
  }
  return !link.isFile() && !link.isDirectory();
}

/**
 * Whether `path` names this process's own stdin (`/dev/stdin`, `/dev/fd/0`, `/proc/self/fd/0`): read as `-` is,
 * from the stream the process has (a socket, as Node gives its children, cannot be opened by path at all).
 */
export function namesStdin(path: string, stdinFd = 0): boolean {
  if (path === '-') return true;
  try {
    const target = fs.statSync(path, { throwIfNoEntry: false });
    if (target === undefined || target.isDirectory() || target.isFile()) return false;
    const stdin = fs.fstatSync(stdinFd);
    return stdin.ino !== 0 && target.dev === stdin.dev && target.ino === stdin.ino;
  } catch {
    return false;
  }
}

/**
 * `output` as `-` when it names this process's own stdout (`/dev/stdout`, `/dev/fd/1`, `/proc/self/fd/1`, the
 * terminal or file stdout goes to), so such a path behaves exactly like `-o -`: the document alone on stdout,
 * no saved path printed after it (`ship label X -o /dev/stdout > x.zpl` appended "/dev/stdout" to the label),
 * refused with --json. Anything else is returned unchanged.
 */
export function stdoutAlias<T extends string | undefined>(output: T, stdoutFd = 1): T | '-' {
  if (output === undefined || output === '-') return output;
  try {
    const target = fs.statSync(output, { throwIfNoEntry: false });
    if (target === undefined || target.isDirectory()) return output;
    const stdout = fs.fstatSync(stdoutFd);
    // ino 0: a platform without inode numbers for this kind of file (Windows consoles); cannot tell.
    return stdout.ino !== 0 && target.dev === stdout.dev && target.ino === stdout.ino ? '-' : output;
  } catch {
    return output; // stdout closed, or the path unreadable: the write itself reports what is wrong
  }
}

/**
 * Whether two paths name one file: the same path once resolved, or (both existing) the same device and inode,
 * so a link or another spelling of the path is caught too. An output that is one of the command's inputs would
 * overwrite it.
 */
export function sameFile(a: string, b: string): boolean {
  if (resolve(a) === resolve(b)) return true;
  const x = fs.statSync(a, { throwIfNoEntry: false });
  const y = x && fs.statSync(b, { throwIfNoEntry: false });
  return x !== undefined && y !== undefined && x.isFile() && x.dev === y.dev && x.ino === y.ino;
}
