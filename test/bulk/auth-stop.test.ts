// The bulk runner and runBulkCommand when the API refuses the credentials mid-run (stop, exit 4, resumable),
// and per-status summary counts (hooks.statusOf).
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createContext } from '../../src/context.js';
import { AuthError, ShipError, ValidationError } from '../../src/errors.js';
import { runBulkCommand } from '../../src/bulk/command.js';
import { failedCsvPathFor } from '../../src/bulk/csv-out.js';
import { Journal, journalPathFor } from '../../src/bulk/journal.js';
import { runBulk, type BulkTask } from '../../src/bulk/runner.js';
import { bufferIO } from '../helpers/run.js';

const tmp = () => mkdtempSync(join(tmpdir(), 'ship-bulkauth-'));
const never = new AbortController().signal;
const delay = (ms: number) => new Promise((r) => setTimeout(r, ms));
const tasks = (n: number): BulkTask<number>[] => Array.from({ length: n }, (_, i) => ({ key: `K${i}`, rows: [i + 2], records: [[`K${i}`, String(i)]], input: i }));
const unauthorised = () => new AuthError('unauthorised (401): Unauthenticated.', { status: 401 }, { hint: 'the API key or token was rejected; run `ship login`' });

describe('runBulk: credentials refused', () => {
  it('stops starting tasks at the first AuthError, lets in-flight ones finish and journal them, and a rerun sends the rest once', async () => {
    const dir = tmp();
    const path = join(dir, 'j.jsonl');
    const started: number[] = [];
    let slowFinished = false;
    const concurrency = 3;
    const j = await Journal.open(path, { sync: false });
    const s = await runBulk(
      tasks(40),
      {
        async execute(t) {
          started.push(t.input);
          if (t.input === 4) {
            // In flight when K5 is refused: must still finish and be recorded.
            await delay(40);
            slowFinished = true;
            return t.input;
          }
          if (t.input === 5) {
            await delay(1);
            throw unauthorised();
          }
          await delay(10);
          return t.input;
        },
      },
      { concurrency, signal: never, journal: j, total: 40, sleep: async () => {} },
    );
    await j.close();

    expect(s.authStop).toBeInstanceOf(AuthError);
    expect(s.rejected).toBe(1);
    expect(s.failed).toBe(0); // a refused task is not a failure of its row
    expect(s.firstFailures).toEqual([]);
    expect(slowFinished).toBe(true);
    // Nothing starts after the refusal: at most the slots free at that moment were filled before it.
    expect(Math.max(...started)).toBeLessThan(5 + concurrency);
    expect(s.total).toBe(started.length);
    expect(s.created).toBe(started.length - 1);
    expect(s.notStarted).toBe(40 - started.length);
    expect(s.notStarted).toBeGreaterThan(30);

    // The journal (read back from disk): done for what was created (K4 included), nothing for K5 (refused, so
    // never sent: closed "unsent", which keeps whatever an earlier run had recorded), and nothing at all for
    // tasks not started (their reservations were closed "unsent").
    const back = await Journal.open(path, { sync: false });
    expect(back.get('K4')?.state).toBe('done');
    expect(back.get('K5')).toBeUndefined();
    for (let i = 0; i < 40; i++) if (!started.includes(i)) expect(back.get(`K${i}`), `K${i}`).toBeUndefined();

    // Rerun after a new login: what was done is skipped, everything else is sent exactly once.
    const calls = new Map<number, number>();
    const s2 = await runBulk(
      tasks(40),
      {
        async execute(t) {
          calls.set(t.input, (calls.get(t.input) ?? 0) + 1);
          return t.input;
        },
      },
      { concurrency, signal: never, journal: back, total: 40 },
    );
    await back.close();
    expect(s2.authStop).toBeUndefined();
    expect(s2.skipped).toBe(s.created);
    expect(s2.created).toBe(40 - s.created);
    expect(calls.get(5)).toBe(1);
    expect(calls.has(4)).toBe(false);
    expect([...calls.values()].every((n) => n === 1)).toBe(true);
  });

  it('a refused settle() keeps the unknown outcome for the next run and stops the run too', async () => {
    const dir = tmp();
    const path = join(dir, 'j.jsonl');
    const j = await Journal.open(path, { sync: false });
    await j.append({ key: 'K0', state: 'sending', attempt: 1 });
    let executed = 0;
    const s = await runBulk(
      tasks(10),
      {
        execute: async (t) => (executed++, t.input),
        settle: async () => {
          throw unauthorised();
        },
      },
      { concurrency: 1, signal: never, journal: j, total: 10 },
    );
    await j.close();
    expect(s.authStop).toBeInstanceOf(AuthError);
    expect(executed).toBe(0);
    expect(s.notStarted).toBe(9);
    const back = await Journal.open(path, { sync: false });
    expect(back.get('K0')).toMatchObject({ state: 'failed', unknown: true });
    await back.close();
  });
});

