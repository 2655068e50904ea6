// --preset shopify: reads a Shopify orders export (Admin → Orders → Export) exactly as Shopify writes it.
//
// Decisions (also in `ship create --help`):
// - One shipment per order `Name` (e.g. "#1005"), used as shipment_reference and order_reference.
// - Each line item becomes one item (quantity, name → short description, price → value per item, sku) of a single
//   parcel per order; the parcel's value is the sum of its items. Lines with `Lineitem requires shipping` = false
//   (gift cards, digital goods) are left out.
// - The recipient is the Shipping * columns and the order's Email. Shopify writes order-level columns on an order's
//   first row only, which the grouping rules already allow.
// - Orders are left out, and listed, when they are cancelled, have no line that requires shipping, or have no
//   shipping address at all: an address is never guessed (not even from the billing address).
// - An export of all orders holds the ones already shipped: an order whose Fulfillment Status is fulfilled or
//   restocked, and a line item whose Lineitem fulfillment status is fulfilled (a partial order's shipped lines),
//   are left out (--include-fulfilled ships them again, for a replacement); so are orders whose payment was
//   refunded or voided. An order not paid yet (pending, partially paid, expired authorisation) is shipped with a
//   warning: cash on delivery and bank transfers ship before payment in some shops, not in others.
// - An address with an empty Shipping Name but a Shipping Company uses the company as the recipient name (the
//   API requires a name; the company is who the carrier asks for); a warning says so. With neither, the order
//   fails validation like any other missing field.
// - Exports carry no weights: parcels get --default-weight / --packaging when given, otherwise the account's
//   default packaging type applies.
// - The order's Currency is sent as customs_declaration.currency_code, since the item prices are in it. Leaving
//   mainland UK, an order shipped whole sends its Shipping charge as freight_value and its Discount Amount as a
//   negative other_value ("may be negative (discounts)", at most the goods' value): the commercial invoice then
//   adds up to what the customer paid. A partial shipment or a replacement sends neither.
// - Orders going outside mainland UK (abroad, or Northern Ireland) are left out, and listed, when a line item has
//   no SKU and no customs details: customs then needs the item's origin, tariff code, weight and full description,
//   which an orders export never carries (the API refuses such items). A --customs table gives them per product
//   (src/csv/customs.ts); with a SKU the service's inventory supplies them (`ship skus import`).
// - Shopify writes a ZIP code or phone number that looks like a number with a leading apostrophe ('07028,
//   '+447700900123), so that a spreadsheet keeps its leading zero: that mark is Shopify's, not the address's,
//   and is taken off.
import type { InputProblem } from '../../errors.js';
import type { Cell, ShipmentDraft } from '../../shipment-input/draft.js';
import { leavesMainlandUk } from '../customs.js';
import type { CanonicalRow } from '../group.js';
import { valuesUnderNoHeader } from '../headers.js';
import type { BoundLayout, Finalized, Layout, PresetOptions } from './index.js';

/** Contract column ← Shopify column. */
const FIELDS: Array<[string, string]> = [
  ['shipment_reference', 'Name'],
  ['order_reference', 'Name'],
  ['to_email_address', 'Email'],
  ['to_name', 'Shipping Name'],
  ['to_company_name', 'Shipping Company'],
  ['to_line_1', 'Shipping Address1'],
  ['to_line_2', 'Shipping Address2'],
  ['to_city', 'Shipping City'],
  ['to_county', 'Shipping Province'],
  ['to_postcode', 'Shipping Zip'],
  ['to_country', 'Shipping Country'],
  ['to_telephone', 'Shipping Phone'],
  ['item_quantity', 'Lineitem quantity'],
  ['item_short_description', 'Lineitem name'],
  ['item_value', 'Lineitem price'],
  ['item_sku', 'Lineitem sku'],
];
const REQUIRED = ['Name', 'Lineitem quantity', 'Lineitem name', 'Lineitem price', 'Shipping Address1', 'Shipping City', 'Shipping Zip', 'Shipping Country'];
/** Columns Shopify marks with a leading apostrophe when their value looks like a number. */
const APOSTROPHE_MARKED = new Set(['to_postcode', 'to_telephone']);
const ADDRESS = ['to_line_1', 'to_line_2', 'to_city', 'to_postcode', 'to_country'];

/** Financial Status values of an order whose payment is gone: nothing to ship. */
const PAYMENT_GONE = new Set(['refunded', 'voided']);
/** Financial Status values of an order not paid (yet): shipped, with a warning. */
const NOT_PAID = new Set(['pending', 'partially_paid', 'expired', 'unpaid']);

