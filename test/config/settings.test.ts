import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { GlobalOptions } from '../../src/context.js';
import { UsageError } from '../../src/errors.js';
import { chooseCredentialSet, DEFAULT_BASE_URL, describeSource, rejectedFromEnvHint, renewCredentials, resolveSettings } from '../../src/config/settings.js';
import { openConfig, type Profile } from '../../src/config/store.js';

/** A store whose selected profile holds `profile`, resolved with `env` and `globals`. */
async function resolveWith(opts: {
  profile?: Partial<Record<keyof Profile, string>>;
  /** The profile's test credential set. */
  testSet?: { api_key?: string; token?: string };
  env?: Record<string, string>;
  globals?: GlobalOptions;
}) {
  const dir = mkdtempSync(join(tmpdir(), 'ship-settings-'));
  const env = { SHIP_CONFIG_DIR: dir, ...opts.env };
  const globals = opts.globals ?? {};
  const writer = await openConfig({ env, globals });
  for (const [k, v] of Object.entries(opts.profile ?? {})) writer.set(k, v as string, { insecure: true, profile: writer.selected.name });
  for (const [k, v] of Object.entries(opts.testSet ?? {})) writer.set(k, v, { profile: writer.selected.name, set: 'test' });
  const store = await openConfig({ env, globals });
  return resolveSettings({ env, globals, store });
}

const LIVE = 'https://live.example.com/v1.2';
const TEST = 'https://test.example.com/v1.2';
const ENV_URL = 'https://env.example.com/v1.2';
const FLAG_URL = 'https://flag.example.com/v1.2';

describe('base URL precedence: --base-url > SHIP_BASE_URL > profile (test_base_url in test mode) > default', () => {
  it.each([
    ['flag wins over everything', { globals: { baseUrl: FLAG_URL, test: true }, env: { SHIP_BASE_URL: ENV_URL }, profile: { base_url: LIVE, test_base_url: TEST } }, FLAG_URL, 'flag', '--base-url'],
    ['env over profile', { env: { SHIP_BASE_URL: ENV_URL }, profile: { base_url: LIVE } }, ENV_URL, 'env', 'SHIP_BASE_URL'],
    ['env over test profile', { env: { SHIP_BASE_URL: ENV_URL, SHIP_TEST: '1' }, profile: { test_base_url: TEST } }, ENV_URL, 'env', 'SHIP_BASE_URL'],
    ['profile base_url', { profile: { base_url: LIVE, test_base_url: TEST } }, LIVE, 'profile', 'base_url'],
    ['profile test_base_url with --test', { globals: { test: true }, profile: { base_url: LIVE, test_base_url: TEST } }, TEST, 'profile', 'test_base_url'],
    ['profile test_base_url with SHIP_TEST=1', { env: { SHIP_TEST: '1' }, profile: { base_url: LIVE, test_base_url: TEST } }, TEST, 'profile', 'test_base_url'],
    ['SHIP_TEST=0 is live', { env: { SHIP_TEST: '0' }, profile: { base_url: LIVE, test_base_url: TEST } }, LIVE, 'profile', 'base_url'],
    ['default is the sandbox', {}, DEFAULT_BASE_URL, 'default', undefined],
    ['empty env var counts as unset', { env: { SHIP_BASE_URL: '' }, profile: { base_url: LIVE } }, LIVE, 'profile', 'base_url'],
  ] as const)('%s', async (_name, input, value, source, origin) => {
    const s = await resolveWith(input as Parameters<typeof resolveWith>[0]);
    expect(s.baseUrl).toEqual({ value, source, origin });
  });

  it('test mode without a test URL is a usage error naming the command that fixes it', async () => {
    const err = await resolveWith({ globals: { test: true }, profile: { base_url: LIVE } }).catch((e) => e);
    expect(err).toBeInstanceOf(UsageError);
    expect(err.hint).toContain('ship config set test_base_url URL');
  });

  it('test mode is reported with its source', async () => {
    expect((await resolveWith({ globals: { test: true }, profile: { test_base_url: TEST } })).testMode).toEqual({ value: true, source: 'flag', origin: '--test' });
    expect((await resolveWith({ env: { SHIP_TEST: 'true' }, profile: { test_base_url: TEST } })).testMode).toEqual({ value: true, source: 'env', origin: 'SHIP_TEST' });
    expect((await resolveWith({})).testMode).toEqual({ value: false, source: 'default' });
    await expect(resolveWith({ env: { SHIP_TEST: 'maybe' } })).rejects.toThrow(/SHIP_TEST/);
  });

  it('refuses plain http to a non-loopback host from any source unless --insecure', async () => {
    await expect(resolveWith({ globals: { baseUrl: 'http://api.example.com/v1.2' } })).rejects.toThrow(/--base-url.*plain http/);
    await expect(resolveWith({ env: { SHIP_BASE_URL: 'http://api.example.com/v1.2' } })).rejects.toThrow(/SHIP_BASE_URL.*plain http/);
    await expect(resolveWith({ profile: { base_url: 'http://api.example.com/v1.2' } })).rejects.toThrow(/base_url of profile default.*plain http/);
    const ok = await resolveWith({ globals: { insecure: true }, profile: { base_url: 'http://api.example.com/v1.2/' } });
    expect(ok.baseUrl.value).toBe('http://api.example.com/v1.2');
    const loop = await resolveWith({ globals: { baseUrl: 'http://localhost:9/v1.2/' } });
    expect(loop.baseUrl.value).toBe('http://localhost:9/v1.2');
  });
});

