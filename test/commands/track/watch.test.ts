// `ship track --watch` on a terminal redraws the timeline in place (in-process, against the sandbox).
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../../src/main.js';
import { redrawFrom } from '../../../src/commands/track/run.js';
import { bufferIO, runShip } from '../../helpers/run.js';
import { startTestSandbox, type TestSandbox } from '../../helpers/sandbox.js';
import { startStub, type StubServer } from '../stub-server.js';

let sb: TestSandbox;
let env: Record<string, string>;
beforeAll(async () => {
  sb = await startTestSandbox();
  env = { ...(await sb.authEnv()), SHIP_CONFIG_DIR: mkdtempSync(join(tmpdir(), 'ship-watch-')) };
});
afterAll(async () => {
  await sb?.close();
});

describe('track --watch on a TTY', () => {
  it('redraws in place until the parcel is delivered, latest stage last', async () => {
    const res = await fetch(`${sb.baseUrl}/shipments`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-service-api-key': env.SHIP_API_KEY, 'x-service-token': env.SHIP_TOKEN },
      body: JSON.stringify({
        shipment_reference: 'WATCH-TTY',
        to_address: { name: 'A', line_1: '1 St', city: 'London', postcode: 'SW1A 1AA', country: 'GB' },
        parcels: [{ weight: 1000, length: 10, width: 10, depth: 10 }],
      }),
    });
    expect(res.status).toBeLessThan(300);
    const io = bufferIO({ tty: true });
    const running = main(['track', 'WATCH-TTY', '--watch', '--interval', '0.1'], { io, env: { NO_COLOR: '1', ...env }, handleSignals: false });
    // Move the parcel on only after each frame was drawn, so every stage is seen (however slow the machine).
    let frames = 0;
    for (let i = 0; i < 4; i++) {
      const until = Date.now() + 10_000;
      while (io.out().split('watching').length - 1 <= frames && Date.now() < until) await new Promise((r) => setTimeout(r, 10));
      frames = io.out().split('watching').length - 1;
      await sb.control('tracking/advance', { shipment_reference: 'WATCH-TTY' });
    }
    const code = await running;
    const r = { code, stdout: io.out(), stderr: io.err() };
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(UP_AND_BLANK); // moved up and blanked: redrawn, not appended
    // Never "clear to the end of the screen" from the drawing's top: at the screen's top-left tmux keeps a copy.
    expect(r.stdout).not.toContain('\x1b[J');
    const lastFrame = r.stdout.split(UP_AND_BLANK).pop()!;
    const stages = ['Label created', 'Manifested', 'Collected', 'In transit', 'Delivered'].map((s) => lastFrame.indexOf(s));
    expect(stages.every((i, k) => i >= 0 && (k === 0 || i > stages[k - 1]))).toBe(true);
    expect(lastFrame).toMatch(/▶ .*Delivered/);
    // Finished: the last drawing no longer says it is watching.
    expect(lastFrame).not.toContain('watching');
    expect(lastFrame).not.toContain('Ctrl-C');
  });
});

