// `npm run demo`: the warehouse flow end to end on the embedded sandbox, from a fresh clone.
// Starts `ship sandbox` on a free port, logs in, lists services, quotes, creates the shipments of
// examples/orders.csv (labels into .ship-demo/labels), shows a tracking timeline, and stops the sandbox.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';

const root = resolve(import.meta.dirname, '..');
const bin = join(root, 'bin/ship.js');
const configDir = mkdtempSync(join(tmpdir(), 'ship-demo-config-'));
const outDir = join(root, '.ship-demo');
rmSync(outDir, { recursive: true, force: true });

const sandbox = spawn(process.execPath, [bin, 'sandbox', '--port', '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
const stop = () => {
  if (sandbox.exitCode === null) sandbox.kill('SIGTERM');
};
process.on('exit', stop);
process.on('SIGINT', () => process.exit(130));

const firstLine = await new Promise((resolveLine, reject) => {
  const rl = createInterface({ input: sandbox.stdout });
  rl.once('line', (line) => resolveLine(line.trim()));
  sandbox.once('exit', (code) => reject(new Error(`sandbox exited early (${code})`)));
});
const baseUrl = firstLine;
const origin = new URL(baseUrl).origin;
console.log(`\n▶ sandbox running at ${baseUrl}\n`);

const env = {
  ...process.env,
  SHIP_CONFIG_DIR: configDir,
  SHIP_BASE_URL: baseUrl,
  SHIP_API_KEY: 'sandbox-api-key',
};
delete env.SHIP_TOKEN;

function step(title, args, input) {
  console.log(`\n$ ship ${args.join(' ')}${input !== undefined ? '   (password from stdin)' : ''}`);
  const r = spawnSync(process.execPath, [bin, ...args], {
    cwd: root,
    env,
    input,
    stdio: [input !== undefined ? 'pipe' : 'ignore', 'inherit', 'inherit'],
    encoding: 'utf8',
  });
  if (r.status !== 0) {
    console.error(`\n✗ ${title} failed (exit ${r.status})`);
    process.exit(r.status ?? 1);
  }
}

function capture(args) {
  const r = spawnSync(process.execPath, [bin, ...args], { cwd: root, env, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`ship ${args.join(' ')} failed: ${r.stderr}`);
  return r.stdout;
}

try {
  step('login', ['login', '--username', 'demo@example.com', '--password-stdin'], 'demo-password\n');
  step('whoami', ['whoami']);
  step('services', ['services']);
  step('quote', ['quote', '--file', 'examples/shipment.json']);
  step('create', ['create', '--csv', 'examples/orders.csv', '--output-dir', '.ship-demo/labels', '--yes']);
  const first = JSON.parse(capture(['create', '--csv', 'examples/orders.csv', '--output-dir', '.ship-demo/labels', '--json', '--yes']).split('\n')[0]);
  await fetch(`${origin}/__sandbox/tracking/advance`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
  await fetch(`${origin}/__sandbox/tracking/advance`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
  step('track', ['track', first.shipment_reference]);
  console.log(`\n✓ demo finished: labels are in .ship-demo/labels`);
} finally {
  stop();
  rmSync(configDir, { recursive: true, force: true });
}
