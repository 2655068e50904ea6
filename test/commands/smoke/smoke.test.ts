// `ship smoke` in-process against the sandbox: passing runs, failures with the right exit codes, and the
// cleanup guarantee (checked through the sandbox's own SHIPMENT_CREATED / SHIPMENT_CANCELLED webhooks).
import { beforeEach, describe, expect, it } from 'vitest';
import { run as smoke } from '../../../src/commands/smoke/run.js';
import { createContext } from '../../../src/context.js';
import { Interrupted } from '../../../src/errors.js';
import { tempConfigDir } from '../../helpers/bin.js';
import { bufferIO, runShip } from '../../helpers/run.js';
import { smokeHarness } from './harness.js';

const { sb, proxy, leftBehind } = await smokeHarness('smoke-hooks');
let env: Record<string, string>;

beforeEach(async () => {
  env = { ...(await sb.authEnv()), SHIP_BASE_URL: proxy.baseUrl, SHIP_CONFIG_DIR: tempConfigDir() };
});

describe('ship smoke', () => {
  it('passes every step against the sandbox and cancels its shipment (--json report)', async () => {
    const r = await runShip(['smoke', '--json'], { env });
    expect(r.stderr).not.toContain(env.SHIP_TOKEN);
    expect(r.code, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(report.ok).toBe(true);
    expect(report.base_url).toBe(proxy.baseUrl);
    expect(report.steps.map((s: { name: string; ok: boolean }) => [s.name, s.ok])).toEqual(
      ['token', 'services', 'quote', 'create', 'label', 'track', 'cancel'].map((n) => [n, true]),
    );
    for (const s of report.steps) expect(typeof s.ms).toBe('number');
    expect(report.shipment_reference).toMatch(/^SMOKE-\d{14}-[0-9A-F]{6}$/);
    expect(report.shipment_reference.length).toBeLessThanOrEqual(30);
    expect(report.cleaned_up).toBe(true);
    expect(proxy.log.find((l) => l.method === 'DELETE')).toMatchObject({ path: `/v1.2/shipments/${report.shipment_reference}`, status: 200 });
    expect(await leftBehind(1)).toEqual([]);
  });

  it('--json: the banner is a JSON line on stderr (every stderr line is JSON); on a terminal it stays text', async () => {
    const r = await runShip(['smoke', '--json'], { env });
    expect(r.code, r.stderr).toBe(0);
    const { shipment_reference: ref } = JSON.parse(r.stdout);
    expect(r.stderr.trimEnd().split('\n').map((l) => JSON.parse(l))).toEqual([{ info: { message: `Smoke test against ${proxy.baseUrl}, reference ${ref}` } }]);
    const text = await runShip(['smoke'], { env });
    expect(text.code, text.stderr).toBe(0);
    expect(text.stderr).toMatch(new RegExp(`^Smoke test against ${proxy.baseUrl.replace(/[.]/g, '\\.')}, reference SMOKE-\\d{14}-[0-9A-F]{6}\n$`));
    expect(await leftBehind(2)).toEqual([]);
  });

  it.each(['PDF', 'PNG'])('checks a %s label', async (format) => {
    const r = await runShip(['smoke', '--format', format], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`✓ label +\\d+ms  ${format}, \\d+ bytes`));
    expect(r.stdout).toMatch(/All 7 steps passed/);
    expect(proxy.log.some((l) => l.path.includes('/label'))).toBe(true);
    expect(await leftBehind(1)).toEqual([]);
  });

  it('exits 4 at the token step when the token was revoked, creating nothing', async () => {
    await fetch(`${sb.baseUrl}/tokens`, { method: 'DELETE', headers: { 'x-service-api-key': env.SHIP_API_KEY, 'x-service-token': env.SHIP_TOKEN } });
    const r = await runShip(['smoke', '--json'], { env });
    expect(r.code).toBe(4);
    const report = JSON.parse(r.stdout);
    expect(report.ok).toBe(false);
    expect(report.steps[0]).toMatchObject({ name: 'token', ok: false, exit_code: 4 });
    expect(report.steps.slice(1).every((s: { skipped?: boolean }) => s.skipped)).toBe(true);
    expect(report.cleaned_up).toBe(true);
    expect(proxy.log.some((l) => l.method === 'POST' && l.path.endsWith('/shipments'))).toBe(false);
    expect(JSON.parse(r.stderr.trim().split('\n').at(-1)!).error.exit_code).toBe(4);
    expect(await leftBehind(0)).toEqual([]);
  });

  it('exits 1 when the sandbox injects 503s on every request', async () => {
    await sb.control('faults', { fail_rate: 1, status: 503 });
    try {
      const r = await runShip(['smoke', '--json'], { env: { ...env, SHIP_TIMEOUT: '5' } });
      expect(r.code).toBe(1);
      const report = JSON.parse(r.stdout);
      expect(report.steps[0]).toMatchObject({ name: 'token', ok: false, exit_code: 1 });
      expect(report.steps[0].error).toMatch(/503/);
    } finally {
      await sb.control('faults', {});
    }
    expect(await leftBehind(0)).toEqual([]);
  });

  it('cancels the shipment when a step after create fails, and exits with that step’s code', async () => {
    proxy.rule = (method, path) => (method === 'GET' && path.endsWith('/label') ? { status: 500 } : undefined);
    const r = await runShip(['smoke'], { env });
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/✗ label/);
    expect(r.stdout).toMatch(/– track +skipped/);
    expect(r.stdout).toMatch(/✓ cancel .*cancelled SMOKE-/);
    expect(r.stderr).toMatch(/smoke test failed at step "label"/);
    expect(proxy.log.filter((l) => l.method === 'DELETE').map((l) => l.status)).toEqual([200]);
    expect(await leftBehind(1)).toEqual([]);
  });

  it('cancels when the create answer is lost on the way back (outcome unknown to the client)', async () => {
    proxy.rule = (method, path) => (method === 'POST' && path.endsWith('/v1.2/shipments') ? { loseAnswer: 502 } : undefined);
    const r = await runShip(['smoke', '--json'], { env });
    expect(r.code).toBe(1);
    const report = JSON.parse(r.stdout);
    expect(report.steps.find((s: { name: string }) => s.name === 'create')).toMatchObject({ ok: false, exit_code: 1 });
    expect(report.steps.at(-1)).toMatchObject({ name: 'cancel', ok: true, detail: `cancelled ${report.shipment_reference}` });
    expect(report.cleaned_up).toBe(true);
    expect(await leftBehind(1)).toEqual([]);
  });

  it('treats a 404 on cleanup after a failed create as nothing to clean', async () => {
    proxy.rule = (method, path) => (method === 'POST' && path.endsWith('/v1.2/shipments') ? { status: 503 } : undefined);
    const r = await runShip(['smoke', '--json'], { env });
    expect(r.code).toBe(1);
    const report = JSON.parse(r.stdout);
    expect(report.steps.at(-1)).toMatchObject({ name: 'cancel', ok: true, detail: 'nothing was created' });
    expect(report.cleaned_up).toBe(true);
    expect(await leftBehind(0)).toEqual([]);
  });

  it('on interrupt: finishes cleanup, then Interrupted (exit 130)', async () => {
    const io = bufferIO();
    const abort = new AbortController();
    const ctx = createContext({ io, env: { ...env, NO_COLOR: '1' }, signal: abort.signal });
    ctx.globals = { json: true };
    proxy.rule = (method, path) => {
      if (method === 'GET' && path.endsWith('/label')) {
        setTimeout(() => abort.abort(new Interrupted()), 20);
        return { delayMs: 500 };
      }
      return undefined;
    };
    const err = await smoke(ctx, { format: 'ZPL', keep: false }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Interrupted);
    const report = JSON.parse(io.out());
    expect(report.steps.find((s: { name: string }) => s.name === 'label')).toMatchObject({ ok: false, exit_code: 130 });
    expect(report.steps.at(-1)).toMatchObject({ name: 'cancel', ok: true });
    expect(report.cleaned_up).toBe(true);
    expect(await leftBehind(1)).toEqual([]);
  });

  it('--keep leaves the shipment and says so', async () => {
    const r = await runShip(['smoke', '--keep', '--json'], { env });
    expect(r.code, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(report).toMatchObject({ ok: true, kept: true, cleaned_up: false });
    expect(proxy.log.some((l) => l.method === 'DELETE')).toBe(false);
    expect(await leftBehind(1, 1)).toEqual([report.shipment_reference]);
  });

  it('exits 4 without credentials', async () => {
    const r = await runShip(['smoke'], { env: { SHIP_BASE_URL: proxy.baseUrl, SHIP_CONFIG_DIR: tempConfigDir() } });
    expect(r.code).toBe(4);
    expect(r.stdout).toMatch(/✗ token/);
  });
});

describe('ship smoke flags', () => {
  it('takes the format in any case, refuses others, and --quiet prints only failures (or the kept reference)', async () => {
    const bad = await runShip(['smoke', '--format', 'gif'], { env });
    expect(bad.code).toBe(2);
    const quiet = await runShip(['smoke', '--format', 'pdf', '--quiet'], { env });
    expect(quiet.code, quiet.stderr).toBe(0);
    expect(quiet.stdout).toBe('');
    const kept = await runShip(['smoke', '--quiet', '--keep'], { env });
    expect(kept.code).toBe(0);
    expect(kept.stdout).toMatch(/^SMOKE-\d{14}-[0-9A-F]{6}\n$/);
    expect(await leftBehind(2, 1)).toEqual([kept.stdout.trim()]);
  });
});
