// Throughput of the sandbox: a known number of POST /shipments with ZPL labels, at fixed concurrency, against a
// sandbox started as its own process (`node bin/ship.js sandbox --port 0`), bounded in time. Prints requests/second.
// Usage: node bench/sandbox-throughput.mjs [--requests 20000] [--concurrency 64] [--max-seconds 20] [--base-url URL]
// (--base-url drives an already running sandbox instead of starting one, e.g. one started under --cpu-prof.)
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { resolve } from 'node:path';
import { Pool } from 'undici';

const args = process.argv.slice(2);
const flag = (name, def) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? Number(args[i + 1]) : def;
};
const TOTAL = flag('requests', 20_000);
const CONCURRENCY = flag('concurrency', 64);
const MAX_SECONDS = flag('max-seconds', 20);
const WARMUP = Math.min(1000, Math.floor(TOTAL / 10));

const given = args.includes('--base-url') ? args[args.indexOf('--base-url') + 1] : undefined;
const bin = resolve(import.meta.dirname, '../bin/ship.js');
const child = given ? null : spawn(process.execPath, [bin, '--quiet', 'sandbox', '--port', '0', '--auto-advance', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
let childErr = '';
child?.stderr.on('data', (c) => (childErr += c));
const stop = () => {
  if (child && child.exitCode === null) child.kill('SIGTERM');
};
process.on('exit', stop);

const baseUrl = given ?? await new Promise((res, rej) => {
  const rl = createInterface({ input: child.stdout });
  rl.once('line', (l) => res(l.trim()));
  child.once('exit', (code) => rej(new Error(`sandbox exited with ${code} before printing its URL (run \`npm run build\` first?)\n${childErr}`)));
});
const url = new URL(baseUrl);
const pool = new Pool(url.origin, { connections: CONCURRENCY, pipelining: 1 });
const API_KEY = 'sandbox-api-key';

async function call(method, path, body, token) {
  const headers = { 'content-type': 'application/json', accept: 'application/json', 'x-service-api-key': API_KEY };
  if (token) headers['x-service-token'] = token;
  const res = await pool.request({ method, path: url.pathname + path, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.body.text();
  return { status: res.statusCode, text };
}

const login = await call('POST', '/tokens', { username: 'demo@example.com', password: 'demo-password' });
const token = JSON.parse(login.text).data.token;

const run = `B${Date.now().toString(36)}`;
const shipment = (i) => ({
  shipment_reference: `${run}-${i}`,
  order_reference: `ORDER-${i}`,
  format: 'ZPL',
  to_address: { name: 'Jane Smith', company_name: 'Acme Ltd', line_1: '1 High Street', line_2: 'Flat 2', city: 'London', county: 'Greater London', postcode: 'N1 1AA', country: 'GB', email_address: 'jane@example.com', telephone: '07700900123' },
  parcels: [{ reference: `${run}-${i}-1`, weight: 750, length: 30, width: 20, depth: 10, value: 19.99 }],
  custom_fields: { gift_message: 'Happy birthday' },
});

async function drive(from, count, deadline) {
  let next = from;
  const end = from + count;
  let ok = 0;
  let failed = 0;
  let bytes = 0;
  const worker = async () => {
    while (next < end && performance.now() < deadline) {
      const i = next++;
      const r = await call('POST', '/shipments', shipment(i), token);
      if (r.status === 201 && r.text.includes('^XA')) ok++;
      else {
        failed++;
        if (failed <= 3) console.error(`unexpected ${r.status}: ${r.text.slice(0, 200)}`);
      }
      bytes += r.text.length;
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return { ok, failed, bytes };
}

try {
  await drive(0, WARMUP, performance.now() + 10_000);
  const t0 = performance.now();
  const r = await drive(WARMUP, TOTAL, t0 + MAX_SECONDS * 1000);
  const secs = (performance.now() - t0) / 1000;
  const done = r.ok + r.failed;
  console.log(`sandbox POST /shipments (ZPL), concurrency ${CONCURRENCY}: ${done} requests in ${secs.toFixed(2)} s = ${Math.round(done / secs)} req/s` +
    ` (${r.failed} failed, ${(r.bytes / done / 1024).toFixed(1)} KiB/response${done < TOTAL ? `, stopped at the ${MAX_SECONDS} s bound` : ''})`);
  if (r.failed > 0) process.exitCode = 1;
} finally {
  await pool.close();
  stop();
}
