// `npm run bench`: runs every benchmark under bench/ in turn. Benchmarks report ratios from one run, never pass/fail on time.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';

const dir = resolve(import.meta.dirname, '../bench');
const only = process.argv.slice(2);
const files = readdirSync(dir)
  // lib.mjs holds helpers shared by the benchmarks, and minimal-*.mjs are the baselines they run: not benchmarks themselves.
  .filter((f) => f.endsWith('.mjs') && f !== 'lib.mjs' && !f.startsWith('minimal-'))
  .filter((f) => only.length === 0 || only.some((o) => f.includes(o)))
  .sort();
let failed = 0;
for (const f of files) {
  console.log(`\n=== bench/${f}`);
  const r = spawnSync(process.execPath, [join(dir, f)], { stdio: 'inherit' });
  if (r.status !== 0) failed++;
}
process.exit(failed ? 1 : 0);
