import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createContext } from '../../src/context.js';
import { ValidationError } from '../../src/errors.js';
import { runBulkCommand } from '../../src/bulk/command.js';
import { csvLine, failedCsvPathFor } from '../../src/bulk/csv-out.js';
import { createProgress, formatDuration } from '../../src/bulk/progress.js';
import { journalPathFor } from '../../src/bulk/journal.js';
import { bufferIO } from '../helpers/run.js';

const tmp = () => mkdtempSync(join(tmpdir(), 'ship-bulkcmd-'));
function ctxWith(opts: { json?: boolean; tty?: boolean; quiet?: boolean; env?: Record<string, string> } = {}) {
  const io = bufferIO({ tty: opts.tty });
  const ctx = createContext({ io, env: { NO_COLOR: '1', ...opts.env } });
  ctx.globals = { json: opts.json, quiet: opts.quiet };
  return { ctx, io };
}
const header = ['shipment_reference', 'to_name', 'weight'];
const rows = [
  ['A-1', 'Ann, "the" buyer', '100'],
  ['B-2', 'Bob', '-5'],
  ['C-3', '=cmd()', '300'],
];
const tasks = () => rows.map((r, i) => ({ key: r[0], rows: [i + 2], records: [r], input: r }));
const hooks = {
  async execute(t: { input: string[] }) {
    if (Number(t.input[2]) < 0) throw new ValidationError('The given data failed to pass validation.', { 'parcels.0.weight': ['The weight must be at least 1.'] }, { status: 400 });
    return { id: `id-${t.input[0]}`, tracking_reference: `TRK-${t.input[0]}` };
  },
};

