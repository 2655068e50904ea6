import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync, appendFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ApiError, NetworkError, ValidationError } from '../../src/errors.js';
import { Journal } from '../../src/bulk/journal.js';
import { runBulk, classifyFailure, type BulkResult, type BulkTask, type BulkHooks } from '../../src/bulk/runner.js';

const tmp = () => mkdtempSync(join(tmpdir(), 'ship-bulk-'));
const tasks = (n: number): BulkTask<number>[] => Array.from({ length: n }, (_, i) => ({ key: `K${i}`, rows: [i + 2], input: i }));
const noSleep = async () => {};
const never = new AbortController().signal;
const delay = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * A virtual clock for runs that sleep: sleep(ms) wakes at now + ms, and time moves on, to the next wake-up, only
 * once everything awake has run (the next check phase of the event loop).
 */
function virtualTime(onTime?: (now: number) => void) {
  let clock = 0;
  const sleepers: Array<{ at: number; wake: () => void }> = [];
  let pumping = false;
  const pump = () => {
    pumping = false;
    if (!sleepers.length) return;
    sleepers.sort((a, b) => a.at - b.at);
    const at = sleepers[0].at;
    clock = Math.max(clock, at);
    onTime?.(clock);
    while (sleepers.length && sleepers[0].at === at) sleepers.shift()!.wake();
    schedule();
  };
  const schedule = () => {
    if (pumping) return;
    pumping = true;
    setImmediate(pump);
  };
  return {
    now: () => clock,
    sleep: (ms: number, signal?: AbortSignal) =>
      new Promise<void>((wake, fail) => {
        if (signal?.aborted) return fail(signal.reason);
        const sleeper = { at: clock + Math.max(0, ms), wake };
        sleepers.push(sleeper);
        signal?.addEventListener('abort', () => {
          sleepers.splice(sleepers.indexOf(sleeper), 1);
          fail(signal.reason);
        }, { once: true });
        schedule();
      }),
  };
}

/** A fake server: remembers what exists, can fail on demand. */
function fakeServer() {
  const exists = new Map<string, number>();
  const creates = new Map<string, number>();
  return {
    exists,
    creates,
    create(key: string, v: number) {
      creates.set(key, (creates.get(key) ?? 0) + 1);
      if (exists.has(key)) throw new ValidationError('The given data failed to pass validation.', { shipment_reference: ['The shipment reference has already been taken.'] }, { status: 400 });
      exists.set(key, v);
      return { id: `id-${key}`, v };
    },
  };
}

