// `ship print`: PUT /shipments/:ref/print (desktop application), or fetch each parcel's ZPL label and send
// them to a thermal printer over a raw socket, in parcel order.
import type { Ctx } from '../../context.js';
import type { Api } from '../../api/index.js';
import { ApiError, Interrupted, NotFoundError, ShipError, ValidationError } from '../../errors.js';
import { preflight as checkPrinter, interruption, PrinterError, printerName, resolvePrinter, sendRaw } from '../../printer/index.js';
import { labelBytesOf } from '../label/run.js';
import { resendRestHint } from '../shared/printer-flag.js';

/** Options of `ship print`. */
export interface PrintOptions {
  ref: string;
  toUser?: string;
  printerKey?: string;
  printer?: string;
  preflight: boolean;
  printerTimeoutMs: number;
}

/** Prints a shipment's labels through the desktop application or straight to a raw-socket printer. */
export async function run(ctx: Ctx, opts: PrintOptions): Promise<void> {
  if (opts.printer !== undefined) return rawPrint(ctx, opts);
  const api = await ctx.api();
  const body: { print_to_user?: string; printer_key?: string } = {};
  if (opts.toUser) body.print_to_user = opts.toUser;
  if (opts.printerKey) body.printer_key = opts.printerKey;
  let res;
  try {
    res = await api.shipments.print(opts.ref, body);
  } catch (e) {
    // The API names its fields; the user typed flags.
    if (e instanceof ValidationError) {
      const flagOf: Record<string, string> = { print_to_user: '--to-user', printer_key: '--printer-key' };
      e.located = Object.entries(e.fields).flatMap(([field, messages]) => messages.map((message) => ({ column: flagOf[field] ?? field, message })));
      // The API's message is generic ("The given data failed to pass validation."): say which shipment.
      e.message = `labels of ${opts.ref} not printed: ${e.message}`;
    }
    throw e;
  }
  if (ctx.mode.json) {
    ctx.out.json({ shipment_reference: opts.ref, via: 'desktop', message: res.message });
    return;
  }
  // --quiet: what a script needs, the reference done (as cancel and containers close print it), not the API's words.
  if (ctx.mode.quiet) return ctx.out.line(opts.ref);
  ctx.out.line(res.message || `labels of ${opts.ref} sent to the desktop printing application`);
}

async function rawPrint(ctx: Ctx, opts: PrintOptions): Promise<void> {
  const printer = (await resolvePrinter(ctx, opts.printer))!;
  const api = await ctx.api();
  // A parcel's tracking reference names its shipment: messages and JSON say the shipment.
  const { ref: shipment, trackingRefs } = await parcelsOf(api, opts.ref);
  if (trackingRefs.length === 0) throw new ApiError(`shipment ${shipment} has no parcels to print`);
  if (opts.preflight) await checkPrinter(printer, { timeoutMs: opts.printerTimeoutMs });
  // Fetch every label first: a failure halfway must not leave half a shipment printed.
  const labels: Array<{ ref: string; bytes: Buffer }> = [];
  for (const ref of trackingRefs) {
    const list = await api.parcels.label(ref, { format: 'ZPL' });
    if (list.length === 0) throw new ApiError(`the API returned no label for parcel ${ref}`);
    labels.push({ ref, bytes: labelBytesOf(list[0], 'ZPL', ref) });
  }
  const sent: string[] = [];
  const where = printerName(printer);
  // Ctrl-C while sending finishes the label under way and stops there, saying which went out (an exit
  // without a word left the user to guess which labels to send again).
  const release = ctx.holdInterrupts();
  try {
    for (const l of labels) {
      if (ctx.signal.aborted) throw interruptedPrint(shipment, printer.name ?? printer.url, labels.map((x) => x.ref), sent, interruption(ctx.signal));
      try {
        await sendRaw(printer, l.bytes, { timeoutMs: opts.printerTimeoutMs });
      } catch (e) {
        throw partlySent(shipment, printer.name ?? printer.url, labels.map((x) => x.ref), sent, e);
      }
      sent.push(l.ref);
    }
  } finally {
    release();
  }
  // Ctrl-C while the last label was being sent (one earlier stops the next, above): it was finished and none is
  // left, but the run was interrupted all the same: exit 130 saying so, as `ship label --printer` does.
  if (ctx.signal.aborted) throw allSentInterrupted(shipment, where, sent, interruption(ctx.signal));
  if (ctx.mode.json) {
    ctx.out.json({ shipment_reference: shipment, via: 'raw', printer: { url: printer.url, name: printer.name ?? null }, status: 'sent', labels: sent });
    return;
  }
  if (ctx.mode.quiet) {
    for (const r of sent) ctx.out.line(r);
    return;
  }
  for (const r of sent) ctx.out.line(`sent\t${r}`);
  ctx.out.success(`${sent.length} label${sent.length === 1 ? '' : 's'} of ${shipment} sent to printer ${where}`);
}

