// Declares `ship print`; the work is imported when it runs.
import type { Command } from 'commander';
import type { Ctx } from '../../context.js';
import { oneRef } from '../shared/one-ref.js';
import { UsageError } from '../../errors.js';
import { PRINTER_ALONE, printerFlag, type PrinterFlag } from '../shared/printer-flag.js';
import { parseSeconds } from '../label/index.js';

/** Registers `ship print REF [--to-user ID] [--printer-key KEY] | [--printer tcp://…|NAME]`. */
export function registerPrint(program: Command, ctx: Ctx): void {
  program
    .command('print <ref>')
    .description("Print a shipment's labels: through the desktop printing application, or straight to a thermal printer")
    .option('--to-user <id>', "print on this user's desktop printing application (a user ID from `ship users`)")
    .option('--printer-key <key>', 'the printer key, when using the print server application')
    .option('--printer [printer]', `send the ZPL labels over a raw socket: tcp://HOST:PORT or a printer name from the profile (${PRINTER_ALONE})`)
    .option('--no-preflight', "don't ask the printer for its status (~HS) before sending")
    .option('--printer-timeout <seconds>', 'printer connection and status timeout', '5')
    .addHelpText(
      'after',
      `
Without --printer, PUT /shipments/:ref/print asks the desktop printing application and prints the API's
message (with --quiet, REF alone); each such request prints the labels again, so one whose answer is lost
(a timeout, a 5xx) is not retried: check the printer before printing again. With --printer, the ZPL label
of each parcel (in parcel order) is fetched and sent to the printer byte for byte; labels are reported as sent, since a raw port cannot confirm printing. Ctrl-C finishes the
label being sent, sends no more, and names the labels sent and not sent (exit 130); pressed while the last
one is being sent, it exits 130 saying every label went out whole (nothing is left to send).
REF is the shipment reference or ID, or a parcel's tracking reference (its whole shipment is printed);
without --printer also the order reference or the service's own tracking reference.

Examples:
  ship print ORDER-1001
  ship print ORDER-1001 --to-user 5f0c… --printer-key desk-2
  ship print ORDER-1001 --printer tcp://10.0.0.50:9100
  ship print ORDER-1001 --printer dock3
  ship print ORDER-1001 --printer                 # the profile's printer (ship config set printer dock3)`,
    )
    .action(async (ref: string, flags: { toUser?: string; printerKey?: string; printer?: PrinterFlag; preflight: boolean; printerTimeout: string }) => {
      const printer = printerFlag(flags.printer);
      if (printer !== undefined && (flags.toUser !== undefined || flags.printerKey !== undefined)) {
        throw new UsageError('--printer sends labels straight to a printer; --to-user and --printer-key are for the desktop application');
      }
      const printerTimeoutMs = parseSeconds('--printer-timeout', flags.printerTimeout);
      ref = oneRef(ref, 'print');
      const { run } = await import('./run.js');
      await run(ctx, { ref, toUser: flags.toUser, printerKey: flags.printerKey, printer, preflight: flags.preflight, printerTimeoutMs });
    });
}
