// Conformance of persistence (issue: "--state FILE keeps the state across restarts, written atomically, so a kill
// never leaves a corrupt file").
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startSandbox } from '../../src/sandbox/server.js';
import { startTestSandbox } from '../helpers/sandbox.js';
import { client, shipment, waitFor } from './client.js';

const dir = () => mkdtempSync(join(tmpdir(), 'sb-state-'));

describe('--state FILE', () => {
  it('a restart with the same state file keeps shipments, tokens, SKUs, containers and webhook subscriptions', async () => {
    const file = join(dir(), 'state.json');
    const a = await startTestSandbox({ stateFile: file });
    const token = await a.login();
    const api = client(a, token);
    const d = (await api.post('/shipments', shipment('KEEP-1'))).body.data[0];
    await api.post('/skus', { sku: 'KEEP-SKU' });
    await api.post('/containers', { reference: 'KEEP-BOX', delivery_service_key: 'DPD_CONSOLIDATED_EU', clearance_country: 'FR', clearance_location: 'CDG' });
    await a.control('tracking/advance', { shipment_reference: 'KEEP-1' });
    await a.control('webhooks', { url: 'http://127.0.0.1:9/never', events: ['SHIPMENT_CANCELLED'] });
    await a.close();
    expect(existsSync(file)).toBe(true);

    const b = await startTestSandbox({ stateFile: file });
    try {
      const api2 = client(b, token);
      const ev = await api2.get('/shipments/KEEP-1/events');
      expect(ev.status).toBe(200);
      expect(ev.body.data[d.tracking_reference].tracking_events.map((e: any) => e.type)).toEqual(['LABEL_CREATED', 'MANIFESTED']);
      expect((await api2.get('/skus/KEEP-SKU')).status).toBe(200);
      expect((await api2.get('/containers/KEEP-BOX')).status).toBe(200);
      expect((await api2.post('/shipments', shipment('KEEP-1'))).body.data.shipment_reference).toEqual(['The shipment reference has already been taken.']);
      // tracking references keep counting from where they were
      const next = (await api2.post('/shipments', shipment('KEEP-2'))).body.data[0];
      expect(next.tracking_reference).not.toBe(d.tracking_reference);
      expect((await b.control('GET webhooks')).data).toHaveLength(1);
    } finally {
      await b.close();
    }
  });

  it('tokens do not grow the file without bound: a file saved with more than 100 of one user keeps the newest 100', async () => {
    const file = join(dir(), 'state.json');
    const a = await startTestSandbox({ stateFile: file });
    const first = await a.login();
    await a.close();
    const saved = JSON.parse(readFileSync(file, 'utf8'));
    const user = saved.tokens[0].user_id;
    // As an older sandbox (no cap) would have saved them: oldest first.
    saved.tokens = [saved.tokens[0], ...Array.from({ length: 149 }, (_, i) => ({ token: `t${String(i).padStart(31, '0')}`, user_id: user, created_at: saved.tokens[0].created_at }))];
    writeFileSync(file, JSON.stringify(saved));
    const b = await startTestSandbox({ stateFile: file });
    try {
      const status = (token: string) => client(b, token).get('/tokens').then((r) => r.status);
      expect(await status(first)).toBe(401);
      expect(await status(`t${String(48).padStart(31, '0')}`)).toBe(401);
      expect(await status(`t${String(49).padStart(31, '0')}`)).toBe(200);
      await b.login();
    } finally {
      await b.close();
    }
    expect(JSON.parse(readFileSync(file, 'utf8')).tokens).toHaveLength(100);
  });

  it('changes are saved shortly after they happen, without waiting for close (a kill keeps them)', async () => {
    const file = join(dir(), 'state.json');
    const a = await startTestSandbox({ stateFile: file });
    try {
      const api = client(a, await a.login());
      await api.post('/shipments', shipment('SOON-1'));
      const deadline = Date.now() + 3000;
      let saved = false;
      while (!saved && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 25));
        saved = existsSync(file) && readFileSync(file, 'utf8').includes('SOON-1');
      }
      expect(saved).toBe(true);
      JSON.parse(readFileSync(file, 'utf8'));
    } finally {
      await a.close();
    }
  });

  it('a truncated temp file left by a kill mid-write never replaces the state, and is cleaned up', async () => {
    const d = dir();
    const file = join(d, 'state.json');
    const a = await startTestSandbox({ stateFile: file });
    const api = client(a, await a.login());
    await api.post('/shipments', shipment('SAFE-1'));
    await a.close();
    const good = readFileSync(file, 'utf8');
    // What a kill between write and rename leaves behind: a half-written temp file next to the state.
    const tmp = join(d, `.state.json.99999.1.tmp`);
    writeFileSync(tmp, good.slice(0, Math.floor(good.length / 2)));

    const b = await startTestSandbox({ stateFile: file });
    try {
      const api2 = client(b, await b.login());
      expect((await api2.get('/shipments/SAFE-1/events')).status).toBe(200);
      expect(readdirSync(d).filter((n) => n.endsWith('.tmp'))).toEqual([]);
    } finally {
      await b.close();
    }
  });

  it('a corrupt state file stops the start with a clear error (it is never silently replaced)', async () => {
    const file = join(dir(), 'state.json');
    writeFileSync(file, '{"version":1,"shipm');
    await expect(startSandbox({ port: 0, stateFile: file, log: () => {} })).rejects.toThrow(/not valid JSON/);
    expect(readFileSync(file, 'utf8')).toBe('{"version":1,"shipm');
  });

  it('a second sandbox on the same state file is refused while the first runs (it would overwrite its saves and reuse its references)', async () => {
    const file = join(dir(), 'state.json');
    const a = await startTestSandbox({ stateFile: file });
    try {
      await expect(startSandbox({ port: 0, stateFile: file, log: () => {} })).rejects.toThrow(/in use by another sandbox \(pid \d+\)/);
      // The refused one took nothing away: the first still saves.
      const api = client(a, await a.login());
      await api.post('/shipments', shipment('FIRST-1'));
      await waitFor(() => readFileSync(file, 'utf8').includes('FIRST-1'), 3000);
    } finally {
      await a.close();
    }
    expect(existsSync(`${file}.lock`)).toBe(false);
    // Once the first has stopped, the file is free again.
    const b = await startTestSandbox({ stateFile: file });
    await b.close();
  });

  it('a lock left by a sandbox that was killed is taken over, with a line in the log', async () => {
    const file = join(dir(), 'state.json');
    // A pid that cannot be running: above the kernel's pid_max.
    writeFileSync(`${file}.lock`, JSON.stringify({ pid: 99999999, hostname: hostname(), started_at: 'earlier' }));
    const log: string[] = [];
    const a = await startTestSandbox({ stateFile: file, log: (l) => log.push(l) });
    // The lock says whose it is (the journal's lock file: pid, host, start time).
    expect(JSON.parse(readFileSync(`${file}.lock`, 'utf8'))).toMatchObject({ pid: process.pid, hostname: hostname() });
    await a.close();
    expect(existsSync(`${file}.lock`)).toBe(false);
    expect(log).toContain(`sandbox: took over the lock of state file ${file} from process 99999999, which is no longer running`);
  });

  it('a bare-pid lock (as earlier versions wrote): taken over when its sandbox is gone, refused while it runs', async () => {
    const file = join(dir(), 'state.json');
    writeFileSync(`${file}.lock`, '99999999\n');
    const a = await startTestSandbox({ stateFile: file });
    await a.close();
    expect(existsSync(`${file}.lock`)).toBe(false);
    const other = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30000)'], { stdio: 'ignore' });
    try {
      writeFileSync(`${file}.lock`, `${other.pid}\n`);
      await expect(startSandbox({ port: 0, stateFile: file, log: () => {} })).rejects.toThrow(`state file ${file} is in use by another sandbox (pid ${other.pid}); stop it or pass another --state file`);
      expect(readFileSync(`${file}.lock`, 'utf8')).toBe(`${other.pid}\n`);
    } finally {
      other.kill('SIGKILL');
    }
  });

  it('a lock held on another host is refused, saying where', async () => {
    const file = join(dir(), 'state.json');
    writeFileSync(`${file}.lock`, JSON.stringify({ pid: 4242, hostname: 'build-7', started_at: 'earlier' }));
    await expect(startSandbox({ port: 0, stateFile: file, log: () => {} })).rejects.toThrow(/in use by another sandbox \(pid 4242 on build-7\); .*delete .*state\.json\.lock/);
  });

  it('a sandbox that fails to start (port in use) leaves no lock behind', async () => {
    const file = join(dir(), 'state.json');
    const a = await startTestSandbox();
    try {
      await expect(startSandbox({ port: a.port, stateFile: file, log: () => {} })).rejects.toThrow(/already in use/);
      expect(existsSync(`${file}.lock`)).toBe(false);
    } finally {
      await a.close();
    }
  });

  it('an empty state file (a fresh mktemp) starts from the seeded state and is then saved', async () => {
    const file = join(dir(), 'state.json');
    writeFileSync(file, '');
    const a = await startTestSandbox({ stateFile: file });
    try {
      const api = client(a, await a.login());
      expect((await api.get('/brands')).status).toBe(200);
      expect(JSON.parse(readFileSync(file, 'utf8')).version).toBe(1);
    } finally {
      await a.close();
    }
  });

  it('a JSON file that is not a sandbox state file is refused with a clear error, untouched', async () => {
    const file = join(dir(), 'state.json');
    writeFileSync(file, '{"version":1,"shipments":[]}');
    await expect(startSandbox({ port: 0, stateFile: file, log: () => {} })).rejects.toThrow(/not a sandbox state file \(no users, locations/);
    expect(readFileSync(file, 'utf8')).toBe('{"version":1,"shipments":[]}');
    expect(existsSync(`${file}.lock`)).toBe(false);
  });

  it.skipIf(process.platform === 'win32' || process.getuid?.() === 0)('a state file that cannot be written stops the start (changes would be lost)', async () => {
    const d = dir();
    const ro = join(d, 'ro');
    mkdirSync(ro);
    writeFileSync(join(ro, 'state.json'), '');
    chmodSync(ro, 0o555);
    try {
      await expect(startSandbox({ port: 0, stateFile: join(ro, 'state.json'), log: () => {} })).rejects.toThrow(/cannot (write|lock) state file/);
    } finally {
      chmodSync(ro, 0o755);
    }
  });

  it.skipIf(process.platform !== 'linux')('a state file in a directory that cannot be created stops the start', async () => {
    await expect(startSandbox({ port: 0, stateFile: '/proc/no-such-dir/state.json', log: () => {} })).rejects.toThrow(/state file/);
  });

  it('an automatic pause of a webhook subscription (handler unreachable) is saved', async () => {
    const file = join(dir(), 'state.json');
    const a = await startTestSandbox({ stateFile: file, webhooks: { baseDelayMs: 1, timeoutMs: 500, pauseAfterUnreachable: 2 } });
    try {
      const api = client(a, await a.login());
      await a.control('webhooks', { url: 'http://127.0.0.1:9/down', retries: 1, events: ['SHIPMENT_CREATED'] });
      await api.post('/shipments', shipment('PAUSE-1'));
      await waitFor(async () => (await a.control('GET webhooks')).data[0].status === 'paused');
      await waitFor(() => JSON.parse(readFileSync(file, 'utf8')).webhooks[0]?.status === 'paused', 3000);
    } finally {
      await a.close();
    }
  });

  it('without --state nothing is written and state is in memory only', async () => {
    const a = await startTestSandbox();
    const api = client(a, await a.login());
    await api.post('/shipments', shipment('MEM-1'));
    await a.close();
    const b = await startTestSandbox();
    try {
      const api2 = client(b, await b.login());
      expect((await api2.get('/shipments/MEM-1/events')).status).toBe(404);
    } finally {
      await b.close();
    }
  });
});

describe('StateFile saves', () => {
  it('a state that takes long to serialise is saved less often (serialising blocks every request)', async () => {
    const { StateFile } = await import('../../src/sandbox/persistence.js');
    let snapshots = 0;
    const sf = new StateFile(join(dir(), 'state.json'), () => {
      snapshots++;
      const until = performance.now() + 50;
      while (performance.now() < until) {
        // a big state: 50 ms of JSON.stringify
      }
      return { version: 1, shipments: [] } as never;
    }, () => {});
    const end = Date.now() + 1200;
    while (Date.now() < end) {
      sf.schedule();
      await new Promise((r) => setTimeout(r, 10));
    }
    await sf.flush();
    // Every 100 ms plus 50 ms of work would be 8 saves or more; spaced by 10 x 50 ms it is at most 4.
    expect(snapshots).toBeLessThanOrEqual(4);
  });
});
