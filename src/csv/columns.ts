// The CSV columns of the contract (cli-contract.md, "ship create --csv FILE"): which level each belongs to,
// what type its cells hold, and where it lands in the API's shipment request.

/** Which part of the shipment a column describes; decides grouping and the consistency rule. */
export type ColumnLevel = 'shipment' | 'parcel' | 'item';

/** How a cell is converted before it is sent. */
export type CellType = 'text' | 'int' | 'decimal' | 'country' | 'origin-country' | 'datetime' | 'currency' | 'duty-method' | 'export-purpose';

/** One column of the contract. */
export interface ColumnDef {
  name: string;
  level: ColumnLevel;
  type: CellType;
  /** Path inside the request: relative to the shipment, the parcel, or the item (dotted). */
  path: string;
}

const def = (name: string, level: ColumnLevel, path: string, type: CellType = 'text'): ColumnDef => ({ name, level, type, path });

/** Every fixed column, in the order the contract lists them. */
export const COLUMNS: readonly ColumnDef[] = [
  def('shipment_reference', 'shipment', 'shipment_reference'),
  def('order_reference', 'shipment', 'order_reference'),
  def('delivery_service_key', 'shipment', 'delivery_service_key'),
  def('brand', 'shipment', 'brand'),
  def('location_code', 'shipment', 'location_code'),
  def('despatch_date', 'shipment', 'despatch_date', 'datetime'),
  def('delivery_instructions', 'shipment', 'delivery_instructions'),
  def('recipient_vat_number', 'shipment', 'recipient_vat_number'),
  def('recipient_eori_number', 'shipment', 'recipient_eori_number'),
  def('recipient_ukims_number', 'shipment', 'recipient_ukims_number'),
  def('container_reference', 'shipment', 'container_reference'),
  // The customs declaration (api-spec "Customs Declaration"), under the API's own field names.
  def('duty_method', 'shipment', 'customs_declaration.duty_method', 'duty-method'),
  def('currency_code', 'shipment', 'customs_declaration.currency_code', 'currency'),
  def('commercial_invoice_number', 'shipment', 'customs_declaration.commercial_invoice_number'),
  def('insurance_value', 'shipment', 'customs_declaration.insurance_value', 'decimal'),
  def('freight_value', 'shipment', 'customs_declaration.freight_value', 'decimal'),
  def('packing_value', 'shipment', 'customs_declaration.packing_value', 'decimal'),
  def('handling_value', 'shipment', 'customs_declaration.handling_value', 'decimal'),
  def('other_value', 'shipment', 'customs_declaration.other_value', 'decimal'),
  def('export_license_number', 'shipment', 'customs_declaration.export_license_number'),
  def('export_certificate_number', 'shipment', 'customs_declaration.export_certificate_number'),
  def('other_export_comments', 'shipment', 'customs_declaration.other_export_comments'),
  def('export_purpose', 'shipment', 'customs_declaration.export_purpose', 'export-purpose'),
  def('to_name', 'shipment', 'to_address.name'),
  def('to_company_name', 'shipment', 'to_address.company_name'),
  def('to_telephone', 'shipment', 'to_address.telephone'),
  def('to_email_address', 'shipment', 'to_address.email_address'),
  def('to_line_1', 'shipment', 'to_address.line_1'),
  def('to_line_2', 'shipment', 'to_address.line_2'),
  def('to_line_3', 'shipment', 'to_address.line_3'),
  def('to_city', 'shipment', 'to_address.city'),
  def('to_county', 'shipment', 'to_address.county'),
  def('to_postcode', 'shipment', 'to_address.postcode'),
  def('to_country', 'shipment', 'to_address.country', 'country'),
  def('parcel_reference', 'parcel', 'reference'),
  def('packaging_type_key', 'parcel', 'packaging_type_key'),
  def('weight', 'parcel', 'weight', 'int'),
  def('length', 'parcel', 'length', 'int'),
  def('width', 'parcel', 'width', 'int'),
  def('depth', 'parcel', 'depth', 'int'),
  def('value', 'parcel', 'value', 'decimal'),
  def('item_sku', 'item', 'sku'),
  def('item_line_id', 'item', 'item_line_id'),
  def('item_short_description', 'item', 'short_description'),
  def('item_full_description', 'item', 'full_description'),
  def('item_country_of_origin', 'item', 'country_of_origin', 'origin-country'),
  def('item_harmonised_code', 'item', 'harmonised_code'),
  def('item_weight', 'item', 'item_weight', 'int'),
  def('item_value', 'item', 'item_value', 'decimal'),
  def('item_quantity', 'item', 'item_quantity', 'int'),
];

