// The root command: global options, help layout, and every command module registered in one place.
import { Command, Option } from 'commander';
import type { Ctx } from './context.js';
import { registerCommands } from './commands/index.js';
import { wrapHelpText } from './output/wrap.js';

declare const __SHIP_VERSION__: string;
/** The package version, inlined at build time. */
export const VERSION: string = typeof __SHIP_VERSION__ === 'string' ? __SHIP_VERSION__ : '0.0.0-dev';

export const EXIT_CODES_HELP = `Exit codes:
  0    success
  1    the API or the network failed (5xx, timeout, unreachable), or another runtime error
  2    usage or input error (bad flag, invalid CSV/JSON, validation failure from the API)
  3    a bulk command finished but some rows or shipments failed (all of them for the service or the network: 1)
  4    not authenticated or not allowed (no credentials, 401, 403)
  5    not found (404)
  130  interrupted (Ctrl-C) after a clean stop
  141  a bulk run whose stdout was closed by its reader (| head), after the same clean stop
  143  stopped by SIGTERM (kill, a cron or systemd timeout) after the same clean stop`;

export const ENVIRONMENT_HELP = `Environment:
  SHIP_PROFILE      profile name (default "default")
  SHIP_BASE_URL     base URL including the version segment, e.g. http://127.0.0.1:4010/v1.2
  SHIP_TEST=1       use the profile's test base URL and its test credentials (kept apart from the live ones)
  SHIP_API_KEY      API key, sent as X-SERVICE-API-KEY (wins over the profile's live and test credentials)
  SHIP_TOKEN        user token, sent as X-SERVICE-TOKEN (wins over the profile's live and test credentials)
  SHIP_CONFIG_DIR   directory of the config file
  SHIP_TIMEOUT      request timeout in seconds
  SHIP_USERNAME     username for \`ship login\` (instead of --username)
  SHIP_PASSWORD     password for \`ship login\` (prefer --password-stdin)
  SHIP_WEBHOOK_TOKEN  the token \`ship webhooks listen\` requires of deliveries and \`ship webhooks trigger\` sends (instead of --auth-token)
  SHIP_NO_INPUT=1   never prompt (as --no-input)
  NO_COLOR          disable colour; FORCE_COLOR forces it
  CI                set: never prompt, no spinners`;

export const OUTPUT_HELP = `Output:
  Results go to stdout; messages, prompts, spinners and progress bars to stderr. Tables are tab-separated
  lines off a terminal (a tab, line break or backslash in a value written as \\t, \\n, \\\\), and blocks of
  lines, one per row with each value beside its header, on a terminal too narrow for all their columns. At a
  terminal a spinner shows while the service or a printer is slow to answer or a large CSV file is being
  checked, and bulk commands show a progress bar; --json, --quiet, --no-input and CI turn both off. With
  --json, stdout is one JSON document (bulk commands: one object per line) and stderr JSON lines:
  {"info":{"message":…}}, {"warning":{"message":…}}, a bulk run's {"summary":…} and {"error":…}.`;

/** What commander's usage errors end with (as the `hint` of the JSON error line under --json). */
export const USAGE_HINT = 'run with --help for usage';

/**
 * Builds the command tree. `ctx.globals` is filled in before any action runs. `jsonErrors`: --json is on
 * the command line, so commander's own usage errors (unknown option, missing argument…) are not written as
 * text: main() reports them as the one JSON error line scripts parse. `only`: declare just the registration
 * of that top-level command (null: no command at all), see registerCommands; the whole tree by default.
 */
export function buildProgram(ctx: Ctx, opts: { jsonErrors?: boolean; only?: string | null } = {}): Command {
  const program = new Command('ship');
  program
    .description('Ship parcels with the Parcel Shipping Service API v1.2: create, quote, track, label, print.')
    .version(VERSION, '-V, --version', 'print the version')
    .helpOption('-h, --help', 'show help')
    .addOption(new Option('--profile <name>', 'config profile to use (env: SHIP_PROFILE)'))
    .addOption(new Option('--base-url <url>', 'API base URL including /v1.2'))
    .addOption(new Option('--test', "use the profile's test base URL and test credentials (env: SHIP_TEST=1)"))
    .addOption(new Option('--timeout <seconds>', 'request timeout in seconds'))
    .option('--json', 'print machine-readable JSON on stdout')
    .option('-q, --quiet', 'print only what a script needs')
    .option('-v, --verbose', 'trace HTTP requests and responses on stderr (secrets redacted)')
    .option('--no-input', 'never prompt; fail naming the flag that supplies a missing value')
    .option('--no-color', 'disable colour')
    .option('--insecure', 'allow plain http:// to a host other than loopback')
    .configureHelp({ showGlobalOptions: true, sortSubcommands: false })
    .showHelpAfterError(opts.jsonErrors ? false : `(${USAGE_HINT})`)
    .addHelpText(
      'after',
      `
Examples:
  ship login --username ops@example.com --password-stdin < pw.txt
  ship create --csv orders.csv --printer tcp://10.0.0.50:9100
  ship track ORDER-1001
  ship sandbox --port 4010

${OUTPUT_HELP}

${ENVIRONMENT_HELP}

${EXIT_CODES_HELP}`,
    );

  // Set before registering commands: subcommands copy these settings when they are created.
  program.exitOverride();
  program.configureOutput({
    // Help at a terminal fits its width (the epilogues are written for 110 columns); to a pipe, as it is.
    writeOut: (str) => ctx.io.stdout.write(ctx.io.stdoutIsTTY && ctx.io.columns ? wrapHelpText(str, ctx.io.columns) : str),
    // Under --json, commander writes to stderr only the help it shows for a missing command: main() reports
    // that as the one JSON error line instead, so a script reading stderr as JSON lines gets nothing else.
    writeErr: (str) => {
      if (!opts.jsonErrors) ctx.io.stderr.write(str);
    },
    outputError: (str, write) => {
      // Commander's usage errors look like ship's own: "error:" in red where colour is on.
      if (!opts.jsonErrors) write(str.startsWith('error: ') ? `${ctx.out.c.red('error:')}${str.slice('error:'.length)}` : str);
    },
  });

  program.hook('preAction', (_root, action) => {
    ctx.globals = action.optsWithGlobals();
  });

  registerCommands(program, ctx, opts.only);
  return program;
}
