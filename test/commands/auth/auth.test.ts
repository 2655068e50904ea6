import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PassThrough } from 'node:stream';
import { main } from '../../../src/main.js';
import { bufferIO, runShip } from '../../helpers/run.js';
import { closedPort, startStub, type StubServer } from '../stub-server.js';

const API_KEY = 'stub-api-key-SECRET-1111';
const PASSWORD = 'pw-SECRET-hunter2';
const TOKEN = 'issued-token-SECRET-9f8e7d6c';
const USER = { id: 'u-1', user_type: 'MERCHANT_ADMIN', first_name: 'Dana', last_name: 'Demo', email: 'dana@example.com', account_name: 'Acme', merchant_id: 'm-1' };

let stub: StubServer;
let dir: string;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ship-auth-'));
  stub = await startStub({
    'POST /tokens': (r) => {
      if (r.headers['x-service-api-key'] !== API_KEY) return { status: 401, body: { message: 'The API key supplied is not valid', data: null } };
      const b = r.body as { username: string; password: string };
      if (b.password !== PASSWORD) return { status: 401, body: { message: 'Invalid credentials', data: null } };
      return { body: { message: 'Login Successful', data: { token: TOKEN, user: USER } } };
    },
    'GET /tokens': (r) => (r.headers['x-service-token'] === TOKEN ? { body: { message: 'Token valid', data: null } } : { status: 401, body: { message: 'Unauthenticated', data: null } }),
    'DELETE /tokens': { body: { message: 'Token deleted', data: null } },
  });
});
afterEach(() => stub.close());

const ship = (args: string[], opts: { env?: Record<string, string>; stdin?: string; tty?: boolean } = {}) =>
  runShip(args, { ...opts, env: { SHIP_CONFIG_DIR: dir, SHIP_BASE_URL: stub.baseUrl, ...opts.env } });
const file = () => JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8'));
const noSecrets = (r: { stdout: string; stderr: string }) => {
  for (const s of [API_KEY, PASSWORD, TOKEN]) expect(r.stdout + r.stderr).not.toContain(s);
};
const login = (extra: string[] = [], opts: { env?: Record<string, string> } = {}) =>
  ship(['login', '--api-key', API_KEY, '--username', USER.email, '--password-stdin', ...extra], { stdin: `${PASSWORD}\n`, ...opts });