/** Prefix of shipment custom field columns (`custom_fields.KEY`). */
export const SHIPMENT_CUSTOM_PREFIX = 'custom_fields.';
/** Prefix of parcel custom field columns (`parcel_custom_fields.KEY`). */
export const PARCEL_CUSTOM_PREFIX = 'parcel_custom_fields.';

const BY_NAME = new Map(COLUMNS.map((c) => [c.name, c]));

/** Custom field columns defined so far (looked up for every cell of every row); bounded, as keys could be many. */
const CUSTOM_DEFS = new Map<string, ColumnDef>();

/** The definition of a canonical column name, including `custom_fields.KEY` and `parcel_custom_fields.KEY`. */
export function columnDef(name: string): ColumnDef | undefined {
  const fixed = BY_NAME.get(name);
  if (fixed) return fixed;
  let custom = CUSTOM_DEFS.get(name);
  if (!custom) {
    custom = customColumnDef(name);
    if (custom && CUSTOM_DEFS.size < 10_000) CUSTOM_DEFS.set(name, custom);
  }
  return custom;
}

function customColumnDef(name: string): ColumnDef | undefined {
  if (name.startsWith(PARCEL_CUSTOM_PREFIX) && name.length > PARCEL_CUSTOM_PREFIX.length) {
    return { name, level: 'parcel', type: 'text', path: `custom_fields.${name.slice(PARCEL_CUSTOM_PREFIX.length)}` };
  }
  if (name.startsWith(SHIPMENT_CUSTOM_PREFIX) && name.length > SHIPMENT_CUSTOM_PREFIX.length) {
    return { name, level: 'shipment', type: 'text', path: name };
  }
  return undefined;
}

/**
 * The canonical column for a request path relative to its level (e.g. shipment "to_address.postcode" → "to_postcode",
 * parcel "reference" → "parcel_reference", item "sku" → "item_sku"), so API messages can name the user's column.
 */
export function columnForPath(level: ColumnLevel, relPath: string): string | undefined {
  for (const c of COLUMNS) if (c.level === level && c.path === relPath) return c.name;
  // A field inside a column's object (customs_declaration.export_purpose.gift): that column.
  for (const c of COLUMNS) if (c.level === level && c.type === 'export-purpose' && relPath.startsWith(`${c.path}.`)) return c.name;
  if (relPath.startsWith('custom_fields.')) {
    return level === 'parcel' ? PARCEL_CUSTOM_PREFIX + relPath.slice('custom_fields.'.length) : level === 'shipment' ? relPath : undefined;
  }
  return undefined;
}

/** Where a shipment of a CSV file came from: its rows, the parcel of each row, the row of each item. */
export interface ShipmentRows {
  rows: readonly number[];
  /** For each of `rows`: the 0-based parcel it belongs to, or -1. */
  rowParcels: readonly number[];
  /** Per parcel, the row of each of its items. */
  itemRows?: ReadonlyArray<readonly number[]>;
}

/**
 * The row and the user's column of an API field path of a shipment read from a CSV file (`parcels.1.weight`
 * → the second parcel's row, the user's weight header), for the API's validation messages; the path itself
 * as the column when no column holds it.
 */
export function locateApiPath(s: ShipmentRows, path: string, labelFor: (column: string) => string): { row?: number; column: string } {
  const segs = path.split('.');
  let row = s.rows[0];
  let column: string | undefined;
  if (segs[0] === 'parcels' && /^\d+$/.test(segs[1] ?? '')) {
    const at = s.rowParcels.indexOf(Number(segs[1]));
    if (at >= 0) row = s.rows[at];
    if (segs[2] === 'items') {
      const itemRow = /^\d+$/.test(segs[3] ?? '') ? s.itemRows?.[Number(segs[1])]?.[Number(segs[3])] : undefined;
      if (itemRow !== undefined) row = itemRow;
      column = segs.length === 3 ? 'item_sku' : columnForPath('item', segs.slice(4).join('.'));
    } else column = columnForPath('parcel', segs.slice(2).join('.'));
  } else column = columnForPath('shipment', path);
  return { row, column: column ? labelFor(column) : path };
}

/** All fixed column names (for "did you mean" suggestions and help). */
export const COLUMN_NAMES: readonly string[] = COLUMNS.map((c) => c.name);
