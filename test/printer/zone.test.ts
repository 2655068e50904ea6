import { mkdtempSync } from 'node:fs';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { PrinterError, queryHostStatus, sendRaw, type PrinterTarget } from '../../src/printer/index.js';
import { zoneHint, zoneOf, zoneProblem } from '../../src/printer/zone.js';
import { zonedConnects } from '../helpers/zoned-net.js';
import { runShip } from '../helpers/run.js';

// connect to a zoned host fails with EINVAL without touching the network (test/helpers/zoned-net.ts).
vi.mock('node:net', async (orig) => (await import('../helpers/zoned-net.js')).zonedNet(orig));

const interfaces = { lo: [{ internal: true }], eth0: [{ internal: false }] };
/** The loopback interface's own name (lo, lo0): a zone this machine has. */
const loopback = Object.entries(networkInterfaces()).find(([, addrs]) => addrs?.some((a) => a.internal))?.[0] ?? 'lo';
const target = (host: string, name?: string): PrinterTarget => ({ host, port: 9100, url: `tcp://[${host}]:9100`, name });

describe('zoneProblem: the zone of a link-local address against this machine\'s interfaces', () => {
  it('no zone, or a zone naming an interface of the machine: nothing to say', () => {
    expect(zoneProblem('fe80::1', interfaces, 'linux')).toBeUndefined();
    expect(zoneProblem('10.0.0.50', interfaces, 'linux')).toBeUndefined();
    expect(zoneProblem('fe80::1%eth0', interfaces, 'linux')).toBeUndefined();
    expect(zoneProblem('fe80::1%lo', interfaces, 'darwin')).toBeUndefined();
    // This machine's own interfaces, as the commands read them.
    expect(zoneProblem(`fe80::1%${loopback}`)).toBeUndefined();
    expect(zoneProblem(`::1%${loopback}`)).toBeUndefined();
  });

  it('a zone naming no interface: said so, with the interfaces there are', () => {
    expect(zoneProblem('fe80::1%nosuchif', interfaces, 'linux')).toBe(
      'the zone "%nosuchif" names a network interface this machine does not have (or that is down); this machine\'s interfaces: lo, eth0',
    );
    expect(zoneProblem('fe80::1%nosuchif')).toContain(`this machine's interfaces: ${Object.keys(networkInterfaces()).slice(0, 8).join(', ')}`);
  });

  it('a numeric zone: refused where the system reads zones as names (libuv: if_nametoindex), left to connect on Windows (an index)', () => {
    expect(zoneProblem('fe80::1%2', interfaces, 'linux')).toBe(
      'the zone "%2" is a number, and on this system a zone names the network interface (as %eth0 does), not its index; this machine\'s interfaces: lo, eth0',
    );
    expect(zoneProblem('fe80::1%2', interfaces, 'darwin')).toMatch(/is a number/);
    expect(zoneProblem('fe80::1%12', interfaces, 'win32')).toBeUndefined();
    // An interface named by digits is a name all the same.
    expect(zoneProblem('fe80::1%2', { ...interfaces, 2: [{ internal: false }] }, 'linux')).toBeUndefined();
    // Own names only: an object's inherited keys are no interfaces.
    expect(zoneProblem('fe80::1%toString', interfaces, 'linux')).toMatch(/does not have/);
  });

  it('many interfaces: the first eight, and how many in all', () => {
    const many = Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`veth${i}`, [{ internal: false }]]));
    expect(zoneProblem('fe80::1%eth0', many, 'linux')).toMatch(/interfaces: veth0, veth1, veth2, veth3, veth4, veth5, veth6, veth7, … \(12 in all\)$/);
    expect(zoneProblem('fe80::1%eth0', {}, 'linux')).toMatch(/this machine has no network interface up$/);
  });

  it('zoneOf: the zone of an IPv6 host only', () => {
    expect(zoneOf('fe80::1%eth0.100')).toBe('eth0.100');
    expect(zoneOf('fe80::1')).toBeUndefined();
    expect(zoneOf('printer')).toBeUndefined();
  });
});

describe('zoneHint', () => {
  it('the same address through an interface that is not loopback; for a profile printer, the config set that fixes it', () => {
    expect(zoneHint('fe80::1%nosuchif', 9100, undefined, interfaces, 'linux')).toBe('name the interface the printer is on (ip -6 addr lists them), e.g. tcp://[fe80::1%eth0]:9100');
    expect(zoneHint('fe80::a:b%x', 9101, 'dock3', interfaces, 'darwin')).toBe(
      'name the interface the printer is on (ifconfig lists them), e.g. ship config set printers.dock3 tcp://[fe80::a:b%eth0]:9101',
    );
    expect(zoneHint('fe80::1%eth0', 9100, undefined, interfaces, 'win32')).toMatch(/index of the interface .* e\.g\. tcp:\/\/\[fe80::1%12\]:9100$/);
  });
});

