// `ship webhooks listen` and `ship webhooks trigger` in-process: a real receiver on a free port, real HTTP.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { run as listen, type ListenOptions } from '../../src/commands/webhooks/listen.js';
import { createContext } from '../../src/context.js';
import { Interrupted, UsageError } from '../../src/errors.js';
import { examplePayload, formEncode } from '../../src/sandbox/webhooks.js';
import { parseEventList } from '../../src/webhooks/events.js';
import { bufferIO, runShip } from '../helpers/run.js';

const servers: Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

/** Runs `listen` with a context we can abort; resolves once it listens. */
async function startListen(opts: Partial<ListenOptions> & { json?: boolean; tty?: boolean } = {}) {
  const io = bufferIO({ tty: opts.tty });
  const abort = new AbortController();
  const ctx = createContext({ io, env: { NO_COLOR: '1' }, signal: abort.signal });
  ctx.globals = { json: opts.json ?? true };
  let onUrl!: (u: string) => void;
  const urlP = new Promise<string>((r) => (onUrl = r));
  const done = listen(ctx, {
    host: '127.0.0.1',
    port: 0,
    queueLimit: 1000,
    forwardDelayMs: { initial: 20, max: 50 },
    ...opts,
    onListening: onUrl,
  }).then(
    () => null,
    (e: unknown) => e,
  );
  const url = await Promise.race([urlP, done.then((e) => Promise.reject(e))]);
  return {
    url,
    io,
    ctx,
    async stop() {
      abort.abort(new Interrupted());
      return done;
    },
    lines: () =>
      io
        .out()
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Record<string, any>),
  };
}

const postJson = (url: string, p: object) => fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(p) });
const waitFor = async (cond: () => boolean, ms = 3000) => {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 10));
  }
};

