// Raw-socket ZPL printing (port 9100): resolve a printer name or address, ask the printer for its host
// status (~HS) before a batch, and send label bytes unchanged and in order. A raw port gives no
// acknowledgement, so labels are reported as "sent", never as "printed".
import * as net from 'node:net';
import type { Ctx } from '../context.js';
import { ExitCode, Interrupted, ShipError, UsageError } from '../errors.js';
import { parsePrinterUrl as parsePrinterAddress } from '../config/validate.js';
import { zoneHint, zoneOf, zoneProblem, zoneRefused } from './zone.js';

/** Where labels go: a raw TCP port. */
export interface PrinterTarget {
  host: string;
  port: number;
  /** tcp://HOST:PORT, for messages. */
  url: string;
  /** The profile's printer name, when resolved from one. */
  name?: string;
  /**
   * Told what the printer is being waited for (the status question, a send); returns the wait's end. Set by
   * resolvePrinter to the command's spinner, so every printing path shows it without passing it along.
   */
  onWait?: (text: string) => () => void;
}

/** The printer could not be reached, did not answer, or is not ready (exit 1). */
export class PrinterError extends ShipError {
  constructor(message: string, options?: { hint?: string; cause?: unknown }) {
    super(message, ExitCode.Failure, options);
  }
}

/** A printer as messages name it: its configured name with its address, or the address alone. */
export function printerName(target: PrinterTarget): string {
  return target.name ? `${target.name} (${target.url})` : target.url;
}

/** Default raw printing port of Zebra (and most label) printers. */
export const RAW_PORT = 9100;

/**
 * Parses tcp://HOST:PORT (IPv6 in brackets, with a zone if need be: tcp://[fe80::1%eth0]:9100, or RFC 6874's
 * %25eth0) into a target; UsageError naming `what` when it is not one (config/validate.ts). The host keeps the
 * zone (fe80::1%eth0), as net.connect takes it.
 */
export function parsePrinterUrl(text: string, what = '--printer'): PrinterTarget {
  const { host, port } = parsePrinterAddress(text, what);
  return { host, port, url: `tcp://${host.includes(':') ? `[${host}]` : host}:${port}` };
}

/**
 * Turns `--printer` (a tcp:// address or the name of a `printers.NAME` entry of the profile) into a target.
 * Without one (undefined), the profile's `printer` setting is used, and undefined is returned when there is
 * none; '' (`--printer` given alone) asks for the profile's printer, and its absence is an error.
 */