describe('a printer address whose zone this machine lacks (exit 1, as an unreachable printer), before any connection', () => {
  const env = () => ({ SHIP_CONFIG_DIR: mkdtempSync(join(tmpdir(), 'ship-zone-')) });

  it('ship label / print --printer tcp://[fe80::1%nosuchif]:9100 (no credentials needed to say so)', async () => {
    zonedConnects.length = 0;
    for (const args of [
      ['label', 'ANY-PARCEL', '--printer', 'tcp://[fe80::1%nosuchif]:9100'],
      ['label', 'ANY-PARCEL', '--printer', 'tcp://[fe80::1%nosuchif]:9100', '--no-preflight'],
      ['print', 'ANY-SHIPMENT', '--printer', 'tcp://[fe80::1%25nosuchif]:9100'],
    ]) {
      const r = await runShip(args, { env: env() });
      expect(r.code, r.stderr).toBe(1);
      expect(r.stderr).toContain('printer tcp://[fe80::1%nosuchif]:9100: the zone "%nosuchif" names a network interface this machine does not have (or that is down)');
      expect(r.stderr).toContain(`this machine's interfaces: ${Object.keys(networkInterfaces())[0]}`);
      expect(r.stderr).toMatch(/hint: name the interface the printer is on .* e\.g\. tcp:\/\/\[fe80::1%[^\]]+\]:9100/);
    }
    expect(zonedConnects).toEqual([]);
  });

  it('a profile printer (config set printers.dock3 …%25nosuchif…): named, and the hint is the config set that fixes it', async () => {
    const e = env();
    expect((await runShip(['config', 'set', 'printers.dock3', 'tcp://[fe80::1%25nosuchif]:9100'], { env: e })).code).toBe(0);
    const r = await runShip(['label', 'ANY-PARCEL', '--printer', 'dock3', '--json'], { env: e });
    expect(r.code, r.stderr).toBe(1);
    const { error } = JSON.parse(r.stderr);
    expect(error).toMatchObject({ exit_code: 1, type: 'PrinterError' });
    expect(error.message).toMatch(/^printer dock3 \(tcp:\/\/\[fe80::1%nosuchif\]:9100\): the zone "%nosuchif" names a network interface this machine does not have/);
    expect(error.hint).toMatch(/e\.g\. ship config set printers\.dock3 tcp:\/\/\[fe80::1%[^\]]+\]:9100$/);
  });

  it('a zone this machine has passes the check: the status question is asked (connect refused here, by the fake above)', async () => {
    zonedConnects.length = 0;
    // Credentials and a loopback API only so that `label` gets as far as the printer; no request is sent before it.
    const api = { SHIP_API_KEY: 'key', SHIP_TOKEN: 'token', SHIP_BASE_URL: 'http://127.0.0.1:9' };
    const r = await runShip(['label', 'ANY-PARCEL', '--printer', `tcp://[fe80::1%${loopback}]:9100`], { env: { ...env(), ...api } });
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toContain(`the system refused the network interface its zone "%${loopback}" names (EINVAL)`);
    expect(zonedConnects).toEqual([`fe80::1%${loopback}`]);
  });
});

describe('connect refusing a zone (EINVAL) says the zone is what is wrong', () => {
  it('the status question and a send, for a zone the machine lacks and for one it has but the system refused', async () => {
    for (const send of [(t: PrinterTarget) => queryHostStatus(t, { timeoutMs: 2000 }), (t: PrinterTarget) => sendRaw(t, Buffer.from('^XA^XZ'), { timeoutMs: 2000 })]) {
      const lacking = await send(target('fe80::1%nosuchif', 'dock3')).catch((e: unknown) => e);
      expect(lacking).toBeInstanceOf(PrinterError);
      expect(lacking).toMatchObject({ exitCode: 1, message: expect.stringMatching(/^printer dock3 \(tcp:\/\/\[fe80::1%nosuchif\]:9100\): the zone "%nosuchif" names a network interface/) });
      expect((lacking as PrinterError).hint).toMatch(/ship config set printers\.dock3 /);
      expect((lacking as Error).cause).toMatchObject({ code: 'EINVAL' });

      const refused = await send(target(`fe80::1%${loopback}`)).catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(PrinterError);
      expect((refused as Error).message).toBe(
        `printer tcp://[fe80::1%${loopback}]:9100: the system refused the network interface its zone "%${loopback}" names (EINVAL); this machine's interfaces: ${Object.keys(networkInterfaces()).slice(0, 8).join(', ')}`,
      );
    }
  });
});
