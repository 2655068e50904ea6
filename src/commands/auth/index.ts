// Declares `ship login`, `ship logout` and `ship whoami`; the work is in login.ts, logout.ts, whoami.ts.
import type { Command } from 'commander';
import type { Ctx } from '../../context.js';

/** Registers the three auth commands on the root program. */
export function registerAuth(program: Command, ctx: Ctx): void {
  program
    .command('login')
    .description('Get a user token (POST /tokens) and store it, with the API key and user, in the profile')
    .option('--api-key <key>', 'API key (default: SHIP_API_KEY, then the profile; prompted on a terminal); on the command line it shows in `ps` and shell history: prefer SHIP_API_KEY or the prompt')
    .option('--username <email>', 'user name, usually an email (default: SHIP_USERNAME; prompted on a terminal)')
    .option('--password-stdin', 'read the password from stdin (one line; the trailing newline is dropped)')
    .addHelpText(
      'after',
      `
The password comes from --password-stdin, else SHIP_PASSWORD, else a prompt on a terminal; it is never
taken from argv. Without a terminal, a missing value is an error naming the flag that supplies it (exit 2).
The token, API key and user are stored in the selected profile (config file mode 0600), in one of its two
credential sets: with --test (or SHIP_TEST=1) the test set, which the test base URL uses, else the live set,
which the live base URL uses. So \`ship --test login\` never replaces the live login, and the other way round.
A --base-url given to login is stored in the profile too (as test_base_url with --test), so later commands use
the same server with the same credentials. A --base-url or SHIP_BASE_URL that is the profile's test_base_url
uses the test set, one that is its base_url the live set; any other goes by --test (live without it).
SHIP_API_KEY and SHIP_TOKEN, when set, still win over what login stores (it warns): unset them to use it.

Examples:
  ship login
  SHIP_API_KEY="$LIVE_KEY" ship login --username ops@example.com --password-stdin < pw.txt
  SHIP_API_KEY="$TEST_KEY" ship --test login --username ci@example.com --password-stdin < test-pw.txt
  printf '%s' "$PW" | ship --profile staging --base-url https://staging.example.com/v1.2 login --username ops@example.com --password-stdin`,
    )
    .action(async (flags: { apiKey?: string; username?: string; passwordStdin?: boolean }) => {
      const { run } = await import('./login.js');
      await run(ctx, flags);
    });

  program
    .command('logout')
    .description('Invalidate the user token (DELETE /tokens) and forget it')
    .addHelpText(
      'after',
      `
Only the token of the credential set in use is revoked and forgotten: \`ship --test logout\` leaves the live
login alone, and \`ship logout\` the test one. If the server says the token was already invalid (401), it is forgotten anyway (with a warning). If the
server cannot be reached, the token is kept so that logout can be retried (exit 1); if it refuses (403), the
token is kept too (exit 4). A --profile or SHIP_PROFILE the config file does not have is exit 2.

Examples:
  ship logout
  ship --test logout
  ship --profile staging logout`,
    )
    .action(async () => {
      const { run } = await import('./logout.js');
      await run(ctx);
    });

  program
    .command('whoami')
    .description('Show the profile, base URL and credentials in use (masked), and check the token (GET /tokens)')
    .addHelpText(
      'after',
      `
Prints everything it knows, including which credential set is in use (live, or test with --test) and why,
then exits 0 when the token is valid, 4 when there is no API key or token or the server rejects them, 1 when
the server cannot be reached, and 2 when --profile or SHIP_PROFILE names a profile the config file does not
have. The user shown is the one cached at login with the token in use; for another token (SHIP_TOKEN) it is
the user GET /tokens names, if the server names one, else "unknown" (the cached one may be someone else).

Examples:
  ship whoami
  ship --test whoami
  ship whoami --json | jq .token_status`,
    )
    .action(async () => {
      const { run } = await import('./whoami.js');
      await run(ctx);
    });
}
