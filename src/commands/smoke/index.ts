// Declares `ship smoke`: the end-to-end check a CI pipeline runs against the test base URL.
import { Option, type Command } from 'commander';
import { completeWith } from '../../completion/values.js';
import type { Ctx } from '../../context.js';
import { UsageError } from '../../errors.js';

/** Registers `ship smoke`. */
export function registerSmoke(program: Command, ctx: Ctx): void {
  program
    .command('smoke')
    .description('Check the integration end to end: token, services, quote, create, label, track, cancel (always cleans up)')
    .addOption(completeWith(new Option('--format <format>', 'label format to fetch and check: ZPL, PDF or PNG').default('ZPL'), ['ZPL', 'PDF', 'PNG']))
    .option('--keep', 'leave the created shipment in place (not cancelled)')
    .addHelpText(
      'after',
      `
Run it against the test base URL (--test, SHIP_TEST=1, or SHIP_BASE_URL). Each step prints a line with
✓ or ✗ and its time; --json prints {ok, base_url, steps:[{name, ok, ms, error?}], shipment_reference, cleaned_up}.
The shipment it creates is cancelled even when a later step fails or the run is interrupted (Ctrl-C: cleanup
first, then exit 130). Exit 0 only when every step passed, otherwise the exit code of the first failure
(4: the token or API key was refused; 1: the API or network failed).

Examples:
  ship smoke --test
  SHIP_BASE_URL=http://127.0.0.1:4010/v1.2 ship smoke --json --format PDF`,
    )
    .action(async (flags: { format: string; keep?: boolean }) => {
      const format = flags.format.toUpperCase();
      if (format !== 'ZPL' && format !== 'PDF' && format !== 'PNG') throw new UsageError(`--format must be ZPL, PDF or PNG, not "${flags.format}"`);
      const { run } = await import('./run.js');
      await run(ctx, { format, keep: Boolean(flags.keep) });
    });
}
