// Declares the reference-data commands: services, locations, brands, users, packaging, custom-fields.
// Each action imports its own module, so startup pays only for the command that runs.
import type { Command } from 'commander';
import type { Ctx } from '../../context.js';

/** Registers the reference-data commands on the root program. */
export function registerReference(program: Command, ctx: Ctx): void {
  program
    .command('services')
    .description('List the delivery services available (GET /services), optionally only those valid for a parcel')
    .option('--weight <g>', 'parcel weight in grams (whole number)')
    .option('--length <cm>', 'parcel length in cm (whole number)')
    .option('--width <cm>', 'parcel width in cm (whole number)')
    .option('--depth <cm>', 'parcel depth in cm (whole number)')
    .addHelpText(
      'after',
      `
Examples:
  ship services
  ship services --weight 1500 --length 40 --width 30 --depth 10
  ship services --quiet          # service keys only, one per line`,
    )
    .action(async (flags: Record<'weight' | 'length' | 'width' | 'depth', string | undefined>) => {
      const { parseServiceFilter, run } = await import('./services.js');
      await run(ctx, parseServiceFilter(flags));
    });

  program
    .command('locations [ref]')
    .description('List locations (GET /locations), or show one by code or ID')
    .addHelpText('after', '\nExamples:\n  ship locations\n  ship locations WH1\n  ship locations --json | jq \'.[] | select(.default)\'')
    .action(async (ref: string | undefined) => {
      const { run } = await import('./locations.js');
      await run(ctx, { ref });
    });

  program
    .command('brands [ref]')
    .description('List brands (GET /brands), or show one by key or ID')
    .addHelpText('after', '\nExamples:\n  ship brands\n  ship brands SANDBOX --json')
    .action(async (ref: string | undefined) => {
      const { run } = await import('./brands.js');
      await run(ctx, { ref });
    });

  program
    .command('users')
    .description('List the users of the account (GET /users)')
    .addHelpText('after', '\nExamples:\n  ship users\n  ship users --quiet            # user IDs, for `ship print --to-user`')
    .action(async () => {
      const { run } = await import('./users.js');
      await run(ctx);
    });

  program
    .command('packaging')
    .description('Show packaging options and packaging types (GET /packaging-options)')
    .addHelpText(
      'after',
      '\nOff a terminal, stdout has one tab-separated line per packaging type (key, name, default, internal and external\nW×H×D in mm, max, default and packaging weight in g); the account flags (net weight, allow override) go to stderr.\n\nExamples:\n  ship packaging\n  ship packaging --quiet        # packaging type keys\n  ship packaging --json         # flags and types',
    )
    .action(async () => {
      const { run } = await import('./packaging.js');
      await run(ctx);
    });

  const customFields = program
    .command('custom-fields [ref]')
    .description('List custom fields (GET /custom-fields), or show one by key or ID')
    .addHelpText('after', '\nExamples:\n  ship custom-fields\n  ship custom-fields gift_message --json\n  ship custom-fields create --name "Packing note" --key packing_note --entity SHIPMENT --data-type TEXT --max-length 200')
    .action(async (ref: string | undefined) => {
      const { run } = await import('./custom-fields.js');
      await run(ctx, { ref });
    });

  customFields
    .command('create')
    .description('Create a custom field (POST /custom-fields)')
    .requiredOption('--name <name>', 'display name')
    .requiredOption('--key <key>', 'unique key, used in custom_fields key/value pairs')
    .requiredOption('--entity <entity>', 'SHIPMENT, PARCEL, CONTACT or SKU')
    .requiredOption('--data-type <type>', 'NUMERIC, TEXT, BOOLEAN or LIST')
    .option('--source <source>', 'DIRECT (supplied by API or file), FIXED (always the default value) or MAPPED')
    .option('--default-value <value>', 'applied when no data is supplied; the fixed value when --source FIXED')
    .option('--mapped-to <key>', 'with --source MAPPED: the attribute or custom field it is mapped to')
    .option('--required', 'a value must be supplied (any data type)')
    .option('--min-length <n>', 'TEXT only: minimum length')
    .option('--max-length <n>', 'TEXT only: maximum length')
    .option('--regex <pattern>', 'TEXT only: Perl-compatible expression the value must match')
    .option('--options <list>', 'LIST only: the choices, comma-separated (e.g. "Red,Green,Blue"); quote a choice that holds a comma (Red,"Dark, blue")')
    .option('--numeric-type <type>', 'NUMERIC only: INT or DECIMAL')
    .option('--min-value <x>', 'NUMERIC only: minimum value')
    .option('--max-value <x>', 'NUMERIC only: maximum value')
    .addHelpText(
      'after',
      `
Rules apply by data type: --min-length/--max-length/--regex to TEXT, --options to LIST (required there),
--numeric-type/--min-value/--max-value to NUMERIC, --required to any. Others are refused (exit 2).

Examples:
  ship custom-fields create --name "Packing note" --key packing_note --entity SHIPMENT --data-type TEXT --max-length 200
  ship custom-fields create --name Colour --key colour --entity PARCEL --data-type LIST --options "Red,Green,Blue" --default-value Red
  ship custom-fields create --name "Pallet count" --key pallets --entity SHIPMENT --data-type NUMERIC --numeric-type INT --min-value 1 --max-value 40
  ship custom-fields create --name Warehouse --key warehouse --entity SHIPMENT --data-type TEXT --source FIXED --default-value dock-3`,
    )
    .action(async (flags: Record<string, string | boolean | undefined>) => {
      const [{ buildCustomFieldRequest }, { create }] = await Promise.all([import('./custom-field-request.js'), import('./custom-fields.js')]);
      await create(ctx, buildCustomFieldRequest(flags));
    });
}
