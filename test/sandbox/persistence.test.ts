// Conformance of persistence (issue: "--state FILE keeps the state across restarts, written atomically, so a kill
// never leaves a corrupt file").
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startSandbox } from '../../src/sandbox/server.js';
import { startTestSandbox } from '../helpers/sandbox.js';
import { client, shipment } from './client.js';

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
