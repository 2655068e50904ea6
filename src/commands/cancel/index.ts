// Declares `ship cancel`; the work is imported when it runs.
import type { Command } from 'commander';
import type { Ctx } from '../../context.js';
import { UsageError } from '../../errors.js';

/** Registers `ship cancel REF… | --from FILE | -`. */
export function registerCancel(program: Command, ctx: Ctx): void {
  program
    .command('cancel [refs...]')
    .description('Cancel shipments that have not been manifested yet (DELETE /shipments/:ref)')
    .option('--from <file>', 'read shipment references from a file, one per line ("-" for stdin)')
    .option('--concurrency <n>', 'cancellations in flight at once', '8')
    .option('-y, --yes', 'do not ask for confirmation on a terminal')
    .addHelpText(
      'after',
      `
A reference "-" reads references from stdin, one per line (blank lines and comments are skipped: from a "#"
alone or followed by a space to the end of the line, "ORD-1 # gift"; #1005 is a reference).
Each reference gets one result: a line "cancelled<TAB>REF" or "failed<TAB>REF<TAB>reason" (with --json,
one JSON object per line). A shipment cancelled before is no failure: "cancelled<TAB>REF<TAB>already
cancelled", so a list can be cancelled again safely. Exit 3 when some failed, 1 when every one failed for the
service or the network (5xx after the retries, timeouts: the service is down); with a single reference, its
own exit code (5 not found, 2 refused by the API, e.g. already manifested, 1 the service failed).
At a terminal it asks once before cancelling (--yes skips); scripts, CI and --no-input are never asked.

Examples:
  ship cancel ORDER-1001
  ship cancel ORDER-1001 ORDER-1002 --yes
  ship cancel ORDER-1001 ORDER-1002 --json
  tail -n +2 today.csv | cut -d, -f1 | ship cancel -    # the references of a CSV, its header row aside`,
    )
    .action(async (refs: string[], flags: { from?: string; concurrency: string; yes?: boolean }) => {
      const concurrency = Number(flags.concurrency);
      if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 64) {
        throw new UsageError(`--concurrency: "${flags.concurrency}" must be a whole number from 1 to 64`);
      }
      const { run } = await import('./run.js');
      await run(ctx, { refs, from: flags.from, concurrency, yes: Boolean(flags.yes) });
    });
}
