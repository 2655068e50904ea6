// `ship doctor` in-process: against the sandbox, a stub server with a skewed clock, closed ports and printers.
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer as createHttpsServer } from 'node:https';
import { tmpdir } from 'node:os';
import { createServer, type Server } from 'node:http';
import { createServer as createTcpServer, type Server as TcpServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { networkInterfaces } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { zoneHint, zoneProblem, zoneRefused } from '../../../src/printer/zone.js';
import { tempConfigDir } from '../../helpers/bin.js';
import { freePort } from '../../helpers/net.js';
import { zonedConnects } from '../../helpers/zoned-net.js';
import { runShip } from '../../helpers/run.js';
import { startTestSandbox, type TestSandbox } from '../../helpers/sandbox.js';

// connect to a zoned host fails with EINVAL without touching the network (test/helpers/zoned-net.ts).
vi.mock('node:net', async (orig) => (await import('../../helpers/zoned-net.js')).zonedNet(orig));

let sb: TestSandbox;
const closers: Array<() => Promise<void>> = [];
beforeAll(async () => {
  sb = await startTestSandbox();
});
afterAll(async () => {
  for (const c of closers.splice(0)) await c();
  await sb?.close();
});

interface Check {
  name: string;
  status: string;
  detail: string;
  source?: string;
}
const byName = (checks: Check[], name: string) => checks.find((c) => c.name === name);

async function listenTcp(): Promise<number> {
  const s: TcpServer = createTcpServer((sock) => sock.end());
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  closers.push(() => new Promise((r) => s.close(() => r())));
  return (s.address() as AddressInfo).port;
}

function writeConfig(dir: string, profile: Record<string, unknown>, mode = 0o600): string {
  const path = join(dir, 'config.json');
  writeFileSync(path, JSON.stringify({ profiles: { default: profile } }));
  chmodSync(path, mode);
  return path;
}

describe('ship doctor', () => {
  it('a refused SHIP_TOKEN is to be set anew in the environment, not replaced by `ship login` (which it would win over)', async () => {
    const env = { ...(await sb.authEnv()), SHIP_TOKEN: 'revoked-token-abcd', SHIP_CONFIG_DIR: tempConfigDir() };
    const r = await runShip(['doctor'], { env });
    expect(r.code).toBe(4);
    expect(r.stderr).toContain('doctor: the check token valid failed');
    expect(r.stderr).toMatch(/SHIP_TOKEN (is|are) set in the environment and wins? over the profile/);
    expect(r.stderr).not.toMatch(/hint: run `ship login`/);
    const smoke = await runShip(['smoke'], { env });
    expect(smoke.code).toBe(4);
    expect(smoke.stderr).toMatch(/SHIP_TOKEN (is|are) set in the environment and wins? over the profile/);
  });

  it('passes against the sandbox and masks the credentials, naming their sources', async () => {
    const env = { ...(await sb.authEnv()), SHIP_CONFIG_DIR: tempConfigDir() };
    const r = await runShip(['doctor', '--json'], { env });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout + r.stderr).not.toContain(env.SHIP_TOKEN);
    expect(r.stdout).not.toContain(env.SHIP_API_KEY);
    const doc = JSON.parse(r.stdout) as { ok: boolean; checks: Check[] };
    expect(doc.ok).toBe(true);
    expect(byName(doc.checks, 'config file')).toMatchObject({ status: 'ok', detail: expect.stringMatching(/does not exist \(credentials come from the environment\)/) });
    expect(byName(doc.checks, 'base URL')).toMatchObject({ status: 'ok', detail: sb.baseUrl, source: 'env SHIP_BASE_URL' });
    expect(byName(doc.checks, 'API key')).toMatchObject({ status: 'ok', detail: `****${env.SHIP_API_KEY.slice(-4)}`, source: 'env SHIP_API_KEY' });
    expect(byName(doc.checks, 'token')).toMatchObject({ status: 'ok', source: 'env SHIP_TOKEN' });
    expect(byName(doc.checks, 'token')!.detail).toMatch(/^\*{4}/);
    expect(byName(doc.checks, 'reachable')?.status).toBe('ok');
    expect(byName(doc.checks, 'TLS')).toMatchObject({ status: 'ok', detail: 'plain http (loopback)' });
    expect(byName(doc.checks, 'token valid')?.status).toBe('ok');
    expect(byName(doc.checks, 'clock')?.status).toBe('ok');
  });

  it('prints a checklist in human mode', async () => {
    const env = { ...(await sb.authEnv()), SHIP_CONFIG_DIR: tempConfigDir() };
    const r = await runShip(['doctor'], { env });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^✓ API key +\*{4}\S{4} +from env SHIP_API_KEY$/m);
    expect(r.stdout).toMatch(/^✓ token valid +GET \/tokens answered 200 +\d+ms$/m);
    expect(r.stderr).toMatch(/No problems found/);
  });

  it('--quiet prints only the checks that need attention: nothing when all pass, the warning and the failure otherwise', async () => {
    const env = { ...(await sb.authEnv()), SHIP_CONFIG_DIR: tempConfigDir() };
    const dir = tempConfigDir();
    writeConfig(dir, { api_key: env.SHIP_API_KEY, token: env.SHIP_TOKEN, base_url: sb.baseUrl });
    const quiet = await runShip(['doctor', '--quiet'], { env: { ...env, SHIP_CONFIG_DIR: dir } });
    expect(quiet.code, quiet.stderr).toBe(0);
    expect(quiet.stdout).toBe('');
    expect(quiet.stderr).toBe('');
    // A profile the file does not have (a warning) and a refused token (a failure).
    await fetch(`${sb.baseUrl}/tokens`, { method: 'DELETE', headers: { 'x-service-api-key': env.SHIP_API_KEY, 'x-service-token': env.SHIP_TOKEN } });
    const failing = await runShip(['--profile', 'defualt', 'doctor', '-q'], { env: { ...env, SHIP_CONFIG_DIR: dir } });
    expect(failing.code).toBe(4);
    expect(failing.stdout.trim().split('\n').map((l) => l.slice(0, 16).trim())).toEqual(['! profile', '✗ token valid']);
  });

  it('exits 4 when the token is refused', async () => {
    const env = { ...(await sb.authEnv()), SHIP_CONFIG_DIR: tempConfigDir() };
    await fetch(`${sb.baseUrl}/tokens`, { method: 'DELETE', headers: { 'x-service-api-key': env.SHIP_API_KEY, 'x-service-token': env.SHIP_TOKEN } });
    const r = await runShip(['doctor', '--json'], { env });
    expect(r.code).toBe(4);
    const doc = JSON.parse(r.stdout) as { ok: boolean; checks: Check[] };
    expect(byName(doc.checks, 'token valid')?.status).toBe('fail');
  });

  it('exits 4 without credentials and warns there is no config file', async () => {
    const r = await runShip(['doctor', '--json'], { env: { SHIP_BASE_URL: sb.baseUrl, SHIP_CONFIG_DIR: tempConfigDir() } });
    expect(r.code).toBe(4);
    const doc = JSON.parse(r.stdout) as { checks: Check[] };
    expect(byName(doc.checks, 'API key')?.status).toBe('fail');
    expect(byName(doc.checks, 'token valid')?.status).toBe('skip');
    expect(byName(doc.checks, 'config file')?.status).toBe('warn');
  });

  it('in test mode checks the test credential set, and names `ship --test login` when it is empty', async () => {
    const dir = tempConfigDir();
    const token = await sb.login();
    writeConfig(dir, { base_url: 'http://127.0.0.1:9/v1.2', test_base_url: sb.baseUrl, api_key: 'live-key-0000', token: 'live-token-0000', test_credentials: { api_key: sb.apiKey, token } });
    const r = await runShip(['--test', 'doctor', '--json'], { env: { SHIP_CONFIG_DIR: dir } });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const doc = JSON.parse(r.stdout) as { checks: Check[] };
    expect(byName(doc.checks, 'credentials')).toMatchObject({ status: 'ok', detail: 'test set (test mode (--test))' });
    expect(byName(doc.checks, 'token')).toMatchObject({ status: 'ok', detail: `****${token.slice(-4)}`, source: 'profile test_credentials.token' });
    expect(byName(doc.checks, 'token valid')?.status).toBe('ok');

    writeConfig(dir, { test_base_url: sb.baseUrl, api_key: sb.apiKey, token });
    const empty = await runShip(['--test', 'doctor', '--json'], { env: { SHIP_CONFIG_DIR: dir } });
    expect(empty.code).toBe(4);
    const checks = (JSON.parse(empty.stdout) as { checks: Check[] }).checks;
    expect(byName(checks, 'token')).toMatchObject({ status: 'fail', detail: 'none in the test set: run `ship --test login` or set SHIP_TOKEN' });
    expect(empty.stderr).toContain('ship --test login');
    // SHIP_API_KEY in the environment, no test token stored: the hint is the login that stores one, not to set
    // SHIP_API_KEY anew (nothing refused it).
    const keyFromEnv = await runShip(['--test', 'doctor', '--json'], { env: { SHIP_CONFIG_DIR: dir, SHIP_API_KEY: sb.apiKey } });
    expect(keyFromEnv.code).toBe(4);
    expect(JSON.parse(keyFromEnv.stderr.trim().split('\n').at(-1)!).error.hint).toMatch(/^run `ship --test login`/);
  });

  it('warns when --profile names a profile the config file does not have', async () => {
    const dir = tempConfigDir();
    writeConfig(dir, { base_url: sb.baseUrl });
    const r = await runShip(['--profile', 'defualt', 'doctor', '--json'], { env: { SHIP_BASE_URL: sb.baseUrl, SHIP_CONFIG_DIR: dir } });
    expect(r.code).toBe(4);
    const doc = JSON.parse(r.stdout) as { checks: Check[] };
    expect(byName(doc.checks, 'profile')).toMatchObject({ status: 'warn', detail: 'defualt: not in the config file (profiles: default)', source: 'flag --profile' });
    // Credentials from the environment and the base URL from the default: commands refuse that profile, and the
    // token is not checked (no "GET /tokens:" failure for a request never sent).
    const refused = await runShip(['--profile', 'defualt', 'doctor', '--json'], { env: { SHIP_API_KEY: 'k-12345678', SHIP_TOKEN: 't-12345678', SHIP_CONFIG_DIR: dir } });
    const checks = (JSON.parse(refused.stdout) as { checks: Check[] }).checks;
    expect(byName(checks, 'token valid')).toMatchObject({ status: 'skip', detail: expect.stringContaining('see profile') });
  });

  it('exits 1 when the base URL is unreachable', async () => {
    const port = await freePort();
    const r = await runShip(['doctor', '--json'], {
      env: { SHIP_BASE_URL: `http://127.0.0.1:${port}/v1.2`, SHIP_API_KEY: 'k-12345678', SHIP_TOKEN: 't-12345678', SHIP_CONFIG_DIR: tempConfigDir() },
    });
    expect(r.code).toBe(1);
    const doc = JSON.parse(r.stdout) as { checks: Check[] };
    expect(byName(doc.checks, 'reachable')).toMatchObject({ status: 'fail', detail: expect.stringMatching(/connection refused/) });
    expect(byName(doc.checks, 'token valid')?.status).toBe('skip');
    expect(byName(doc.checks, 'clock')?.status).toBe('skip');
  });

  it('a base URL with a wrong or missing version segment fails "reachable" (a 404 for GET /tokens), naming it and the /v1.2 address that answers', async () => {
    const env = { ...(await sb.authEnv()), SHIP_CONFIG_DIR: tempConfigDir() };
    const root = sb.baseUrl.replace(/\/v1\.2$/, '');
    for (const wrong of [`${root}/api`, `${root}/v1.1`, root]) {
      const r = await runShip(['doctor', '--json'], { env: { ...env, SHIP_BASE_URL: wrong } });
      expect(r.code, wrong).toBe(1);
      const checks = (JSON.parse(r.stdout) as { checks: Check[] }).checks;
      expect(byName(checks, 'reachable'), wrong).toMatchObject({
        status: 'fail',
        detail: `${new URL(root).host} answered HTTP 404 for GET ${new URL(wrong).pathname.replace(/\/$/, '')}/tokens: the base URL ${wrong} looks wrong: the API is not there; it answers at ${sb.baseUrl}: use SHIP_BASE_URL=${sb.baseUrl}`,
      });
      // Not a confusing second failure about the token.
      expect(byName(checks, 'token valid')).toMatchObject({ status: 'skip', detail: 'the base URL does not lead to the API (see reachable)' });
    }
    // From a flag, the fix names the flag.
    const flag = await runShip(['doctor', '--json', '--base-url', `${root}/v1.1`], { env });
    expect(byName((JSON.parse(flag.stdout) as { checks: Check[] }).checks, 'reachable')?.detail).toMatch(new RegExp(`use --base-url ${sb.baseUrl.replace(/[.]/g, '\\.')}$`));
  });

  it('a 404 where no /v1.2 answers either: "reachable" fails with the form to follow; the right base URL still passes', async () => {
    const server: Server = createServer((req, res) => {
      res.writeHead(req.url === '/real/v1.2/tokens' ? 401 : 404, { 'content-type': 'application/json' }).end(JSON.stringify({ message: 'no', data: null }));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    closers.push(() => new Promise((r) => server.close(() => r())));
    const root = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const creds = { SHIP_API_KEY: 'k-12345678', SHIP_TOKEN: 't-12345678', SHIP_CONFIG_DIR: tempConfigDir() };
    const wrong = await runShip(['doctor', '--json'], { env: { ...creds, SHIP_BASE_URL: `${root}/shipping/v2` } });
    expect(byName((JSON.parse(wrong.stdout) as { checks: Check[] }).checks, 'reachable')?.detail).toMatch(
      /looks wrong: the API is not there; its address ends in the API version, e\.g\. http:\/\/127\.0\.0\.1:\d+\/shipping\/v1\.2$/,
    );
    const right = await runShip(['doctor', '--json'], { env: { ...creds, SHIP_BASE_URL: `${root}/real/v1.2` } });
    expect(byName((JSON.parse(right.stdout) as { checks: Check[] }).checks, 'reachable')).toMatchObject({ status: 'ok', detail: expect.stringMatching(/answered HTTP 401$/) });
  });

  it('warns when the server clock is more than 2 minutes off', async () => {
    const server: Server = createServer((req, res) => {
      res.setHeader('Date', new Date(Date.now() - 5 * 60_000).toUTCString());
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ message: 'ok', data: null }));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    closers.push(() => new Promise((r) => server.close(() => r())));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1.2`;
    const r = await runShip(['doctor', '--json'], { env: { SHIP_BASE_URL: base, SHIP_API_KEY: 'k-12345678', SHIP_TOKEN: 't-12345678', SHIP_CONFIG_DIR: tempConfigDir() } });
    const doc = JSON.parse(r.stdout) as { ok: boolean; checks: Check[] };
    expect(byName(doc.checks, 'clock')).toMatchObject({ status: 'warn', detail: expect.stringMatching(/5m \d+s ahead of the server/) });
    expect(r.code).toBe(0); // a warning is not a failure
  });

  it('checks each configured printer and reports the config file mode it tightened', async () => {
    const up = await listenTcp();
    const down = await freePort();
    const dir = tempConfigDir();
    const path = writeConfig(dir, { printer: 'dock', printers: { dock: `tcp://127.0.0.1:${up}`, back: `tcp://127.0.0.1:${down}` } }, 0o644);
    const env = { ...(await sb.authEnv()), SHIP_CONFIG_DIR: dir };
    const r = await runShip(['doctor', '--json', '--printer-timeout', '1'], { env });
    expect(r.code).toBe(1);
    const doc = JSON.parse(r.stdout) as { checks: Check[] };
    expect(byName(doc.checks, 'config file')).toMatchObject({ status: 'warn', detail: expect.stringMatching(/was mode 0644 .*tightened to 0600/) });
    expect(statSync(path).mode & 0o777).toBe(0o600);
    const printers = doc.checks.filter((c) => c.name.startsWith('printer'));
    expect(printers.map((p) => [p.name, p.status])).toEqual([
      ['printer dock (default)', 'ok'],
      ['printer back', 'fail'],
    ]);
    expect(r.stderr).toMatch(/printer back failed/);
  });

  it('a printer whose zone names no interface here fails without a connect, as the printing commands word it, with the config set that fixes it', async () => {
    const up = await listenTcp();
    const far = 'tcp://[fe80::1%nosuchif]:9100';
    const dir = tempConfigDir();
    writeConfig(dir, { printer: 'far', printers: { far, dock: `tcp://127.0.0.1:${up}` } });
    const env = { ...(await sb.authEnv()), SHIP_CONFIG_DIR: dir };
    zonedConnects.length = 0;
    const r = await runShip(['doctor', '--json', '--printer-timeout', '1'], { env });
    expect(r.code, r.stdout + r.stderr).toBe(1);
    expect(zonedConnects).toEqual([]);
    const doc = JSON.parse(r.stdout) as { ok: boolean; checks: Check[] };
    expect(doc.ok).toBe(false);
    const hint = zoneHint('fe80::1%nosuchif', 9100, 'far');
    expect(hint).toMatch(/ship config set printers\.far tcp:\/\/\[fe80::1%\S+\]:9100$/);
    expect(byName(doc.checks, 'printer far (default)')).toEqual({ name: 'printer far (default)', status: 'fail', detail: `${far}: ${zoneProblem('fe80::1%nosuchif')}; ${hint}` });
    expect(byName(doc.checks, 'printer dock')).toMatchObject({ status: 'ok' });
    // Only the printer failed.
    expect(doc.checks.filter((c) => c.status === 'fail').map((c) => c.name)).toEqual(['printer far (default)']);
    expect(r.stderr).toMatch(/doctor: the check printer far \(default\) failed/);

    // In the checklist, the reason and the fix on the printer's line.
    const human = await runShip(['doctor', '--printer-timeout', '1'], { env });
    expect(human.code).toBe(1);
    expect(human.stdout).toContain(`✗ printer far (default) ${far}: the zone "%nosuchif" names a network interface this machine does not have`);
    expect(zonedConnects).toEqual([]);
  });

  it('EINVAL from connecting to a zoned address that passed the check (faked) is worded as the zone refused', async () => {
    const loopback = Object.entries(networkInterfaces()).find(([, addrs]) => addrs?.some((a) => a.internal))?.[0] ?? 'lo';
    const url = `tcp://[fe80::1%${loopback}]:9100`;
    const dir = tempConfigDir();
    writeConfig(dir, { printer: url });
    const env = { ...(await sb.authEnv()), SHIP_CONFIG_DIR: dir };
    zonedConnects.length = 0;
    const r = await runShip(['doctor', '--json', '--printer-timeout', '1'], { env });
    expect(r.code).toBe(1);
    expect(zonedConnects).toEqual([`fe80::1%${loopback}`]);
    const doc = JSON.parse(r.stdout) as { checks: Check[] };
    // The default printer given as an address: the fix is the address (no printers.NAME entry to set).
    expect(byName(doc.checks, 'printer default')).toEqual({
      name: 'printer default',
      status: 'fail',
      detail: `${url}: ${zoneRefused(`fe80::1%${loopback}`)}; ${zoneHint(`fe80::1%${loopback}`, 9100)}`,
    });
  });
});