describe('runBulk', () => {
  it('never runs more than `concurrency` tasks at once and calls onResult in input order', async () => {
    let running = 0;
    let peak = 0;
    const seen: number[] = [];
    const s = await runBulk(
      tasks(40),
      {
        async execute(t) {
          running++;
          peak = Math.max(peak, running);
          await delay((40 - t.input) % 7); // later tasks often finish first
          running--;
          return t.input * 2;
        },
        onResult(r) {
          seen.push(r.index);
        },
      },
      { concurrency: 5, signal: never },
    );
    expect(peak).toBe(5);
    expect(seen).toEqual([...Array(40).keys()]);
    expect(s).toMatchObject({ total: 40, created: 40, skipped: 0, failed: 0, interrupted: false });
  });

  it('release(): the next task starts while one finishes without its slot; requests stay within `concurrency`, results wait for the finish', async () => {
    let requesting = 0;
    let peakRequesting = 0;
    let peakTasks = 0;
    let tasksRunning = 0;
    const finishing: Array<() => void> = [];
    const dir = tmp();
    const journal = await Journal.open(join(dir, 'j.jsonl'));
    const seen: number[] = [];
    const s = await runBulk(
      tasks(30),
      {
        async execute(t, _signal, release) {
          tasksRunning++;
          peakTasks = Math.max(peakTasks, tasksRunning);
          requesting++;
          peakRequesting = Math.max(peakRequesting, requesting);
          await delay(1);
          requesting--;
          release();
          release(); // twice is once
          // The finish (a batch of label files) waits until ten tasks wait for it.
          await new Promise<void>((r) => {
            finishing.push(r);
            if (finishing.length === 10 || t.input === 29) for (const f of finishing.splice(0)) f();
          });
          tasksRunning--;
          return t.input;
        },
        onResult(r) {
          // Journaled done before it is reported, after the finish.
          expect(journal.get(r.task.key)?.state).toBe('done');
          seen.push(r.index);
        },
      },
      { concurrency: 3, signal: never, journal },
    );
    await journal.close();
    expect(peakRequesting).toBeLessThanOrEqual(3);
    // Without release() the finish would have held the slots: never more than 3 tasks at once, and a deadlock here.
    expect(peakTasks).toBeGreaterThanOrEqual(10);
    expect(seen).toEqual([...Array(30).keys()]);
    expect(s).toMatchObject({ total: 30, created: 30, failed: 0 });
  });

  it('a task that fails after release() and is tried again takes a slot again for its retry', async () => {
    const server = fakeServer();
    let requesting = 0;
    let peak = 0;
    let failedOnce = false;
    const s = await runBulk(
      tasks(6),
      {
        async execute(t, _signal, release) {
          requesting++;
          peak = Math.max(peak, requesting);
          await delay(2);
          requesting--;
          release();
          if (t.input === 0 && !failedOnce) {
            failedOnce = true;
            throw new ApiError('busy', { method: 'POST', path: '/shipments', status: 503 });
          }
          return server.create(t.key, t.input);
        },
        async settle(t) {
          return server.exists.has(t.key) ? { status: 'done', result: server.exists.get(t.key)! as never } : { status: 'absent' };
        },
      },
      { concurrency: 2, signal: never, retryDelayMs: 1 },
    );
    expect(s).toMatchObject({ created: 6, failed: 0 });
    expect(server.creates.get('K0')).toBe(1);
    expect(peak).toBeLessThanOrEqual(3);
  });

  it('completion order is available and differs from input order when tasks finish out of order', async () => {
    const seen: number[] = [];
    await runBulk(
      tasks(6),
      {
        async execute(t) {
          await delay(t.input === 0 ? 30 : 1);
          return t.input;
        },
        onResult: (r) => void seen.push(r.index),
      },
      { concurrency: 6, signal: never, order: 'completion' },
    );
    expect(seen[seen.length - 1]).toBe(0);
  });

  it('keeps the reorder buffer bounded: a slow first task holds back starting new ones', async () => {
    let started = 0;
    await runBulk(
      tasks(200),
      {
        async execute(t) {
          started++;
          if (t.input === 0) {
            await delay(50);
            // With a window of 10, at most ~10 + concurrency tasks could have started meanwhile.
            expect(started).toBeLessThanOrEqual(10 + 4);
          }
          return t.input;
        },
      },
      { concurrency: 4, signal: never, reorderWindow: 10 },
    );
    expect(started).toBe(200);
  });

  it('journals sending then done, and a rerun skips what is done with the stored result', async () => {
    const dir = tmp();
    const path = join(dir, 'j.jsonl');
    const server = fakeServer();
    const hooks: BulkHooks<number, { id: string }> = { execute: async (t) => server.create(t.key, t.input) };
    let j = await Journal.open(path);
    await runBulk(tasks(5), hooks, { concurrency: 2, signal: never, journal: j });
    await j.close();
    // Owner-only: it holds recipients' data and the service's answers.
    if (process.platform !== 'win32') expect(statSync(path).mode & 0o777).toBe(0o600);
    const lines = readFileSync(path, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    for (let i = 0; i < 5; i++) {
      const mine = lines.filter((l) => l.k === `K${i}`).map((l) => l.s);
      expect(mine).toEqual(['sending', 'done']);
    }
    j = await Journal.open(path);
    const results: BulkResult<number, { id: string }>[] = [];
    const s = await runBulk(tasks(6), { ...hooks, onResult: (r) => void results.push(r) }, { concurrency: 2, signal: never, journal: j });
    await j.close();
    expect(s).toMatchObject({ created: 1, skipped: 5, failed: 0 });
    expect(results[0]).toMatchObject({ status: 'skipped', skipReason: 'journal', result: { id: 'id-K0' } });
    expect(results[5]).toMatchObject({ status: 'created' });
    expect([...server.creates.values()].every((n) => n === 1)).toBe(true);
  });

  it.skipIf(process.platform === 'win32')('never appends through a symbolic link put where the journal goes: refused (exit 1), the file it points to untouched, the lock released', async () => {
    const dir = tmp();
    const victim = join(dir, 'victim.txt');
    writeFileSync(victim, 'precious\n', { mode: 0o644 });
    const path = join(dir, 'j.jsonl');
    symlinkSync(victim, path);
    await expect(Journal.open(path)).rejects.toMatchObject({ exitCode: 1, message: expect.stringContaining('j.jsonl is a symbolic link'), hint: 'remove the link and run again' });
    expect(readFileSync(victim, 'utf8')).toBe('precious\n');
    expect(statSync(victim).mode & 0o777).toBe(0o644);
    expect(existsSync(`${path}.lock`)).toBe(false);
  });

  it('the "sending" record is on disk before execute() runs (also for records written ahead)', async () => {
    const path = join(tmp(), 'j.jsonl');
    const j = await Journal.open(path);
    const missing: string[] = [];
    await runBulk(
      tasks(300),
      {
        async execute(t) {
          const onDisk = readFileSync(path, 'utf8');
          if (!onDisk.includes(`{"k":"${t.key}","s":"sending"`)) missing.push(t.key);
          await delay(0);
          return t.input;
        },
      },
      { concurrency: 8, signal: never, journal: j },
    );
    await j.close();
    expect(missing).toEqual([]);
  });

  it('settles a "sending" record without outcome before resending (exactly once)', async () => {
    const dir = tmp();
    const path = join(dir, 'j.jsonl');
    const server = fakeServer();
    server.create('K1', 1); // the killed run got K1 created but never wrote "done"
    writeFileSync(path, JSON.stringify({ k: 'K1', s: 'sending', t: 'x', a: 1 }) + '\n' + JSON.stringify({ k: 'K2', s: 'sending', t: 'x', a: 1 }) + '\n');
    const settled: string[] = [];
    const j = await Journal.open(path);
    const results: BulkResult<number, unknown>[] = [];
    const s = await runBulk(
      tasks(3),
      {
        execute: async (t) => server.create(t.key, t.input),
        async settle(t) {
          settled.push(t.key);
          return server.exists.has(t.key) ? { status: 'done', result: { id: `id-${t.key}` } } : { status: 'absent' };
        },
        onResult: (r) => void results.push(r),
      },
      { concurrency: 3, signal: never, journal: j },
    );
    await j.close();
    expect(settled.sort()).toEqual(['K1', 'K2']); // K0 had no record: no extra request
    expect(server.creates.get('K1')).toBe(1); // never resent
    expect(server.creates.get('K2')).toBe(1); // absent → sent once
    // Found: the killed run's work (the journal says it sent it), not someone else's.
    expect(results[1]).toMatchObject({ status: 'skipped', skipReason: 'journal' });
    expect(s).toMatchObject({ created: 2, skipped: 1 });
  });

  it('verifyByResend: a task found after an unknown outcome is sent again, as it may be a cancelled one; a duplicate refusal is the earlier run\'s work', async () => {
    const dir = tmp();
    const path = join(dir, 'j.jsonl');
    const server = fakeServer();
    server.create('K1', 1); // the killed run got K1 created but never wrote "done"
    // K2's only object was cancelled: the look-up finds it, the resend creates a live one. K5 likewise, its row changed since.
    const cancelled = new Set(['K2', 'K5']);
    const lines = ['K1', 'K2', 'K3', 'K4', 'K5'].map((k) => JSON.stringify({ k, s: 'sending', t: 'x', a: 1, f: 'same' }));
    // K3: an earlier run created it, and only writing its labels failed: fetched, not sent again.
    lines[2] = JSON.stringify({ k: 'K3', s: 'failed', t: 'x', u: true, e: { message: 'no room', type: 'LabelsNotWritten' } });
    server.create('K3', 3);
    // K4: found and live, its row changed since the send: sent again, refused, reported as the earlier run's (changed).
    lines[3] = JSON.stringify({ k: 'K4', s: 'sending', t: 'x', a: 1, f: 'before' });
    server.create('K4', 4);
    lines[4] = JSON.stringify({ k: 'K5', s: 'sending', t: 'x', a: 1, f: 'before' });
    writeFileSync(path, lines.join('\n') + '\n');
    const looked: string[] = [];
    const j = await Journal.open(path);
    const results: BulkResult<number, unknown>[] = [];
    const s = await runBulk(
      tasks(6),
      {
        execute: async (t) => {
          // The cancelled one does not stand in the way of a new one (its key given again).
          if (cancelled.delete(t.key)) server.exists.delete(t.key);
          return server.create(t.key, t.input);
        },
        isAlreadyDone: (e) => e instanceof ValidationError && /already been taken/.test(JSON.stringify(e.fields)),
        verifyByResend: (entry) => entry?.error?.type !== 'LabelsNotWritten',
        fingerprint: () => 'same',
        async settle(t, _signal, sent) {
          looked.push(`${t.key}${sent.existsOnly ? '?' : ''}`);
          if (cancelled.has(t.key)) return sent.existsOnly ? { status: 'found' } : { status: 'done', result: { id: 'the cancelled one' } };
          if (!server.exists.has(t.key)) return { status: 'absent' };
          return sent.existsOnly ? { status: 'found' } : { status: 'done', result: { id: `id-${t.key}` } };
        },
        onResult: (r) => void results.push(r),
      },
      { concurrency: 5, signal: never, journal: j },
    );
    await j.close();
    // Asked whether they exist, fetched once refused as a duplicate (K1, K4); K3 fetched at once.
    expect(looked.sort()).toEqual(['K1', 'K1?', 'K2?', 'K3', 'K4', 'K4?', 'K5?']);
    expect(server.creates.get('K1')).toBe(2); // the resend, refused
    expect(server.exists.get('K1')).toBe(1); // still the first one
    expect(server.creates.get('K2')).toBe(1);
    expect(server.creates.get('K3')).toBe(1); // never resent
    expect(server.creates.get('K4')).toBe(2); // the resend (new values), refused
    expect(server.exists.get('K4')).toBe(4);
    expect(server.creates.get('K5')).toBe(1); // created from the new values
    expect(results.map((r) => [r.task.key, r.status, r.skipReason, r.changed])).toEqual([
      ['K0', 'created', undefined, undefined],
      ['K1', 'skipped', 'journal', undefined],
      ['K2', 'created', undefined, undefined],
      ['K3', 'skipped', 'journal', undefined],
      ['K4', 'skipped', 'journal', true],
      ['K5', 'created', undefined, undefined],
    ]);
    expect(results[2].result).toEqual({ id: 'id-K2', v: 2 });
    expect(s).toMatchObject({ created: 3, skipped: 3, failed: 0 });
  });

  it('isResult: a "done" record without the stored summary (a journal edited by hand) is settled, not trusted', async () => {
    const path = join(tmp(), 'j.jsonl');
    const server = fakeServer();
    server.create('K0', 0); // created; its record lost its result
    writeFileSync(path, JSON.stringify({ k: 'K0', s: 'done', t: 'x' }) + '\n' + JSON.stringify({ k: 'K1', s: 'done', t: 'x' }) + '\n');
    const j = await Journal.open(path);
    const results: BulkResult<number, unknown>[] = [];
    const s = await runBulk(
      tasks(2),
      {
        execute: async (t) => server.create(t.key, t.input),
        isResult: (r) => typeof r === 'object' && r !== null && 'id' in r,
        settle: async (t) => (server.exists.has(t.key) ? { status: 'done', result: { id: `id-${t.key}`, v: server.exists.get(t.key) } } : { status: 'absent' }),
        refresh: async (_t, stored) => {
          expect(stored).toMatchObject({ id: expect.any(String) }); // never given the record without a result
          return undefined;
        },
        onResult: (r) => void results.push(r),
      },
      { concurrency: 2, signal: never, journal: j },
    );
    await j.close();
    expect(results.map((r) => [r.task.key, r.status, r.result])).toEqual([
      ['K0', 'skipped', { id: 'id-K0', v: 0 }],
      ['K1', 'created', { id: 'id-K1', v: 1 }],
    ]);
    expect(server.creates.get('K0')).toBe(1); // found by the look-up, not sent again
    expect(s).toMatchObject({ created: 1, skipped: 1, failed: 0 });
  });

  it('a row changed after a send whose outcome is unknown stays "changed" through a settle that fails', async () => {
    const path = join(tmp(), 'j.jsonl');
    // Run 1 sent K0 with values A and was killed before the outcome; the shipment exists.
    writeFileSync(path, JSON.stringify({ k: 'K0', s: 'sending', t: 'x', a: 1, f: 'A' }) + '\n');
    const run = async (settle: () => Promise<{ status: 'done'; result: unknown }>) => {
      const j = await Journal.open(path);
      const results: BulkResult<number, unknown>[] = [];
      await runBulk(tasks(1), { execute: async () => 1, settle, fingerprint: () => 'B', onResult: (r) => void results.push(r) }, { concurrency: 1, signal: never, journal: j, retries: 0 }).catch(() => undefined);
      await j.close();
      return results[0];
    };
    // Run 2 (the row now B): the service cannot be asked.
    expect(await run(async () => Promise.reject(new NetworkError('timeout', 'timeout')))).toMatchObject({ status: 'failed', unknownOutcome: true });
    // Run 3 finds the shipment: made from A, so the row changed since.
    expect(await run(async () => ({ status: 'done', result: { id: 'x' } }))).toMatchObject({ status: 'skipped', skipReason: 'journal', changed: true });
  });

  it('verifyByResend: a changed row\'s resend whose outcome is unknown too keeps the earlier send\'s fingerprint, so the next run still says "changed"', async () => {
    const path = join(tmp(), 'j.jsonl');
    // Run 1 sent K0 with values A and was killed before the outcome; the shipment exists, live.
    writeFileSync(path, JSON.stringify({ k: 'K0', s: 'sending', t: 'x', a: 1, f: 'A' }) + '\n');
    const server = fakeServer();
    server.create('K0', 0);
    const run = async (execute: (t: BulkTask<number>) => Promise<unknown>) => {
      const j = await Journal.open(path);
      const results: BulkResult<number, unknown>[] = [];
      await runBulk(
        tasks(1),
        {
          execute,
          isAlreadyDone: (e) => e instanceof ValidationError,
          verifyByResend: () => true,
          settle: async (t, _s, sent) => (!server.exists.has(t.key) ? { status: 'absent' } : sent.existsOnly ? { status: 'found' } : { status: 'done', result: { id: 'x' } }),
          fingerprint: () => 'B',
          onResult: (r) => void results.push(r),
        },
        { concurrency: 1, signal: never, journal: j, retries: 0 },
      ).catch(() => undefined);
      await j.close();
      return results[0];
    };
    // Run 2 (the row now B): found, sent again with B, and that answer is lost too.
    expect(await run(async () => Promise.reject(new NetworkError('timeout', 'timeout')))).toMatchObject({ status: 'failed', unknownOutcome: true });
    // Run 3: found, sent again, refused: the live one may be made from A, so the row is said changed.
    expect(await run(async (t) => server.create(t.key, t.input))).toMatchObject({ status: 'skipped', skipReason: 'journal', changed: true });
  });

  it('"unsent" brings back what an earlier run recorded (its failure and error), not nothing', async () => {
    const path = join(tmp(), 'j.jsonl');
    const lines = [
      { k: 'K0', s: 'failed', t: 'x', e: { message: 'The delivery service key is invalid.' } },
      { k: 'K0', s: 'sending', t: 'y', a: 1 },
      { k: 'K0', s: 'unsent', t: 'z' },
    ];
    writeFileSync(path, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
    expect(Journal.readEntries(path).get('K0')).toMatchObject({ state: 'failed', error: { message: 'The delivery service key is invalid.' } });
  });

  it('without settle, an unknown outcome is not resent (and stays marked for the next run)', async () => {
    const path = join(tmp(), 'j.jsonl');
    writeFileSync(path, JSON.stringify({ k: 'K0', s: 'sending', t: 'x' }) + '\n');
    const j = await Journal.open(path);
    let calls = 0;
    const s = await runBulk(tasks(1), { execute: async () => ++calls }, { concurrency: 1, signal: never, journal: j });
    await j.close();
    expect(calls).toBe(0);
    expect(s.failed).toBe(1);
    const j2 = await Journal.open(path);
    expect(j2.get('K0')).toMatchObject({ state: 'failed', unknown: true });
    await j2.close();
  });

  it('retries a timeout after settling, and a 503, and reports created once', async () => {
    const server = fakeServer();
    let attempt = 0;
    const settles: string[] = [];
    const s = await runBulk<number, unknown>(
      tasks(1),
      {
        async execute(t) {
          attempt++;
          if (attempt === 1) {
            server.create(t.key, t.input); // processed, but the answer is lost
            throw new NetworkError('timeout', 'timeout');
          }
          return server.create(t.key, t.input);
        },
        async settle(t) {
          settles.push(t.key);
          return server.exists.has(t.key) ? { status: 'done', result: server.exists.get(t.key) } : { status: 'absent' };
        },
      },
      { concurrency: 1, signal: never, sleep: noSleep },
    );
    expect(settles).toEqual(['K0']);
    expect(server.creates.get('K0')).toBe(1);
    expect(s).toMatchObject({ created: 1, failed: 0 });
  });

  it('gives up after the retry budget and records the failure with unknown outcome', async () => {
    const path = join(tmp(), 'j.jsonl');
    const j = await Journal.open(path);
    let calls = 0;
    const s = await runBulk(
      tasks(1),
      {
        async execute() {
          calls++;
          throw new ApiError('bad gateway', { status: 502 });
        },
        settle: async () => ({ status: 'absent' }),
      },
      { concurrency: 1, signal: never, journal: j, retries: 2, sleep: noSleep },
    );
    await j.close();
    expect(calls).toBe(3);
    expect(s.failed).toBe(1);
    const j2 = await Journal.open(path);
    expect(j2.get('K0')).toMatchObject({ state: 'failed', unknown: true, error: { status: 502 } });
    await j2.close();
  });

  it('does not retry validation errors, and a rerun retries failed ones', async () => {
    const path = join(tmp(), 'j.jsonl');
    let j = await Journal.open(path);
    let calls = 0;
    let fix = false;
    const hooks: BulkHooks<number, number> = {
      async execute(t) {
        calls++;
        if (!fix) throw new ValidationError('invalid', { 'to_address.postcode': ['The to address.postcode field is required.'] }, { status: 400 });
        return t.input;
      },
    };
    let s = await runBulk(tasks(1), hooks, { concurrency: 1, signal: never, journal: j, sleep: noSleep });
    await j.close();
    expect(calls).toBe(1);
    expect(s.failed).toBe(1);
    expect(s.firstFailures[0].message).toContain('to_address.postcode');
    fix = true;
    j = await Journal.open(path);
    s = await runBulk(tasks(1), hooks, { concurrency: 1, signal: never, journal: j, sleep: noSleep });
    await j.close();
    expect(s.created).toBe(1);
  });

  it('isAlreadyDone: a duplicate-reference error is settled and counted as skipped, not failed', async () => {
    const server = fakeServer();
    server.create('K0', 0);
    const results: BulkResult<number, unknown>[] = [];
    const s = await runBulk<number, unknown>(
      tasks(1),
      {
        execute: async (t) => server.create(t.key, t.input),
        isAlreadyDone: (e) => e instanceof ValidationError && /already been taken/.test(JSON.stringify(e.fields)),
        settle: async (t) => ({ status: 'done', result: server.exists.get(t.key) }),
        onResult: (r) => void results.push(r),
      },
      { concurrency: 1, signal: never },
    );
    expect(s).toMatchObject({ skipped: 1, failed: 0 });
    expect(results[0]).toMatchObject({ status: 'skipped', skipReason: 'exists', result: 0 });
  });

  it('on abort: starts nothing new, lets in-flight finish, journals them, reports interrupted', async () => {
    const path = join(tmp(), 'j.jsonl');
    const j = await Journal.open(path);
    const ac = new AbortController();
    const finished: string[] = [];
    const s = await runBulk(
      tasks(50),
      {
        async execute(t) {
          if (t.input === 5) ac.abort();
          await delay(10);
          finished.push(t.key);
          return t.input;
        },
      },
      { concurrency: 3, signal: ac.signal, journal: j, total: 50 },
    );
    await j.close();
    expect(s.interrupted).toBe(true);
    expect(finished.length).toBeGreaterThanOrEqual(6);
    expect(finished.length).toBeLessThanOrEqual(8);
    expect(s.created).toBe(finished.length);
    expect(s.notStarted).toBe(50 - s.total);
    const j2 = await Journal.open(path);
    for (const k of finished) expect(j2.get(k)?.state).toBe('done');
    expect([...j2.values()].every((e) => e.state === 'done')).toBe(true);
    await j2.close();
  });

  it('Ctrl-C while a task waits to try again (429, 503): not finished rather than failed, and the journal says what the next run does', async () => {
    const path = join(tmp(), 'j.jsonl');
    const j = await Journal.open(path);
    const ac = new AbortController();
    const reported: string[] = [];
    let waiting = 0;
    const s = await runBulk(
      tasks(3),
      {
        async execute(t) {
          if (t.input === 0) return t.input;
          // K1 was refused unprocessed (429); K2's answer was lost (503: it may have been created).
          throw t.input === 1 ? new ApiError('too many requests', { status: 429 }) : new ApiError('unavailable', { status: 503 });
        },
        settle: async () => ({ status: 'absent' }),
        onResult: (r) => void reported.push(`${r.task.key} ${r.status}`),
      },
      {
        concurrency: 3,
        signal: ac.signal,
        journal: j,
        total: 3,
        // Ctrl-C comes while both wait for their second try.
        sleep: (_ms, signal) =>
          new Promise((_resolve, reject) => {
            if (++waiting === 2) ac.abort();
            if (signal?.aborted) reject(signal.reason);
            else signal?.addEventListener('abort', () => reject(signal.reason), { once: true });
          }),
      },
    );
    await j.close();
    expect(reported).toEqual(['K0 created']);
    expect(s).toMatchObject({ interrupted: true, created: 1, failed: 0, total: 1, notStarted: 2 });
    const j2 = await Journal.open(path);
    // K1 as never sent (an "unsent" record brings back what came before it: nothing), so the next run sends it.
    expect(j2.get('K1')).toBeUndefined();
    expect(j2.get('K2')).toMatchObject({ state: 'failed', unknown: true });
    await j2.close();
  });

  it('a rate limit (429) is waited out past the retries, holding every request until the time asked, as long as requests get through', async () => {
    const time = virtualTime();
    // A service that takes 2 requests a second, each answered in 10 ms, and refuses the others: 429, Retry-After 1 s.
    const windows = new Map<number, number>();
    const sends: number[] = [];
    const answered429: number[] = [];
    const refusals = new Map<string, number>();
    const said: number[] = [];
    const s = await runBulk(
      tasks(12),
      {
        async execute(t) {
          const at = time.now();
          sends.push(at);
          const second = Math.floor(at / 1000);
          const n = (windows.get(second) ?? 0) + 1;
          windows.set(second, n);
          await time.sleep(10);
          if (n > 2) {
            refusals.set(t.key, (refusals.get(t.key) ?? 0) + 1);
            answered429.push(time.now());
            throw new ApiError('POST /shipments: rate limited (429)', { status: 429, retryAfterMs: 1000 });
          }
          return t.input;
        },
      },
      // No retries at all: a 429 is not one of them.
      { concurrency: 8, signal: never, retries: 0, now: time.now, sleep: time.sleep, onRateLimited: (ms) => void said.push(ms) },
    );
    expect(s).toMatchObject({ created: 12, failed: 0, total: 12 });
    // Some shipments were refused more than once; none failed.
    expect(Math.max(...refusals.values())).toBeGreaterThan(1);
    // Once a 429 was answered, nothing was sent until the second it asked for had passed; and it was said once.
    expect(sends.filter((t) => answered429.some((a) => t > a && t < a + 1000))).toEqual([]);
    expect(said).toEqual([1000]);
    // At the rate the service takes: 12 shipments at 2 a second.
    expect(time.now()).toBeGreaterThanOrEqual(5000);
    expect(time.now()).toBeLessThan(9000);
  });

  it('a 429 with Retry-After 0 still holds the run a moment (not resent at once, over and over); one of an hour is held at most a minute', async () => {
    const time = virtualTime();
    let sends = 0;
    const s = await runBulk(
      tasks(4),
      {
        async execute(t) {
          sends++;
          // Refused for the first 3 s, asked to wait 0 s (a Retry-After date already past reads so too).
          if (time.now() < 3000 && sends < 500) throw new ApiError('POST /shipments: rate limited (429)', { status: 429, retryAfterMs: 0 });
          return t.input;
        },
      },
      { concurrency: 4, signal: never, now: time.now, sleep: time.sleep },
    );
    expect(s).toMatchObject({ created: 4, failed: 0 });
    // At most one send per task each 250 ms, and a few more: not hundreds.
    expect(sends).toBeLessThan(4 * (3000 / 250 + 2));

    const hour = virtualTime();
    const holds: number[] = [];
    let refused = false;
    const h = await runBulk(
      tasks(1),
      {
        async execute(t) {
          if (!refused) {
            refused = true;
            throw new ApiError('POST /shipments: rate limited (429)', { status: 429, retryAfterMs: 3_600_000 });
          }
          holds.push(hour.now());
          return t.input;
        },
      },
      { concurrency: 1, signal: never, now: hour.now, sleep: hour.sleep },
    );
    expect(h).toMatchObject({ created: 1 });
    expect(holds[0]).toBeLessThanOrEqual(60_000 * 1.25 + 1000);
  });

  it('Ctrl-C while a task found after an unknown outcome is held by a rate limit keeps that attempt unknown in the journal', async () => {
    const path = join(tmp(), 'j.jsonl');
    const j = await Journal.open(path);
    const ac = new AbortController();
    const time = virtualTime((now) => {
      if (now >= 5000) ac.abort();
    });
    await runBulk(
      tasks(2),
      {
        async execute(t) {
          // K1 is refused for the rate, with a long wait; K0's answer is lost (502: it may have been created).
          if (t.input === 1) throw new ApiError('POST /shipments: rate limited (429)', { status: 429, retryAfterMs: 30_000 });
          throw new ApiError('bad gateway', { status: 502 });
        },
        isAlreadyDone: (e) => e instanceof ValidationError,
        verifyByResend: () => true,
        // Found: it may be a cancelled one, so it would be sent again to tell, after the rate limit's hold.
        settle: async (_t, _s, sent) => (sent.existsOnly ? { status: 'found' } : { status: 'done', result: 'x' }),
      },
      { concurrency: 2, signal: ac.signal, journal: j, now: time.now, sleep: time.sleep, retryDelayMs: 10 },
    );
    await j.close();
    const j2 = await Journal.open(path);
    // Not "unsent" (which would forget the attempt): the next run settles it again before any resend.
    expect(j2.get('K0')).toMatchObject({ state: 'failed', unknown: true });
    await j2.close();
  });

  it('a rate limit that lets nothing through fails the shipments it refused once the patience is out, as 429s', async () => {
    let clock = 0;
    const s = await runBulk(
      tasks(3),
      {
        async execute() {
          throw new ApiError('POST /shipments: rate limited (429)', { status: 429, retryAfterMs: 5000 });
        },
      },
      {
        concurrency: 3,
        signal: never,
        now: () => clock,
        sleep: async (ms) => {
          clock += ms;
        },
        rateLimitPatienceMs: 60_000,
      },
    );
    expect(s).toMatchObject({ created: 0, failed: 3, serviceFailed: 3 });
    // Given up a minute (the patience) after the last answer that got through: the start here.
    expect(clock).toBeGreaterThanOrEqual(60_000);
    expect(clock).toBeLessThan(60_000 * 3 + 20_000);
  });

  it('a failing onResult (printer gone) stops the run and is thrown after in-flight work finishes', async () => {
    let started = 0;
    await expect(
      runBulk(
        tasks(100),
        {
          async execute(t) {
            started++;
            await delay(1);
            return t.input;
          },
          onResult(r) {
            if (r.index === 3) throw new Error('printer gone');
          },
        },
        { concurrency: 2, signal: never },
      ),
    ).rejects.toThrow('printer gone');
    expect(started).toBeLessThan(100);
  });

  it('accepts async iterables (streamed CSV) and holds memory to counts', async () => {
    async function* gen() {
      for (let i = 0; i < 3000; i++) yield { key: `K${i}`, rows: [i + 2], input: i };
    }
    const s = await runBulk(gen(), { execute: async (t) => t.input }, { concurrency: 8, signal: never });
    expect(s).toMatchObject({ total: 3000, created: 3000 });
    expect(Object.keys(s)).not.toContain('results');
  });

  it('classifies failures', () => {
    expect(classifyFailure(new NetworkError('x', 'refused'))).toMatchObject({ retriable: true, unknownOutcome: false });
    expect(classifyFailure(new NetworkError('x', 'reset'))).toMatchObject({ retriable: true, unknownOutcome: true });
    expect(classifyFailure(new ApiError('x', { status: 429, retryAfterMs: 2000 }))).toMatchObject({ retriable: true, unknownOutcome: false, retryAfterMs: 2000 });
    expect(classifyFailure(new ApiError('x', { status: 503 }))).toMatchObject({ retriable: true, unknownOutcome: true });
    expect(classifyFailure(new ApiError('x', { status: 500 }))).toMatchObject({ retriable: false, unknownOutcome: true });
    expect(classifyFailure(new ValidationError('x', {}, { status: 400 }))).toMatchObject({ retriable: false, unknownOutcome: false });
    expect(classifyFailure(new Error('EACCES writing label'))).toMatchObject({ retriable: false, unknownOutcome: true });
    // Already retried with back-off by the API layer (a safe method): not retried again, outcome as before.
    expect(classifyFailure(new NetworkError('x', 'refused', { attempts: 4 }))).toMatchObject({ retriable: false, unknownOutcome: false });
    expect(classifyFailure(new ApiError('x', { status: 503, attempts: 4 }))).toMatchObject({ retriable: false, unknownOutcome: true });
  });
});

describe('Journal', () => {
  it('says so when it was deleted under the run (its directory removed): a rerun would not know what it holds', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ship-journal-gone-'));
    const warnings: string[] = [];
    const j = await Journal.open(join(dir, 'labels', '.ship-journal-x.jsonl'), { onWarning: (m) => warnings.push(m) });
    await j.append({ key: 'A', state: 'sending' });
    rmSync(join(dir, 'labels'), { recursive: true, force: true });
    await j.append({ key: 'A', state: 'done', result: {} });
    await j.close();
    expect(warnings).toEqual([expect.stringMatching(/^the resume journal .*\.ship-journal-x\.jsonl was deleted during the run/)]);
    // Left alone, nothing is said.
    const kept = await Journal.open(join(dir, 'kept.jsonl'), { onWarning: (m) => warnings.push(m) });
    await kept.append({ key: 'B', state: 'sending' });
    await kept.close();
    expect(warnings).toHaveLength(1);
  });

  it('a last line torn inside a character (or ending in stray bytes) is cut off alone, not into the record before it', async () => {
    const path = join(tmp(), 'j.jsonl');
    writeFileSync(path, JSON.stringify({ k: 'RÉF-2', s: 'done', t: 'x', r: { id: 2 } }) + '\n');
    // Killed after the first byte of "É" (0xC3 0x89), then junk: each decodes to a 3-byte U+FFFD.
    appendFileSync(path, Buffer.concat([Buffer.from('{"k":"R'), Buffer.from([0xc3]), Buffer.from([0xff, 0xfe])]));
    const j = await Journal.open(path, { onWarning: () => undefined });
    expect(j.get('RÉF-2')).toMatchObject({ state: 'done', result: { id: 2 } });
    await j.append({ key: 'C', state: 'sending' });
    await j.close();
    const lines = readFileSync(path, 'utf8').split('\n').filter(Boolean);
    expect(lines.map((l) => JSON.parse(l).k)).toEqual(['RÉF-2', 'C']);
  });

  it('tolerates a torn last line and keeps the file readable after appending', async () => {
    const path = join(tmp(), 'j.jsonl');
    writeFileSync(path, JSON.stringify({ k: 'A', s: 'done', t: 'x', r: { id: 1 } }) + '\n');
    appendFileSync(path, '{"k":"B","s":"sen'); // killed mid-write
    const warnings: string[] = [];
    const j = await Journal.open(path, { onWarning: (m) => warnings.push(m) });
    expect(j.ignoredLines).toBe(1);
    expect(warnings[0]).toMatch(/incomplete last line/);
    expect(j.get('A')).toMatchObject({ state: 'done', result: { id: 1 } });
    expect(j.get('B')).toBeUndefined();
    await j.append({ key: 'C', state: 'sending' });
    await j.close();
    const lines = readFileSync(path, 'utf8').split('\n').filter(Boolean);
    // The torn fragment is cut off; every line is a whole record, the new one last.
    expect(lines.map((l) => JSON.parse(l).k)).toEqual(['A', 'C']);
    const again: string[] = [];
    const j2 = await Journal.open(path, { onWarning: (m) => again.push(m) });
    expect(j2.get('C')?.state).toBe('sending');
    // The next run has nothing to warn about (the fragment stayed mid-file and was warned about every run).
    expect(j2.ignoredLines).toBe(0);
    expect(again).toEqual([]);
    await j2.close();
  });

  it('forgets settled records of the keys it is told to, rewriting the file; an unknown outcome is always kept', async () => {
    const path = join(tmp(), 'j.jsonl');
    const line = (k: string, s: string) => JSON.stringify({ k, s, t: 'x', ...(s === 'done' ? { r: { id: k } } : {}) });
    writeFileSync(path, [line('OLD-1', 'sending'), line('OLD-1', 'done'), line('OLD-2', 'failed'), line('OLD-3', 'sending'), line('NEW-1', 'sending'), line('NEW-1', 'done')].join('\n') + '\n');
    const j = await Journal.open(path, { forget: (key) => key.startsWith('OLD-') });
    expect(j.get('OLD-1')).toBeUndefined();
    expect(j.get('OLD-2')).toBeUndefined();
    // Sent, outcome unknown: it must still be settled, whatever the caller thinks of it.
    expect(j.get('OLD-3')?.state).toBe('sending');
    expect(j.get('NEW-1')).toMatchObject({ state: 'done', result: { id: 'NEW-1' } });
    await j.append({ key: 'NEW-2', state: 'sending' });
    await j.close();
    expect(readFileSync(path, 'utf8').split('\n').filter(Boolean).map((l) => [JSON.parse(l).k, JSON.parse(l).s])).toEqual([
      ['OLD-3', 'sending'],
      ['NEW-1', 'sending'],
      ['NEW-1', 'done'],
      ['NEW-2', 'sending'],
    ]);
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });

  it('ends a whole last record that only lacks its newline instead of cutting it off', async () => {
    const path = join(tmp(), 'j.jsonl');
    writeFileSync(path, JSON.stringify({ k: 'A', s: 'done', t: 'x', r: { id: 1 } }));
    const j = await Journal.open(path);
    expect(j.get('A')).toMatchObject({ state: 'done' });
    await j.append({ key: 'B', state: 'sending' });
    await j.close();
    expect(readFileSync(path, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l).k)).toEqual(['A', 'B']);
  });

  it('says why the last line is incomplete from how the previous run ended: killed (its lock left behind) or stopped by a failed write (lock released)', async () => {
    const { hostname } = await import('node:os');
    const torn = (path: string) => {
      writeFileSync(path, JSON.stringify({ k: 'A', s: 'done', t: 'x' }) + '\n');
      appendFileSync(path, '{"k":"B","s":"uns');
    };
    const warningsOf = async (path: string, lock = true) => {
      const warnings: string[] = [];
      const j = await Journal.open(path, { lock, onWarning: (m) => warnings.push(m) });
      await j.close();
      return warnings;
    };
    // A run stopped by a full disk ends normally: it releases its lock, and its last commit may be torn.
    const ended = join(tmp(), 'j.jsonl');
    torn(ended);
    expect(await warningsOf(ended)).toEqual([`journal ${ended}: ignored an incomplete last line (a write that failed part way, as on a full disk, or the file changed since the previous run)`]);
    // A killed run leaves its lock behind.
    const killed = join(tmp(), 'j.jsonl');
    torn(killed);
    writeFileSync(`${killed}.lock`, JSON.stringify({ pid: 2 ** 22 + 12345, hostname: hostname(), started_at: 'earlier' }));
    expect(await warningsOf(killed)).toEqual([
      'took over the journal lock of process 4206649, which is no longer running (started earlier)',
      `journal ${killed}: ignored an incomplete last line (the previous run was killed while writing it)`,
    ]);
    // Opened without its lock, nothing tells.
    const unknown = join(tmp(), 'j.jsonl');
    torn(unknown);
    expect(await warningsOf(unknown, false)).toEqual([`journal ${unknown}: ignored an incomplete last line (the previous run stopped while writing it)`]);
  });

  it('a record that cannot be written (disk full) stops the run with an error naming the journal; the lock is released', async () => {
    const path = join(tmp(), 'j.jsonl');
    const j = await Journal.open(path);
    // Writes on a descriptor open for reading fail as a full disk's do (EBADF in place of ENOSPC).
    const { closeSync, existsSync, openSync } = await import('node:fs');
    const inner = j as unknown as { fd: number };
    closeSync(inner.fd);
    inner.fd = openSync(path, 'r');
    const run = runBulk(tasks(3), { execute: async () => ({}) }, { concurrency: 2, journal: j, signal: never });
    await expect(run).rejects.toMatchObject({ name: 'JournalWriteError', exitCode: 1, message: expect.stringContaining(`could not write the resume journal ${path}: `) });
    await expect(j.close()).resolves.toBeUndefined();
    expect(existsSync(`${path}.lock`)).toBe(false);
  });

  it('group-commits records appended in the same tick', async () => {
    const path = join(tmp(), 'j.jsonl');
    const j = await Journal.open(path);
    await Promise.all(Array.from({ length: 50 }, (_, i) => j.append({ key: `K${i}`, state: 'sending' })));
    expect(j.commits).toBeLessThanOrEqual(2);
    await j.close();
    expect(readFileSync(path, 'utf8').trim().split('\n')).toHaveLength(50);
  });

  it('refuses a second run while the first holds the lock, and takes over a dead process lock', async () => {
    const path = join(tmp(), 'j.jsonl');
    const j = await Journal.open(path);
    await expect(Journal.open(path)).rejects.toThrow(/another run is already using this journal: process \d+/);
    await j.close();
    // A lock left by a process that no longer exists (SIGKILL): taken over, with a warning.
    const { hostname } = await import('node:os');
    writeFileSync(`${path}.lock`, JSON.stringify({ pid: 2 ** 22 + 12345, hostname: hostname(), started_at: 'earlier' }));
    const warnings: string[] = [];
    const j2 = await Journal.open(path, { onWarning: (m) => warnings.push(m) });
    expect(warnings.join('\n')).toMatch(/took over the journal lock of process 4206649, which is no longer running/);
    await j2.close();
  });

  it('many tasks backing off at once raise no listener-leak warning (refused connections at --concurrency 32)', async () => {
    const warnings: string[] = [];
    const onWarning = (w: Error) => void warnings.push(w.name);
    process.on('warning', onWarning);
    const ctl = new AbortController();
    const tries = new Map<string, number>();
    try {
      const s = await runBulk(
        tasks(64),
        {
          async execute(t) {
            const n = (tries.get(t.key) ?? 0) + 1;
            tries.set(t.key, n);
            if (n === 1) throw new NetworkError('refused', 'refused');
            return n;
          },
        },
        { concurrency: 32, signal: ctl.signal, retryDelayMs: 5 },
      );
      expect(s.created).toBe(64);
      await delay(10);
    } finally {
      process.off('warning', onWarning);
    }
    expect(warnings).not.toContain('MaxListenersExceededWarning');
  });

  it('a takeover guard left by a run killed inside it: the next run waits it out instead of failing with "try again"', async () => {
    const { hostname } = await import('node:os');
    const { mkdirSync, utimesSync } = await import('node:fs');
    const path = join(tmp(), 'j.jsonl');
    writeFileSync(`${path}.lock`, JSON.stringify({ pid: 2 ** 22 + 12345, hostname: hostname(), started_at: 'earlier' }));
    mkdirSync(`${path}.lock.takeover`);
    // Killed 9.5 s ago, inside the takeover.
    const then = (Date.now() - 9_500) / 1000;
    utimesSync(`${path}.lock.takeover`, then, then);
    const warnings: string[] = [];
    const j = await Journal.open(path, { onWarning: (m) => warnings.push(m) });
    expect(warnings.join('\n')).toMatch(/took over the journal lock of process 4206649/);
    await j.close();
  });

  it('a lock held on another host is refused with a hint to delete it', async () => {
    const path = join(tmp(), 'j.jsonl');
    writeFileSync(`${path}.lock`, JSON.stringify({ pid: 1, hostname: 'some-other-host', started_at: 'earlier' }));
    await expect(Journal.open(path)).rejects.toMatchObject({ hint: expect.stringContaining('delete') });
  });
});
