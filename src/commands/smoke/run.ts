// `ship smoke`: token → services → quote → create → label → track → cancel, each timed; whatever it created is
// cancelled before it returns, also after a failure or Ctrl-C.
import { randomBytes } from 'node:crypto';
import type { Api, LabelFormat, ShipmentRequest } from '../../api/index.js';
import type { Ctx } from '../../context.js';
import { ApiError, AuthError, exitCodeOf, ExitCode, Interrupted, NotFoundError, ShipError, ValidationError } from '../../errors.js';

export interface SmokeOptions {
  format: LabelFormat;
  /** Leave the shipment in place instead of cancelling it. */
  keep: boolean;
}

/** One step of the report. */
export interface SmokeStep {
  name: string;
  ok: boolean;
  ms: number;
  /** What the step saw, e.g. "6 services" (human output; also in --json). */
  detail?: string;
  error?: string;
  /** The step did not run because an earlier one failed or the run was interrupted. */
  skipped?: boolean;
  exit_code?: number;
}

/** The --json report. */
export interface SmokeReport {
  ok: boolean;
  base_url: string;
  test_mode: boolean;
  format: LabelFormat;
  steps: SmokeStep[];
  shipment_reference: string;
  tracking_reference: string | null;
  /** True when nothing is left behind: nothing was created, or it was cancelled. */
  cleaned_up: boolean;
  kept: boolean;
  ms: number;
}

const STEP_NAMES = ['token', 'services', 'quote', 'create', 'label', 'track', 'cancel'] as const;

/** A reference unique per run, short enough for carriers that cap references at 30 characters. */
export function smokeReference(now: Date): string {
  const stamp = now.toISOString().replace(/\D/g, '').slice(0, 14);
  return `SMOKE-${stamp}-${randomBytes(3).toString('hex').toUpperCase()}`;
}

/** A small domestic parcel every account should be able to ship. */
export function smokeShipment(reference: string): ShipmentRequest {
  return {
    shipment_reference: reference,
    order_reference: reference,
    delivery_instructions: 'Smoke test: cancelled automatically',
    to_address: {
      name: 'Smoke Test',
      company_name: 'ship smoke',
      telephone: '02079460000',
      email_address: 'smoke@example.com',
      line_1: '1 Test Street',
      city: 'London',
      postcode: 'SW1A 1AA',
      country: 'GB',
    },
    parcels: [{ reference: `${reference}-1`, weight: 500, length: 20, width: 15, depth: 10, value: 10 }],
  } as ShipmentRequest;
}

/** Checks that label bytes are what the format promises; returns a description or throws. */
export function checkLabel(bytes: Buffer, format: LabelFormat): string {
  const size = `${bytes.length} bytes`;
  if (format === 'ZPL') {
    const text = bytes.toString('latin1');
    if (!text.includes('^XA') || !text.includes('^XZ')) throw new ApiError('the label is not ZPL (no ^XA … ^XZ block)');
    return `ZPL, ${size}`;
  }
  if (format === 'PDF') {
    if (!bytes.subarray(0, 5).equals(Buffer.from('%PDF-'))) throw new ApiError('the label is not a PDF (does not start with %PDF-)');
    return `PDF, ${size}`;
  }
  if (!bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) {
    throw new ApiError('the label is not a PNG (no PNG signature)');
  }
  return `PNG, ${size}`;
}

