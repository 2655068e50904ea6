// Declares `ship track`; the work is imported when it runs.
import type { Command } from 'commander';
import type { Ctx } from '../../context.js';
import { UsageError } from '../../errors.js';

/** Registers `ship track REF… [--parcel] [--watch] [--interval S]`. */
export function registerTrack(program: Command, ctx: Ctx): void {
  program
    .command('track <refs...>')
    .description('Show the tracking timeline of shipments (or, with --parcel, of parcels)')
    .option('--parcel', 'the references are carrier tracking references of parcels (GET /parcels/:ref/events)')
    .option('-w, --watch', 'keep polling until every parcel is delivered or its delivery failed')
    .option('--interval <seconds>', 'seconds between polls with --watch', '30')
    .addHelpText(
      'after',
      `
One timeline per parcel, oldest event first and the latest last (marked ▶ on a terminal): time, stage,
description. With --watch the timeline is redrawn on a terminal, and only new events are appended
otherwise; it ends when every parcel is DELIVERED or DELIVERY_FAILED. With --json, one JSON document:
{"shipments":[{"reference","shipment_reference","parcels":[{"tracking_reference","status","events":[…]}]}]}
(shipment_reference as the API names it; not with --parcel). With --watch, it is
printed once at the end, also when stopped by Ctrl-C or a signal (then exit 130).
A reference no shipment has is tracked as a parcel's tracking reference (a scanned label), as with --parcel.

Examples:
  ship track ORDER-1001
  ship track JD0002212345678 --parcel
  ship track ORDER-1001 ORDER-1002 --watch --interval 60`,
    )
    .action(async (refs: string[], flags: { parcel?: boolean; watch?: boolean; interval: string }, cmd: Command) => {
      if (!flags.watch && cmd.getOptionValueSource('interval') === 'cli') throw new UsageError('--interval is how often --watch polls: add --watch');
      const interval = Number(flags.interval);
      if (!Number.isFinite(interval) || interval < 0.1 || interval > 86_400) {
        throw new UsageError(`--interval: "${flags.interval}" must be a number of seconds from 0.1 to 86400`);
      }
      const { run } = await import('./run.js');
      await run(ctx, { refs, parcel: Boolean(flags.parcel), watch: Boolean(flags.watch), intervalMs: Math.round(interval * 1000) });
    });
}
