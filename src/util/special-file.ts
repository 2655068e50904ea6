// A path that names something other than a regular file (a device such as /dev/null, a pipe, /dev/stdout) is
// written in place: the usual temporary file + rename would replace the device or pipe itself with a regular
// file (run as root, `-o /dev/null` replaced /dev/null for the whole system). A symbolic link is written in
// place too (through the link): /dev/stdout with stdout redirected to a file is a link to /proc/self/fd/1, a
// regular file, and the rename replaced the link /dev/stdout itself (and the redirected file stayed empty).
import * as fs from 'node:fs';

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
