// The built binary's `ship smoke` against the sandbox: a clean pass, the exit codes of a revoked token and of
// injected faults, and a real SIGINT in the middle of a run — with no shipment left behind in any case
// (checked through the sandbox's SHIPMENT_CREATED / SHIPMENT_CANCELLED webhooks).
import { beforeEach, describe, expect, it } from 'vitest';
import { smokeHarness } from '../commands/smoke/harness.js';
import { ship } from '../helpers/bin.js';

const { sb, proxy, leftBehind } = await smokeHarness();
let env: Record<string, string>;

beforeEach(async () => {
  env = await sb.authEnv();
});

describe('ship smoke (built binary)', () => {
  it('passes against the sandbox with --test semantics via SHIP_BASE_URL, and cleans up', async () => {
    const r = await ship(['smoke', '--test', '--json'], { env });
    expect(r.exitCode, String(r.stderr)).toBe(0);
    const report = JSON.parse(String(r.stdout));
    expect(report).toMatchObject({ ok: true, base_url: sb.baseUrl, cleaned_up: true });
    expect(report.steps).toHaveLength(7);
    expect(String(r.stdout) + String(r.stderr)).not.toContain(env.SHIP_TOKEN);
    expect(await leftBehind(1)).toEqual([]);
  });

  it('exits 4 when the token was revoked, creating nothing', async () => {
    await fetch(`${sb.baseUrl}/tokens`, { method: 'DELETE', headers: { 'x-service-api-key': env.SHIP_API_KEY, 'x-service-token': env.SHIP_TOKEN } });
    const r = await ship(['smoke'], { env });
    expect(r.exitCode).toBe(4);
    expect(String(r.stdout)).toMatch(/✗ token/);
    expect(String(r.stderr)).toMatch(/ship login/);
    expect(await leftBehind(0)).toEqual([]);
  });

  it('exits 1 under injected 503s, creating nothing', async () => {
    await sb.control('faults', { fail_rate: 1, status: 503 });
    const r = await ship(['smoke', '--json'], { env: { ...env, SHIP_TIMEOUT: '5' } });
    await sb.control('faults', {});
    expect(r.exitCode).toBe(1);
    expect(JSON.parse(String(r.stdout)).steps[0]).toMatchObject({ name: 'token', ok: false, exit_code: 1 });
    expect(await leftBehind(0)).toEqual([]);
  });

  it('on SIGINT mid-run: cancels the shipment it created, then exits 130', async () => {
    const proc = ship(['smoke', '--json'], { env: { ...env, SHIP_BASE_URL: proxy.baseUrl } });
    proxy.rule = (method, path) => {
      if (method === 'GET' && path.endsWith('/label')) {
        setTimeout(() => proc.kill('SIGINT'), 50);
        return { delayMs: 1500 };
      }
      return undefined;
    };
    const r = await proc;
    expect(r.exitCode, String(r.stderr)).toBe(130);
    const report = JSON.parse(String(r.stdout));
    expect(report.steps.at(-1)).toMatchObject({ name: 'cancel', ok: true });
    expect(report.cleaned_up).toBe(true);
    expect(proxy.log.filter((l) => l.method === 'DELETE').map((l) => l.status)).toEqual([200]);
    expect(await leftBehind(1)).toEqual([]);
  });
});
