// Test files written to a directory of their own, each under a new name (f1.csv, f2.csv…): the CSV tests'
// inputs, one per case.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A writer of CSV files in a new temporary directory named from `prefix`: returns each file's path. */
export function csvFiles(prefix: string): (content: string | Buffer) => string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  let n = 0;
  return (content) => {
    const path = join(dir, `f${++n}.csv`);
    writeFileSync(path, content);
    return path;
  };
}
