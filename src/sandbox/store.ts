// The sandbox's state: records of every resource, with O(1) indexes for the lookups requests make, and a
// plain-JSON snapshot for `--state FILE`.

import type { ExportPurpose } from './documents/index.js';

export type LabelFormat = 'ZPL' | 'PDF' | 'PNG';
export type AccessLevel = 'MERCHANT_ADMIN' | 'MERCHANT_USER' | '3PL_ADMIN' | '3PL_USER';
export type TrackingType = 'LABEL_CREATED' | 'MANIFESTED' | 'COLLECTED' | 'IN_TRANSIT' | 'DELIVERED' | 'DELIVERY_FAILED';

export interface UserRec {
  id: string;
  title: string;
  first_name: string;
  last_name: string;
  email: string;
  password: string;
  profile_image_url: string;
  location_id: string;
  access_level: AccessLevel;
  user_type: string;
  printer_online: boolean;
  /** The label format the user picked in the desktop printing application (used when print_labels is true). */
  printer_format: LabelFormat;
}

export interface LocationRec {
  id: string;
  code: string;
  name: string;
  type: string;
  telephone: string;
  email: string;
  address_name: string;
  address_line_1: string;
  address_line_2: string;
  address_line_3: string | null;
  address_town_city: string;
  address_county: string | null;
  address_country: string;
  address_post_zip_code: string | null;
  default: boolean;
  created_at: string;
  updated_at: string;
}

export interface BrandRec {
  id: string;
  name: string;
  key: string;
  return_address_line_1: string;
  return_address_line_2: string;
  return_address_line_3: string | null;
  return_address_town_city: string;
  return_address_county: string;
  return_address_postcode: string;
  return_address_country: string;
  return_phone: string;
  return_email: string;
  profile_image_url: string;
  customer_despatch_notes: string;
  default: boolean;
  tracking_portal_base_url: string;
}

/** A delivery service condition: field, operator, value. */
export type Condition = [string, string, string];

export interface ServiceRec {
  id: string;
  carrier: string;
  carrier_account: string;
  name: string;
  description: string;
  key: string;
  /** Base price, pence. */
  price: number;
  additional_parcel_price: number;
  surcharge: number;
  /** Fuel surcharge, percent of base + additional. */
  fuel_percent: number;
  transit_days: number;
  conditions: Condition[];
  consolidation: boolean;
  tracking_prefix: string;
  tracking_url: string;
  max_parcels: number | null;
  max_items: number | null;
  max_weight: number | null;
  max_value: number | null;
}

export interface ValidationRules {
  is_required?: boolean;
  min_length?: number;
  max_length?: number;
  regex?: string;
  options?: string;
  numeric_type?: 'INT' | 'DECIMAL';
  min_value?: number;
  max_value?: number;
}

export interface CustomFieldRec {
  id: string;
  name: string;
  key: string;
  entity: string;
  data_type: 'NUMERIC' | 'TEXT' | 'BOOLEAN' | 'LIST';
  source: 'DIRECT' | 'FIXED' | 'MAPPED';
  mapped_to: string | null;
  default_value: string | null;
  data_validation_rules: ValidationRules | null;
}

export interface PackagingTypeRec {
  name: string;
  key: string;
  default: boolean;
  internal_width: number;
  internal_height: number;
  internal_depth: number;
  external_width: number;
  external_height: number;
  external_depth: number;
  max_weight: number;
  default_weight: number;
  packaging_weight: number;
}

export interface PackagingRec {
  net_weight: boolean;
  allow_override: boolean;
  packaging_types: PackagingTypeRec[];
}

export interface SkuRec {
  id: string;
  sku: string;
  image_url: string | null;
  product_name: string | null;
  outer_barcode: string | null;
  inner_barcode: string | null;
  product_code: string | null;
  description_short: string | null;
  description_full: string | null;
  department: string | null;
  category: string | null;
  location_id: string;
  warehouse_location: string | null;
  tariff_code: string | null;
  tariff_description: string | null;
  country_of_origin: string | null;
  manufacturer_name: string | null;
  part_number: string | null;
  value_ex_vat: number | null;
  vat_rate: number | null;
  value_inc_vat: number | null;
  gross_weight: number | null;
  net_weight: number | null;
  width: number | null;
  length: number | null;
  depth: number | null;
  active: boolean;
  is_stocked_item: boolean;
  in_stock: boolean;
  custom_fields: Record<string, string>;
  item_handling: 'PACKABLE' | 'NON_PACKABLE';
  created_at: string;
  updated_at: string;
}

