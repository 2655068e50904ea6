// A shipment as the user wrote it (CSV rows or flags), before conversion: every value keeps where it came from,
// so problems found later (ours or the API's) can name the user's row and column, or flag.

/** Where a value came from: a CSV row and the user's column name, or a flag (column "--to-postcode", no row). */
export interface Origin {
  row?: number;
  column: string;
}

/** One value and where it came from (flat: one small object per cell keeps 10,000-row files light). */
export interface Cell extends Origin {
  value: string;
}

/** An item: one CSV row's item_* columns. */
export interface ItemDraft {
  row?: number;
  cells: Map<string, Cell>;
}

/** A parcel: one CSV row, or several sharing a parcel_reference. */
export interface ParcelDraft {
  /** Grouping key (the parcel_reference, or a preset's own key); not necessarily sent. */
  key?: string;
  firstRow?: number;
  /** Every row that made this parcel (its first row and any sharing its parcel_reference). */
  rows?: number[];
  cells: Map<string, Cell>;
  items: ItemDraft[];
}

/** A shipment: cells keyed by contract column name (see src/csv/columns.ts), parcels in row order. */
export interface ShipmentDraft {
  reference: string;
  firstRow?: number;
  /** Every row of the file that belongs to this shipment, in file order. */
  rows: number[];
  cells: Map<string, Cell>;
  parcels: ParcelDraft[];
  /** Request fields a preset adds that have no column (e.g. customs_declaration.currency_code), with origins. */
  extras: Array<{ path: string; value: unknown; origin: Origin }>;
  /** Facts a preset keeps for its own decisions (e.g. Shopify's "Cancelled at"). */
  meta: Map<string, string>;
}

/** A new, empty shipment draft. */
export function newDraft(reference: string, firstRow?: number): ShipmentDraft {
  return { reference, firstRow, rows: [], cells: new Map(), parcels: [], extras: [], meta: new Map() };
}
