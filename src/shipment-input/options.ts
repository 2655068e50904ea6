// The input flags `ship create` and `ship quote` share: a shipment from flags, from --file (the API's own JSON
// body), or from --csv. Declared once here so both commands offer exactly the same inputs.
import { Option, type Command } from 'commander';
import { UsageError } from '../errors.js';

/** Shipment input as parsed from flags (values still text; converted by the builder). */
export interface ShipmentInputOptions {
  file?: string;
  csv?: string;
  map?: string;
  preset?: string;
  /** --preset shopify: also orders and line items Shopify marks fulfilled (a replacement, a lost parcel). */
  includeFulfilled?: boolean;
  allowUnknownColumns?: boolean;
  delimiter?: string;
  /** CSV only: the file's encoding (default: UTF-8, or Windows-1252 when the bytes are not UTF-8). */
  encoding?: string;
  /** CSV only: pick one shipment (quote). */
  shipment?: string;
  reference?: string;
  orderReference?: string;
  service?: string;
  brand?: string;
  location?: string;
  despatchDate?: string;
  instructions?: string;
  container?: string;
  vatNumber?: string;
  eoriNumber?: string;
  ukimsNumber?: string;
  dutyMethod?: string;
  currency?: string;
  invoiceNumber?: string;
  insuranceValue?: string;
  freightValue?: string;
  packingValue?: string;
  handlingValue?: string;
  otherValue?: string;
  exportLicenseNumber?: string;
  exportCertificateNumber?: string;
  exportComments?: string;
  exportPurpose?: string;
  toName?: string;
  toCompany?: string;
  toLine1?: string;
  toLine2?: string;
  toLine3?: string;
  toCity?: string;
  toCounty?: string;
  toPostcode?: string;
  toCountry?: string;
  toPhone?: string;
  toEmail?: string;
  weight?: string;
  length?: string;
  width?: string;
  depth?: string;
  value?: string;
  packaging?: string;
  parcels?: string;
  parcel?: string[];
  item?: string[];
  customField?: string[];
  defaultWeight?: string;
  customs?: string;
}

const collect = (v: string, prev: string[] = []) => [...prev, v];

/** Flag → contract column, for shipment-level flags (also how messages name a missing field). */
export const SHIPMENT_FLAGS: ReadonlyArray<readonly [keyof ShipmentInputOptions, string, string]> = [
  ['reference', '--reference', 'shipment_reference'],
  ['orderReference', '--order-reference', 'order_reference'],
  ['service', '--service', 'delivery_service_key'],
  ['brand', '--brand', 'brand'],
  ['location', '--location', 'location_code'],
  ['despatchDate', '--despatch-date', 'despatch_date'],
  ['instructions', '--instructions', 'delivery_instructions'],
  ['container', '--container', 'container_reference'],
  ['vatNumber', '--vat-number', 'recipient_vat_number'],
  ['eoriNumber', '--eori-number', 'recipient_eori_number'],
  ['ukimsNumber', '--ukims-number', 'recipient_ukims_number'],
  ['dutyMethod', '--duty-method', 'duty_method'],
  ['currency', '--currency', 'currency_code'],
  ['invoiceNumber', '--invoice-number', 'commercial_invoice_number'],
  ['insuranceValue', '--insurance-value', 'insurance_value'],
  ['freightValue', '--freight-value', 'freight_value'],
  ['packingValue', '--packing-value', 'packing_value'],
  ['handlingValue', '--handling-value', 'handling_value'],
  ['otherValue', '--other-value', 'other_value'],
  ['exportLicenseNumber', '--export-license-number', 'export_license_number'],
  ['exportCertificateNumber', '--export-certificate-number', 'export_certificate_number'],
  ['exportComments', '--export-comments', 'other_export_comments'],
  ['exportPurpose', '--export-purpose', 'export_purpose'],
  ['toName', '--to-name', 'to_name'],
  ['toCompany', '--to-company', 'to_company_name'],
  ['toPhone', '--to-phone', 'to_telephone'],
  ['toEmail', '--to-email', 'to_email_address'],
  ['toLine1', '--to-line1', 'to_line_1'],
  ['toLine2', '--to-line2', 'to_line_2'],
  ['toLine3', '--to-line3', 'to_line_3'],
  ['toCity', '--to-city', 'to_city'],
  ['toCounty', '--to-county', 'to_county'],
  ['toPostcode', '--to-postcode', 'to_postcode'],
  ['toCountry', '--to-country', 'to_country'],
];