/**
 * The carrier tracking references of a shipment's parcels, in parcel order (the keys of its events). PUT
 * /shipments/:ref/print takes a parcel's tracking reference as well as the shipment's reference or ID, and so
 * does `--printer`: a scanned label's reference is looked up through its label, which names its shipment.
 */
async function parcelsOf(api: Api, ref: string): Promise<{ ref: string; trackingRefs: string[] }> {
  try {
    return { ref, trackingRefs: Object.keys(await api.shipments.events(ref)) };
  } catch (e) {
    if (!(e instanceof NotFoundError)) throw e;
    let shipment: string | undefined;
    try {
      shipment = (await api.parcels.label(ref, { format: 'ZPL' }))[0]?.shipment_reference ?? undefined;
    } catch (notParcel) {
      if (!(notParcel instanceof NotFoundError)) throw notParcel;
    }
    if (!shipment) {
      throw new NotFoundError(`no shipment or parcel ${JSON.stringify(ref)}: not found`, e.http, {
        hint: "with --printer, give the shipment reference or ID, or a parcel's tracking reference (an order reference or the service's own tracking reference works only without --printer)",
      });
    }
    return { ref: shipment, trackingRefs: Object.keys(await api.shipments.events(shipment)) };
  }
}

/**
 * The printer failed partway through a shipment: say which parcels' labels went out and which did not, so
 * the rest can be sent without printing the first ones twice (`ship print REF` again sends every label).
 */
function partlySent(ref: string, name: string, all: readonly string[], sent: readonly string[], cause: unknown): ShipError {
  const why = cause instanceof Error ? cause.message : String(cause);
  if (sent.length === 0) {
    if (cause instanceof ShipError) return cause;
    return new PrinterError(why, { cause });
  }
  const rest = all.slice(sent.length);
  return new PrinterError(
    `${sent.length} of the ${all.length} labels of ${ref} ${sent.length === 1 ? 'was' : 'were'} sent (${sent.join(', ')}), then the printer failed: ${why}; not sent: ${rest.join(', ')}`,
    {
      hint: `when the printer is back, send only those: ${resendRestHint(ref, name, rest, sent.length)}`,
      cause,
    },
  );
}

/**
 * Ctrl-C while the last label of a shipment was being sent: it was finished, so every label went out whole and
 * nothing is left to send; pressed while they printed, the user cannot tell, and sending them again prints them
 * twice (exit 130).
 */
function allSentInterrupted(ref: string, where: string, sent: readonly string[], reason: Interrupted): Interrupted {
  const what =
    sent.length === 1
      ? `the label of ${ref} (${sent[0]}) being sent was finished: it went to printer ${where} whole, and nothing is left to send. Do not send it again unless it did not print`
      : `the last label of ${ref} being sent was finished: all ${sent.length} labels (${sent.join(', ')}) went to printer ${where} whole, and nothing is left to send. Do not send them again unless they did not print`;
  return new Interrupted(`interrupted: ${what}`, reason.signal);
}

/**
 * Ctrl-C between two labels of a shipment: which went out and which did not, and how to send only the rest
 * (exit 130). Interrupted is shown as its message alone, so the way on is in it.
 */
function interruptedPrint(ref: string, name: string, all: readonly string[], sent: readonly string[], reason: Interrupted): Interrupted {
  if (sent.length === 0) return new Interrupted(`interrupted: no label of ${ref} was sent`, reason.signal);
  const rest = all.slice(sent.length);
  return new Interrupted(
    `interrupted: ${sent.length} of the ${all.length} labels of ${ref} ${sent.length === 1 ? 'was' : 'were'} sent (${sent.join(', ')}); not sent: ${rest.join(', ')}. ` +
      `To send only those: ${resendRestHint(ref, name, rest, sent.length)}`,
    reason.signal,
  );
}