/** The Shopify orders-export layout. */
export function shopifyLayout(opts: PresetOptions = {}): Layout {
  const includeFulfilled = opts.includeFulfilled === true;
  return {
    bind(header: string[]): BoundLayout {
      const index = new Map<string, number>();
      header.forEach((h, i) => {
        const key = h.replace(/^\uFEFF/, '').trim().toLowerCase();
        if (!index.has(key)) index.set(key, i);
      });
      const col = (name: string) => index.get(name.toLowerCase());
      const problems: InputProblem[] = REQUIRED.filter((n) => col(n) === undefined).map((n) => ({
        row: 1,
        column: n,
        message: 'missing: this is not a Shopify orders export (or not the standard export header)',
      }));
      const labels = new Map(FIELDS.map(([c, s]) => [c, s]));
      const requiresShipping = col('Lineitem requires shipping');
      const cancelledAt = col('Cancelled at');
      const currency = col('Currency');
      const financialStatus = col('Financial Status');
      const fulfillmentStatus = col('Fulfillment Status');
      const lineFulfillment = col('Lineitem fulfillment status');
      const shippingCharge = col('Shipping');
      const discountAmount = col('Discount Amount');
      const checkUnheaded = valuesUnderNoHeader(header);

      return {
        problems,
        warnings: [],
        notes: [],
        // A contract column the export has no source for (an item's origin, say) is named as such in messages.
        labelFor: (column) => labels.get(column) ?? `${column} (not in a Shopify export)`,
        referenceIndex: col('Name'),
        toRow(rec, rowProblems): CanonicalRow | null {
          if (rec.values.every((v) => v === '')) return null;
          checkUnheaded(rec, rowProblems);
          const cells = new Map<string, Cell>();
          const get = (i: number | undefined) => (i === undefined ? '' : (rec.values[i] ?? ''));
          for (const [column, source] of FIELDS) {
            let v = get(col(source));
            if (APOSTROPHE_MARKED.has(column) && v.startsWith("'")) v = v.slice(1);
            if (v !== '') cells.set(column, { value: v, row: rec.row, column: source });
          }
          const shipping = get(requiresShipping).toLowerCase() !== 'false';
          // A line already shipped (a partial order's, or any line of a fulfilled one) is not shipped again.
          const fulfilled = get(lineFulfillment).trim().toLowerCase() === 'fulfilled';
          const shipped = shipping && !includeFulfilled && fulfilled;
          if (!shipping || shipped) for (const c of [...cells.keys()]) if (c.startsWith('item_')) cells.delete(c);
          return {
            row: rec.row,
            cells,
            parcelKey: 'order',
            noParcel: !shipping || shipped,
            meta: {
              cancelled: get(cancelledAt),
              currency: get(currency),
              currencyRow: get(currency) ? String(rec.row) : '',
              financial: get(financialStatus).trim().toLowerCase(),
              financialRow: get(financialStatus).trim() ? String(rec.row) : '',
              fulfillment: get(fulfillmentStatus).trim().toLowerCase(),
              'shippedLines+': shipped ? String(rec.row) : '',
              fulfilledLine: shipping && fulfilled ? String(rec.row) : '',
              freight: get(shippingCharge).trim(),
              freightRow: get(shippingCharge).trim() ? String(rec.row) : '',
              discount: get(discountAmount).trim(),
              discountRow: get(discountAmount).trim() ? String(rec.row) : '',
            },
          };
        },
        finalize: (draft) => finalizeOrder(draft, includeFulfilled),
      };
    },
  };
}

/** What customs needs of an item without a SKU that an orders export has no column for. */
const CUSTOMS_DETAILS = ['item_full_description', 'item_country_of_origin', 'item_harmonised_code', 'item_weight'];

