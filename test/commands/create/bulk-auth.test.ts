// `ship create --csv` in-process against the sandbox when the token is revoked mid-run: the run stops with
// exit 4 and a summary that says to log in; a rerun with a new token creates the rest, none twice.
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runShip } from '../../helpers/run.js';
import { startTestSandbox, type TestSandbox } from '../../helpers/sandbox.js';
import { startRecordingProxy, type Recorded } from './recording-proxy.js';

let sb: TestSandbox;
let proxy: Awaited<ReturnType<typeof revokingProxy>>;

/**
 * A loopback proxy in front of the sandbox that counts what the sandbox really created (2xx POST /shipments
 * per reference) and, once `revokeAfter` creates went through, revokes the caller's token (DELETE /tokens
 * with that same token) before passing that response on: every later request is refused by the sandbox itself.
 */
async function revokingProxy(target: string) {
  const created = new Map<string, number>();
  const postsAfterCreated: string[] = [];
  const state = { revokeAfter: 0, creates: 0, revoked: false };
  const createRef = (rec: Recorded) =>
    rec.method === 'POST' && /\/shipments$/.test(rec.path.split('?')[0]) ? (rec.body.shipment_reference as string) : undefined;
  const proxy = await startRecordingProxy(target, {
    onRequest(rec) {
      const ref = createRef(rec);
      if (ref !== undefined && created.has(ref)) postsAfterCreated.push(ref);
    },
    async onResponse(rec, status, headers) {
      const ref = createRef(rec);
      if (ref === undefined || status >= 300) return;
      created.set(ref, (created.get(ref) ?? 0) + 1);
      state.creates++;
      if (state.revokeAfter > 0 && state.creates >= state.revokeAfter && !state.revoked) {
        state.revoked = true;
        const del = await fetch(`${target}/tokens`, { method: 'DELETE', headers });
        if (del.status !== 200) throw new Error(`revoke failed: ${del.status}`);
      }
    },
  });
  return { baseUrl: proxy.baseUrl, created, postsAfterCreated, state, close: proxy.close };
}

beforeAll(async () => {
  sb = await startTestSandbox();
  proxy = await revokingProxy(sb.baseUrl);
});
afterAll(async () => {
  await proxy?.close();
  await sb?.close();
});

describe('ship create --csv when the token is revoked mid-run', () => {
  it('stops with exit 4 and a login hint, writes no failed rows, and a rerun after login creates the rest exactly once', async () => {
    const work = mkdtempSync(join(tmpdir(), 'ship-bulkauth-'));
    const N = 40;
    const refs = Array.from({ length: N }, (_, i) => `AUTH-${String(i).padStart(3, '0')}`);
    const csv = join(work, 'orders.csv');
    writeFileSync(
      csv,
      'shipment_reference,to_name,to_line_1,to_city,to_postcode,to_country,weight\n' + refs.map((r) => `${r},Ann,1 High St,London,E1 1AA,GB,500`).join('\n') + '\n',
    );
    const base = { SHIP_BASE_URL: proxy.baseUrl, SHIP_API_KEY: sb.apiKey, SHIP_CONFIG_DIR: mkdtempSync(join(tmpdir(), 'ship-cfg-')), CI: 'true' };
    const args = ['create', '--csv', csv, '-o', join(work, 'labels'), '--concurrency', '2'];
    proxy.state.revokeAfter = 10;

    const first = await runShip([...args, '--json'], { env: { ...base, SHIP_TOKEN: await sb.login() } });
    expect(first.code, first.stderr).toBe(4);
    expect(first.stderr).toMatch(/ship login/);
    const lines = first.stdout.trim().split('\n').map((l) => JSON.parse(l));
    const createdFirst = lines.filter((l) => l.status === 'created').map((l) => l.shipment_reference);
    const refused = lines.filter((l) => l.status === 'failed');
    // What the client reports as created is exactly what the server created; the rest was stopped early.
    expect(createdFirst.sort()).toEqual([...proxy.created.keys()].sort());
    expect(createdFirst.length).toBeGreaterThanOrEqual(10);
    expect(refused.length).toBeGreaterThanOrEqual(1);
    expect(refused.length).toBeLessThanOrEqual(2); // at most the requests in flight
    for (const l of refused) expect(l.error).toMatch(/401/);
    expect(lines.length).toBeLessThan(N);
    const summary = JSON.parse(first.stderr.split('\n').find((l) => l.startsWith('{"summary"'))!).summary;
    expect(summary).toMatchObject({ stopped: 'credentials_refused', created: createdFirst.length, refused: refused.length, not_started: N - lines.length });
    // Nothing is wrong with the rows not done: they are not offered as rows to fix.
    expect(existsSync(join(work, 'orders.failed.csv'))).toBe(false);

    // Text mode says so in words, too (the token is still revoked: it stops at once).
    const text = await runShip(args, { env: { ...base, SHIP_TOKEN: 'revoked-token-0000000000000000' } });
    expect(text.code).toBe(4);
    expect(text.stderr).toMatch(/Stopped because the API refused the credentials/);
    expect(text.stderr).toMatch(/not attempted/);
    // The token came from SHIP_TOKEN, which `ship login` would not replace, and the service said the token was
    // refused (not the API key, also from the environment): the advice names that one.
    expect(text.stderr).toMatch(/Set SHIP_TOKEN anew \(it wins over the profile\), then rerun the same command/);

    // "ship login" again (a new token) and the same command: the rest is created, nothing twice.
    const again = await runShip([...args, '--json'], { env: { ...base, SHIP_TOKEN: await sb.login() } });
    expect(again.code, again.stderr).toBe(0);
    const l2 = again.stdout.trim().split('\n').map((l) => JSON.parse(l));
    expect(l2.map((l) => l.shipment_reference)).toEqual(refs);
    expect(l2.filter((l) => l.status === 'skipped').map((l) => l.shipment_reference).sort()).toEqual(createdFirst.sort());
    expect(l2.filter((l) => l.status === 'created')).toHaveLength(N - createdFirst.length);
    expect([...proxy.created.keys()].sort()).toEqual(refs);
    expect([...proxy.created.values()].every((n) => n === 1)).toBe(true);
    expect(proxy.postsAfterCreated).toEqual([]);
  });
});
