import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runShip } from '../../helpers/run.js';

const API_KEY = 'live-api-key-SECRET-7788';
const TOKEN = 'user-token-SECRET-ab12cd34';

function setup() {
  const dir = mkdtempSync(join(tmpdir(), 'ship-cfg-'));
  const env = { SHIP_CONFIG_DIR: dir };
  const ship = (args: string[], extra: { env?: Record<string, string>; stdin?: string; tty?: boolean } = {}) =>
    runShip(args, { ...extra, env: { ...env, ...extra.env } });
  const file = () => JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8'));
  return { dir, ship, file };
}

describe('ship config', () => {
  it('set/get round-trips, validating values, and the file is 0600', async () => {
    const { dir, ship, file } = setup();
    expect((await ship(['config', 'set', 'base_url', 'https://api.example.com/v1.2/'])).code).toBe(0);
    const got = await ship(['config', 'get', 'base_url']);
    expect(got).toMatchObject({ code: 0, stdout: 'https://api.example.com/v1.2\n' });
    expect(file().profiles.default.base_url).toBe('https://api.example.com/v1.2');
    if (process.platform !== 'win32') expect(statSync(join(dir, 'config.json')).mode & 0o777).toBe(0o600);

    const bad = await ship(['config', 'set', 'label_format', 'GIF']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/ZPL, PDF, PNG/);

    const unknown = await ship(['config', 'set', 'colour', 'red']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/unknown config key "colour"/);
    expect(unknown.stderr).toMatch(/valid keys: base_url, test_base_url, api_key, token/);
  });

  it('warns when a base URL has no version segment (every request would answer 404), and keeps it', async () => {
    const { ship, file } = setup();
    const r = await ship(['config', 'set', 'base_url', 'https://api.example.com']);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('base_url https://api.example.com has no version segment: the API lives under /v1.2 (e.g. https://api.example.com/v1.2)');
    expect(file().profiles.default.base_url).toBe('https://api.example.com');
    const ok = await ship(['config', 'set', 'test_base_url', 'https://test.example.com/v1.2']);
    expect(ok.stderr).not.toContain('version segment');
  });

  it('refuses plain http to a remote host unless --insecure', async () => {
    const { ship, file } = setup();
    const r = await ship(['config', 'set', 'base_url', 'http://api.example.com/v1.2']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/plain http/);
    expect(r.stderr).toMatch(/--insecure/);
    expect((await ship(['--insecure', 'config', 'set', 'base_url', 'http://api.example.com/v1.2'])).code).toBe(0);
    expect(file().profiles.default.base_url).toBe('http://api.example.com/v1.2');
  });

  it('never prints a secret in full: set, get, list, json', async () => {
    const { ship, file } = setup();
    const set = await ship(['config', 'set', 'api_key', '-'], { stdin: `${API_KEY}\n` });
    expect(set.code).toBe(0);
    expect(file().profiles.default.api_key).toBe(API_KEY);
    await ship(['config', 'set', 'token', '-'], { stdin: TOKEN });
    const outputs = [
      set,
      await ship(['config', 'get', 'api_key']),
      await ship(['config', 'get', 'token', '--json']),
      await ship(['config', 'list']),
      await ship(['config', 'list', '--json']),
    ];
    for (const o of outputs) {
      expect(o.code).toBe(0);
      expect(o.stdout + o.stderr).not.toContain(API_KEY);
      expect(o.stdout + o.stderr).not.toContain(TOKEN);
    }
    expect(outputs[1].stdout).toBe('****7788\n');
    expect(JSON.parse(outputs[2].stdout)).toEqual({ profile: 'default', key: 'token', value: '****cd34', source: 'profile', origin: 'token', credential_set: 'live' });
  });

  it('nor a password or query in a base URL given by env or flag (refused, and shown without them)', async () => {
    const { ship } = setup();
    const url = 'https://bob:hunter2pass@api.example.com/v1.2';
    for (const r of [await ship(['config', 'list'], { env: { SHIP_BASE_URL: url } }), await ship(['--base-url', url, 'config', 'list', '--json'])]) {
      expect(r.stdout + r.stderr).not.toContain('hunter2pass');
      expect(r.stdout).toContain('bob:****@api.example.com');
    }
    for (const bad of ['https://bob:hunter2pass@127.0.0.1:99999/v1.2', 'https://api.example.com/v1.2?api_key=hunter2pass']) {
      const r = await ship(['--base-url', bad, 'services']);
      expect(r.code).toBe(2);
      expect(r.stderr).not.toContain('hunter2pass');
    }
  });

  it('a hand-edited secret that is not a string is masked too', async () => {
    const { dir, ship, file } = setup();
    await ship(['config', 'set', 'api_key', '-'], { stdin: `${API_KEY}\n` });
    const { writeFileSync } = await import('node:fs');
    const doc = file();
    doc.profiles.default.api_key = 918273645546372;
    doc.profiles.default.token = ['tok-list-secret-99'];
    writeFileSync(join(dir, 'config.json'), JSON.stringify(doc));
    for (const r of [await ship(['config', 'get', 'api_key']), await ship(['config', 'list', '--json'])]) {
      expect(r.stdout).not.toContain('918273645546372');
      expect(r.stdout).not.toContain('tok-list-secret');
    }
  });

  it('a secret is never taken from the command line (shell history, process list): exit 2, nothing stored', async () => {
    const { ship, file } = setup();
    for (const key of ['token', 'api_key']) {
      const r = await ship(['config', 'set', key, 'abcdefgh123']);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`ship config set ${key} -`);
      expect(r.stderr).not.toContain('abcdefgh123');
    }
    // Refused before the config file is opened for writing: none was created.
    expect(() => file()).toThrow(/ENOENT/);
  });

  it('a secret read from stdin must be sendable in an HTTP header: a space or a zero-width space is refused', async () => {
    const { ship, file } = setup();
    const inner = await ship(['config', 'set', 'api_key', '-'], { stdin: 'abc def-SECRET\n' });
    expect(inner.code).toBe(2);
    expect(inner.stderr).toMatch(/api_key: has a space at position 4/);
    const zwsp = await ship(['config', 'set', 'token', '-'], { stdin: `${TOKEN}\u200b` });
    expect(zwsp.code).toBe(2);
    expect(zwsp.stderr).toMatch(/token: has the character U\+200B at position 27/);
    for (const r of [inner, zwsp]) expect(r.stderr).not.toContain('SECRET');
    expect(() => file()).toThrow(/ENOENT/);
  });

  it('a secret left out is prompted for only on a terminal; otherwise the error names how to supply it', async () => {
    const { ship } = setup();
    const r = await ship(['config', 'set', 'api_key']);
    expect(r.code).toBe(2);
    // Only stdin: a secret on the command line is refused, so the hint must not offer it.
    expect(r.stderr).toContain(`hint: supply it with "-" to read it from stdin: printf '%s' "$SECRET" | ship config set api_key -`);
    expect(r.stderr).not.toContain('VALUE argument');
  });

  it('list shows each value with its source, and env overrides with what they override', async () => {
    const { ship } = setup();
    await ship(['config', 'set', 'api_key', '-'], { stdin: API_KEY });
    await ship(['config', 'set', 'base_url', 'https://api.example.com/v1.2']);
    await ship(['config', 'set', 'printers.dock', 'tcp://10.0.0.50:9100']);
    const r = await ship(['config', 'list', '--json'], { env: { SHIP_API_KEY: 'env-key-xyz-9999', SHIP_TIMEOUT: '5' } });
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(doc.profile).toEqual({ value: 'default', source: 'default', origin: null });
    expect(doc.settings.base_url).toEqual({ value: 'https://api.example.com/v1.2', source: 'profile', origin: 'base_url' });
    expect(doc.settings.api_key).toEqual({ value: '****9999', source: 'env', origin: 'SHIP_API_KEY', overrides: '****7788' });
    expect(doc.settings.timeout).toEqual({ value: 5, source: 'env', origin: 'SHIP_TIMEOUT' });
    expect(doc.settings['printers.dock']).toMatchObject({ value: 'tcp://10.0.0.50:9100', source: 'profile' });
    expect(doc.settings.token).toBeUndefined();

    // Seconds as a number from every source (the profile's and the default are numbers); text that is no
    // timeout is shown as given.
    const flag = JSON.parse((await ship(['--timeout', '2.5', 'config', 'list', '--json'])).stdout);
    expect(flag.settings.timeout).toEqual({ value: 2.5, source: 'flag', origin: '--timeout' });
    const badRun = await ship(['config', 'list', '--json'], { env: { SHIP_TIMEOUT: 'soon' } });
    const bad = JSON.parse(badRun.stdout);
    expect(bad.settings.timeout).toEqual({ value: 'soon', source: 'env', origin: 'SHIP_TIMEOUT' });
    // … and said to be wrong (on stderr), since every other command refuses it.
    expect(JSON.parse(badRun.stderr).warning.message).toMatch(/^SHIP_TIMEOUT: "soon" is not a timeout.*other commands refuse it/);
    const badGet = await ship(['config', 'get', 'timeout'], { env: { SHIP_TIMEOUT: 'soon' } });
    expect([badGet.code, badGet.stdout.trim()]).toEqual([0, 'soon']);
    expect(badGet.stderr).toMatch(/warning: SHIP_TIMEOUT: "soon" is not a timeout/);

    const text = await ship(['config', 'list']);
    expect(text.stdout).toMatch(/^api_key\t\*{4}7788\tprofile default \(api_key\)$/m);
    expect(text.stdout).toMatch(/^timeout\t30\tdefault$/m);
  });

  it('get, set and unset of api_key, token and user act on the credential set of the base URL in use (--test: the test set)', async () => {
    const { ship, file } = setup();
    const TEST_TOKEN = 'test-token-SECRET-ef56gh78';
    await ship(['config', 'set', 'test_base_url', 'https://test.example.com/v1.2']);
    await ship(['config', 'set', 'token', '-'], { stdin: TOKEN });
    const set = await ship(['--test', 'config', 'set', 'token', '-', '--json'], { stdin: TEST_TOKEN });
    expect(set.code, set.stderr).toBe(0);
    expect(JSON.parse(set.stdout)).toEqual({ profile: 'default', key: 'token', value: '****gh78', credential_set: 'test' });
    // Under --json the success line is a JSON line too.
    expect(JSON.parse(set.stderr)).toEqual({ info: { message: 'Set token = ****gh78 in profile default (test credentials)' } });
    expect(file().profiles.default).toMatchObject({ token: TOKEN, test_credentials: { token: TEST_TOKEN } });
    expect((await ship(['config', 'get', 'token'])).stdout).toBe('****cd34\n');
    expect((await ship(['--test', 'config', 'get', 'token'])).stdout).toBe('****gh78\n');
    // SHIP_TEST and a --base-url that is the profile's test_base_url pick the same set.
    expect((await ship(['config', 'get', 'token'], { env: { SHIP_TEST: '1' } })).stdout).toBe('****gh78\n');
    expect((await ship(['--base-url', 'https://test.example.com/v1.2', 'config', 'get', 'token'])).stdout).toBe('****gh78\n');
    expect((await ship(['--test', 'config', 'get', 'api_key'])).stderr).toContain('api_key is not set in profile default (test credentials)');

    const unset = await ship(['--test', 'config', 'unset', 'token']);
    expect(unset.code).toBe(0);
    expect(unset.stderr).toContain('Removed token from profile default (test credentials)');
    expect(file().profiles.default).toEqual({ test_base_url: 'https://test.example.com/v1.2', token: TOKEN });
    for (const r of [set, unset]) expect(r.stdout + r.stderr).not.toContain(TEST_TOKEN);
    // Which set a malformed SHIP_TEST means cannot be told: refused for credential keys only.
    const bad = await ship(['config', 'get', 'token'], { env: { SHIP_TEST: 'maybe' } });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('SHIP_TEST: "maybe" is not a switch');
    const plain = await ship(['config', 'get', 'test_base_url', '--json'], { env: { SHIP_TEST: 'maybe' } });
    expect(JSON.parse(plain.stdout)).toEqual({ profile: 'default', key: 'test_base_url', value: 'https://test.example.com/v1.2', source: 'profile', origin: 'test_base_url' });
  });

  it('get prints the value in effect as list resolves it (flag > env > profile > default), and --json says where it came from', async () => {
    const { ship } = setup();
    // Nothing in the profile: an env var alone supplies the value (get printed nothing).
    const envOnly = await ship(['config', 'get', 'timeout'], { env: { SHIP_TIMEOUT: '7' } });
    expect(envOnly).toMatchObject({ code: 0, stdout: '7\n', stderr: 'timeout from env SHIP_TIMEOUT\n' });
    const url = 'https://api.example.com/v1.2';
    expect((await ship(['config', 'get', 'base_url'], { env: { SHIP_BASE_URL: url } })).stdout).toBe(`${url}\n`);
    const envJson = await ship(['config', 'get', 'base_url', '--json'], { env: { SHIP_BASE_URL: url } });
    expect(envJson.stderr).toBe('');
    expect(JSON.parse(envJson.stdout)).toEqual({ profile: 'default', key: 'base_url', value: url, source: 'env', origin: 'SHIP_BASE_URL' });
    // Consistent with `config list --json`, entry for entry.
    const listed = JSON.parse((await ship(['config', 'list', '--json'], { env: { SHIP_BASE_URL: url, SHIP_TIMEOUT: '7' } })).stdout).settings;
    for (const key of ['base_url', 'timeout']) {
      const got = JSON.parse((await ship(['config', 'get', key, '--json'], { env: { SHIP_BASE_URL: url, SHIP_TIMEOUT: '7' } })).stdout);
      expect({ value: got.value, source: got.source, origin: got.origin }).toEqual(listed[key]);
    }
    // The default when nothing supplies it; a key without a default is still unset (nothing on stdout).
    const dflt = await ship(['config', 'get', 'timeout', '--json']);
    expect(JSON.parse(dflt.stdout)).toEqual({ profile: 'default', key: 'timeout', value: 30, source: 'default', origin: null });
    expect((await ship(['config', 'get', 'timeout'])).stdout).toBe('30\n');
    const none = await ship(['config', 'get', 'label_format', '--json']);
    expect(JSON.parse(none.stdout)).toEqual({ profile: 'default', key: 'label_format', value: null, source: null, origin: null });
    expect(await ship(['config', 'get', 'label_format'])).toMatchObject({ code: 0, stdout: '', stderr: 'label_format is not set in profile default\n' });

    // Stored in the profile: the env var and then the flag win over it, and say which value they override.
    await ship(['config', 'set', 'timeout', '9']);
    const stored = await ship(['config', 'get', 'timeout']);
    expect(stored).toMatchObject({ stdout: '9\n', stderr: '' });
    const overridden = await ship(['config', 'get', 'timeout'], { env: { SHIP_TIMEOUT: '7' } });
    expect(overridden).toMatchObject({ stdout: '7\n', stderr: 'timeout from env SHIP_TIMEOUT (overrides profile value 9)\n' });
    const flag = await ship(['--timeout', '5', 'config', 'get', 'timeout', '--json'], { env: { SHIP_TIMEOUT: '7' } });
    expect(JSON.parse(flag.stdout)).toEqual({ profile: 'default', key: 'timeout', value: 5, source: 'flag', origin: '--timeout', overrides: 9 });
    // --quiet: the value alone.
    expect(await ship(['config', 'get', 'timeout', '--quiet'], { env: { SHIP_TIMEOUT: '7' } })).toMatchObject({ stdout: '7\n', stderr: '' });

    // Secrets from the environment are masked, in the set in use.
    const key = await ship(['config', 'get', 'api_key', '--json'], { env: { SHIP_API_KEY: API_KEY } });
    expect(key.stdout).not.toContain(API_KEY);
    expect(JSON.parse(key.stdout)).toEqual({ profile: 'default', key: 'api_key', value: '****7788', source: 'env', origin: 'SHIP_API_KEY', credential_set: 'live' });
  });

  it('list shows both credential sets masked, the one in use taking the env overrides', async () => {
    const { ship, dir } = setup();
    const TEST_KEY = 'test-api-key-SECRET-4455';
    const TEST_TOKEN = 'test-token-SECRET-ef56gh78';
    writeFileSync(
      join(dir, 'config.json'),
      JSON.stringify({
        profiles: {
          default: {
            base_url: 'https://api.example.com/v1.2',
            test_base_url: 'https://test.example.com/v1.2',
            api_key: API_KEY,
            token: TOKEN,
            user: { email: 'cron@example.com' },
            test_credentials: { api_key: TEST_KEY, token: TEST_TOKEN, user: { email: 'ci@example.com' } },
          },
        },
      }),
    );
    const live = await ship(['config', 'list', '--json']);
    const doc = JSON.parse(live.stdout);
    expect(doc.credential_set).toEqual({ value: 'live', why: 'the live base URL' });
    expect(doc.settings).toMatchObject({
      api_key: { value: '****7788', source: 'profile', origin: 'api_key' },
      token: { value: '****cd34', source: 'profile', origin: 'token' },
      user: { value: { email: 'cron@example.com' } },
      'test_credentials.api_key': { value: '****4455', source: 'profile', origin: 'test_credentials.api_key' },
      'test_credentials.token': { value: '****gh78', source: 'profile', origin: 'test_credentials.token' },
      'test_credentials.user': { value: { email: 'ci@example.com' } },
    });

    const test = await ship(['--test', 'config', 'list', '--json'], { env: { SHIP_TOKEN: 'env-token-SECRET-0909' } });
    const tdoc = JSON.parse(test.stdout);
    expect(tdoc.credential_set).toEqual({ value: 'test', why: 'test mode (--test)' });
    expect(tdoc.settings.token).toEqual({ value: '****cd34', source: 'profile', origin: 'token' });
    expect(tdoc.settings['test_credentials.token']).toEqual({ value: '****0909', source: 'env', origin: 'SHIP_TOKEN', overrides: '****gh78' });

    const text = await ship(['--test', 'config', 'list']);
    expect(text.stderr).toContain('credentials in use: the test set (test mode (--test))');
    expect(text.stdout).toMatch(/^test_credentials\.api_key\t\*{4}4455\tprofile default \(test_credentials\.api_key\)$/m);
    expect(text.stdout).toMatch(/^test_credentials\.user\tci@example\.com\tprofile default \(test_credentials\.user\)$/m);
    for (const r of [live, test, text]) {
      for (const secret of [API_KEY, TOKEN, TEST_KEY, TEST_TOKEN, 'env-token-SECRET-0909']) expect(r.stdout + r.stderr).not.toContain(secret);
    }
  });

  it('profiles: --profile and SHIP_PROFILE pick one, `use` switches the current one', async () => {
    const { ship, file } = setup();
    await ship(['--profile', 'staging', 'config', 'set', 'test_base_url', 'https://test.example.com/v1.2']);
    expect(file().profiles.staging.test_base_url).toBe('https://test.example.com/v1.2');
    expect((await ship(['config', 'get', 'test_base_url'], { env: { SHIP_PROFILE: 'staging' } })).stdout).toBe('https://test.example.com/v1.2\n');
    expect((await ship(['config', 'get', 'test_base_url'])).stdout).toBe('');

    const use = await ship(['config', 'use', 'staging']);
    expect(use.code).toBe(0);
    expect(file().current_profile).toBe('staging');
    expect((await ship(['config', 'get', 'test_base_url'])).stdout).toBe('https://test.example.com/v1.2\n');
    const profiles = await ship(['config', 'profiles', '--json']);
    expect(JSON.parse(profiles.stdout)).toEqual([
      { name: 'staging', current: true, base_url: null, logged_in: false, user: null, test_logged_in: false },
    ]);
    expect((await ship(['config', 'use', 'bad.name'])).code).toBe(2);
    expect((await ship(['--profile', 'a.b', 'config', 'list'])).code).toBe(2);
    // A name no profile has is a typo unless --create says otherwise.
    const typo = await ship(['config', 'use', 'stagign']);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain('config use: no profile "stagign" (profiles: staging)');
    expect(typo.stderr).toContain('ship config use stagign --create');
    expect(file().current_profile).toBe('staging');
    // A command that needs credentials under a --profile or SHIP_PROFILE no profile has: the name is the problem.
    const missing = await ship(['--profile', 'stagign', 'services']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('--profile: no profile "stagign" (profiles: staging)');
    const fromEnv = await ship(['services'], { env: { SHIP_PROFILE: 'prod' } });
    expect(fromEnv.stderr).toContain('SHIP_PROFILE: no profile "prod"');
    const created = await ship(['config', 'use', 'eu', '--create']);
    expect(created.code).toBe(0);
    expect(created.stderr).toContain('Now using profile eu (new and empty');
    expect(file().current_profile).toBe('eu');
  });

  it('get, list, unset, whoami and logout under a --profile or SHIP_PROFILE no profile has: exit 2 naming the profile, not "not set"', async () => {
    const { ship, file } = setup();
    await ship(['--profile', 'staging', 'config', 'set', 'timeout', '5']);
    for (const args of [['config', 'get', 'base_url'], ['config', 'list'], ['config', 'unset', 'timeout'], ['whoami'], ['logout']]) {
      const r = await ship(['--profile', 'stagign', ...args]);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toContain('--profile: no profile "stagign" (profiles: staging)');
      expect(r.stdout).toBe('');
      const env = await ship(['--json', ...args], { env: { SHIP_PROFILE: 'prod' } });
      expect(env.code, args.join(' ')).toBe(2);
      expect(JSON.parse(env.stderr).error.message).toBe('SHIP_PROFILE: no profile "prod" (profiles: staging)');
    }
    // Credentials from the environment need no profile: whoami still works under an unknown name.
    expect((await ship(['--profile', 'stagign', 'whoami', '--json'], { env: { SHIP_API_KEY: API_KEY, SHIP_TOKEN: TOKEN, SHIP_BASE_URL: 'http://127.0.0.1:9/v1.2' } })).code).toBe(1);
    // …but not the base URL: a mistyped profile name would send them to the built-in default URL instead.
    for (const args of [['whoami'], ['services'], ['track', 'X-1']]) {
      const typoed = await ship(['--profile', 'stagign', ...args], { env: { SHIP_API_KEY: API_KEY, SHIP_TOKEN: TOKEN } });
      expect(typoed.code, args.join(' ')).toBe(2);
      expect(typoed.stderr).toContain('--profile: no profile "stagign" (profiles: staging)');
    }
    // "default" is what a fresh install uses: never unknown.
    expect((await ship(['--profile', 'default', 'config', 'get', 'base_url'])).code).toBe(0);
    // set is how a profile starts: it says so.
    const created = await ship(['--profile', 'eu', 'config', 'set', 'timeout', '9']);
    expect(created.code).toBe(0);
    expect(created.stderr).toContain('Set timeout = 9 in profile eu (a new profile)');
    expect((await ship(['--profile', 'eu', 'config', 'set', 'timeout', '8'])).stderr).not.toContain('new profile');
    expect(file().profiles).toEqual({ staging: { timeout: 5 }, eu: { timeout: 8 } });
  });

  it('a hand-edited base URL with a password or a key in its query is shown masked by get and profiles; set on default makes no remark', async () => {
    const { dir, ship } = setup();
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ profiles: { default: { base_url: 'https://bob:pw-SECRET@api.example.com/v1.2', test_base_url: 'https://t.example.com/v1.2?api_key=SECRET' } } }));
    const get = await ship(['config', 'get', 'base_url']);
    expect(get.stdout).toBe('https://bob:****@api.example.com/v1.2\n');
    expect((await ship(['config', 'get', 'test_base_url', '--json'])).stdout).toContain('"value": "https://t.example.com/v1.2?****"');
    const profiles = await ship(['config', 'profiles', '--json']);
    expect(JSON.parse(profiles.stdout)[0].base_url).toBe('https://bob:****@api.example.com/v1.2');
    for (const r of [get, profiles]) expect(r.stdout + r.stderr).not.toContain('SECRET');
    expect((await ship(['config', 'set', 'timeout', '7'])).stderr).toBe('✓ Set timeout = 7 in profile default\n');
  });

  it('unset removes a key; path prints the file path', async () => {
    const { dir, ship, file } = setup();
    await ship(['config', 'set', 'printer', 'tcp://10.0.0.50:9100']);
    const u = await ship(['config', 'unset', 'printer', '--json']);
    expect(JSON.parse(u.stdout)).toEqual({ profile: 'default', key: 'printer', removed: true });
    expect(file().profiles.default.printer).toBeUndefined();
    expect(JSON.parse((await ship(['config', 'unset', 'printer', '--json'])).stdout).removed).toBe(false);
    expect((await ship(['config', 'path'])).stdout).toBe(join(dir, 'config.json') + '\n');
  });

  it('warns when setting a default printer name that has no printers entry', async () => {
    const { ship } = setup();
    const r = await ship(['config', 'set', 'printer', 'dock']);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/no printers\.dock entry yet/);
  });
});