describe('ship login', () => {
  it('posts the credentials with the API key only, stores key, token and user in a 0600 file, prints no secret', async () => {
    const r = await login();
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(`Logged in as Dana Demo <dana@example.com> (MERCHANT_ADMIN) on ${stub.baseUrl}, profile default`);
    noSecrets(r);
    const [req] = stub.requests;
    expect(req).toMatchObject({ method: 'POST', path: '/tokens', body: { username: USER.email, password: PASSWORD } });
    expect(req.headers['x-service-api-key']).toBe(API_KEY);
    expect(req.headers['x-service-token']).toBeUndefined();
    expect(file().profiles.default).toMatchObject({ api_key: API_KEY, token: TOKEN, user: { email: USER.email, first_name: 'Dana' } });
    if (process.platform !== 'win32') expect(statSync(join(dir, 'config.json')).mode & 0o777).toBe(0o600);
  });

  it('a server that quotes the request back in its error: neither the --api-key nor the password is shown', async () => {
    stub.on('POST /tokens', (r) => ({ status: 500, body: { message: `echo key=${String(r.headers['x-service-api-key'])}`, data: { request: JSON.stringify(r.body) } } }));
    for (const extra of [[], ['--json'], ['-v']]) {
      const r = await login(extra);
      expect(r.code).toBe(1);
      noSecrets(r);
      expect(r.stderr).toContain('echo key=****1111');
    }
  });

  it('--json prints {profile, base_url, credential_set, user} and never the token', async () => {
    const r = await login(['--json']);
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(doc).toEqual({ profile: 'default', base_url: stub.baseUrl, credential_set: 'live', user: expect.objectContaining({ email: USER.email }) });
    noSecrets(r);
  });

  it('--json: the success line and the warnings are JSON lines on stderr; without --json the ✓ line as before', async () => {
    const r = await login(['--json'], { env: { SHIP_TOKEN: 'stale-token-SECRET-0000' } });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr.trimEnd().split('\n').map((l) => JSON.parse(l))).toEqual([
      { info: { message: `Logged in as Dana Demo <dana@example.com> (MERCHANT_ADMIN) on ${stub.baseUrl}, profile default` } },
      { warning: { message: 'SHIP_TOKEN is set in the environment and wins over what was just stored: unset SHIP_TOKEN for later commands to use this login' } },
    ]);
    const text = await login();
    expect(text.stderr).toBe(`✓ Logged in as Dana Demo <dana@example.com> (MERCHANT_ADMIN) on ${stub.baseUrl}, profile default\n`);
  });

  it('finds the user in GET /users (with the new token) when POST /tokens carries none', async () => {
    stub.on('POST /tokens', { body: { message: 'Login Successful', data: { token: TOKEN } } });
    stub.on('GET /users', (r) =>
      r.headers['x-service-token'] === TOKEN
        ? { body: { data: [{ id: 'u-0', email: 'other@example.com' }, { id: 'u-1', first_name: 'Dana', last_name: 'Demo', email: 'DANA@example.com', access_level: 'MERCHANT_USER', location: { id: 'l1', code: 'WH1', name: 'Warehouse', address_line_1: 'x' } }] } }
        : { status: 401, body: { message: 'no', data: null } },
    );
    const r = await login();
    expect(r.code).toBe(0);
    expect(file().profiles.default.user).toEqual({ id: 'u-1', first_name: 'Dana', last_name: 'Demo', email: 'DANA@example.com', access_level: 'MERCHANT_USER', location: { id: 'l1', code: 'WH1', name: 'Warehouse' } });
    expect(r.stderr).toContain('Logged in as Dana Demo <DANA@example.com> (MERCHANT_USER)');
  });

  it('still logs in when the user cannot be looked up', async () => {
    stub.on('POST /tokens', { body: { message: 'Login Successful', data: { token: TOKEN } } });
    stub.on('GET /users', { status: 403, body: { message: 'Forbidden', data: null } });
    const r = await login();
    expect(r.code).toBe(0);
    expect(file().profiles.default).toMatchObject({ token: TOKEN, user: { email: USER.email } });
  });

  it('on a terminal, prompts on stderr for API key, username and password, masking the secrets', async () => {
    const io = bufferIO({ tty: true });
    const stdin = Object.assign(new PassThrough(), { isTTY: true, setRawMode: () => stdin });
    io.stdin = stdin;
    // @inquirer pipes into the output with end: true; Node never ends process.stderr that way, a PassThrough it would.
    io.stderr.end = (() => io.stderr) as typeof io.stderr.end;
    const done = main(['login'], { io, env: { SHIP_CONFIG_DIR: dir, SHIP_BASE_URL: stub.baseUrl, NO_COLOR: '1' }, handleSignals: false });
    for (const [question, answer] of [['API key', API_KEY], ['Username', USER.email], ['Password', PASSWORD]]) {
      // Each prompt opens its own reader once it is shown (the first after the base URL is found reachable).
      for (let i = 0; i < 200 && !io.err().includes(question); i++) await new Promise((r) => setTimeout(r, 20));
      await new Promise((r) => setTimeout(r, 30));
      stdin.write(`${answer}\r`);
    }
    expect(await done).toBe(0);
    expect(stub.requests[0].body).toEqual({ username: USER.email, password: PASSWORD });
    expect(stub.requests[0].headers['x-service-api-key']).toBe(API_KEY);
    expect(io.err()).toMatch(/API key/);
    expect(io.err()).toMatch(/Username/);
    expect(io.err()).toMatch(/Password/);
    expect(io.err()).not.toContain(API_KEY);
    expect(io.err()).not.toContain(PASSWORD);
    expect(io.err()).toContain(`Logging in to ${stub.baseUrl} (profile default)`);
    expect(io.out()).toBe('');
    expect(file().profiles.default.token).toBe(TOKEN);
  });

  it('--password-stdin with the terminal as stdin asks without echo (typed text was shown as it was typed)', async () => {
    const io = bufferIO({ tty: true });
    const stdin = Object.assign(new PassThrough(), { isTTY: true, setRawMode: () => stdin });
    io.stdin = stdin;
    io.stderr.end = (() => io.stderr) as typeof io.stderr.end;
    const done = main(['login', '--api-key', API_KEY, '--username', USER.email, '--password-stdin'], { io, env: { SHIP_CONFIG_DIR: dir, SHIP_BASE_URL: stub.baseUrl, NO_COLOR: '1' }, handleSignals: false });
    for (let i = 0; i < 200 && !io.err().includes('Password'); i++) await new Promise((r) => setTimeout(r, 20));
    await new Promise((r) => setTimeout(r, 30));
    stdin.write(`${PASSWORD}\r`);
    expect(await done).toBe(0);
    expect(stub.requests[0].body).toEqual({ username: USER.email, password: PASSWORD });
    expect(io.err()).not.toContain(PASSWORD);
    expect(io.err()).toMatch(/Password.*\*+/);
  });

  it('takes the API key from SHIP_API_KEY and the password from SHIP_PASSWORD', async () => {
    const r = await ship(['login', '--username', USER.email], { env: { SHIP_API_KEY: API_KEY, SHIP_PASSWORD: PASSWORD } });
    expect(r.code).toBe(0);
    expect(file().profiles.default.api_key).toBe(API_KEY);
  });

  it('never prompts without a terminal: exit 2 naming the flag for each missing value', async () => {
    const noKey = await ship(['login', '--username', USER.email, '--password-stdin'], { stdin: PASSWORD });
    expect(noKey.code).toBe(2);
    expect(noKey.stderr).toMatch(/--api-key or SHIP_API_KEY/);
    const noUser = await ship(['login', '--api-key', API_KEY, '--password-stdin'], { stdin: PASSWORD });
    expect(noUser.code).toBe(2);
    expect(noUser.stderr).toMatch(/--username or SHIP_USERNAME/);
    const noPw = await ship(['login', '--api-key', API_KEY, '--username', USER.email]);
    expect(noPw.code).toBe(2);
    expect(noPw.stderr).toMatch(/--password-stdin or SHIP_PASSWORD/);
    const emptyStdin = await ship(['login', '--api-key', API_KEY, '--username', USER.email, '--password-stdin'], { stdin: '' });
    expect(emptyStdin.code).toBe(2);
    expect(stub.requests).toHaveLength(0);
  });

  it('a rejected password or API key exits 4 and stores nothing', async () => {
    const r = await ship(['login', '--api-key', API_KEY, '--username', USER.email, '--password-stdin'], { stdin: 'wrong\n' });
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/Invalid credentials/);
    expect(() => file()).toThrow();
    const k = await ship(['login', '--api-key', 'bad-key-000000', '--username', USER.email, '--password-stdin'], { stdin: PASSWORD });
    expect(k.code).toBe(4);
    noSecrets(r);
  });

  it('stores a --base-url given to login (as test_base_url with --test, beside the test credentials)', async () => {
    const env = { SHIP_BASE_URL: '' };
    expect((await ship(['--base-url', stub.baseUrl + '/', 'login', '--api-key', API_KEY, '--username', USER.email, '--password-stdin'], { stdin: PASSWORD, env })).code).toBe(0);
    expect(file().profiles.default.base_url).toBe(stub.baseUrl);
    expect((await ship(['--profile', 't', '--test', '--base-url', stub.baseUrl, 'login', '--api-key', API_KEY, '--username', USER.email, '--password-stdin'], { stdin: PASSWORD, env })).code).toBe(0);
    expect(file().profiles.t).toMatchObject({ test_base_url: stub.baseUrl, test_credentials: { api_key: API_KEY, token: TOKEN } });
    expect(file().profiles.t.base_url).toBeUndefined();
    expect(file().profiles.t.token).toBeUndefined();
    // SHIP_BASE_URL is not copied into the profile.
    await ship(['--profile', 'e', 'login', '--api-key', API_KEY, '--username', USER.email, '--password-stdin'], { stdin: PASSWORD });
    expect(file().profiles.e.base_url).toBeUndefined();
  });

  it('--verbose traces contain neither the password, the API key nor the token', async () => {
    const r = await login(['--verbose']);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/POST/);
    noSecrets(r);
  });
});