export interface TokenRec {
  token: string;
  user_id: string;
  created_at: string;
}

export interface TrackingEventRec {
  code: string;
  name: string;
  description: string;
  date: string;
  type: TrackingType;
}

export interface AddressRec {
  name: string;
  company_name: string;
  telephone: string;
  email_address: string;
  line_1: string;
  line_2: string;
  line_3: string;
  city: string;
  county: string;
  postcode: string;
  country: string;
}

export interface ItemRec {
  item_line_id: string | null;
  sku: string | null;
  short_description: string | null;
  full_description: string | null;
  country_of_origin: string | null;
  harmonised_code: string | null;
  item_weight: number | null;
  /** pence */
  item_value: number | null;
  item_quantity: number;
}

export interface CustomsRec {
  duty_method: 'DAP' | 'DDP';
  commercial_invoice_number: string;
  insurance_value: number;
  freight_value: number;
  packing_value: number;
  handling_value: number;
  other_value: number;
  currency_code: string;
  export_license_number: string | null;
  export_certificate_number: string | null;
  other_export_comments: string | null;
  export_purpose: ExportPurpose | null;
}

export interface ParcelRec {
  id: string;
  reference: string;
  tracking_reference: string;
  packaging_type_key: string | null;
  weight: number;
  length: number;
  width: number;
  depth: number;
  /** pence, or null when neither the parcel value nor item values were given */
  value: number | null;
  items: ItemRec[];
  custom_fields: Record<string, string>;
  customs_declaration: Partial<CustomsRec> | null;
  events: TrackingEventRec[];
}

export interface ShipmentRec {
  id: string;
  shipment_reference: string;
  order_reference: string | null;
  service_key: string;
  brand_id: string | null;
  location_id: string;
  despatch_date: string;
  to_address: AddressRec;
  delivery_instructions: string | null;
  custom_fields: Record<string, string>;
  customs_declaration: CustomsRec | null;
  recipient_vat_number: string | null;
  recipient_eori_number: string | null;
  recipient_ukims_number: string | null;
  format: LabelFormat;
  /** pence */
  price: number;
  estimated_delivery_date: string;
  universal_tracking_reference: string;
  created_at: string;
  created_by: string;
  created_by_name: string;
  created_with: string;
  status: 'created' | 'cancelled';
  cancelled_at: string | null;
  container_id: string | null;
  parcels: ParcelRec[];
}

export interface ContainerRec {
  id: string;
  reference: string;
  despatch_date: string;
  location_id: string;
  service_key: string;
  tracking_reference: string;
  consolidation_reference: string;
  clearance_country: string;
  clearance_location: string;
  value_currency: string;
  status: 'Open' | 'Closed';
  shipment_ids: string[];
  created_at: string;
  updated_at: string;
  closed_at: string | null;
}

export interface PrintJobRec {
  id: string;
  shipment_reference: string;
  user_id: string;
  printer_key: string | null;
  labels: number;
  format: LabelFormat;
  at: string;
}

/** Counters behind generated references. */
export interface Counters {
  tracking: number;
  universal: number;
  /** `YYDDD` → last container sequence used that day. */
  containers: Record<string, number>;
}

/** The whole state as plain JSON (the `--state FILE` format). */
export interface Snapshot {
  version: 1;
  counters: Counters;
  users: UserRec[];
  locations: LocationRec[];
  brands: BrandRec[];
  services: ServiceRec[];
  custom_fields: CustomFieldRec[];
  packaging: PackagingRec;
  skus: SkuRec[];
  tokens: TokenRec[];
  shipments: ShipmentRec[];
  containers: ContainerRec[];
  print_jobs: PrintJobRec[];
  webhooks: unknown[];
}

/**
 * How many tokens one user keeps. The document makes tokens persistent (no expiry) and shows no cap for 1.2
 * (1.0 and 1.1 state none), but a script that logs in on every call would grow the state, and a --state file,
 * without bound: past this many, a login drops that user's oldest token.
 */
export const MAX_TOKENS_PER_USER = 100;

