// The built binary against two sandboxes on two loopback ports, one as the profile's live base URL and one as its
// test base URL, each accepting only its own API key: a login in test mode must not replace the live credentials
// (a CI smoke test on a warehouse machine logging the nightly cron out of production), nor the other way round.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ship, tempConfigDir } from '../helpers/bin.js';
import { apiCall, startTestSandbox, type TestSandbox } from '../helpers/sandbox.js';

const LIVE = { apiKey: 'live-api-key-SECRET-1111', username: 'cron@example.com', password: 'live-password' };
const TEST = { apiKey: 'test-api-key-SECRET-2222', username: 'ci@example.com', password: 'test-password' };

let live: TestSandbox;
let test: TestSandbox;
beforeAll(async () => {
  [live, test] = await Promise.all([startTestSandbox(LIVE), startTestSandbox(TEST)]);
});
afterAll(async () => {
  await Promise.all([live?.close(), test?.close()]);
});

let dir: string;
const file = () => JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')).profiles.default;
// No SHIP_BASE_URL, SHIP_API_KEY or SHIP_TOKEN: everything comes from the profile.
const run = (args: string[], input?: string) =>
  ship(args, { env: { SHIP_CONFIG_DIR: dir }, ...(input !== undefined ? { stdin: 'pipe' as const, input } : {}) });
const loginLive = () => run(['login', '--api-key', LIVE.apiKey, '--username', LIVE.username, '--password-stdin'], LIVE.password);
const loginTest = () => run(['--test', 'login', '--api-key', TEST.apiKey, '--username', TEST.username, '--password-stdin'], TEST.password);
const to = ['--to-name', 'Ann', '--to-line1', '1 St', '--to-city', 'Leeds', '--to-postcode', 'LS1 1AA', '--to-country', 'GB', '--weight', '500'];
const create = (reference: string, testMode = false) =>
  run([...(testMode ? ['--test'] : []), 'create', '--reference', reference, ...to, '--no-labels', '--json']);
/** Whether `sb` holds a shipment with this reference (asked with a token of its own). */
async function has(sb: TestSandbox, reference: string): Promise<boolean> {
  const r = await apiCall(await sb.authEnv(), 'GET', `/shipments/${reference}/events`);
  return r.status === 200;
}
const whoami = async (testMode = false) => {
  const r = await run([...(testMode ? ['--test'] : []), 'whoami', '--json']);
  return { code: r.exitCode, doc: String(r.stdout) ? JSON.parse(String(r.stdout)) : undefined, stderr: String(r.stderr) };
};

beforeEach(async () => {
  await Promise.all([live.reset(), test.reset()]);
  dir = tempConfigDir();
  expect((await run(['config', 'set', 'base_url', live.baseUrl])).exitCode).toBe(0);
  expect((await run(['config', 'set', 'test_base_url', test.baseUrl])).exitCode).toBe(0);
});

