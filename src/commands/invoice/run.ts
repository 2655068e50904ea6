// `ship invoice`: fetches the commercial invoice (base64 PDF), checks it is a PDF, writes it.
import type { Ctx } from '../../context.js';
import { ApiError, UsageError } from '../../errors.js';
// From documents.js itself, not the api/index.js barrel: that re-exports the schemas, and so loads zod.
import { documentBytes } from '../../api/documents.js';
import { safeFileStem, writeFileAtomic } from '../../labels/index.js';
import { outputPath, writeStdout } from '../label/run.js';
import { stdoutAlias } from '../../util/special-file.js';

/** Options of `ship invoice`. */
export interface InvoiceOptions {
  ref: string;
  output?: string;
}

/** Saves the shipment's commercial invoice PDF (or writes it to stdout with -o -). */
export async function run(ctx: Ctx, opts: InvoiceOptions): Promise<void> {
  opts = { ...opts, output: stdoutAlias(opts.output) };
  if (opts.output === '-' && ctx.mode.json) throw new UsageError('-o - writes the PDF itself to stdout; it cannot be combined with --json');
  // PDF bytes on a terminal garble it (and can send it control sequences).
  if (opts.output === '-' && ctx.io.stdoutIsTTY) {
    throw new UsageError("-o - would write the invoice's PDF bytes to the terminal", { hint: `redirect stdout to a file or a program (\`ship invoice ${opts.ref} -o - > invoice.pdf\`), or name a file with -o` });
  }
  const api = await ctx.api();
  const doc = await api.shipments.commercialInvoice(opts.ref, { signal: ctx.signal });
  let bytes: Buffer;
  try {
    bytes = documentBytes(doc, 'PDF');
  } catch (e) {
    throw new ApiError(`the commercial invoice of ${opts.ref}: ${(e as Error).message}`);
  }
  if (bytes.subarray(0, 5).toString('latin1') !== '%PDF-') {
    throw new ApiError(`the commercial invoice of ${opts.ref} is not a PDF (no %PDF- header)`);
  }
  if (opts.output === '-') return writeStdout(ctx, bytes);
  const path = outputPath(opts.output, `${safeFileStem(`${opts.ref}-invoice`)}.pdf`);
  writeFileAtomic(path, bytes);
  if (ctx.mode.json) {
    // REF may be an order or tracking reference: the shipment's own reference is the one the invoice names.
    ctx.out.json({ shipment_reference: shipmentReferenceOf(doc.raw) ?? opts.ref, path, bytes: bytes.length });
    return;
  }
  ctx.out.line(path);
  ctx.out.success(`saved the commercial invoice of ${opts.ref} (${bytes.length} bytes)`);
}

/** The `shipment_reference` an invoice response names (in `data`, or its one element), if any. */
function shipmentReferenceOf(raw: unknown): string | undefined {
  const one: unknown = Array.isArray(raw) ? raw[0] : raw;
  const ref = one !== null && typeof one === 'object' ? (one as { shipment_reference?: unknown }).shipment_reference : undefined;
  return typeof ref === 'string' && ref !== '' ? ref : undefined;
}
