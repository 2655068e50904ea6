// Faithfulness of the sandbox's routing and paging: a fixed path is never taken for a `:ref` (DELETE
// /shipments/get-services cancelled a shipment "get-services"), dot segments resolve as HTTP stacks resolve them
// while a percent-encoded dot addresses a reference `.` or `..`, and GET /skus past the last page pages as
// Laravel's paginator does (its `links` and `meta` are the document's).
import { request as httpRequest } from 'node:http';
import { describe, expect, it } from 'vitest';
import { Router } from '../../src/sandbox/router.js';
import { removeDotSegments } from '../../src/sandbox/server.js';
import { sandboxSuite, shipment } from './client.js';

const { sb, api } = await sandboxSuite();

/**
 * Sends `METHOD /v1.2PATH` with the path exactly as given: fetch and undici's request() parse the URL first, which
 * resolves `.`, `..` and even `%2E` segments before anything is sent.
 */
function rawCall(method: string, path: string, token: string): Promise<{ status: number; allow?: string; body: any }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: '127.0.0.1', port: sb.port, method, path: `/v1.2${path}`, headers: { accept: 'application/json', 'x-service-api-key': sb.apiKey, 'x-service-token': token } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, allow: res.headers.allow, body: text ? JSON.parse(text) : null }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/** A reference as a path segment, dots percent-encoded as the API layer writes them. */
const seg = (ref: string) => (ref === '.' ? '%2E' : ref === '..' ? '%2E%2E' : encodeURIComponent(ref));

/** The event types of a shipment (by reference), or the status when it cannot be read. */
async function eventTypes(ref: string): Promise<string[] | number> {
  const r = await rawCall('GET', `/shipments/${seg(ref)}/events`, await sb.login());
  if (r.status !== 200) return r.status;
  return Object.values(r.body.data as Record<string, { tracking_events: { type: string }[] }>).flatMap((p) => p.tracking_events.map((e) => e.type));
}

