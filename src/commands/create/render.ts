// How create prints: dry-run summaries, the parcels of a created shipment, problems as "row N, column C: rule".
import type { Ctx } from '../../context.js';
import type { ShipmentBody } from '../../shipment-input/build.js';

export { problemText } from '../../errors.js';

/** One shipment of a dry run. */
export interface DryRunRow {
  row?: number;
  reference: string;
  body: ShipmentBody;
  parcels: number;
  items: number;
}

function totalWeight(body: ShipmentBody): number | undefined {
  let sum = 0;
  let any = false;
  for (const p of body.parcels ?? []) {
    if (typeof p.weight === 'number') {
      sum += p.weight;
      any = true;
    }
  }
  return any ? sum : undefined;
}

/**
 * Prints what a run would send: a table (shipments, parcels, items, weight, destination, service), or with
 * --json the request bodies (one document for a single shipment; one line per shipment for a file).
 */
export async function printDryRun(ctx: Ctx, rows: AsyncIterable<DryRunRow> | Iterable<DryRunRow>, opts: { jsonLines: boolean }): Promise<void> {
  if (ctx.mode.json) {
    for await (const r of rows) {
      if (opts.jsonLines) ctx.out.jsonLine({ row: r.row, shipment_reference: r.reference, status: 'valid', request: r.body });
      else ctx.out.json(r.body);
    }
    return;
  }
  // The table needs only a few facts per shipment, not the bodies.
  const facts: Array<Record<string, string | number | undefined>> = [];
  for await (const r of rows) {
    if (ctx.mode.quiet) {
      ctx.out.line(r.reference);
      continue;
    }
    facts.push({
      row: r.row,
      reference: r.reference,
      parcels: r.parcels,
      items: r.items,
      weight: totalWeight(r.body),
      destination: [r.body.to_address?.postcode, r.body.to_address?.city, r.body.to_address?.country].filter(Boolean).join(' '),
      service: (r.body.delivery_service_key as string | undefined) ?? '(routing rules)',
    });
  }
  if (ctx.mode.quiet) return;
  type F = (typeof facts)[number];
  await ctx.out.table(facts, [
    ...(opts.jsonLines ? [{ header: 'Row', value: (r: F) => r.row, align: 'right' as const }] : []),
    { header: 'Shipment', value: (r: F) => r.reference },
    { header: 'Parcels', value: (r: F) => r.parcels, align: 'right' as const },
    { header: 'Items', value: (r: F) => r.items, align: 'right' as const },
    { header: 'Weight (g)', value: (r: F) => r.weight, align: 'right' as const },
    { header: 'Destination', value: (r: F) => r.destination },
    { header: 'Service', value: (r: F) => r.service },
  ]);
}
