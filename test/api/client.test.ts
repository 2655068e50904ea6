// Client mechanics: retries (which requests, when, how long), time limits, aborts, traces, keep-alive, headers.
import { afterEach, describe, expect, it } from 'vitest';
import { MockAgent } from 'undici';
import { createApi, type Api } from '../../src/api/index.js';
import { networkKind, parseRetryAfter, summariseBody } from '../../src/api/client.js';
import { startScenarioServer, type ScenarioServer } from './scenario-server.js';
import { API_KEY, TOKEN, validShipment } from './fixtures.js';

const ORIGIN = 'http://api.test.invalid';
const BASE = `${ORIGIN}/v1.2`;

let mock: MockAgent | undefined;
let srv: ScenarioServer | undefined;
let api: Api | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
  await mock?.close();
  mock = undefined;
  await srv?.close();
  srv = undefined;
});

/** A MockAgent that refuses real network traffic, and an Api over it whose sleeps are recorded, not waited. */
function mocked(opts: { maxRetries?: number; trace?: string[]; onWait?: () => () => void; onSleep?: () => void } = {}) {
  mock = new MockAgent();
  mock.disableNetConnect();
  const sleeps: number[] = [];
  api = createApi({
    baseUrl: BASE,
    apiKey: API_KEY,
    token: TOKEN,
    dispatcher: mock,
    maxRetries: opts.maxRetries,
    sleep: async (ms) => {
      sleeps.push(ms);
      opts.onSleep?.();
    },
    random: () => 0.5,
    trace: opts.trace ? (l) => opts.trace!.push(l) : undefined,
    onWait: opts.onWait,
  });
  return { pool: mock.get(ORIGIN), sleeps, api };
}

const ok = (data: unknown) => ({ message: 'ok', data });

