// The built binary against the sandbox: SKU import (created vs updated, bad rows), list --all, export → import.
// Requests go through a recording proxy on loopback, so "nothing sent" and "one POST per new SKU" are checked
// on the wire, not by trusting the client's own report.
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ship } from '../helpers/bin.js';
import { allSkus, apiCall, sandboxForFile, type ApiAuth } from '../helpers/sandbox.js';

const sb = await sandboxForFile();
let env: ApiAuth;
let dir: string;
let proxy: http.Server;
let proxyBase: string;
const seen: string[] = [];
/** When set, the proxy answers 500 to a request it matches, instead of passing it on. */
let failWhen: ((url: string) => boolean) | undefined;

/** Runs the binary through the recording proxy. */
function shipVia(args: string[]) {
  return ship(args, { env: { ...env, SHIP_BASE_URL: proxyBase, SHIP_CONFIG_DIR: dir } });
}

const csv = (name: string, text: string) => {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
};

beforeAll(async () => {
  const target = new URL(sb.baseUrl);
  proxy = http.createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    if (failWhen?.(req.url ?? '')) {
      res.writeHead(500, { 'content-type': 'application/json' }).end('{"message":"Server Error","data":null}');
      return;
    }
    const up = http.request({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers }, (r) => {
      res.writeHead(r.statusCode ?? 502, r.headers);
      r.pipe(res);
    });
    up.on('error', () => res.destroy());
    req.pipe(up);
  });
  await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
  const { port } = proxy.address() as import('node:net').AddressInfo;
  // The sandbox builds links from the Host header, so page links keep pointing at the proxy.
  proxyBase = `http://127.0.0.1:${port}${target.pathname}`;
});
afterAll(async () => {
  proxy?.closeAllConnections();
  await new Promise((r) => proxy?.close(r));
});
beforeEach(async () => {
  env = await sb.authEnv();
  dir = mkdtempSync(join(tmpdir(), 'ship-e2e-skus-'));
  seen.length = 0;
});

