// Starts the embedded sandbox in this process on a free loopback port, with helpers for logging in and control calls.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { startSandbox, type RunningSandbox, type SandboxOptions } from '../../src/sandbox/server.js';

/** A running in-process sandbox plus shortcuts tests need. */
export interface TestSandbox extends RunningSandbox {
  /** SHIP_BASE_URL and SHIP_API_KEY for running the binary against this sandbox. */
  env: { SHIP_BASE_URL: string; SHIP_API_KEY: string };
  /** The API key this sandbox accepts. */
  apiKey: string;
  /** POST /tokens with the seeded (or given) credentials; resolves to the token. */
  login(username?: string, password?: string): Promise<string>;
  /** env plus SHIP_TOKEN from a fresh login. */
  authEnv(): Promise<ApiAuth>;
  /**
   * POST /__sandbox/<path> with a JSON body (default `{}`); `'GET <path>'` (or a read-only path such as
   * `webhooks/deliveries` or `prints` without a body) does a GET. Resolves to the parsed body; rejects on HTTP >= 400.
   */
  control(path: string, body?: unknown): Promise<any>;
  /** POST /__sandbox/reset: back to the seeded state. */
  reset(): Promise<void>;
}

const READ_ONLY = new Set(['health', 'webhooks/deliveries', 'prints']);

/** Starts a sandbox on 127.0.0.1 and a free port (close it in afterAll/afterEach). */
export async function startTestSandbox(opts: SandboxOptions = {}): Promise<TestSandbox> {
  const apiKey = opts.apiKey ?? 'sandbox-api-key';
  const username = opts.username ?? 'demo@example.com';
  const password = opts.password ?? 'demo-password';
  const sb = await startSandbox({ host: '127.0.0.1', port: 0, log: () => {}, ...opts });
  const env = { SHIP_BASE_URL: sb.baseUrl, SHIP_API_KEY: apiKey };

  const login = async (u = username, p = password): Promise<string> => {
    const res = await fetch(`${sb.baseUrl}/tokens`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json', 'x-service-api-key': apiKey },
      body: JSON.stringify({ username: u, password: p }),
    });
    const body = (await res.json()) as { data?: { token?: string } };
    if (res.status !== 200 || !body.data?.token) throw new Error(`sandbox login failed: HTTP ${res.status} ${JSON.stringify(body)}`);
    return body.data.token;
  };

  const control = async (path: string, body?: unknown): Promise<any> => {
    let method = 'POST';
    let p = path;
    const m = /^(GET|POST|PUT|PATCH|DELETE)\s+(.*)$/.exec(path);
    if (m) {
      method = m[1];
      p = m[2];
    }
    p = p.replace(/^\/+/, '').replace(/^__sandbox\//, '');
    // Read-only control routes are GETs; `control('webhooks/deliveries')` reads as it looks.
    if (!m && body === undefined && READ_ONLY.has(p)) method = 'GET';
    const res = await fetch(`${sb.url}/__sandbox/${p}`, {
      method,
      headers: method === 'GET' ? {} : { 'content-type': 'application/json' },
      body: method === 'GET' ? undefined : JSON.stringify(body ?? {}),
    });
    const text = await res.text();
    const parsed = text ? JSON.parse(text) : null;
    if (res.status >= 400) throw new Error(`sandbox control ${method} ${p} failed: HTTP ${res.status} ${text}`);
    return parsed;
  };

  return {
    ...sb,
    close: () => sb.close(),
    env,
    apiKey,
    login,
    async authEnv() {
      return { ...env, SHIP_TOKEN: await login() };
    },
    control,
    async reset() {
      await control('reset');
    },
  };
}

/**
 * One sandbox for the calling test file: started now, reset before each test, closed after the file's tests.
 * Await it at the top level of the test file (`const sb = await sandboxForFile();`).
 */
export function sandboxForFile(opts: SandboxOptions = {}): Promise<TestSandbox> {
  const started = startTestSandbox(opts);
  // Registered before any await, so the hooks belong to the file being collected.
  afterAll(async () => {
    await (await started).close();
  });
  beforeEach(async () => {
    await (await started).reset();
  });
  return started;
}