describe('ship whoami', () => {
  it('shows profile, base URL, masked credentials with sources, user, and a valid token (exit 0)', async () => {
    await login();
    const r = await ship(['whoami']);
    expect(r.code).toBe(0);
    noSecrets(r);
    expect(r.stdout).toContain(`base URL\t${stub.baseUrl}  (env SHIP_BASE_URL)`);
    expect(r.stdout).toContain('API key\t****1111  (profile default (api_key))');
    expect(r.stdout).toContain('token\t****7d6c  (profile default (token))');
    expect(r.stdout).toContain('user\tDana Demo <dana@example.com> (MERCHANT_ADMIN)');
    expect(r.stdout).toContain('token status\tvalid');
    expect(stub.requests.at(-1)).toMatchObject({ method: 'GET', path: '/tokens' });
  });

  it('--json carries everything, masked', async () => {
    await login();
    const r = await ship(['whoami', '--json'], { env: { SHIP_TOKEN: TOKEN } });
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(doc).toMatchObject({
      profile: { value: 'default', source: 'default' },
      base_url: { value: stub.baseUrl, source: 'env', origin: 'SHIP_BASE_URL' },
      test_mode: { value: false },
      api_key: { masked: '****1111', source: 'profile', origin: 'api_key' },
      token: { masked: '****7d6c', source: 'env', origin: 'SHIP_TOKEN' },
      user: { email: USER.email },
      token_status: 'valid',
      token_valid: true,
    });
    noSecrets(r);
  });

  it('prints the facts and exits 4 when the server rejects the token', async () => {
    await login();
    const r = await ship(['whoami', '--json'], { env: { SHIP_TOKEN: 'revoked-token-0000' } });
    expect(r.code).toBe(4);
    expect(JSON.parse(r.stdout)).toMatchObject({ token_status: 'invalid', token_valid: false });
    expect(r.stderr).toMatch(/rejected/);
  });

  it('exits 4 when not logged in, without calling the server', async () => {
    const r = await ship(['whoami'], { env: { SHIP_API_KEY: API_KEY } });
    expect(r.code).toBe(4);
    expect(r.stdout).toContain('token\tnone');
    expect(r.stderr).toMatch(/not logged in/);
    expect(stub.requests).toHaveLength(0);
  });

  it('exits 1 when the server is unreachable, saying the status is unknown', async () => {
    await login();
    const port = await closedPort();
    const r = await ship(['whoami', '--timeout', '2'], { env: { SHIP_BASE_URL: `http://127.0.0.1:${port}/v1.2` } });
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('token status\tunknown');
  });

  it('a refused API key leaves the token\'s status unknown (it was never looked at), not invalid: exit 4', async () => {
    await login();
    stub.on('GET /tokens', { status: 401, body: { message: 'Unauthenticated: the API key supplied is not valid.', data: null } });
    const r = await ship(['whoami', '--json'], { env: { SHIP_API_KEY: 'old-key-0000' } });
    expect(r.code).toBe(4);
    expect(JSON.parse(r.stdout)).toMatchObject({ token_status: 'unknown', token_valid: null });
    expect(JSON.parse(r.stderr.trim().split('\n').at(-1)!).error.hint).toMatch(/^SHIP_API_KEY is set in the environment/);
  });
});