/** In-memory state with the indexes requests need. */
export class Store {
  counters: Counters = { tracking: 0, universal: 0, containers: {} };
  users = new Map<string, UserRec>();
  usersByEmail = new Map<string, UserRec>();
  locations = new Map<string, LocationRec>();
  locationsByCode = new Map<string, LocationRec>();
  brands = new Map<string, BrandRec>();
  brandsByKey = new Map<string, BrandRec>();
  services = new Map<string, ServiceRec>();
  servicesByKey = new Map<string, ServiceRec>();
  customFields = new Map<string, CustomFieldRec>();
  customFieldsByKey = new Map<string, CustomFieldRec>();
  packaging: PackagingRec = { net_weight: false, allow_override: true, packaging_types: [] };
  /** SKUs in creation order (pagination), with id and sku-number indexes. */
  skuList: SkuRec[] = [];
  skus = new Map<string, SkuRec>();
  skusBySku = new Map<string, SkuRec>();
  tokens = new Map<string, TokenRec>();
  /** Each user's tokens, oldest first (a Set keeps insertion order). */
  private tokensByUser = new Map<string, Set<string>>();
  shipments = new Map<string, ShipmentRec>();
  /** The non-cancelled shipment holding each reference. */
  activeByRef = new Map<string, ShipmentRec>();
  /** The most recent shipment (any state) with each reference. */
  lastByRef = new Map<string, ShipmentRec>();
  /** Every shipment of an order reference (which need not be unique), in the order they were created. */
  byOrderRef = new Map<string, ShipmentRec[]>();
  byUniversal = new Map<string, ShipmentRec>();
  parcelsByTracking = new Map<string, { shipment: ShipmentRec; parcel: ParcelRec }>();
  containers = new Map<string, ContainerRec>();
  containersByRef = new Map<string, ContainerRec>();
  printJobs: PrintJobRec[] = [];
  webhooks: unknown[] = [];

  /** Adds or replaces a user. */
  putUser(u: UserRec): void {
    this.users.set(u.id, u);
    this.usersByEmail.set(u.email.toLowerCase(), u);
  }
  putLocation(l: LocationRec): void {
    this.locations.set(l.id, l);
    this.locationsByCode.set(l.code, l);
  }
  putBrand(b: BrandRec): void {
    this.brands.set(b.id, b);
    this.brandsByKey.set(b.key, b);
  }
  putService(s: ServiceRec): void {
    this.services.set(s.id, s);
    this.servicesByKey.set(s.key, s);
  }
  putCustomField(c: CustomFieldRec): void {
    this.customFields.set(c.id, c);
    this.customFieldsByKey.set(c.key, c);
  }
  /** Adds a token; past MAX_TOKENS_PER_USER for its user, that user's oldest tokens are dropped. */
  addToken(t: TokenRec): void {
    this.tokens.set(t.token, t);
    let mine = this.tokensByUser.get(t.user_id);
    if (!mine) this.tokensByUser.set(t.user_id, (mine = new Set()));
    mine.add(t.token);
    while (mine.size > MAX_TOKENS_PER_USER) {
      const oldest = mine.values().next().value as string;
      mine.delete(oldest);
      this.tokens.delete(oldest);
    }
  }
  /** Invalidates a token. */
  revokeToken(token: string): void {
    const t = this.tokens.get(token);
    if (!t) return;
    this.tokens.delete(token);
    this.tokensByUser.get(t.user_id)?.delete(token);
  }
  /** Adds a new SKU at the end of the list. */
  addSku(s: SkuRec): void {
    this.skuList.push(s);
    this.skus.set(s.id, s);
    this.skusBySku.set(s.sku, s);
  }
  /** Re-indexes a SKU whose sku number changed. */
  renameSku(s: SkuRec, oldSku: string): void {
    if (this.skusBySku.get(oldSku) === s) this.skusBySku.delete(oldSku);
    this.skusBySku.set(s.sku, s);
  }
  /** Adds a created shipment and indexes it by id, reference, order reference and tracking references. */
  addShipment(s: ShipmentRec): void {
    this.shipments.set(s.id, s);
    if (s.status !== 'cancelled') this.activeByRef.set(s.shipment_reference, s);
    this.lastByRef.set(s.shipment_reference, s);
    if (s.order_reference) {
      const same = this.byOrderRef.get(s.order_reference);
      if (same) same.push(s);
      else this.byOrderRef.set(s.order_reference, [s]);
    }
    this.byUniversal.set(s.universal_tracking_reference, s);
    for (const p of s.parcels) this.parcelsByTracking.set(p.tracking_reference, { shipment: s, parcel: p });
  }
  /** Marks a shipment cancelled and frees its reference for reuse. */
  cancelShipment(s: ShipmentRec, at: string): void {
    s.status = 'cancelled';
    s.cancelled_at = at;
    if (this.activeByRef.get(s.shipment_reference) === s) this.activeByRef.delete(s.shipment_reference);
  }
  putContainer(c: ContainerRec): void {
    this.containers.set(c.id, c);
    this.containersByRef.set(c.reference, c);
  }
  deleteContainer(c: ContainerRec): void {
    this.containers.delete(c.id);
    if (this.containersByRef.get(c.reference) === c) this.containersByRef.delete(c.reference);
  }

