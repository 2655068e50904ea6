// Secrets the config file holds are masked in errors even when the settings themselves are what failed, and a
// secret is masked as a URL or form body carries it too.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runShip } from '../helpers/run.js';
import { redact, redactDeep } from '../../src/output/redact.js';
import { parsePrinterUrl, shownUrl } from '../../src/config/validate.js';

const TOKEN = '3e72c0ffee5eed1234567890abcdef4811';
const KEY = 'sk_live_Zq9xPlainKey77';
const OTHER = 'tok_other_profile_9f8e7d6c';

function configDir(text?: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'ship-secrets-'));
  const config = { current_profile: 'default', profiles: { default: { api_key: KEY, token: TOKEN }, staging: { test_credentials: { token: OTHER } } } };
  writeFileSync(join(dir, 'config.json'), text ?? JSON.stringify(config), { mode: 0o600 });
  return dir;
}

describe('secrets in error messages', () => {
  it('a stored token or key given where a URL goes (swapped variables) is masked in the error that refuses it, text and --json', async () => {
    const dir = configDir();
    for (const [args, env] of [
      [['whoami'], { SHIP_BASE_URL: TOKEN }],
      [['--base-url', TOKEN, '--json', 'whoami'], {}],
      [['--base-url', KEY, 'whoami'], {}],
      [['--base-url', `htp://${OTHER}:x@127.0.0.1/v1.2`, 'whoami'], {}],
    ] as const) {
      const r = await runShip([...args], { env: { SHIP_CONFIG_DIR: dir, ...env } });
      expect(r.code, r.stderr).toBe(2);
      for (const secret of [TOKEN, KEY, OTHER]) expect(r.stdout + r.stderr).not.toContain(secret);
      expect(r.stderr).toMatch(/\*\*\*\*/);
    }
  });

  it('--verbose on a config file that is not JSON quotes none of it (the quoted stretch may be a token)', async () => {
    const dir = configDir(`{"profiles":{"default":{"api_key":"k","token": Zq9xLiveTokenSecret77}}}`);
    const r = await runShip(['-v', 'whoami'], { env: { SHIP_CONFIG_DIR: dir } });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/cannot read the config file .*not valid JSON/);
    expect(r.stderr).not.toMatch(/Zq9x|LiveTo/);
  });

  it('a secret echoed URL- or form-encoded (a webhook handler or a redirect quoting the request) is masked too', () => {
    const secret = 'Ab+cd/EF=gh ij/KL==';
    expect(redact(`rejected: auth_token=${encodeURIComponent(secret)}&x=1`, [secret])).toBe('rejected: auth_token=****KL==&x=1');
    expect(redact(`auth_token=${encodeURIComponent(secret).replaceAll('%20', '+')}`, [secret])).not.toContain('Ab%2Bcd');
    expect(redact(`Location: https://x.example/?key=${encodeURIComponent(secret)}`, [secret])).not.toContain('Ab%2Bcd');
  });

  it('an error body quoting a secret in a field path (a key, not a value) has it masked there too', () => {
    const body = { message: 'The given data failed to pass validation.', data: { [`x-${TOKEN}`]: [`bad ${TOKEN}`], shipment_reference: ['taken'] } };
    const out = redactDeep(body, [TOKEN]);
    expect(JSON.stringify(out)).not.toContain(TOKEN);
    expect(Object.keys(out.data)).toEqual([`x-****${TOKEN.slice(-4)}`, 'shipment_reference']);
  });

  it('a secret form-encoded (! and ~ encoded too) or with lower-case escapes is masked', () => {
    const secret = "key!(x)~y'z/1";
    expect(redact(`body: k=${new URLSearchParams({ k: secret }).toString().slice(2)}`, [secret])).toBe("body: k=****'z/1");
    expect(redact(`k=${encodeURIComponent(secret).toLowerCase()}`, [secret])).not.toContain('%2f1');
  });

  it('URLs shown with their user information masked up to the last @, whatever the password holds', () => {
    expect(shownUrl('tcp://u:pa/ss@h:9100')).toBe('tcp://u:****@h:9100');
    expect(shownUrl('http://u:p@ss@h/x')).toBe('http://u:****@h/x');
    expect(shownUrl('u:pw@host:9100')).toBe('u:****@host:9100');
    // A password with a space, a token in the fragment, a query with a space: none of it shown.
    expect(shownUrl('http://bob:se cret@127.0.0.1:99999/v1.2')).toBe('http://bob:****@127.0.0.1:99999/v1.2');
    expect(shownUrl('http://127.0.0.1:1/v1.2#access_token=SECRETFRAG123')).toBe('http://127.0.0.1:1/v1.2#****');
    expect(shownUrl('http://h/v1.2?key=a b#frag')).toBe('http://h/v1.2?****#****');
    // An @ in the query is the query's: the host is still shown.
    expect(shownUrl('http://127.0.0.1:3000/hook?notify=ops@example.com')).toBe('http://127.0.0.1:3000/hook?****');
    expect(shownUrl('http://sk_live_abc@h/v1.2?key=1')).toBe('http://****@h/v1.2?****');
    expect(shownUrl('https://api.example.com/v1.2')).toBe('https://api.example.com/v1.2');
  });

  it('a printer address with a user name and password is refused without echoing them', () => {
    expect(() => parsePrinterUrl('tcp://u:secretpw@10.0.0.5:9100')).toThrow(/is not a printer address/);
    expect(() => parsePrinterUrl('tcp://u:secretpw@10.0.0.5:9100')).not.toThrow(/secretpw/);
  });
});
