// Writes (or with --check, verifies) the generated files: shell completions and the man page.
// They come from the built binary's command tree, so run `npm run build` first.
import { execFileSync } from 'node:child_process';
import { readFile, writeFile, mkdir } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const bin = resolve(root, 'bin/ship.js');
const check = process.argv.includes('--check');

const targets = [
  { file: 'completions/ship.bash', args: ['completion', 'bash'] },
  { file: 'completions/_ship', args: ['completion', 'zsh'] },
  { file: 'completions/ship.fish', args: ['completion', 'fish'] },
  { file: 'man/ship.1', args: ['__man'] },
];

const env = { ...process.env, NO_COLOR: '1', COLUMNS: '100' };
delete env.FORCE_COLOR;
let stale = 0;
for (const t of targets) {
  const wanted = execFileSync(process.execPath, [bin, ...t.args], { env, encoding: 'utf8' });
  const path = resolve(root, t.file);
  const current = await readFile(path, 'utf8').catch(() => null);
  if (current === wanted) continue;
  if (check) {
    stale++;
    console.error(`stale: ${t.file} (run \`npm run generate\` and commit the result)`);
  } else {
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, wanted);
    console.error(`wrote ${t.file}`);
  }
}
if (check && stale) process.exit(1);
if (check) console.error('generated files are up to date');