describe('credentials: env > profile > none', () => {
  it.each([
    ['env over profile', { env: { SHIP_API_KEY: 'env-key-0001', SHIP_TOKEN: 'env-tok-0001' }, profile: { api_key: 'prof-key-0001', token: 'prof-tok-0001' } }, ['env-key-0001', 'env', 'SHIP_API_KEY'], ['env-tok-0001', 'env', 'SHIP_TOKEN']],
    ['profile', { profile: { api_key: 'prof-key-0001', token: 'prof-tok-0001' } }, ['prof-key-0001', 'profile', 'api_key'], ['prof-tok-0001', 'profile', 'token']],
    ['mixed', { env: { SHIP_TOKEN: 'env-tok-0001' }, profile: { api_key: 'prof-key-0001' } }, ['prof-key-0001', 'profile', 'api_key'], ['env-tok-0001', 'env', 'SHIP_TOKEN']],
  ] as const)('%s', async (_n, input, key, tok) => {
    const s = await resolveWith(input as Parameters<typeof resolveWith>[0]);
    expect(s.apiKey).toEqual({ value: key[0], source: key[1], origin: key[2] });
    expect(s.token).toEqual({ value: tok[0], source: tok[1], origin: tok[2] });
  });
  it('none', async () => {
    const s = await resolveWith({ env: { SHIP_API_KEY: '' } });
    expect(s.apiKey).toBeUndefined();
    expect(s.token).toBeUndefined();
  });
});