describe('retries', () => {
  it('GET: 503 then 200 succeeds after 2 attempts', async () => {
    const { pool, sleeps, api } = mocked();
    let attempts = 0;
    pool.intercept({ path: '/v1.2/users', method: 'GET' }).reply(() => {
      attempts++;
      return { statusCode: 503, data: { message: 'Service Unavailable', data: null } };
    });
    pool.intercept({ path: '/v1.2/users', method: 'GET' }).reply(() => {
      attempts++;
      return { statusCode: 200, data: { data: [{ id: 'u1' }] } };
    });
    const users = await api.users.list();
    expect(users.map((u) => u.id)).toEqual(['u1']);
    expect(attempts).toBe(2);
    // Full jitter: random() * min(cap, 250 * 2^0) with random() = 0.5.
    expect(sleeps).toEqual([125]);
  });

  it('GET: gives up after maxRetries + 1 attempts with backoff growing exponentially', async () => {
    const { pool, sleeps, api } = mocked({ maxRetries: 3 });
    let attempts = 0;
    pool
      .intercept({ path: '/v1.2/brands', method: 'GET' })
      .reply(() => {
        attempts++;
        return { statusCode: 502, data: { message: 'Bad Gateway', data: null } };
      })
      .persist();
    await expect(api.brands.list()).rejects.toMatchObject({ name: 'ApiError', http: { status: 502, attempts: 4 }, message: 'GET /brands: the API answered 502 after 4 attempts: Bad Gateway' });
    expect(attempts).toBe(4);
    expect(sleeps).toEqual([125, 250, 500]);
  });

  it('POST /shipments answered 503 is NOT retried (1 attempt, ApiError)', async () => {
    const { pool, sleeps, api } = mocked();
    let attempts = 0;
    pool
      .intercept({ path: '/v1.2/shipments', method: 'POST' })
      .reply(() => {
        attempts++;
        return { statusCode: 503, data: { message: 'Service Unavailable', data: null } };
      })
      .persist();
    await expect(api.shipments.create(validShipment() as never)).rejects.toMatchObject({ name: 'ApiError', exitCode: 1, http: { status: 503, method: 'POST', path: '/shipments' } });
    expect(attempts).toBe(1);
    expect(sleeps).toEqual([]);
  });

  it('POST with a network error is NOT retried, and says the outcome is unknown', async () => {
    const { pool, api } = mocked();
    let attempts = 0;
    pool
      .intercept({ path: '/v1.2/containers', method: 'POST' })
      .reply(() => {
        attempts++;
        throw Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' });
      })
      .persist();
    const err = await api.containers.create({ delivery_service_key: 'C', clearance_country: 'IE', clearance_location: 'DUB' } as never).catch((e: unknown) => e);
    expect(err).toMatchObject({ name: 'NetworkError', kind: 'reset', hint: expect.stringMatching(/may or may not/) });
    expect(attempts).toBe(1);
  });

  it('PATCH is not retried either', async () => {
    const { pool, api } = mocked();
    let attempts = 0;
    pool
      .intercept({ path: '/v1.2/containers/C1/close', method: 'PATCH' })
      .reply(() => {
        attempts++;
        return { statusCode: 503, data: { message: 'x', data: null } };
      })
      .persist();
    await expect(api.containers.close('C1')).rejects.toMatchObject({ http: { status: 503 } });
    expect(attempts).toBe(1);
  });

  it('PUT /shipments/:ref/print is not retried: each call prints the labels again', async () => {
    const { pool, api } = mocked();
    let attempts = 0;
    pool
      .intercept({ path: '/v1.2/shipments/S1/print', method: 'PUT' })
      .reply(() => {
        attempts++;
        return { statusCode: 502, data: { message: 'bad gateway', data: null } };
      })
      .persist();
    await expect(api.shipments.print('S1')).rejects.toMatchObject({ http: { status: 502 } });
    expect(attempts).toBe(1);
  });

  it('429 with Retry-After: 1 waits the requested 1000 ms, spread a little (injected sleep)', async () => {
    const { pool, sleeps, api } = mocked();
    pool.intercept({ path: '/v1.2/locations', method: 'GET' }).reply(429, { message: 'Too Many Attempts.', data: null }, { headers: { 'retry-after': '1' } });
    pool.intercept({ path: '/v1.2/locations', method: 'GET' }).reply(200, ok({ data: [{ id: 'l1' }] }));
    expect((await api.locations.list()).map((l) => l.id)).toEqual(['l1']);
    expect(sleeps).toEqual([1125]); // and a quarter of it at most more (random 0.5 here): not all at once
  });

  it('429 Retry-After is capped at 60 s; on the last attempt the error carries retryAfterMs', async () => {
    const { pool, sleeps, api } = mocked({ maxRetries: 1 });
    pool
      .intercept({ path: '/v1.2/services', method: 'GET' })
      .reply(429, { message: 'Too Many Attempts.', data: null }, { headers: { 'retry-after': '3600' } })
      .persist();
    await expect(api.services.list()).rejects.toMatchObject({ name: 'ApiError', http: { status: 429, retryAfterMs: 3_600_000 } });
    expect(sleeps).toEqual([60_500]); // the cap, and 1 s at most more
  });

  it('429 on POST is retried after Retry-After (the service refused it without acting on it); 503 on POST is not', async () => {
    const { pool, sleeps, api } = mocked();
    let posts = 0;
    pool
      .intercept({ path: '/v1.2/shipments/get-services', method: 'POST' })
      .reply(() => {
        posts++;
        return { statusCode: 429, data: { message: 'slow down', data: null }, responseOptions: { headers: { 'retry-after': '1' } } };
      })
      .times(2);
    pool.intercept({ path: '/v1.2/shipments/get-services', method: 'POST' }).reply(200, ok({ services: [] }));
    await api.shipments.getServices(validShipment() as never);
    expect(posts).toBe(2);
    expect(sleeps).toEqual([1125, 1125]);
    // Past the retries, the error says how many attempts it took.
    const limited = mocked({ maxRetries: 1 });
    limited.pool.intercept({ path: '/v1.2/shipments/get-services', method: 'POST' }).reply(429, { message: 'slow down', data: null }, { headers: { 'retry-after': '2' } }).persist();
    await expect(limited.api.shipments.getServices(validShipment() as never)).rejects.toMatchObject({ http: { status: 429, retryAfterMs: 2000, attempts: 2 } });
    expect(limited.sleeps).toEqual([2250]);
    // A 503 may come after the work was done: a POST is not sent again.
    const down = mocked();
    down.pool.intercept({ path: '/v1.2/shipments/get-services', method: 'POST' }).reply(503, { message: 'down', data: null });
    await expect(down.api.shipments.getServices(validShipment() as never)).rejects.toMatchObject({ http: { status: 503 } });
    expect(down.sleeps).toEqual([]);
  });

  it('a 404 for a named resource under a base URL without /v1.2 says to check the base URL, not only "not found"', async () => {
    const mock = new MockAgent();
    mock.disableNetConnect();
    const pool = mock.get(ORIGIN);
    pool.intercept({ path: '/v1.1/shipments/S-1/events', method: 'GET' }).reply(404, { message: 'Unknown route', data: null });
    const api = createApi({ baseUrl: `${ORIGIN}/v1.1`, apiKey: API_KEY, token: TOKEN, dispatcher: mock, sleep: async () => {} });
    await expect(api.shipments.events('S-1')).rejects.toMatchObject({ name: 'NotFoundError', hint: expect.stringContaining('it must end with the API version ship speaks, …/v1.2') });
    const right = mocked();
    right.pool.intercept({ path: '/v1.2/shipments/S-1/events', method: 'GET' }).reply(404, { message: 'No such shipment', data: null });
    await expect(right.api.shipments.events('S-1')).rejects.toMatchObject({ name: 'NotFoundError', hint: undefined });
  });

  it('a POST failed with a 5xx, not sent again, says so and to check before running the command again', async () => {
    const { pool, api } = mocked();
    pool.intercept({ path: '/v1.2/skus', method: 'POST' }).reply(503, { message: 'down', data: null });
    await expect(api.skus.create({ sku: 'X-1' } as never)).rejects.toMatchObject({ http: { status: 503 }, hint: expect.stringMatching(/^not sent again: the service may have acted on it/) });
  });

  it('a print (sent once: each call prints) is sent again after a 429, which printed nothing; not after a 503', async () => {
    const { pool, sleeps, api } = mocked();
    pool.intercept({ path: '/v1.2/shipments/P-1/print', method: 'PUT' }).reply(429, { message: 'slow down', data: null }, { headers: { 'retry-after': '1' } });
    pool.intercept({ path: '/v1.2/shipments/P-1/print', method: 'PUT' }).reply(200, { message: 'Labels sent', data: null });
    expect(await api.shipments.print('P-1')).toEqual({ message: 'Labels sent' });
    expect(sleeps).toEqual([1125]);
    const down = mocked();
    down.pool.intercept({ path: '/v1.2/shipments/P-1/print', method: 'PUT' }).reply(503, { message: 'down', data: null });
    await expect(down.api.shipments.print('P-1')).rejects.toMatchObject({ http: { status: 503 } });
    expect(down.sleeps).toEqual([]);
  });

  it('429 on POST is left to a caller that retries itself (callerRetries: the bulk runner)', async () => {
    const { pool, sleeps, api } = mocked();
    pool.intercept({ path: '/v1.2/shipments', method: 'POST' }).reply(429, { message: 'slow down', data: null }, { headers: { 'retry-after': '1' } });
    await expect(api.shipments.createPrevalidated(JSON.stringify(validShipment()), { callerRetries: true })).rejects.toMatchObject({ http: { status: 429, retryAfterMs: 1000 } });
    expect(sleeps).toEqual([]);
  });

  it('500 is not retried (not a transient status)', async () => {
    const { pool, sleeps, api } = mocked();
    pool.intercept({ path: '/v1.2/users', method: 'GET' }).reply(500, { message: 'Server Error', data: null });
    await expect(api.users.list()).rejects.toMatchObject({ http: { status: 500 } });
    expect(sleeps).toEqual([]);
  });

  it('GET: network reset then success is retried', async () => {
    const { pool, api } = mocked();
    let attempts = 0;
    pool.intercept({ path: '/v1.2/packaging-options', method: 'GET' }).replyWithError(Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' }));
    pool.intercept({ path: '/v1.2/packaging-options', method: 'GET' }).reply(() => {
      attempts++;
      return { statusCode: 200, data: ok({ net_weight: false, allow_override: true, packaging_types: [] }) };
    });
    expect((await api.packaging.get()).allow_override).toBe(true);
    expect(attempts).toBe(1);
  });

  it('GET on a real loopback server: a destroyed socket is retried and succeeds', async () => {
    srv = await startScenarioServer();
    srv.on('GET', '/v1.2/users', [{ destroy: true }, { body: { data: [{ id: 'u1' }] } }]);
    api = createApi({ baseUrl: srv.baseUrl, apiKey: API_KEY, token: TOKEN, sleep: async () => {} });
    expect((await api.users.list())[0].id).toBe('u1');
    expect(srv.requests.filter((r) => r.url === '/v1.2/users')).toHaveLength(2);
  });

  it('Retry-After: 1 really waits about a second (real clock, loopback)', async () => {
    srv = await startScenarioServer();
    srv.on('GET', '/v1.2/brands', [{ status: 429, body: { message: 'Too Many Attempts.', data: null }, headers: { 'retry-after': '1' } }, { body: ok([]) }]);
    api = createApi({ baseUrl: srv.baseUrl, apiKey: API_KEY, token: TOKEN });
    const t0 = performance.now();
    expect(await api.brands.list()).toEqual([]);
    expect(performance.now() - t0).toBeGreaterThanOrEqual(950);
    expect(srv.requests).toHaveLength(2);
  });
});

describe('time limits and aborts', () => {
  it('a slow answer is a NetworkError of kind timeout', async () => {
    srv = await startScenarioServer();
    srv.on('GET', '/v1.2/users', { delayMs: 2000, body: { data: [] } });
    api = createApi({ baseUrl: srv.baseUrl, apiKey: API_KEY, token: TOKEN, timeoutMs: 100, maxRetries: 0 });
    const t0 = performance.now();
    await expect(api.users.list()).rejects.toMatchObject({ name: 'NetworkError', kind: 'timeout', exitCode: 1, hint: expect.stringMatching(/--timeout/) });
    expect(performance.now() - t0).toBeLessThan(1500);
  });

  it("the caller's signal aborts the request with its reason, without retries", async () => {
    srv = await startScenarioServer();
    srv.on('GET', '/v1.2/users', { delayMs: 400, body: { data: [] } });
    api = createApi({ baseUrl: srv.baseUrl, apiKey: API_KEY, token: TOKEN });
    const ac = new AbortController();
    const reason = new Error('stop now');
    setTimeout(() => ac.abort(reason), 50);
    await expect(api.users.list({ signal: ac.signal })).rejects.toBe(reason);
    expect(srv.requests).toHaveLength(1);
  });

  it('an abort during the back-off wait stops retrying', async () => {
    srv = await startScenarioServer();
    srv.on('GET', '/v1.2/users', { status: 503, body: { message: 'x', data: null }, headers: { 'retry-after': '5' } });
    api = createApi({ baseUrl: srv.baseUrl, apiKey: API_KEY, token: TOKEN });
    const ac = new AbortController();
    setTimeout(() => ac.abort(new Error('interrupted')), 100);
    const t0 = performance.now();
    await expect(api.users.list({ signal: ac.signal })).rejects.toThrow('interrupted');
    expect(performance.now() - t0).toBeLessThan(2000);
    expect(srv.requests).toHaveLength(1);
  });
});

describe('connections and headers', () => {
  it('keep-alive: sequential requests reuse one connection', async () => {
    srv = await startScenarioServer();
    srv.on('GET', '/v1.2/users', { body: { data: [] } });
    srv.on('GET', '/v1.2/brands', { body: ok([]) });
    api = createApi({ baseUrl: srv.baseUrl, apiKey: API_KEY, token: TOKEN });
    await api.users.list();
    await api.brands.list();
    await api.users.list();
    expect(srv.requests.map((r) => r.connection)).toEqual([1, 1, 1]);
    expect(srv.connections).toBe(1);
  });

  it('keeps the base URL path and tolerates a trailing slash', async () => {
    srv = await startScenarioServer();
    srv.on('GET', '/v1.2/users', { body: { data: [] } });
    api = createApi({ baseUrl: `${srv.baseUrl}/`, apiKey: API_KEY, token: TOKEN });
    await api.users.list();
    expect(srv.requests[0].url).toBe('/v1.2/users');
  });

  it('no token configured: no X-SERVICE-TOKEN header; no API key: no key header', async () => {
    srv = await startScenarioServer();
    srv.on('GET', '/v1.2/users', { body: { data: [] } });
    api = createApi({ baseUrl: srv.baseUrl, apiKey: API_KEY, userAgent: 'ship/9.9.9 test' });
    await api.users.list();
    expect(srv.requests[0].headers['x-service-token']).toBeUndefined();
    expect(srv.requests[0].headers['x-service-api-key']).toBe(API_KEY);
    expect(srv.requests[0].headers['user-agent']).toBe('ship/9.9.9 test');
  });

  it('close() closes the owned agent; later calls fail clearly', async () => {
    srv = await startScenarioServer();
    srv.on('GET', '/v1.2/users', { body: { data: [] } });
    api = createApi({ baseUrl: srv.baseUrl, apiKey: API_KEY, token: TOKEN });
    await api.users.list();
    await api.close();
    await expect(api.users.list()).rejects.toThrow(/closed/);
  });

  it('an invalid base URL is a usage error', () => {
    expect(() => createApi({ baseUrl: 'not a url' })).toThrow(/invalid base URL/);
    expect(() => createApi({ baseUrl: 'ftp://x/v1.2' })).toThrow(/only http and https/);
  });
});

describe('trace (--verbose)', () => {
  it('one line per request and per response; secrets masked everywhere', async () => {
    const lines: string[] = [];
    const { pool, api } = mocked({ trace: lines });
    pool.intercept({ path: '/v1.2/tokens', method: 'POST' }).reply(200, { message: 'Login Successful', data: { token: 'brand-new-token-abcdef123456' } });
    await api.tokens.create({ username: 'demo@example.com', password: 'hunter2-secret-pw' });
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^→ POST http:\/\/api\.test\.invalid\/v1\.2\/tokens \[X-SERVICE-API-KEY: \*\*\*\*cdef\] /);
    expect(lines[0]).toContain('"username":"demo@example.com"');
    expect(lines[1]).toMatch(/^← 200 \(\d+ ms\) /);
    const all = lines.join('\n');
    for (const secret of [API_KEY, TOKEN, 'hunter2-secret-pw', 'brand-new-token-abcdef123456']) expect(all).not.toContain(secret);
    expect(all).toContain('"password":"****"');
    expect(all).toContain('"token":"****"');
  });

  it('shows retries and attempt numbers, and shortens long strings', async () => {
    const lines: string[] = [];
    const { pool, api } = mocked({ trace: lines });
    pool.intercept({ path: '/v1.2/parcels/T1/label?format=ZPL', method: 'GET' }).reply(503, { message: 'busy', data: null });
    pool.intercept({ path: '/v1.2/parcels/T1/label?format=ZPL', method: 'GET' }).reply(200, ok([{ zpl: `^XA${'A'.repeat(5000)}^XZ` }]));
    const labels = await api.parcels.label('T1', { format: 'ZPL' });
    expect(labels[0].zpl).toHaveLength(5006);
    expect(lines[0]).toMatch(/^→ GET .*\/v1\.2\/parcels\/T1\/label\?format=ZPL \[X-SERVICE-API-KEY: \*\*\*\*cdef, X-SERVICE-TOKEN: \*\*\*\*3210\]$/);
    expect(lines[1]).toMatch(/^← 503 \(\d+ ms\)/);
    expect(lines[2]).toBe('  retrying in 125 ms (attempt 2/4)');
    expect(lines[3]).toMatch(/\(attempt 2\/4\)/);
    expect(lines[4]).toContain('(5006 chars)');
    expect(lines[4].length).toBeLessThan(400);
  });

  it('errors carry no secret a server echoed back (bulk runs write them to stdout, FILE.failed.csv, the journal)', async () => {
    const { pool, api } = mocked({ maxRetries: 0 });
    const echo = `key=${API_KEY} tok=${TOKEN}`;
    pool.intercept({ path: '/v1.2/shipments', method: 'POST' }).reply(500, { message: `boom ${echo}`, data: null });
    const e500 = await api.shipments.create(validShipment() as never).catch((e) => e);
    pool.intercept({ path: '/v1.2/shipments', method: 'POST' }).reply(400, { message: `bad ${echo}`, data: { to_address: [`not ${API_KEY}`] } });
    const e400 = await api.shipments.create(validShipment() as never).catch((e) => e);
    const seen = JSON.stringify([e500.message, e500.http, e400.message, e400.fields, e400.http]);
    expect(seen).not.toContain(API_KEY);
    expect(seen).not.toContain(TOKEN);
    expect(e500.message).toContain('boom key=****cdef');
    expect(e400.fields.to_address).toEqual(['not ****cdef']);
  });

  it('redact finds secrets escaped inside JSON text, once or twice, and password values in quoted JSON', async () => {
    const { redact } = await import('../../src/output/redact.js');
    const secret = 'KEY\\sec"ret.*+?1234';
    const once = JSON.stringify({ m: `echo ${secret}` });
    const twice = JSON.stringify({ error: once });
    for (const text of [once, twice]) expect(redact(text, [secret])).not.toContain('sec');
    expect(redact(JSON.stringify({ message: JSON.stringify({ password: 'Pa55w0rd-supersecret' }) }), [])).not.toContain('Pa55w0rd');
    // A password the client does not know, with a quote or a backslash in it, quoted twice: masked whole.
    for (const pw of ['ab"cdefgh', 'a\\bcdefgh']) expect(redact(JSON.stringify({ message: JSON.stringify({ password: pw, user: 'u' }) }), [])).not.toContain('cdefgh');
    // Short secrets are left alone (masking "ab1" would garble every word holding it).
    expect(redact('tab1e', ['ab1'])).toBe('tab1e');
  });

  it('summariseBody masks a secret before cutting a long string short (a secret across the cut showed its first part)', () => {
    const message = `${'y'.repeat(25)}${TOKEN}: ${'x'.repeat(260)}`;
    const s = summariseBody({ message }, [TOKEN]);
    expect(s).not.toContain(TOKEN.slice(0, 12));
    expect(s).toMatch(/… \(\d+ chars\)/);
  });

  it('summariseBody masks a value under a secret\'s key wherever else the body repeats it (a new token in POST /tokens\' message)', () => {
    const fresh = 'f4e5d6c7b8a9f4e5d6c7b8a9f4e5d6c7';
    for (const body of [{ message: `Your token is ${fresh}`, data: { token: fresh } }, { message: `issued ${fresh}`, data: { session_token: fresh } }]) {
      const s = summariseBody(body, []);
      expect(s).not.toContain(fresh);
    }
  });

  it('a success that quotes a credential back is masked in what the caller gets (it goes on to stdout, results and journals)', async () => {
    const { pool, api } = mocked();
    pool.intercept({ path: '/v1.2/users', method: 'GET' }).reply(200, { message: `ok for ${API_KEY}`, data: [{ id: 'u1', name: `token ${TOKEN}` }] });
    const users = await api.users.list();
    expect(JSON.stringify(users)).not.toContain(TOKEN);
    expect(users[0].id).toBe('u1');
  });

  it('POST /tokens\' answer keeps its token as issued, even the one in use (masked, it was stored as ****…)', async () => {
    const { pool, api } = mocked();
    pool.intercept({ path: '/v1.2/tokens', method: 'POST' }).reply(200, { message: 'ok', data: { token: TOKEN } });
    expect((await api.tokens.create({ username: 'demo@example.com', password: 'pw' })).token).toBe(TOKEN);
  });

  it('a success quoting a credential percent-encoded is masked too; a password (not a credential a server quotes) is left in data', async () => {
    mock = new MockAgent();
    mock.disableNetConnect();
    const key = 'abcd+efgh/ijkl=mnop';
    const client = createApi({ baseUrl: BASE, apiKey: key, token: TOKEN, secrets: ['kimlee2024'], dispatcher: mock, sleep: async () => {} });
    mock.get(ORIGIN).intercept({ path: '/v1.2/users', method: 'GET' }).reply(200, { message: 'ok', data: [{ id: 'u1', email: 'kimlee2024@example.com', first_name: `k=${encodeURIComponent(key)}` }] });
    const users = await client.users.list();
    expect(JSON.stringify(users)).not.toContain(encodeURIComponent(key));
    expect(users[0].email).toBe('kimlee2024@example.com');
  });

  it('a content type that quotes a credential is masked in the error it makes', async () => {
    const { pool, api } = mocked();
    pool.intercept({ path: '/v1.2/users', method: 'GET' }).reply(500, '<html>', { headers: { 'content-type': `text/html; debug-key=${API_KEY}` } });
    const err = await api.users.list().then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(err?.message).toContain('text/html; debug-key=');
    expect(err?.message).not.toContain(API_KEY);
  });

  it('summariseBody truncates to about 2 KB', () => {
    const s = summariseBody({ list: Array.from({ length: 500 }, (_, i) => `item-${i}`) }, []);
    expect(s.length).toBeLessThan(2100);
    expect(s).toMatch(/… \(\d+ chars\)$/);
  });
});

