// The built binary's `ship webhooks listen`, fed by the sandbox's own webhook dispatcher: events from creating,
// cancelling and tracking shipments arrive in order (JSON and form), wrong tokens are refused, duplicates
// show once, and forwarding survives a handler that is down at first.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { examplePayload } from '../../src/sandbox/webhooks.js';
import { ship } from '../helpers/bin.js';
import { sandboxForFile } from '../helpers/sandbox.js';

type Line = Record<string, any>;
const TOKEN = 'e2e-webhook-token-1234';

const sb = await sandboxForFile();
let auth: { SHIP_API_KEY: string; SHIP_TOKEN: string };
const procs: Array<ReturnType<typeof ship>> = [];
const servers: Server[] = [];

beforeEach(async () => {
  auth = await sb.authEnv();
});
afterEach(async () => {
  for (const p of procs.splice(0)) {
    if (p.exitCode === null) p.kill('SIGKILL');
    await p;
  }
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

/** Starts `ship webhooks listen --port 0 --json …` and resolves once it printed its URL. */
async function listen(args: string[] = []) {
  const proc = ship(['webhooks', 'listen', '--port', '0', '--json', '--auth-token', TOKEN, ...args], { timeout: 50_000 });
  procs.push(proc);
  const lines: Line[] = [];
  const waiters: Array<() => void> = [];
  createInterface({ input: proc.stdout as Readable }).on('line', (l) => {
    lines.push(JSON.parse(l));
    waiters.splice(0).forEach((w) => w());
  });
  let stderr = '';
  (proc.stderr as Readable).on('data', (d) => (stderr += d));
  const waitFor = async (pred: (ls: Line[]) => boolean, what: string, ms = 15_000) => {
    const end = Date.now() + ms;
    while (!pred(lines)) {
      if (Date.now() > end) throw new Error(`timed out waiting for ${what}; lines: ${JSON.stringify(lines)}; stderr: ${stderr}`);
      await new Promise<void>((r) => {
        waiters.push(r);
        setTimeout(r, 100);
      });
    }
  };
  await waitFor((ls) => ls.length > 0, 'the listening line');
  expect(lines[0].type).toBe('listening');
  return { proc, url: lines[0].url as string, lines, waitFor, stderr: () => stderr };
}

const api = async (method: string, path: string, body?: unknown) => {
  const res = await fetch(`${sb.baseUrl}${path}`, {
    method,
    headers: { 'content-type': 'application/json', accept: 'application/json', 'x-service-api-key': auth.SHIP_API_KEY, 'x-service-token': auth.SHIP_TOKEN },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  expect(res.status, `${method} ${path}: ${await res.clone().text()}`).toBeLessThan(300);
  return res.json();
};

const shipment = (ref: string) => ({
  shipment_reference: ref,
  order_reference: `O-${ref}`,
  to_address: { name: 'Jane Smith', line_1: '1 High Street', city: 'London', postcode: 'SW1A 1AA', country: 'GB', email_address: 'jane@example.com' },
  parcels: [{ reference: `${ref}-1`, weight: 500, length: 20, width: 15, depth: 10 }],
});

/** Creates A, moves it two tracking stages, creates and cancels B: the events we expect, in order. */
async function lifeOfTwoShipments(): Promise<Array<[string, string]>> {
  await api('POST', '/shipments', shipment('HOOK-A'));
  await sb.control('tracking/advance', { shipment_reference: 'HOOK-A' });
  await sb.control('tracking/advance', { shipment_reference: 'HOOK-A' });
  await api('POST', '/shipments', shipment('HOOK-B'));
  await api('DELETE', '/shipments/HOOK-B');
  return [
    ['SHIPMENT_CREATED', 'HOOK-A'],
    ['TRACKING_UPDATED', 'HOOK-A'],
    ['TRACKING_UPDATED', 'HOOK-A'],
    ['TRACKING_COLLECTED', 'HOOK-A'],
    ['SHIPMENT_CREATED', 'HOOK-B'],
    ['SHIPMENT_CANCELLED', 'HOOK-B'],
  ];
}

const events = (ls: Line[]) => ls.filter((l) => l.type === 'event');

describe('ship webhooks listen (built binary, sandbox webhooks)', () => {
  it.each(['json', 'form'] as const)('prints the events of creates, tracking advances and cancels in order (%s)', async (format) => {
    const l = await listen();
    await sb.control('webhooks', { url: l.url, auth_token: TOKEN, format, retries: 2 });
    const expected = await lifeOfTwoShipments();
    await l.waitFor((ls) => events(ls).length >= expected.length, `${expected.length} events`);
    const got = events(l.lines);
    expect(got.map((e) => [e.event, e.payload.shipment_reference])).toEqual(expected);
    expect(got.every((e) => e.encoding === format)).toBe(true);
    expect(got.map((e) => e.payload.tracking_event_type).filter(Boolean)).toEqual(['Manifested', 'Collected', 'Collected']);
    expect(got[0].payload.recipient.recipient_full_name).toBe('Jane Smith');
    expect(got[0].payload.auth_token).toBe('****1234');
    expect(JSON.stringify(l.lines)).not.toContain(TOKEN);
    l.proc.kill('SIGINT');
    const res = await l.proc;
    expect(res.exitCode).toBe(130);
  });

  it('refuses a wrong token with 401 and prints nothing for it', async () => {
    const l = await listen();
    await sb.control('webhooks', { url: l.url, auth_token: 'not-the-token', format: 'json', retries: 0 });
    await api('POST', '/shipments', shipment('HOOK-W'));
    const direct = await fetch(l.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(examplePayload('SHIPMENT_CREATED')) });
    expect(direct.status).toBe(401);
    // The sandbox saw 401 too.
    const end = Date.now() + 5000;
    let deliveries: Array<{ status: number | null }> = [];
    while (Date.now() < end && deliveries.length === 0) {
      deliveries = (await sb.control('GET webhooks/deliveries')).data;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(deliveries.map((d) => d.status)).toEqual([401]);
    // A good one afterwards proves the listener is alive and printed nothing before it.
    await fetch(l.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(examplePayload('TRACKING_DELIVERED', { auth_token: TOKEN })) });
    await l.waitFor((ls) => events(ls).length >= 1, 'the good event');
    expect(l.lines.slice(1).map((x) => x.event)).toEqual(['TRACKING_DELIVERED']);
    expect(l.stderr()).toMatch(/rejected 401/);
    // SIGTERM is how a service is stopped (kill, docker stop, systemd): a clean stop, exit 0 (Ctrl-C is 130).
    l.proc.kill('SIGTERM');
    expect((await l.proc).exitCode).toBe(0);
  });

  it('shows a duplicate request_token once, as a repeat', async () => {
    const l = await listen();
    const body = JSON.stringify(examplePayload('TRACKING_DELIVERED', { auth_token: TOKEN, request_token: 'dup-1', shipment_reference: 'DUP' }));
    for (let i = 0; i < 2; i++) {
      const res = await fetch(l.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      expect(res.status).toBe(200);
    }
    await l.waitFor((ls) => ls.length >= 3, 'event and repeat');
    expect(l.lines.slice(1).map((x) => [x.type, x.request_token])).toEqual([
      ['event', 'dup-1'],
      ['repeat', 'dup-1'],
    ]);
    expect(l.lines[2].repeat_of).toBe(l.lines[1].seq);
  });

  it('forwards everything, in order, to a handler that is down at first', async () => {
    const probe = createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
    const port = (probe.address() as AddressInfo).port;
    await new Promise((r) => probe.close(r));

    const l = await listen(['--forward-to', `http://127.0.0.1:${port}/hook`]);
    await sb.control('webhooks', { url: l.url, auth_token: TOKEN, format: 'form', retries: 2 });
    const expected = await lifeOfTwoShipments();
    await l.waitFor((ls) => events(ls).length >= expected.length, 'all events printed');
    await l.waitFor(() => /unreachable/.test(l.stderr()), 'a failed forward attempt');

    const received: Array<{ type?: string; body: string }> = [];
    const handler = createServer((req, res) => {
      let b = '';
      req.on('data', (c) => (b += c));
      req.on('end', () => {
        received.push({ type: req.headers['content-type'], body: b });
        res.writeHead(200).end();
      });
    });
    servers.push(handler);
    await new Promise<void>((r) => handler.listen(port, '127.0.0.1', r));
    await l.waitFor((ls) => ls.filter((x) => x.type === 'forwarded').length >= expected.length, 'all forwarded', 30_000);

    expect(received.map((r) => r.type)).toEqual(expected.map(() => 'application/x-www-form-urlencoded'));
    const sent = received.map((r) => new URLSearchParams(r.body));
    expect(sent.map((p) => [p.get('event'), p.get('shipment_reference')])).toEqual(expected);
    expect(sent.every((p) => p.get('auth_token') === TOKEN)).toBe(true);
    const fwd = l.lines.filter((x) => x.type === 'forwarded');
    expect(fwd.map((x) => x.status)).toEqual(expected.map(() => 200));
    expect(fwd.map((x) => x.seq)).toEqual(events(l.lines).map((e) => e.seq));
    // Stops promptly on SIGINT even with keep-alive connections to the handler open.
    const t0 = Date.now();
    l.proc.kill('SIGINT');
    expect((await l.proc).exitCode).toBe(130);
    expect(Date.now() - t0).toBeLessThan(3000);
  });
});
