import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import envPaths from 'env-paths';
import { openConfig, platformConfigDir, selectProfile } from '../../src/config/store.js';

const tmp = () => mkdtempSync(join(tmpdir(), 'ship-store-'));
const open = (dir: string, globals = {}, env: Record<string, string> = {}) => openConfig({ env: { SHIP_CONFIG_DIR: dir, ...env }, globals });
const fileOf = (dir: string) => JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8'));

describe('config store', () => {
  it('lives in SHIP_CONFIG_DIR and writes nothing until something is set', async () => {
    const dir = tmp();
    const store = await open(dir);
    expect(store.path).toBe(join(dir, 'config.json'));
    expect(() => statSync(store.path)).toThrow();
    expect(store.selected).toEqual({ name: 'default', source: 'default' });
    expect(store.profile()).toEqual({});
  });

  it('writes the file with mode 0600', async () => {
    const dir = tmp();
    const store = await open(dir);
    store.set('base_url', 'https://api.example.com/v1.2/');
    if (process.platform !== 'win32') expect(statSync(store.path).mode & 0o777).toBe(0o600);
    expect(fileOf(dir)).toEqual({ profiles: { default: { base_url: 'https://api.example.com/v1.2' } } });
  });

  it('tightens a pre-existing world-readable file to 0600 on open', async () => {
    if (process.platform === 'win32') return;
    const dir = tmp();
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ profiles: { default: { token: 'tok-123456789' } } }));
    chmodSync(join(dir, 'config.json'), 0o644);
    const store = await open(dir);
    expect(statSync(join(dir, 'config.json')).mode & 0o777).toBe(0o600);
    expect(store.get('token')).toBe('tok-123456789');
  });

  it('sets, gets and unsets keys in the selected profile only', async () => {
    const dir = tmp();
    const work = await open(dir, { profile: 'work' });
    work.set('label_format', 'pdf');
    work.set('timeout', '12.5');
    work.set('printers.dock', 'tcp://10.0.0.50:9100');
    work.set('printer', 'dock');
    expect(work.get('label_format')).toBe('PDF');
    expect(work.get('timeout')).toBe(12.5);
    expect(work.get('printers.dock')).toBe('tcp://10.0.0.50:9100');
    expect(work.resolvePrinter('dock')).toBe('tcp://10.0.0.50:9100');
    expect(work.resolvePrinter('tcp://1.2.3.4:9100')).toBe('tcp://1.2.3.4:9100');
    expect(() => work.resolvePrinter('nope')).toThrow(/no printer named "nope"/);
    // An address typed without tcp:// is told how to write it.
    let missingScheme: unknown;
    try {
      work.resolvePrinter('10.0.0.50:9100');
    } catch (e) {
      missingScheme = e;
    }
    expect((missingScheme as { hint?: string }).hint).toBe('for the printer at that address: tcp://10.0.0.50:9100');
    const dflt = await open(dir);
    expect(dflt.get('label_format')).toBeUndefined();
    expect(dflt.profileNames()).toEqual(['work']);
    // printer.NAME is the same key (as people write it).
    work.set('printer.dock3', 'tcp://10.0.0.53:9100');
    expect(work.get('printers.dock3')).toBe('tcp://10.0.0.53:9100');
    expect(work.get('printer.dock3')).toBe('tcp://10.0.0.53:9100');
    expect(work.resolvePrinter('dock3')).toBe('tcp://10.0.0.53:9100');
    expect(work.unset('printer.dock3')).toBe(true);
    expect(work.unset('printers.dock')).toBe(true);
    expect(work.unset('printers.dock')).toBe(false);
    expect(fileOf(dir).profiles.work.printers).toBeUndefined();
  });

  it('refuses unknown keys listing the valid ones, and bad values', async () => {
    const store = await open(tmp());
    try {
      store.set('colour', 'red');
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(UsageError);
      expect((e as UsageError).hint).toMatch(/base_url, test_base_url, api_key, token, label_format, printer, timeout, printers\.NAME/);
    }
    expect(() => store.set('label_format', 'GIF')).toThrow(UsageError);
    expect(() => store.set('base_url', 'http://api.example.com/v1.2')).toThrow(/plain http/);
    expect(store.set('base_url', 'http://api.example.com/v1.2', { insecure: true })).toBe('http://api.example.com/v1.2');
    expect(() => store.set('printer', '10.0.0.1:9100')).toThrow(UsageError);
    expect(() => store.set('printers.a.b', 'tcp://x:1')).toThrow(UsageError);
    expect(() => store.set('printers.x', 'tcp://x')).toThrow(UsageError);
    expect(() => store.set('timeout', '0')).toThrow(UsageError);
    expect(() => store.set('api_key', 'has space')).toThrow(UsageError);
    expect(() => store.set('user', '{}')).toThrow(UsageError);
  });

  it('saves a login and forgets the token and user on logout, keeping the API key', async () => {
    const dir = tmp();
    const store = await open(dir);
    store.saveLogin({ apiKey: 'key-1234567890', token: 'tok-abcdefghij', user: { email: 'a@b.c' }, baseUrl: { key: 'base_url', value: 'https://x.example/v1.2' } });
    expect(fileOf(dir).profiles.default).toEqual({
      api_key: 'key-1234567890',
      token: 'tok-abcdefghij',
      user: { email: 'a@b.c' },
      base_url: 'https://x.example/v1.2',
    });
    expect(store.forgetToken()).toBe(true);
    expect(store.forgetToken()).toBe(false);
    expect(fileOf(dir).profiles.default).toEqual({ api_key: 'key-1234567890', base_url: 'https://x.example/v1.2' });
  });

  it('reads a file in the old flat layout as the live credential set, unchanged, and the test set as empty', async () => {
    const dir = tmp();
    const old = { current_profile: 'default', profiles: { default: { base_url: 'https://live.example/v1.2', test_base_url: 'https://test.example/v1.2', api_key: 'key-live-0001', token: 'tok-live-0001', user: { email: 'cron@example.com' } } } };
    writeFileSync(join(dir, 'config.json'), JSON.stringify(old));
    const store = await open(dir);
    expect(store.credentials('live')).toEqual({ api_key: 'key-live-0001', token: 'tok-live-0001', user: { email: 'cron@example.com' } });
    expect(store.credentials('test')).toEqual({});
    expect(store.get('token')).toBe('tok-live-0001');
    expect(store.get('token', undefined, 'test')).toBeUndefined();
    // Writing anything but a test credential keeps the layout an older ship reads.
    store.set('timeout', '9');
    store.saveLogin({ set: 'live', apiKey: 'key-live-0002', token: 'tok-live-0002' });
    expect(fileOf(dir).profiles.default.test_credentials).toBeUndefined();
    expect(fileOf(dir).profiles.default).toMatchObject({ api_key: 'key-live-0002', token: 'tok-live-0002', timeout: 9 });
  });

  it('keeps the test credential set apart: a test login, logout or set never touches the live one', async () => {
    const dir = tmp();
    const store = await open(dir);
    const live = { api_key: 'key-live-0001', token: 'tok-live-0001', user: { email: 'cron@example.com' } };
    store.saveLogin({ set: 'live', apiKey: live.api_key, token: live.token, user: live.user });
    store.saveLogin({ set: 'test', apiKey: 'key-test-0001', token: 'tok-test-0001', user: { email: 'ci@example.com' }, baseUrl: { key: 'test_base_url', value: 'https://test.example/v1.2' } });
    expect(fileOf(dir).profiles.default).toEqual({
      ...live,
      test_base_url: 'https://test.example/v1.2',
      test_credentials: { api_key: 'key-test-0001', token: 'tok-test-0001', user: { email: 'ci@example.com' } },
    });
    expect(store.get('user', undefined, 'test')).toEqual({ email: 'ci@example.com' });

    // A token set by hand is not the cached user's: the user of that set (only) is dropped.
    store.set('token', 'tok-test-0002', { set: 'test' });
    expect(store.credentials('test')).toEqual({ api_key: 'key-test-0001', token: 'tok-test-0002' });
    expect(store.credentials('live')).toEqual(live);

    expect(store.forgetToken(undefined, 'test')).toBe(true);
    expect(store.forgetToken(undefined, 'test')).toBe(false);
    expect(store.credentials('live')).toEqual(live);
    expect(store.unset('token', undefined, 'test')).toBe(false);
    expect(store.unset('api_key', undefined, 'test')).toBe(true);
    // The emptied test set goes, leaving the flat layout.
    expect(fileOf(dir).profiles.default).toEqual({ ...live, test_base_url: 'https://test.example/v1.2' });

    // And the other way round: the live set's logout leaves a test login alone.
    store.saveLogin({ set: 'test', apiKey: 'key-test-0003', token: 'tok-test-0003' });
    expect(store.forgetToken()).toBe(true);
    expect(store.unset('api_key')).toBe(true);
    expect(fileOf(dir).profiles.default).toEqual({ test_base_url: 'https://test.example/v1.2', test_credentials: { api_key: 'key-test-0003', token: 'tok-test-0003' } });
  });

  it('a hand-edited test_credentials that is not an object reads as an empty set and is replaced on writing', async () => {
    const dir = tmp();
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ profiles: { default: { token: 'tok-live-0001', test_credentials: 'oops' } } }));
    const store = await open(dir);
    expect(store.credentials('test')).toEqual({});
    store.set('api_key', 'key-test-0001', { set: 'test' });
    expect(fileOf(dir).profiles.default).toEqual({ token: 'tok-live-0001', test_credentials: { api_key: 'key-test-0001' } });
  });

  it('`use` records the current profile, which later opens select', async () => {
    const dir = tmp();
    const store0 = await open(dir);
    store0.use('staging');
    expect(fileOf(dir).current_profile).toBe('staging');
    expect((await open(dir)).selected).toEqual({ name: 'staging', source: 'profile', origin: 'current_profile' });
    expect((await open(dir, {}, { SHIP_PROFILE: 'ci' })).selected).toEqual({ name: 'ci', source: 'env', origin: 'SHIP_PROFILE' });
    expect((await open(dir, { profile: 'x' }, { SHIP_PROFILE: 'ci' })).selected).toEqual({ name: 'x', source: 'flag', origin: '--profile' });
    expect(() => store0.use('bad.name')).toThrow(UsageError);
  });

  it.runIf(process.platform === 'linux')('without SHIP_CONFIG_DIR uses the platform dir (XDG), kept private', async () => {
    const xdg = tmp();
    const saved = process.env.XDG_CONFIG_HOME;
    process.env.XDG_CONFIG_HOME = xdg;
    try {
      const store = await openConfig({ env: {}, globals: {} });
      expect(store.path).toBe(join(xdg, 'ship', 'config.json'));
      expect(statSync(join(xdg, 'ship')).mode & 0o777).toBe(0o700);
    } finally {
      if (saved === undefined) delete process.env.XDG_CONFIG_HOME;
      else process.env.XDG_CONFIG_HOME = saved;
    }
  });

  it('opened for reading (write: false), reads what the writer wrote and refuses to write until writable()', async () => {
    const dir = tmp();
    const writer = await open(dir, { profile: 'work' });
    writer.set('base_url', 'https://api.example.com/v1.2');
    writer.saveLogin({ apiKey: 'key-1234567890', token: 'tok-abcdefghij', user: { email: 'a@b.c' } });
    writer.use('work');
    const reader = await openConfig({ env: { SHIP_CONFIG_DIR: dir }, globals: {}, write: false });
    expect(reader.selected).toEqual({ name: 'work', source: 'profile', origin: 'current_profile' });
    expect(reader.profile()).toEqual({ base_url: 'https://api.example.com/v1.2', api_key: 'key-1234567890', token: 'tok-abcdefghij', user: { email: 'a@b.c' } });
    expect(reader.profileNames()).toEqual(['work']);
    expect(() => reader.set('timeout', '5')).toThrow(/opened for reading only/);
    expect(() => reader.forgetToken()).toThrow(/opened for reading only/);
    expect(fileOf(dir).profiles.work.timeout).toBeUndefined();
    expect(await reader.writable()).toBe(reader);
    expect(reader.forgetToken()).toBe(true);
    expect(fileOf(dir).profiles.work).toEqual({ base_url: 'https://api.example.com/v1.2', api_key: 'key-1234567890' });
    if (process.platform !== 'win32') expect(statSync(reader.path).mode & 0o777).toBe(0o600);
    // Each read sees the file as it is now, as conf's reads did.
    writer.set('label_format', 'png');
    expect(reader.get('label_format')).toBe('PNG');
  });

  it('every change is made under config.json.lock, read afresh inside it; reads take no lock', async () => {
    const dir = tmp();
    const a = await open(dir);
    const b = await open(dir);
    a.set('printers.one', 'tcp://127.0.0.1:9101');
    b.set('printers.two', 'tcp://127.0.0.1:9102');
    // b changed the file after a read it: a's unset finds the key b removed already, and writes nothing.
    expect(b.unset('printers.one')).toBe(true);
    expect(a.forgetToken()).toBe(false);
    expect(fileOf(dir).profiles.default.printers).toEqual({ two: 'tcp://127.0.0.1:9102' });
    expect(readdirSync(dir)).toEqual(['config.json']);
    // A lock held by a live process (a write in progress elsewhere): reads go on, unaffected.
    const holder = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30000)'], { stdio: 'ignore' });
    try {
      writeFileSync(join(dir, 'config.json.lock'), JSON.stringify({ pid: holder.pid, hostname: hostname(), started_at: 'now' }));
      const t0 = Date.now();
      const reader = await openConfig({ env: { SHIP_CONFIG_DIR: dir }, globals: {}, write: false });
      expect(reader.get('printers.two')).toBe('tcp://127.0.0.1:9102');
      expect(Date.now() - t0).toBeLessThan(1_000);
    } finally {
      holder.kill('SIGKILL');
    }
  });

  it('a lock left by a ship killed mid-write, and its lock attempts\' leftovers, do not stop the next write', async () => {
    const dir = tmp();
    const dead = Number(String(spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']).stdout));
    writeFileSync(join(dir, 'config.json.lock'), JSON.stringify({ pid: dead, hostname: hostname(), started_at: 'earlier' }));
    writeFileSync(join(dir, `config.json.lock.${dead}.x1y2.tmp`), '');
    const store = await open(dir);
    store.set('timeout', '7');
    expect(fileOf(dir).profiles.default.timeout).toBe(7);
    expect(readdirSync(dir)).toEqual(['config.json']);
  });

  it.skipIf(process.platform === 'win32' || process.getuid?.() === 0)('a config directory that cannot be written: a clear error naming the file', async () => {
    const dir = tmp();
    const store = await open(dir);
    chmodSync(dir, 0o500);
    try {
      expect(() => store.set('timeout', '7')).toThrow(`cannot write the config file ${join(dir, 'config.json')}: EACCES`);
    } finally {
      chmodSync(dir, 0o700);
    }
  });

  it('a read-only open still tightens a world-readable file and fails on a corrupt one', async () => {
    const dir = tmp();
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ profiles: { default: { token: 'tok-123456789' } } }));
    if (process.platform !== 'win32') {
      chmodSync(join(dir, 'config.json'), 0o644);
      await openConfig({ env: { SHIP_CONFIG_DIR: dir }, globals: {}, write: false });
      expect(statSync(join(dir, 'config.json')).mode & 0o777).toBe(0o600);
    }
    writeFileSync(join(dir, 'config.json'), '[1, 2');
    await expect(openConfig({ env: { SHIP_CONFIG_DIR: dir }, globals: {}, write: false })).rejects.toThrow(/cannot read the config file .*config\.json/);
  });

  it('finds the platform directory where conf (env-paths, project "ship", no suffix) always put it', () => {
    const saved = process.env.XDG_CONFIG_HOME;
    try {
      for (const xdg of [undefined, tmp()]) {
        if (xdg === undefined) delete process.env.XDG_CONFIG_HOME;
        else process.env.XDG_CONFIG_HOME = xdg;
        expect(platformConfigDir()).toBe(envPaths('ship', { suffix: '' }).config);
      }
    } finally {
      if (saved === undefined) delete process.env.XDG_CONFIG_HOME;
      else process.env.XDG_CONFIG_HOME = saved;
    }
  });

  it('a corrupt file is reported by line, never by quoting it: the quoted text may be a token', async () => {
    const dir = tmp();
    const token = 'tok0cdf5f75e426440baf7d217cc44b1118';
    // V8 would say: Unexpected token 'o', ..."token": tok0cdf5f75"... is not valid JSON
    for (const [text, where] of [
      [`{"profiles": {\n  "default": {\n    "token": ${token}\n  }\n}}`, /not valid JSON \(near line 3\)/],
      [`{"profiles": {"default": {"token": '${token}'}}}`, /not valid JSON \(near line 1\)/],
      [`${token} oops`, /not valid JSON/],
      [`{"profiles": {"default": {"token": "${token}" "api_key": "k"}}}`, /not valid JSON \(line 1, column \d+\)/],
    ] as const) {
      writeFileSync(join(dir, 'config.json'), text);
      const err = await open(dir).then(
        () => undefined,
        (e: unknown) => e as UsageError,
      );
      expect(err).toBeInstanceOf(UsageError);
      expect(err!.message).toMatch(where);
      expect(err!.message).not.toMatch(/tok0|cdf5|\.\.\./);
    }
  });

  it('turns a corrupt file into a usage error naming the file', async () => {
    const dir = tmp();
    writeFileSync(join(dir, 'config.json'), '{ not json');
    await expect(open(dir)).rejects.toThrow(/cannot read the config file .*config\.json/);
  });
});

