// Conformance of the fault injection control endpoint (cli-contract: POST /__sandbox/faults).
import { request } from 'undici';
import { describe, expect, it } from 'vitest';
import { sandboxSuite } from './client.js';

const { sb, api } = await sandboxSuite();

describe('POST /__sandbox/faults', () => {
  it('fail_rate 1 with a status answers that status with the envelope on API routes', async () => {
    await sb.control('faults', { fail_rate: 1, status: 502 });
    const r = await api.get('/brands');
    expect(r.status).toBe(502);
    expect(r.body).toEqual({ message: expect.stringContaining('502'), data: null });
  });

  it('the default fault status is 503', async () => {
    await sb.control('faults', { fail_rate: 1 });
    expect((await api.get('/brands')).status).toBe(503);
  });

  it('control endpoints are never faulted, and {} clears every fault', async () => {
    await sb.control('faults', { fail_rate: 1, latency_ms: 5 });
    const health = await fetch(`${sb.url}/__sandbox/health`);
    expect(health.status).toBe(200);
    await sb.control('faults', {});
    expect((await api.get('/brands')).status).toBe(200);
    expect((await sb.control('GET faults')).data).toEqual({ fail_rate: 0, status: 503, latency_ms: 0, reset_rate: 0, rate_limit_per_s: null });
  });

  it('latency_ms delays answers', async () => {
    await sb.control('faults', { latency_ms: 150 });
    const t0 = performance.now();
    expect((await api.get('/brands')).status).toBe(200);
    expect(performance.now() - t0).toBeGreaterThanOrEqual(140);
  });

  it('rate_limit_per_s answers 429 with Retry-After beyond the limit', async () => {
    await sb.control('faults', { rate_limit_per_s: 3 });
    const statuses: number[] = [];
    let retryAfter: string | null = null;
    for (let i = 0; i < 6; i++) {
      const r = await api.get('/brands');
      statuses.push(r.status);
      if (r.status === 429) {
        retryAfter = r.headers.get('retry-after');
        expect(r.body.data).toBeNull();
      }
    }
    expect(statuses.filter((s) => s === 200).length).toBeLessThanOrEqual(4);
    expect(statuses).toContain(429);
    expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
  });

  it('reset_rate 1 destroys the connection (the client sees a socket error)', async () => {
    await sb.control('faults', { reset_rate: 1 });
    await expect(
      request(`${sb.baseUrl}/brands`, { headers: { 'x-service-api-key': sb.apiKey } }).then((r) => r.body.text()),
    ).rejects.toThrow();
  });

  it('fail_rate 0.5 fails about half of the requests', async () => {
    await sb.control('faults', { fail_rate: 0.5, status: 500 });
    let failed = 0;
    for (let i = 0; i < 200; i++) if ((await api.get('/packaging-options')).status === 500) failed++;
    expect(failed).toBeGreaterThan(50);
    expect(failed).toBeLessThan(150);
  });

  it('bad settings → 400 validation', async () => {
    const res = await fetch(`${sb.url}/__sandbox/faults`, { method: 'POST', body: JSON.stringify({ fail_rate: 2, status: 200 }) });
    expect(res.status).toBe(400);
    const body = (await res.json()) as any;
    expect(Object.keys(body.data).sort()).toEqual(['fail_rate', 'status']);
  });

  it('reset clears faults', async () => {
    await sb.control('faults', { fail_rate: 1 });
    await sb.reset();
    expect((await api.get('/brands')).status).toBe(401); // token gone with the reset, but no fault
  });
});
