// A bulk run in which every task failed, each for the service or the network (5xx after the retries, timeouts,
// resets), none for its own data: exit 1 (ServiceFailure, "the service is down"), after the same summary and
// FILE.failed.csv as exit 3 (tasks skipped as done before sent nothing). Any mix (something created, a 400, a 404)
// stays exit 3 (PartialFailure).
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createContext } from '../../src/context.js';
import { ApiError, AuthError, NetworkError, NotFoundError, PartialFailure, ServiceFailure, ShipError, ValidationError } from '../../src/errors.js';
import { runBulkCommand, type BulkCommandOptions } from '../../src/bulk/command.js';
import { failedCsvPathFor } from '../../src/bulk/csv-out.js';
import { journalPathFor } from '../../src/bulk/journal.js';
import { isServiceFailure, runBulk, type BulkTask } from '../../src/bulk/runner.js';
import { bufferIO } from '../helpers/run.js';

const tmp = () => mkdtempSync(join(tmpdir(), 'ship-service-down-'));
const never = new AbortController().signal;
const tasks = (n: number): BulkTask<number>[] => Array.from({ length: n }, (_, i) => ({ key: `K${i}`, rows: [i + 2], records: [[`K${i}`, String(i)]], input: i }));

const http503 = (i: number) => new ApiError(`POST /shipments: the API answered 503 after 4 attempts (${i})`, { status: 503, method: 'POST', path: '/shipments', attempts: 4 });
const http500 = () => new ApiError('POST /shipments: the API answered 500', { status: 500 });
const rateLimited = () => new ApiError('POST /shipments: rate limited (429) after 4 attempts', { status: 429, attempts: 4 });
const timeout = () => new NetworkError('POST /shipments: no answer within 30s', 'timeout', { method: 'POST', path: '/shipments' });
const reset = () => new NetworkError('POST /shipments: the connection was reset', 'reset');
const invalid = () => new ValidationError('The given data failed to pass validation.', { n: ['The n is bad.'] }, { status: 400 });
const notFound = () => new NotFoundError('shipment K not found', { status: 404 });

/** Runs runBulkCommand over `n` tasks whose execute() is `fail(i)` (throwing what it returns, or returning it). */
async function run(n: number, outcome: (i: number) => unknown, o: { json?: boolean; journal?: boolean; extra?: Partial<BulkCommandOptions<number, unknown>> } = {}) {
  const dir = tmp();
  const csv = join(dir, 'orders.csv');
  const io = bufferIO();
  const ctx = createContext({ io, env: { NO_COLOR: '1' } });
  ctx.globals = { json: o.json };
  const err = await runBulkCommand<number, unknown>(ctx, {
    noun: 'shipments',
    tasks: tasks(n),
    total: n,
    hooks: {
      async execute(t) {
        const r = outcome(t.input);
        if (r instanceof Error) throw r;
        return r;
      },
    },
    concurrency: 2,
    retries: 0,
    // A 429 is waited out while other requests get through: here, not at all (the service refuses every one).
    rateLimitPatienceMs: 0,
    journalPath: o.journal === false ? undefined : journalPathFor(dir, csv),
    failedCsv: { path: failedCsvPathFor(csv), header: ['ref', 'n'] },
    jsonLine: (r) => ({ ref: r.task.key, status: r.status }),
    textLine: (r) => `${r.status}\t${r.task.key}`,
    ...o.extra,
  }).then(
    () => undefined,
    (e: unknown) => e,
  );
  return { err, io, failedCsv: () => readFileSync(failedCsvPathFor(csv), 'utf8'), dir, csv };
}

describe('isServiceFailure', () => {
  it('5xx, 429, timeouts, resets and refusals are the service\'s; 400, 404, 401/403 and local errors are not', () => {
    for (const e of [http503(0), http500(), rateLimited(), timeout(), reset(), new NetworkError('refused', 'refused'), new ApiError('502 from the proxy, not JSON', { status: 502 })]) {
      expect(isServiceFailure(e), e.message).toBe(true);
    }
    for (const e of [
      invalid(),
      notFound(),
      new AuthError('unauthorised (401)', { status: 401 }),
      new ApiError('POST /shipments: the API answered 409', { status: 409 }),
      new ApiError('the API client was closed'),
      new ShipError('an earlier attempt may have succeeded and there is no way to check; not resent', 1),
      new Error('ENOSPC: no space left on device'),
      'a string',
    ]) {
      expect(isServiceFailure(e), String(e)).toBe(false);
    }
  });
});

