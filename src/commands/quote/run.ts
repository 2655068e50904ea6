// `ship quote`: builds the shipment exactly as create would (shared input code), asks for quotes, and prints
// them cheapest first with the recommended service marked.
import type { Ctx } from '../../context.js';
import { ExitCode, ShipError } from '../../errors.js';
import { loadSingleShipment, locateApiProblems } from '../../shipment-input/index.js';
import type { ShipmentInputOptions } from '../../shipment-input/options.js';
import { problemText } from '../create/render.js';

/** A service quote as the API sends it (api-spec "Service quote"); money as `0.00` strings. */
export interface ServiceQuote {
  carrier?: string | null;
  carrier_account?: string | null;
  service_name?: string | null;
  full_service_name?: string | null;
  service_key: string;
  base_price?: string | null;
  additional_parcel_price?: string | null;
  surcharges?: string | null;
  fuel_surcharge?: string | null;
  total_price?: string | null;
  estimated_delivery_date?: string | null;
}

/** `data` of POST /shipments/get-services. */
export interface ServiceQuotes {
  recommended_service?: ServiceQuote | null;
  services: ServiceQuote[];
}

/** One row of the quote table. */
export interface QuoteRow extends ServiceQuote {
  recommended: boolean;
}

function price(v: string | null | undefined): number {
  const n = Number(v);
  return v === null || v === undefined || v === '' || !Number.isFinite(n) ? Number.POSITIVE_INFINITY : n;
}

/** The quotes sorted by total price (the API's order as tie-break), with the recommended one flagged. */
export function quoteRows(q: ServiceQuotes): QuoteRow[] {
  const rec = q.recommended_service;
  const isRec = (s: ServiceQuote) =>
    !!rec && s.service_key === rec.service_key && (rec.carrier_account == null || s.carrier_account == null || s.carrier_account === rec.carrier_account);
  const rows = q.services.map((s, i) => ({ s, i }));
  rows.sort((a, b) => price(a.s.total_price) - price(b.s.total_price) || a.i - b.i);
  const out = rows.map(({ s }) => ({ ...s, recommended: isRec(s) }));
  // The recommended service should be in the list; if the API sent it only as recommended_service, show it too.
  if (rec && !out.some((r) => r.recommended)) {
    out.push({ ...rec, recommended: true });
    out.sort((a, b) => price(a.total_price) - price(b.total_price));
  }
  return out;
}

/** Quotes the shipment and prints the table (or the API data with --json). */
export async function run(ctx: Ctx, o: ShipmentInputOptions): Promise<void> {
  const input = await loadSingleShipment(ctx, o, { purpose: 'quote' });
  for (const w of input.warnings) ctx.out.warn(problemText(w));
  const api = await ctx.api();
  let quotes: ServiceQuotes;
  try {
    quotes = (await api.shipments.getServices(input.body as Parameters<typeof api.shipments.getServices>[0])) as unknown as ServiceQuotes;
  } catch (e) {
    locateApiProblems(e, input);
    throw e;
  }
  // A service asked for (--service) that the answer does not recommend could not take these parcels: the API
  // says so only by recommending another, which a glance at the table would miss. Asked for and able, it is
  // the one row shown: the question was its price.
  const asked = (input.body as { delivery_service_key?: unknown }).delivery_service_key;
  const askedKey = typeof asked === 'string' && asked.trim() !== '' ? asked.trim().toUpperCase() : undefined;
  const recommended = quotes.recommended_service?.service_key;
  let rows = quoteRows(quotes);
  const askedRows = askedKey ? rows.filter((r) => r.service_key.toUpperCase() === askedKey) : [];
  const askedCannot = askedKey !== undefined && (askedRows.length === 0 || (recommended !== undefined && recommended.toUpperCase() !== askedKey));
  if (ctx.mode.json) ctx.out.json(quotes);
  // No service at all, or not the one asked for: an error (exit 1), so a script's `ship quote … -q` can tell.
  if (rows.length === 0) throw new ShipError('no delivery service can take this shipment', ExitCode.Failure, { hint: 'check the parcels\' weights and dimensions and the destination' });
  if (askedCannot) {
    throw new ShipError(`${askedKey} cannot take this shipment${recommended ? `: ${recommended} is recommended instead` : ''}`, ExitCode.Failure, {
      hint: 'leave out --service to see every service that can',
    });
  }
  if (ctx.mode.json) return;
  if (askedRows.length) rows = askedRows;
  if (ctx.mode.quiet) {
    const best = rows.find((r) => r.recommended) ?? rows[0];
    if (best) ctx.out.line(best.service_key);
    return;
  }
  const tty = ctx.io.stdoutIsTTY;
  await ctx.out.table(rows, [
    { header: '', value: (r) => (r.recommended ? (tty ? '★' : 'recommended') : '') },
    { header: 'Service key', value: (r) => r.service_key },
    { header: 'Carrier', value: (r) => r.carrier },
    { header: 'Service', value: (r) => r.service_name ?? r.full_service_name },
    { header: 'Base', value: (r) => r.base_price, align: 'right' },
    { header: 'Extra parcel', value: (r) => r.additional_parcel_price, align: 'right' },
    { header: 'Surcharges', value: (r) => r.surcharges, align: 'right' },
    { header: 'Fuel', value: (r) => r.fuel_surcharge, align: 'right' },
    { header: 'Total', value: (r) => r.total_price, align: 'right' },
    { header: 'Estimated delivery', value: (r) => r.estimated_delivery_date },
  ]);
  // The legend says what the star means, when a row has one.
  if (tty && rows.some((r) => r.recommended)) {
    // With a service asked for, the one row is that service (the API recommends what it was asked for).
    ctx.out.info(askedRows.length ? `★ the service asked for (${askedKey}), which can take this shipment` : '★ recommended by your routing rules (or the cheapest service that meets the requirements)');
  }
}