/** A redraw in place: up over the rows drawn, each blanked, and up again to draw. */
const UP_AND_BLANK = /\x1b\[(\d+)A(?:\x1b\[2K\n)+\x1b\[\1A/;

describe('track --watch redraws where the old drawing is out of reach of cursor-up', () => {
  it('unit: up over the rows drawn; the whole screen after a resize or when the drawing was as tall as the screen', () => {
    expect(redrawFrom(0, undefined, 100, 30)).toBe('none');
    expect(redrawFrom(8, 100, 100, 30)).toBe('up');
    expect(redrawFrom(8, 100, 100, undefined)).toBe('up');
    expect(redrawFrom(8, 100, 60, 30)).toBe('screen');
    expect(redrawFrom(30, 100, 100, 30)).toBe('screen');
    expect(redrawFrom(29, 100, 100, 30)).toBe('up');
  });

  /** Runs a watch of a new shipment on a fake terminal, calling `between` after the first frame. */
  async function watchWith(ref: string, size: { columns: number; rows?: number }, between: (io: { columns?: number; rows?: number }) => void) {
    await createShipment(ref);
    const io = bufferIO({ tty: true });
    const term = io as { columns?: number; rows?: number };
    term.columns = size.columns;
    term.rows = size.rows;
    const running = main(['track', ref, '--watch', '--interval', '0.1'], { io, env: { NO_COLOR: '1', ...env }, handleSignals: false });
    const frames = () => io.out().split('watching').length - 1;
    const waitFrames = async (n: number) => {
      const until = Date.now() + 10_000;
      while (frames() < n && Date.now() < until) await new Promise((r) => setTimeout(r, 10));
    };
    await waitFrames(1);
    between(term);
    // Several polls with nothing new, then the rest of the way to delivered.
    await new Promise((r) => setTimeout(r, 300));
    const idleFrames = frames();
    await sb.control('tracking/advance', { shipment_reference: ref, to: 'DELIVERED' });
    const code = await running;
    return { code, out: io.out(), idleFrames };
  }

  it('a window resized while watching: the screen is cleared and drawn again (the old top stayed above the new drawing)', async () => {
    const r = await watchWith('WATCH-RESIZE', { columns: 100, rows: 40 }, (t) => (t.columns = 60));
    expect(r.code).toBe(0);
    const afterFirst = r.out.slice(r.out.indexOf('watching'));
    expect(afterFirst.startsWith('watching')).toBe(true);
    // The first redraw after the resize clears the screen; later ones move up again, at the new width.
    const firstRedraw = afterFirst.slice(afterFirst.indexOf('\n') + 1);
    expect(firstRedraw.startsWith('\x1b[H\x1b[J')).toBe(true);
    expect(r.out.split('\x1b[H\x1b[J')).toHaveLength(2);
    expect(r.out.split('\x1b[H\x1b[J')[1]).toMatch(UP_AND_BLANK);
  });

  it('a drawing as tall as the screen: cleared from the screen\'s top, and drawn again only when it changed', async () => {
    // One parcel, one event: heading, parcel, event, blank, footer = 5 rows on a 5-row screen.
    const r = await watchWith('WATCH-TALL', { columns: 100, rows: 5 }, () => {});
    expect(r.code).toBe(0);
    expect(r.out).not.toMatch(/\x1b\[\d+A/);
    expect(r.out).toContain('\x1b[H\x1b[J');
    // Polls that found nothing new drew nothing (each copy would leave its top in the scrollback).
    expect(r.idleFrames).toBe(1);
    expect(r.out.split('\x1b[H\x1b[J').pop()).toMatch(/▶ .*Delivered/);
  });
});

/** Creates a one-parcel shipment straight through the API. */
async function createShipment(ref: string): Promise<void> {
  const res = await fetch(`${sb.baseUrl}/shipments`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-service-api-key': env.SHIP_API_KEY, 'x-service-token': env.SHIP_TOKEN },
    body: JSON.stringify({
      shipment_reference: ref,
      to_address: { name: 'A', line_1: '1 St', city: 'London', postcode: 'SW1A 1AA', country: 'GB' },
      parcels: [{ weight: 1000, length: 10, width: 10, depth: 10 }],
    }),
  });
  expect(res.status).toBeLessThan(300);
}

describe('track --watch --max-wait', () => {
  it('a cancelled shipment (still answered, at "Label created" for ever) stops at --max-wait: the JSON document, the references on stderr, exit 1', async () => {
    await createShipment('WATCH-CANCELLED');
    await createShipment('WATCH-DONE');
    await sb.control('tracking/advance', { shipment_reference: 'WATCH-DONE', to: 'DELIVERED' });
    const headers = { 'x-service-api-key': env.SHIP_API_KEY, 'x-service-token': env.SHIP_TOKEN };
    expect((await fetch(`${sb.baseUrl}/shipments/WATCH-CANCELLED`, { method: 'DELETE', headers })).status).toBe(200);
    // What the sandbox does with a cancelled shipment's events: still there, no event says it was cancelled.
    const events = await fetch(`${sb.baseUrl}/shipments/WATCH-CANCELLED/events`, { headers });
    expect(events.status).toBe(200);
    expect(Object.values(((await events.json()) as { data: Record<string, { tracking_events: Array<{ type: string }> }> }).data)[0].tracking_events.map((e) => e.type)).toEqual(['LABEL_CREATED']);

    const t0 = Date.now();
    const r = await runShip(['track', 'WATCH-CANCELLED', 'WATCH-DONE', '--watch', '--interval', '0.1', '--max-wait', '0.6', '--json'], { env });
    expect(r.code, r.stderr).toBe(1);
    expect(Date.now() - t0).toBeLessThan(10_000);
    const doc = JSON.parse(r.stdout);
    expect(doc.shipments.map((s: { reference: string; parcels: Array<{ status: string }> }) => [s.reference, s.parcels[0].status])).toEqual([
      ['WATCH-CANCELLED', 'LABEL_CREATED'],
      ['WATCH-DONE', 'DELIVERED'],
    ]);
    const err = JSON.parse(r.stderr.trim().split('\n').at(-1)!).error;
    expect(err).toMatchObject({ exit_code: 1, type: 'TimedOut' });
    expect(err.message).toBe('stopped watching after --max-wait 0.6s: not delivered yet: WATCH-CANCELLED (Label created)');
    expect(err.hint).toMatch(/may have been cancelled/);

    // In text off a terminal: the events as they came, then the same message.
    const text = await runShip(['track', 'WATCH-CANCELLED', '--watch', '--interval', '0.1', '--max-wait', '0.3'], { env });
    expect(text.code).toBe(1);
    expect(text.stdout).toMatch(/^\S+ \S+\tWATCH-CANCELLED\t\S+\tLabel created\t/);
    expect(text.stderr).toContain('error: stopped watching after --max-wait 0.3s: not delivered yet: WATCH-CANCELLED (Label created)');
  });

  it('on a terminal the footer says how long it watches; the last drawing stays without it', async () => {
    await createShipment('WATCH-TTY-MAX');
    const io = bufferIO({ tty: true });
    const code = await main(['track', 'WATCH-TTY-MAX', '--watch', '--interval', '0.1', '--max-wait', '0.4'], { io, env: { NO_COLOR: '1', ...env }, handleSignals: false });
    expect(code).toBe(1);
    expect(io.out()).toContain('watching · every 0.1s · for up to 0.4s · Ctrl-C to stop');
    const lastFrame = io.out().split(UP_AND_BLANK).pop()!;
    expect(lastFrame).toMatch(/▶ .*Label created/);
    expect(lastFrame).not.toContain('watching');
    expect(io.err()).toContain('not delivered yet: WATCH-TTY-MAX (Label created)');
  });

  it('all delivered before --max-wait: exit 0, as without it', async () => {
    await createShipment('WATCH-QUICK');
    await sb.control('tracking/advance', { shipment_reference: 'WATCH-QUICK', to: 'DELIVERED' });
    const r = await runShip(['track', 'WATCH-QUICK', '--watch', '--interval', '0.1', '--max-wait', '30', '--json'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).shipments[0].parcels[0].status).toBe('DELIVERED');
  });

  it('takes plain seconds, with --watch only', async () => {
    const noWatch = await runShip(['track', 'X', '--max-wait', '60'], { env });
    expect(noWatch.code).toBe(2);
    expect(noWatch.stderr).toContain('--max-wait bounds how long --watch polls: add --watch');
    for (const bad of ['0', '1e3', '15m', '-5']) {
      const r = await runShip(['track', 'X', '--watch', '--max-wait', bad], { env });
      expect(r.code, bad).toBe(2);
      expect(r.stderr, bad).toContain(`--max-wait: "${bad}"`);
    }
    const long = await runShip(['track', 'X', '--watch', '--max-wait', '700000'], { env });
    expect(long.code).toBe(2);
    expect(long.stderr).toContain('at most 604800 seconds');
  });
});

describe('track --watch: a reference the API stops finding', () => {
  let stub: StubServer;
  const event = (type: string, date: string) => ({ code: type.slice(0, 2), name: type, description: type, date, type });
  const shipment = (ref: string, trk: string, types: string[]) => ({
    status: 200,
    body: { message: 'Tracking events', data: { [trk]: { shipment_reference: ref, courier_tracking_reference: trk, tracking_events: types.map((t, i) => event(t, `2026-11-2${i} 10:00:00`)) } } },
  });
  const notFound = { status: 404, body: { message: 'Not found', data: null } };
  beforeAll(async () => {
    stub = await startStub();
  });
  afterAll(async () => {
    await stub?.close();
  });
  const stubEnv = () => ({ SHIP_BASE_URL: stub.baseUrl, SHIP_API_KEY: 'key-1234', SHIP_TOKEN: 'token-1234', SHIP_CONFIG_DIR: env.SHIP_CONFIG_DIR });
  const polls = (path: string) => stub.requests.filter((q) => q.path === path).length;

  it('stops watching it (said once on stderr, naming it) while the others are watched on: exit 3', async () => {
    let gonePolls = 0;
    stub.on('GET /shipments/GONE-1/events', () => (++gonePolls === 1 ? shipment('GONE-1', 'TRK-G1', ['LABEL_CREATED']) : notFound));
    stub.on('GET /parcels/GONE-1/events', notFound);
    let livePolls = 0;
    stub.on('GET /shipments/LIVE-1/events', () => shipment('LIVE-1', 'TRK-L1', ++livePolls < 4 ? ['LABEL_CREATED', 'IN_TRANSIT'] : ['LABEL_CREATED', 'IN_TRANSIT', 'DELIVERED']));
    const r = await runShip(['track', 'GONE-1', 'LIVE-1', '--watch', '--interval', '0.1'], { env: stubEnv() });
    expect(r.code, r.stderr).toBe(3);
    expect(r.stderr.match(/error: GONE-1: shipment "GONE-1" is no longer found \(HTTP 404: deleted or cancelled in the service\?\); stopped watching it/g)).toHaveLength(1);
    expect(r.stdout).toMatch(/\tLIVE-1\tTRK-L1\tDelivered\t/);
    expect(polls('/shipments/GONE-1/events')).toBe(2); // not polled again once gone
    expect(livePolls).toBe(4);
  });

  it('a lone reference: its last timeline in --json with the error, exit 5, said once', async () => {
    let n = 0;
    stub.on('GET /shipments/GONE-2/events', () => (++n === 1 ? shipment('GONE-2', 'TRK-G2', ['LABEL_CREATED', 'MANIFESTED']) : notFound));
    stub.on('GET /parcels/GONE-2/events', notFound);
    const r = await runShip(['track', 'GONE-2', '--watch', '--interval', '0.1', '--json'], { env: stubEnv() });
    expect(r.code, r.stderr).toBe(5);
    const doc = JSON.parse(r.stdout);
    expect(doc.shipments[0]).toMatchObject({ reference: 'GONE-2', parcels: [{ tracking_reference: 'TRK-G2', status: 'MANIFESTED' }], error: expect.stringMatching(/no longer found/) });
    const lines = r.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]).error).toMatchObject({ exit_code: 5, message: expect.stringMatching(/^shipment "GONE-2" is no longer found/) });
    n = 0;
    const text = await runShip(['track', 'GONE-2', '--watch', '--interval', '0.1'], { env: stubEnv() });
    expect(text.code).toBe(5);
    expect(text.stderr.match(/no longer found/g)).toHaveLength(1);
  });

  it('credentials refused while watching stop the watch with exit 4 (it polled on for ever)', async () => {
    let n = 0;
    stub.on('GET /shipments/AUTH-1/events', () => (++n === 1 ? shipment('AUTH-1', 'TRK-A1', ['LABEL_CREATED']) : { status: 401, body: { message: 'Unauthenticated.', data: null } }));
    const r = await runShip(['track', 'AUTH-1', '--watch', '--interval', '0.1', '--json'], { env: stubEnv() });
    expect(r.code, r.stderr).toBe(4);
    expect(JSON.parse(r.stdout).shipments[0].parcels[0].status).toBe('LABEL_CREATED');
    expect(n).toBe(2);
  });

  it('a poll that fails otherwise (500) keeps the last timeline and polls on', async () => {
    let n = 0;
    stub.on('GET /shipments/FLAKY-1/events', () => {
      n++;
      if (n === 2) return { status: 500, body: { message: 'Server Error', data: null } };
      return shipment('FLAKY-1', 'TRK-F1', n < 4 ? ['LABEL_CREATED'] : ['LABEL_CREATED', 'DELIVERED']);
    });
    const r = await runShip(['track', 'FLAKY-1', '--watch', '--interval', '0.1', '--timeout', '2'], { env: stubEnv() });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/\tFLAKY-1\tTRK-F1\tDelivered\t/);
    expect(n).toBe(4);
    // Said, not hidden behind the last timeline: when polls start failing, and when they work again.
    expect(r.stderr).toMatch(/warning: the last poll failed \(.*500.*\); the last known state stands, polling again every 0\.1s\n/);
    expect(r.stderr).toContain('warning: polling works again after 1 failed poll');
  });

  it('ends on a failed delivery as on a delivered one, saying which parcels failed', async () => {
    let n = 0;
    stub.on('GET /shipments/FAIL-1/events', () => shipment('FAIL-1', 'TRK-X1', ++n < 2 ? ['LABEL_CREATED'] : ['LABEL_CREATED', 'IN_TRANSIT', 'DELIVERY_FAILED']));
    const r = await runShip(['track', 'FAIL-1', '--watch', '--interval', '0.1'], { env: stubEnv() });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('warning: delivery failed: TRK-X1 (FAIL-1)');
  });

  it('polls failing until --max-wait: the error says so; --quiet follows each parcel\'s status as a line', async () => {
    let n = 0;
    stub.on('GET /shipments/DOWN-1/events', () => (++n === 1 ? shipment('DOWN-1', 'TRK-D1', ['LABEL_CREATED', 'IN_TRANSIT']) : { status: 503, body: { message: 'Service Unavailable', data: null } }));
    const r = await runShip(['track', 'DOWN-1', '--watch', '--interval', '0.1', '--max-wait', '1', '--quiet', '--timeout', '2'], { env: stubEnv() });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('TRK-D1\tIN_TRANSIT\n');
    expect(r.stderr.match(/warning: the last poll failed/g)).toHaveLength(1);
    expect(r.stderr).toMatch(/error: stopped watching after --max-wait 1s: not delivered yet: DOWN-1 \(In transit\); the last (\d+ polls|poll) failed \(.*503.*\)/);
  });
});

