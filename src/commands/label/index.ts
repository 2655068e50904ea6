// Declares `ship label`; the work is imported when it runs.
import { Option, type Command } from 'commander';
import type { Ctx } from '../../context.js';
import { oneRef } from '../shared/one-ref.js';
import { UsageError } from '../../errors.js';
import { completeWith } from '../../completion/values.js';
import { PRINTER_ALONE, printerFlag, type PrinterFlag } from '../shared/printer-flag.js';

/** Registers `ship label TRACKING_REF [--format] [-o PATH|-] [--printer tcp://…|NAME] [--no-preflight]`. */
export function registerLabel(program: Command, ctx: Ctx): void {
  program
    .command('label <tracking-ref>')
    .description("Fetch a parcel's label (GET /parcels/:ref/label): save it, write it to stdout, or send it to a printer")
    .addOption(completeWith(new Option('--format <format>', 'ZPL, PDF or PNG (default: the profile\'s label_format, else ZPL)'), ['ZPL', 'PDF', 'PNG']))
    .option('-o, --output <path>', 'file (or directory) to write; "-" writes the raw bytes to stdout (PDF and PNG not to a terminal)')
    .option('--printer [printer]', `send the ZPL label to a thermal printer: tcp://HOST:PORT or a printer name from the profile (${PRINTER_ALONE})`)
    .option('--no-preflight', "don't ask the printer for its status (~HS) before sending")
    .option('--printer-timeout <seconds>', 'printer connection and status timeout', '5')
    .addHelpText(
      'after',
      `
Without -o the label is saved as ./<TRACKING_REF>.<ext> (the name made safe). ZPL is written byte for
byte as the API sent it. A printer gets the label over a raw socket (port 9100); labels are reported as
sent, since a raw port cannot confirm printing. Ctrl-C while the label is being sent lets it finish (a
label cut off prints as garbage), then exits 130 saying it went out whole. TRACKING_REF is a parcel's:
given a shipment reference, it exits 5 with a hint naming that shipment's parcels (ship print REF
--printer sends them all).

Examples:
  ship label JD0002212345678
  ship label JD0002212345678 --format PDF -o label.pdf
  ship label JD0002212345678 -o - | lp -d zebra -o raw
  ship label JD0002212345678 --printer tcp://10.0.0.50:9100`,
    )
    .action(async (trackingRef: string, flags: { format?: string; output?: string; printer?: PrinterFlag; preflight: boolean; printerTimeout: string }) => {
      const printerTimeoutMs = parseSeconds('--printer-timeout', flags.printerTimeout);
      trackingRef = oneRef(trackingRef, 'label');
      const { run } = await import('./run.js');
      await run(ctx, {
        trackingRef,
        format: flags.format,
        output: flags.output,
        printer: printerFlag(flags.printer),
        preflight: flags.preflight,
        printerTimeoutMs,
      });
    });
}

/** Parses a positive number of seconds into ms (UsageError naming the flag). */
export function parseSeconds(flag: string, v: string): number {
  const n = Number(v);
  if (!Number.isFinite(n) || n <= 0 || n > 3600) throw new UsageError(`${flag}: "${v}" must be a positive number of seconds`);
  return Math.round(n * 1000);
}
