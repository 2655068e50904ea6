// Files whose names ship chooses itself — label files (named after shipment references), a bulk run's resume
// journal, FILE.failed.csv and FILE.unprinted.txt beside the input — are written into directories other people
// may be able to write to (a shared labels folder). Their names are predictable, so what is already at such a
// path is never written through: a symbolic link could aim the write at any of the user's files (~/.bashrc, the
// config), and a named pipe would hold the run forever. A path the user names (-o FILE, --results) is theirs to
// point wherever they like, and is not checked here.
import * as fs from 'node:fs';

/** Open flags that never follow a symbolic link at the path itself (ELOOP) and never wait on a pipe (ENXIO). */
export const NO_FOLLOW = (fs.constants.O_NOFOLLOW ?? 0) | (fs.constants.O_NONBLOCK ?? 0);

/** Codes an open with O_NOFOLLOW fails with on a symbolic link: Linux and macOS ELOOP, FreeBSD EMLINK, NetBSD EFTYPE. */
const LINK_CODES = new Set(['ELOOP', 'EMLINK', 'EFTYPE']);

/** What refuses a path ship named itself: said with what is there, and the way out. */
export class RefusedPath extends Error {
  readonly code: string;
  /** What is wrong, without the way out. */
  readonly reason: string;
  /** The way out. */
  readonly fix: string;
  constructor(
    readonly path: string,
    readonly what: 'link' | 'other',
    purpose: string,
  ) {
    const reason =
      what === 'link'
        ? `${path} is a symbolic link: ${purpose} is never written through one (it would overwrite the file it points to)`
        : `${path} is not a regular file (a named pipe, a device or a directory): ${purpose} is not written there`;
    const fix = what === 'link' ? 'remove the link and run again' : 'remove it and run again';
    super(`${reason}; ${fix}`);
    this.reason = reason;
    this.fix = fix;
    this.name = 'RefusedPath';
    // A code of its own: not one a caller would take for the disk's (ENOSPC…) or retry.
    this.code = what === 'link' ? 'ELOOP' : 'ENOTREG';
  }
}

/** Throws RefusedPath when something other than a regular file (or nothing) is at `path`. */
export function refuseUnlessRegular(path: string, purpose: string): void {
  const st = fs.lstatSync(path, { throwIfNoEntry: false });
  if (st === undefined || st.isFile()) return;
  throw new RefusedPath(path, st.isSymbolicLink() ? 'link' : 'other', purpose);
}

/**
 * The error to report for a failed open of `path` with NO_FOLLOW: a RefusedPath when what failed it is a link
 * or a pipe at the path (checked: ELOOP also comes from a loop among the directories above it), else `err`.
 */
export function refusedOr(err: unknown, path: string, purpose: string): unknown {
  const code = (err as NodeJS.ErrnoException | undefined)?.code ?? '';
  if (!LINK_CODES.has(code) && code !== 'ENXIO') return err;
  const st = fs.lstatSync(path, { throwIfNoEntry: false });
  if (st?.isSymbolicLink()) return new RefusedPath(path, 'link', purpose);
  if (st && !st.isFile()) return new RefusedPath(path, 'other', purpose);
  return err;
}

/**
 * Creates the temporary file of an atomic write beside `path`: a name no one can guess, created exclusively
 * (O_EXCL: never through a link or into a file someone put there first). Returns its name and descriptor.
 */
export function openTempBeside(path: string, mode?: number): { tmp: string; fd: number } {
  const tmp = tempPathBeside(path);
  return { tmp, fd: fs.openSync(tmp, 'wx', mode) };
}

/**
 * The name of a temporary file beside `path` (`path.PID.RANDOM.ext`), to create with O_EXCL ('wx'): unguessable
 * enough, as the exclusive creation, not the name, is what keeps the write from going anywhere else.
 */
export function tempPathBeside(path: string, ext = 'tmp'): string {
  return `${path}.${process.pid}.${Math.random().toString(36).slice(2, 10)}.${ext}`;
}

/**
 * Ends an atomic write begun with openTempBeside: `data` written to the temporary file (fsynced with `sync`),
 * which is then renamed to `path`; on any failure the temporary file is removed and the error thrown.
 */
export function renameIntoPlace(temp: { tmp: string; fd: number }, path: string, data: Uint8Array | string, sync = false): void {
  const { tmp, fd } = temp;
  try {
    fs.writeFileSync(fd, data);
    if (sync) fs.fsyncSync(fd);
  } catch (e) {
    fs.closeSync(fd);
    fs.rmSync(tmp, { force: true });
    throw e;
  }
  fs.closeSync(fd);
  try {
    fs.renameSync(tmp, path);
  } catch (e) {
    fs.rmSync(tmp, { force: true });
    throw e;
  }
}
