// `ship label`: GET /parcels/:ref/label, then a file, stdout, or a raw-socket printer.
import { statSync } from 'node:fs';
import { join } from 'node:path';
import type { Ctx } from '../../context.js';
import { ApiError, Interrupted, NotFoundError, UsageError } from '../../errors.js';
import type { Api } from '../../api/index.js';
// From documents.js itself, not the api/index.js barrel: that re-exports the schemas, and so loads zod.
import { documentBytes, toDocumentResult } from '../../api/documents.js';
import { checkMagic, labelExtension, parseLabelFormat, safeFileStem, writeFileAtomic, type LabelFormat } from '../../labels/index.js';
import { preflight as checkPrinter, interruption, printerName, resolvePrinter, sendLabels, type PrinterTarget } from '../../printer/index.js';
import { defaultLabelFormat, formatOfPath } from '../shared/label-format.js';
import { stdoutAlias } from '../../util/special-file.js';

/** Options of `ship label`. */
export interface LabelOptions {
  trackingRef: string;
  format?: string;
  output?: string;
  printer?: string;
  preflight: boolean;
  printerTimeoutMs: number;
}

/** Fetches one parcel's label and saves, prints to stdout, or sends it to a printer. */
export async function run(ctx: Ctx, opts: LabelOptions): Promise<void> {
  opts = { ...opts, output: stdoutAlias(opts.output) };
  if (opts.output === '-' && ctx.mode.json) throw new UsageError('-o - writes the label itself to stdout; it cannot be combined with --json');
  let format: LabelFormat | undefined;
  if (opts.format !== undefined) {
    format = parseLabelFormat(opts.format);
    if (!format) throw new UsageError(`--format: "${opts.format}" is not a label format; use ZPL, PDF or PNG`);
  }
  const printer = opts.printer !== undefined ? await resolvePrinter(ctx, opts.printer) : undefined;
  if (printer && format && format !== 'ZPL') throw new UsageError(`--printer sends ZPL; --format ${format} cannot be printed raw`);
  // `-o label.pdf` names the format too: never PDF bytes in a .zpl file.
  const named = opts.output !== '-' ? formatOfPath(opts.output) : undefined;
  if (named && format && named !== format) {
    throw new UsageError(`-o ${opts.output}: a .${named.toLowerCase()} file for a ${format} label`, { hint: `name it .${labelExtension(format)}, or ask for --format ${named}` });
  }
  if (named && printer && named !== 'ZPL') throw new UsageError(`-o ${opts.output}: --printer sends ZPL, so the file would be ZPL too; name it .zpl`);
  format ??= printer ? 'ZPL' : (named ?? (await defaultLabelFormat(ctx)));
  // ZPL is text; PDF and PNG bytes on a terminal garble it (and can send it control sequences).
  if (opts.output === '-' && format !== 'ZPL' && ctx.io.stdoutIsTTY) {
    throw new UsageError(`-o - would write the ${format} label's bytes to the terminal`, { hint: `redirect stdout to a file or a program (\`ship label ${opts.trackingRef} --format ${format} -o - > label.${labelExtension(format)}\`), or name a file with -o` });
  }

  const api = await ctx.api();
  // Check the printer before fetching, so a printer that is out of paper fails fast.
  if (printer && opts.preflight) await checkPrinter(printer, { timeoutMs: opts.printerTimeoutMs });
  const labels = await api.parcels.label(opts.trackingRef, { format }).catch(async (e: unknown) => {
    throw e instanceof NotFoundError ? await withShipmentHint(api, opts.trackingRef, e) : e;
  });
  if (labels.length === 0) throw new ApiError(`the API returned no label for parcel ${opts.trackingRef}`);
  const bytes = labelBytesOf(labels[0], format, opts.trackingRef);

  let path: string | undefined;
  if (opts.output === '-') {
    await writeStdout(ctx, bytes);
  } else if (opts.output !== undefined || !printer) {
    path = outputPath(opts.output, `${safeFileStem(opts.trackingRef)}.${labelExtension(format)}`);
    writeFileAtomic(path, bytes);
  }
  if (printer) await sendToPrinter(ctx, printer, bytes, opts, path);

  if (opts.output === '-') {
    if (printer) ctx.out.success(`label sent to printer ${printer.name ?? printer.url}`);
    return;
  }
  if (ctx.mode.json) {
    const doc: Record<string, unknown> = { tracking_reference: opts.trackingRef, format, bytes: bytes.length };
    if (path) doc.path = path;
    if (printer) doc.printer = { url: printer.url, name: printer.name ?? null, status: 'sent' };
    ctx.out.json(doc);
    return;
  }
  // The path is the data (scripts use it, also with --quiet); the rest is talk on stderr.
  if (path) ctx.out.line(path);
  if (printer) ctx.out.success(`label ${opts.trackingRef} sent to printer ${printer.name ?? printer.url} (${bytes.length} bytes)`);
  else if (path) ctx.out.success(`saved the ${format} label of ${opts.trackingRef}`);
}

