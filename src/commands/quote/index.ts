// Declares `ship quote`: the same inputs as `ship create`, priced by POST /shipments/get-services.
import type { Command } from 'commander';
import type { Ctx } from '../../context.js';
import { addShipmentInputOptions, type ShipmentInputOptions } from '../../shipment-input/options.js';

/** Registers `ship quote`. */
export function registerQuote(program: Command, ctx: Ctx): void {
  const cmd = program
    .command('quote')
    .description('Price a prospective shipment: every suitable delivery service, cheapest first, the recommended one marked');
  addShipmentInputOptions(cmd, 'quote')
    .addHelpText(
      'after',
      `
Takes the same inputs as \`ship create\`: flags, --file shipment.json, or one shipment of a CSV file
(--shipment REF picks it when the file holds several). Nothing is created, and quotes do not count
toward the label allowance. --reference may be left out (a placeholder is sent).
--service KEY (or a delivery_service_key in the file or the CSV row) prices that service alone, and is an
error (exit 1) when it cannot take the shipment; so is a shipment no service can take. --quiet prints the
recommended (or asked) service key; --json the API's data. From flags at a terminal, a recipient address
no flag gave is asked for (without one, it is an error naming the flags).

Examples:
  ship quote --to-name "Ada Lovelace" --to-line1 "1 High St" --to-city London --to-postcode "SW1A 1AA" \\
    --to-country GB --weight 1200 --length 30 --width 20 --depth 10
  ship quote --file shipment.json --json
  ship quote --csv examples/orders.csv --shipment ORD-1003
  ship quote --file shipment.json --service DPD_CLASSIC_EU --quiet || echo "DPD cannot take it"`,
    )
    .action(async (flags: ShipmentInputOptions) => {
      const { run } = await import('./run.js');
      await run(ctx, flags);
    });
}
