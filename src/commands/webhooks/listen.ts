// `ship webhooks listen`: runs the receiver, prints each event (line or NDJSON), relays to --forward-to.
import { isLoopbackHost, shownUrl } from '../../config/validate.js';
import type { Ctx } from '../../context.js';
import { ExitCode, Interrupted, ShipError, UsageError, stoppedAsService } from '../../errors.js';
import { mask, redact } from '../../output/redact.js';
import { summarize, type EventKind } from '../../webhooks/events.js';
import { Forwarder, type ForwardReport } from '../../webhooks/forwarder.js';
import { startReceiver, type ReceivedEvent, type RejectedRequest } from '../../webhooks/receiver.js';

export interface ListenOptions {
  host: string;
  port: number;
  authToken?: string;
  forwardTo?: string;
  /** Only these kinds are printed and forwarded (all when absent). */
  events?: Set<EventKind>;
  queueLimit: number;
  /** Retry timing of the forwarder (tests shorten it). */
  forwardDelayMs?: { initial: number; max: number };
  /** Called with the listening URL (in-process tests use it to find the port). */
  onListening?: (url: string) => void;
}

/** Listens until ctx.signal aborts (Ctrl-C / SIGTERM), then stops cleanly and throws Interrupted (exit 130). */
export async function run(ctx: Ctx, opts: ListenOptions): Promise<void> {
  const { out } = ctx;
  const { c } = out;
  const json = ctx.mode.json;

  const only = opts.events;
  // Kept out of every warning and trace, as the API's credentials are.
  if (opts.authToken) ctx.secrets.add(opts.authToken);
  // The handler's address as printed: a key in its query or user part stays hidden.
  const forwardShown = opts.forwardTo !== undefined ? shownUrl(opts.forwardTo) : undefined;
  if (!opts.authToken && !isLoopbackHost(opts.host)) {
    throw new UsageError(`refusing to listen on ${opts.host} without an auth token: anyone who can reach it could post events`, {
      hint: 'pass --auth-token (or set SHIP_WEBHOOK_TOKEN), or listen on 127.0.0.1',
    });
  }

  const release = ctx.holdInterrupts();
  try {
    const time = (d: Date) => d.toTimeString().slice(0, 8);
    const ref = (e: ReceivedEvent) => summarize(e.payload).shipmentReference || '-';

    let forwarder: Forwarder<ReceivedEvent> | undefined;
    if (opts.forwardTo) {
      const failuresShown = new WeakMap<object, number>();
      forwarder = new Forwarder<ReceivedEvent>({
        url: opts.forwardTo,
        maxQueue: opts.queueLimit,
        initialDelayMs: opts.forwardDelayMs?.initial,
        maxDelayMs: opts.forwardDelayMs?.max,
        onReport: (r) => reportForward(r),
      });
      const reportForward = (r: ForwardReport<ReceivedEvent>) => {
        const e = r.item.meta;
        const base = { seq: e.seq, event: e.event, shipment_reference: ref(e), request_token: e.requestToken ?? null };
        switch (r.type) {
          case 'delivered':
            if (json) out.jsonLine({ type: 'forwarded', ...base, status: r.status, attempts: r.attempts, ms: r.ms });
            else {
              const after = r.attempts > 1 ? c.dim(` (after ${r.attempts} attempts, ${(r.ms / 1000).toFixed(1)}s)`) : '';
              out.line(`${time(new Date())}  ${c.green(`→ ${r.status}`)} ${e.event} ${ref(e)}${after}`);
            }
            break;
          case 'gave_up':
            if (json) out.jsonLine({ type: 'forward_failed', ...base, status: r.status, attempts: r.attempts });
            else out.line(`${time(new Date())}  ${c.red(`→ ${r.status}`)} ${e.event} ${ref(e)} ${c.red(`handler refused it ${r.attempts} times; gave up`)}`);
            break;
          case 'attempt_failed': {
            // One line per outage, then every 5th attempt, so a handler that is down does not flood the terminal.
            const shown = failuresShown.get(r.item) ?? 0;
            if (r.attempt === 1 || r.attempt - shown >= 5) {
              failuresShown.set(r.item, r.attempt);
              const why = r.status !== undefined ? `answered ${r.status}` : `unreachable (${r.error})`;
              out.info(
                `${c.yellow('handler')} ${forwardShown} ${why}; retrying ${e.event} ${ref(e)} in ${(r.retryInMs / 1000).toFixed(1)}s` +
                  ` (attempt ${r.attempt}, ${r.queued} waiting)`,
              );
            }
            break;
          }
          case 'dropped':
            out.warn(`forward queue full (${r.queued} waiting): dropped ${e.event} ${ref(e)} (request_token ${e.requestToken ?? 'none'}); it will not reach the handler`);
            if (json) out.jsonLine({ type: 'dropped', ...base, queued: r.queued });
            break;
        }
      };
    }

    const onEvent = (e: ReceivedEvent) => {
      if (only && !only.has(e.event as EventKind)) {
        out.debug(`${time(e.receivedAt)}  skipped ${e.event} ${ref(e)} (not in --events)`);
        return;
      }
      if (e.repeatOf) {
        const first = e.repeatOf;
        if (json) {
          out.jsonLine({
            type: 'repeat',
            seq: e.seq,
            received_at: e.receivedAt.toISOString(),
            event: e.event,
            shipment_reference: ref(e),
            request_token: e.requestToken,
            repeat_of: first.seq,
            first_received_at: first.receivedAt.toISOString(),
          });
        } else {
          out.line(`${time(e.receivedAt)}  ${c.dim(`↺ repeat of ${first.event} ${first.shipmentReference || '-'} (first received ${time(first.receivedAt)})`)}`);
        }
        return;
      }
      if (json) {
        out.jsonLine({
          type: 'event',
          seq: e.seq,
          received_at: e.receivedAt.toISOString(),
          event: e.event,
          request_token: e.requestToken ?? null,
          encoding: e.encoding,
          path: e.path,
          payload: maskPayload(e.payload),
        });
      } else {
        const s = summarize(e.payload);
        out.line(
          [time(e.receivedAt), colourEvent(c, s.event.padEnd(25)), (s.shipmentReference || '-').padEnd(20), (s.stage || '-').padEnd(16), s.description]
            .join('  ')
            .trimEnd(),
        );
      }
      forwarder?.enqueue({ body: e.body, contentType: e.contentType, meta: e });
    };

    const onRejected = (r: RejectedRequest) => {
      const what = `${r.status} for POST ${r.path} from ${r.remoteAddress ?? 'unknown'}: ${r.reason}`;
      if (r.status === 401) out.warn(`rejected ${what}`);
      else out.info(`${c.yellow('rejected')} ${what}`);
    };

    let receiver;
    try {
      receiver = await startReceiver({
        host: opts.host,
        port: opts.port,
        authToken: opts.authToken,
        onEvent,
        onRejected,
        onError: (err) => out.warn(`receiver: ${(err as Error)?.message ?? String(err)}`),
      });
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'EADDRINUSE') {
        throw new ShipError(`port ${opts.port} on ${opts.host} is already in use`, ExitCode.Failure, { hint: 'pick another with --port (0 picks a free one)' });
      }
      if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND' || code === 'EACCES') {
        throw new ShipError(`cannot listen on ${opts.host}:${opts.port} (${code})`, ExitCode.Failure);
      }
      throw err;
    }

    if (json) out.jsonLine({ type: 'listening', url: receiver.url, forward_to: forwardShown ?? null, events: only ? [...only] : null, auth_token_checked: Boolean(opts.authToken) });
    else out.line(receiver.url);
    opts.onListening?.(receiver.url);
    if (!opts.authToken) out.warn('no --auth-token (or SHIP_WEBHOOK_TOKEN): accepting every payload without checking its auth_token');
    out.info(
      `Listening for webhooks on ${receiver.url}` +
        (forwardShown ? `, forwarding to ${forwardShown}` : '') +
        (only ? `, only ${[...only].join(', ')}` : '') +
        ' (Ctrl-C to stop)',
    );

    await new Promise<void>((resolve) => {
      if (ctx.signal.aborted) return resolve();
      ctx.signal.addEventListener('abort', () => resolve(), { once: true });
    });

    await receiver.close();
    const undelivered = (await forwarder?.stop()) ?? [];
    if (undelivered.length > 0) {
      out.warn(`${undelivered.length} event${undelivered.length === 1 ? ' was' : 's were'} not delivered to ${forwardShown}: ${undelivered.map((i) => `${i.meta.event} ${ref(i.meta)}`).join(', ')}`);
      if (json) out.jsonLine({ type: 'undelivered', count: undelivered.length, seqs: undelivered.map((i) => i.meta.seq) });
    }
    // SIGTERM is how a service is stopped (exit 0, as `ship sandbox`); Ctrl-C is an interruption (exit 130).
    if (!stoppedAsService(ctx.signal)) throw new Interrupted('stopped listening');
  } finally {
    release();
  }
}