describe('credential sets: live and test credentials are kept apart, picked by the base URL in use', () => {
  const LIVE_SET = { api_key: 'live-key-0001', token: 'live-tok-0001' };
  const TEST_SET = { api_key: 'test-key-0002', token: 'test-tok-0002' };
  const both = { profile: { base_url: LIVE, test_base_url: TEST, ...LIVE_SET }, testSet: TEST_SET };
  it.each([
    ['the live base URL: the live set', {}, LIVE, 'live', 'the live base URL'],
    ['--test: the test set', { globals: { test: true } }, TEST, 'test', 'test mode (--test)'],
    ['SHIP_TEST=1: the test set', { env: { SHIP_TEST: '1' } }, TEST, 'test', 'test mode (SHIP_TEST)'],
    ["--base-url that is the profile's test_base_url: the test set", { globals: { baseUrl: `${TEST}/` } }, TEST, 'test', "--base-url is the profile's test_base_url"],
    ["SHIP_BASE_URL that is the profile's base_url, even with --test: the live set", { globals: { test: true }, env: { SHIP_BASE_URL: LIVE } }, LIVE, 'live', "SHIP_BASE_URL is the profile's base_url"],
    ['an unknown --base-url: the live set', { globals: { baseUrl: FLAG_URL } }, FLAG_URL, 'live', "neither of the profile's base URLs; not in test mode"],
    ['an unknown --base-url with --test: the test set', { globals: { baseUrl: FLAG_URL, test: true } }, FLAG_URL, 'test', "neither of the profile's base URLs; test mode (--test)"],
  ] as const)('%s', async (_name, input, url, set, why) => {
    const s = await resolveWith({ ...both, ...(input as object) });
    expect(s.baseUrl.value).toBe(url);
    expect(s.credentialSet.name).toBe(set);
    expect(s.credentialSet.why).toContain(why);
    const expected = set === 'test' ? TEST_SET : LIVE_SET;
    const prefix = set === 'test' ? 'test_credentials.' : '';
    expect(s.apiKey).toEqual({ value: expected.api_key, source: 'profile', origin: `${prefix}api_key` });
    expect(s.token).toEqual({ value: expected.token, source: 'profile', origin: `${prefix}token` });
  });

  it('SHIP_API_KEY and SHIP_TOKEN win over either set', async () => {
    for (const globals of [{}, { test: true }]) {
      const s = await resolveWith({ ...both, globals, env: { SHIP_API_KEY: 'env-key-0003', SHIP_TOKEN: 'env-tok-0003' } });
      expect(s.apiKey).toEqual({ value: 'env-key-0003', source: 'env', origin: 'SHIP_API_KEY' });
      expect(s.token).toEqual({ value: 'env-tok-0003', source: 'env', origin: 'SHIP_TOKEN' });
    }
  });

  it('test mode never falls back to the live set: a profile without test credentials has none', async () => {
    const s = await resolveWith({ globals: { test: true }, profile: { test_base_url: TEST, ...LIVE_SET } });
    expect(s.credentialSet.name).toBe('test');
    expect(s.apiKey).toBeUndefined();
    expect(s.token).toBeUndefined();
  });

  it('a URL that is both base_url and test_base_url goes by test mode', () => {
    const profile = { base_url: LIVE, test_base_url: LIVE };
    expect(chooseCredentialSet(profile, { value: false, source: 'default' }, { value: LIVE, origin: '--base-url' }).name).toBe('live');
    expect(chooseCredentialSet(profile, { value: true, source: 'flag', origin: '--test' }, { value: LIVE, origin: '--base-url' })).toEqual({
      name: 'test',
      why: '--base-url is both base_url and test_base_url; test mode (--test)',
    });
  });
});

describe('timeout: --timeout > SHIP_TIMEOUT > profile > 30 s', () => {
  it.each([
    ['flag', { globals: { timeout: '5' }, env: { SHIP_TIMEOUT: '6' }, profile: { timeout: '7' } }, 5000, 'flag', '--timeout'],
    ['env', { env: { SHIP_TIMEOUT: '6' }, profile: { timeout: '7' } }, 6000, 'env', 'SHIP_TIMEOUT'],
    ['profile', { profile: { timeout: '7.5' } }, 7500, 'profile', 'timeout'],
    ['default', {}, 30_000, 'default', undefined],
  ] as const)('%s', async (_n, input, value, source, origin) => {
    expect((await resolveWith(input as Parameters<typeof resolveWith>[0])).timeoutMs).toEqual({ value, source, origin });
  });
  it.each([['--timeout', { globals: { timeout: '0' } }], ['SHIP_TIMEOUT', { env: { SHIP_TIMEOUT: 'soon' } }]] as const)('a bad %s is a usage error', async (what, input) => {
    const err = await resolveWith(input as Parameters<typeof resolveWith>[0]).catch((e) => e);
    expect(err).toBeInstanceOf(UsageError);
    expect(err.message).toContain(what);
  });
});