describe('track: references from stdin and --from', () => {
  it('"-" reads them from stdin; a blank list is nothing to track (said, exit 0), no list at all a usage error', async () => {
    await createShipment('STDIN-1');
    await createShipment('STDIN-2');
    const r = await runShip(['track', '-', '--quiet'], { env, stdin: 'STDIN-1\n# a comment\n\nSTDIN-2\r\nSTDIN-1\n' });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim().split('\n')).toHaveLength(2);
    const dir = mkdtempSync(join(tmpdir(), 'ship-track-from-'));
    writeFileSync(join(dir, 'refs.txt'), 'STDIN-2\n');
    const j = await runShip(['track', 'STDIN-1', '--from', join(dir, 'refs.txt'), '--json'], { env });
    expect(JSON.parse(j.stdout).shipments.map((s: { reference: string }) => s.reference)).toEqual(['STDIN-1', 'STDIN-2']);
    // A quiet day's empty list: not an error for the cron job reading it, and said; --json gives its one document.
    const none = await runShip(['track', '-'], { env, stdin: '\n# nothing\n' });
    expect(none.code).toBe(0);
    expect(none.stderr).toContain('nothing to track: stdin holds no references');
    writeFileSync(join(dir, 'empty.txt'), '# none today\n');
    const noneJson = await runShip(['track', '--from', join(dir, 'empty.txt'), '--json'], { env });
    expect([noneJson.code, JSON.parse(noneJson.stdout)]).toEqual([0, { shipments: [] }]);
    const blank = await runShip(['track', ''], { env });
    expect(blank.code).toBe(2);
    const missing = await runShip(['track'], { env });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('give at least one reference, --from FILE, or - for stdin');
  });

  it('--quiet names on stderr a reference that could not be tracked (stdout keeps the data lines)', async () => {
    await createShipment('QUIET-1');
    const r = await runShip(['track', 'NOPE-Q', 'QUIET-1', '--quiet'], { env });
    expect(r.code).toBe(3);
    expect(r.stdout).toMatch(/^\S+\tLABEL_CREATED\n$/);
    expect(r.stderr).toMatch(/error: NOPE-Q: .*not found/);
  });
});