export async function resolvePrinter(ctx: Ctx, nameOrUrl: string | undefined): Promise<PrinterTarget | undefined> {
  let v = nameOrUrl?.trim();
  if (v === undefined || v === '') {
    const store = await ctx.config();
    const def = store.profile().printer;
    if (typeof def !== 'string' || def.trim() === '') {
      if (v === undefined) return undefined;
      throw new UsageError('--printer alone sends to the profile\'s printer, and it has none', {
        hint: 'give one: --printer tcp://HOST:PORT or --printer NAME; or set it: ship config set printer tcp://HOST:PORT',
      });
    }
    v = def.trim();
  }
  // A person at a terminal sees a spinner while the printer is slow (output/wait.ts).
  const onWait = (text: string) => ctx.out.wait.begin(text);
  if (/^tcp:\/\//i.test(v)) return usableZone({ ...parsePrinterUrl(v), onWait });
  if (/^[a-z]+:\/\//i.test(v)) {
    throw new UsageError(`--printer: "${v}" is not a raw printer address`, { hint: 'use tcp://HOST:PORT, e.g. tcp://10.0.0.50:9100' });
  }
  const store = await ctx.config();
  // The config layer knows the profile's printers, says which exist when the name is unknown, and checks the address.
  const url = store.resolvePrinter(v);
  return usableZone({ ...parsePrinterUrl(url, `printers.${v}`), name: v, onWait });
}

/**
 * The target, unless its zone names no interface of this machine: checked before anything is created or
 * fetched, since connect would only say EINVAL. A PrinterError (exit 1), as for a printer that cannot be reached.
 */
function usableZone(target: PrinterTarget): PrinterTarget {
  const problem = zoneProblem(target.host);
  if (problem) throw zoneError(target, problem);
  return target;
}

function zoneError(target: PrinterTarget, problem: string, cause?: Error): PrinterError {
  return new PrinterError(`printer ${printerName(target)}: ${problem}`, { hint: zoneHint(target.host, target.port, target.name), cause });
}

/** The printer's answer to ~HS, decoded (Zebra ZPL manual, "~HS Host Status Return"). */
export interface HostStatus {
  paperOut: boolean;
  paused: boolean;
  headOpen: boolean;
  ribbonOut: boolean;
  /** Thermal-transfer mode (ribbon out only matters then). */
  thermalTransfer: boolean;
  bufferFull: boolean;
  underTemperature: boolean;
  overTemperature: boolean;
  corruptRam: boolean;
  /** Formats waiting in the receive buffer. */
  formatsInBuffer: number;
  /** Labels still to print in the current batch. */
  labelsRemaining: number;
  /** The raw response, for --verbose. */
  raw: string;
}

/**
 * Parses the ~HS response: three frames <STX>…<ETX><CR><LF>.
 * String 1: aaa,b,c,dddd,eee,f,g,h,iii,j,k,l — b paper out, c pause, eee formats in buffer, f buffer full,
 *   j corrupt RAM, k under temperature, l over temperature.
 * String 2: mmm,n,o,p,q,r,s,t,uuuuuuuu,v,www — o head up (open), p ribbon out, q thermal-transfer mode,
 *   uuuuuuuu labels remaining.
 * String 3: xxxx,y — password and static RAM (not used).
 */
export function parseHostStatus(text: string): HostStatus {
  const frames = [...text.matchAll(/\x02([^\x02\x03]*)\x03/g)].map((m) => m[1].trim());
  if (frames.length < 2) throw new PrinterError(`the printer's status answer could not be read (${JSON.stringify(text.slice(0, 80))})`);
  const s1 = frames[0].split(',').map((f) => f.trim());
  const s2 = frames[1].split(',').map((f) => f.trim());
  // The manual's strings have 12 and 11 fields. A shorter answer, or a flag that is not 0 or 1, is not one we
  // can read: taking a missing or odd flag for "no problem" passed printers out of paper or open as ready.
  if (s1.length < 12 || s2.length < 11) {
    throw new PrinterError(`the printer's status answer has too few fields (${JSON.stringify(text.slice(0, 80))})`);
  }
  const flagAt: Array<[string[], number]> = [[s1, 1], [s1, 2], [s1, 5], [s1, 9], [s1, 10], [s1, 11], [s2, 2], [s2, 3], [s2, 4]];
  if (flagAt.some(([arr, i]) => arr[i] !== '0' && arr[i] !== '1')) {
    throw new PrinterError(`the printer's status answer has flags that are not 0 or 1 (${JSON.stringify(text.slice(0, 80))})`);
  }
  const flag = (arr: string[], i: number) => arr[i] === '1';
  const num = (arr: string[], i: number) => (/^\d+$/.test(arr[i]) ? Number(arr[i]) : 0);
  return {
    paperOut: flag(s1, 1),
    paused: flag(s1, 2),
    formatsInBuffer: num(s1, 4),
    bufferFull: flag(s1, 5),
    corruptRam: flag(s1, 9),
    underTemperature: flag(s1, 10),
    overTemperature: flag(s1, 11),
    headOpen: flag(s2, 2),
    ribbonOut: flag(s2, 3),
    thermalTransfer: flag(s2, 4),
    labelsRemaining: num(s2, 8),
    raw: text,
  };
}

/** Problems that stop a batch (paper out, head open, paused, ribbon out in thermal-transfer mode). */
export function blockingProblems(s: HostStatus): string[] {
  const p: string[] = [];
  if (s.paperOut) p.push('paper (labels) out');
  if (s.headOpen) p.push('print head open');
  if (s.paused) p.push('paused');
  if (s.ribbonOut && s.thermalTransfer) p.push('ribbon out');
  if (s.bufferFull) p.push('receive buffer full');
  if (s.overTemperature) p.push('print head over temperature');
  return p;
}

/** Options for talking to a printer. */
export interface PrinterOptions {
  /** Connection (and idle) timeout in ms (default 5000). */
  timeoutMs?: number;
}

const nameOf = (target: PrinterTarget) => target.name ?? target.url;

/**
 * Asks the printer for its host status (~HS) and reads the three-line answer, within the timeout.
 * node:net rather than node-thermal-printer here: its execute({ waitForResponse }) resolves with the first
 * data chunk only, and the ~HS answer may arrive in several chunks.
 */
export function queryHostStatus(target: PrinterTarget, opts: PrinterOptions = {}): Promise<HostStatus> {
  const timeoutMs = opts.timeoutMs ?? 5000;
  return new Promise<HostStatus>((resolve, reject) => {
    let text = '';
    let settled = false;
    const sock = net.connect({ host: target.host, port: target.port });
    const done = (err: unknown, status?: HostStatus) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      sock.destroy();
      if (err) reject(err);
      else resolve(status!);
    };
    let connected = false;
    const timer = setTimeout(() => {
      // Part of an answer is not silence: say what came, not that nothing did.
      if (connected && text !== '') {
        return done(
          new PrinterError(`printer ${nameOf(target)} sent only part of its status answer (~HS) within ${timeoutMs / 1000}s (${JSON.stringify(text.slice(0, 80))})`, {
            hint: 'is this the raw port (usually 9100) of a ZPL label printer? --no-preflight sends without asking for its status',
          }),
        );
      }
      done(
        connected
          ? new PrinterError(`printer ${target.url} did not answer the status request (~HS) within ${timeoutMs / 1000}s`, {
              // Zebra printers keep quiet to ~HS while out of media or ribbon, head open or over temperature
              // (ZPL manual, ~HS): silence is more often a printer in error than one without ~HS.
              hint:
                'a Zebra printer does not answer while out of paper or ribbon, with its head open or overheated: check the printer; ' +
                'only if it is ready and does not support ~HS, rerun with --no-preflight to send without checking',
            })
          : unreachable(target, timeoutMs),
      );
    }, timeoutMs);
    sock.setEncoding('latin1');
    sock.on('connect', () => {
      connected = true;
      sock.write('~HS\r\n');
    });
    // The answer, or an error naming the printer: a bare "could not be read" did not say which, nor what to do.
    const decide = () => {
      try {
        done(undefined, parseHostStatus(text));
      } catch (e) {
        done(
          text === ''
            ? new PrinterError(`printer ${nameOf(target)} closed the connection without answering the status request (~HS)`, {
                hint: 'it may be busy with another connection or in an error state: check it and run again (--no-preflight sends without asking)',
                cause: e,
              })
            : new PrinterError(`printer ${nameOf(target)}: ${(e as Error).message}`, {
                hint: 'is this the raw port (usually 9100) of a ZPL label printer? --no-preflight sends without asking for its status',
                cause: e,
              }),
        );
      }
    };
    sock.on('data', (chunk: string) => {
      text += chunk;
      // Three frames end with three ETX.
      if ((text.match(/\x03/g) ?? []).length >= 3) decide();
    });
    sock.on('end', decide);
    sock.on('error', (e) => done(connected ? new PrinterError(`printer ${target.url}: ${e.message}`, { cause: e }) : unreachable(target, timeoutMs, e)));
  });
}

