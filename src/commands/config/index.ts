// Declares `ship config list|get|set|unset|use|profiles|path`; the work is in run.ts.
import { Argument, type Command } from 'commander';
import { completeWith } from '../../completion/values.js';
// From keys.ts, not store.ts: this module is loaded at startup, the store only by commands that read config.
import { SETTABLE_KEYS } from '../../config/keys.js';
import type { Ctx } from '../../context.js';

/** The keys shells offer after `config get|set|unset` (printers.NAME as `printers.`: NAME is the user's own). */
const KEY_WORDS = Object.keys(SETTABLE_KEYS).map((k) => (k === 'printers.NAME' ? 'printers.' : k));
const keyArgument = (description = 'a key of `ship config set --help`') => completeWith(new Argument('<key>', description), KEY_WORDS);

const KEYS_HELP = `
Keys (per profile; pick the profile with --profile or SHIP_PROFILE):
  base_url        live API base URL including /v1.2
  test_base_url   test API base URL, used with --test or SHIP_TEST=1
  api_key         API key (secret; set by \`ship login\`)
  token           user token (secret; set by \`ship login\`)
                  A profile keeps two sets of api_key, token and the cached user: the live set, and the
                  test set (test_credentials.*) used with the test base URL. get, set and unset act on the
                  set in use: the test set with --test or SHIP_TEST=1 (or a --base-url that is the
                  profile's test_base_url), else the live set.
  label_format    default label format: ZPL, PDF or PNG
  printer         default printer: tcp://HOST:PORT, or the NAME of a printers.NAME entry; --printer
                  given without a value (create, label, print, containers label) sends to it
  printers.NAME   a named printer, tcp://HOST:PORT (printer.NAME works too); IPv6 in brackets, a
                  link-local one with its interface: tcp://[fe80::1%eth0]:9100
  timeout         request timeout in seconds
Secrets are always shown masked (****abcd).`;

/** Registers `ship config` and its subcommands. */
export function registerConfig(program: Command, ctx: Ctx): void {
  const config = program
    .command('config')
    .description('Show and change profiles and settings in the config file (mode 0600)')
    .addHelpText(
      'after',
      `${KEYS_HELP}

Changes (set, unset, use, login, logout) are made one process at a time, under config.json.lock beside the
file: a change waits up to 5 s for another's, so a script may run several at once. Reading takes no lock.

Examples:
  ship config list
  ship config set base_url https://api.example.com/v1.2
  ship --profile staging config set test_base_url https://test.example.com/v1.2
  ship config use staging`,
    );

  config
    .command('list')
    .description('List the settings of the profile in use, with where each value comes from (secrets masked), both credential sets included')
    .addHelpText('after', '\nExamples:\n  ship config list\n  ship --test config list\n  ship --profile staging config list --json')
    .action(async () => {
      const { list } = await import('./run.js');
      await list(ctx);
    });

  config
    .command('get')
    .addArgument(keyArgument())
    .description('Print the value in effect for a key, as `config list` resolves it: flag > env > profile > default (secrets masked)')
    .addHelpText(
      'after',
      `
Only the value goes to stdout (nothing when no flag, env var, profile or default supplies it); when it does
not come from the profile, stderr says where from. With --json: {"profile", "key", "value", "source",
"origin"} as \`config list --json\` has them (source flag, env, profile, default, or null when unset), plus
"overrides" (the profile value a flag or env var wins over) and "credential_set" for api_key, token and user.

Examples:
  ship config get base_url
  ship config get printers.dock
  ship --test config get token
  SHIP_TIMEOUT=5 ship config get timeout --json`,
    )
    .action(async (key: string) => {
      const { get } = await import('./run.js');
      await get(ctx, { key });
    });

  config
    .command('set')
    .addArgument(keyArgument('a key listed below'))
    .argument('[value]', 'its value; for api_key and token "-" reads stdin')
    .description('Validate and store a value in the profile (api_key and token: "-" reads stdin, or leave VALUE out to be prompted; never on the command line)')
    .addHelpText(
      'after',
      `${KEYS_HELP}

Examples:
  ship config set label_format PDF
  ship config set printers.dock tcp://10.0.0.50:9100
  ship config set printer dock
  ship config set api_key -  < api-key.txt
  ship --test config set api_key -  < test-api-key.txt`,
    )
    .action(async (key: string, value: string | undefined) => {
      const { set } = await import('./run.js');
      await set(ctx, { key, value });
    });

  config
    .command('unset')
    .addArgument(keyArgument())
    .description('Remove a value from the profile')
    .addHelpText('after', '\nExamples:\n  ship config unset printer\n  ship config unset token\n  ship --test config unset token')
    .action(async (key: string) => {
      const { unset } = await import('./run.js');
      await unset(ctx, { key });
    });

  config
    .command('use <profile>')
    .description('Make a profile the current one (SHIP_PROFILE and --profile still win)')
    .option('--create', 'start a new, empty profile of that name (otherwise an unknown name is refused: a typo)')
    .addHelpText('after', '\nExamples:\n  ship config use staging\n  ship config use default\n  ship config use eu-warehouse --create && ship login')
    .action(async (profile: string, flags: { create?: boolean }) => {
      const { use } = await import('./run.js');
      await use(ctx, { profile, create: Boolean(flags.create) });
    });

  config
    .command('profiles')
    .description('List the profiles in the config file; the one in use is marked')
    .addHelpText('after', '\nExamples:\n  ship config profiles\n  ship config profiles --quiet')
    .action(async () => {
      const { profiles } = await import('./run.js');
      await profiles(ctx);
    });

  config
    .command('path')
    .description('Print the path of the config file')
    .addHelpText('after', '\nExamples:\n  ship config path\n  ls -l "$(ship config path)"')
    .action(async () => {
      const { path } = await import('./run.js');
      await path(ctx);
    });
}