describe('live and test credentials are kept apart in a profile', () => {
  const TEST_KEY = 'test-api-key-SECRET-3333';
  const TEST_TOKEN = 'test-token-SECRET-5e4d3c2b';
  const TEST_USER = { id: 'u-9', user_type: 'MERCHANT_USER', first_name: 'Cid', last_name: 'Test', email: 'ci@example.com' };
  let testStub: StubServer;
  beforeEach(async () => {
    testStub = await startStub({
      'POST /tokens': (r) =>
        r.headers['x-service-api-key'] === TEST_KEY ? { body: { message: 'Login Successful', data: { token: TEST_TOKEN, user: TEST_USER } } } : { status: 401, body: { message: 'The API key supplied is not valid', data: null } },
      'GET /tokens': (r) => (r.headers['x-service-token'] === TEST_TOKEN ? { body: { message: 'Token valid', data: null } } : { status: 401, body: { message: 'Unauthenticated', data: null } }),
      'DELETE /tokens': { body: { message: 'Token deleted', data: null } },
    });
  });
  afterEach(() => testStub.close());
  // The profile's URLs, not SHIP_BASE_URL: the set follows the base URL the profile gives.
  const env = { SHIP_BASE_URL: '' };
  const configure = () =>
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ profiles: { default: { base_url: stub.baseUrl, test_base_url: testStub.baseUrl } } }));
  const testLogin = () => ship(['--test', 'login', '--api-key', TEST_KEY, '--username', TEST_USER.email, '--password-stdin'], { stdin: PASSWORD, env });

  it('`--test login` stores the test set beside the live one; plain commands keep sending the live credentials', async () => {
    configure();
    expect((await login([], { env })).code).toBe(0);
    const r = await testLogin();
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`on ${testStub.baseUrl}, profile default (test credentials; the live ones are kept)`);
    noSecrets(r);
    expect(file().profiles.default).toMatchObject({
      api_key: API_KEY,
      token: TOKEN,
      user: { email: USER.email },
      test_credentials: { api_key: TEST_KEY, token: TEST_TOKEN, user: { email: TEST_USER.email } },
    });

    const live = await ship(['whoami', '--json'], { env });
    expect(live.code, live.stderr).toBe(0);
    expect(JSON.parse(live.stdout)).toMatchObject({
      base_url: { value: stub.baseUrl, origin: 'base_url' },
      credential_set: { value: 'live' },
      api_key: { masked: '****1111', origin: 'api_key' },
      token: { masked: '****7d6c', origin: 'token' },
      user: { email: USER.email },
      token_status: 'valid',
    });
    expect(stub.requests.at(-1)!.headers['x-service-token']).toBe(TOKEN);

    const test = await ship(['--test', 'whoami'], { env });
    expect(test.code, test.stderr).toBe(0);
    expect(test.stdout).toContain('credentials\ttest  (test mode (--test))');
    expect(test.stdout).toContain('token\t****3c2b  (profile default (test_credentials.token))');
    expect(test.stdout).toContain('user\tCid Test <ci@example.com> (MERCHANT_USER)');
    expect(testStub.requests.at(-1)!.headers['x-service-token']).toBe(TEST_TOKEN);
    noSecrets(test);
  });

  it('`--test login` with --base-url the live base_url is refused: it would replace the live login', async () => {
    configure();
    await login([], { env });
    const r = await ship(['--test', '--base-url', stub.baseUrl, 'login', '--api-key', TEST_KEY, '--username', TEST_USER.email, '--password-stdin'], { stdin: PASSWORD, env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("is the profile's live base_url: this login would replace the live one");
    expect(file().profiles.default.token).toBe(TOKEN);
  });

  it('`--test logout` revokes and forgets the test token only; `logout` the live one only', async () => {
    configure();
    await login([], { env });
    await testLogin();
    const out = await ship(['--test', 'logout', '--json'], { env });
    expect(out.code, out.stderr).toBe(0);
    expect(JSON.parse(out.stdout)).toMatchObject({ credential_set: 'test', revoked: true, forgotten: true });
    expect(testStub.requests.at(-1)).toMatchObject({ method: 'DELETE', path: '/tokens' });
    expect(stub.requests.some((r) => r.method === 'DELETE')).toBe(false);
    expect(file().profiles.default).toMatchObject({ token: TOKEN, test_credentials: { api_key: TEST_KEY } });
    expect(file().profiles.default.test_credentials.token).toBeUndefined();
    expect((await ship(['whoami'], { env })).code).toBe(0);
    const none = await ship(['--test', 'whoami'], { env });
    expect(none.code).toBe(4);
    expect(none.stderr).toContain('hint: run `ship --test login`, or set SHIP_TOKEN');

    await testLogin();
    expect((await ship(['logout'], { env })).code).toBe(0);
    expect(file().profiles.default.token).toBeUndefined();
    expect(file().profiles.default.test_credentials.token).toBe(TEST_TOKEN);
    expect((await ship(['--test', 'whoami'], { env })).code).toBe(0);
  });

  it('a profile written before test credentials existed: test mode has none (it never sends the live ones), live works as before', async () => {
    configure();
    await login([], { env });
    const before = readFileSync(join(dir, 'config.json'), 'utf8');
    const r = await ship(['--test', 'services'], { env });
    expect(r.code).toBe(4);
    expect(r.stderr).toContain('error: no API key configured in the test credentials of profile default');
    expect(r.stderr).toContain("hint: set SHIP_API_KEY, or run `ship --test login` (it asks for the key; SHIP_API_KEY=KEY in a script)");
    expect(testStub.requests).toHaveLength(0);
    expect((await ship(['whoami'], { env })).code).toBe(0);
    expect(readFileSync(join(dir, 'config.json'), 'utf8')).toBe(before);
  });

  it('a rejected test token says to log in again in test mode', async () => {
    configure();
    await testLogin();
    testStub.on('GET /users', { status: 401, body: { message: 'Unauthenticated', data: null } });
    const r = await ship(['--test', 'users'], { env });
    expect(r.code).toBe(4);
    expect(r.stderr).toContain('hint: the API key or token of the test credentials was rejected; run `ship --test login`');
  });
});

