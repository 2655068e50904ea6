// Declares `ship create` (and its alias `ship shipments create`); the work is imported when it runs.
import { InvalidArgumentError, Option, type Command } from 'commander';
import { completeWith } from '../../completion/values.js';
import type { Ctx } from '../../context.js';
import { UsageError } from '../../errors.js';
import { addShipmentInputOptions } from '../../shipment-input/options.js';
import { PRINTER_ALONE, printerFlag, type PrinterFlag } from '../shared/printer-flag.js';
import { parseSeconds } from '../label/index.js';
import type { CreateOptions } from './run.js';

/** The CSV part of `ship create --help` (columns, rules, presets, resuming). */
export const CSV_HELP = `
CSV files (--csv FILE):
  A header row is required; names match case-insensitively, spaces and hyphens count as underscores.
  UTF-8, or UTF-16 (with a byte-order mark, or without: found from the header); a file that is not UTF-8
  is read as Windows-1252 (Excel's "CSV (Comma delimited)") with a warning, and --encoding names any other.
  A UTF-8 file with bytes that are not UTF-8 in some row (pasted from another program) is refused, naming
  the row. The delimiter (, ; or tab)
  is detected from the header, or given by Excel's first line sep=X (rows are then numbered as Excel shows them).
  A value under a blank header or beyond the last header is refused: it is usually a cell cut at a comma
  that was not in quotes. Empty cells there are fine.
  One row per parcel. Rows sharing shipment_reference form one shipment (parcels in row order); rows of
  one shipment sharing parcel_reference form one parcel, each row's item_* columns adding one item.
  Columns:
    shipment   shipment_reference (required) order_reference delivery_service_key brand location_code
               despatch_date delivery_instructions recipient_vat_number recipient_eori_number
               recipient_ukims_number container_reference
    recipient  to_name to_company_name to_telephone to_email_address to_line_1 to_line_2 to_line_3
               to_city to_county to_postcode to_country (ISO code, or a name such as "United Kingdom")
    parcel     parcel_reference packaging_type_key weight (g) length width depth (cm) value
    item       item_sku item_line_id item_short_description item_full_description item_country_of_origin
               item_harmonised_code item_weight item_value item_quantity
    customs    duty_method (DAP or DDP) currency_code commercial_invoice_number insurance_value freight_value
               packing_value handling_value other_value export_license_number export_certificate_number
               other_export_comments export_purpose (gift, documents, sale_of_goods, commercial_sample,
               returned_goods, comma-separated, or other=TEXT): the shipment's customs declaration
    custom     custom_fields.KEY (shipment) parcel_custom_fields.KEY (parcel)
  A shipment- or parcel-level value may be left blank on later rows, but must not differ.
  In a file separated by ; or tabs, amounts may have a decimal comma (12,50; never 1,000, which is ambiguous).
  Unknown columns are refused with a "did you mean"; --map FILE.json renames headers (a null target ignores
  a column; {"columns": {…}, "ignore_unknown": true} ignores the rest; an entry that names no header is
  refused when a header is a near miss, else warned about), --allow-unknown-columns ignores them.
  The whole file is checked first: every problem is listed as "row N, column C: rule" and nothing is sent.
  What the account defines is checked against it (read once, before sending; --dry-run too, when it can):
  delivery_service_key, packaging_type_key and brand values it has, and custom field values by its fields
  (the key exactly as the account has it, lengths, LIST choices, numbers, true/false), listed with the rest.
  Outside mainland UK (abroad; Northern Ireland: BT postcodes; Jersey and Guernsey: JE, GY) every parcel lists
  its items, and an item without item_sku needs all of description, full description, origin, tariff code,
  weight, value and quantity; with item_sku the service's SKU inventory supplies them (ship skus import).
  --customs FILE.csv gives them per product instead: columns product (an item's SKU or its description, * for
  any other item without a SKU), country_of_origin, harmonised_code, item_weight (g), full_description (default:
  the item's description). It fills blanks of items leaving mainland UK only (see examples/customs.csv).
  Carrier length limits (address lines ~40 characters, shipment_reference 30) are warned about, not refused;
  so are values a spreadsheet likely damaged (a phone number as 4.47701E+11, a US ZIP code without its
  leading zero, a leading apostrophe), items weighing more than their parcel and a despatch_date before
  today.

  --preset shopify reads Admin → Orders → Export as it is: one shipment per order Name, one parcel with the
  line items as items (quantity, name, price, sku); lines that need no shipping (gift cards) are left out.
  Orders that are cancelled, refunded or voided, restocked, already fulfilled, need no shipping, or have no
  shipping address are left out and listed (more than 10: counted by reason, --verbose lists each; JSON:
  status "skipped" with a reason) - an address is never guessed; a partial order ships its lines not yet
  fulfilled, and --include-fulfilled ships fulfilled orders and lines again (a replacement). Not sent, and
  failed rows (JSON: status "failed" with the reason; FILE.failed.csv; exit 3, 2 when no order ships): orders going outside mainland
  UK with a line item that has neither a SKU nor customs details (--customs FILE.csv, by line item name): an
  orders export does not carry them; add them and rerun. Orders not paid yet ship with a warning. An empty Shipping Name uses the Shipping Company (warned).
  The apostrophe Shopify puts before a ZIP code or phone number ('07028) is taken off.
  Exports have no weights: --default-weight G or --packaging KEY, else the account's default packaging applies.
  Leaving mainland UK, an order shipped whole takes its Shipping charge and Discount Amount to the commercial
  invoice (customs_declaration freight_value, and other_value as a negative amount), with its Currency.

  Resuming: a journal in the output dir (.ship-journal-<file>-<hash of file path, API URL, API key>.jsonl)
  records each shipment. Rerun the same command after a crash, kill or Ctrl-C: created shipments are skipped, the rest
  are sent, none twice. A run against another API (test vs live) or account uses its own journal. Ctrl-C
  lets requests in flight finish; one waiting to try again (429, 503) is left to the rerun, not failed.
  Failed rows go to FILE.failed.csv with an error column; fix them and run that file.
  If the API refuses the credentials (401/403), the run stops: requests in flight finish, nothing more is
  sent, exit 4. Those shipments are not in FILE.failed.csv: run ship login, then rerun the same command.
  A rate limit (429) is waited out: the run's next requests wait the time the service asks, and the run goes
  on at the rate it takes (said once on stderr).
  With --json, one line per shipment: {"row","shipment_reference","status":"created"|"skipped"|"failed",
  "id","tracking_reference","tracking_references","labels","error","fields"}. Exit 3 when some failed; exit 1
  when every one failed for the service or the network (5xx after the retries, timeouts): the service is down,
  the rows are fine (still in FILE.failed.csv): rerun the same command once it is back.`;