/**
 * Sends the label to the printer. Ctrl-C meanwhile lets the send under way finish (a label cut off mid-way
 * prints as garbage, or not at all), then stops with exit 130 saying the label went out whole: pressed while it
 * printed, the user cannot tell, and sending it again prints it twice.
 */
async function sendToPrinter(ctx: Ctx, printer: PrinterTarget, bytes: Buffer, opts: LabelOptions, path: string | undefined): Promise<void> {
  const where = printerName(printer);
  const saved = path ? `; the label is saved as ${path}` : '';
  const release = ctx.holdInterrupts();
  try {
    await sendLabels(printer, [bytes], { timeoutMs: opts.printerTimeoutMs, signal: ctx.signal });
  } catch (e) {
    // Ctrl-C before the send began (sendLabels starts none after it).
    if (e instanceof Interrupted) {
      throw new Interrupted(`interrupted: the label of ${opts.trackingRef} was not sent to printer ${where}${saved}. To send it: \`ship label ${opts.trackingRef} --printer ${printer.name ?? printer.url}\``, e.signal);
    }
    throw e;
  } finally {
    release();
  }
  if (ctx.signal.aborted) {
    throw new Interrupted(
      `interrupted: the label of ${opts.trackingRef} being sent was finished: it went to printer ${where} whole (${bytes.length} bytes), and nothing is left to send${saved}. Do not send it again unless it did not print`,
      interruption(ctx.signal).signal,
    );
  }
}

/**
 * A 404 for a reference that is a shipment's, not a parcel's (people type the order or shipment reference
 * they know): the hint names its parcels' tracking references, which `ship label` takes, and `ship print`.
 */
async function withShipmentHint(api: Api, ref: string, err: NotFoundError): Promise<NotFoundError> {
  let parcels: string[];
  try {
    parcels = Object.keys(await api.shipments.events(ref));
  } catch {
    return err;
  }
  if (parcels.length === 0) return err;
  const shown = parcels.slice(0, 3).map((t) => `ship label ${t}`).join(', ');
  err.hint = `${ref} is a shipment; labels are per parcel: ${shown}${parcels.length > 3 ? ', …' : ''} (or all of them: ship print ${ref} --printer …)`;
  return err;
}

/** The bytes of one Label object in a format, checked (ZPL unchanged; PDF/PNG decoded). */
export function labelBytesOf(label: object, format: LabelFormat, ref: string): Buffer {
  let bytes: Buffer;
  try {
    bytes = documentBytes(toDocumentResult(label), format);
  } catch (e) {
    throw new ApiError(`the label of ${ref}: ${(e as Error).message}`);
  }
  checkMagic(bytes, format);
  return bytes;
}

/** Where to write: the given file, a default name inside a given directory, or the default name here. */
export function outputPath(output: string | undefined, defaultName: string): string {
  if (output === undefined) return defaultName;
  try {
    if (statSync(output).isDirectory()) return join(output, defaultName);
  } catch {
    // not there yet: a file name
  }
  if (/[\\/]$/.test(output)) return join(output, defaultName);
  return output;
}

/** Writes bytes to stdout and waits until they are handed over (so a pipe gets all of them). */
export function writeStdout(ctx: Ctx, bytes: Uint8Array): Promise<void> {
  return new Promise((resolve, reject) => {
    ctx.io.stdout.write(bytes, (err) => (err ? reject(err) : resolve()));
  });
}