/**
 * The payload for printing: every `auth_token` masked, at any depth (a sender may repeat it in a nested object),
 * and its value wherever else the payload repeats it; everything else as received.
 */
export function maskPayload(payload: Record<string, unknown>): Record<string, unknown> {
  const tokens = new Set<string>();
  const collect = (v: unknown, depth: number): void => {
    if (depth > 16 || !v || typeof v !== 'object') return;
    for (const [k, x] of Object.entries(v)) {
      if (k === 'auth_token' && typeof x === 'string') tokens.add(x);
      else collect(x, depth + 1);
    }
  };
  collect(payload, 0);
  if (tokens.size === 0) return payload;
  const walk = (v: unknown, key: string | undefined, depth: number): unknown => {
    if (typeof v === 'string') return key === 'auth_token' ? mask(v) : redact(v, tokens);
    if (depth > 16 || !v || typeof v !== 'object') return v;
    if (Array.isArray(v)) return v.map((x) => walk(x, undefined, depth + 1));
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x, k, depth + 1)]));
  };
  return walk(payload, undefined, 0) as Record<string, unknown>;
}

function colourEvent(c: Ctx['out']['c'], text: string): string {
  if (/CANCELLED|FAILED/.test(text)) return c.red(text);
  if (/DELIVERED|CREATED/.test(text)) return c.green(text);
  return c.cyan(text);
}