describe('ship doctor over https', () => {
  const openssl = (() => {
    try {
      return execFileSync('openssl', ['version']).length > 0;
    } catch {
      return false;
    }
  })();

  it.skipIf(!openssl)('reports an untrusted (self-signed) certificate and when it expires', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ship-doctor-tls-'));
    execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'), '-days', '30', '-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1'], { stdio: 'ignore' });
    const server = createHttpsServer({ key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')) }, (_req, res) => res.writeHead(200).end('{}'));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    closers.push(() => new Promise((r) => server.close(() => r())));
    const base = `https://localhost:${(server.address() as AddressInfo).port}/v1.2`;
    const r = await runShip(['doctor', '--json'], { env: { SHIP_BASE_URL: base, SHIP_API_KEY: 'k-12345678', SHIP_TOKEN: 't-12345678', SHIP_CONFIG_DIR: tempConfigDir() } });
    expect(r.code).toBe(1);
    const doc = JSON.parse(r.stdout) as { checks: Check[] };
    expect(byName(doc.checks, 'TLS')).toMatchObject({ status: 'fail', detail: expect.stringMatching(/not trusted: .*SELF_SIGNED/i) });
    expect(byName(doc.checks, 'reachable')?.status).toBe('fail');
  });

  it('--printer-timeout takes what every other command\'s does (a positive number of seconds), and says so', async () => {
    const zero = await runShip(['doctor', '--printer-timeout', '0'], { env: { SHIP_CONFIG_DIR: tempConfigDir() } });
    expect(zero.code).toBe(2);
    expect(zero.stderr).toContain('--printer-timeout: "0" must be a positive number of seconds');
  });
});