describe('live and test credentials of one profile (binary, two sandboxes)', () => {
  it('`--test login` after `login`: plain whoami and create still use the live credentials and server', async () => {
    expect((await loginLive()).exitCode).toBe(0);
    const liveToken = file().token as string;
    const t = await loginTest();
    expect(t.exitCode, String(t.stderr)).toBe(0);
    expect(file()).toMatchObject({ api_key: LIVE.apiKey, token: liveToken, user: { email: LIVE.username }, test_credentials: { api_key: TEST.apiKey, user: { email: TEST.username } } });
    expect(file().test_credentials.token).not.toBe(liveToken);

    const w = await whoami();
    expect(w.code, w.stderr).toBe(0);
    expect(w.doc).toMatchObject({
      base_url: { value: live.baseUrl, source: 'profile', origin: 'base_url' },
      credential_set: { value: 'live' },
      api_key: { masked: '****1111', origin: 'api_key' },
      user: { email: LIVE.username },
      token_status: 'valid',
    });
    const c = await create('LIVE-1');
    expect(c.exitCode, String(c.stderr)).toBe(0);
    expect(await has(live, 'LIVE-1')).toBe(true);
    expect(await has(test, 'LIVE-1')).toBe(false);

    // And test mode uses the test set, on the test server.
    const tw = await whoami(true);
    expect(tw.code, tw.stderr).toBe(0);
    expect(tw.doc).toMatchObject({ base_url: { value: test.baseUrl }, credential_set: { value: 'test' }, api_key: { masked: '****2222', origin: 'test_credentials.api_key' }, user: { email: TEST.username } });
    expect((await create('TEST-1', true)).exitCode).toBe(0);
    expect(await has(test, 'TEST-1')).toBe(true);
    expect(await has(live, 'TEST-1')).toBe(false);
  });

  it('`--test logout` leaves the live login working; `logout` leaves the test login working', async () => {
    await loginLive();
    await loginTest();
    const out = await run(['--test', 'logout']);
    expect(out.exitCode, String(out.stderr)).toBe(0);
    expect(file().token).toEqual(expect.any(String));
    expect(file().test_credentials?.token).toBeUndefined();
    expect((await whoami()).doc).toMatchObject({ token_status: 'valid' });
    expect((await create('LIVE-2')).exitCode).toBe(0);
    const none = await whoami(true);
    expect(none.code).toBe(4);
    expect(none.stderr).toContain('ship --test login');

    // The other way round.
    await loginTest();
    expect((await run(['logout'])).exitCode).toBe(0);
    expect(file().token).toBeUndefined();
    expect((await whoami(true)).doc).toMatchObject({ token_status: 'valid', user: { email: TEST.username } });
    expect((await create('TEST-2', true)).exitCode).toBe(0);
    expect(await has(test, 'TEST-2')).toBe(true);
    expect((await whoami()).code).toBe(4);
  });

  it('`login` after `--test login` does not replace the test credentials', async () => {
    await loginTest();
    const testToken = file().test_credentials.token as string;
    expect((await loginLive()).exitCode).toBe(0);
    expect(file().test_credentials).toMatchObject({ api_key: TEST.apiKey, token: testToken });
    expect((await whoami(true)).doc).toMatchObject({ token_status: 'valid' });
  });

  it('SHIP_BASE_URL (or --base-url) that is the test_base_url uses the test set, without --test', async () => {
    await loginLive();
    await loginTest();
    const r = await ship(['whoami', '--json'], { env: { SHIP_CONFIG_DIR: dir, SHIP_BASE_URL: test.baseUrl } });
    expect(r.exitCode, String(r.stderr)).toBe(0);
    expect(JSON.parse(String(r.stdout))).toMatchObject({ credential_set: { value: 'test', why: "SHIP_BASE_URL is the profile's test_base_url" }, token_status: 'valid' });
    const f = await run(['--base-url', `${live.baseUrl}/`, '--test', 'whoami', '--json']);
    expect(JSON.parse(String(f.stdout))).toMatchObject({ credential_set: { value: 'live' }, token_status: 'valid' });
  });

  it('a config file written by the old version (flat credentials) keeps working as the live set, unchanged', async () => {
    const token = await live.login(LIVE.username, LIVE.password);
    const old = { profiles: { default: { base_url: live.baseUrl, test_base_url: test.baseUrl, api_key: LIVE.apiKey, token, user: { email: LIVE.username } } } };
    writeFileSync(join(dir, 'config.json'), JSON.stringify(old));
    const w = await whoami();
    expect(w.code, w.stderr).toBe(0);
    expect(w.doc).toMatchObject({ credential_set: { value: 'live' }, token: { origin: 'token' }, user: { email: LIVE.username }, token_status: 'valid' });
    expect((await create('OLD-1')).exitCode).toBe(0);
    expect(await has(live, 'OLD-1')).toBe(true);
    expect(JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8'))).toEqual(old);
    // Test mode has no credentials yet: it says so and sends nothing with the live ones.
    const t = await run(['--test', 'services']);
    expect(t.exitCode).toBe(4);
    expect(String(t.stderr)).toContain('in the test credentials of profile default');
    // A first test login adds the test set and leaves the live one as it was.
    await loginTest();
    expect(file()).toMatchObject({ api_key: LIVE.apiKey, token, test_credentials: { api_key: TEST.apiKey } });
    expect((await whoami()).doc).toMatchObject({ token_status: 'valid' });
  });

  it('config list shows both sets, masked; no secret is printed anywhere', async () => {
    await loginLive();
    await loginTest();
    const r = await run(['config', 'list']);
    expect(r.exitCode).toBe(0);
    const out = String(r.stdout);
    expect(out).toMatch(/^api_key\t\*{4}1111\t/m);
    expect(out).toMatch(/^test_credentials\.api_key\t\*{4}2222\t/m);
    expect(out).toMatch(/^test_credentials\.token\t\*{4}\S{4}\t/m);
    const p = file();
    for (const secret of [LIVE.apiKey, TEST.apiKey, p.token, p.test_credentials.token]) expect(out + String(r.stderr)).not.toContain(secret);
  });
});
