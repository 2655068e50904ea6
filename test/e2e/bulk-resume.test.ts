// Exactly-once proof for `ship create --csv` (issue 4, "Done when"): a 200-shipment run is SIGKILLed at several
// points (always with requests in flight) and rerun until done; another run goes through sandbox faults
// (503s, resets, latency) plus a proxy that loses responses AFTER the sandbox created the shipment.
// Every reference must be created exactly once, and the journal must stay readable after every kill.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Journal } from '../../src/bulk/journal.js';
import { execa } from 'execa';
import { BIN, binEnv, ship } from '../helpers/bin.js';
import { useTestSandbox } from '../helpers/sandbox.js';

const { sb, env: auth } = useTestSandbox();

/**
 * A recording proxy in front of the sandbox: counts successful POST /shipments per reference (what the server
 * actually created), can drop a response after the server processed it, and calls onPost before forwarding.
 */
async function proxy(target: string, opts: { dropRate?: number; onPost?: (n: number) => void } = {}) {
  const created = new Map<string, number>();
  // POSTs of a reference the server had already created, by the status they were answered: the client sends one
  // to settle an unknown outcome (the service refuses a live duplicate; a look-up could not tell a cancelled
  // shipment whose reference was given again), so none may have been accepted.
  const resentAfterCreated = new Map<string, number[]>();
  let posts = 0;
  let dropped = 0;
  const server: Server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks);
    const isCreate = req.method === 'POST' && /\/shipments\/?$/.test(req.url ?? '');
    if (isCreate) {
      const ref = JSON.parse(body.toString('utf8')).shipment_reference as string;
      posts++;
      opts.onPost?.(posts);
    }
    let upstream: Response;
    try {
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string' && !['host', 'connection', 'content-length'].includes(k)) headers[k] = v;
      upstream = await fetch(target + (req.url ?? '').replace(/^\/v1\.2/, ''), { method: req.method, headers, body: ['GET', 'HEAD'].includes(req.method ?? '') ? undefined : body });
    } catch {
      req.socket.destroy(); // the sandbox reset us: pass the reset on
      return;
    }
    const text = Buffer.from(await upstream.arrayBuffer());
    if (isCreate) {
      const ref = JSON.parse(body.toString('utf8')).shipment_reference as string;
      if (created.has(ref)) resentAfterCreated.set(ref, [...(resentAfterCreated.get(ref) ?? []), upstream.status]);
    }
    if (isCreate && upstream.status < 300) {
      const ref = JSON.parse(body.toString('utf8')).shipment_reference as string;
      created.set(ref, (created.get(ref) ?? 0) + 1);
      if (opts.dropRate && Math.random() < opts.dropRate) {
        dropped++;
        req.socket.destroy(); // created on the server, but the client never hears of it
        return;
      }
    }
    const h: Record<string, string> = {};
    upstream.headers.forEach((v, k) => {
      if (!['content-length', 'transfer-encoding', 'connection', 'content-encoding'].includes(k)) h[k] = v;
    });
    res.writeHead(upstream.status, h);
    res.end(text);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1.2`,
    created,
    resentAfterCreated,
    get posts() {
      return posts;
    },
    get dropped() {
      return dropped;
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

function csvFile(dir: string, prefix: string, n: number): string {
  const lines = ['shipment_reference,to_name,to_line_1,to_city,to_postcode,to_country,weight,length,width,depth'];
  for (let i = 1; i <= n; i++) lines.push(`${prefix}-${String(i).padStart(4, '0')},Customer ${i},${i} High Street,London,SW1A 1AA,GB,${500 + i},20,15,10`);
  const path = join(dir, `${prefix}.csv`);
  writeFileSync(path, lines.join('\n') + '\n');
  return path;
}

/** Opens the journal as a rerun would; returns how many keys were left "sending" (outcome unknown). */
async function journalReadable(outDir: string): Promise<number> {
  const file = readdirSync(outDir).find((f) => f.startsWith('.ship-journal-') && f.endsWith('.jsonl'));
  if (!file) return 0; // killed before the first record
  const j = await Journal.open(join(outDir, file), { lock: false });
  // At most the one line a kill can tear.
  expect(j.ignoredLines).toBeLessThanOrEqual(1);
  const inFlight = [...j.values()].filter((e) => e.state === 'sending').length;
  await j.close();
  return inFlight;
}

function assertExactlyOnce(created: Map<string, number>, resent: Map<string, number[]>, prefix: string, n: number): void {
  // Sent again to settle an unknown outcome: refused as a duplicate (400), or met a fault the sandbox injected
  // (5xx); never answered otherwise (created again, or refused for another reason).
  expect([...resent].filter(([, statuses]) => statuses.some((st) => st !== 400 && st < 500))).toEqual([]);
  const twice = [...created].filter(([, c]) => c > 1);
  expect(twice).toEqual([]);
  for (let i = 1; i <= n; i++) expect(created.get(`${prefix}-${String(i).padStart(4, '0')}`), `reference ${i}`).toBe(1);
}

function finalLines(stdout: unknown): Array<{ shipment_reference: string; status: string; labels?: string[] }> {
  return String(stdout).trim().split('\n').filter(Boolean).map((l) => JSON.parse(l));
}

/**
 * A run to be stopped part way: the sandbox slowed by `latencyMs`, a CSV of `n` shipments `PREFIX-0001…`, a
 * recording proxy in front of the sandbox, and the command's env and arguments (labels in DIR/labels).
 */
async function stoppableRun(prefix: string, n: number, latencyMs: number, extra: string[] = ['--json']) {
  await sb.control('faults', { latency_ms: latencyMs });
  const dir = mkdtempSync(join(tmpdir(), `ship-${prefix.toLowerCase()}-`));
  const outDir = join(dir, 'labels');
  const csv = csvFile(dir, prefix, n);
  const p = await proxy(sb.url + '/v1.2');
  const env = { SHIP_BASE_URL: p.baseUrl, SHIP_API_KEY: sb.apiKey, SHIP_TOKEN: auth.SHIP_TOKEN };
  const args = ['create', '--csv', csv, '--output-dir', outDir, ...extra, '--concurrency', '4'];
  return { dir, outDir, csv, p, env, args };
}

/** Waits (15 s at most) until the proxy has seen `n` POSTs; false if it never did. */
async function postsSeen(p: { posts: number }, n: number): Promise<boolean> {
  const until = Date.now() + 15_000;
  while (p.posts < n && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
  return p.posts >= n;
}

describe('resume after SIGKILL', () => {
  it('kills a 200-shipment run at several points; reruns create every shipment exactly once', async () => {
    await sb.control('faults', { latency_ms: 15 });
    const dir = mkdtempSync(join(tmpdir(), 'ship-resume-'));
    const outDir = join(dir, 'labels');
    const csv = csvFile(dir, 'KILL', 200);
    let kill: (() => void) | undefined;
    let killAt = Infinity;
    const p = await proxy(sb.url + '/v1.2', {
      // Kill while this request is on its way to the server: its outcome is unknown to the journal.
      onPost: (n) => {
        if (n >= killAt) kill?.();
      },
    });
    const env = { SHIP_BASE_URL: p.baseUrl, SHIP_API_KEY: sb.apiKey, SHIP_TOKEN: auth.SHIP_TOKEN };
    const args = ['create', '--csv', csv, '--output-dir', outDir, '--json', '--concurrency', '8'];
    try {
      let killed = 0;
      let unknownAfterKill = 0;
      for (const at of [10, 70, 140]) {
        killAt = p.posts + (at - p.posts > 0 ? at - p.posts : 5);
        const proc = ship(args, { env });
        kill = () => proc.kill('SIGKILL');
        const r = await proc;
        kill = undefined;
        if (r.signal === 'SIGKILL') killed++;
        unknownAfterKill += await journalReadable(outDir);
      }
      expect(killed).toBeGreaterThanOrEqual(2);
      // The kills hit requests in flight, so reruns had to settle unknown outcomes.
      expect(unknownAfterKill).toBeGreaterThan(0);
      killAt = Infinity;
      let last;
      for (let i = 0; i < 3; i++) {
        last = await ship(args, { env });
        if (last.exitCode === 0) break;
      }
      expect(last!.exitCode, String(last!.stderr)).toBe(0);
      const lines = finalLines(last!.stdout);
      expect(lines).toHaveLength(200);
      expect(lines.every((l) => l.status === 'created' || l.status === 'skipped')).toBe(true);
      expect(lines.filter((l) => l.status === 'skipped').length).toBeGreaterThan(100);
      assertExactlyOnce(p.created, p.resentAfterCreated, 'KILL', 200);
      // Every shipment ends with its label file, also those settled after a kill.
      const files = new Set(readdirSync(outDir));
      for (let i = 1; i <= 200; i++) expect(files.has(`KILL-${String(i).padStart(4, '0')}_1.zpl`), `label ${i}`).toBe(true);
      await journalReadable(outDir);
    } finally {
      await sb.control('faults', {});
      await p.close();
    }
  }, 120_000);
});

describe('runs through faults', () => {
  it('503s, resets, latency and lost responses: every reference created exactly once', async () => {
    await sb.control('faults', { fail_rate: 0.1, status: 503, reset_rate: 0.05, latency_ms: 5 });
    const dir = mkdtempSync(join(tmpdir(), 'ship-faults-'));
    const outDir = join(dir, 'labels');
    const csv = csvFile(dir, 'FLT', 200);
    const p = await proxy(sb.url + '/v1.2', { dropRate: 0.05 });
    const env = { SHIP_BASE_URL: p.baseUrl, SHIP_API_KEY: sb.apiKey, SHIP_TOKEN: auth.SHIP_TOKEN, SHIP_TIMEOUT: '5' };
    const args = ['create', '--csv', csv, '--output-dir', outDir, '--json', '--concurrency', '8'];
    try {
      let last;
      for (let i = 0; i < 5; i++) {
        last = await ship(args, { env });
        await journalReadable(outDir);
        if (last.exitCode === 0) break;
        expect(last.exitCode, String(last.stderr)).toBe(3); // some failed this time: rerun
      }
      expect(last!.exitCode, String(last!.stderr)).toBe(0);
      expect(p.dropped).toBeGreaterThan(0);
      assertExactlyOnce(p.created, p.resentAfterCreated, 'FLT', 200);
      // Each answer lost after the shipment was made was settled by a resend the service refused as a duplicate.
      expect([...p.resentAfterCreated.values()].flat()).toContain(400);
      const lines = finalLines(last!.stdout);
      expect(lines).toHaveLength(200);
    } finally {
      await sb.control('faults', {});
      await p.close();
    }
  }, 120_000);
});

describe('Ctrl-C and the journal lock', () => {
  it('SIGINT stops sending, lets in-flight finish, exits 130 with a clean journal; a second run meanwhile is refused', async () => {
    const { outDir, p, env, args } = await stoppableRun('INT', 120, 25);
    try {
      const first = ship(args, { env });
      // Wait until it is well under way.
      if (!(await postsSeen(p, 20))) {
        first.kill('SIGKILL');
        const dead = await first;
        throw new Error(`first run did not get going: posts=${p.posts} created=${p.created.size} ${String(dead.stderr)}`);
      }
      const second = await ship(args, { env });
      expect(second.exitCode).toBe(1);
      expect(second.stderr).toMatch(/another run is already using this journal: process \d+/);
      first.kill('SIGINT');
      const r = await first;
      expect(r.exitCode, String(r.stderr)).toBe(130);
      const lines = finalLines(r.stdout);
      expect(lines.length).toBeGreaterThan(0);
      expect(lines.length).toBeLessThan(120);
      expect(String(r.stderr)).toMatch(/"interrupted":true/);
      // Under --json the closing error is a JSON line too, and so is every other line (the "finishing requests in
      // flight" notice among them).
      const errLines = String(r.stderr).trim().split('\n');
      expect(JSON.parse(errLines.at(-1)!).error).toMatchObject({ exit_code: 130, type: 'Interrupted' });
      expect(errLines.map((l) => JSON.parse(l) as Record<string, unknown>).some((l) => /finishing requests in flight/.test(JSON.stringify(l.info)))).toBe(true);
      // Everything that started finished and was recorded: nothing is left with an unknown outcome.
      expect(await journalReadable(outDir)).toBe(0);
      const postsBefore = p.posts;
      const rerun = await ship(args, { env });
      expect(rerun.exitCode, String(rerun.stderr)).toBe(0);
      const statuses = finalLines(rerun.stdout).map((l) => l.status);
      expect(statuses.filter((s) => s === 'skipped')).toHaveLength(lines.length);
      expect(p.posts - postsBefore).toBe(120 - lines.length);
      assertExactlyOnce(p.created, p.resentAfterCreated, 'INT', 120);
    } finally {
      await sb.control('faults', {});
      await p.close();
    }
  }, 60_000);

  it('SIGTERM (kill, a cron timeout) stops as Ctrl-C does, and exits 143; the rerun finishes, each shipment once', async () => {
    const { outDir, p, env, args } = await stoppableRun('TERM', 80, 25);
    try {
      const first = ship(args, { env });
      await postsSeen(p, 10);
      first.kill('SIGTERM');
      const r = await first;
      expect(r.exitCode, String(r.stderr)).toBe(143);
      const errLines = String(r.stderr).trim().split('\n').map((l) => JSON.parse(l) as Record<string, { message?: string }>);
      expect(errLines.at(-1)!.error).toMatchObject({ exit_code: 143, type: 'Interrupted' });
      expect(errLines.some((l) => /^Stopping \(SIGTERM\): finishing requests in flight \(a second signal aborts\)/.test(l.info?.message ?? ''))).toBe(true);
      expect(await journalReadable(outDir)).toBe(0);
      const rerun = await ship(args, { env });
      expect(rerun.exitCode, String(rerun.stderr)).toBe(0);
      assertExactlyOnce(p.created, p.resentAfterCreated, 'TERM', 80);
    } finally {
      await sb.control('faults', {});
      await p.close();
    }
  }, 60_000);

  it('a second Ctrl-C aborts at once and says what to do; the rerun settles what was in flight, each shipment once', async () => {
    const { p, env, args } = await stoppableRun('TWICE', 40, 300, []);
    try {
      const first = ship(args, { env });
      await postsSeen(p, 6);
      first.kill('SIGINT');
      await new Promise((r) => setTimeout(r, 50));
      first.kill('SIGINT');
      const r = await first;
      expect(r.exitCode, String(r.stderr)).toBe(130);
      expect(String(r.stderr)).toMatch(/^aborted: the requests in flight were not waited for; rerun the same command to continue/m);
      // The requests the aborted run left reach the service after their latency: a rerun seconds later (not
      // while they are still on their way) finds them.
      await new Promise((res) => setTimeout(res, 600));
    } finally {
      await sb.control('faults', {});
    }
    try {
      const rerun = await ship(args, { env });
      expect(rerun.exitCode, String(rerun.stderr)).toBe(0);
      assertExactlyOnce(p.created, p.resentAfterCreated, 'TWICE', 40);
    } finally {
      await p.close();
    }
  }, 60_000);

  it('a run stopped by Ctrl-C keeps what earlier runs recorded: FILE.failed.csv and --results of the rows it never reached', async () => {
    await sb.control('faults', { latency_ms: 25 });
    const dir = mkdtempSync(join(tmpdir(), 'ship-keep-'));
    const outDir = join(dir, 'labels');
    const header = 'shipment_reference,to_name,to_line_1,to_city,to_postcode,to_country,weight,delivery_service_key';
    // Too heavy for that service: refused by the API, row by row.
    const earlier = ['KEEP-OK-1,Ann,1 St,London,E1 1AA,GB,100,', 'KEEP-BAD-1,Bob,2 St,Leeds,LS1 1AA,GB,5000,RM_TRACKED_48', 'KEEP-BAD-2,Cy,3 St,York,YO1 1AA,GB,5000,RM_TRACKED_48'];
    const csv = join(dir, 'keep.csv');
    writeFileSync(csv, [header, ...earlier].join('\n') + '\n');
    const results = join(dir, 'results.csv');
    const p = await proxy(sb.url + '/v1.2');
    const env = { SHIP_BASE_URL: p.baseUrl, SHIP_API_KEY: sb.apiKey, SHIP_TOKEN: auth.SHIP_TOKEN };
    const args = ['create', '--csv', csv, '--output-dir', outDir, '--json', '--concurrency', '2', '--results', results];
    try {
      expect((await ship(args, { env })).exitCode).toBe(3);
      const failedCsv = join(dir, 'keep.failed.csv');
      expect(readFileSync(failedCsv, 'utf8')).toContain('KEEP-BAD-2');
      // 150 new rows before the earlier ones; stopped long before it reaches them.
      const fresh = Array.from({ length: 150 }, (_, i) => `KEEP-NEW-${i + 1},Dee,${i} St,Bath,BA1 1AA,GB,200,`);
      writeFileSync(csv, [header, ...fresh, ...earlier].join('\n') + '\n');
      const run = ship(args, { env });
      const until = Date.now() + 15_000;
      const postsBefore = p.posts;
      while (p.posts - postsBefore < 10 && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
      run.kill('SIGINT');
      const r = await run;
      expect(r.exitCode, String(r.stderr)).toBe(130);
      const failed = readFileSync(failedCsv, 'utf8');
      expect(failed).toContain('KEEP-BAD-1');
      expect(failed).toContain('KEEP-BAD-2');
      // The earlier run's error, placed in the user's row and column as that run wrote it.
      expect(failed).toMatch(/KEEP-BAD-1,.*row \d+, column delivery_service_key: /);
      const rows = readFileSync(results, 'utf8').trim().split('\n');
      const ok = rows.find((l) => l.startsWith('KEEP-OK-1,'))!;
      expect(ok).toMatch(/,skipped,/);
      expect(ok).toMatch(/KEEP-OK-1_1\.zpl/);
      expect(rows.find((l) => l.startsWith('KEEP-BAD-1,'))).toMatch(/,failed,/);
      expect(rows.find((l) => l.startsWith('KEEP-NEW-150,'))).toMatch(/,not_sent,/);

      // The service unreachable (connection refused): the run stops at once; the rows it tried were not the
      // problem, and the earlier runs' failures stay in FILE.failed.csv.
      await p.close();
      const down = await ship(args, { env });
      expect(down.exitCode, String(down.stderr)).toBe(1);
      const still = readFileSync(failedCsv, 'utf8');
      expect(still).toContain('KEEP-BAD-1');
      expect(still).toContain('KEEP-BAD-2');
    } finally {
      await sb.control('faults', {});
      await p.close().catch(() => undefined);
    }
  }, 60_000);

  it('a run stopped by Ctrl-C says of the rows it never reached that an earlier run sent and never heard back about: failed, outcome unknown (not "not_sent")', async () => {
    await sb.control('faults', { latency_ms: 200 });
    const dir = mkdtempSync(join(tmpdir(), 'ship-unknown-'));
    const outDir = join(dir, 'labels');
    const header = 'shipment_reference,to_name,to_line_1,to_city,to_postcode,to_country,weight';
    const earlier = Array.from({ length: 8 }, (_, i) => `UNK-${i + 1},Ann,${i} St,London,E1 1AA,GB,100`);
    const csv = join(dir, 'unk.csv');
    writeFileSync(csv, [header, ...earlier].join('\n') + '\n');
    const results = join(dir, 'results.csv');
    const args = ['create', '--csv', csv, '--output-dir', outDir, '--json', '--concurrency', '4', '--results', results];
    try {
      // Killed with requests in flight: their journal records stay "sending".
      const killed = ship(args, { env: auth });
      const journalSending = () => {
        const f = existsSync(outDir) ? readdirSync(outDir).find((n) => /^\.ship-journal-.*\.jsonl$/.test(n)) : undefined;
        if (!f) return [];
        const last = new Map<string, string>();
        for (const l of readFileSync(join(outDir, f), 'utf8').split('\n').filter(Boolean)) last.set(JSON.parse(l).k, JSON.parse(l).s);
        return [...last].filter(([, st]) => st === 'sending').map(([k]) => k);
      };
      const until = Date.now() + 15_000;
      while (journalSending().length === 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 10));
      killed.kill('SIGKILL');
      await killed.catch(() => undefined);
      const sending = journalSending();
      expect(sending.length).toBeGreaterThan(0);
      // The rerun starts with 200 new rows and is stopped long before it reaches the earlier ones.
      const fresh = Array.from({ length: 200 }, (_, i) => `UNK-NEW-${i + 1},Dee,${i} St,Bath,BA1 1AA,GB,200`);
      writeFileSync(csv, [header, ...fresh, ...earlier].join('\n') + '\n');
      const run = ship(args, { env: auth });
      await new Promise((r) => setTimeout(r, 1500));
      run.kill('SIGINT');
      expect((await run).exitCode).toBe(130);
      const rows = readFileSync(results, 'utf8').trim().split('\n');
      for (const ref of sending) expect(rows.find((l) => l.startsWith(`${ref},`))).toMatch(/,failed,.*answer never came \(it may exist: rerun the same command/);
      expect(readFileSync(join(dir, 'unk.failed.csv'), 'utf8')).toContain(`${sending[0]},`);
    } finally {
      await sb.control('faults', {});
    }
  }, 60_000);

  it('a lock left by a killed run is taken over, with a warning', async () => {
    await sb.control('faults', { latency_ms: 25 });
    const dir = mkdtempSync(join(tmpdir(), 'ship-stale-'));
    const outDir = join(dir, 'labels');
    const csv = csvFile(dir, 'STL', 30);
    const p = await proxy(sb.url + '/v1.2');
    const env = { SHIP_BASE_URL: p.baseUrl, SHIP_API_KEY: sb.apiKey, SHIP_TOKEN: auth.SHIP_TOKEN };
    const args = ['create', '--csv', csv, '--output-dir', outDir, '--json'];
    try {
      const first = ship(args, { env });
      const until = Date.now() + 15_000;
      while (p.posts < 5 && Date.now() < until) await new Promise((r) => setTimeout(r, 10));
      first.kill('SIGKILL');
      await first;
      expect(readdirSync(outDir).some((f) => f.endsWith('.jsonl.lock'))).toBe(true);
      const r = await ship(args, { env });
      expect(r.exitCode, String(r.stderr)).toBe(0);
      expect(r.stderr).toMatch(/took over the journal lock of process \d+, which is no longer running/);
      expect(readdirSync(outDir).some((f) => f.endsWith('.lock'))).toBe(false);
      assertExactlyOnce(p.created, p.resentAfterCreated, 'STL', 30);
    } finally {
      await sb.control('faults', {});
      await p.close();
    }
  }, 60_000);
});

describe('a journal write that fails part way (a full disk)', () => {
  it.skipIf(process.platform !== 'linux')('is cut back to whole lines: the run stops (exit 1), the rerun ignores nothing and finishes, each once', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ship-jfull-'));
    const outDir = join(dir, 'labels');
    const csv = csvFile(dir, 'JF', 100);
    const p = await proxy(sb.url + '/v1.2');
    const env = binEnv({ SHIP_BASE_URL: p.baseUrl, SHIP_API_KEY: sb.apiKey, SHIP_TOKEN: auth.SHIP_TOKEN });
    const args = ['create', '--csv', csv, '--output-dir', outDir, '--json'];
    try {
      // A file size limit of 16 KiB: the journal's commit that crosses it is written in part (a short write),
      // then fails (EFBIG), as a commit meeting a full disk does (ENOSPC). Each label file stays far below it.
      const first = await execa('bash', ['-c', 'ulimit -f 16 && exec "$0" "$@"', process.execPath, BIN, ...args], { env, extendEnv: false, reject: false, stdin: 'ignore' });
      expect(first.exitCode, String(first.stderr)).toBe(1);
      expect(String(first.stderr)).toContain('could not write the resume journal');
      const journal = readdirSync(outDir).find((f) => f.startsWith('.ship-journal-') && f.endsWith('.jsonl'))!;
      const text = readFileSync(join(outDir, journal), 'utf8');
      expect(text.length).toBeGreaterThan(8_000);
      expect(text.endsWith('\n')).toBe(true);
      for (const line of text.split('\n').filter(Boolean)) expect(() => JSON.parse(line)).not.toThrow();
      const r = await ship(args, { env });
      expect(r.exitCode, String(r.stderr)).toBe(0);
      expect(String(r.stderr)).not.toMatch(/incomplete last line|unreadable line/);
      assertExactlyOnce(p.created, p.resentAfterCreated, 'JF', 100);
    } finally {
      await p.close();
    }
  }, 60_000);
});

describe('a rerun with other label options', () => {
  it('another --format: skipped shipments are not "changed"; their labels come in the new format (and --merge reads them); removed label files come back', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ship-refmt-'));
    const outDir = join(dir, 'labels');
    const csv = csvFile(dir, 'FMT', 3);
    const p = await proxy(sb.url + '/v1.2');
    const env = { SHIP_BASE_URL: p.baseUrl, SHIP_API_KEY: sb.apiKey, SHIP_TOKEN: auth.SHIP_TOKEN };
    const args = ['create', '--csv', csv, '--output-dir', outDir, '--json'];
    try {
      expect((await ship([...args, '--format', 'ZPL'], { env })).exitCode).toBe(0);
      const merged = join(dir, 'all.pdf');
      const r = await ship([...args, '--format', 'PDF', '--merge', merged], { env });
      expect(r.exitCode, String(r.stderr)).toBe(0);
      expect(r.stderr).not.toMatch(/different values/);
      const lines = finalLines(r.stdout);
      expect(lines.map((l) => l.status)).toEqual(['skipped', 'skipped', 'skipped']);
      for (const l of lines) {
        expect((l as { changed?: boolean }).changed).toBeUndefined();
        expect(l.labels).toHaveLength(1);
        expect(l.labels![0]).toMatch(/\.pdf$/);
        expect(readFileSync(l.labels![0]).subarray(0, 5).toString()).toBe('%PDF-');
      }
      expect(readFileSync(merged).subarray(0, 5).toString()).toBe('%PDF-');

      // The labels moved away since: a rerun reports files that are there, not paths to nothing.
      rmSync(lines[1].labels![0]);
      const again = await ship([...args, '--format', 'PDF'], { env });
      expect(again.exitCode, String(again.stderr)).toBe(0);
      const second = finalLines(again.stdout)[1];
      expect(second.status).toBe('skipped');
      expect(readFileSync(second.labels![0]).subarray(0, 5).toString()).toBe('%PDF-');
      assertExactlyOnce(p.created, p.resentAfterCreated, 'FMT', 3);
    } finally {
      await p.close();
    }
  }, 60_000);

  it('labels that cannot be fetched on a rerun fail their shipments (exit 3, tracking references kept), and the next rerun fetches them', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ship-refail-'));
    const outDir = join(dir, 'labels');
    const csv = csvFile(dir, 'RLF', 2);
    const env = { SHIP_BASE_URL: sb.url + '/v1.2', SHIP_API_KEY: sb.apiKey, SHIP_TOKEN: auth.SHIP_TOKEN };
    const args = ['create', '--csv', csv, '--output-dir', outDir, '--json'];
    const first = await ship(args, { env });
    expect(first.exitCode, String(first.stderr)).toBe(0);
    const created = finalLines(first.stdout) as Array<{ id?: string; tracking_reference?: string }>;
    try {
      await sb.control('faults', { fail_rate: 1, status: 503 });
      const results = join(dir, 'results.csv');
      const r = await ship([...args, '--format', 'PDF', '--results', results], { env });
      expect(r.exitCode, String(r.stderr)).toBe(3);
      const lines = finalLines(r.stdout) as Array<Record<string, unknown>>;
      expect(lines.map((l) => [l.status, l.created, l.tracking_reference])).toEqual(created.map((c) => ['failed', true, c.tracking_reference]));
      expect(String(lines[0].error)).toMatch(/was created \(.*\), but its label could not be written: .*503.*; run the same command again/);
      // Status, id, tracking reference, no label path, then the error (quoted: it has commas).
      const rows = readFileSync(results, 'utf8').trim().split('\n').slice(1);
      rows.forEach((row, i) => expect(row).toContain(`,failed,${created[i].id},${created[i].tracking_reference},,"shipment RLF-000${i + 1} was created`));
    } finally {
      await sb.control('faults', {});
    }
    const again = await ship([...args, '--format', 'PDF'], { env });
    expect(again.exitCode, String(again.stderr)).toBe(0);
    for (const l of finalLines(again.stdout)) {
      expect(l.status).toBe('skipped');
      expect(readFileSync(l.labels![0]).subarray(0, 5).toString()).toBe('%PDF-');
    }
  }, 60_000);
});