describe('ship skus (built binary)', () => {
  it('imports 100 SKUs of which 40 exist: 60 created, 40 updated, exactly one POST or PATCH each', async () => {
    await sb.control('seed/skus', { count: 40, prefix: 'E2E' });
    const before = new Map((await allSkus(env)).map((s) => [s.sku, s]));
    const rows = Array.from({ length: 100 }, (_, i) => {
      const n = String(i + 1).padStart(6, '0');
      return `E2E-${n},Imported ${i + 1},${100 + i},${i % 2 ? 'cn' : 'DE'},${i % 3 ? 'P' : 'non-packable'}`;
    });
    const file = csv('hundred.csv', `sku,Product Name,gross_weight,country_of_origin,item_handling\n${rows.join('\n')}\n`);
    const r = await shipVia(['skus', 'import', file, '--json', '--concurrency', '6']);
    expect(r.exitCode, String(r.stderr)).toBe(0);
    const lines = String(r.stdout).trim().split('\n').map((l) => JSON.parse(l));
    expect(lines).toHaveLength(100);
    expect(lines.map((l) => l.row)).toEqual(Array.from({ length: 100 }, (_, i) => i + 2));
    const created = lines.filter((l) => l.status === 'created').map((l) => l.sku);
    const updated = lines.filter((l) => l.status === 'updated').map((l) => l.sku);
    expect(updated.sort()).toEqual([...before.keys()].filter((k) => k.startsWith('E2E-')).sort());
    expect(created).toHaveLength(60);
    expect(created.every((s) => !before.has(s))).toBe(true);

    // On the wire: one POST per new SKU, one PATCH per existing one, never both for the same SKU.
    const posts = seen.filter((s) => s.startsWith('POST ') && s.endsWith('/skus'));
    const patches = seen.filter((s) => s.startsWith('PATCH '));
    expect(posts).toHaveLength(60);
    expect(patches.map((p) => decodeURIComponent(p.split('/').pop()!)).sort()).toEqual(updated.sort());

    const after = await allSkus(env);
    expect(after).toHaveLength(before.size + 60);
    const one = after.find((s) => s.sku === 'E2E-000001');
    expect(one).toMatchObject({ product_name: 'Imported 1', gross_weight: 100, item_handling: 'NON_PACKABLE' });
    expect(one.country_of_origin.code).toBe('DE');
    expect(one.description_short).toBe(before.get('E2E-000001').description_short); // not in the file: unchanged

    // The same file again (the finished run left no journal): every SKU already has those values, so
    // nothing is sent, and the text summary says so.
    seen.length = 0;
    const again = await shipVia(['skus', 'import', file]);
    expect(again.exitCode, String(again.stderr)).toBe(0);
    expect(String(again.stderr)).toMatch(/^ {2}created\s+0\n {2}updated\s+0\n {2}unchanged\s+100\n/m);
    expect(seen.filter((s) => !s.startsWith('GET '))).toEqual([]);
  });

  it('refuses a file with bad rows before sending anything', async () => {
    const before = await allSkus(env);
    const file = csv(
      'bad.csv',
      'sku,product_name,width,country_of_origin,item_handling,vat_rate\n' +
        'OK-1,Fine,10,GB,P,20\n' +
        'BAD-1,Width,ten,GB,P,20\n' +
        'BAD-2,Country,10,England,P,20\n' +
        ',No sku,10,GB,P,20\n' +
        'BAD-4,Handling,10,GB,sometimes,20\n' +
        'BAD-5,Caret^,10,GB,P,-1\n',
    );
    const r = await shipVia(['skus', 'import', file]);
    expect(r.exitCode).toBe(2);
    const err = String(r.stderr);
    expect(err).toMatch(/row 3, column width/);
    expect(err).toMatch(/row 4, column country_of_origin/);
    expect(err).toMatch(/row 5, column sku/);
    expect(err).toMatch(/row 6, column item_handling/);
    expect(err).toMatch(/row 7, column product_name/);
    expect(err).toMatch(/row 7, column vat_rate/);
    expect(err).toMatch(/nothing was sent/);
    expect(seen).toEqual([]);
    expect(await allSkus(env)).toEqual(before);
  });

  it('list --all streams every page (at least 4) in order', async () => {
    await sb.control('seed/skus', { count: 110, prefix: 'LIST' });
    const expected = (await allSkus(env)).map((s) => s.sku);
    expect(Math.ceil(expected.length / 30)).toBeGreaterThanOrEqual(4);
    const j = await shipVia(['skus', 'list', '--all', '--json']);
    expect(j.exitCode, String(j.stderr)).toBe(0);
    expect(JSON.parse(String(j.stdout)).map((s: any) => s.sku)).toEqual(expected);
    const pageRequests = seen.filter((s) => s.startsWith('GET ') && /\/skus(\?|$)/.test(s));
    expect(pageRequests).toHaveLength(Math.ceil(expected.length / 30));
    const n = await shipVia(['skus', 'list', '--all', '--ndjson']);
    expect(String(n.stdout).trim().split('\n').map((l) => JSON.parse(l).sku)).toEqual(expected);
    const t = await shipVia(['skus', 'list', '--all']);
    expect(String(t.stdout).trim().split('\n').map((l) => l.split('\t')[0])).toEqual(expected);
    // A page that fails part way: no array cut short on stdout, nothing at all (the error on stderr, exit 1).
    failWhen = (url) => /[?&]page=3\b/.test(url);
    try {
      const cut = await shipVia(['skus', 'list', '--all', '--json']);
      expect(cut.exitCode).toBe(1);
      expect(String(cut.stdout)).toBe('');
      expect(String(cut.stderr)).toMatch(/500/);
      // --ndjson is machine output too: the pages before are on stdout, each line whole, and the error is a JSON line.
      const streamed = await shipVia(['skus', 'list', '--all', '--ndjson']);
      expect(streamed.exitCode).toBe(1);
      expect(String(streamed.stdout).trim().split('\n').map((l) => JSON.parse(l).sku)).toEqual(expected.slice(0, 60));
      expect(JSON.parse(String(streamed.stderr).trim().split('\n').at(-1)!).error).toMatchObject({ exit_code: 1, message: expect.stringMatching(/500/) });
    } finally {
      failWhen = undefined;
    }
  });

  it('export → import changes nothing; an edited cell changes only that attribute', async () => {
    await sb.control('seed/skus', { count: 70, prefix: 'RT' });
    await apiCall(env, 'POST', '/skus', { sku: '+44-SKU', product_name: '=cmd|calc', part_number: '-12', description_full: 'line one\nline "two", three', custom_fields: { hazard_class: '@x' } });
    const before = await allSkus(env);
    const out = join(dir, 'skus.csv');
    const e = await shipVia(['skus', 'export', '-o', out]);
    expect(e.exitCode, String(e.stderr)).toBe(0);
    const text = readFileSync(out, 'utf8');
    expect(text).toContain("'+44-SKU,'=cmd|calc,");
    expect(text).not.toMatch(/^[=+\-@]/m);

    seen.length = 0;
    const i = await shipVia(['skus', 'import', out, '--json']);
    expect(i.exitCode, String(i.stderr)).toBe(0);
    const statuses = String(i.stdout).trim().split('\n').map((l) => JSON.parse(l).status);
    // Every row matches its SKU: nothing is sent, not even a PATCH (updated_at stays as it was).
    expect(statuses.filter((s) => s === 'unchanged')).toHaveLength(before.length);
    expect(seen.filter((s) => !s.startsWith('GET '))).toEqual([]);
    expect(await allSkus(env)).toEqual(before);
    const strip = (xs: any[]) => xs.map(({ updated_at: _u, ...rest }) => rest);

    // Edit one cell of one row: only that attribute of that SKU changes, with one PATCH.
    const edited = text.replace(/^RT-000005,[^,\n]*,/m, 'RT-000005,Product five,');
    expect(edited).not.toBe(text);
    writeFileSync(out, edited);
    seen.length = 0;
    const i2 = await shipVia(['skus', 'import', out]);
    expect(i2.exitCode, String(i2.stderr)).toBe(0);
    expect(seen.filter((s) => s.startsWith('PATCH ')).map((s) => decodeURIComponent(s.split('/').pop()!))).toEqual(['RT-000005']);
    const after = strip(await allSkus(env));
    const expected = strip(before).map((s) => (s.sku === 'RT-000005' ? { ...s, product_name: 'Product five' } : s));
    expect(after).toEqual(expected);
  });

  /** What ship left in a TMPDIR of its own (Node 22+ keeps its compile cache there too: not ours). */
  const ours = (tmp: string) => readdirSync(tmp).filter((n) => n !== 'node-compile-cache');

  it('export stopped by Ctrl-C or SIGTERM exits 130 or 143 and leaves nothing behind: no FILE, no FILE.partial, no spool', async () => {
    await sb.control('seed/skus', { count: 300, prefix: 'STOP' });
    const tmp = mkdtempSync(join(tmpdir(), 'ship-e2e-tmp-'));
    const out = join(dir, 'stopped.csv');
    await sb.control('faults', { latency_ms: 150 });
    try {
      for (const sig of ['SIGINT', 'SIGTERM'] as const) {
        seen.length = 0;
        const run = ship(['skus', 'export', '-o', out], { env: { ...env, SHIP_BASE_URL: proxyBase, SHIP_CONFIG_DIR: dir, TMPDIR: tmp } });
        const until = Date.now() + 15_000;
        while (!seen.some((l) => l.includes('page=')) && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
        run.kill(sig);
        const r = await run;
        expect(r.exitCode, String(r.stderr)).toBe(sig === 'SIGINT' ? 130 : 143);
        expect(readdirSync(dir).filter((n) => n.startsWith('stopped.csv'))).toEqual([]);
        expect(ours(tmp)).toEqual([]);
      }
    } finally {
      await sb.control('faults', {});
    }
  });

  it('import - stopped by Ctrl-C while stdin is still open exits 130 and removes its copy of stdin', async () => {
    const tmp = mkdtempSync(join(tmpdir(), 'ship-e2e-tmp-'));
    const run = ship(['skus', 'import', '-', '--dry-run'], { stdin: 'pipe', env: { ...env, SHIP_CONFIG_DIR: dir, TMPDIR: tmp } });
    run.stdin!.write('sku,product_name\nSTDIN-1,One\n');
    const until = Date.now() + 15_000;
    while (!readdirSync(tmp).some((n) => n.startsWith('ship-skus-stdin-')) && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
    expect(ours(tmp)).toHaveLength(1);
    run.kill('SIGINT');
    const r = await run;
    expect(r.exitCode, String(r.stderr)).toBe(130);
    expect(ours(tmp)).toEqual([]);
  });
});