describe('whoami with SHIP_TOKEN: whose token it is', () => {
  it('the cached user is shown only for the token it logged in with', async () => {
    await login();
    const same = JSON.parse((await ship(['whoami', '--json'], { env: { SHIP_TOKEN: TOKEN } })).stdout);
    expect(same).toMatchObject({ user: { email: USER.email }, user_source: 'profile' });
  });

  it('another token: the user the server names in GET /tokens, else "unknown", never the cached one', async () => {
    await login();
    const OTHER = 'other-token-SECRET-1a2b3c4d';
    stub.on('GET /tokens', (r) => (r.headers['x-service-token'] === OTHER ? { body: { message: 'Token valid', data: null } } : { status: 401, body: { message: 'no', data: null } }));
    const unknown = await ship(['whoami'], { env: { SHIP_TOKEN: OTHER } });
    expect(unknown.code).toBe(0);
    expect(unknown.stdout).toMatch(/^user\tunknown: the server does not say; the user cached in profile default \(Dana Demo <dana@example.com> \(MERCHANT_ADMIN\)\) logged in with another token than SHIP_TOKEN$/m);
    const doc = JSON.parse((await ship(['whoami', '--json'], { env: { SHIP_TOKEN: OTHER } })).stdout);
    expect(doc).toMatchObject({ user: null, user_source: null, user_note: expect.stringContaining('another token than SHIP_TOKEN') });

    stub.on('GET /tokens', { body: { message: 'Token valid', data: { active: true, user: { id: 'u-7', first_name: 'Olga', last_name: 'Other', email: 'olga@example.com', location: { id: 'l', code: 'W', name: 'N', address_line_1: 'x' } } } } });
    const named = await ship(['whoami'], { env: { SHIP_TOKEN: OTHER } });
    expect(named.stdout).toContain('user\tOlga Other <olga@example.com>  (from GET /tokens)');
    expect(named.stdout).not.toContain('Dana');
    const namedJson = JSON.parse((await ship(['whoami', '--json'], { env: { SHIP_TOKEN: OTHER } })).stdout);
    expect(namedJson).toMatchObject({ user: { email: 'olga@example.com', location: { code: 'W' } }, user_source: 'server' });
    expect(namedJson.user.location.address_line_1).toBeUndefined();
  });
});

