// For vi.mock('node:net'): connect to a host with a zone (fe80::1%eth0) fails as the system fails it for a zone it
// cannot use (EINVAL), without touching the network; every other connect is the real one. Use as
//   vi.mock('node:net', async (orig) => (await import('../helpers/zoned-net.js')).zonedNet(orig));
import type * as Net from 'node:net';

/** The zoned hosts connect was asked for, in order (cleared by the test that reads it, if it needs to). */
export const zonedConnects: string[] = [];

export async function zonedNet(importOriginal: () => Promise<unknown>): Promise<Record<string, unknown>> {
  const real = (await importOriginal()) as typeof Net;
  const connect = (opts: Net.TcpNetConnectOpts) => {
    if (!String(opts.host).includes('%')) return real.connect(opts);
    zonedConnects.push(String(opts.host));
    const socket = new real.Socket();
    process.nextTick(() => socket.emit('error', Object.assign(new Error(`connect EINVAL ${opts.host}:${opts.port} - Local (:::0)`), { code: 'EINVAL', syscall: 'connect' })));
    return socket;
  };
  return { ...real, connect, default: { ...real, connect } };
}
