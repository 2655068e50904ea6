// What the commands scripts run most actually load, lazy imports included, read from the built binary at run
// time (test/build/chunks.test.ts checks the static part on the bundle): a cron job calls them thousands of
// times, so each heavy module a command loads without needing it is paid for on every call.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { beforeAll, describe, expect, it } from 'vitest';
import { BIN, binEnv } from '../helpers/bin.js';
import { useTestSandbox } from '../helpers/sandbox.js';

const RECORD = resolve(import.meta.dirname, '../helpers/record-loads.mjs');
const HEAVY = ['zod', 'conf', 'cli-table3', 'ora', '@inquirer/prompts', '@inquirer/core', 'csv-parse', 'pdf-lib', 'bwip-js', 'pngjs', 'node-thermal-printer'];

const { sb, env } = useTestSandbox();
let trackingRef: string;

// After useTestSandbox's beforeAll: hooks run in the order they were registered.
beforeAll(async () => {
  const headers = { 'content-type': 'application/json', accept: 'application/json', 'x-service-api-key': env.SHIP_API_KEY, 'x-service-token': env.SHIP_TOKEN };
  const res = await fetch(`${sb.baseUrl}/shipments`, {
    method: 'POST',
    headers,
    body: JSON.stringify({
      shipment_reference: 'LOADS-1',
      to_address: { name: 'Ann Example', line_1: '1 High Street', city: 'London', postcode: 'SW1A 1AA', country: 'GB' },
      parcels: [{ weight: 1000, length: 20, width: 15, depth: 10 }],
    }),
  });
  const body = (await res.json()) as { data: Array<{ tracking_reference: string }> };
  trackingRef = body.data[0].tracking_reference;
  await sb.control('tracking/advance', { shipment_reference: 'LOADS-1' });
});

/** Runs the binary; resolves to its result and the source inputs (src/… and node_modules/…) of every file it loaded. */
async function loads(args: string[]): Promise<{ exitCode: number | undefined; stdout: string; stderr: string; inputs: Set<string>; packages: Set<string> }> {
  const out = join(mkdtempSync(join(tmpdir(), 'ship-loads-')), 'loaded.txt');
  const r = await execa(process.execPath, ['--import', RECORD, BIN, ...args], {
    reject: false,
    extendEnv: false,
    stdin: 'ignore',
    env: binEnv({ ...env, SHIP_TEST_LOADED: out }),
  });
  const inputs = new Set<string>();
  for (const url of readFileSync(out, 'utf8').split('\n').filter(Boolean)) {
    // esbuild heads each bundled input with a comment naming it.
    for (const m of readFileSync(fileURLToPath(url), 'utf8').matchAll(/^\/\/ ((?:src|node_modules)\/\S+)$/gm)) inputs.add(m[1]);
  }
  const packages = new Set([...inputs].map((f) => /^node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(f)?.[1]).filter((p): p is string => Boolean(p)));
  return { exitCode: r.exitCode, stdout: String(r.stdout), stderr: String(r.stderr), inputs, packages };
}

describe('what the commands scripts call most load at run time', () => {
  it('--version and `config get` load neither the API layer nor undici', async () => {
    for (const args of [['--version'], ['config', 'get', 'base_url']]) {
      const r = await loads(args);
      expect(r.exitCode, `${args.join(' ')}: ${r.stderr}`).toBe(0);
      expect(r.inputs.size, args.join(' ')).toBeGreaterThan(5);
      for (const p of [...HEAVY, 'undici']) expect(r.packages, `${args.join(' ')} loads ${p}`).not.toContain(p);
      expect(r.inputs).not.toContain('src/api/client.ts');
    }
  });

  it('whoami, track, label -o -, invoice -o -, skus list and the reference commands load no heavy module, zod included: their answers are parsed without it', async () => {
    const cases = [
      ['whoami', '--json'],
      ['track', 'LOADS-1', '--json'],
      ['track', '--parcel', trackingRef, '--json'],
      ['label', trackingRef, '-o', '-'],
      ['invoice', 'LOADS-1', '-o', '-'],
      ['skus', 'list', '--json'],
      ['services', '--json'],
      ['locations', '--json'],
      ['locations', 'WH1', '--json'],
      ['brands', '--json'],
      ['users', '--json'],
      ['packaging', '--json'],
      ['custom-fields', '--json'],
      ['custom-fields', 'gift_message', '--json'],
    ];
    for (const args of cases) {
      const r = await loads(args);
      expect(r.exitCode, `${args.join(' ')}: ${r.stderr}`).toBe(0);
      expect(r.stdout.length).toBeGreaterThan(0);
      // The command did call the API (so the check below is about a run that parsed an answer).
      expect(r.packages, args.join(' ')).toContain('undici');
      for (const p of HEAVY) expect(r.packages, `${args.join(' ')} loads ${p}`).not.toContain(p);
      expect(r.inputs, args.join(' ')).not.toContain('src/api/schemas.ts');
      expect(r.inputs, args.join(' ')).not.toContain('src/api/response-schemas.ts');
    }
    const track = await loads(['track', 'LOADS-1', '--json']);
    expect(JSON.parse(track.stdout).shipments[0].parcels[0].events.length).toBeGreaterThan(1);
  });

  it('a command that parses its answer with zod and sends no body (skus get) loads zod/mini: neither classic zod nor the request schemas', async () => {
    const r = await loads(['skus', 'get', 'MUG-001', '--json']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).sku).toBe('MUG-001');
    expect(r.inputs).toContain('src/api/response-schemas.ts');
    expect(r.inputs).not.toContain('src/api/schemas.ts');
    // `import { z } from 'zod'` anywhere in the bundle would bring all of classic zod back into the chunk zod/mini shares.
    const classic = [...r.inputs].filter((f) => f.startsWith('node_modules/zod/v4/classic/') || f.startsWith('node_modules/zod/v4/core/json-schema-generator'));
    expect(classic).toEqual([]);
  });
});
