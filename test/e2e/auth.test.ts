// The built binary against the in-process sandbox: login/whoami/logout and the credentials they store.
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ship, tempConfigDir } from '../helpers/bin.js';
import { useTestSandbox } from '../helpers/sandbox.js';

const USERNAME = 'demo@example.com';
const PASSWORD = 'demo-password';

// No login of its own: the tests log in through the binary.
const { sb } = useTestSandbox({ login: false });

describe('ship login / whoami / logout (binary)', () => {
  const dir = tempConfigDir();
  const file = join(dir, 'config.json');
  const env = () => ({ SHIP_CONFIG_DIR: dir, SHIP_BASE_URL: sb.env.SHIP_BASE_URL, SHIP_API_KEY: sb.apiKey });

  it('login --password-stdin stores the token in a 0600 file and prints no secret, even with --verbose', async () => {
    const r = await ship(['login', '--username', USERNAME, '--password-stdin', '--verbose'], { env: env(), stdin: 'pipe', input: `${PASSWORD}\n` });
    expect(r.exitCode, String(r.stderr)).toBe(0);
    const profile = JSON.parse(readFileSync(file, 'utf8')).profiles.default;
    expect(typeof profile.token).toBe('string');
    expect(profile.token.length).toBeGreaterThan(8);
    expect(profile.api_key).toBe(sb.apiKey);
    expect(profile.user.email).toBe(USERNAME);
    if (process.platform !== 'win32') expect(statSync(file).mode & 0o777).toBe(0o600);
    const all = `${r.stdout}\n${r.stderr}`;
    expect(all).not.toContain(profile.token);
    expect(all).not.toContain(PASSWORD);
    expect(all).not.toContain(sb.apiKey);
    expect(r.stderr).toMatch(/→ POST .*\/tokens/);
    expect(r.stderr).toContain(`Logged in as`);
    expect(r.stdout).toBe('');
  });

  it('whoami says where everything comes from and that the token is valid', async () => {
    const token = JSON.parse(readFileSync(file, 'utf8')).profiles.default.token as string;
    const r = await ship(['whoami', '--json'], { env: env() });
    expect(r.exitCode, String(r.stderr)).toBe(0);
    const doc = JSON.parse(String(r.stdout));
    expect(doc).toMatchObject({
      profile: { value: 'default' },
      base_url: { value: sb.env.SHIP_BASE_URL, source: 'env', origin: 'SHIP_BASE_URL' },
      api_key: { source: 'env', origin: 'SHIP_API_KEY' },
      token: { masked: `****${token.slice(-4)}`, source: 'profile', origin: 'token' },
      user: { email: USERNAME },
      token_status: 'valid',
    });
    expect(String(r.stdout)).not.toContain(token);
  });

  it('logout revokes and forgets the token; whoami then exits 4', async () => {
    const token = JSON.parse(readFileSync(file, 'utf8')).profiles.default.token as string;
    const out = await ship(['logout'], { env: env() });
    expect(out.exitCode, String(out.stderr)).toBe(0);
    expect(JSON.parse(readFileSync(file, 'utf8')).profiles.default.token).toBeUndefined();
    // The old token no longer works on the server either.
    const revoked = await ship(['whoami'], { env: { ...env(), SHIP_TOKEN: token } });
    expect(revoked.exitCode).toBe(4);
    expect(String(revoked.stdout)).toMatch(/token status\tinvalid/);
    const none = await ship(['whoami'], { env: env() });
    expect(none.exitCode).toBe(4);
    expect(String(none.stderr)).toMatch(/not logged in/);
  });

  it('a wrong password exits 4; a missing username without a terminal exits 2 naming the flag', async () => {
    const wrong = await ship(['login', '--username', USERNAME, '--password-stdin'], { env: env(), stdin: 'pipe', input: 'not-the-password\n' });
    expect(wrong.exitCode).toBe(4);
    const noUser = await ship(['login', '--password-stdin'], { env: env(), stdin: 'pipe', input: `${PASSWORD}\n` });
    expect(noUser.exitCode).toBe(2);
    expect(String(noUser.stderr)).toMatch(/--username/);
  });
});