describe('runBulk: serviceFailed', () => {
  it('counts the failures of the service or the network apart from the others', async () => {
    const s = await runBulk(
      tasks(6),
      {
        async execute(t) {
          if (t.input === 0) return 'ok';
          throw [undefined, http503(1), timeout(), invalid(), notFound(), reset()][t.input];
        },
      },
      { concurrency: 2, signal: never, retries: 0, sleep: async () => {} },
    );
    expect(s).toMatchObject({ total: 6, created: 1, failed: 5, serviceFailed: 3 });
  });
});

describe('runBulkCommand: every task failed for the service', () => {
  it('503s, 500s, 429s, timeouts and resets alike: exit 1 saying the service failed for every one; FILE.failed.csv as for exit 3', async () => {
    const errors = [http503, http500, rateLimited, timeout, reset];
    const { err, io, failedCsv } = await run(5, (i) => errors[i](i));
    expect(err).toBeInstanceOf(ServiceFailure);
    expect((err as ServiceFailure).exitCode).toBe(1);
    expect((err as ServiceFailure).message).toMatch(/^the service failed for every one of the 5 shipments \(.+\)$/);
    expect((err as ServiceFailure).hint).toMatch(/once the service is back, rerun the same command/);
    // Still the run's outcome: a PartialFailure (finished, its row files written) whose code is 1.
    expect(err).toBeInstanceOf(PartialFailure);
    // The summary, as for exit 3: every row tried, not a run stopped early.
    const stderr = io.err();
    expect(stderr).toMatch(/^Done: 5 shipments in /m);
    expect(stderr).toMatch(/created\s+0\n\s+skipped\s+0\n\s+failed\s+5\n/);
    expect(stderr).not.toMatch(/Stopped|not started/);
    expect(stderr).toContain('Failures:');
    // Nothing in the rows to fix: the summary says so rather than "fix them and run it again".
    expect(stderr).toMatch(/Failed rows written to .+ \(the rows are fine: the service failed for each; run it again once the service is back\)/);
    expect(stderr).not.toMatch(/fix them/);
    expect(io.out()).toBe(['failed\tK0', 'failed\tK1', 'failed\tK2', 'failed\tK3', 'failed\tK4'].join('\n') + '\n');
    const lines = failedCsv().trim().split('\n');
    expect(lines[0]).toBe('ref,n,error');
    expect(lines.slice(1).map((l) => l.split(',')[0])).toEqual(['K0', 'K1', 'K2', 'K3', 'K4']);
  });

  it('--json: the per-task lines and the summary line are those of exit 3', async () => {
    const { err, io } = await run(3, (i) => http503(i), { json: true });
    expect((err as ServiceFailure).exitCode).toBe(1);
    expect(io.out().trim().split('\n').map((l) => JSON.parse(l))).toEqual([
      { ref: 'K0', status: 'failed' },
      { ref: 'K1', status: 'failed' },
      { ref: 'K2', status: 'failed' },
    ]);
    const summary = JSON.parse(io.err().trim().split('\n').pop()!).summary;
    expect(summary).toMatchObject({ total: 3, created: 0, skipped: 0, failed: 3, interrupted: false });
    expect(summary).not.toHaveProperty('stopped');
  });

  it('one task alone (create --csv of one row): "the one shipment"', async () => {
    const { err } = await run(1, () => http503(0), { extra: { summary: true } });
    expect((err as ServiceFailure).message).toMatch(/^the service failed for the one shipment \(/);
  });

  it('without a journal (cancel): the hint says to run it again', async () => {
    const { err } = await run(2, (i) => http503(i), { journal: false });
    expect(err).toBeInstanceOf(ServiceFailure);
    expect((err as ServiceFailure).hint).toBe('once the service is back, run the same command again');
  });

  it('singleTaskOwnError with one task keeps the task\'s own error (cancel REF)', async () => {
    const { err } = await run(1, () => http503(0), { journal: false, extra: { singleTaskOwnError: true } });
    expect(err).toBeInstanceOf(ApiError);
    expect(err).not.toBeInstanceOf(PartialFailure);
  });
});

describe('runBulkCommand: any mix stays exit 3', () => {
  // With the advice FILE.failed.csv gets: only the rows the API refused have anything to fix.
  const cases: Array<[string, (i: number) => unknown, RegExp]> = [
    ['one created, the rest 503', (i) => (i === 0 ? { id: 'x' } : http503(i)), /\(the rows are fine: the service failed for each; rerun the same command to send them again\)/],
    ['one refused as invalid (400), the rest 503', (i) => (i === 1 ? invalid() : http503(i)), /\(fix the rows the API refused, then run it again \(the 2 the service failed for need no fix\)\)/],
    ['one not found (404), the rest timeouts', (i) => (i === 2 ? notFound() : timeout()), /\(fix the rows the API refused, then run it again \(the 2 the service failed for need no fix\)\)/],
    ['one label not written (a local error), the rest 503', (i) => (i === 0 ? new Error('EACCES: permission denied') : http503(i)), /\(fix the rows the API refused, then run it again \(the 2 the service failed for need no fix\)\)/],
    ['every one refused as invalid', () => invalid(), /\(fix them and run it again\)/],
  ];
  it.each(cases)('%s: PartialFailure, exit 3', async (_what, outcome, advice) => {
    const { err, io } = await run(3, outcome);
    expect(io.err()).toMatch(/Failed rows written to /);
    expect(io.err()).toMatch(advice);
    expect(err).toBeInstanceOf(PartialFailure);
    expect(err).not.toBeInstanceOf(ServiceFailure);
    expect((err as PartialFailure).exitCode).toBe(3);
    expect((err as PartialFailure).message).toMatch(/^\d of 3 shipments failed$/);
  });

  it('a rerun whose earlier tasks are skipped (done before) and every request it sends fails for the service: exit 1 (the service is down)', async () => {
    const first = await run(3, (i) => (i === 0 ? { id: 'x' } : http503(i)));
    expect((first.err as PartialFailure).exitCode).toBe(3);
    // Same journal, the service down altogether now.
    const io = bufferIO();
    const ctx = createContext({ io, env: { NO_COLOR: '1' } });
    ctx.globals = {};
    const err = await runBulkCommand<number, unknown>(ctx, {
      noun: 'shipments',
      tasks: tasks(3),
      total: 3,
      hooks: {
        async execute(t) {
          throw http503(t.input);
        },
        // The first run's 503s left their outcome unknown: asking the service fails the same way.
        async settle(t) {
          throw http503(t.input);
        },
      },
      concurrency: 1,
      retries: 0,
      journalPath: journalPathFor(first.dir, first.csv),
      jsonLine: () => ({}),
    }).catch((e: unknown) => e);
    expect(io.err()).toMatch(/skipped\s+1\n\s+failed\s+2/);
    expect(err).toBeInstanceOf(ServiceFailure);
    expect((err as ServiceFailure).exitCode).toBe(1);
    expect((err as ServiceFailure).message).toMatch(/^the service failed for every one of the 2 shipments it sent \(1 done before were skipped\)/);
  });

  it('the API unreachable still stops the run early and throws the network error (exit 1), not ServiceFailure', async () => {
    const { err, io } = await run(10, () => new NetworkError('POST /shipments: the connection was refused', 'refused'), { json: true, extra: { concurrency: 1 } });
    expect(err).toBeInstanceOf(NetworkError);
    expect(err).not.toBeInstanceOf(ServiceFailure);
    expect(JSON.parse(io.err().trim().split('\n').pop()!).summary).toMatchObject({ stopped: 'unreachable', not_started: 9 });
  });
});
