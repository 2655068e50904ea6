// `ship skus …` declares the SKU inventory commands (the /skus endpoints); work lives in the modules beside it.
import { Option, type Command } from 'commander';
import type { Ctx } from '../../context.js';
import { UsageError } from '../../errors.js';
import { SKU_COLUMNS } from '../../skus/columns.js';

/** The --kebab-case flag of a SKU attribute: product_name → --product-name. */
export function skuFlag(name: string): string {
  return `--${name.replace(/_/g, '-')}`;
}

/** Help of --concurrency for the commands that walk every SKU page. */
const PAGES_AT_ONCE = 'pages requested at once, ahead of the one being written (default 8; 1: one after another)';

/** --concurrency of a page walk as the pager's look-ahead: N pages in flight, or none ahead for 1. */
function lookaheadOf(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = positiveInt('--concurrency', value, 8, 32);
  return n === 1 ? 0 : n;
}

/** commander's camelCase key of a SKU attribute flag: product_name → productName. */
function optionKey(name: string): string {
  return name.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase());
}

function positiveInt(flag: string, v: string | undefined, def: number, max = 64): number {
  if (v === undefined) return def;
  if (!/^\d+$/.test(v.trim()) || Number(v) < 1 || Number(v) > max) throw new UsageError(`${flag} must be a whole number from 1 to ${max} (got "${v}")`);
  return Number(v);
}

/** Adds one flag per SKU attribute, plus --custom-field KEY=VALUE and --file. */
function addAttributeFlags(cmd: Command, opts: { skipSku?: boolean } = {}): Command {
  for (const col of SKU_COLUMNS) {
    if (opts.skipSku && col.name === 'sku') continue;
    cmd.option(`${skuFlag(col.name)} <value>`, col.help);
  }
  cmd.option('--custom-field <KEY=VALUE>', 'a custom field value (repeatable)', (v: string, prev: string[] = []) => [...prev, v]);
  cmd.option('--file <sku.json>', 'read the attributes from a JSON file (- for stdin; a key that is no SKU attribute is refused); flags override it');
  return cmd;
}

/** The attribute flag values given, keyed by SKU attribute name. */
function attributeValues(flags: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const col of SKU_COLUMNS) {
    const v = flags[optionKey(col.name)];
    if (typeof v === 'string') out[col.name] = v;
  }
  return out;
}

