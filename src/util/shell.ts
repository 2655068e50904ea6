// Text as a POSIX shell (and fish) reads it back: for commands ship prints for a person to run or paste.

/** `s` in single quotes, each quote inside written '\'' (POSIX shells; fish reads it the same). */
export function singleQuoted(s: string): string {
  return `'${s.replaceAll("'", "'\\''")}'`;
}

/** `s` as it is when a shell word needs no quoting, else single-quoted. */
export function shellWord(s: string): string {
  return /^[A-Za-z0-9@%+=:,./_-]+$/.test(s) ? s : singleQuoted(s);
}
