// Declares `ship invoice`; the work is imported when it runs.
import type { Command } from 'commander';
import type { Ctx } from '../../context.js';
import { oneRef } from '../shared/one-ref.js';

/** Registers `ship invoice REF [-o FILE.pdf|-]`. */
export function registerInvoice(program: Command, ctx: Ctx): void {
  program
    .command('invoice <ref>')
    .description("Save a shipment's A4 commercial invoice as a PDF (GET /shipments/:ref/commercial-invoice)")
    .option('-o, --output <file>', 'where to write the PDF ("-" for stdout, not a terminal); default ./<REF>-invoice.pdf')
    .addHelpText(
      'after',
      `
REF is the shipment reference or ID, the order reference, or a tracking reference.

Examples:
  ship invoice ORDER-1001
  ship invoice ORDER-1001 -o invoices/ORDER-1001.pdf
  ship invoice ORDER-1001 -o - | lp`,
    )
    .action(async (ref: string, flags: { output?: string }) => {
      ref = oneRef(ref, 'invoice');
      const { run } = await import('./run.js');
      await run(ctx, { ref, output: flags.output });
    });
}
