// Conformance: Authentication, tokens, the response envelope, errors for unknown routes and bad bodies.
import { describe, expect, it } from 'vitest';
import { sandboxForFile, startTestSandbox } from '../helpers/sandbox.js';
import { call } from './client.js';

const sb = await sandboxForFile();

describe('API key (Authentication §1)', () => {
  it('401 with {message, data:null} when X-SERVICE-API-KEY is missing (Authentication §1)', async () => {
    const token = await sb.login();
    const r = await call(sb, 'GET', '/users', undefined, { apiKey: null, token });
    expect(r.status).toBe(401);
    expect(r.body.data).toBeNull();
    expect(typeof r.body.message).toBe('string');
  });

  it('401 when the API key is wrong, even with a valid token (Authentication §1: "An invalid key yields status 401")', async () => {
    const token = await sb.login();
    const r = await call(sb, 'GET', '/brands', undefined, { apiKey: 'not-the-key', token });
    expect(r.status).toBe(401);
    expect(r.body).toEqual({ message: expect.stringContaining('not valid'), data: null });
  });

  it('POST /tokens needs the API key too (Endpoints/Tokens: "Requires the API key header only")', async () => {
    const r = await call(sb, 'POST', '/tokens', { username: 'demo@example.com', password: 'demo-password' }, { apiKey: null });
    expect(r.status).toBe(401);
  });

  it('a sandbox started with another key accepts only that key (SandboxOptions.apiKey)', async () => {
    const other = await startTestSandbox({ apiKey: 'k-123', username: 'ops@example.com', password: 'pw' });
    try {
      expect((await call(other, 'POST', '/tokens', { username: 'ops@example.com', password: 'pw' }, { apiKey: 'sandbox-api-key' })).status).toBe(401);
      const token = await other.login();
      expect((await call(other, 'GET', '/tokens', undefined, { token })).status).toBe(200);
    } finally {
      await other.close();
    }
  });
});

