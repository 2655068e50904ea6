// How a check of a whole CSV file reports what it found: its problems in the order the user reads the file, and,
// when the file also has bytes invalid in its encoding, one error for all of them (`ship create --csv` and
// `ship skus import` alike).
import { InputError, type InputProblem } from '../errors.js';
import { columnName, isBadBytesProblem } from './reader.js';

/** Orders problems by row; those of no row (a flag's, or a count of more) first. */
export const byRow = (a: InputProblem, b: InputProblem) => (a.row ?? 0) - (b.row ?? 0);

/**
 * Sorts a file's problems in place as the user reads the file: row by row, and within a row in the header's
 * column order. The count of more rows with bad bytes (of no row) goes last, after the rows it goes on from.
 */
export function sortFileProblems(problems: InputProblem[], header: readonly string[]): void {
  const col = new Map(header.map((_, i) => [columnName(header, i), i]));
  // A value beyond the last header is named by its position ("12 (no header)").
  const position = (column: string) => Number(/^(\d+) \(no header\)$/.exec(column)?.[1] ?? 1e6 + 1) - 1;
  const colOf = (p: InputProblem) => (p.column !== undefined ? (col.get(p.column) ?? position(p.column)) : -1);
  problems.sort((a, b) => byRow(a, b) || colOf(a) - colOf(b));
  const moreBad = problems.findIndex((p) => p.row === undefined && isBadBytesProblem(p));
  if (moreBad >= 0) problems.push(...problems.splice(moreBad, 1));
}

/** "3 problems in 2 rows" (no rows: only a flag's problems). */
export function problemCount(problems: number, rows: number): string {
  return `${problems} problem${problems === 1 ? '' : 's'}${rows ? ` in ${rows} row${rows === 1 ? '' : 's'}` : ''}`;
}

/**
 * The error for a file's problems (sorted) when its encoding refused some of its bytes (CsvEncoding.refused, read
 * with `badBytes: 'report'`): the refusal alone when its rows are the only problems, as a read that does not
 * report them throws it; else one error listing them all, led by the refusal's message and hint. `counted` is
 * problemCount's; `hint` the caller's own, after the refusal's.
 */
export function refusalWithOtherProblems(refused: InputError, problems: InputProblem[], counted: string, hint?: string): InputError {
  if (problems.every(isBadBytesProblem)) return refused;
  const hints = [refused.hint, hint].filter((h) => h !== undefined).join('; ');
  return new InputError(`${refused.message}, and the file has other problems: ${counted}; nothing was sent`, problems, hints ? { hint: hints } : undefined);
}