function parseFormat(v: string): string {
  const u = v.trim().toUpperCase();
  if (u !== 'ZPL' && u !== 'PDF' && u !== 'PNG') throw new InvalidArgumentError('must be ZPL, PDF or PNG.');
  return u;
}

function positiveInt(flag: string, v: string, max: number): number {
  const n = Number(v);
  if (!/^\d+$/.test(v) || n < 1 || n > max) throw new UsageError(`${flag}: "${v}" must be a whole number from 1 to ${max}`);
  return n;
}

/** What commander hands the action: CreateOptions before --format is upper-cased and --concurrency parsed. */
type CreateFlags = Omit<CreateOptions, 'format' | 'concurrency' | 'printer' | 'printerTimeoutMs'> & { format?: string; concurrency: string; printer?: PrinterFlag; printerTimeout?: string };

function declare(cmd: Command, ctx: Ctx): Command {
  addShipmentInputOptions(cmd, 'create')
    .addOption(completeWith(new Option('--format <format>', "label format: ZPL, PDF or PNG (any case; default: the profile's label_format, else ZPL; ZPL with --printer)").argParser(parseFormat), ['ZPL', 'PDF', 'PNG']))
    .option('-o, --output-dir <dir>', 'where label files go (one per parcel, named after the shipment reference)', './labels')
    .option('--no-labels', 'do not write label files')
    .option('--merge <file.pdf>', 'also join all PDF labels of the run into one file, in input order (needs --format PDF; not with --print)')
    .option('--printer [tcp://host:port|name]', `send the ZPL labels to a thermal printer (raw port 9100), in input order (${PRINTER_ALONE})`)
    .option('--no-preflight', "don't ask the printer for its status (~HS) before the first label, nor after each shipment's labels (the answer that says it read them)")
    .option('--printer-timeout <seconds>', 'with --printer: printer connection and status timeout (default 5)')
    .option('--print', 'ask the desktop printing application to print the labels (print_labels; not with --printer): the label files come in the format picked there, not --format')
    .option('--print-to-user <id>', 'with --print: the user whose printing application prints')
    .option('--printer-key <key>', 'with --print: the printer key of the print server application')
    .option('--dry-run', 'validate and show what would be sent (with --json: the request bodies); send nothing')
    .option('-y, --yes', 'do not ask for confirmation before a bulk run on a terminal')
    .option('--concurrency <n>', 'with --csv: requests in flight at once', '8')
    .option('--results <file.csv>', 'with --csv: write every input row back with status, tracking reference, label paths, error')
    .addHelpText(
      'after',
      `
--parcel and --item take key=value pairs separated by commas; a value holding a comma goes in double quotes
(description="Mug, red"; "" for a quote inside). --file's own format stands unless --format is given; a key
of --file one or two letters from a field of the API (wieght) is warned about, as a likely typo.
From flags at a terminal, what the shipment needs and no flag gave (--reference, the recipient's name and
address) is asked for; without a terminal, with CI set or --no-input, it is an error naming the flags.

Examples:
  ship create --reference ORDER-1001 --service RM_TRACKED_24 --to-name "Ada Lovelace" --to-line1 "1 High St" \\
    --to-city London --to-postcode "SW1A 1AA" --to-country GB --weight 1200 --length 30 --width 20 --depth 10
  ship create --service RM_TRACKED_48 --weight 650        # at a terminal: asks for the reference and address
  ship create --file shipment.json --format PDF -o labels/
  ship create --csv orders.csv --printer tcp://10.0.0.50:9100
  ship create --csv orders_export.csv --preset shopify --default-weight 1000 --customs customs.csv --dry-run
  ship create --csv orders.csv --yes --json --results results.csv > created.ndjson
${CSV_HELP}`,
    )
    .action(async (flags: CreateFlags) => {
      const concurrency = positiveInt('--concurrency', flags.concurrency, 64);
      const { printerTimeout, ...rest } = flags;
      const printerTimeoutMs = printerTimeout !== undefined ? parseSeconds('--printer-timeout', printerTimeout) : undefined;
      const { run } = await import('./run.js');
      // Not given: a raw printer takes ZPL; otherwise the profile's label_format (`ship config set label_format`).
      const { defaultLabelFormat } = await import('../shared/label-format.js');
      const printer = printerFlag(flags.printer);
      const format = flags.format !== undefined ? (flags.format.toUpperCase() as 'ZPL' | 'PDF' | 'PNG') : printer !== undefined ? 'ZPL' : await defaultLabelFormat(ctx);
      await run(ctx, { ...rest, printer, format, formatGiven: flags.format !== undefined || printer !== undefined, concurrency, printerTimeoutMs, printerTimeoutGiven: printerTimeout !== undefined });
    });
  return cmd;
}

/** Registers `ship create` and `ship shipments create`. */
export function registerCreate(program: Command, ctx: Ctx): void {
  declare(program.command('create').description('Create shipments and labels: from flags, from --file shipment.json, or in bulk from --csv'), ctx);
  const shipments = program
    .command('shipments')
    .description('Shipments (alias group: `ship shipments create` is `ship create`)')
    .addHelpText('after', '\nExamples:\n  ship shipments create --csv orders.csv --dry-run');
  declare(shipments.command('create').description('Same as `ship create`'), ctx);
}