describe('User token (Authentication §2, Endpoints/Tokens)', () => {
  it('POST /tokens answers data.token (32 hex chars) and data.user with the documented fields', async () => {
    const r = await call(sb, 'POST', '/tokens', { username: 'demo@example.com', password: 'demo-password' });
    expect(r.status).toBe(200);
    expect(typeof r.body.message).toBe('string');
    expect(r.body.data.token).toMatch(/^[0-9a-f]{32}$/);
    const u = r.body.data.user;
    expect(Object.keys(u).sort()).toEqual(['account_name', 'email', 'first_name', 'id', 'last_name', 'merchant_id', 'user_type'].sort());
    expect(u.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(u.merchant_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(u.email).toBe('demo@example.com');
  });

  it('user names match case-insensitively; each login issues a new token', async () => {
    const a = await sb.login('DEMO@example.com');
    const b = await sb.login();
    expect(a).not.toBe(b);
  });

  it('wrong password → 401 with data null (sandbox choice; the document states only 401 for keys)', async () => {
    const r = await call(sb, 'POST', '/tokens', { username: 'demo@example.com', password: 'nope' });
    expect(r.status).toBe(401);
    expect(r.body.data).toBeNull();
    expect(r.body.message).toMatch(/username or password/i);
  });

  it('unknown user → 401', async () => {
    const r = await call(sb, 'POST', '/tokens', { username: 'nobody@example.com', password: 'demo-password' });
    expect(r.status).toBe(401);
  });

  it('missing username and password → 400 validation with "The <field> field is required." (Errors: Validation failure)', async () => {
    const r = await call(sb, 'POST', '/tokens', {});
    expect(r.status).toBe(400);
    expect(r.body).toEqual({
      message: 'The given data failed to pass validation.',
      data: { username: ['The username field is required.'], password: ['The password field is required.'] },
    });
  });

  it('the second seeded user can log in too (cli-contract: "a second user")', async () => {
    const t = await sb.login('packer@example.com', 'packer-password');
    expect(t).toMatch(/^[0-9a-f]{32}$/);
  });

  it('X-SERVICE-TOKEN is required on every request but POST /tokens (Authentication §2)', async () => {
    for (const path of ['/users', '/locations', '/brands', '/services', '/custom-fields', '/packaging-options', '/skus', '/tokens']) {
      const r = await call(sb, 'GET', path);
      expect(r.status, path).toBe(401);
      expect(r.body.data, path).toBeNull();
    }
    expect((await call(sb, 'POST', '/shipments', {})).status).toBe(401);
  });

  it('an unknown token → 401', async () => {
    const r = await call(sb, 'GET', '/users', undefined, { token: '0'.repeat(32) });
    expect(r.status).toBe(401);
  });

  it('GET /tokens → 200 while the token is active (Endpoints/Tokens)', async () => {
    const token = await sb.login();
    const r = await call(sb, 'GET', '/tokens', undefined, { token });
    expect(r.status).toBe(200);
    expect(r.body.data.user.email).toBe('demo@example.com');
  });

  it('DELETE /tokens revokes: later requests with it → 401; other tokens stay valid (tokens persist until revoked)', async () => {
    const a = await sb.login();
    const b = await sb.login();
    const del = await call(sb, 'DELETE', '/tokens', undefined, { token: a });
    expect(del.status).toBe(200);
    expect(del.body.data).toBeNull();
    expect((await call(sb, 'GET', '/tokens', undefined, { token: a })).status).toBe(401);
    expect((await call(sb, 'GET', '/users', undefined, { token: a })).status).toBe(401);
    expect((await call(sb, 'GET', '/tokens', undefined, { token: b })).status).toBe(200);
  });

  it('a token survives other requests and time (no expiry): still valid after many calls', async () => {
    const t = await sb.login();
    for (let i = 0; i < 5; i++) expect((await call(sb, 'GET', '/brands', undefined, { token: t })).status).toBe(200);
  });

  it('a password with a backslash or a caret logs in (the text ban is for object attributes, not credentials)', async () => {
    const own = await startTestSandbox({ password: 'pa^ss\\word' });
    try {
      const r = await call(own, 'POST', '/tokens', { username: 'demo@example.com', password: 'pa^ss\\word' });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      expect((await call(own, 'POST', '/tokens', { username: 'demo@example.com', password: 'pa^ss' })).status).toBe(401);
    } finally {
      await own.close();
    }
  });

  it('each user keeps its newest 100 tokens: a login past that drops the oldest (the document shows no cap for 1.2)', async () => {
    const own = await startTestSandbox();
    try {
      const packer = await own.login('packer@example.com', 'packer-password');
      const tokens: string[] = [];
      for (let i = 0; i < 103; i++) tokens.push(await own.login());
      const status = (token: string) => call(own, 'GET', '/tokens', undefined, { token }).then((r) => r.status);
      expect(await Promise.all(tokens.slice(0, 3).map(status))).toEqual([401, 401, 401]);
      expect(await status(tokens[3])).toBe(200);
      expect(await status(tokens[102])).toBe(200);
      // Another user's token is not one of this user's 100.
      expect(await status(packer)).toBe(200);
      // A revoked token frees its place: the next login drops nothing.
      expect((await call(own, 'DELETE', '/tokens', undefined, { token: tokens[102] })).status).toBe(200);
      await own.login();
      expect(await status(tokens[3])).toBe(200);
      await own.login();
      expect(await status(tokens[3])).toBe(401);
      expect(await status(tokens[4])).toBe(200);
    } finally {
      await own.close();
    }
  });
});

describe('Envelope and errors (Conventions, Errors)', () => {
  it('every error carries message and data (Errors: "Every error response carries message and data")', async () => {
    const token = await sb.login();
    const r = await call(sb, 'GET', '/locations/NOPE', undefined, { token });
    expect(r.status).toBe(404);
    expect(r.body).toEqual({ message: expect.any(String), data: null });
  });

  it('an unknown route under /v1.2 → 404 with the envelope naming the route', async () => {
    const token = await sb.login();
    const r = await call(sb, 'GET', '/consignments', undefined, { token });
    expect(r.status).toBe(404);
    expect(r.body.message).toContain('GET /v1.2/consignments');
    expect(r.body.data).toBeNull();
  });

  it('a route outside /v1.2 (older versions are not emulated) → 404 with the envelope', async () => {
    const res = await fetch(`${sb.url}/v1.1/consignments`, { headers: { 'x-service-api-key': sb.apiKey } });
    expect(res.status).toBe(404);
    const body = (await res.json()) as { message: string; data: null };
    expect(body.data).toBeNull();
    expect(body.message).toContain('/v1.2');
  });

  it('a known path with the wrong method → 405 with Allow and the envelope', async () => {
    const token = await sb.login();
    const r = await call(sb, 'DELETE', '/users', undefined, { token });
    expect(r.status).toBe(405);
    expect(r.headers.get('allow')).toContain('GET');
    expect(r.body.data).toBeNull();
  });

  it('a body that is not JSON → 400 with the envelope', async () => {
    const token = await sb.login();
    const r = await call(sb, 'POST', '/shipments', undefined, { token, raw: '{"shipment_reference": ', headers: { 'content-type': 'application/json' } });
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ message: 'The request body is not valid JSON.', data: null });
  });

  it('responses are JSON (content-type application/json)', async () => {
    const token = await sb.login();
    const r = await call(sb, 'GET', '/brands', undefined, { token });
    expect(r.headers.get('content-type')).toMatch(/^application\/json/);
  });

  it('control endpoints live under /__sandbox and need no credentials; unknown ones → 404', async () => {
    const h = await fetch(`${sb.url}/__sandbox/health`);
    expect(h.status).toBe(200);
    const u = await fetch(`${sb.url}/__sandbox/nope`, { method: 'POST' });
    expect(u.status).toBe(404);
    expect(((await u.json()) as { data: unknown }).data).toBeNull();
  });

  it('POST /__sandbox/reset revokes tokens (back to the seeded state)', async () => {
    const t = await sb.login();
    await sb.reset();
    expect((await call(sb, 'GET', '/tokens', undefined, { token: t })).status).toBe(401);
  });
});