  /** Location by code or ID. */
  location(ref: string): LocationRec | undefined {
    return this.locationsByCode.get(ref) ?? this.locations.get(ref);
  }
  /** The account's default location. */
  defaultLocation(): LocationRec {
    for (const l of this.locations.values()) if (l.default) return l;
    return this.locations.values().next().value as LocationRec;
  }
  /** Brand by key or ID. */
  brand(ref: string): BrandRec | undefined {
    return this.brandsByKey.get(ref) ?? this.brands.get(ref);
  }
  defaultBrand(): BrandRec | undefined {
    for (const b of this.brands.values()) if (b.default) return b;
    return undefined;
  }
  /** Custom field by key or ID. */
  customField(ref: string): CustomFieldRec | undefined {
    return this.customFieldsByKey.get(ref) ?? this.customFields.get(ref);
  }
  /** SKU by sku number or ID. */
  sku(ref: string): SkuRec | undefined {
    return this.skusBySku.get(ref) ?? this.skus.get(ref);
  }
  /** Shipment by reference (the live one, else the latest cancelled one) or ID. */
  shipmentByRefOrId(ref: string): ShipmentRec | undefined {
    return this.shipmentByRef(ref) ?? this.shipments.get(ref);
  }
  /** Shipment by reference only (the active one, else the last one cancelled under it). */
  shipmentByRef(ref: string): ShipmentRec | undefined {
    return this.activeByRef.get(ref) ?? this.lastByRef.get(ref);
  }
  /** Shipment by ID, reference, order reference, the service's tracking reference or a carrier tracking reference. */
  shipmentByAnyRef(ref: string): ShipmentRec | undefined {
    return (
      this.shipmentByRefOrId(ref) ??
      this.shipmentByOrderRef(ref) ??
      this.byUniversal.get(ref) ??
      this.parcelsByTracking.get(ref)?.shipment
    );
  }
  /** Shipment by order reference: the latest live one of it, else the latest cancelled one (as by reference). */
  shipmentByOrderRef(ref: string): ShipmentRec | undefined {
    const same = this.byOrderRef.get(ref);
    if (!same) return undefined;
    for (let i = same.length - 1; i >= 0; i--) if (same[i].status !== 'cancelled') return same[i];
    return same[same.length - 1];
  }
  /** Container by reference or ID. */
  container(ref: string): ContainerRec | undefined {
    return this.containersByRef.get(ref) ?? this.containers.get(ref);
  }

  /** The whole state as plain JSON. */
  snapshot(): Snapshot {
    return {
      version: 1,
      counters: this.counters,
      users: [...this.users.values()],
      locations: [...this.locations.values()],
      brands: [...this.brands.values()],
      services: [...this.services.values()],
      custom_fields: [...this.customFields.values()],
      packaging: this.packaging,
      skus: this.skuList,
      tokens: [...this.tokens.values()],
      shipments: [...this.shipments.values()],
      containers: [...this.containers.values()],
      print_jobs: this.printJobs,
      webhooks: this.webhooks,
    };
  }

  /** Builds a store (with indexes) from a snapshot. */
  static fromSnapshot(s: Snapshot): Store {
    const st = new Store();
    st.counters = { tracking: s.counters?.tracking ?? 0, universal: s.counters?.universal ?? 0, containers: { ...(s.counters?.containers ?? {}) } };
    for (const u of s.users) st.putUser(u);
    for (const l of s.locations) st.putLocation(l);
    for (const b of s.brands) st.putBrand(b);
    for (const sv of s.services) st.putService(sv);
    for (const c of s.custom_fields) st.putCustomField(c);
    st.packaging = s.packaging;
    for (const k of s.skus) st.addSku(k);
    // Oldest first, as saved: a file from before the cap keeps each user's newest tokens.
    for (const t of s.tokens) st.addToken(t);
    // Oldest first, so a live shipment wins the reference index over cancelled ones with the same reference.
    for (const sh of s.shipments) st.addShipment(sh);
    for (const sh of s.shipments) if (sh.status !== 'cancelled') st.activeByRef.set(sh.shipment_reference, sh);
    for (const c of s.containers) st.putContainer(c);
    st.printJobs = s.print_jobs ?? [];
    st.webhooks = s.webhooks ?? [];
    return st;
  }
}
