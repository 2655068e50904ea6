// Declares `ship doctor`: checks the local setup without creating anything.
import type { Command } from 'commander';
import type { Ctx } from '../../context.js';
import { parseSeconds } from '../label/index.js';

/** Registers `ship doctor`. */
export function registerDoctor(program: Command, ctx: Ctx): void {
  program
    .command('doctor')
    .description('Check the local setup: config file, credentials, base URL, TLS, token, clock, printers (creates nothing)')
    .option('--printer-timeout <seconds>', 'how long to wait for each printer to accept a connection', '2')
    .addHelpText(
      'after',
      `
Each check is a line: ✓ ok, ! warning, ✗ failed, – skipped; --quiet prints only warnings and failures.
--json prints {ok, checks:[{name, status, detail}]}.
Exit 0 when nothing failed (warnings allowed), 4 when credentials are missing or refused, 1 for any other failure.
"reachable" asks GET /tokens without credentials: a 404 there means the base URL does not lead to the API (a
missing or wrong version segment, e.g. /v1.1 or /api); it fails and names the /v1.2 address where the API answers.
The credentials checked are the profile's set for the base URL in use: with --test (or SHIP_TEST=1) the test
set, kept apart from the live one (the "credentials" line says which, and why).

Examples:
  ship doctor
  ship doctor --test --json
  ship doctor --base-url http://127.0.0.1:4010/v1.2`,
    )
    .action(async (flags: { printerTimeout: string }) => {
      // The same rule and message as every other command's --printer-timeout.
      const printerTimeoutMs = parseSeconds('--printer-timeout', flags.printerTimeout);
      const { run } = await import('./run.js');
      await run(ctx, { printerTimeoutMs });
    });
}