function ctxWith(json: boolean) {
  const io = bufferIO();
  const ctx = createContext({ io, env: { NO_COLOR: '1' } });
  ctx.globals = { json };
  return { ctx, io };
}

describe('runBulkCommand: credentials refused', () => {
  const header = ['ref', 'n'];
  const hooks = (refuseFrom: number) => ({
    async execute(t: BulkTask<number>) {
      if (t.input === 1) throw new ValidationError('The given data failed to pass validation.', { n: ['The n is bad.'] }, { status: 400 });
      if (t.input >= refuseFrom) throw unauthorised();
      return { id: `id-${t.input}` };
    },
  });

  it('exits 4 with the login hint after the summary; FILE.failed.csv holds only the rows that failed on their own', async () => {
    const dir = tmp();
    const csv = join(dir, 'orders.csv');
    const { ctx, io } = ctxWith(true);
    const err = await runBulkCommand(ctx, {
      noun: 'shipments',
      tasks: tasks(30),
      total: 30,
      hooks: hooks(4),
      concurrency: 1,
      journalPath: journalPathFor(dir, csv),
      failedCsv: { path: failedCsvPathFor(csv), header },
      jsonLine: (r) => ({ ref: r.task.key, status: r.status }),
    }).catch((e) => e);
    expect(err).toBeInstanceOf(AuthError);
    expect(err.exitCode).toBe(4);
    expect(err.hint).toMatch(/ship login/);
    expect(ctx.interruptHolders).toBe(0);
    // Per-task lines for what ran (K4 refused), none for what never started.
    expect(io.out().trim().split('\n').map((l) => JSON.parse(l))).toEqual([
      { ref: 'K0', status: 'created' },
      { ref: 'K1', status: 'failed' },
      { ref: 'K2', status: 'created' },
      { ref: 'K3', status: 'created' },
      { ref: 'K4', status: 'failed', refused: true }, // counted as refused in the summary, not failed
    ]);
    expect(JSON.parse(io.err().trim().split('\n').pop()!).summary).toMatchObject({
      total: 5,
      created: 3,
      failed: 1,
      stopped: 'credentials_refused',
      refused: 1,
      not_started: 25,
    });
    expect(readFileSync(failedCsvPathFor(csv), 'utf8')).toBe('ref,n,error\nK1,1,n: The n is bad.\n');
  });

  it('text summary says why it stopped, how many were not attempted, and to log in and rerun', async () => {
    const dir = tmp();
    const csv = join(dir, 'orders.csv');
    const { ctx, io } = ctxWith(false);
    const err = await runBulkCommand(ctx, {
      noun: 'shipments',
      tasks: tasks(30).filter((t) => t.input !== 1),
      total: 29,
      hooks: hooks(10),
      concurrency: 1,
      journalPath: journalPathFor(dir, csv),
      failedCsv: { path: failedCsvPathFor(csv), header },
      jsonLine: () => ({}),
      textLine: (r) => `${r.status}\t${r.task.key}`,
    }).catch((e) => e);
    expect(err.exitCode).toBe(4);
    const text = io.err();
    expect(text).toMatch(/^Stopped: 10 shipments/m);
    expect(text).toMatch(/refused\s+1\n/);
    expect(text).toMatch(/not started\s+19\n/);
    expect(text).toMatch(/refused the credentials \(HTTP 401\): 19 shipments not attempted, 1 refused\.\n/);
    expect(text).toMatch(/Run `ship login`, then rerun the same command/);
    expect(text).not.toMatch(/Failures:/);
    // Nothing failed on its own: no FILE.failed.csv.
    expect(existsSync(failedCsvPathFor(csv))).toBe(false);
  });
});