describe('profile selection and per-profile defaults', () => {
  it('reads the selected profile only', async () => {
    const s = await resolveWith({ globals: { profile: 'work' }, profile: { base_url: LIVE, label_format: 'png', printer: 'tcp://10.0.0.9:9100' } });
    expect(s.profile).toEqual({ value: 'work', source: 'flag', origin: '--profile' });
    expect(s.baseUrl.value).toBe(LIVE);
    expect(s.labelFormat).toEqual({ value: 'PNG', source: 'profile', origin: 'label_format' });
    expect(s.printer).toEqual({ value: 'tcp://10.0.0.9:9100', source: 'profile', origin: 'printer' });
    expect(s.configPath).toMatch(/config\.json$/);
  });
  it('a default printer naming a missing printers entry fails only when read', async () => {
    const s = await resolveWith({ profile: { printer: 'dock' } });
    expect(s.baseUrl.value).toBe(DEFAULT_BASE_URL);
    expect(() => s.printer).toThrow(/no printer named "dock"/);
  });
  it('describes sources for people', () => {
    expect(describeSource({ source: 'env', origin: 'SHIP_API_KEY' })).toBe('env SHIP_API_KEY');
    expect(describeSource({ source: 'flag', origin: '--base-url' })).toBe('flag --base-url');
    expect(describeSource({ source: 'profile', origin: 'token' }, 'work')).toBe('profile work (token)');
    expect(describeSource({ source: 'default' })).toBe('default');
  });
});

describe('renewCredentials: what to do about refused credentials', () => {
  it('names the login of the set in use, or the env vars that win over the profile', async () => {
    const live = await resolveWith({ profile: { base_url: LIVE, api_key: 'k-live', token: 't-live' } });
    expect(renewCredentials(live)).toBe('Run `ship login`');
    const test = await resolveWith({ globals: { test: true }, profile: { base_url: LIVE, test_base_url: TEST }, testSet: { api_key: 'k-test', token: 't-test' } });
    expect(renewCredentials(test)).toBe('Run `ship --test login`');
    const env = await resolveWith({ env: { SHIP_TOKEN: 't-env' }, profile: { base_url: LIVE, api_key: 'k-live' } });
    expect(renewCredentials(env)).toBe('Set SHIP_TOKEN anew (it wins over the profile)');
  });

  it('a 401 that says which credential it refused: only that one counts (a revoked stored token is mended by `ship login`, whatever SHIP_API_KEY is)', async () => {
    const keyFromEnv = await resolveWith({ env: { SHIP_API_KEY: 'k-env' }, profile: { base_url: LIVE, token: 't-live' } });
    expect(renewCredentials(keyFromEnv, 'Unauthenticated: the token is not valid or has been revoked.')).toBe('Run `ship login`');
    expect(rejectedFromEnvHint(keyFromEnv, 'Unauthenticated: the token is not valid or has been revoked.')).toBeUndefined();
    expect(renewCredentials(keyFromEnv, 'The API key supplied is not valid.')).toBe('Set SHIP_API_KEY anew (it wins over the profile)');
    // A message that names neither: either could be at fault.
    expect(rejectedFromEnvHint(keyFromEnv, 'Unauthenticated.')).toMatch(/^SHIP_API_KEY is set in the environment/);
    const both = await resolveWith({ env: { SHIP_API_KEY: 'k-env', SHIP_TOKEN: 't-env' }, profile: { base_url: LIVE } });
    expect(renewCredentials(both, 'the token is not valid or has been revoked')).toBe('Set SHIP_TOKEN anew (it wins over the profile)');
  });
});