describe('webhooks listen (in-process)', () => {
  it('prints NDJSON: listening URL first, events with masked token, repeats, and exits via Interrupted', async () => {
    const l = await startListen({ authToken: 'hook-secret-123456' });
    const tok = { auth_token: 'hook-secret-123456' };
    expect((await postJson(l.url, examplePayload('SHIPMENT_CREATED', { ...tok, request_token: 'a' }))).status).toBe(200);
    const form = formEncode(examplePayload('TRACKING_DELIVERED', { ...tok, request_token: 'b', shipment_reference: 'F-1' }));
    expect((await fetch(l.url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: form })).status).toBe(200);
    expect((await postJson(l.url, examplePayload('SHIPMENT_CREATED', { ...tok, request_token: 'a' }))).status).toBe(200);
    expect((await postJson(l.url, examplePayload('SHIPMENT_CANCELLED', { auth_token: 'nope', request_token: 'c' }))).status).toBe(401);
    const err = await l.stop();
    expect(err).toBeInstanceOf(Interrupted);
    const lines = l.lines();
    expect(lines.map((x) => x.type)).toEqual(['listening', 'event', 'event', 'repeat']);
    expect(lines[0].url).toBe(l.url);
    expect(lines[1]).toMatchObject({ event: 'SHIPMENT_CREATED', encoding: 'json', request_token: 'a', payload: { shipment_reference: 'EXAMPLE-1001' } });
    expect(lines[2]).toMatchObject({ event: 'TRACKING_DELIVERED', encoding: 'form', payload: { shipment_reference: 'F-1', tracking_event_type: 'Delivered' } });
    expect(lines[3]).toMatchObject({ type: 'repeat', request_token: 'a', repeat_of: lines[1].seq });
    expect(l.io.out()).not.toContain('hook-secret-123456');
    expect(lines[1].payload.auth_token).toBe('****3456');
    expect(l.io.err()).toMatch(/rejected 401/);
    expect(l.io.err()).not.toContain('nope');
  });

  it('masks an auth_token repeated in a nested object of the payload, and its value wherever it is repeated', async () => {
    const l = await startListen({ authToken: 'hook-secret-123456' });
    const payload = { ...examplePayload('SHIPMENT_CREATED', { auth_token: 'hook-secret-123456', request_token: 'n' }), nested: { auth_token: 'hook-secret-123456', note: 'sent with hook-secret-123456' } };
    expect((await postJson(l.url, payload)).status).toBe(200);
    await l.stop();
    expect(l.io.out()).not.toContain('hook-secret-123456');
    expect(l.lines()[1].payload.nested).toEqual({ auth_token: '****3456', note: 'sent with ****3456' });
  });

  it('prints a line per event in human mode and filters with --events', async () => {
    const l = await startListen({ json: false, authToken: 't', events: parseEventList('TRACKING_*') });
    await postJson(l.url, examplePayload('SHIPMENT_CREATED', { auth_token: 't' }));
    await postJson(l.url, examplePayload('TRACKING_IN_TRANSIT', { auth_token: 't', shipment_reference: 'ORDER-9' }));
    await l.stop();
    const lines = l.io.out().trim().split('\n');
    expect(lines[0]).toBe(l.url);
    expect(lines).toHaveLength(2);
    expect(lines[1]).toMatch(/^\d\d:\d\d:\d\d {2}TRACKING_IN_TRANSIT +ORDER-9 +In Transit +The parcel is on its way/);
  });

  it('forwards to a handler that is down at first, in order, and reports statuses', async () => {
    // Reserve a port, free it, start the handler there later.
    const probe = createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
    const port = (probe.address() as AddressInfo).port;
    await new Promise((r) => probe.close(r));

    const l = await startListen({ forwardTo: `http://127.0.0.1:${port}/in` });
    const tokens = ['t1', 't2', 't3'];
    for (const t of tokens) await postJson(l.url, examplePayload('TRACKING_UPDATED', { request_token: t }));
    await new Promise((r) => setTimeout(r, 100));
    const got: string[] = [];
    const handler = createServer((req, res) => {
      let b = '';
      req.on('data', (c) => (b += c));
      req.on('end', () => {
        got.push(JSON.parse(b).request_token);
        res.writeHead(204).end();
      });
    });
    servers.push(handler);
    await new Promise<void>((r) => handler.listen(port, '127.0.0.1', r));
    await waitFor(() => l.lines().filter((x) => x.type === 'forwarded').length === 3);
    await l.stop();
    expect(got).toEqual(tokens);
    const fwd = l.lines().filter((x) => x.type === 'forwarded');
    expect(fwd.map((x) => [x.request_token, x.status])).toEqual(tokens.map((t) => [t, 204]));
    expect(fwd[0].attempts).toBeGreaterThan(1);
    expect(l.io.err()).toMatch(/unreachable \(connection refused\)/);
  });

  it('never prints a key in the --forward-to address (user part or query)', async () => {
    const l = await startListen({ forwardTo: 'http://hook-SECRET@127.0.0.1:1/in?key=SECRET', authToken: 'whsec-SECRET-9999' });
    await postJson(l.url, examplePayload('SHIPMENT_CREATED', { request_token: 'x', auth_token: 'whsec-SECRET-9999' }));
    await waitFor(() => l.lines().some((x) => x.type === 'event') && /retrying/.test(l.io.err()));
    await l.stop();
    expect(l.lines()[0]).toMatchObject({ type: 'listening', forward_to: 'http://****@127.0.0.1:1/in?****' });
    expect(l.io.out() + l.io.err()).not.toContain('SECRET');
    expect(l.io.err()).toContain('handler http://****@127.0.0.1:1/in?****');
    const bad = await runShip(['webhooks', 'listen', '--forward-to', 'ftp://u:SECRET@x/?k=SECRET']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).not.toContain('SECRET');
  });

  it('warns about events left undelivered at stop', async () => {
    const l = await startListen({ forwardTo: 'http://127.0.0.1:1/' });
    await postJson(l.url, examplePayload('SHIPMENT_CREATED', { request_token: 'x' }));
    await waitFor(() => l.lines().some((x) => x.type === 'event'));
    await l.stop();
    expect(l.lines().at(-1)).toMatchObject({ type: 'undelivered', count: 1 });
    expect(l.io.err()).toMatch(/1 event was not delivered/);
  });

  it('refuses to listen on a public address without a token, and bad flags', async () => {
    const io = bufferIO();
    const ctx = createContext({ io, env: {} });
    ctx.globals = {};
    await expect(listen(ctx, { host: '0.0.0.0', port: 0, queueLimit: 10 })).rejects.toBeInstanceOf(UsageError);
    for (const args of [['--port', '70000'], ['--forward-to', 'ftp://x'], ['--events', 'NOPE'], ['--host', '0.0.0.0']]) {
      const r = await runShip(['webhooks', 'listen', ...args]);
      expect(r.code, args.join(' ')).toBe(2);
    }
    expect((await runShip(['webhooks', 'listen', '--events', 'NOPE'])).stderr).toMatch(/unknown event NOPE/);
    // Plain http off this machine: the payloads carry their auth_token (refused before listening or sending).
    const plain = await runShip(['webhooks', 'listen', '--forward-to', 'http://10.0.0.9/hook']);
    expect(plain.code).toBe(2);
    expect(plain.stderr).toContain('--forward-to: refusing plain http:// to 10.0.0.9');
  });
});

