// `ship print`: PUT /shipments/:ref/print (desktop application), or fetch each parcel's ZPL label and send
// them to a thermal printer over a raw socket, in parcel order.
import type { Ctx } from '../../context.js';
import { ApiError, ShipError, ValidationError } from '../../errors.js';
import { preflight as checkPrinter, PrinterError, resolvePrinter, sendRaw } from '../../printer/index.js';
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
    }
    throw e;
  }
  if (ctx.mode.json) {
    ctx.out.json({ shipment_reference: opts.ref, via: 'desktop', message: res.message });
    return;
  }
  ctx.out.line(res.message || `labels of ${opts.ref} sent to the desktop printing application`);
}

async function rawPrint(ctx: Ctx, opts: PrintOptions): Promise<void> {
  const printer = (await resolvePrinter(ctx, opts.printer))!;
  const api = await ctx.api();
  // The events response is keyed by each parcel's carrier tracking reference: that is how we find the parcels.
  const events = await api.shipments.events(opts.ref);
  const trackingRefs = Object.keys(events);
  if (trackingRefs.length === 0) throw new ApiError(`shipment ${opts.ref} has no parcels to print`);
  if (opts.preflight) await checkPrinter(printer, { timeoutMs: opts.printerTimeoutMs });
  // Fetch every label first: a failure halfway must not leave half a shipment printed.
  const labels: Array<{ ref: string; bytes: Buffer }> = [];
  for (const ref of trackingRefs) {
    const list = await api.parcels.label(ref, { format: 'ZPL' });
    if (list.length === 0) throw new ApiError(`the API returned no label for parcel ${ref}`);
    labels.push({ ref, bytes: labelBytesOf(list[0], 'ZPL', ref) });
  }
  const sent: string[] = [];
  const where = printer.name ? `${printer.name} (${printer.url})` : printer.url;
  for (const l of labels) {
    try {
      await sendRaw(printer, l.bytes, { timeoutMs: opts.printerTimeoutMs });
    } catch (e) {
      throw partlySent(opts.ref, printer.name ?? printer.url, labels.map((x) => x.ref), sent, e);
    }
    sent.push(l.ref);
  }
  if (ctx.mode.json) {
    ctx.out.json({ shipment_reference: opts.ref, via: 'raw', printer: { url: printer.url, name: printer.name ?? null }, status: 'sent', labels: sent });
    return;
  }
  if (ctx.mode.quiet) {
    for (const r of sent) ctx.out.line(r);
    return;
  }
  for (const r of sent) ctx.out.line(`sent\t${r}`);
  ctx.out.success(`${sent.length} label${sent.length === 1 ? '' : 's'} of ${opts.ref} sent to printer ${where}`);
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
    `${sent.length} of the ${all.length} labels of ${ref} were sent (${sent.join(', ')}), then the printer failed: ${why}; not sent: ${rest.join(', ')}`,
    {
      hint: `when the printer is back, send only those: ${resendRestHint(ref, name, rest, sent.length)}`,
      cause,
    },
  );
}