/** Flag → contract column, for the parcel flags (one parcel, or defaults of every --parcel). */
export const PARCEL_FLAGS: ReadonlyArray<readonly [keyof ShipmentInputOptions, string, string]> = [
  ['packaging', '--packaging', 'packaging_type_key'],
  ['weight', '--weight', 'weight'],
  ['length', '--length', 'length'],
  ['width', '--width', 'width'],
  ['depth', '--depth', 'depth'],
  ['value', '--value', 'value'],
];

/** Adds the shared input flags to a command (create or quote). */
export function addShipmentInputOptions(cmd: Command, purpose: 'create' | 'quote'): Command {
  cmd
    .option('--file <file>', "the API's own JSON request body (- for stdin); flags given as well override its fields")
    .option('--csv <file>', purpose === 'create' ? 'create shipments in bulk from a CSV file (see "CSV files" below)' : 'read the shipment from a CSV file')
    .option('--map <file.json>', 'rename the CSV headers: {"Their header": "our_column", "Unused": null}')
    .addOption(new Option('--preset <name>', 'read another system\'s export as it is').choices(['shopify']))
    .option('--include-fulfilled', 'with --preset shopify: also ship orders and line items Shopify marks fulfilled (a replacement)')
    .option('--allow-unknown-columns', 'ignore CSV columns that are not ours (with a warning) instead of refusing the file')
    .option('--delimiter <char>', 'CSV field delimiter (default: a first line sep=X, else detected from the header: , ; or tab)')
    .option('--encoding <name>', 'CSV file encoding, e.g. windows-1252 or iso-8859-2 (default: UTF-8; a file that is not UTF-8 is read as Windows-1252, with a warning)')
    .option('--default-weight <grams>', 'weight of parcels that have none (e.g. Shopify exports carry no weights)')
    .option('--customs <file.csv>', "customs details per product (SKU or name): origin, tariff code, weight; for items leaving mainland UK that lack them ('-' for stdin)");
  if (purpose === 'quote') cmd.option('--shipment <ref>', 'with --csv: the shipment_reference to quote, when the file holds several');
  cmd
    .option('--reference <ref>', purpose === 'create' ? 'shipment_reference: your unique reference (required)' : 'shipment_reference (default: a placeholder)')
    .option('--order-reference <ref>', 'order_reference: the customer-facing order number')
    .option('--service <key>', purpose === 'create' ? 'delivery_service_key (default: the routing rules choose; with --csv, fills blanks)' : "delivery_service_key: price that service alone (over the file's or the CSV row's)")
    .option('--brand <key>', 'brand key or id')
    .option('--location <code>', 'location_code to send from')
    .option('--despatch-date <date>', 'despatch_date, YYYY-MM-DD or "YYYY-MM-DD HH:MM:SS"')
    .option('--instructions <text>', 'delivery_instructions for the carrier')
    .option('--container <ref>', 'container_reference of an open container')
    .option('--vat-number <n>', 'recipient_vat_number')
    .option('--eori-number <n>', 'recipient_eori_number')
    .option('--ukims-number <n>', 'recipient_ukims_number')
    .option('--duty-method <method>', 'customs declaration: DAP or DDP (default: the account\'s)')
    .option('--currency <code>', 'customs declaration: currency_code of the values, e.g. EUR (default: the account\'s)')
    .option('--invoice-number <n>', 'customs declaration: commercial_invoice_number (default: the order reference)')
    .option('--insurance-value <amount>', 'customs declaration: insurance_value, e.g. 5.00')
    .option('--freight-value <amount>', 'customs declaration: freight_value, e.g. 4.95')
    .option('--packing-value <amount>', 'customs declaration: packing_value')
    .option('--handling-value <amount>', 'customs declaration: handling_value')
    .option('--other-value <amount>', 'customs declaration: other_value (negative for a discount, e.g. -3.00)')
    .option('--export-license-number <n>', 'customs declaration: export_license_number')
    .option('--export-certificate-number <n>', 'customs declaration: export_certificate_number')
    .option('--export-comments <text>', 'customs declaration: other_export_comments (up to 1,000 characters)')
    .option('--export-purpose <purpose>', 'customs declaration: gift, documents, sale_of_goods, commercial_sample, returned_goods (several: comma-separated), or other=TEXT')
    .option('--to-name <name>', 'recipient name (required)')
    .option('--to-company <name>', 'recipient company name')
    .option('--to-line1 <text>', 'address line 1 (required)')
    .option('--to-line2 <text>', 'address line 2')
    .option('--to-line3 <text>', 'address line 3')
    .option('--to-city <city>', 'town or city (required)')
    .option('--to-county <county>', 'county, state or province')
    .option('--to-postcode <postcode>', 'postcode or ZIP (required)')
    .option('--to-country <code>', 'two-letter ISO country code, or a country name such as "United Kingdom" (required)')
    .option('--to-phone <phone>', 'recipient telephone')
    .option('--to-email <email>', 'recipient email address')
    .option('--weight <grams>', 'parcel weight in grams')
    .option('--length <cm>', 'parcel length in cm')
    .option('--width <cm>', 'parcel width in cm')
    .option('--depth <cm>', 'parcel depth in cm')
    .option('--value <amount>', 'value of the parcel contents, e.g. 25.00')
    .option('--packaging <key>', 'packaging_type_key (with --csv, fills blanks)')
    .option('--parcels <n>', 'N identical parcels of --weight/--length/…')
    .option('--parcel <spec>', 'one parcel, repeatable: "weight=1200,length=30,width=20,depth=10,value=25.00,packaging=BOX,reference=P1" (a parcel custom field: custom_fields.KEY=value)', collect)
    .option('--item <spec>', 'one item, repeatable: "sku=SKU1,description=Mug,full_description=Ceramic coffee mug,quantity=2,value=4.50,weight=300,origin=GB,hs=691200,parcel=1" (outside mainland UK an item without sku needs all but sku and parcel)', collect)
    .option('--custom-field <key=value>', 'a shipment custom field, repeatable', collect);
  return cmd;
}