/** Checks that the printer is ready for a batch; throws PrinterError naming the problem (paper out, head open…). */
export async function preflight(target: PrinterTarget, opts: PrinterOptions = {}): Promise<HostStatus> {
  const end = target.onWait?.(`Asking printer ${nameOf(target)} for its status…`);
  let status: HostStatus;
  try {
    status = await queryHostStatus(target, opts);
  } finally {
    end?.();
  }
  const problems = blockingProblems(status);
  if (problems.length) {
    throw new PrinterError(`printer ${target.name ?? target.url} is not ready: ${problems.join(', ')}`, {
      hint: 'fix the printer and run again (or --no-preflight to send anyway)',
    });
  }
  return status;
}

function unreachable(target: PrinterTarget, timeoutMs: number, cause?: Error): PrinterError {
  const code = (cause as NodeJS.ErrnoException | undefined)?.code;
  // A zone connect could not use (a number on Windows, say, which is not checked beforehand).
  if (code === 'EINVAL' && zoneOf(target.host) !== undefined) return zoneError(target, zoneProblem(target.host) ?? zoneRefused(target.host), cause);
  const why =
    code === 'ECONNREFUSED'
      ? 'refused the connection'
      : code === 'ENOTFOUND' || code === 'EAI_AGAIN'
        ? 'is an unknown host'
        : code === 'EHOSTUNREACH' || code === 'ENETUNREACH'
          ? 'is unreachable'
          : cause
            ? `could not be reached (${cause.message})`
            : `did not accept a connection within ${timeoutMs / 1000}s`;
  return new PrinterError(`printer ${printerName(target)} ${why}`, {
    hint: 'check that it is on and on the network, and that the port is its raw port (usually 9100)',
    cause,
  });
}

export interface RawInterface {
  execute(buffer: Buffer, options?: { waitForResponse?: boolean }): Promise<unknown>;
}

/**
 * Sends bytes to the printer unchanged with node-thermal-printer (its raw() hands the buffer to the interface
 * as-is), through a network interface of ours: the library's own destroys the socket as soon as the bytes are
 * handed to the OS, so a printer that took the connection but not the label (closed at once, reset) passed for
 * "sent". Ours (checkedSocket) half-closes after writing and waits for the printer to close its side.
 */
export async function sendRaw(target: PrinterTarget, data: Uint8Array, opts: PrinterOptions = {}): Promise<void> {
  const end = target.onWait?.(`Sending to printer ${nameOf(target)}…`);
  try {
    await sendRawNow(target, data, opts);
  } finally {
    end?.();
  }
}

