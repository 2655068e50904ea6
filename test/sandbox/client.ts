// Plain-fetch client for the sandbox conformance suite: it talks HTTP directly (not through our API layer), so
// the suite tests the sandbox itself.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach } from 'vitest';
import type { SandboxOptions } from '../../src/sandbox/server.js';
import { sandboxForFile, type TestSandbox } from '../helpers/sandbox.js';

/** A response as the suite inspects it. */
export interface Reply {
  status: number;
  headers: Headers;
  body: any;
}

/** Options of one call: credentials to send (defaults: the sandbox key and the given token). */
export interface CallOptions {
  token?: string | null;
  apiKey?: string | null;
  headers?: Record<string, string>;
  raw?: string;
}

/** Calls `METHOD /v1.2PATH` with JSON in and out. */
export async function call(sb: TestSandbox, method: string, path: string, body?: unknown, o: CallOptions = {}): Promise<Reply> {
  const headers: Record<string, string> = { accept: 'application/json', ...o.headers };
  const apiKey = o.apiKey === undefined ? sb.apiKey : o.apiKey;
  if (apiKey !== null) headers['x-service-api-key'] = apiKey;
  if (o.token) headers['x-service-token'] = o.token;
  let payload: string | undefined = o.raw;
  if (body !== undefined) {
    headers['content-type'] = 'application/json';
    payload = JSON.stringify(body);
  }
  const res = await fetch(`${sb.baseUrl}${path}`, { method, headers, body: payload });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    // leave as text; tests assert on JSON where it matters
  }
  return { status: res.status, headers: res.headers, body: parsed };
}

/** A client bound to one sandbox and a token (or a function giving the token to use at each call). */
export function client(sb: TestSandbox, token: string | (() => string)) {
  const t = typeof token === 'function' ? token : () => token;
  return {
    get: (path: string, o: CallOptions = {}) => call(sb, 'GET', path, undefined, { token: t(), ...o }),
    post: (path: string, body?: unknown, o: CallOptions = {}) => call(sb, 'POST', path, body ?? {}, { token: t(), ...o }),
    put: (path: string, body?: unknown, o: CallOptions = {}) => call(sb, 'PUT', path, body ?? {}, { token: t(), ...o }),
    patch: (path: string, body?: unknown, o: CallOptions = {}) => call(sb, 'PATCH', path, body, { token: t(), ...o }),
    del: (path: string, o: CallOptions = {}) => call(sb, 'DELETE', path, undefined, { token: t(), ...o }),
  };
}

/** A client of the suite. */
export type Client = ReturnType<typeof client>;

/**
 * The suite's per-file setup: one sandbox for the file (see sandboxForFile), reset and logged in afresh before
 * each test; `api` calls with the current test's token. Await it at the top level of the test file.
 */
export async function sandboxSuite(opts: SandboxOptions = {}): Promise<{ sb: TestSandbox; api: Client }> {
  const started = sandboxForFile(opts);
  let token = '';
  // Registered before any await (after the reset of sandboxForFile, so the login survives it).
  beforeEach(async () => {
    token = await (await started).login();
  });
  const sb = await started;
  return { sb, api: client(sb, () => token) };
}

/** A valid domestic shipment request; `over` replaces top-level fields. */
export function shipment(ref: string, over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    shipment_reference: ref,
    order_reference: `ORD-${ref}`,
    to_address: {
      name: 'Jane Smith',
      company_name: 'Acme Ltd',
      telephone: '07700900123',
      email_address: 'jane@example.com',
      line_1: '1 High Street',
      city: 'London',
      postcode: 'N1 1AA',
      country: 'GB',
    },
    parcels: [{ reference: `${ref}-P1`, weight: 500, length: 20, width: 15, depth: 10, value: 12.5 }],
    ...over,
  };
}

/** A valid international shipment request (to France) with customs items. */
export function intlShipment(ref: string, over: Record<string, unknown> = {}): Record<string, unknown> {
  return shipment(ref, {
    to_address: { name: 'Jean Dupont', line_1: '10 Rue de Rivoli', city: 'Paris', postcode: '75001', country: 'FR' },
    parcels: [
      {
        reference: `${ref}-P1`,
        weight: 800,
        length: 20,
        width: 15,
        depth: 10,
        items: [{ short_description: 'Mug', full_description: 'Ceramic mug', country_of_origin: 'GB', harmonised_code: '6912002310', item_weight: 400, item_value: 10, item_quantity: 2 }],
      },
    ],
    ...over,
  });
}

/** Polls until `check` returns a truthy value or the time runs out. */
export async function waitFor<T>(check: () => Promise<T | undefined | null | false> | T | undefined | null | false, timeoutMs = 5000, stepMs = 20): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v) return v;
    if (Date.now() > end) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, stepMs));
  }
}

/** True when poppler's pdftotext/pdftoppm are installed (CI installs them). */
export const hasPoppler = (() => {
  try {
    execFileSync('pdftotext', ['-v'], { stdio: 'ignore' });
    execFileSync('pdftoppm', ['-v'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

/** Extracts the text of a base64 PDF with pdftotext (layout kept). */
export function pdfText(base64: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'sb-pdf-'));
  const file = join(dir, 'doc.pdf');
  writeFileSync(file, Buffer.from(base64, 'base64'));
  return execFileSync('pdftotext', ['-layout', file, '-'], { encoding: 'utf8' });
}

/** Renders page 1 of a base64 PDF to PNG with pdftoppm; returns the PNG bytes (throws when poppler fails). */
export function renderPdf(base64: string): Buffer {
  const dir = mkdtempSync(join(tmpdir(), 'sb-pdf-'));
  const file = join(dir, 'doc.pdf');
  writeFileSync(file, Buffer.from(base64, 'base64'));
  execFileSync('pdftoppm', ['-png', '-r', '50', '-f', '1', '-l', '1', file, join(dir, 'page')], { stdio: ['ignore', 'ignore', 'pipe'] });
  return execFileSync('cat', [join(dir, 'page-1.png')]);
}