describe('runBulkCommand', () => {
  it('--json: one line per task in input order on stdout, a summary line on stderr, exit 3 with failed.csv', async () => {
    const dir = tmp();
    const { ctx, io } = ctxWith({ json: true });
    const failedPath = failedCsvPathFor(join(dir, 'orders.csv'));
    const err = await runBulkCommand(ctx, {
      noun: 'shipments',
      tasks: tasks(),
      total: 3,
      hooks,
      concurrency: 2,
      journalPath: journalPathFor(dir, join(dir, 'orders.csv')),
      failedCsv: { path: failedPath, header },
      resultsCsv: {
        path: join(dir, 'results.csv'),
        header,
        columns: (r) => ({ status: r.status, id: r.result?.id, tracking_reference: r.result?.tracking_reference, error: r.error ? String((r.error as Error).message) : undefined }),
      },
      jsonLine: (r) => ({ row: r.task.rows[0], shipment_reference: r.task.key, status: r.status }),
    }).catch((e) => e);
    expect(err.exitCode).toBe(3);
    const lines = io.out().trim().split('\n').map((l) => JSON.parse(l));
    expect(lines.map((l) => [l.shipment_reference, l.status])).toEqual([
      ['A-1', 'created'],
      ['B-2', 'failed'],
      ['C-3', 'created'],
    ]);
    expect(JSON.parse(io.err().trim().split('\n').pop()!)).toMatchObject({ summary: { total: 3, listed: 3, created: 2, failed: 1 } });
    // failed.csv: the same header plus error, the original row unchanged (re-importable), quoted per RFC 4180
    expect(failedPath).toBe(join(dir, 'orders.failed.csv'));
    expect(readFileSync(failedPath, 'utf8')).toBe(
      'shipment_reference,to_name,weight,error\nB-2,Bob,-5,parcels.0.weight: The weight must be at least 1.\n',
    );
    const results = readFileSync(join(dir, 'results.csv'), 'utf8');
    expect(results.split('\n')[0]).toBe('shipment_reference,to_name,weight,status,id,tracking_reference,label_paths,error');
    expect(results).toContain('A-1,"Ann, ""the"" buyer",100,created,id-A-1,TRK-A-1,,\n');
    expect(results).toContain('C-3,=cmd(),300,created'); // input columns never altered

    // Rerun: done ones skipped, the failed one retried (still failing) — nothing created twice.
    const second = ctxWith({ json: true });
    await runBulkCommand(second.ctx, {
      noun: 'shipments',
      tasks: tasks(),
      total: 3,
      hooks,
      concurrency: 2,
      journalPath: journalPathFor(dir, join(dir, 'orders.csv')),
      failedCsv: { path: failedPath, header },
      jsonLine: (r) => ({ shipment_reference: r.task.key, status: r.status }),
    }).catch(() => undefined);
    expect(second.io.out().trim().split('\n').map((l) => JSON.parse(l).status)).toEqual(['skipped', 'failed', 'skipped']);
  });

  it('removes a stale failed.csv when everything went through', async () => {
    const dir = tmp();
    const failedPath = join(dir, 'x.failed.csv');
    writeFileSync(failedPath, 'old\n');
    const { ctx } = ctxWith();
    await runBulkCommand(ctx, {
      noun: 'shipments',
      tasks: tasks().filter((t) => t.key !== 'B-2'),
      hooks,
      concurrency: 2,
      failedCsv: { path: failedPath, header },
      jsonLine: () => ({}),
    });
    expect(existsSync(failedPath)).toBe(false);
  });

  it('text mode: TSV lines on stdout when not a TTY, summary on stderr', async () => {
    const { ctx, io } = ctxWith();
    await runBulkCommand(ctx, {
      noun: 'shipments',
      tasks: tasks(),
      hooks,
      concurrency: 1,
      jsonLine: () => ({}),
      textLine: (r) => `${r.status}\t${r.task.key}`,
    }).catch(() => undefined);
    expect(io.out()).toBe('created\tA-1\nfailed\tB-2\ncreated\tC-3\n');
    expect(io.err()).toMatch(/Done: 3 shipments/);
    expect(io.err()).toMatch(/B-2 \(row 3\): parcels\.0\.weight/);
  });

  it('singleTaskOwnError: one failed task throws its own error; its result line is left out on a terminal only', async () => {
    const one = () => [{ key: 'B-2', rows: [] as number[], input: rows[1] }];
    const opts = { noun: 'shipments', total: 1, hooks, concurrency: 1, singleTaskOwnError: true, jsonLine: () => ({}), textLine: (r: { status: string; task: { key: string } }) => `${r.status}\t${r.task.key}` };
    const onTerminal = ctxWith({ tty: true });
    const err = await runBulkCommand(onTerminal.ctx, { ...opts, tasks: one() }).catch((e) => e);
    expect(err).toBeInstanceOf(ValidationError);
    expect(onTerminal.io.out()).not.toContain('B-2');
    // A script reads stdout: it keeps the result line (the error itself is printed by the caller, on stderr).
    const piped = ctxWith();
    expect(await runBulkCommand(piped.ctx, { ...opts, tasks: one() }).catch((e) => e)).toBeInstanceOf(ValidationError);
    expect(piped.io.out()).toBe('failed\tB-2\n');
  });

  it('a progress line on a terminal, redrawn in place; none on a terminal that cannot redraw (TERM=dumb)', async () => {
    const run = async (env: Record<string, string>) => {
      const { ctx, io } = ctxWith({ tty: true, env });
      await runBulkCommand(ctx, { noun: 'shipments', tasks: tasks(), total: 3, hooks, concurrency: 1, jsonLine: () => ({}) }).catch(() => undefined);
      return io.err();
    };
    expect(await run({})).toContain('\r');
    const dumb = await run({ TERM: 'dumb' });
    expect(dumb).not.toContain('\r');
    expect(dumb).not.toContain('\x1b[K');
    expect(dumb).toMatch(/Done: 3 shipments/);
  });

  it('Ctrl-C: stops, prints the summary, throws Interrupted (130)', async () => {
    const { err, io, ctx } = await interruptedRun({ count: 100, abortAt: 3, concurrency: 2, delayMs: 2 });
    expect(err.exitCode).toBe(130);
    expect(ctx.interruptHolders).toBe(0);
    expect(io.err()).toMatch(/Stopped/);
    expect(io.err()).toMatch(/not started\s+9\d/);
    // The summary says to rerun; the error (printed by main after it) does not say it again.
    expect(io.err()).toContain('Rerun the same command to continue: nothing is created twice.');
    expect(err.message).toMatch(/^interrupted: \d+ of 100 shipments handled$/);
    // Under --json the summary is a JSON line: the error carries the advice.
    const { err: jsonErr, io: jsonIo } = await interruptedRun({ count: 100, abortAt: 3, concurrency: 1, json: true });
    expect(jsonErr.message).toMatch(/^interrupted: \d+ of 100 shipments handled; rerun the same command to continue$/);
    // It counts what the rerun will take up, as the text summary's "not started" row does.
    const summary = JSON.parse(jsonIo.err().split('\n').find((l) => l.startsWith('{"summary"'))!).summary;
    expect(summary).toMatchObject({ interrupted: true, not_started: 100 - summary.total, listed: 100 });
  });

  it('Ctrl-C while the last task is under way: every task done, so nothing is left to rerun (still 130)', async () => {
    for (const json of [false, true]) {
      // Pressed while the last one is being done (its label printing, say): it is let finish.
      const { err, io } = await interruptedRun({ count: 3, abortAt: 2, concurrency: 1, json });
      expect(err.exitCode).toBe(130);
      expect(err.message).toBe('interrupted: 3 of 3 shipments handled; nothing is left to do');
      if (!json) {
        expect(io.err()).toContain('Interrupted after the last of the shipments was handled: nothing is left to do.');
        expect(io.err()).not.toContain('Rerun the same command');
      }
    }
  });

  it('every task done but work left outside them (labels not sent to the printer): said instead of "nothing is left to do"', async () => {
    for (const json of [false, true]) {
      const { err, io } = await interruptedRun({ count: 3, abortAt: 2, concurrency: 1, json, leftOver: 'the labels of 2 shipments were not sent to the printer (listed below)' });
      expect(err.message).toBe('interrupted: 3 of 3 shipments handled; the labels of 2 shipments were not sent to the printer (listed below)');
      if (!json) expect(io.err()).toContain('Interrupted after the last of the shipments was handled: the labels of 2 shipments were not sent to the printer (listed below).');
      expect(io.err()).not.toContain('nothing is left to do');
    }
  });

  it('in colour, what to do next is bold, not yellow (faint on a light background)', async () => {
    const { err, io } = await interruptedRun({ count: 20, abortAt: 3, concurrency: 1, env: { FORCE_COLOR: '1' } });
    expect(err.exitCode).toBe(130);
    expect(io.err()).toContain('\x1b[1mRerun the same command to continue');
    expect(io.err()).not.toContain('\x1b[33m');
  });
});