describe('runBulkCommand: counts per status', () => {
  const run = (json: boolean, withStatus: boolean) => {
    const { ctx, io } = ctxWith(json);
    const p = runBulkCommand<number, { action: string }>(ctx, {
      noun: 'SKUs',
      tasks: tasks(10),
      total: 10,
      concurrency: 3,
      hooks: {
        execute: async (t) => ({ action: t.input % 3 === 0 ? 'updated' : 'created' }),
        ...(withStatus ? { statusOf: (r: { action: string }) => r.action } : {}),
      },
      statuses: ['created', 'updated', 'replaced'],
      jsonLine: () => ({}),
    });
    return p.then((s) => ({ s, io }));
  };

  it('JSON and text summaries count each status statusOf reports, listed ones even when 0', async () => {
    const { s, io } = await run(true, true);
    expect(s.byStatus).toEqual({ created: 6, updated: 4 });
    expect(s.created).toBe(10);
    const summary = JSON.parse(io.err().trim()).summary;
    expect(summary).toMatchObject({ total: 10, created: 6, updated: 4, replaced: 0, failed: 0 });
    const text = (await run(false, true)).io.err();
    expect(text).toMatch(/created\s+6\n\s+updated\s+4\n\s+replaced\s+0\n\s+failed\s+0/);
  });

  it('without statusOf everything done counts as created, as before', async () => {
    const { io } = await run(true, false);
    const summary = JSON.parse(io.err().trim()).summary;
    expect(summary).toMatchObject({ created: 10 });
    expect(summary).not.toHaveProperty('updated');
  });
});

describe('runBulkCommand: a local failure every later task would meet (hooks.stopsRun)', () => {
  class DiskFull extends Error {}
  const stop = new ShipError('the disk of ./labels is full (ENOSPC): labels cannot be written, so no more shipments are created', 1, { hint: 'make room' });

  it('starts nothing after it, lets in-flight tasks finish, summarises the stop and throws its error', async () => {
    for (const json of [true, false]) {
      const dir = tmp();
      const csv = join(dir, 'orders.csv');
      const { ctx, io } = ctxWith(json);
      const started: number[] = [];
      const err = await runBulkCommand(ctx, {
        noun: 'shipments',
        tasks: tasks(30),
        total: 30,
        hooks: {
          async execute(t: BulkTask<number>) {
            started.push(t.input);
            await delay(t.input === 2 ? 20 : 1);
            if (t.input === 3) throw new DiskFull('ENOSPC: no space left on device');
            return { id: `id-${t.input}` };
          },
          stopsRun: (e: unknown) => (e instanceof DiskFull ? stop : undefined),
        },
        concurrency: 2,
        journalPath: journalPathFor(dir, csv),
        failedCsv: { path: failedCsvPathFor(csv), header: ['ref', 'n'] },
        jsonLine: (r) => ({ ref: r.task.key, status: r.status }),
        textLine: (r) => `${r.status}\t${r.task.key}`,
      }).catch((e) => e);
      expect(err).toBe(stop);
      // K2 was in flight when K3 failed: it finished; nothing new started after K3's failure.
      expect(Math.max(...started)).toBeLessThanOrEqual(4);
      const handled = started.length;
      if (json) {
        expect(JSON.parse(io.err().trim().split('\n').pop()!).summary).toMatchObject({ total: handled, failed: 1, stopped: 'local_error', not_started: 30 - handled });
      } else {
        expect(io.err()).toMatch(/^Stopped: \d+ shipments/m);
        expect(io.err()).toMatch(new RegExp(`not started\\s+${30 - handled}\\n`));
        expect(io.err()).toContain('Stopped: the disk of ./labels is full (ENOSPC)');
        expect(io.err()).toContain('rerun the same command to continue: nothing is created twice');
      }
      // A rerun (room made) does the rest, each once.
      const again = await runBulkCommand(ctxWith(true).ctx, {
        noun: 'shipments',
        tasks: tasks(30),
        total: 30,
        // The stopped task's outcome was unknown (its label, not its creation, failed): settled, found absent here.
        hooks: { execute: async (t: BulkTask<number>) => ({ id: `id-${t.input}` }), settle: async () => ({ status: 'absent' as const }) },
        concurrency: 2,
        journalPath: journalPathFor(dir, csv),
        jsonLine: (r) => ({ ref: r.task.key, status: r.status }),
      });
      expect(again).toMatchObject({ created: 30 - handled + 1, skipped: handled - 1, failed: 0 });
    }
  });
});