describe('selectProfile', () => {
  it.each([
    [{ profile: 'flag' }, { SHIP_PROFILE: 'env' }, 'file', { name: 'flag', source: 'flag', origin: '--profile' }],
    [{}, { SHIP_PROFILE: 'env' }, 'file', { name: 'env', source: 'env', origin: 'SHIP_PROFILE' }],
    // commander copies SHIP_PROFILE into --profile: the env var is still the source.
    [{ profile: 'env' }, { SHIP_PROFILE: 'env' }, 'file', { name: 'env', source: 'env', origin: 'SHIP_PROFILE' }],
    [{}, {}, 'file', { name: 'file', source: 'profile', origin: 'current_profile' }],
    [{}, { SHIP_PROFILE: '' }, undefined, { name: 'default', source: 'default' }],
    // An empty SHIP_PROFILE copied into --profile by commander is still "not set".
    [{ profile: '' }, { SHIP_PROFILE: '' }, undefined, { name: 'default', source: 'default' }],
  ])('%j %j %j', (globals, env, inFile, expected) => {
    expect(selectProfile(env, globals, inFile)).toEqual(expected);
  });
  it('refuses names that cannot be config keys, and an empty --profile (a script\'s unset variable)', () => {
    expect(() => selectProfile({}, { profile: 'a.b' }, undefined)).toThrow(UsageError);
    expect(() => selectProfile({}, { profile: '' }, 'work')).toThrow(/--profile: "" is not a valid name/);
  });
});
