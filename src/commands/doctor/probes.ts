// Network probes of `ship doctor`: an HTTP round trip to the base URL (status, timing, Date header),
// the TLS certificate of an https base URL, and a TCP connect to a printer.

// Static on purpose: esbuild turns a dynamic import of this CommonJS package into a default-only chunk.
import { request } from 'undici';
import { connect as netConnect } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { describeNetworkError } from '../../webhooks/forwarder.js';

/** What one HTTP request to the base URL showed. */
export interface HttpProbe {
  status: number;
  ms: number;
  /** The server's Date header, parsed. */
  serverDate?: Date;
  /** Local time halfway through the request (what the server's Date is compared with). */
  localMidpoint: Date;
}

/** GETs `url` without credentials; any HTTP answer counts as reachable. Rejects with a short reason otherwise. */
export async function probeHttp(url: string, timeoutMs: number): Promise<HttpProbe> {
  const t0 = Date.now();
  try {
    const res = await request(url, {
      method: 'GET',
      headers: { accept: 'application/json', 'user-agent': 'ship-doctor' },
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
      signal: AbortSignal.timeout(timeoutMs),
    });
    const t1 = Date.now();
    await res.body.dump().catch(() => {});
    const raw = res.headers.date;
    const dateText = Array.isArray(raw) ? raw[0] : raw;
    const parsed = dateText ? new Date(dateText) : undefined;
    return {
      status: res.statusCode,
      ms: t1 - t0,
      serverDate: parsed && !Number.isNaN(parsed.getTime()) ? parsed : undefined,
      localMidpoint: new Date((t0 + t1) / 2),
    };
  } catch (err) {
    throw new Error(describeNetworkError(err));
  }
}

/** The certificate an https server presents, and whether it is trusted for the host name. */
export interface TlsProbe {
  authorized: boolean;
  authorizationError?: string;
  validTo?: Date;
  subject?: string;
  issuer?: string;
  protocol?: string;
}

/** Opens a TLS connection to host:port (SNI = host) and reads the certificate; never sends a request. */
export function probeTls(host: string, port: number, timeoutMs: number): Promise<TlsProbe> {
  return new Promise((resolve, reject) => {
    const socket = tlsConnect({ host, port, servername: /^[\d.:]+$/.test(host) ? undefined : host, rejectUnauthorized: false, timeout: timeoutMs });
    const fail = (err: unknown) => {
      socket.destroy();
      reject(new Error(describeNetworkError(err)));
    };
    socket.once('timeout', () => fail(Object.assign(new Error('timed out'), { code: 'ETIMEDOUT' })));
    socket.once('error', fail);
    socket.once('secureConnect', () => {
      const cert = socket.getPeerCertificate();
      const pick = (o: unknown) => {
        const v = (o as Record<string, unknown> | undefined)?.CN ?? (o as Record<string, unknown> | undefined)?.O;
        return Array.isArray(v) ? String(v[0]) : v === undefined ? undefined : String(v);
      };
      const result: TlsProbe = {
        authorized: socket.authorized,
        authorizationError: socket.authorizationError ? String(socket.authorizationError) : undefined,
        validTo: cert?.valid_to ? new Date(cert.valid_to) : undefined,
        subject: pick(cert?.subject),
        issuer: pick(cert?.issuer),
        protocol: socket.getProtocol() ?? undefined,
      };
      socket.end();
      resolve(result);
    });
  });
}

/**
 * Connects to a printer's raw port and disconnects at once; resolves to the time it took. Sends nothing.
 * Rejects with a short reason, the socket's error (with its code) as the cause.
 */
export function probeTcp(host: string, port: number, timeoutMs: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = Date.now();
    const socket = netConnect({ host, port });
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer within ${timeoutMs / 1000}s`));
    }, timeoutMs);
    socket.once('connect', () => {
      clearTimeout(timer);
      socket.end();
      resolve(Date.now() - t0);
    });
    socket.once('error', (err) => {
      clearTimeout(timer);
      socket.destroy();
      reject(new Error(describeNetworkError(err), { cause: err }));
    });
  });
}
