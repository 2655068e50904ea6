// Declares `ship sandbox`: runs the embedded emulator of the whole API v1.2 until Ctrl-C (exit 130) or SIGTERM (exit 0).
import type { Command } from 'commander';
import type { Ctx } from '../../context.js';

/** Registers `ship sandbox`. */
export function registerSandbox(program: Command, ctx: Ctx): void {
  program
    .command('sandbox')
    .description('Run the embedded sandbox: the whole API v1.2 on your machine, with a seeded account')
    .option('--port <n>', 'port to listen on (0 picks a free port)', '4010')
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--api-key <key>', 'API key the sandbox accepts', 'sandbox-api-key')
    .option('--username <email>', 'user name of the seeded MERCHANT_ADMIN user', 'demo@example.com')
    .option('--password <password>', 'password of the seeded user', 'demo-password')
    .option('--state <file>', 'keep state in FILE across restarts (written atomically); default: memory only')
    .option('--auto-advance <seconds>', "tracking moves one stage forward every SECONDS after a shipment's creation (0: only via the control endpoint)", '60')
    .option('--log-requests', 'log one line per request on stderr (also with --verbose)')
    .addHelpText(
      'after',
      `
The first line on stdout is the base URL (http://HOST:PORT/v1.2); the next lines are \`export\` lines for
SHIP_BASE_URL and SHIP_API_KEY. With --json, stdout is one JSON object instead. Talk goes to stderr.
Seeded account: user demo@example.com / demo-password (MERCHANT_ADMIN), packer@example.com / packer-password
(MERCHANT_USER), two locations, two brands, eight delivery services, packaging types, custom fields, SKUs.
Tracking moves forward on its own, as the service's does: each shipment is manifested 60 s after it was
created (it can no longer be cancelled), then collected, in transit and delivered, one stage a minute
(--auto-advance SECONDS sets the step; 0 leaves it to POST /__sandbox/tracking/advance, for tests).
Tokens never expire, but each user keeps its newest 100: a login past that drops the user's oldest token.
Control endpoints for tests live under /__sandbox (reset, tracking/advance, webhooks, faults); see the README.
A second sandbox on the same --state FILE is refused while the first runs (FILE.lock holds its process ID and
host); a lock left by a killed sandbox is taken over. Stops cleanly on Ctrl-C or SIGTERM, letting requests
in flight finish and saving --state first; then exits 130 after Ctrl-C (interrupted, as every command) and 0
after SIGTERM (the usual way to stop a service: kill, docker stop, systemd).

Examples:
  ship sandbox
  ship sandbox --port 0 --state .ship-sandbox.json
  ship sandbox --port 4010 > sandbox.txt & sleep 1; eval "$(tail -n +2 sandbox.txt)"   # SHIP_BASE_URL, SHIP_API_KEY set here
  ship sandbox --auto-advance 5 --log-requests   # watch tracking move: ship track REF --watch
  ship sandbox --auto-advance 0                  # tracking moves only when a test says so`,
    )
    .action(async (flags: { port: string; host: string; apiKey: string; username: string; password: string; state?: string; autoAdvance: string; logRequests?: boolean }) => {
      const { UsageError } = await import('../../errors.js');
      const port = Number(flags.port);
      if (!/^\d+$/.test(flags.port) || port > 65535) throw new UsageError(`--port must be a whole number from 0 to 65535 (got "${flags.port}")`);
      // Commander supplies the default ('60').
      const autoAdvanceSeconds = Number(flags.autoAdvance);
      if (!/^\s*\d+(\.\d+)?\s*$/.test(flags.autoAdvance) || !Number.isFinite(autoAdvanceSeconds)) {
        throw new UsageError(`--auto-advance must be a number of seconds, 0 to turn it off (got "${flags.autoAdvance}")`);
      }
      const { run } = await import('./run.js');
      await run(ctx, {
        port,
        host: flags.host,
        apiKey: flags.apiKey,
        username: flags.username,
        password: flags.password,
        stateFile: flags.state,
        autoAdvanceSeconds,
        logRequests: Boolean(flags.logRequests),
      });
    });
}
