// Declares `ship track`; the work is imported when it runs.
import type { Command } from 'commander';
import type { Ctx } from '../../context.js';
import { UsageError } from '../../errors.js';

/** The longest --max-wait: a week (a parcel not delivered by then needs a person, not a longer poll). */
const MAX_WAIT_LIMIT_S = 7 * 86_400;

/** Registers `ship track REF… | --from FILE | - [--parcel] [--watch] [--interval S] [--max-wait S]`. */
export function registerTrack(program: Command, ctx: Ctx): void {
  program
    .command('track [refs...]')
    .description('Show the tracking timeline of shipments (or, with --parcel, of parcels)')
    .option('--parcel', 'the references are carrier tracking references of parcels (GET /parcels/:ref/events)')
    .option('--from <file>', 'read references from a file, one per line ("-" for stdin)')
    .option('-w, --watch', 'keep polling until every parcel is delivered or its delivery failed')
    .option('--interval <seconds>', 'seconds between polls with --watch', '30')
    .option('--max-wait <seconds>', 'with --watch: stop after this many seconds, exit 1 if some parcels are not delivered yet')
    .addHelpText(
      'after',
      `
One timeline per parcel, oldest event first and the latest last (marked ▶ on a terminal): time, stage,
description. A reference "-" reads references from stdin, one per line (as --from -).
With --watch the timeline is redrawn in place on a terminal (after the window is resized, or when it is
taller than the window, the screen is cleared and it is drawn from the top), and only new events are appended
otherwise; it ends when every parcel is DELIVERED or DELIVERY_FAILED (a failed one is named on stderr).
Tracking has no event for a cancelled shipment, and a parcel the carrier never moves never gets there: in a
cron job give --max-wait, which stops watching after that many seconds (a service that hangs included: the
poll made as it ends has 2 s to answer), prints what it has, names on stderr the references not delivered
yet, and exits 1. A watched reference that the API stops finding (404: deleted
or cancelled in the service) is said on stderr and no longer watched (exit 5, or 3 among several). Polls that
fail (the service down, the network) keep the last known timeline and are said: on a terminal under the
timeline, otherwise on stderr when they start failing and when they work again (and in the --max-wait error).
With --quiet, each parcel's "TRACKING_REF<tab>STATUS" is printed again whenever its status changes.
With --json, one JSON document:
{"shipments":[{"reference","shipment_reference","parcels":[{"tracking_reference","status","events":[…]}]}]}
(shipment_reference as the API names it; not with --parcel). With --watch, it is printed once at the end,
also when stopped by --max-wait, Ctrl-C (then exit 130) or SIGTERM (143).
A reference no shipment has is tracked as a parcel's tracking reference (a scanned label), as with --parcel.

Examples:
  ship track ORDER-1001
  ship track JD0002212345678 --parcel
  ship track ORDER-1001 ORDER-1002 --watch --interval 60
  ship track --from today.txt --watch --interval 300 --max-wait 7200 --json > tracking.json`,
    )
    .action(async (refs: string[], flags: { parcel?: boolean; from?: string; watch?: boolean; interval: string; maxWait?: string }, cmd: Command) => {
      if (!flags.watch && cmd.getOptionValueSource('interval') === 'cli') throw new UsageError('--interval is how often --watch polls: add --watch');
      if (!flags.watch && flags.maxWait !== undefined) throw new UsageError('--max-wait bounds how long --watch polls: add --watch');
      if (refs.length === 0 && flags.from === undefined) throw new UsageError('give at least one reference, --from FILE, or - for stdin');
      const interval = Number(flags.interval);
      if (!Number.isFinite(interval) || interval < 0.1 || interval > 86_400) {
        throw new UsageError(`--interval: "${flags.interval}" must be a number of seconds from 0.1 to 86400`);
      }
      const { parseTimeoutSeconds } = await import('../../config/validate.js');
      const maxWaitMs = flags.maxWait === undefined ? undefined : parseTimeoutSeconds(flags.maxWait, '--max-wait', MAX_WAIT_LIMIT_S);
      const { run } = await import('./run.js');
      await run(ctx, { refs, from: flags.from, parcel: Boolean(flags.parcel), watch: Boolean(flags.watch), intervalMs: Math.round(interval * 1000), maxWaitMs });
    });
}