/** Leaves out orders that cannot be shipped, fills the recipient name from the company, and totals the parcel. */
function finalizeOrder(draft: ShipmentDraft, includeFulfilled: boolean): Finalized {
  const cancelled = draft.meta.get('cancelled');
  if (cancelled) return { exclude: `order cancelled (${cancelled})` };
  const financial = draft.meta.get('financial') ?? '';
  if (PAYMENT_GONE.has(financial)) return { exclude: `payment ${financial} (Financial Status)` };
  const fulfillment = draft.meta.get('fulfillment') ?? '';
  if (fulfillment === 'restocked') return { exclude: 'order restocked (Fulfillment Status): returned, not to ship' };
  if (fulfillment === 'fulfilled' && !includeFulfilled) return { exclude: 'already fulfilled (Fulfillment Status; --include-fulfilled ships it again)' };
  if (draft.parcels.length === 0) {
    return { exclude: draft.meta.has('shippedLines+') ? 'every line item to ship is already fulfilled (Lineitem fulfillment status; --include-fulfilled ships them again)' : 'no line item requires shipping' };
  }
  if (!ADDRESS.some((c) => draft.cells.has(c))) return { exclude: 'no shipping address' };
  // (A country that does not resolve is reported by validation as it stands, not taken for abroad.)
  if (leavesMainlandUk(draft)) {
    // (--customs, applied before this, may have given them.)
    const lacking = draft.parcels.flatMap((p) => p.items).filter((i) => !i.cells.get('item_sku')?.value.trim() && CUSTOMS_DETAILS.some((c) => !i.cells.get(c)?.value.trim()));
    if (lacking.length) {
      const table = draft.meta.get('customsTable');
      const names = [...new Set(lacking.map((i) => i.cells.get('item_short_description')?.value ?? '(no name)'))].map((n) => `"${n}"`).join(', ');
      return {
        exclude: `ships outside mainland UK and ${lacking.length === 1 ? 'a line item has' : 'line items have'} no SKU: customs needs the origin, tariff code and weight of ${names}, which an orders export does not carry (${table ? `add ${lacking.length === 1 ? 'it' : 'them'} to --customs ${table}` : 'give them with --customs FILE.csv'})`,
        excludeNeedsData: true,
      };
    }
  }

  const warnings: InputProblem[] = [];
  for (const row of draft.meta.get('shippedLines+')?.split(',') ?? []) {
    warnings.push({ row: Number(row), column: 'Lineitem fulfillment status', message: `fulfilled: order ${draft.reference} ships its other line items only (--include-fulfilled ships this one again)` });
  }
  if (NOT_PAID.has(financial)) {
    warnings.push({ row: Number(draft.meta.get('financialRow')) || draft.firstRow, column: 'Financial Status', message: `${financial}: order ${draft.reference} is not paid (yet), and is shipped` });
  }
  const company = draft.cells.get('to_company_name');
  if (!draft.cells.has('to_name') && company) {
    draft.cells.set('to_name', company);
    warnings.push({
      row: company.row,
      column: 'Shipping Name',
      message: `empty; order ${draft.reference} is addressed to the company "${company.value}"`,
    });
  }
  for (const parcel of draft.parcels) {
    if (parcel.cells.has('value')) continue;
    let cents = 0;
    let ok = parcel.items.length > 0;
    for (const item of parcel.items) {
      const price = item.cells.get('item_value')?.value ?? '';
      const qty = item.cells.get('item_quantity')?.value ?? '1';
      if (!/^\d+(\.\d{1,2})?$/.test(price) || !/^\d+$/.test(qty)) ok = false;
      else cents += Math.round(Number(price) * 100) * Number(qty);
    }
    if (ok) parcel.cells.set('value', { value: (cents / 100).toFixed(2), row: parcel.firstRow, column: 'Lineitem price' });
  }
  // The order's shipping charge and discount belong to the whole order: not to a partial shipment of it, nor to
  // a replacement of lines already shipped (--include-fulfilled), whose invoice they would throw out.
  if (leavesMainlandUk(draft) && !draft.meta.has('fulfilledLine')) {
    // Money columns of the order, on its first row; zero or unreadable ones add nothing to the invoice.
    const amount = (key: string) => {
      const v = draft.meta.get(key) ?? '';
      return /^\d+(\.\d{1,2})?$/.test(v) && Number(v) > 0 ? Number(v) : undefined;
    };
    const freight = amount('freight');
    if (freight !== undefined) draft.extras.push({ path: 'customs_declaration.freight_value', value: freight, origin: { row: Number(draft.meta.get('freightRow')), column: 'Shipping' } });
    // Never more than the goods shipped (a discount on a gift card, say, left out as needing no shipping).
    const goods = draft.parcels.reduce((sum, p) => sum + (Number(p.cells.get('value')?.value) || 0), 0);
    const discount = Math.min(amount('discount') ?? 0, goods);
    if (discount > 0) draft.extras.push({ path: 'customs_declaration.other_value', value: -discount, origin: { row: Number(draft.meta.get('discountRow')), column: 'Discount Amount' } });
  }
  const currency = draft.meta.get('currency');
  if (currency) {
    draft.extras.push({
      path: 'customs_declaration.currency_code',
      value: currency,
      origin: { row: Number(draft.meta.get('currencyRow')) || draft.firstRow, column: 'Currency' },
    });
  }
  return { warnings };
}