describe('credentials from the environment win over the profile', () => {
  it('login warns that SHIP_TOKEN (and a different SHIP_API_KEY) will be used instead of what it stored', async () => {
    const r = await login([], { env: { SHIP_TOKEN: 'stale-token-SECRET-0000' } });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('warning: SHIP_TOKEN is set in the environment and wins over what was just stored: unset SHIP_TOKEN');
    expect(r.stderr).not.toContain('stale-token-SECRET');
    const both = await login([], { env: { SHIP_TOKEN: 'stale-token-SECRET-0000', SHIP_API_KEY: 'other-key-SECRET-2222' } });
    expect(both.stderr).toContain('warning: SHIP_API_KEY and SHIP_TOKEN are set in the environment and win over what was just stored: unset SHIP_API_KEY SHIP_TOKEN');
    // The same key in the environment as on the command line overrides nothing.
    const same = await login([], { env: { SHIP_API_KEY: API_KEY } });
    expect(same.stderr).not.toContain('warning');
    noSecrets(same);
  });

  it('a rejected SHIP_TOKEN is not mended by `ship login`: whoami and other commands say to set or unset it', async () => {
    await login();
    const env = { SHIP_TOKEN: 'stale-token-SECRET-0000' };
    const who = await ship(['whoami'], { env });
    expect(who.code).toBe(4);
    expect(who.stderr).toContain('error: the server rejected the API key or the token (401)');
    expect(who.stderr).toContain("hint: SHIP_TOKEN is set in the environment and wins over the profile, so `ship login` does not replace it: set it anew, or unset it to use the profile's");
    stub.on('GET /users', { status: 401, body: { message: 'Unauthenticated', data: null } });
    const users = await ship(['users', '--json'], { env });
    expect(users.code).toBe(4);
    expect(JSON.parse(users.stderr).error.hint).toMatch(/^SHIP_TOKEN is set in the environment/);
    // From the profile, the hint stays: log in again.
    const stored = await ship(['users']);
    expect(stored.code).toBe(4);
    expect(stored.stderr).toContain('hint: the API key or token was rejected; run `ship login`');
    // The stored token revoked (a logout elsewhere) while SHIP_API_KEY comes from the environment, as in CI:
    // the service says it is the token, which `ship login` replaces.
    stub.on('GET /users', { status: 401, body: { message: 'Unauthenticated: the token is not valid or has been revoked.', data: null } });
    const revoked = await ship(['users'], { env: { SHIP_API_KEY: API_KEY } });
    expect(revoked.code).toBe(4);
    expect(revoked.stderr).toContain('hint: the API key or token was rejected; run `ship login`');
  });
});

