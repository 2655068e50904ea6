// The sandbox application: state, clock, webhooks, and the presenters that turn records into API objects.
import { WebhookDispatcher, type DispatcherOptions } from './webhooks.js';
import { countryObject } from './countries.js';
import { fmtDateTime, money } from './format.js';
import { seedStore } from './seed.js';
import type { AddressRec, BrandRec, ContainerRec, CustomFieldRec, LocationRec, ParcelRec, ServiceRec, ShipmentRec, SkuRec, Store, UserRec } from './store.js';

/** What the application needs from the server's options. */
export interface AppOptions {
  apiKey: string;
  username: string;
  password: string;
  clock: () => Date;
  webhooks?: DispatcherOptions;
  log: (line: string) => void;
}

/** The running sandbox's state and services, passed to every handler. */
export class SandboxApp {
  store: Store;
  readonly dispatcher: WebhookDispatcher;
  /** True once any webhook subscription exists, so the hot path skips building event data otherwise. */
  webhooksActive = false;
  /** Called after every state change (persistence schedules a save). */
  onChange: () => void = () => {};

  constructor(readonly opts: AppOptions, store?: Store) {
    this.store = store ?? this.seed();
    // An automatic pause changes a subscription outside any request: it must reach the state file too.
    const onSubscriptionChange = opts.webhooks?.onSubscriptionChange;
    this.dispatcher = new WebhookDispatcher({
      now: opts.clock,
      ...opts.webhooks,
      onSubscriptionChange: (sub) => {
        onSubscriptionChange?.(sub);
        this.changed();
      },
    });
    if (this.store.webhooks.length > 0) {
      this.dispatcher.restore(this.store.webhooks as Parameters<WebhookDispatcher['restore']>[0]);
      this.webhooksActive = true;
    }
  }

  /** A fresh seeded store. */
  seed(): Store {
    return seedStore({ username: this.opts.username, password: this.opts.password, now: fmtDateTime(this.opts.clock()) });
  }

  /** Back to the seeded state (tokens, shipments, containers, webhooks and faults all dropped). */
  reset(): void {
    // Counters survive a reset so tracking references stay unique for clients that remember old ones.
    const counters = this.store.counters;
    this.store = this.seed();
    this.store.counters = counters;
    this.dispatcher.reset();
    this.webhooksActive = false;
    this.changed();
  }

  /** The current time. */
  now(): Date {
    return this.opts.clock();
  }

  /** The current time as `YYYY-MM-DD HH:mm:ss`. */
  nowStr(): string {
    return fmtDateTime(this.opts.clock());
  }

  /** Records that state changed. */
  changed(): void {
    this.onChange();
  }

  /** Copies webhook subscriptions into the store so they persist. */
  syncWebhooks(): void {
    this.store.webhooks = this.dispatcher.subscriptions();
    this.changed();
  }
}

/** Location object of responses. */
export function presentLocation(l: LocationRec): Record<string, unknown> {
  return {
    id: l.id,
    code: l.code,
    name: l.name,
    type: l.type,
    telephone: l.telephone,
    email: l.email,
    address_name: l.address_name,
    address_line_1: l.address_line_1,
    address_line_2: l.address_line_2,
    address_line_3: l.address_line_3,
    address_town_city: l.address_town_city,
    address_county: l.address_county,
    address_country: countryObject(l.address_country),
    address_post_zip_code: l.address_post_zip_code,
    default: l.default,
    created_at: l.created_at,
    updated_at: l.updated_at,
  };
}

/** User object of responses (GET /users). */
export function presentUser(app: SandboxApp, u: UserRec): Record<string, unknown> {
  const loc = app.store.locations.get(u.location_id);
  return {
    id: u.id,
    title: u.title,
    first_name: u.first_name,
    last_name: u.last_name,
    email: u.email,
    profile_image_url: u.profile_image_url,
    location: loc ? presentLocation(loc) : null,
    access_level: u.access_level,
    printer_online: u.printer_online,
  };
}

/** Brand object of responses. */
export function presentBrand(b: BrandRec): Record<string, unknown> {
  return { ...b, return_address_country: countryObject(b.return_address_country) };
}

/**
 * Delivery Service object of responses: the document's fields only. Whether a service is a consolidation
 * service is the sandbox's own bookkeeping (the document gives clients no field for it; they learn it from
 * the API's validation errors, as they would from the real service).
 */
export function presentService(s: ServiceRec): Record<string, unknown> {
  return {
    id: s.id,
    carrier: s.carrier,
    name: s.name,
    description: s.description,
    key: s.key,
    price: money(s.price),
    conditions: s.conditions.map((c) => [...c]),
  };
}

/** Custom Field object of responses. */
export function presentCustomField(c: CustomFieldRec): Record<string, unknown> {
  return {
    id: c.id,
    name: c.name,
    key: c.key,
    entity: c.entity,
    data_type: c.data_type,
    source: c.source,
    default_value: c.default_value,
    mapped_to: c.mapped_to,
    data_validation_rules: c.data_validation_rules,
  };
}

