import { createServer, type Server, type Socket } from 'node:net';
import { networkInterfaces } from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import { parseHostStatus, parsePrinterUrl, preflight, queryHostStatus, sendLabels, sendRaw, type PrinterTarget } from '../../src/printer/index.js';

const STX = '\x02';
const ETX = '\x03';
/** A ~HS answer with the given flags (Zebra layout: string 1 field 2 paper out, 3 pause; string 2 field 3 head up, 4 ribbon out, 5 TT mode). */
function hs(o: { paperOut?: boolean; pause?: boolean; headUp?: boolean; ribbonOut?: boolean; tt?: boolean } = {}) {
  const b = (x?: boolean) => (x ? '1' : '0');
  return (
    `${STX}030,${b(o.paperOut)},${b(o.pause)},1245,000,0,0,0,000,0,0,0${ETX}\r\n` +
    `${STX}001,0,${b(o.headUp)},${b(o.ribbonOut)},${b(o.tt)},2,4,0,00000000,1,000${ETX}\r\n` +
    `${STX}1234,0${ETX}\r\n`
  );
}

interface FakePrinter {
  target: PrinterTarget;
  /** Bytes of each connection, in connection order. */
  connections: Buffer[];
  server: Server;
}

/** A loopback "printer": records every byte; answers ~HS per `answer` (split into chunks to test reassembly). */
async function fakePrinter(answer: string | null = hs()): Promise<FakePrinter> {
  const connections: Buffer[] = [];
  const server = createServer((sock: Socket) => {
    const chunks: Buffer[] = [];
    const idx = connections.length;
    connections.push(Buffer.alloc(0));
    sock.on('data', (d) => {
      chunks.push(d);
      connections[idx] = Buffer.concat(chunks);
      if (answer !== null && d.toString('latin1').includes('~HS')) {
        // Several writes: the answer may arrive in pieces.
        const third = Math.ceil(answer.length / 3);
        sock.write(answer.slice(0, third));
        setTimeout(() => sock.write(answer.slice(third, 2 * third)), 5);
        setTimeout(() => sock.write(answer.slice(2 * third)), 10);
      }
    });
    sock.on('error', () => {});
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  return { target: { host: '127.0.0.1', port, url: `tcp://127.0.0.1:${port}` }, connections, server };
}

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});
async function printer(answer?: string | null) {
  const p = await fakePrinter(answer === undefined ? hs() : answer);
  servers.push(p.server);
  return p;
}
const until = async (cond: () => boolean, ms = 2000) => {
  const end = Date.now() + ms;
  while (!cond() && Date.now() < end) await new Promise((r) => setTimeout(r, 5));
};

describe('printer address', () => {
  it('parses tcp://HOST:PORT, IPv6 in brackets', () => {
    expect(parsePrinterUrl('tcp://10.0.0.50:9100')).toMatchObject({ host: '10.0.0.50', port: 9100, url: 'tcp://10.0.0.50:9100' });
    expect(parsePrinterUrl('TCP://zebra_dock3:9100/')).toMatchObject({ host: 'zebra_dock3', port: 9100 });
    expect(parsePrinterUrl('tcp://[::1]:9101')).toMatchObject({ host: '::1', port: 9101, url: 'tcp://[::1]:9101' });
  });

  it('takes an IPv6 link-local address with its zone, %eth0 or RFC 6874\'s %25eth0; the host keeps the zone, as net.connect takes it', () => {
    expect(parsePrinterUrl('tcp://[fe80::1%eth0]:9100')).toMatchObject({ host: 'fe80::1%eth0', port: 9100, url: 'tcp://[fe80::1%eth0]:9100' });
    expect(parsePrinterUrl('tcp://[fe80::1%25eth0]:9100')).toMatchObject({ host: 'fe80::1%eth0', port: 9100, url: 'tcp://[fe80::1%eth0]:9100' });
    expect(() => parsePrinterUrl('tcp://fe80::1%eth0:9100')).toThrow(/is not a printer address/);
  });

  // The contract's form is tcp://HOST:PORT, and `config set printers.NAME` always refused an address without a
  // port: --printer took one (as port 9100), so the same address worked in one place and not the other.
  it.each([
    ['tcp://zebra-dock3', /^--printer: "tcp:\/\/zebra-dock3" has no port$/, /usually 9100: tcp:\/\/zebra-dock3:9100/],
    ['tcp://10.0.0.50:0', /port 0 is not a TCP port \(1 to 65535\)/, /tcp:\/\/10\.0\.0\.50:9100/],
    ['tcp://x:99999', /port 99999 is not a TCP port/, /9100/],
    ['tcp://x:0000009100', /port 0000009100 is not a TCP port/, /9100/],
    ['http://x:9100', /is not a printer address/, /tcp:\/\/HOST:PORT/],
  ])('refuses %s, saying why', (raw, message, hint) => {
    const err = (() => {
      try {
        parsePrinterUrl(raw);
      } catch (e) {
        return e as { message: string; hint?: string; exitCode: number };
      }
    })();
    expect(err?.message).toMatch(message);
    expect(err?.hint).toMatch(hint);
    expect(err?.exitCode).toBe(2);
  });
});

