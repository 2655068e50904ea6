// Every test's temporary files in one directory of the run's own, removed at the end: suites make their
// work directories with mkdtemp(tmpdir()), and test processes inherit TMPDIR from here. Without it each run
// left a few hundred ship-* directories in the machine's temporary directory for good.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export default function setup(): () => void {
  const before = process.env.TMPDIR;
  const dir = mkdtempSync(join(tmpdir(), 'ship-tests-'));
  process.env.TMPDIR = dir;
  return () => {
    if (before === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = before;
    rmSync(dir, { recursive: true, force: true });
  };
}