/** SKU object of responses (location as Location, country as Country, money as 0.00 strings). */
export function presentSku(app: SandboxApp, s: SkuRec): Record<string, unknown> {
  const loc = app.store.locations.get(s.location_id);
  const dec = (v: number | null) => (v === null ? null : v.toFixed(2));
  return {
    id: s.id,
    sku: s.sku,
    image_url: s.image_url,
    product_name: s.product_name,
    outer_barcode: s.outer_barcode,
    inner_barcode: s.inner_barcode,
    product_code: s.product_code,
    description_short: s.description_short,
    description_full: s.description_full,
    department: s.department,
    category: s.category,
    location: loc ? presentLocation(loc) : null,
    warehouse_location: s.warehouse_location,
    tariff_code: s.tariff_code,
    tariff_description: s.tariff_description,
    country_of_origin: countryObject(s.country_of_origin),
    manufacturer_name: s.manufacturer_name,
    part_number: s.part_number,
    value_ex_vat: dec(s.value_ex_vat),
    vat_rate: dec(s.vat_rate),
    value_inc_vat: dec(s.value_inc_vat),
    gross_weight: s.gross_weight,
    net_weight: s.net_weight,
    width: s.width,
    length: s.length,
    depth: s.depth,
    active: s.active,
    is_stocked_item: s.is_stocked_item,
    in_stock: s.in_stock,
    custom_fields: s.custom_fields,
    item_handling: s.item_handling,
    created_at: s.created_at,
    updated_at: s.updated_at,
  };
}

/** Recipient address in response form: `delivery_name`, empty lines as "". */
export function presentAddress(a: AddressRec): Record<string, string> {
  return {
    delivery_name: a.name,
    line_1: a.line_1,
    line_2: a.line_2,
    line_3: a.line_3,
    city: a.city,
    county: a.county,
    postcode: a.postcode,
    country: a.country,
  };
}

/** Totals of a container's live (not cancelled) shipments. */
export function containerTotals(app: SandboxApp, c: ContainerRec): { parcels: number; items: number; weight: number; value: number } {
  let parcels = 0;
  let items = 0;
  let weight = 0;
  let value = 0;
  for (const id of c.shipment_ids) {
    const s = app.store.shipments.get(id);
    if (!s || s.status === 'cancelled') continue;
    const t = shipmentTotals(s);
    parcels += t.parcels;
    items += t.items;
    weight += t.weight;
    value += t.value;
  }
  return { parcels, items, weight, value };
}

/** Parcel count, item count (sum of quantities), weight (g) and value (pence) of one shipment. */
export function shipmentTotals(s: ShipmentRec): { parcels: number; items: number; weight: number; value: number } {
  return parcelTotals(s.parcels);
}

/** Parcel count, item count (sum of quantities), weight (g) and value (pence) of parcels, stored or not yet. */
export function parcelTotals(parcels: readonly Pick<ParcelRec, 'weight' | 'value' | 'items'>[]): { parcels: number; items: number; weight: number; value: number } {
  let items = 0;
  let weight = 0;
  let value = 0;
  for (const p of parcels) {
    weight += p.weight;
    value += p.value ?? 0;
    for (const it of p.items) items += it.item_quantity;
  }
  return { parcels: parcels.length, items, weight, value };
}

/** Container object of responses. */
export function presentContainer(app: SandboxApp, c: ContainerRec): Record<string, unknown> {
  const svc = app.store.servicesByKey.get(c.service_key);
  const loc = app.store.locations.get(c.location_id);
  const t = containerTotals(app, c);
  return {
    id: c.id,
    reference: c.reference,
    despatch_date: c.despatch_date,
    despatch_location: loc ? presentLocation(loc) : null,
    delivery_service_key: c.service_key,
    carrier: svc?.carrier ?? '',
    carrier_account: svc?.carrier_account ?? '',
    service_name: svc?.name ?? '',
    full_service_name: svc ? `${svc.carrier} ${svc.name}` : '',
    tracking_reference: c.tracking_reference,
    consolidation_reference: c.consolidation_reference,
    clearance_country: countryObject(c.clearance_country),
    clearance_location: c.clearance_location,
    clearance_location_name: CLEARANCE_LOCATIONS[c.clearance_location] ?? `Clearance point ${c.clearance_location}`,
    max_parcels: svc?.max_parcels ?? null,
    max_items: svc?.max_items ?? null,
    max_weight: svc?.max_weight ?? null,
    max_value: svc?.max_value ?? null,
    value_currency: c.value_currency,
    parcels: t.parcels,
    items: t.items,
    weight: t.weight,
    value: t.value,
    status: c.status,
    created_at: c.created_at,
    updated_at: c.updated_at,
  };
}

/** Names of carrier clearance location codes the sandbox knows; others are shown generically. */
export const CLEARANCE_LOCATIONS: Record<string, string> = {
  CDG: 'Paris Charles de Gaulle hub',
  AMS: 'Amsterdam Schiphol hub',
  FRA: 'Frankfurt hub',
  DUB: 'Dublin Port',
  BRU: 'Brussels hub',
  MAD: 'Madrid hub',
  NUE: 'Nuremberg hub',
};