describe('onWait (the CLI\'s spinner)', () => {
  it('is told once per request, retries included, and the wait ends once the request is settled, failed or not', async () => {
    const log: string[] = [];
    const { pool, api } = mocked({
      onWait: () => {
        log.push('begin');
        return () => log.push('end');
      },
      onSleep: () => log.push('backoff'),
    });
    pool.intercept({ path: '/v1.2/users', method: 'GET' }).reply(503, { message: 'Service Unavailable', data: null });
    pool.intercept({ path: '/v1.2/users', method: 'GET' }).reply(200, { data: [{ id: 'u1' }] });
    await api.users.list();
    expect(log).toEqual(['begin', 'backoff', 'end']);

    log.length = 0;
    pool.intercept({ path: '/v1.2/users', method: 'GET' }).reply(401, { message: 'Unauthenticated', data: null });
    await expect(api.users.list()).rejects.toThrow(/401/);
    expect(log).toEqual(['begin', 'end']);
  });
});

describe('helpers', () => {
  it('parseRetryAfter: seconds and HTTP-date', () => {
    expect(parseRetryAfter('1')).toBe(1000);
    expect(parseRetryAfter('0.5')).toBe(500);
    const now = Date.parse('2026-11-21T09:00:00Z');
    expect(parseRetryAfter('Sat, 21 Nov 2026 09:00:30 GMT', now)).toBe(30_000);
    expect(parseRetryAfter('Sat, 21 Nov 2026 08:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('soon')).toBeUndefined();
    expect(parseRetryAfter(undefined)).toBeUndefined();
  });

  it('networkKind maps Node and undici failures', () => {
    expect(networkKind(Object.assign(new Error('x'), { code: 'ECONNREFUSED' }))).toBe('refused');
    expect(networkKind(new AggregateError([Object.assign(new Error('a'), { code: 'ECONNREFUSED' })], 'x'))).toBe('refused');
    expect(networkKind(Object.assign(new Error('x'), { code: 'UND_ERR_HEADERS_TIMEOUT' }))).toBe('timeout');
    expect(networkKind(Object.assign(new Error('x'), { cause: Object.assign(new Error('y'), { code: 'ENOTFOUND' }) }))).toBe('dns');
    expect(networkKind(Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' }))).toBe('reset');
    expect(networkKind(new Error('weird'))).toBe('other');
  });
});