/** What useTestSandbox() gives a suite; its fields are filled in when the suite starts (read them in tests and hooks). */
export interface SandboxSuite {
  /** The running sandbox. */
  sb: TestSandbox;
  /** SHIP_BASE_URL, SHIP_API_KEY and SHIP_TOKEN of a login made as the suite starts (left empty with `login: false`). */
  env: ApiAuth;
}

/**
 * One sandbox for the enclosing suite (the file, or the describe it is called in): started, and logged in to, in
 * beforeAll; closed in afterAll. State carries over from test to test (sandboxForFile resets before each).
 * The objects returned are filled in place, so destructure them at once: `const { sb, env } = useTestSandbox();`.
 */
export function useTestSandbox(opts: SandboxOptions & { login?: boolean } = {}): SandboxSuite {
  const { login = true, ...sandboxOpts } = opts;
  const suite: SandboxSuite = { sb: {} as TestSandbox, env: {} as ApiAuth };
  let running: TestSandbox | undefined;
  beforeAll(async () => {
    running = await startTestSandbox(sandboxOpts);
    Object.assign(suite.sb, running);
    if (login) Object.assign(suite.env, await running.authEnv());
  });
  afterAll(async () => {
    await running?.close();
  });
  return suite;
}

// A type, not an interface, so that it passes as it is where a binary's environment (a Record) is wanted.
/** What a direct API call needs: the sandbox's base URL, its API key and a token (as `authEnv()` gives them). */
export type ApiAuth = {
  SHIP_BASE_URL: string;
  SHIP_API_KEY: string;
  SHIP_TOKEN: string;
};

/** Calls the sandbox's API directly (not through ship), for setting up and checking state; JSON in and out. */
export async function apiCall(auth: ApiAuth, method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`${auth.SHIP_BASE_URL}${path}`, {
    method,
    headers: { 'content-type': 'application/json', accept: 'application/json', 'x-service-api-key': auth.SHIP_API_KEY, 'x-service-token': auth.SHIP_TOKEN },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

/** Every SKU, read page by page straight from the sandbox. */
export async function allSkus(auth: ApiAuth): Promise<any[]> {
  const out: any[] = [];
  for (let page = 1; ; page++) {
    const r = await apiCall(auth, 'GET', `/skus?page=${page}`);
    out.push(...r.body.data);
    if (!r.body.links.next) return out;
  }
}

/** A UK recipient for test shipments. */
export const ANN = { name: 'Ann Example', line_1: '1 High Street', city: 'London', postcode: 'SW1A 1AA', country: 'GB' };

/** A shipment request to Ann with `parcels` parcels (weights 1000, 1001… g); `parcelRefs` names them REF-P1, REF-P2… */
export function shipmentBody(ref: string, parcels: number, opts: { parcelRefs?: boolean } = {}): Record<string, unknown> {
  return {
    shipment_reference: ref,
    to_address: ANN,
    parcels: Array.from({ length: parcels }, (_, i) => ({ ...(opts.parcelRefs ? { reference: `${ref}-P${i + 1}` } : {}), weight: 1000 + i, length: 20, width: 15, depth: 10 })),
  };
}

/** Creates a shipment through the API (shipmentBody, parcels named); resolves to its parcels' tracking references. */
export async function createParcels(auth: ApiAuth, ref: string, parcels: number): Promise<string[]> {
  const res = await apiCall(auth, 'POST', '/shipments', shipmentBody(ref, parcels, { parcelRefs: true }));
  if (res.status >= 300) throw new Error(`create ${ref}: ${res.status} ${JSON.stringify(res.body)}`);
  const ev = await apiCall(auth, 'GET', `/shipments/${encodeURIComponent(ref)}/events`);
  return Object.keys(ev.body.data);
}

/** shipmentBody as a shipment.json for `ship create --file`, in a new temp dir named from `dirPrefix`. */
export function shipmentFile(ref: string, parcels: number, dirPrefix: string): { dir: string; file: string } {
  const dir = mkdtempSync(join(tmpdir(), dirPrefix));
  const file = join(dir, 'shipment.json');
  writeFileSync(file, JSON.stringify(shipmentBody(ref, parcels)));
  return { dir, file };
}
