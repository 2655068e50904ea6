// A path that names something other than a regular file (a device such as /dev/null, a pipe, /dev/stdout) is
// written in place: the usual temporary file + rename would replace the device or pipe itself with a regular
// file (run as root, `-o /dev/null` replaced /dev/null for the whole system).
import * as fs from 'node:fs';

/** Whether `path` exists and is neither a regular file nor a directory (symlinks followed: /dev/stdout). */
export function isSpecialFile(path: string): boolean {
  const st = fs.statSync(path, { throwIfNoEntry: false });
  return st !== undefined && !st.isFile() && !st.isDirectory();
}