/** Registers `ship skus` and its subcommands. */
export function registerSkus(program: Command, ctx: Ctx): void {
  const skus = program
    .command('skus')
    .description('SKU inventory records: import and export CSV, list, get, create, update')
    .addHelpText(
      'after',
      `
Examples:
  ship skus export -o skus.csv          # edit in a spreadsheet, then:
  ship skus import skus.csv
  ship skus list --all --ndjson | jq -r .sku
  ship skus get MUG-RED`,
    );

  skus
    .command('import <file>')
    .description('Create or update SKUs from a CSV file (one row per SKU; columns named as the SKU attributes)')
    .option('--map <file.json>', 'rename your headers to SKU columns: {"Their header": "our_column"}')
    .option('--replace', 'update existing SKUs with PUT (replace every attribute) instead of PATCH (change given ones)')
    .option('--dry-run', "validate the whole file (custom fields by the account's, when it can read them) and stop; nothing is sent")
    .option('--concurrency <n>', 'requests in flight at once (default 8)')
    .option('--failed <file>', 'where to write the rows that failed (default FILE.failed.csv)')
    .option('--encoding <name>', 'file encoding, e.g. windows-1252 or iso-8859-2 (default: UTF-8; a file that is not UTF-8 is read as Windows-1252, with a warning)')
    .option('-y, --yes', 'do not ask before --replace (required with --replace without a terminal)')
    .addHelpText(
      'after',
      `
Columns: ${SKU_COLUMNS.map((c) => c.name).join(', ')}, custom_fields.KEY.
Each row is created when its SKU does not exist (GET /skus/SKU answers 404), else updated: PATCH sends
only the non-blank cells, so blank cells leave the SKU's value unchanged (a row the SKU already matches
is not sent: "unchanged"); --replace sends PUT, resetting attributes that are blank. Export escapes text starting with = + - @ as '=…; import removes that quote.
A journal (.ship-journal-FILE….jsonl beside the file, one per API URL and account) makes an interrupted or partly failed run resumable:
running the same command again skips the rows already done, and sends again a row edited since it was
imported (an import is an upsert: nothing is made twice). It is removed when a run ends without failures.
Exit 3 when some rows failed; exit 1 when every one failed for the service or the network (5xx after the
retries, timeouts): the service is down, the rows are fine (still in FILE.failed.csv).
If the API refuses the credentials (401/403), the run stops (exit 4) and the rows not done are not written
to FILE.failed.csv: run ship login, then the same command again.

Examples:
  ship skus import skus.csv
  ship skus import supplier.csv --map supplier-map.json --dry-run
  ship skus import skus.csv --replace --yes --concurrency 4 --json > results.ndjson`,
    )
    .action(async (file: string, flags: { map?: string; replace?: boolean; dryRun?: boolean; concurrency?: string; failed?: string; yes?: boolean; encoding?: string }) => {
      const concurrency = positiveInt('--concurrency', flags.concurrency, 8);
      const { runImport } = await import('./import.js');
      await runImport(ctx, {
        file,
        map: flags.map,
        replace: Boolean(flags.replace),
        dryRun: Boolean(flags.dryRun),
        concurrency,
        failedPath: flags.failed,
        yes: Boolean(flags.yes),
        encoding: flags.encoding,
      });
    });

  skus
    .command('list')
    .description('List SKUs, one page of 30 (--page N) or every page (--all)')
    .option('--page <n>', 'page number (default 1)')
    .option('--all', 'every page, streamed as it arrives')
    .option('--ndjson', 'one JSON object per line instead of a table (machine output: errors and warnings are JSON lines on stderr, as with --json)')
    .option('--concurrency <n>', PAGES_AT_ONCE)
    .addHelpText(
      'after',
      `
--json prints one JSON array of SKUs (for one page or, with --all, every page: gathered in a temporary file
and written whole at the end, so a run that fails or is stopped part way prints nothing rather than an array
cut short); --ndjson prints one SKU per line as pages arrive; --quiet the SKU codes only. --all requests up to 8 pages ahead while it
prints, in constant memory (--concurrency 1: one page after another, for an API that limits concurrent
requests).

Examples:
  ship skus list
  ship skus list --page 3
  ship skus list --all --json > skus.json
  ship skus list --all --ndjson | jq -r 'select(.in_stock == false) | .sku'`,
    )
    .action(async (flags: { page?: string; all?: boolean; ndjson?: boolean; concurrency?: string }) => {
      // Machine output: its errors and warnings are JSON lines on stderr too, as under --json.
      if (flags.ndjson) ctx.globals = { ...ctx.globals, json: true };
      if (flags.all && flags.page !== undefined) throw new UsageError('give either --page or --all, not both');
      if (!flags.all && flags.concurrency !== undefined) throw new UsageError('--concurrency applies to --all');
      const page = positiveInt('--page', flags.page, 1, Number.MAX_SAFE_INTEGER);
      const lookahead = lookaheadOf(flags.concurrency);
      const { runList } = await import('./list.js');
      await runList(ctx, { page, all: Boolean(flags.all), ndjson: Boolean(flags.ndjson), lookahead });
    });

  skus
    .command('get <ref>')
    .description('Show one SKU (by SKU number or ID)')
    .addHelpText('after', '\nExamples:\n  ship skus get MUG-RED\n  ship skus get MUG-RED --json | jq .gross_weight')
    .action(async (ref: string) => {
      const { runGet } = await import('./get.js');
      await runGet(ctx, { ref });
    });

  addAttributeFlags(
    skus
      .command('create')
      .description('Create a SKU from flags or a JSON file (POST /skus)')
      .addHelpText(
        'after',
        `
Examples:
  ship skus create --sku MUG-RED --product-name "Red mug" --gross-weight 350 --country-of-origin CN
  ship skus create --file mug.json --custom-field hazard_class=none`,
      ),
  ).action(async (flags: Record<string, unknown>) => {
    const { runWrite } = await import('./write.js');
    await runWrite(ctx, { mode: 'create', values: attributeValues(flags), customFields: (flags.customField as string[]) ?? [], file: flags.file as string | undefined });
  });

  addAttributeFlags(
    skus
      .command('update <ref>')
      .description('Change a SKU (PATCH: only the given attributes; --replace: PUT all of them)')
      .option('--replace', 'replace the whole SKU (PUT) with what is given: attributes not given are reset')
      .option('-y, --yes', 'do not ask before --replace (required with --replace without a terminal)'),
  )
    .addHelpText(
      'after',
      `
Examples:
  ship skus update MUG-RED --in-stock false
  ship skus update MUG-RED --file mug.json --replace --yes`,
    )
    .action(async (ref: string, flags: Record<string, unknown>) => {
      const { runWrite } = await import('./write.js');
      await runWrite(ctx, {
        mode: flags.replace ? 'replace' : 'update',
        yes: flags.yes === true,
        ref,
        values: attributeValues(flags),
        customFields: (flags.customField as string[]) ?? [],
        file: flags.file as string | undefined,
      });
    });

  skus
    .command('export')
    .description('Write every SKU as CSV in the import format (export → edit → import round-trips)')
    .addOption(new Option('-o, --output <file>', 'CSV file to write, or - for stdout').makeOptionMandatory())
    .option('--concurrency <n>', PAGES_AT_ONCE)
    .addHelpText(
      'after',
      `
Text cells starting with = + - @ are written with a leading ' so spreadsheets do not run them as formulas;
import removes it again. Numbers (including negative ones) are written as they are. Up to 8 pages are
requested ahead while rows are written (--concurrency 1: one page after another).

Examples:
  ship skus export -o skus.csv
  ship skus export -o - | gzip > skus.csv.gz`,
    )
    .action(async (flags: { output: string; concurrency?: string }) => {
      const lookahead = lookaheadOf(flags.concurrency);
      const { runExport } = await import('./export.js');
      await runExport(ctx, { output: flags.output, lookahead });
    });
}
