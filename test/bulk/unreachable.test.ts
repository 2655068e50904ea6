// A bulk run whose API cannot be reached (connection refused, unknown host) stops at the first task that
// fails so, instead of waiting out every task's retries: exit 1 with the network error, resumable.
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createContext } from '../../src/context.js';
import { NetworkError, ValidationError } from '../../src/errors.js';
import { runBulkCommand } from '../../src/bulk/command.js';
import { failedCsvPathFor } from '../../src/bulk/csv-out.js';
import { journalPathFor } from '../../src/bulk/journal.js';
import { runBulk, type BulkTask } from '../../src/bulk/runner.js';
import { bufferIO, runShip } from '../helpers/run.js';
import { freePort } from '../helpers/net.js';

const tmp = () => mkdtempSync(join(tmpdir(), 'ship-unreachable-'));
const never = new AbortController().signal;
const tasks = (n: number): BulkTask<number>[] => Array.from({ length: n }, (_, i) => ({ key: `K${i}`, rows: [i + 2], records: [[`K${i}`, String(i)]], input: i }));
const refused = () => new NetworkError('POST /shipments: the connection was refused (127.0.0.1:9)', 'refused', { method: 'POST', path: '/shipments' }, { hint: 'check the base URL' });

describe('runBulk: API unreachable', () => {
  it('starts nothing new after a task fails with a refused connection; other network errors do not stop it', async () => {
    const started = new Set<string>();
    const s = await runBulk(
      tasks(50),
      {
        async execute(t) {
          started.add(t.key);
          if (t.input === 3) throw new NetworkError('reset', 'reset');
          if (t.input >= 6) throw refused();
          return t.input;
        },
      },
      { concurrency: 1, signal: never, total: 50, retries: 2, sleep: async () => {} },
    );
    expect(s.unreachable).toBeInstanceOf(NetworkError);
    expect(started.size).toBe(7); // K0–K6: the reset of K3 did not stop the run, the refusal of K6 did
    expect(s.created).toBe(5);
    // K3's reset failed it; K6 never left, and its row is fine: counted apart, as a task refused for its credentials is.
    expect(s.failed).toBe(1);
    expect(s.rejected).toBe(1);
    expect(s.notStarted).toBe(43);
  });
});

describe('runBulk: unreachable while settling a request that did leave', () => {
  it('is a failure with its outcome unknown (the shipment may exist), not refused; the run still stops', async () => {
    let tries = 0;
    const s = await runBulk(
      tasks(10),
      {
        async execute(t) {
          // The first task's POST goes out and its connection drops: it may have been created.
          if (t.input === 0 && tries++ === 0) throw new NetworkError('reset', 'reset');
          return t.input;
        },
        // Asking the service whether it exists: the API is gone by then.
        async settle() {
          throw refused();
        },
      },
      { concurrency: 1, signal: never, total: 10, retries: 1, sleep: async () => {} },
    );
    expect(s.unreachable).toBeInstanceOf(NetworkError);
    expect(s.failed).toBe(1);
    expect(s.rejected).toBe(0);
  });
});

describe('runBulkCommand: API unreachable', () => {
  it('prints the summary, leaves the refused row out of FILE.failed.csv and throws the network error (exit 1)', async () => {
    const dir = tmp();
    const csv = join(dir, 'orders.csv');
    const io = bufferIO();
    const ctx = createContext({ io, env: { NO_COLOR: '1' } });
    ctx.globals = { json: true };
    const err = await runBulkCommand(ctx, {
      noun: 'shipments',
      tasks: tasks(20),
      total: 20,
      hooks: {
        async execute(t: BulkTask<number>) {
          if (t.input === 1) throw new ValidationError('The given data failed to pass validation.', { n: ['The n is bad.'] }, { status: 400 });
          if (t.input >= 2) throw refused();
          return { id: `id-${t.input}` };
        },
      },
      concurrency: 1,
      retries: 0,
      journalPath: journalPathFor(dir, csv),
      failedCsv: { path: failedCsvPathFor(csv), header: ['ref', 'n'] },
      jsonLine: (r) => ({ ref: r.task.key, status: r.status }),
    }).catch((e) => e);
    expect(err).toBeInstanceOf(NetworkError);
    expect(err.exitCode).toBe(1);
    expect(JSON.parse(io.err().trim().split('\n').pop()!).summary).toMatchObject({ total: 3, listed: 20, created: 1, failed: 1, refused: 1, stopped: 'unreachable', not_started: 17 });
    expect(readFileSync(failedCsvPathFor(csv), 'utf8')).toBe('ref,n,error\nK1,1,n: The n is bad.\n');
  });
});

describe('ship create --csv against a port nothing listens on', () => {
  it('stops after the first shipment instead of trying every row, exits 1 and says to check the base URL', async () => {
    const dir = tmp();
    const csv = join(dir, 'orders.csv');
    const rows = Array.from({ length: 60 }, (_, i) => `U-${i},RM_TRACKED_48,Ann,1 Road,Derby,DE1 1AA,GB,500`);
    writeFileSync(csv, ['shipment_reference,delivery_service_key,to_name,to_line_1,to_city,to_postcode,to_country,weight', ...rows].join('\n') + '\n');
    const port = await freePort();
    const started = Date.now();
    const r = await runShip(['create', '--csv', csv, '--yes', '--concurrency', '2', '-o', join(dir, 'labels')], {
      env: { SHIP_BASE_URL: `http://127.0.0.1:${port}/v1.2`, SHIP_API_KEY: 'k', SHIP_TOKEN: 't', SHIP_CONFIG_DIR: join(dir, 'cfg') },
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/Stopped because the API could not be reached/);
    expect(r.stderr).toMatch(/not started\s+5\d/);
    expect(r.stderr).toMatch(/check the base URL/);
    // Each task waits out its retries (about 2 s); 60 rows two at a time would take a minute.
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(existsSync(failedCsvPathFor(csv))).toBe(false);
  }, 30_000);
});