describe('screenRows', () => {
  it('counts the rows a wrapped line takes, so a redraw moves up over all of the old drawing', async () => {
    const { screenRows } = await import('../../../src/commands/track/run.js');
    expect(screenRows('a\nb\n', 60)).toBe(2);
    expect(screenRows(`${'x'.repeat(110)}\nshort\n`, 60)).toBe(3);
    expect(screenRows(`\x1b[1m${'x'.repeat(60)}\x1b[22m\n\n`, 60)).toBe(2); // escapes take no cells; a blank line one row
    expect(screenRows(`${'東'.repeat(40)}\n`, 60)).toBe(2); // wide characters take two cells
    expect(screenRows('abc\n', 0)).toBe(1);
  });
});

describe('track --watch --max-wait bounds the whole watch, a poll waiting for its answer included', () => {
  it('a service that hangs mid-watch: stopped at --max-wait, not after the request timeout and its retries', async () => {
    await createShipment('WATCH-HANG');
    const started = Date.now();
    const running = runShip(['track', 'WATCH-HANG', '--watch', '--interval', '0.2', '--max-wait', '1.5', '--json'], { env });
    // The first poll answers; the later ones wait far beyond --max-wait.
    await new Promise((r) => setTimeout(r, 400));
    await sb.control('faults', { latency_ms: 20_000 });
    try {
      const r = await running;
      expect(Date.now() - started).toBeLessThan(6_000);
      expect(r.code).toBe(1);
      expect(JSON.parse(r.stdout).shipments[0].reference).toBe('WATCH-HANG');
      expect(r.stderr).toMatch(/stopped watching after --max-wait 1\.5s: not delivered yet: WATCH-HANG .*no answer within 2s after --max-wait ended/);
    } finally {
      await sb.control('faults', {});
    }
  });

  it('a service that does not answer the first poll: exit 1 at --max-wait, saying so', async () => {
    await createShipment('WATCH-HANG0');
    await sb.control('faults', { latency_ms: 20_000 });
    try {
      const started = Date.now();
      const r = await runShip(['track', 'WATCH-HANG0', '--watch', '--max-wait', '1'], { env });
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain('stopped watching after --max-wait 1s: the service did not answer the first poll');
    } finally {
      await sb.control('faults', {});
    }
  });
});

describe('track of several references when the service fails for every one', () => {
  it('exits 1 (the service is down), as for one reference, not 3 (some references are wrong)', async () => {
    await createShipment('DOWN-1');
    await createShipment('DOWN-2');
    await sb.control('faults', { fail_rate: 1 });
    try {
      const r = await runShip(['track', 'DOWN-1', 'DOWN-2', '--timeout', '5'], { env });
      expect(r.code, r.stderr).toBe(1);
      expect(r.stderr).toMatch(/the service failed for every one of the 2 references/);
    } finally {
      await sb.control('faults', {});
    }
  });
});