async function sendRawNow(target: PrinterTarget, data: Uint8Array, opts: PrinterOptions): Promise<void> {
  const timeoutMs = opts.timeoutMs ?? 5000;
  const mod = (await import('node-thermal-printer')) as unknown as {
    default?: { printer: new (c: object) => { raw(b: Buffer): Promise<unknown> }; types: Record<string, string> };
    printer?: new (c: object) => { raw(b: Buffer): Promise<unknown> };
    types?: Record<string, string>;
  };
  const lib = mod.default ?? (mod as Required<Pick<typeof mod, 'printer' | 'types'>>);
  const printer = new lib.printer({ type: lib.types.EPSON, interface: checkedSocket(target, timeoutMs), options: { timeout: timeoutMs } });
  await printer.raw(Buffer.from(data.buffer, data.byteOffset, data.byteLength));
}

/**
 * How long to wait for the printer's close once it has the whole label, before it counts as sent anyway (a
 * printer that keeps the connection open after the job has the bytes all the same); short, since a batch
 * sends its labels one after another.
 */
const CLOSE_GRACE_MS = 250;
/**
 * How long after the bytes are written a printer that refuses the job (closes at once: busy with another
 * connection, in an error state) has to say so, before our end of the job: a raw port never closes before it.
 * A round trip on a LAN; printing a label takes a second anyway.
 */
const SETTLE_MS = 25;

/**
 * A node-thermal-printer interface (its `execute(buffer)`) over one TCP connection (IPv4 or IPv6): connect,
 * write the bytes, half-close, then wait for the printer to close its side — a raw port reads to the end of
 * the job and closes. Fails, naming the printer, when it refuses or never accepts the connection, closes it or
 * resets it before the end of the job, or stops reading the bytes (then part of a label may come out).
 */
export function checkedSocket(target: PrinterTarget, timeoutMs: number): RawInterface {
  return {
    execute: (buffer: Buffer) =>
      new Promise<void>((resolve, reject) => {
        const socket = net.connect({ host: target.host, port: target.port, timeout: timeoutMs });
        // Read (and drop) whatever the printer says: a paused socket never reports the printer's close.
        socket.resume();
        let connected = false;
        let written = false;
        let ended = false;
        let settled = false;
        let timer: NodeJS.Timeout | undefined;
        const done = (err?: Error) => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          socket.destroy();
          if (err) reject(err);
          else resolve();
        };
        const notTaken = (why: string, cause?: Error) =>
          new PrinterError(`printer ${nameOf(target)} ${why}`, {
            hint: 'the label may not have been printed: check the printer (busy with another connection? in an error state?), then send it again',
            cause,
          });
        socket.on('connect', () => {
          connected = true;
          socket.write(buffer, () => {
            if (settled) return;
            written = true;
            timer = setTimeout(() => {
              ended = true;
              socket.end();
              timer = setTimeout(() => done(), CLOSE_GRACE_MS);
            }, SETTLE_MS);
          });
        });
        // The printer's close: the end of the job when it follows ours, a refusal when it comes first.
        const closed = () => (ended ? done() : done(notTaken('closed the connection before taking the label')));
        socket.on('end', closed);
        socket.on('error', (e: NodeJS.ErrnoException) => {
          if (!connected) return done(unreachable(target, timeoutMs, e));
          done(notTaken(e.code === 'ECONNRESET' || e.code === 'EPIPE' ? 'reset the connection before taking the whole label' : `failed while taking the label (${e.message})`, e));
        });
        socket.on('timeout', () => {
          if (!connected) return done(unreachable(target, timeoutMs));
          if (written) return done();
          done(notTaken(`stopped taking data after ${socket.bytesWritten} of ${buffer.length} bytes (no progress for ${timeoutMs / 1000}s): part of the label may have printed`));
        });
        socket.on('close', closed);
      }),
  };
}

/**
 * Sends labels one after another in the given order; a failure stops the rest. Returns how many were sent.
 * With `signal` (Ctrl-C), the label being sent is finished (a label cut off mid-way prints as garbage or not at
 * all) and none after it is started: Interrupted is thrown, and onSent has counted what went out.
 */
export async function sendLabels(
  target: PrinterTarget,
  labels: Iterable<Uint8Array> | AsyncIterable<Uint8Array>,
  opts: PrinterOptions & { onSent?: (index: number) => void; signal?: AbortSignal } = {},
): Promise<number> {
  let n = 0;
  for await (const label of labels) {
    if (opts.signal?.aborted) throw interruption(opts.signal);
    await sendRaw(target, label, opts);
    opts.onSent?.(n);
    n++;
  }
  return n;
}

/** The Interrupted an aborted signal carries (main.ts aborts with one naming the signal), or a plain one. */
export function interruption(signal: AbortSignal): Interrupted {
  return signal.reason instanceof Interrupted ? signal.reason : new Interrupted();
}