describe('stdout that goes away or cannot be written', () => {
  it('a reader that closes early (| head): the run stops as for Ctrl-C, exit 141 with its summary; the rerun finishes, each once', async () => {
    const { outDir, p, env: runEnv, args } = await stoppableRun('PIPE', 150, 10);
    const env = binEnv(runEnv);
    try {
      // `ship … | head -n 3`, with pipefail: the pipeline's status is ship's.
      const first = await execa('bash', ['-c', 'set -o pipefail; "$0" "$@" | head -n 3 > /dev/null', process.execPath, BIN, ...args], { env, extendEnv: false, reject: false, stdin: 'ignore' });
      expect(first.exitCode, String(first.stderr)).toBe(141);
      const errLines = String(first.stderr).trim().split('\n').map((l) => JSON.parse(l) as Record<string, { message?: string; interrupted?: boolean }>);
      expect(errLines.some((l) => /^Stopping: stdout was closed/.test(l.info?.message ?? ''))).toBe(true);
      expect(errLines.find((l) => l.summary)!.summary).toMatchObject({ interrupted: true });
      expect(errLines.at(-1)!.error).toMatchObject({ exit_code: 141, type: 'Interrupted' });
      expect(await journalReadable(outDir)).toBe(0);
      const r = await ship(args, { env });
      expect(r.exitCode, String(r.stderr)).toBe(0);
      assertExactlyOnce(p.created, p.resentAfterCreated, 'PIPE', 150);
    } finally {
      await sb.control('faults', {});
      await p.close();
    }
  }, 60_000);

  it('Ctrl-C to the whole pipeline (the reader dies with it): the stop goes on to its summary and exits 130, not 0', async () => {
    const { outDir, p, env: runEnv, args } = await stoppableRun('PIPEINT', 150, 25);
    try {
      const child = spawn(process.execPath, [BIN, ...args], { env: binEnv(runEnv), stdio: ['ignore', 'pipe', 'pipe'] });
      let stderr = '';
      child.stderr.on('data', (d) => (stderr += d));
      child.stdout.on('data', () => undefined);
      await postsSeen(p, 10);
      child.kill('SIGINT');
      // The reader goes too, while ship still finishes its requests: its next line meets a closed pipe.
      child.stdout.destroy();
      const code = await new Promise<number | null>((res) => child.on('exit', (c) => res(c)));
      expect(code, stderr).toBe(130);
      expect(stderr).toMatch(/"summary"/);
      expect(await journalReadable(outDir)).toBe(0);
    } finally {
      await sb.control('faults', {});
      await p.close();
    }
  }, 60_000);

  it('Ctrl-C just after ship met the closed pipe (the same Ctrl-C, handled second): still a first stop, exit 130, not an abort', async () => {
    const { outDir, p, env: runEnv, args } = await stoppableRun('PIPEINT2', 150, 25);
    try {
      const child = spawn(process.execPath, [BIN, ...args], { env: binEnv(runEnv), stdio: ['ignore', 'pipe', 'pipe'] });
      let stderr = '';
      const closedSeen = new Promise<void>((res) =>
        child.stderr.on('data', (d) => {
          stderr += d;
          if (stderr.includes('stdout was closed')) res();
        }),
      );
      child.stdout.on('data', () => undefined);
      await postsSeen(p, 10);
      child.stdout.destroy();
      await closedSeen;
      child.kill('SIGINT');
      const code = await new Promise<number | null>((res) => child.on('exit', (c) => res(c)));
      expect(code, stderr).toBe(130);
      expect(stderr).toMatch(/"summary"/);
      expect(stderr).not.toMatch(/aborted/);
      expect(await journalReadable(outDir)).toBe(0);
    } finally {
      await sb.control('faults', {});
      await p.close();
    }
  }, 60_000);

  it('a reader that closes early, whenever ship meets it: --results (every row) and the summary are still written, exit 141, no temp file left', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ship-epipe-end-'));
    // More lines than a pipe holds (~120 KB against 64 KB), so ship meets the closed pipe: mid-run or at its
    // last lines, depending on the machine's pace; either way the row files and the summary are written.
    const csv = csvFile(dir, 'PEND', 400);
    const results = join(dir, 'results.csv');
    const env = binEnv({ SHIP_BASE_URL: `${sb.url}/v1.2`, SHIP_API_KEY: sb.apiKey, SHIP_TOKEN: auth.SHIP_TOKEN });
    const args = ['create', '--csv', csv, '--output-dir', join(dir, 'labels'), '--json', '--results', results];
    const r = await execa('bash', ['-c', 'set -o pipefail; "$0" "$@" | head -n 3 > /dev/null', process.execPath, BIN, ...args], { env, extendEnv: false, reject: false, stdin: 'ignore' });
    expect(r.exitCode, String(r.stderr)).toBe(141);
    expect(String(r.stderr)).toMatch(/"summary"/);
    expect(readFileSync(results, 'utf8').trim().split('\n')).toHaveLength(401);
    expect(readdirSync(dir).filter((f) => f.includes('.tmp'))).toEqual([]);
  }, 60_000);

  it.skipIf(process.platform !== 'linux')('stdout on a full disk (/dev/full): one error line, exit 1, no stack trace; a bulk run stops cleanly and resumes', async () => {
    const env = binEnv({ SHIP_BASE_URL: `${sb.url}/v1.2`, SHIP_API_KEY: sb.apiKey, SHIP_TOKEN: auth.SHIP_TOKEN });
    const one = await execa('bash', ['-c', '"$0" "$@" > /dev/full', process.execPath, BIN, 'services', '--json'], { env, extendEnv: false, reject: false, stdin: 'ignore' });
    expect(one.exitCode).toBe(1);
    expect(JSON.parse(String(one.stderr).trim())).toEqual({ error: { message: expect.stringMatching(/^could not write to stdout: ENOSPC/), exit_code: 1, type: 'Error' } });
    const dir = mkdtempSync(join(tmpdir(), 'ship-devfull-'));
    const outDir = join(dir, 'labels');
    const csv = csvFile(dir, 'FULL', 40);
    const args = ['create', '--csv', csv, '--output-dir', outDir, '--json'];
    const bulk = await execa('bash', ['-c', '"$0" "$@" > /dev/full', process.execPath, BIN, ...args], { env, extendEnv: false, reject: false, stdin: 'ignore' });
    expect(bulk.exitCode, String(bulk.stderr)).toBe(1);
    expect(String(bulk.stderr)).not.toMatch(/at .*\.js:\d+/);
    expect(String(bulk.stderr)).toMatch(/stdout cannot be written \(ENOSPC/);
    expect(await journalReadable(outDir)).toBe(0);
    const r = await ship(args, { env });
    expect(r.exitCode, String(r.stderr)).toBe(0);
    expect(finalLines(r.stdout)).toHaveLength(40);
  }, 60_000);
});