/** Which input the flags select, refusing combinations that make no sense. */
export function inputKind(o: ShipmentInputOptions): 'csv' | 'file' | 'flags' {
  if (o.csv && o.file) throw new UsageError('--csv and --file are two different inputs: give one');
  if (!o.csv && (o.map || o.preset || o.allowUnknownColumns || o.delimiter || o.encoding || o.shipment || o.customs)) {
    throw new UsageError('--map, --preset, --allow-unknown-columns, --delimiter, --encoding, --customs and --shipment only apply with --csv FILE');
  }
  if (o.map && o.preset) throw new UsageError('--map and --preset are two ways to read a file: give one');
  if (o.includeFulfilled && o.preset !== 'shopify') throw new UsageError('--include-fulfilled applies to --preset shopify (a plain CSV has no fulfilment status)');
  if (o.csv) {
    const shipmentOnly = SHIPMENT_FLAGS.filter(([k]) => !['service', 'brand', 'location', 'despatchDate', 'container'].includes(k as string)).filter(([k]) => o[k] !== undefined);
    const parcelOnly = (['weight', 'length', 'width', 'depth', 'value', 'parcels'] as const).filter((k) => o[k] !== undefined);
    const bad = [...shipmentOnly.map(([, f]) => f), ...parcelOnly.map((k) => `--${k}`), ...(o.parcel?.length ? ['--parcel'] : []), ...(o.item?.length ? ['--item'] : []), ...(o.customField?.length ? ['--custom-field'] : [])];
    if (bad.length) {
      throw new UsageError(`${bad.join(', ')} cannot be combined with --csv: the file gives those values`, {
        hint: 'with --csv, --service, --packaging, --default-weight, --brand, --location, --despatch-date and --container fill blank cells',
      });
    }
    return 'csv';
  }
  if (o.defaultWeight !== undefined && !o.csv) throw new UsageError('--default-weight only applies with --csv (use --weight)');
  return o.file ? 'file' : 'flags';
}
