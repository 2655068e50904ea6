// Declares `ship webhooks listen` and `ship webhooks trigger`; the work is imported when a command runs.
import { Argument, Command, Option } from 'commander';
import { completeWith } from '../../completion/values.js';
import { EVENT_KINDS } from '../../webhooks/events.js';
import type { Ctx } from '../../context.js';
import { UsageError } from '../../errors.js';
import type { TriggerOptions } from './trigger.js';

/** Registers `ship webhooks …`. */
export function registerWebhooks(program: Command, ctx: Ctx): void {
  const webhooks = program
    .command('webhooks')
    .description("Receive the service's outbound webhooks locally, or send example events to your own handler")
    .addHelpText('after', '\nExamples:\n  ship webhooks listen --port 4020 --forward-to http://127.0.0.1:3000/webhooks\n  ship webhooks trigger SHIPMENT_CREATED --to http://127.0.0.1:3000/webhooks');

  webhooks
    .command('listen')
    .description('Run a local receiver for webhooks (JSON or form-encoded); print each event, optionally relay it to your handler')
    .option('--host <host>', 'address to listen on (loopback unless you say otherwise)', '127.0.0.1')
    .option('--port <n>', 'port to listen on; 0 picks a free one (the URL is the first line printed)', '4020')
    .option('--auth-token <token>', "the webhook's auth token; payloads without it get 401 (env SHIP_WEBHOOK_TOKEN: on the command line it shows in `ps` for as long as the listener runs)")
    .option('--forward-to <url>', 'relay each accepted event, unchanged, to this handler URL (in order, retried while it is down; plain http only to loopback unless --insecure)')
    .option('--events <list>', 'only print and forward these event kinds (comma-separated; TRACKING_* works)')
    .addOption(new Option('--queue-limit <n>', 'most events held for a handler that is down').default('1000').hideHelp())
    .addHelpText(
      'after',
      `
Each accepted event is answered 200 at once and printed as a line: time, event, shipment reference,
tracking stage, description. A redelivery (same request_token) is shown as "↺ repeat of …" and not forwarded again.
With --json, stdout carries one JSON object per line: first {"type":"listening","url":…}, then
{"type":"event",…} (the payload, auth_token masked, plus receipt metadata), "repeat", "forwarded",
"forward_failed" and "dropped" lines. Bodies over 32 MB get 413, malformed bodies 400, a wrong or missing
auth_token 401 (not printed, not forwarded). Runs until Ctrl-C (then exits 130) or SIGTERM (exits 0, the
usual way to stop a service: kill, docker stop, systemd).

Examples:
  SHIP_WEBHOOK_TOKEN="$WEBHOOK_TOKEN" ship webhooks listen
  ship webhooks listen --port 0 --json --forward-to http://127.0.0.1:3000/webhooks
  ship webhooks listen --events TRACKING_DELIVERED,TRACKING_DELIVERY_FAILED`,
    )
    .action(async (flags: { host: string; port: string; authToken?: string; forwardTo?: string; events?: string; queueLimit: string }) => {
      const port = parseIntFlag('--port', flags.port, 0, 65535);
      const queueLimit = parseIntFlag('--queue-limit', flags.queueLimit, 1, 1_000_000);
      if (flags.forwardTo !== undefined && !isHttpUrl(flags.forwardTo)) {
        const { shownUrl } = await import('../../config/validate.js');
        throw new UsageError(`--forward-to must be an http:// or https:// URL, not "${shownUrl(flags.forwardTo)}"`);
      }
      if (flags.forwardTo !== undefined && !ctx.globals.insecure) {
        // The payloads carry the auth_token: as for the base URL, not in the clear off this machine.
        const { isLoopbackHost } = await import('../../config/validate.js');
        const target = new URL(flags.forwardTo);
        if (target.protocol === 'http:' && !isLoopbackHost(target.hostname)) {
          throw new UsageError(`--forward-to: refusing plain http:// to ${target.hostname}: the payloads (with their auth_token) would travel unencrypted`, {
            hint: 'use https://, or pass --insecure if you really mean it',
          });
        }
      }
      const { parseEventList } = await import('../../webhooks/events.js');
      let events;
      try {
        events = flags.events !== undefined ? parseEventList(flags.events) : undefined;
      } catch (err) {
        throw new UsageError(`--events: ${(err as Error).message}`);
      }
      const { run } = await import('./listen.js');
      await run(ctx, {
        host: flags.host,
        port,
        authToken: flags.authToken ?? (ctx.env.SHIP_WEBHOOK_TOKEN || undefined),
        forwardTo: flags.forwardTo,
        events,
        queueLimit,
      });
    });

  webhooks
    .command('trigger')
    .addArgument(completeWith(new Argument('<event>', 'an event kind listed below'), EVENT_KINDS))
    .description("Send a documented example payload of an event kind to a handler, like the portal's test event")
    .requiredOption('--to <url>', 'the handler URL to POST to')
    .option('--auth-token <token>', 'auth_token to put in the payload (env SHIP_WEBHOOK_TOKEN; on the command line it shows in `ps`)')
    .addOption(new Option('--format <format>', 'payload encoding').choices(['json', 'form']).default('json'))
    .option('--shipment-reference <ref>', 'shipment_reference of the example')
    .option('--order-reference <ref>', 'order_reference of the example')
    .option('--parcel-reference <ref>', 'parcel reference of the example')
    .option('--request-token <token>', 'request_token to send (default: a fresh one; repeat one to test de-duplication)')
    .addHelpText(
      'after',
      `
Events: SHIPMENT_CREATED SHIPMENT_CANCELLED TRACKING_UPDATED TRACKING_COLLECTED TRACKING_IN_TRANSIT
        TRACKING_OUT_FOR_DELIVERY TRACKING_DELIVERED TRACKING_DELIVERY_FAILED
Exits 0 when the handler answers 2xx, 1 otherwise (no answer within --timeout or SHIP_TIMEOUT, else 10 s).

Examples:
  SHIP_WEBHOOK_TOKEN="$WEBHOOK_TOKEN" ship webhooks trigger SHIPMENT_CREATED --to http://127.0.0.1:3000/webhooks
  ship webhooks trigger TRACKING_DELIVERED --to http://127.0.0.1:3000/hook --format form --shipment-reference ORDER-1001`,
    )
    .action(async (event: string, flags: Omit<TriggerOptions, 'event' | 'timeoutMs'>) => {
      const { run } = await import('./trigger.js');
      // --timeout or SHIP_TIMEOUT when given (read as every command reads them; settings that cannot be resolved,
      // a bad base URL, do not stop a trigger: the handler is not the API); else the trigger's own 10 s.
      const given = ctx.globals.timeout !== undefined || Boolean(ctx.env.SHIP_TIMEOUT?.trim());
      const timeout = given
        ? await ctx.settings().then(
            (s) => s.timeoutMs.value,
            () => undefined,
          )
        : undefined;
      await run(ctx, {
        event,
        timeoutMs: timeout,
        to: flags.to,
        authToken: flags.authToken ?? ctx.env.SHIP_WEBHOOK_TOKEN,
        format: flags.format,
        shipmentReference: flags.shipmentReference,
        orderReference: flags.orderReference,
        parcelReference: flags.parcelReference,
        requestToken: flags.requestToken,
      });
    });
}

function parseIntFlag(flag: string, value: string, min: number, max: number): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < min || n > max) throw new UsageError(`${flag} must be a whole number from ${min} to ${max}, not "${value}"`);
  return n;
}

function isHttpUrl(value: string): boolean {
  try {
    const u = new URL(value);
    return u.protocol === 'http:' || u.protocol === 'https:';
  } catch {
    return false;
  }
}