/** Runs the smoke test, prints each step, and throws (with the first failure's exit code) unless all passed. */
export async function run(ctx: Ctx, opts: SmokeOptions): Promise<void> {
  const { out } = ctx;
  const c = out.c;
  const json = ctx.mode.json;
  const settings = await ctx.settings();
  // Always fresh: the cleanup cancels by this reference, so it must never name someone else's shipment.
  const reference = smokeReference(ctx.clock.now());
  const report: SmokeReport = {
    ok: false,
    base_url: settings.baseUrl.value,
    test_mode: settings.testMode.value,
    format: opts.format,
    steps: [],
    shipment_reference: reference,
    tracking_reference: null,
    cleaned_up: true,
    kept: opts.keep,
    ms: 0,
  };
  if (!settings.testMode.value && settings.baseUrl.source === 'profile') {
    out.warn('not in test mode: this creates (and cancels) a real shipment, and cancelled labels still count toward billing; use --test');
  }
  out.info(`Smoke test against ${report.base_url}${report.test_mode ? ' (test mode)' : ''}, reference ${reference}`);

  const width = Math.max(...STEP_NAMES.map((n) => n.length));
  const printStep = (s: SmokeStep) => {
    // --quiet: only what went wrong.
    if (json || (ctx.mode.quiet && (s.ok || s.skipped))) return;
    const time = s.skipped ? '' : c.dim(`${s.ms}ms`.padStart(7));
    const mark = s.skipped ? c.dim('–') : s.ok ? c.green('✓') : c.red('✗');
    const what = s.skipped ? c.dim(`${s.name.padEnd(width)}  skipped`) : `${s.name.padEnd(width)} ${time}`;
    const tail = s.ok ? (s.detail ? `  ${s.detail}` : '') : s.error ? `  ${c.red(s.error)}` : '';
    out.line(`${mark} ${what}${tail}`);
  };

  const release = ctx.holdInterrupts();
  const signal = ctx.signal;
  const started = performance.now();
  let firstFailure: unknown;
  let created = false;
  /** Create was sent but its outcome is unknown (network error, 5xx, interrupted): the shipment may exist. */
  let maybeCreated = false;
  let api: Api | undefined;

  /** Runs one step; records it; returns its value, or undefined once a step has failed. */
  const step = async <T>(name: string, fn: () => Promise<{ value: T; detail?: string }>): Promise<T | undefined> => {
    if (firstFailure !== undefined) {
      const s: SmokeStep = { name, ok: false, ms: 0, skipped: true };
      report.steps.push(s);
      printStep(s);
      return undefined;
    }
    const t0 = performance.now();
    try {
      if (signal.aborted) throw signal.reason ?? new Interrupted();
      const { value, detail } = await fn();
      const s: SmokeStep = { name, ok: true, ms: Math.round(performance.now() - t0), ...(detail ? { detail } : {}) };
      report.steps.push(s);
      printStep(s);
      return value;
    } catch (err) {
      const e = signal.aborted && !(err instanceof ShipError) ? new Interrupted() : err;
      firstFailure = e;
      const s: SmokeStep = { name, ok: false, ms: Math.round(performance.now() - t0), error: errorText(e), exit_code: exitCodeOf(e) };
      report.steps.push(s);
      printStep(s);
      return undefined;
    }
  };

  try {
    await step('token', async () => {
      api = await ctx.api();
      const valid = await api.tokens.check({ signal });
      // 401 is the document's answer to a bad API key; GET /tokens gives it for a bad token too.
      if (!valid) {
        const { loginCommand, rejectedFromEnvHint } = await import('../../config/settings.js');
        throw new AuthError('the API key or the token was refused (GET /tokens answered 401)', { status: 401, method: 'GET', path: '/tokens' }, { hint: rejectedFromEnvHint(settings) ?? `check the API key (SHIP_API_KEY), then run \`${loginCommand(settings)}\` (or set SHIP_TOKEN)` });
      }
      return { value: true, detail: `token is valid (from ${settings.token ? (settings.token.origin ?? settings.token.source) : 'an unknown source'})` };
    });

    await step('services', async () => {
      const services = await api!.services.list({}, { signal });
      if (services.length === 0) throw new ApiError('GET /services lists no delivery services');
      return { value: services, detail: `${services.length} service${services.length === 1 ? '' : 's'}` };
    });

    const draft = smokeShipment(reference);
    const serviceKey = await step('quote', async () => {
      const quotes = await api!.shipments.getServices(draft, { signal });
      const pick = quotes.recommended_service ?? quotes.services[0];
      if (!pick) throw new ApiError('POST /shipments/get-services offers no service for a 500 g domestic parcel');
      const price = pick.total_price ? ` ${pick.total_price}` : '';
      return { value: pick.service_key, detail: `${quotes.services.length} quote${quotes.services.length === 1 ? '' : 's'}, recommended ${pick.full_service_name ?? pick.service_name ?? pick.service_key}${price}` };
    });

    const shipment = await step('create', async () => {
      maybeCreated = true;
      try {
        const res = await api!.shipments.create({ ...draft, delivery_service_key: serviceKey, format: opts.format }, { signal });
        created = true;
        const first = res[0];
        if (!first?.tracking_reference) throw new ApiError('POST /shipments returned no tracking reference');
        report.tracking_reference = first.tracking_reference;
        return { value: first, detail: `${first.carrier ?? ''} ${first.service_name ?? ''}, tracking ${first.tracking_reference}`.trim() };
      } catch (err) {
        // A definite refusal means nothing was created; anything else (5xx, timeout, Ctrl-C) may have created it.
        if (!created && (err instanceof ValidationError || err instanceof AuthError)) maybeCreated = false;
        throw err;
      }
    });

    await step('label', async () => {
      const { documentBytes, toDocumentResult } = await import('../../api/index.js');
      const labels = await api!.parcels.label(shipment!.tracking_reference!, { format: opts.format }, { signal });
      if (labels.length === 0) throw new ApiError('GET /parcels/:ref/label returned no label');
      let bytes: Buffer;
      try {
        bytes = documentBytes(toDocumentResult(labels), opts.format);
      } catch (err) {
        throw new ApiError(`the label response holds no ${opts.format} label: ${(err as Error).message}`);
      }
      return { value: bytes, detail: checkLabel(bytes, opts.format) };
    });

    await step('track', async () => {
      const events = await api!.shipments.events(reference, { signal });
      const all = Object.values(events).flatMap((p) => p.tracking_events ?? []);
      if (all.length === 0) throw new ApiError('GET /shipments/:ref/events returned no tracking events (expected LABEL_CREATED)');
      const last = all[all.length - 1];
      return { value: all, detail: `${all.length} event${all.length === 1 ? '' : 's'}, latest ${last.type ?? last.name ?? '?'}` };
    });
  } finally {
    // Cleanup runs whatever happened above, and without the abort signal: Ctrl-C must not stop it.
    if (opts.keep && created) {
      report.cleaned_up = false;
      const s: SmokeStep = { name: 'cancel', ok: true, ms: 0, skipped: true, detail: 'kept (--keep)' };
      report.steps.push(s);
      // --quiet --keep: the reference of the kept shipment is what a script needs.
      if (!json && ctx.mode.quiet) out.line(reference);
      else if (!json) out.line(`${c.dim('–')} ${'cancel'.padEnd(width)}  ${c.dim(`skipped: --keep leaves ${reference} in place`)}`);
    } else if (created || maybeCreated) {
      const t0 = performance.now();
      try {
        if (!api) throw new ApiError('no API client');
        await api.shipments.cancel(reference);
        const s: SmokeStep = { name: 'cancel', ok: true, ms: Math.round(performance.now() - t0), detail: `cancelled ${reference}` };
        report.steps.push(s);
        printStep(s);
        report.cleaned_up = true;
      } catch (err) {
        if (!created && err instanceof NotFoundError) {
          // The unfinished create never reached the server: there is nothing to cancel.
          const s: SmokeStep = { name: 'cancel', ok: true, ms: Math.round(performance.now() - t0), detail: 'nothing was created' };
          report.steps.push(s);
          printStep(s);
          report.cleaned_up = true;
        } else {
          report.cleaned_up = false;
          firstFailure ??= err;
          const s: SmokeStep = { name: 'cancel', ok: false, ms: Math.round(performance.now() - t0), error: errorText(err), exit_code: exitCodeOf(err) };
          report.steps.push(s);
          printStep(s);
          out.warn(`shipment ${reference} may still exist: cancel it with \`ship cancel ${reference}\``);
        }
      }
    } else {
      const s: SmokeStep = { name: 'cancel', ok: false, ms: 0, skipped: true };
      report.steps.push(s);
      printStep(s);
    }
    release();
    await api?.close().catch(() => {});
  }

  report.ms = Math.round(performance.now() - started);
  report.ok = firstFailure === undefined;
  if (json) out.json(report);
  else if (report.ok && !ctx.mode.quiet) out.line(c.green(`All ${report.steps.length} steps passed in ${report.ms}ms`));

  if (firstFailure !== undefined) {
    if (firstFailure instanceof Interrupted || signal.aborted) {
      throw new Interrupted(report.cleaned_up ? 'interrupted; the smoke shipment was cleaned up' : 'interrupted');
    }
    const failed = report.steps.find((s) => !s.ok && !s.skipped);
    const code = exitCodeOf(firstFailure);
    const hint = firstFailure instanceof ShipError ? firstFailure.hint : undefined;
    throw new ShipError(`smoke test failed at step "${failed?.name ?? '?'}": ${errorText(firstFailure)}`, code === ExitCode.Ok ? ExitCode.Failure : code, { hint, cause: firstFailure });
  }
}

function errorText(err: unknown): string {
  if (err instanceof ApiError && err.http.status && !err.message.includes(String(err.http.status))) return `${err.message} (HTTP ${err.http.status})`;
  return err instanceof Error ? err.message : String(err);
}
