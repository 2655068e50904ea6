// `ship print`: PUT /shipments/:ref/print (desktop application), or fetch each parcel's ZPL label and send
// them to a thermal printer over a raw socket, in parcel order.
import type { Ctx } from '../../context.js';
import { ApiError, ValidationError } from '../../errors.js';
import { preflight as checkPrinter, resolvePrinter, sendRaw } from '../../printer/index.js';
import { labelBytesOf } from '../label/run.js';

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
  for (const l of labels) {
    await sendRaw(printer, l.bytes, { timeoutMs: opts.printerTimeoutMs });
    sent.push(l.ref);
  }
  const where = printer.name ? `${printer.name} (${printer.url})` : printer.url;
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