describe('credentials an HTTP header cannot carry', () => {
  it('an env or stored credential with a line break or a zero-width space: exit 2 naming where it came from, nothing sent', async () => {
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ profiles: { default: { api_key: API_KEY, token: `${TOKEN}\u200b` } } }));
    const stored = await ship(['services']);
    expect(stored.code).toBe(2);
    expect(stored.stderr).toMatch(/token of profile default: has the character U\+200B at position 29/);
    expect(stored.stderr).toMatch(/hint: run `ship login`/);
    const env = await ship(['users', '--json'], { env: { SHIP_TOKEN: 'tok-SECRET-1\ntok-SECRET-2' } });
    expect(env.code).toBe(2);
    expect(JSON.parse(env.stderr).error).toMatchObject({ type: 'UsageError', message: expect.stringMatching(/^SHIP_TOKEN: has a line break at position 13/), hint: 'set SHIP_TOKEN again without it' });
    expect(stub.requests).toHaveLength(0);
    noSecrets(stored);
    for (const r of [stored, env]) expect(r.stdout + r.stderr).not.toContain('SECRET');
  });

  it('login refuses such an --api-key before sending; logout forgets such a token without a request', async () => {
    const r = await ship(['login', '--api-key', `${API_KEY}\u200b`, '--username', USER.email, '--password-stdin'], { stdin: `${PASSWORD}\n` });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--api-key: has the character U\+200B at position 25/);
    expect(stub.requests).toHaveLength(0);
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ profiles: { default: { api_key: API_KEY, token: `${TOKEN}\u0001` } } }));
    const out = await ship(['logout']);
    expect(out.code).toBe(0);
    expect(out.stderr).toMatch(/warning: the token \(token\) has the character U\+0001 .*forgetting it here only/);
    expect(stub.requests).toHaveLength(0);
    expect(file().profiles.default).toEqual({ api_key: API_KEY });
    noSecrets(out);
  });
});

