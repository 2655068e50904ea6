// The built binary under --json: stderr is JSON lines (README: progress, warnings and errors one JSON object a
// line), also for smoke's banner, webhooks trigger's example-token line, create --csv's duplicate-reference
// warning and login's success line; without --json each stays the text it was. And `config get KEY` prints the
// value in effect when only an environment variable supplies it. (execa drops the last newline of stdout and
// stderr: a single line is compared without it.)
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ship, tempConfigDir } from '../helpers/bin.js';
import { sandboxForFile } from '../helpers/sandbox.js';

const sb = await sandboxForFile();
const servers: Server[] = [];
afterAll(async () => {
  for (const s of servers) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

/** Every line of stderr parsed as JSON; a line that is not JSON fails the test, naming it. */
function jsonLines(stderr: unknown): Array<Record<string, any>> {
  const text = String(stderr).trimEnd();
  if (!text) return [];
  return text.split('\n').map((line) => {
    try {
      return JSON.parse(line) as Record<string, any>;
    } catch {
      throw new Error(`a line of stderr under --json is not JSON: ${line}`);
    }
  });
}

describe('--json: talk on stderr is JSON lines (built binary)', () => {
  it('ship smoke: the banner is an info line', async () => {
    const env = await sb.authEnv();
    const r = await ship(['smoke', '--json'], { env });
    expect(r.exitCode, String(r.stderr)).toBe(0);
    const ref = JSON.parse(String(r.stdout)).shipment_reference;
    expect(jsonLines(r.stderr)).toEqual([{ info: { message: `Smoke test against ${sb.baseUrl}, reference ${ref}` } }]);

    const text = await ship(['smoke'], { env });
    expect(text.exitCode, String(text.stderr)).toBe(0);
    expect(String(text.stderr)).toMatch(/^Smoke test against \S+, reference SMOKE-\d{14}-[0-9A-F]{6}$/);
  });

  it('ship webhooks trigger: the example-token line is an info line', async () => {
    const handler = createServer((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}'));
    });
    servers.push(handler);
    await new Promise<void>((r) => handler.listen(0, '127.0.0.1', r));
    const to = `http://127.0.0.1:${(handler.address() as AddressInfo).port}/hook`;
    const said = 'no --auth-token (or SHIP_WEBHOOK_TOKEN): sending the example token "whk_example_auth_token"';

    const r = await ship(['webhooks', 'trigger', 'SHIPMENT_CREATED', '--to', to, '--json']);
    expect(r.exitCode, String(r.stderr)).toBe(0);
    expect(JSON.parse(String(r.stdout))).toMatchObject({ ok: true, status: 200 });
    expect(jsonLines(r.stderr)).toEqual([{ info: { message: said } }]);

    const text = await ship(['webhooks', 'trigger', 'SHIPMENT_CREATED', '--to', to]);
    expect(text.exitCode, String(text.stderr)).toBe(0);
    expect(String(text.stderr)).toBe(said);
  });

  it('ship create --csv: the duplicate-reference warning is a warning line', async () => {
    const env = await sb.authEnv();
    const work = mkdtempSync(join(tmpdir(), 'ship-json-stderr-'));
    const csv = join(work, 'dup.csv');
    writeFileSync(csv, 'shipment_reference,to_name,to_line_1,to_city,to_postcode,to_country,weight\nJSONDUP-1,Ann,1 St,London,E1 1AA,GB,100\n');
    const first = await ship(['create', '--csv', csv, '-o', join(work, 'a'), '--json'], { env });
    expect(first.exitCode, String(first.stderr)).toBe(0);

    // Another output directory, so another journal: the service answers "already taken", settled as skipped.
    const r = await ship(['create', '--csv', csv, '-o', join(work, 'b'), '--json'], { env });
    expect(r.exitCode, String(r.stderr)).toBe(0);
    expect(JSON.parse(String(r.stdout))).toMatchObject({ shipment_reference: 'JSONDUP-1', status: 'skipped', reason: 'already exists' });
    const lines = jsonLines(r.stderr);
    // The summary closes stderr (`tail -n1 | jq .summary`): the warning comes before it.
    expect(lines.at(-1)).toMatchObject({ summary: { total: 1, listed: 1, skipped: 1 } });
    const warning = lines.find((l) => l.warning)?.warning.message;
    expect(warning).toMatch(/^1 shipment reference was already on the service, not created by this run's journal: JSONDUP-1\. /);
    expect(warning).toContain('give the row a new reference');

    const text = await ship(['create', '--csv', csv, '-o', join(work, 'c')], { env });
    expect(text.exitCode, String(text.stderr)).toBe(0);
    expect(String(text.stderr)).toMatch(/^warning: 1 shipment reference was already on the service, not created by this run's journal: JSONDUP-1\. /m);
    expect(String(text.stderr).indexOf('warning: 1 shipment reference')).toBeLessThan(String(text.stderr).indexOf('Done:'));
  });

  it("ship login: the ✓ line is an info line, and stdout keeps the one JSON document", async () => {
    const env = { ...sb.env, SHIP_CONFIG_DIR: tempConfigDir() };
    const args = ['login', '--username', 'demo@example.com', '--password-stdin'];
    const r = await ship([...args, '--json'], { env, stdin: 'pipe', input: 'demo-password\n' });
    expect(r.exitCode, String(r.stderr)).toBe(0);
    expect(JSON.parse(String(r.stdout))).toMatchObject({ profile: 'default', base_url: sb.baseUrl });
    expect(jsonLines(r.stderr)).toEqual([
      { info: { message: `Logged in as Dana Demo <demo@example.com> (MERCHANT) on ${sb.baseUrl}, profile default` } },
      { info: { message: '(the API key from SHIP_API_KEY is now stored in profile default too)' } },
    ]);

    const text = await ship(args, { env, stdin: 'pipe', input: 'demo-password\n' });
    expect(text.exitCode, String(text.stderr)).toBe(0);
    expect(String(text.stderr)).toBe(
      `✓ Logged in as Dana Demo <demo@example.com> (MERCHANT) on ${sb.baseUrl}, profile default\n(the API key from SHIP_API_KEY is now stored in profile default too)`,
    );
  });
});

describe('ship config get (built binary)', () => {
  it('prints the value an environment variable supplies, and --json says so as config list --json does', async () => {
    const env = { SHIP_CONFIG_DIR: tempConfigDir(), SHIP_TIMEOUT: '7', SHIP_BASE_URL: sb.baseUrl };
    const timeout = await ship(['config', 'get', 'timeout'], { env });
    expect(timeout.exitCode, String(timeout.stderr)).toBe(0);
    expect(String(timeout.stdout)).toBe('7');
    expect(String((await ship(['config', 'get', 'base_url'], { env })).stdout)).toBe(sb.baseUrl);

    const listed = JSON.parse(String((await ship(['config', 'list', '--json'], { env })).stdout)).settings;
    for (const key of ['timeout', 'base_url']) {
      const r = await ship(['config', 'get', key, '--json'], { env });
      expect(r.exitCode, String(r.stderr)).toBe(0);
      expect(String(r.stderr)).toBe('');
      const got = JSON.parse(String(r.stdout));
      expect(got).toMatchObject({ profile: 'default', key, source: 'env' });
      expect({ value: got.value, source: got.source, origin: got.origin }).toEqual(listed[key]);
    }
  });
});

describe('a command stopped at once by a signal says so (built binary)', () => {
  it('Ctrl-C or SIGTERM while a request hangs: the JSON error line under --json, a line of text in a log, exit 130 or 143', async () => {
    let arrived = 0;
    const hanging = createServer(() => {
      arrived++; // never answered
    });
    servers.push(hanging);
    await new Promise<void>((r) => hanging.listen(0, '127.0.0.1', r));
    const env = { SHIP_BASE_URL: `http://127.0.0.1:${(hanging.address() as AddressInfo).port}/v1.2`, SHIP_API_KEY: 'sandbox-api-key', SHIP_TOKEN: 'tok_e2e_hanging_0001', SHIP_CONFIG_DIR: tempConfigDir() };
    const stopped = async (args: string[], signal: NodeJS.Signals) => {
      const before = arrived;
      const run = ship(args, { env });
      for (let i = 0; i < 200 && arrived === before; i++) await new Promise((r) => setTimeout(r, 25));
      run.kill(signal);
      return run;
    };
    const json = await stopped(['services', '--json'], 'SIGINT');
    expect(json.exitCode).toBe(130);
    expect(String(json.stdout)).toBe('');
    expect(jsonLines(json.stderr)).toEqual([{ error: { message: 'interrupted', exit_code: 130, type: 'Interrupted' } }]);
    const text = await stopped(['services'], 'SIGINT');
    expect(text.exitCode).toBe(130);
    expect(String(text.stderr)).toBe('interrupted');
    const term = await stopped(['services', '--json'], 'SIGTERM');
    expect(term.exitCode).toBe(143);
    expect(jsonLines(term.stderr)).toEqual([{ error: { message: 'stopped (SIGTERM)', exit_code: 143, type: 'Interrupted' } }]);
  });
});
