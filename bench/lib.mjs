// Helpers the benchmarks share: reading `--name value` flags and starting `ship sandbox` in its own process.
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';

/** The repository root. */
export const ROOT = resolve(import.meta.dirname, '..');

/** The environment benchmarked processes run with: no colour, CI behaviour, nothing else of the caller's. */
export const BASE_ENV = { PATH: process.env.PATH, HOME: process.env.HOME, NO_COLOR: '1', CI: 'true' };

/** The value after `name` on the command line (a number when `def` is one), or `def` when the flag is absent. */
export function arg(name, def) {
  const i = process.argv.indexOf(name);
  return i > 0 ? (typeof def === 'number' ? Number(process.argv[i + 1]) : process.argv[i + 1]) : def;
}

/** Starts `ship sandbox --port 0` with `env` and resolves to its base URL (first stdout line) and the child. */
export function startSandbox(bin, env) {
  const child = spawn(process.execPath, [bin, 'sandbox', '--port', '0', '--auto-advance', '0'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  return new Promise((resolveP, reject) => {
    const lines = createInterface({ input: child.stdout });
    const timer = setTimeout(() => reject(new Error('sandbox did not start within 15s')), 15_000);
    lines.once('line', (line) => {
      clearTimeout(timer);
      resolveP({ child, baseUrl: line.trim() });
    });
    child.once('exit', (code) => reject(new Error(`sandbox exited with ${code}`)));
  });
}