/**
 * runBulkCommand over `count` tasks (inputs 0, 1, …), Ctrl-C pressed while task `abortAt` runs (each taking
 * `delayMs`); resolves to the error it threw, its output and its context.
 */
async function interruptedRun(opts: { count: number; abortAt: number; concurrency: number; json?: boolean; env?: Record<string, string>; delayMs?: number; leftOver?: string }) {
  const io = bufferIO();
  const ac = new AbortController();
  const ctx = createContext({ io, env: opts.env ?? {}, signal: ac.signal });
  ctx.globals = { json: opts.json };
  const tasks = Array.from({ length: opts.count }, (_, i) => ({ key: `K${i}`, rows: [i + 2], input: i }));
  const err = await runBulkCommand(ctx, {
    noun: 'shipments',
    tasks,
    total: opts.count,
    concurrency: opts.concurrency,
    hooks: {
      async execute(t) {
        if (t.input === opts.abortAt) ac.abort();
        if (opts.delayMs) await new Promise((r) => setTimeout(r, opts.delayMs));
        return t.input;
      },
    },
    jsonLine: () => ({}),
    leftOver: opts.leftOver === undefined ? undefined : () => opts.leftOver,
  }).catch((e) => e);
  return { err, io, ctx };
}

describe('progress', () => {
  it('draws nothing when not enabled (not a TTY, --json)', () => {
    const s = new PassThrough();
    let out = '';
    s.on('data', (d) => (out += d));
    const p = createProgress({ stream: s, enabled: false });
    p.start(10);
    p.update({ created: 1, skipped: 0, failed: 0 });
    p.stop();
    expect(out).toBe('');
    expect(p.enabled).toBe(false);
  });

  it('draws counts, rate and ETA, throttled, and erases itself', async () => {
    const s = new PassThrough();
    let out = '';
    s.on('data', (d) => (out += d));
    let t = 0;
    const p = createProgress({ stream: s, enabled: true, label: 'shipments', now: () => t, intervalMs: 100 });
    p.start(100);
    t = 2000;
    p.update({ created: 10, skipped: 0, failed: 0 });
    t = 2050;
    p.update({ created: 11, skipped: 0, failed: 0 }); // throttled: within 100 ms
    p.stop();
    expect(out).toContain('10/100 shipments');
    expect(out).toContain('5.0/s');
    expect(out).toContain('ETA 18s');
    expect(out).not.toContain('11/100');
    expect(out.endsWith('\r\x1b[K')).toBe(true);
  });

  it('resume() draws the line again after a stop() mid-run, without waiting for the next count; never before start()', () => {
    const s = new PassThrough();
    let out = '';
    s.on('data', (d) => (out += d));
    let t = 0;
    const p = createProgress({ stream: s, enabled: true, label: 'shipments', now: () => t, intervalMs: 100 });
    p.resume();
    expect(out).toBe('');
    p.start(100);
    t = 1000;
    p.update({ created: 10, skipped: 0, failed: 0 });
    p.stop();
    out = '';
    p.resume();
    expect(out).toContain('10/100 shipments');
    p.stop();
  });

  it('shows work beyond the tasks (labels sent to the printer) after the counts, and the rate of the tasks stays once they are done', () => {
    const s = new PassThrough();
    let out = '';
    s.on('data', (d) => (out += d));
    let t = 0;
    let sent = 0;
    const p = createProgress({ stream: s, enabled: true, label: 'shipments', now: () => t, intervalMs: 100, columns: 120, note: () => `${sent} labels sent to printer` });
    p.start(10);
    t = 2000;
    sent = 3;
    p.update({ created: 10, skipped: 0, failed: 0 });
    t = 6000;
    sent = 9;
    p.update({ created: 10, skipped: 0, failed: 0 });
    p.stop();
    const frames = out.split('\r').filter((f) => f.includes('10/10'));
    expect(frames.at(-1)).toContain('10/10 shipments · created 10 skipped 0 failed 0 · 9 labels sent to printer · 5.0/s');
    expect(frames[0]).toContain('3 labels sent to printer · 5.0/s');
  });

  it('follows a resized terminal: each redraw fits the width the terminal has now, not the one it had at the start', () => {
    const s = new PassThrough();
    let out = '';
    s.on('data', (d) => (out += d));
    let t = 0;
    let width = 120;
    const p = createProgress({ stream: s, enabled: true, label: 'shipments', now: () => t, intervalMs: 100, columns: () => width });
    p.start(300);
    t = 1000;
    p.update({ created: 10, skipped: 0, failed: 0 });
    const wide = out.split('\r').filter(Boolean).at(-1)!;
    expect(wide).toContain('[');
    width = 50;
    t = 2000;
    p.update({ created: 20, skipped: 0, failed: 0 });
    p.stop();
    const frames = out.split('\r').map((f) => f.replace('\x1b[K', '')).filter(Boolean);
    const narrow = frames.at(-1)!;
    expect(narrow).toContain('20/300');
    // A line longer than the terminal wraps, and \r then redraws only its last row: a trail of copies.
    expect(narrow.length).toBeLessThan(50);
  });

  it('keeps rate and ETA on a narrow terminal: the bar and the breakdown go first (a cut line lost them)', () => {
    const frameAt = (width: number, counts: { created: number; skipped: number; failed: number }): string => {
      const s = new PassThrough();
      let out = '';
      s.on('data', (d) => (out += d));
      let t = 0;
      const p = createProgress({ stream: s, enabled: true, label: 'shipments', now: () => t, intervalMs: 100, columns: width });
      p.start(400);
      t = 2000;
      p.update(counts);
      return out.split('\r').map((f) => f.replace('\x1b[K', '')).filter(Boolean).at(-1)!;
    };
    const ok = { created: 100, skipped: 0, failed: 0 };
    expect(frameAt(40, ok)).toBe('100/400 shipments · 50.0/s · ETA 6s');
    expect(frameAt(60, ok)).toBe('100/400 shipments · created 100 · 50.0/s · ETA 6s');
    expect(frameAt(100, ok)).toBe('[####------------] 100/400 shipments · created 100 skipped 0 failed 0 · 50.0/s · ETA 6s');
    // Failures are kept longest: a person watching needs to see them early.
    const failing = { created: 90, skipped: 0, failed: 10 };
    expect(frameAt(50, failing)).toBe('100/400 shipments · failed 10 · 50.0/s · ETA 6s');
    expect(frameAt(44, failing)).toBe('100/400 · failed 10 · 50.0/s · ETA 6s');
    expect(frameAt(30, ok)).toBe('100/400 · 50.0/s · ETA 6s');
    expect(frameAt(20, ok)).toBe('100/400 · ETA 6s');
  });

  it('is off through runBulkCommand when stderr is not a TTY', async () => {
    const { ctx, io } = ctxWith();
    await runBulkCommand(ctx, { noun: 'x', tasks: tasks().slice(0, 1), hooks, concurrency: 1, jsonLine: () => ({}) });
    expect(io.err()).not.toContain('\r');
  });
});

describe('csv helpers', () => {
  it('quotes per RFC 4180', () => {
    expect(csvLine(['a', 'b,c', 'd"e', 'f\ng', ' h'])).toBe('a,"b,c","d""e","f\ng"," h"\n');
  });
});

describe('formatDuration', () => {
  it('gives whole seconds, minutes and hours; tenths under 10 s and hundredths under 1 s when asked (a run summary)', () => {
    expect(formatDuration(0.4)).toBe('0s');
    expect(formatDuration(0.4, { tenths: true })).toBe('0.40s');
    expect(formatDuration(0.043, { tenths: true })).toBe('0.04s');
    expect(formatDuration(0.996, { tenths: true })).toBe('1.0s');
    expect(formatDuration(3.25, { tenths: true })).toBe('3.3s');
    expect(formatDuration(9.96, { tenths: true })).toBe('10s');
    expect(formatDuration(12.4, { tenths: true })).toBe('12s');
    expect(formatDuration(185)).toBe('3m05s');
    expect(formatDuration(3725)).toBe('1h02m');
    expect(formatDuration(-1, { tenths: true })).toBe('0.00s');
  });
});
