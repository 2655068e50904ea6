// Declares `ship login`, `ship logout` and `ship whoami`; the work is in login.ts, logout.ts, whoami.ts.
import type { Command } from 'commander';
import type { Ctx } from '../../context.js';

/** Registers the three auth commands on the root program. */
export function registerAuth(program: Command, ctx: Ctx): void {
  program
    .command('login')
    .description('Get a user token (POST /tokens) and store it, with the API key and user, in the profile')
    .option('--api-key <key>', 'API key (default: SHIP_API_KEY, then the profile; prompted on a terminal)')
    .option('--username <email>', 'user name, usually an email (default: SHIP_USERNAME; prompted on a terminal)')
    .option('--password-stdin', 'read the password from stdin (one line; the trailing newline is dropped)')
    .addHelpText(
      'after',
      `
The password comes from --password-stdin, else SHIP_PASSWORD, else a prompt on a terminal; it is never
taken from argv. Without a terminal, a missing value is an error naming the flag that supplies it (exit 2).
The token, API key and user are stored in the selected profile (config file mode 0600). A --base-url given
to login is stored in the profile too (as test_base_url with --test), so later commands use the same server.
SHIP_API_KEY and SHIP_TOKEN, when set, still win over what login stores (it warns): unset them to use it.

Examples:
  ship login
  ship login --api-key "$SHIP_API_KEY" --username ops@example.com --password-stdin < pw.txt
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
If the server says the token was already invalid (401), it is forgotten anyway (with a warning). If the
server cannot be reached, the token is kept so that logout can be retried (exit 1); if it refuses (403), the
token is kept too (exit 4). A --profile or SHIP_PROFILE the config file does not have is exit 2.

Examples:
  ship logout
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
Prints everything it knows, then exits 0 when the token is valid, 4 when there is no API key or token
or the server rejects them, 1 when the server cannot be reached, and 2 when --profile or SHIP_PROFILE
names a profile the config file does not have.

Examples:
  ship whoami
  ship whoami --json | jq .token_status`,
    )
    .action(async () => {
      const { run } = await import('./whoami.js');
      await run(ctx);
    });
}