describe('fixed paths are never a :ref', () => {
  it('DELETE /shipments/get-services is 405 (Allow: POST), not the cancel of a shipment "get-services"', async () => {
    expect((await api.post('/shipments', shipment('get-services'))).status).toBe(201);
    const r = await api.del('/shipments/get-services');
    expect(r.status).toBe(405);
    expect(r.headers.get('allow')).toBe('POST, OPTIONS');
    expect(r.body).toEqual({ message: 'Method DELETE is not allowed on /v1.2/shipments/get-services (allowed: POST, OPTIONS).', data: null });
    // Not cancelled: its reference is still taken, and tracking goes on.
    expect((await api.post('/shipments', shipment('get-services'))).status).toBe(400);
    expect(await eventTypes('get-services')).toEqual(['LABEL_CREATED']);
    // The :ref route itself still works for any other reference.
    expect((await api.post('/shipments', shipment('get-servicesX'))).status).toBe(201);
    expect((await api.del('/shipments/get-servicesX')).status).toBe(200);
  });

  it('every other method on get-services is answered as on any POST-only path; OPTIONS and HEAD list POST only', async () => {
    const token = await sb.login();
    for (const method of ['GET', 'PUT', 'PATCH', 'DELETE']) {
      const r = await rawCall(method, '/shipments/get-services', token);
      expect(r.status, method).toBe(405);
      expect(r.allow, method).toBe('POST, OPTIONS');
      expect(r.body, method).toEqual({ message: expect.stringContaining(`${method} is not allowed`), data: null });
    }
    expect((await rawCall('OPTIONS', '/shipments/get-services', token)).allow).toBe('POST, OPTIONS');
    expect((await rawCall('HEAD', '/shipments/get-services', token)).allow).toBe('POST, OPTIONS');
    // The same answer as a wrong method on a fixed path that collides with nothing.
    const users = await rawCall('DELETE', '/users', token);
    expect([users.status, users.body.data]).toEqual([405, null]);
  });

  it('every fixed path of the API answers a method it lacks with 405 and its own Allow, never a :ref route', async () => {
    const token = await sb.login();
    // Each fixed path and its methods (Endpoints); none of them may borrow the methods of a `:ref` sibling.
    const fixed: Record<string, string[]> = {
      '/tokens': ['POST', 'GET', 'DELETE'],
      '/shipments': ['POST'],
      '/shipments/get-services': ['POST'],
      '/users': ['GET'],
      '/locations': ['GET'],
      '/brands': ['GET'],
      '/services': ['GET'],
      '/custom-fields': ['GET', 'POST'],
      '/packaging-options': ['GET'],
      '/skus': ['POST', 'GET'],
      '/containers': ['POST'],
    };
    for (const [path, methods] of Object.entries(fixed)) {
      const r = await rawCall('OPTIONS', path, token);
      expect(r.allow?.split(', ').filter((m) => m !== 'HEAD' && m !== 'OPTIONS').sort(), path).toEqual([...methods].sort());
      for (const method of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'].filter((m) => !methods.includes(m))) {
        expect((await rawCall(method, path, token)).status, `${method} ${path}`).toBe(405);
      }
    }
  });

  it('the router prefers a static segment to a :param in the same place, whatever the order routes were added in', () => {
    const r = new Router<null>()
      .add('DELETE', '/a/:ref', () => ({ status: 200, body: 'param' }))
      .add('GET', '/a/:ref/x', () => ({ status: 200, body: 'param-x' }))
      .add('POST', '/a/fixed', () => ({ status: 200, body: 'fixed' }))
      .add('GET', '/a/fixed/x', () => ({ status: 200, body: 'fixed-x' }));
    expect(r.match('DELETE', '/a/fixed')).toEqual({ allowed: ['POST'] });
    expect(r.match('POST', '/a/fixed')).toMatchObject({ params: {} });
    expect(r.match('DELETE', '/a/other')).toMatchObject({ params: { ref: 'other' } });
    const fx = r.match('GET', '/a/fixed/x');
    expect(fx && 'handler' in fx ? fx.handler(null, {} as never) : fx).toEqual({ status: 200, body: 'fixed-x' });
    expect(r.match('GET', '/a/other/x')).toMatchObject({ params: { ref: 'other' } });
  });

  it('the control endpoints too: DELETE /__sandbox/webhooks/deliveries is 405, not the delete of a webhook "deliveries"', async () => {
    const r = await fetch(`${sb.url}/__sandbox/webhooks/deliveries`, { method: 'DELETE' });
    expect(r.status).toBe(405);
    expect(r.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
  });
});

describe('shipment references "." and ".." (the document forbids only backslash and caret)', () => {
  it('are created, and addressed percent-encoded (%2E, %2E%2E, any letter case) by every :ref route', async () => {
    const token = await sb.login();
    for (const ref of ['.', '..']) expect((await api.post('/shipments', shipment(ref))).status, ref).toBe(201);
    const one = await rawCall('GET', '/shipments/%2E/events', token);
    expect(one.status).toBe(200);
    expect(Object.values(one.body.data).map((p: any) => p.shipment_reference)).toEqual(['.']);
    const two = await rawCall('GET', '/shipments/%2e%2E/events', token);
    expect(Object.values(two.body.data).map((p: any) => p.shipment_reference)).toEqual(['..']);
    expect((await rawCall('GET', '/shipments/%2E%2E/commercial-invoice', token)).body.data[0].shipment_reference).toBe('..');
    const cancel = await rawCall('DELETE', '/shipments/%2E%2E', token);
    expect(cancel).toMatchObject({ status: 200, body: { message: 'Shipment Cancelled', data: null } });
    // Only ".." was cancelled.
    expect((await rawCall('DELETE', '/shipments/%2E', token)).status).toBe(200);
  });

  it('a literal dot segment is resolved away before routing, as HTTP stacks do: it never addresses "." or ".."', async () => {
    const token = await sb.login();
    expect((await api.post('/shipments', shipment('.'))).status).toBe(201);
    expect((await api.post('/shipments', shipment('..'))).status).toBe(201);
    // /shipments/./events is /shipments/events (the DELETE /shipments/:ref path): no shipment "." is read.
    const dot = await rawCall('GET', '/shipments/./events', token);
    expect(dot.status).toBe(405);
    expect(dot.allow).toBe('DELETE, OPTIONS');
    // /shipments/../brands is /brands.
    const up = await rawCall('GET', '/shipments/../brands', token);
    expect(up.status).toBe(200);
    expect(up.body.data[0]).toHaveProperty('key');
    // A raw DELETE reaches /shipments (POST only) or the API root, never either shipment.
    expect((await rawCall('DELETE', '/shipments/.', token)).status).toBe(405);
    expect((await rawCall('DELETE', '/shipments/..', token)).status).toBe(404);
    expect(await eventTypes('.')).toEqual(['LABEL_CREATED']);
    expect(await eventTypes('..')).toEqual(['LABEL_CREATED']);
  });

  it('removeDotSegments follows RFC 3986 §5.2.4 and leaves percent-encoded dots alone', () => {
    expect(removeDotSegments('/v1.2/shipments/./events')).toBe('/v1.2/shipments/events');
    expect(removeDotSegments('/v1.2/a/b/../c')).toBe('/v1.2/a/c');
    expect(removeDotSegments('/v1.2/a/b/..')).toBe('/v1.2/a/');
    expect(removeDotSegments('/v1.2/a/.')).toBe('/v1.2/a/');
    expect(removeDotSegments('/../../v1.2/brands')).toBe('/v1.2/brands');
    expect(removeDotSegments('/v1.2/shipments/%2E/events')).toBe('/v1.2/shipments/%2E/events');
    expect(removeDotSegments('/v1.2/shipments/.a/..b/events')).toBe('/v1.2/shipments/.a/..b/events');
    expect(removeDotSegments('/v1.2/a//b')).toBe('/v1.2/a//b');
  });
});

describe('GET /skus past the last page (Laravel pagination: links and meta)', () => {
  it('prev is page N-1 whatever N is; the page is empty, from/to null, next null, first/last unchanged', async () => {
    await sb.control('seed/skus', { count: 60 }); // 5 seeded + 60 = 65 → 3 pages
    const r = await api.get('/skus?page=9');
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual([]);
    expect(r.body.links).toEqual({ first: `${sb.baseUrl}/skus?page=1`, last: `${sb.baseUrl}/skus?page=3`, prev: `${sb.baseUrl}/skus?page=8`, next: null });
    expect(r.body.meta).toEqual({ current_page: 9, from: null, path: `${sb.baseUrl}/skus`, per_page: 30, to: null });
    // Just past the end: prev is the last page because it is page N-1.
    expect((await api.get('/skus?page=4')).body.links.prev).toBe(`${sb.baseUrl}/skus?page=3`);
    // With no SKUs beyond one page, page 2 is past the end and prev is page 1.
    await sb.reset();
    const two = await rawCall('GET', '/skus?page=2', await sb.login());
    expect(two.body.links).toMatchObject({ last: `${sb.baseUrl}/skus?page=1`, prev: `${sb.baseUrl}/skus?page=1`, next: null });
  });

  it('a page number past the safe integers is page 1 (as Laravel takes one past its integers), not a "1e+21" link', async () => {
    const r = await api.get('/skus?page=1000000000000000000000');
    expect(r.body.meta.current_page).toBe(1);
    expect(r.body.links.prev).toBeNull();
    expect(r.body.data.length).toBeGreaterThan(0);
  });
});