describe('webhooks trigger (in-process)', () => {
  async function handler(status: number) {
    const got: Array<{ type?: string; body: string }> = [];
    const s = createServer((req, res) => {
      let b = '';
      req.on('data', (c) => (b += c));
      req.on('end', () => {
        got.push({ type: req.headers['content-type'], body: b });
        res.writeHead(status, { 'content-type': 'application/json' }).end('{"ok":true}');
      });
    });
    servers.push(s);
    await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
    return { url: `http://127.0.0.1:${(s.address() as AddressInfo).port}/hook`, got };
  }

  it('sends the example payload with the edited references and reports 2xx', async () => {
    const h = await handler(200);
    const r = await runShip(['webhooks', 'trigger', 'tracking_delivered', '--to', h.url, '--auth-token', 'tk-1', '--shipment-reference', 'MY-REF', '--json']);
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(doc).toMatchObject({ ok: true, status: 200, event: 'TRACKING_DELIVERED', format: 'json' });
    expect(h.got).toHaveLength(1);
    const sent = JSON.parse(h.got[0].body);
    expect(sent).toMatchObject({ event: 'TRACKING_DELIVERED', shipment_reference: 'MY-REF', auth_token: 'tk-1', request_token: doc.request_token });
    expect(h.got[0].type).toBe('application/json');
  });

  it('without --auth-token names the example token it sends: a JSON line on stderr under --json, text otherwise', async () => {
    const h = await handler(200);
    const said = 'no --auth-token (or SHIP_WEBHOOK_TOKEN): sending the example token "whk_example_auth_token"';
    const j = await runShip(['webhooks', 'trigger', 'SHIPMENT_CREATED', '--to', h.url, '--json']);
    expect(j.code, j.stderr).toBe(0);
    expect(j.stderr.trimEnd().split('\n').map((l) => JSON.parse(l))).toEqual([{ info: { message: said } }]);
    const t = await runShip(['webhooks', 'trigger', 'SHIPMENT_CREATED', '--to', h.url]);
    expect(t.code, t.stderr).toBe(0);
    expect(t.stderr).toBe(`${said}\n`);
  });

  it('sends form encoding and exits 1 when the handler does not answer 2xx', async () => {
    const h = await handler(500);
    const r = await runShip(['webhooks', 'trigger', 'SHIPMENT_CANCELLED', '--to', h.url, '--format', 'form', '--order-reference', 'O-7', '--parcel-reference', 'P-7']);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/✗ SHIPMENT_CANCELLED \(form\) .*500/);
    expect(h.got[0].type).toBe('application/x-www-form-urlencoded');
    const p = new URLSearchParams(h.got[0].body);
    expect(p.get('order_reference')).toBe('O-7');
    expect(p.get('parcel_references[0]')).toBe('P-7');
  });

  it('a handler that echoes the request: the auth token is masked on stdout and in traces, and a key in --to is not printed', async () => {
    const TOKEN = 'whsec-SECRET-4242';
    const s = createServer((req, res) => {
      let b = '';
      req.on('data', (c) => (b += c));
      // Echoes the form body as it came: auth_token=whsec-SECRET-4242&…
      req.on('end', () => res.writeHead(400, { 'content-type': 'text/plain' }).end(`bad request: ${b}`));
    });
    servers.push(s);
    await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
    const to = `http://hook-KEY-SECRET@127.0.0.1:${(s.address() as AddressInfo).port}/hook?key=SECRET-q`;
    for (const extra of [['--json'], ['--verbose']]) {
      const r = await runShip(['webhooks', 'trigger', 'SHIPMENT_CREATED', '--to', to, '--auth-token', TOKEN, '--format', 'form', ...extra]);
      expect(r.code, r.stderr).toBe(1);
      expect(r.stdout + r.stderr).not.toContain('SECRET');
      expect(r.stdout + r.stderr).toContain('****4242');
      if (extra[0] === '--json') expect(JSON.parse(r.stdout).url).toMatch(/^http:\/\/\*{4}@127\.0\.0\.1:\d+\/hook\?\*{4}$/);
    }
    // A handler whose answer holds the token past its first 2,000 characters, across that cut: masked whole.
    const long = createServer((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(500, { 'content-type': 'text/plain' }).end(`${'x'.repeat(1985)} got ${TOKEN}`));
    });
    servers.push(long);
    await new Promise<void>((r) => long.listen(0, '127.0.0.1', r));
    const cut = await runShip(['webhooks', 'trigger', 'SHIPMENT_CREATED', '--to', `http://127.0.0.1:${(long.address() as AddressInfo).port}/`, '--auth-token', TOKEN, '--json']);
    expect(cut.code).toBe(1);
    expect(cut.stdout + cut.stderr).not.toContain('whsec-SE');
    const down = await runShip(['webhooks', 'trigger', 'SHIPMENT_CREATED', '--to', 'http://u:pw-SECRET@127.0.0.1:1/?token=SECRET']);
    expect(down.code).toBe(1);
    expect(down.stderr).toContain('http://u:****@127.0.0.1:1/?****');
    expect(down.stderr).not.toContain('SECRET');
  });

  it('--timeout (or SHIP_TIMEOUT) bounds the wait for a slow handler; without it, the trigger\'s own 10 s', async () => {
    const s = createServer((_req, res) => void setTimeout(() => res.end('ok'), 4000).unref());
    servers.push(s);
    await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(s.address() as AddressInfo).port}/hook`;
    for (const [args, env] of [[['--timeout', '1'], {}], [[], { SHIP_TIMEOUT: '1' }]] as const) {
      const started = Date.now();
      const r = await runShip([...args, 'webhooks', 'trigger', 'SHIPMENT_CREATED', '--to', url], { env: { ...env, SHIP_CONFIG_DIR: mkdtempSync(join(tmpdir(), 'ship-trig-')) } });
      expect(r.code).toBe(1);
      expect(Date.now() - started).toBeLessThan(3000);
    }
  });

  it('fails with exit 1 when nothing listens, and 2 for an unknown event', async () => {
    expect((await runShip(['webhooks', 'trigger', 'SHIPMENT_CREATED', '--to', 'http://127.0.0.1:1/'])).code).toBe(1);
    const bad = await runShip(['webhooks', 'trigger', 'NOPE', '--to', 'http://127.0.0.1:1/']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/unknown event/);
  });
});