describe('ship logout', () => {
  it('revokes the token on the server and forgets it, keeping the API key', async () => {
    await login();
    const r = await ship(['logout']);
    expect(r.code).toBe(0);
    const del = stub.requests.at(-1)!;
    expect(del).toMatchObject({ method: 'DELETE', path: '/tokens' });
    expect(del.headers['x-service-token']).toBe(TOKEN);
    expect(file().profiles.default).toEqual({ api_key: API_KEY });
    noSecrets(r);
  });

  it('forgets a token the server already rejects, with a warning (exit 0)', async () => {
    await login();
    stub.on('DELETE /tokens', { status: 401, body: { message: 'Unauthenticated', data: null } });
    const r = await ship(['logout', '--json']);
    expect(r.code).toBe(0);
    // Under --json the warning is a JSON line on stderr.
    expect(JSON.parse(r.stderr.trimEnd().split('\n')[0]).warning.message).toMatch(/already invalid/);
    expect(JSON.parse(r.stdout)).toEqual({ profile: 'default', base_url: stub.baseUrl, credential_set: 'live', revoked: false, forgotten: true });
    expect(file().profiles.default.token).toBeUndefined();
  });

  it('keeps the token when the 401 says the API key is what was refused: the token was never looked at (exit 4)', async () => {
    await login();
    stub.on('DELETE /tokens', { status: 401, body: { message: 'Unauthenticated: the API key supplied is not valid.', data: null } });
    const r = await ship(['logout'], { env: { SHIP_API_KEY: 'old-key-0000' } });
    expect(r.code).toBe(4);
    expect(r.stderr).not.toMatch(/already invalid/);
    expect(r.stderr).toMatch(/the API key \(SHIP_API_KEY\) was refused, so the token was not revoked and is still stored/);
    expect(file().profiles.default.token).toBe(TOKEN);
    noSecrets(r);
  });

  it('keeps the token when the server refuses to revoke it (403): it may still be valid (exit 4)', async () => {
    await login();
    stub.on('DELETE /tokens', { status: 403, body: { message: 'Insufficient privileges', data: null } });
    const r = await ship(['logout']);
    expect(r.code).toBe(4);
    expect(r.stderr).not.toMatch(/already invalid/);
    expect(r.stderr).toMatch(/the token is still stored \(and may still be valid on the server\)/);
    expect(file().profiles.default.token).toBe(TOKEN);
    noSecrets(r);
  });

  it('keeps the token when the server fails, so logout can be retried (exit 1)', async () => {
    await login();
    stub.on('DELETE /tokens', { status: 500, body: { message: 'boom', data: null } });
    const r = await ship(['logout']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/retry `ship logout`/);
    expect(file().profiles.default.token).toBe(TOKEN);
  });

  it('is a no-op when not logged in', async () => {
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ profiles: { default: { api_key: API_KEY } } }));
    const r = await ship(['logout']);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/Not logged in/);
    expect(stub.requests).toHaveLength(0);
  });
});
