// A loopback raw (port 9100 style) ZPL printer for end-to-end tests: answers the ~HS host-status query, records
// each label connection's bytes, and takes its time to "print" each one.
import { createServer, type Server, type Socket } from 'node:net';

/** A ~HS answer: two strings of the ZPL manual's layout, then the third. */
export const hs = (s1: string, s2: string) => `\x02${s1}\x03\r\n\x02${s2}\x03\r\n\x021234,0\x03\r\n`;
export const HS_READY = hs('030,0,0,1245,000,0,0,0,000,0,0,0', '001,0,0,0,0,2,4,0,00000000,1,000');

export interface FakePrinter {
  url: string;
  /** The bytes of every label connection (not the ~HS ones), in the order they ended. */
  jobs: Buffer[];
  /** How many label connections the printer has closed its side of: jobs it finished "printing". */
  readonly finished: number;
  close(): Promise<void>;
}

/**
 * A loopback raw printer on 127.0.0.1: answers ~HS with `status`; takes each label connection and closes its side
 * `closeDelayMs` after ship's end (a printer busy printing), recording the bytes. `statusKeepsOpen`: the
 * connection stays open after the status answer. `stallAfter`: after that many jobs, it hangs (see below).
 */
export async function fakePrinter(
  o: { status?: string; closeDelayMs?: number; statusKeepsOpen?: boolean; stallAfter?: number; later?: { afterJobs: number; status: string } } = {},
): Promise<FakePrinter> {
  const jobs: Buffer[] = [];
  let finished = 0;
  const open = new Set<Socket>();
  const server: Server = createServer({ allowHalfOpen: true }, (sock) => {
    open.add(sock);
    sock.on('close', () => open.delete(sock));
    sock.on('error', () => {});
    // `stallAfter` jobs taken: it goes on accepting connections, but reads and answers nothing (hung).
    if (o.stallAfter !== undefined && jobs.length >= o.stallAfter) {
      sock.pause();
      return;
    }
    const chunks: Buffer[] = [];
    let status = false;
    sock.on('data', (d) => {
      chunks.push(d);
      if (chunks.length === 1 && d.toString('latin1').startsWith('~HS')) {
        status = true;
        // `later`: its status once it has taken that many jobs (paper out mid-batch, say).
        const answer = o.later && jobs.length >= o.later.afterJobs ? o.later.status : (o.status ?? HS_READY);
        if (o.statusKeepsOpen) sock.write(answer);
        else sock.end(answer);
      }
    });
    sock.on('end', () => {
      if (status) return;
      jobs.push(Buffer.concat(chunks));
      setTimeout(() => {
        sock.end();
        finished++;
      }, o.closeDelayMs ?? 0);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `tcp://127.0.0.1:${(server.address() as { port: number }).port}`,
    jobs,
    get finished() {
      return finished;
    },
    close: () =>
      new Promise((r) => {
        for (const s of open) s.destroy();
        server.close(() => r());
      }),
  };
}

/** Resolves once `cond` holds (polled every 5 ms), or rejects after `ms`: e.g. until a fake printer has a job. */
export async function until(cond: () => boolean, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 5));
  }
}