describe('~HS host status', () => {
  it('parses the flags of the three-string answer', () => {
    expect(parseHostStatus(hs())).toMatchObject({ paperOut: false, paused: false, headOpen: false, ribbonOut: false });
    expect(parseHostStatus(hs({ paperOut: true }))).toMatchObject({ paperOut: true, paused: false });
    expect(parseHostStatus(hs({ pause: true }))).toMatchObject({ paused: true });
    expect(parseHostStatus(hs({ headUp: true }))).toMatchObject({ headOpen: true });
    expect(parseHostStatus(hs({ ribbonOut: true, tt: true }))).toMatchObject({ ribbonOut: true, thermalTransfer: true });
    expect(() => parseHostStatus('garbage')).toThrow(/could not be read/);
  });

  it('refuses an answer it cannot read instead of taking missing or odd flags for "ready" (ZPL manual: 12 and 11 fields, flags 0 or 1)', () => {
    const ready = hs().split('\r\n');
    const answer = (s1: string, s2: string) => `${STX}${s1}${ETX}\r\n${STX}${s2}${ETX}\r\n${ready[2]}\r\n`;
    // Too few fields: the ribbon, thermal-transfer and temperature flags are not there to read.
    expect(() => parseHostStatus(answer('abc,x,y', 'a,b,c,d'))).toThrow(/too few fields/);
    expect(() => parseHostStatus(answer('030,0,0,1245,000,0,0,0,000,0,0,0', '001,0,0,1'))).toThrow(/too few fields/);
    // Flags other than 0 and 1 ("Y" for paper out, "2" for head up).
    expect(() => parseHostStatus(answer('030,Y,N,1245,000,0,0,0,000,0,0,0', '001,0,0,0,0,2,4,0,00000000,1,000'))).toThrow(/flags that are not 0 or 1/);
    expect(() => parseHostStatus(answer('030,0,0,1245,000,0,0,0,000,0,0,0', '001,0,2,0,0,2,4,0,00000000,1,000'))).toThrow(/flags that are not 0 or 1/);
    // The whole documented answer, print mode and width fields whatever they hold, is read.
    expect(parseHostStatus(answer('030,0,0,1245,000,0,0,0,000,0,0,1', '001,0,0,0,0,5,4,0,00000012,1,000'))).toMatchObject({ overTemperature: true, labelsRemaining: 12 });
  });

  it('preflight passes a ready printer (answer reassembled from several chunks)', async () => {
    const p = await printer(hs());
    const st = await preflight(p.target, { timeoutMs: 2000 });
    expect(st.paperOut).toBe(false);
    expect(p.connections[0].toString('latin1')).toContain('~HS');
  });

  it.each([
    [{ paperOut: true }, /paper \(labels\) out/],
    [{ headUp: true }, /print head open/],
    [{ pause: true }, /paused/],
    [{ ribbonOut: true, tt: true }, /ribbon out/],
  ])('preflight refuses %j', async (flags, msg) => {
    const p = await printer(hs(flags));
    await expect(preflight(p.target, { timeoutMs: 2000 })).rejects.toThrow(msg);
  });

  it('ribbon out does not matter in direct-thermal mode', async () => {
    const p = await printer(hs({ ribbonOut: true, tt: false }));
    await expect(preflight(p.target, { timeoutMs: 2000 })).resolves.toBeTruthy();
  });

  it('a printer that does not answer ~HS in time: clear error, checking the printer first, --no-preflight only then', async () => {
    const p = await printer(null);
    const err = await queryHostStatus(p.target, { timeoutMs: 200 }).catch((e) => e);
    expect(err.message).toMatch(/did not answer the status request \(~HS\) within 0.2s/);
    // A Zebra printer is silent to ~HS when out of paper or ribbon, head open or over temperature (ZPL manual).
    expect(err.hint).toMatch(/out of paper or ribbon, with its head open/);
    expect(err.hint).toMatch(/check the printer; only if it is ready .*--no-preflight/);
    expect(err.exitCode).toBe(1);
  });

  it('a printer that sends part of the ~HS answer and then nothing: says what came, not "did not answer"', async () => {
    const p = await printer(hs().split('\r\n').slice(0, 2).join('\r\n') + '\r\n');
    const err = await queryHostStatus({ ...p.target, name: 'dock3' }, { timeoutMs: 300 }).catch((e) => e);
    expect(err.message).toMatch(/^printer dock3 sent only part of its status answer \(~HS\) within 0\.3s \("\\u0002030,/);
    expect(err.hint).toMatch(/--no-preflight/);
    expect(err.exitCode).toBe(1);
  });

  it('a printer that closes at once, or answers something else than ~HS: an error naming it, with a next step', async () => {
    const open: Socket[] = [];
    const closing = createServer((sock) => {
      open.push(sock.on('error', () => {}));
      sock.end();
    });
    const odd = createServer((sock) => {
      open.push(sock.on('error', () => {}));
      sock.on('data', () => sock.end('OK\r\n'));
    });
    servers.push(closing, odd);
    const targets = await Promise.all(
      [closing, odd].map(async (srv) => {
        await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
        const port = (srv.address() as { port: number }).port;
        return { host: '127.0.0.1', port, url: `tcp://127.0.0.1:${port}` } as PrinterTarget;
      }),
    );
    const closed = await queryHostStatus(targets[0], { timeoutMs: 2000 }).catch((e) => e);
    expect(closed.message).toBe(`printer ${targets[0].url} closed the connection without answering the status request (~HS)`);
    expect(closed.hint).toMatch(/busy with another connection or in an error state/);
    expect(closed.exitCode).toBe(1);
    const other = await queryHostStatus({ ...targets[1], name: 'dock3' }, { timeoutMs: 2000 }).catch((e) => e);
    expect(other.message).toMatch(/^printer dock3: the printer's status answer could not be read \("OK\\r\\n"\)$/);
    expect(other.hint).toMatch(/raw port .* ZPL label printer\? --no-preflight/);
    for (const sock of open) sock.destroy();
  });

  it('says what it waits for (the CLI shows it as a spinner), and the wait ends whether the printer answered or not', async () => {
    const log: string[] = [];
    const onWait = (text: string) => {
      log.push(`begin ${text}`);
      return () => log.push('end');
    };
    const p = await printer(hs());
    await preflight({ ...p.target, onWait }, { timeoutMs: 2000 });
    await sendRaw({ ...p.target, onWait }, Buffer.from('^XA^XZ'), { timeoutMs: 2000 });
    const silent = await printer(null);
    await preflight({ ...silent.target, onWait }, { timeoutMs: 200 }).catch(() => undefined);
    expect(log).toEqual([
      `begin Asking printer ${p.target.url} for its status…`,
      'end',
      `begin Sending to printer ${p.target.url}…`,
      'end',
      `begin Asking printer ${silent.target.url} for its status…`,
      'end',
    ]);
  });

  it('an unreachable printer: clear error with a hint', async () => {
    const p = await printer();
    const target = p.target;
    await new Promise((r) => p.server.close(r));
    servers.length = 0;
    const err = await preflight(target, { timeoutMs: 1000 }).catch((e) => e);
    expect(err.message).toMatch(/refused the connection/);
    expect(err.hint).toMatch(/9100/);
    const err2 = await sendRaw(target, Buffer.from('^XA^XZ'), { timeoutMs: 1000 }).catch((e) => e);
    expect(err2.message).toMatch(/refused the connection/);
  });
});

describe('raw sending', () => {
  it('a printer that takes the connection but not the label (closes at once) is an error, not "sent"', async () => {
    const server = createServer((sock) => sock.destroy());
    servers.push(server);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as { port: number }).port;
    const target = { host: '127.0.0.1', port, url: `tcp://127.0.0.1:${port}` };
    for (let i = 0; i < 5; i++) {
      const err = await sendRaw(target, Buffer.from('^XA^FDx^FS^XZ'), { timeoutMs: 2000 }).catch((e: Error) => e);
      expect(err, `attempt ${i}`).toBeInstanceOf(Error);
      expect((err as Error).message).toMatch(/^printer tcp:\/\/127\.0\.0\.1:\d+ (closed the connection before taking the label|reset the connection before taking the whole label)$/);
    }
  });

  it('a printer that answers something and closes at once is an error too (its close is noticed)', async () => {
    const server = createServer((sock) => {
      sock.on('error', () => {});
      sock.resume();
      sock.end('BUSY\r\n');
    });
    servers.push(server);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as { port: number }).port;
    const err = await sendRaw({ host: '127.0.0.1', port, url: `tcp://127.0.0.1:${port}` }, Buffer.from('^XA^FDx^FS^XZ'), { timeoutMs: 2000 }).catch((e: Error) => e);
    expect((err as Error)?.message).toMatch(/closed the connection before taking the label|reset the connection/);
  });

  it('a printer that stops reading: the error says how far it got (part of the label may have printed)', async () => {
    const held: Socket[] = [];
    const server = createServer((sock) => {
      sock.pause();
      held.push(sock);
    });
    servers.push(server);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as { port: number }).port;
    try {
      const err = await sendRaw({ host: '127.0.0.1', port, url: `tcp://127.0.0.1:${port}` }, Buffer.alloc(64 * 1024 * 1024, 0x41), { timeoutMs: 500 }).catch((e: Error) => e);
      expect((err as Error).message).toMatch(/stopped taking data after \d+ of 67108864 bytes .*part of the label may have printed/);
    } finally {
      for (const h of held) h.destroy();
    }
  });

  it('a printer that keeps the connection open after the job still counts as sent (bytes all taken)', async () => {
    let got = 0;
    const held: Socket[] = [];
    const server = createServer({ allowHalfOpen: true }, (sock) => {
      held.push(sock);
      sock.on('data', (d) => (got += d.length));
    });
    servers.push(server);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as { port: number }).port;
    try {
      await sendRaw({ host: '127.0.0.1', port, url: `tcp://127.0.0.1:${port}` }, Buffer.from('^XA^FDkept open^FS^XZ'), { timeoutMs: 5000 });
      expect(got).toBe('^XA^FDkept open^FS^XZ'.length);
    } finally {
      for (const h of held) h.destroy();
    }
  });

  it('an address with a zone reaches the printer: tcp://[::1%LOOPBACK]:PORT (IPv6 loopback only)', async (t) => {
    // The loopback interface's own name (lo, lo0), so the zone is one the system knows.
    const lo = Object.entries(networkInterfaces()).find(([, addrs]) => addrs?.some((a) => a.internal && a.family === 'IPv6' && a.address === '::1'))?.[0];
    if (!lo) return t.skip();
    const got: Buffer[] = [];
    const server = createServer((sock) => {
      sock.on('error', () => {});
      sock.on('data', (d) => got.push(d));
      sock.on('end', () => sock.end());
    });
    const listening = await new Promise<boolean>((r) => {
      server.once('error', () => r(false));
      server.listen(0, '::1', () => r(true));
    });
    if (!listening) return t.skip();
    servers.push(server);
    const port = (server.address() as { port: number }).port;
    for (const zone of [lo, `25${lo}`]) {
      got.length = 0;
      const target = parsePrinterUrl(`tcp://[::1%${zone}]:${port}`);
      expect(target.host).toBe(`::1%${lo}`);
      await sendRaw(target, Buffer.from('^XA^FDzone^FS^XZ'), { timeoutMs: 2000 });
      expect(Buffer.concat(got).toString(), zone).toBe('^XA^FDzone^FS^XZ');
    }
  });

  it('an aborted signal (Ctrl-C) lets the label under way finish and starts none after it', async () => {
    const p = await printer(null);
    const abort = new AbortController();
    const sentOrder: number[] = [];
    const labels = ['^XA^FD1^FS^XZ', '^XA^FD2^FS^XZ', '^XA^FD3^FS^XZ'].map((t) => Buffer.from(t));
    const err = await sendLabels(p.target, labels, {
      timeoutMs: 2000,
      signal: abort.signal,
      onSent: (i) => {
        sentOrder.push(i);
        if (i === 0) abort.abort();
      },
    }).catch((e: unknown) => e);
    expect(err).toMatchObject({ name: 'Interrupted', exitCode: 130 });
    expect(sentOrder).toEqual([0]);
    await until(() => p.connections.length >= 1 && p.connections[0].length === labels[0].length);
    await new Promise((r) => setTimeout(r, 50));
    expect(p.connections.map((c) => c.toString())).toEqual(['^XA^FD1^FS^XZ']);
  });

  it('sends labels byte for byte and in order (real ZPL with set-up commands, graphics, placeholders, binary)', async () => {
    const p = await printer(null);
    const labels = [
      Buffer.from('CT~~CD,~CC^~CT~\n^XA~TA000~JSN^LT0^MNW^MTD^PON^PMN^LH0,0^JMA^PR4,4~SD15^JUS^LRN^CI0^XZ\n^XA^FO10,10^FD%COMPANY_NAME%^FS^XZ\n', 'utf8'),
      Buffer.from('^XA^FO20,20^GFA,8,8,2,FFFF0000FFFF0000^FS^FDÆøå €^FS^XZ', 'utf8'),
      Buffer.from(Array.from({ length: 300_000 }, (_, i) => i % 256)), // large, every byte value
    ];
    const sentOrder: number[] = [];
    const n = await sendLabels(p.target, labels, { timeoutMs: 2000, onSent: (i) => sentOrder.push(i) });
    expect(n).toBe(3);
    expect(sentOrder).toEqual([0, 1, 2]);
    await until(() => p.connections.length === 3 && p.connections[2].length === labels[2].length);
    expect(p.connections).toHaveLength(3);
    for (let i = 0; i < 3; i++) expect(p.connections[i].equals(labels[i])).toBe(true);
  });
});
