// `ship webhooks trigger`: POSTs a documented example payload of one event kind to a handler, like the portal's
// test event (the three references editable, the rest fixed examples), and reports the handler's answer.

// Static on purpose: esbuild turns a dynamic import of this CommonJS package into a default-only chunk.
import { request } from 'undici';
import { randomUUID } from 'node:crypto';
import type { Ctx } from '../../context.js';
import { ApiError, NetworkError, UsageError } from '../../errors.js';
import { EVENT_KINDS, isEventKind } from '../../webhooks/events.js';
import { describeNetworkError } from '../../webhooks/forwarder.js';
import { redact } from '../../output/redact.js';

export interface TriggerOptions {
  event: string;
  to: string;
  authToken?: string;
  format: 'json' | 'form';
  shipmentReference?: string;
  orderReference?: string;
  parcelReference?: string;
  requestToken?: string;
  /** Time limit for the handler's answer (default 10 s). */
  timeoutMs?: number;
}

/** Sends one example event; prints the handler's status; throws ApiError (exit 1) unless it answered 2xx. */
export async function run(ctx: Ctx, opts: TriggerOptions): Promise<void> {
  const event = opts.event.toUpperCase().replace(/-/g, '_');
  // A handler may answer with the payload it got: its auth_token is masked like the API's credentials.
  if (opts.authToken) ctx.secrets.add(opts.authToken);
  const { shownUrl } = await import('../../config/validate.js');
  if (!isEventKind(event)) throw new UsageError(`unknown event "${opts.event}"`, { hint: `one of ${EVENT_KINDS.join(', ')}` });
  let url: URL;
  try {
    url = new URL(opts.to);
  } catch {
    throw new UsageError(`--to must be an http:// or https:// URL, not "${shownUrl(opts.to)}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError(`--to must be an http:// or https:// URL, not "${shownUrl(opts.to)}"`);

  // The sandbox's dispatcher owns the documented examples and the wire encoding; reuse both.
  const { examplePayload, encodePayload } = await import('../../sandbox/webhooks.js');
  const requestToken = opts.requestToken ?? randomUUID();
  const payload = examplePayload(event, {
    auth_token: opts.authToken,
    request_token: requestToken,
    shipment_reference: opts.shipmentReference,
    order_reference: opts.orderReference,
    parcel_reference: opts.parcelReference,
  });
  if (!opts.authToken) ctx.out.info(`no --auth-token (or SHIP_WEBHOOK_TOKEN): sending the example token "${payload.auth_token}"`);
  const { body, contentType } = encodePayload(payload, opts.format);

  const timeoutMs = opts.timeoutMs ?? 10_000;
  const started = performance.now();
  let status: number;
  let responseText = '';
  try {
    const res = await request(url, {
      method: 'POST',
      body,
      headers: { 'content-type': contentType, accept: 'application/json', 'user-agent': 'ship-webhooks-trigger' },
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
      signal: AbortSignal.any([ctx.signal, AbortSignal.timeout(timeoutMs)]),
    });
    status = res.statusCode;
    // Masked before it is cut short: a secret across the cut would be masked nowhere, its first part shown.
    responseText = redact(await res.body.text().catch(() => ''), ctx.secrets).slice(0, 2000);
  } catch (err) {
    throw new NetworkError(`the handler at ${shownUrl(url.href)} did not answer: ${describeNetworkError(err)}`, 'other', { method: 'POST' }, { cause: err });
  }
  const ms = Math.round(performance.now() - started);
  const ok = status >= 200 && status < 300;
  const shown = shownUrl(url.href);

  if (ctx.mode.json) {
    ctx.out.json({ ok, url: shown, event, format: opts.format, request_token: requestToken, status, ms, response: responseText });
  } else if (ctx.mode.quiet) {
    ctx.out.line(String(status));
  } else {
    const c = ctx.out.c;
    const mark = ok ? c.green('✓') : c.red('✗');
    ctx.out.line(`${mark} ${event} (${opts.format}) → ${shown}: ${ok ? c.green(String(status)) : c.red(String(status))} in ${ms}ms`);
    ctx.out.debug(`request_token ${requestToken}; response: ${responseText}`);
  }
  if (!ok) {
    throw new ApiError(`the handler answered ${status}, not 2xx`, { status, method: 'POST', apiMessage: responseText.slice(0, 200) });
  }
}
