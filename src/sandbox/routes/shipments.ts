// /shipments: create (routing, packaging, SKU lookup, custom fields, containers), get-services (quotes), cancel,
// events, print and commercial invoice.
import { randomUUID } from 'node:crypto';
import { containerTotals, parcelTotals, presentAddress, presentLocation, type SandboxApp } from '../app.js';
import { countryCodeOf } from '../countries.js';
import { addBusinessDays, fmtDateTime, fmtDateTimeMinutes, money, parseDateTime } from '../format.js';
import { HttpError, notFound, ok, type ApiRequest, type ApiResponse } from '../http.js';
import { defaultCustoms, effectiveCustoms, invoicePdf, renderLabel, renderZpl, shipmentLabels } from '../labels.js';
import { APP_NAME } from '../seed.js';
import type {
  AddressRec,
  ContainerRec,
  CustomsRec,
  ItemRec,
  LabelFormat,
  PackagingTypeRec,
  ParcelRec,
  ServiceRec,
  ShipmentRec,
  UserRec,
} from '../store.js';
import { isManifested, trackingEvent } from '../tracking.js';
import { Errors, VALIDATION_MESSAGE, arr, bool, checkForbidden, country, fail, int, isBlank, isObject, label, msg, num, obj, oneOf, str } from '../validation.js';
import { resolveCustomFields } from './custom-fields.js';
import { failedCondition, type ParcelFacts } from './services.js';
import { isCurrencyCode } from '../../api/currencies.js';

/** The account's home country: deliveries elsewhere need customs data. */
export const HOME_COUNTRY = 'GB';
/**
 * Postcodes of a GB address where customs rules apply: Northern Ireland (BT…, in the UK but not mainland UK) and
 * the Channel Islands (JE… Jersey, GY… Guernsey: outside the UK's customs territory, often addressed as GB).
 */
const NOT_MAINLAND_POSTCODE = /^\s*(BT|JE|GY)\d/i;
const FORMATS = ['ZPL', 'PDF', 'PNG'] as const;

/** A validated parcel: the stored parcel's fields before it gets an id, a tracking reference and events. */
type ParcelDraft = Omit<ParcelRec, 'id' | 'tracking_reference' | 'events'>;

/** The request's fields a stored shipment takes over as they are. */
type DraftFields =
  | 'shipment_reference' | 'order_reference' | 'brand_id' | 'location_id' | 'despatch_date' | 'to_address' | 'delivery_instructions'
  | 'custom_fields' | 'customs_declaration' | 'recipient_vat_number' | 'recipient_eori_number' | 'recipient_ukims_number' | 'format';

/** A validated shipment request, before a service is chosen. */
interface Draft extends Pick<ShipmentRec, DraftFields> {
  requested: ServiceRec | null;
  requestedField: string;
  print_labels: boolean;
  print_to_user: UserRec | null;
  printer_key: string | null;
  container: ContainerRec | null;
  parcels: ParcelDraft[];
}

/** A priced service for a draft, in pence. */
interface Quote {
  service: ServiceRec;
  base: number;
  additional: number;
  surcharges: number;
  fuel: number;
  total: number;
}

function parseCustoms(e: Errors, raw: unknown, path: string, partial: boolean, defaults: { invoice: string }): Partial<CustomsRec> | null {
  const c = obj(e, raw, path);
  if (!c) return null;
  const p = (k: string) => `${path}.${k}`;
  const out: Partial<CustomsRec> = {};
  const dm = oneOf(e, c.duty_method, p('duty_method'), ['DAP', 'DDP'] as const);
  if (dm) out.duty_method = dm;
  const inv = str(e, c.commercial_invoice_number, p('commercial_invoice_number'));
  if (inv !== undefined) out.commercial_invoice_number = inv;
  for (const k of ['insurance_value', 'freight_value', 'packing_value', 'handling_value'] as const) {
    const v = num(e, c[k], p(k), { min: 0 });
    if (v !== undefined) out[k] = Math.round(v * 100);
  }
  const other = num(e, c.other_value, p('other_value'));
  if (other !== undefined) out.other_value = Math.round(other * 100);
  const cur = str(e, c.currency_code, p('currency_code'));
  if (cur !== undefined) {
    if (!/^[A-Za-z]{3}$/.test(cur)) e.add(p('currency_code'), `The ${label(p('currency_code'))} must be a three-letter ISO 4217 currency code.`);
    else if (!isCurrencyCode(cur.toUpperCase())) e.add(p('currency_code'), msg.invalid(p('currency_code')));
    else out.currency_code = cur.toUpperCase();
  }
  for (const k of ['export_license_number', 'export_certificate_number'] as const) {
    const v = str(e, c[k], p(k));
    if (v !== undefined) out[k] = v;
  }
  const comments = str(e, c.other_export_comments, p('other_export_comments'), { max: 1000 });
  if (comments !== undefined) out.other_export_comments = comments;
  const ep = obj(e, c.export_purpose, p('export_purpose'));
  if (ep) {
    const purpose: NonNullable<CustomsRec['export_purpose']> = {};
    for (const k of ['gift', 'documents', 'sale_of_goods', 'commercial_sample', 'returned_goods'] as const) {
      const v = bool(e, ep[k], `${p('export_purpose')}.${k}`);
      if (v !== undefined) purpose[k] = v;
    }
    const o = str(e, ep.other, `${p('export_purpose')}.other`);
    if (o !== undefined) purpose.other = o;
    out.export_purpose = purpose;
  }
  if (partial) return out;
  return { ...defaultCustoms(defaults.invoice), ...out };
}

function parseAddress(e: Errors, raw: unknown): AddressRec {
  const a = obj(e, raw, 'to_address', { required: true }) ?? {};
  const p = (k: string) => `to_address.${k}`;
  const opt = (k: string) => str(e, a[k], p(k)) ?? '';
  return {
    name: str(e, a.name, p('name'), { required: true }) ?? '',
    company_name: opt('company_name'),
    telephone: opt('telephone'),
    email_address: opt('email_address'),
    line_1: str(e, a.line_1, p('line_1'), { required: true }) ?? '',
    line_2: opt('line_2'),
    line_3: opt('line_3'),
    city: str(e, a.city, p('city'), { required: true }) ?? '',
    county: opt('county'),
    postcode: str(e, a.postcode, p('postcode'), { required: true }) ?? '',
    country: country(e, a.country, p('country'), { required: true }) ?? '',
  };
}

function parseItem(app: SandboxApp, e: Errors, raw: unknown, path: string, international: boolean): ItemRec | null {
  if (!isObject(raw)) {
    e.add(path, msg.object(path));
    return null;
  }
  const p = (k: string) => `${path}.${k}`;
  const skuRef = str(e, raw.sku, p('sku'));
  const sku = skuRef !== undefined ? app.store.skusBySku.get(skuRef) : undefined;
  let origin: string | undefined;
  const originRaw = str(e, raw.country_of_origin, p('country_of_origin'));
  if (originRaw !== undefined) {
    origin = countryCodeOf(originRaw);
    if (!origin) e.add(p('country_of_origin'), `The ${label(p('country_of_origin'))} must be a country name or a two-character ISO 3166-1 code.`);
  }
  const weight = int(e, raw.item_weight, p('item_weight'), { min: 0 });
  const value = num(e, raw.item_value, p('item_value'), { min: 0 });
  const qty = int(e, raw.item_quantity, p('item_quantity'), { min: 1 });
  const item: ItemRec = {
    item_line_id: str(e, raw.item_line_id, p('item_line_id')) ?? null,
    sku: skuRef ?? null,
    short_description: str(e, raw.short_description, p('short_description')) ?? sku?.description_short ?? sku?.product_name ?? null,
    full_description: str(e, raw.full_description, p('full_description')) ?? sku?.description_full ?? null,
    country_of_origin: origin ?? sku?.country_of_origin ?? null,
    harmonised_code: str(e, raw.harmonised_code, p('harmonised_code')) ?? sku?.tariff_code ?? null,
    item_weight: weight ?? sku?.net_weight ?? sku?.gross_weight ?? null,
    item_value: value !== undefined ? Math.round(value * 100) : sku && (sku.value_ex_vat ?? sku.value_inc_vat) !== null ? Math.round((sku.value_ex_vat ?? sku.value_inc_vat)! * 100) : null,
    item_quantity: qty ?? 1,
  };
  if (international && !sku) {
    // Outside mainland UK, customs needs every attribute of an item unless a SKU lookup supplied them: the
    // document makes short_description "Optional for mainland UK deliveries or with SKU lookup" and gives the
    // others (full description, origin, tariff code, weight, value) "the same optionality"; the quantity is
    // "Optional for mainland UK deliveries".
    const need = (k: keyof ItemRec) => {
      if (item[k] === null && !e.has(p(k))) e.add(p(k), msg.required(p(k)));
    };
    for (const k of ['short_description', 'full_description', 'country_of_origin', 'harmonised_code', 'item_weight', 'item_value'] as const) need(k);
    if (qty === undefined && isBlank(raw.item_quantity) && !e.has(p('item_quantity'))) e.add(p('item_quantity'), msg.required(p('item_quantity')));
  }
  return item;
}

function findPackaging(app: SandboxApp, key: string): PackagingTypeRec | undefined {
  return app.store.packaging.packaging_types.find((t) => t.key === key);
}

function defaultPackaging(app: SandboxApp): PackagingTypeRec | undefined {
  return app.store.packaging.packaging_types.find((t) => t.default);
}

const cm = (mm: number) => Math.ceil(mm / 10);

function parseParcel(app: SandboxApp, e: Errors, raw: unknown, i: number, shipmentRef: string, international: boolean): ParcelDraft | null {
  const path = `parcels.${i}`;
  if (!isObject(raw)) {
    e.add(path, msg.object(path));
    return null;
  }
  const p = (k: string) => `${path}.${k}`;
  const reference = str(e, raw.reference, p('reference')) ?? `${shipmentRef}-${i + 1}`;
  let pkg: PackagingTypeRec | undefined;
  const pkgKey = str(e, raw.packaging_type_key, p('packaging_type_key'));
  if (pkgKey !== undefined) {
    pkg = findPackaging(app, pkgKey);
    if (!pkg) e.add(p('packaging_type_key'), msg.invalid(p('packaging_type_key')));
  }
  const sent = {
    weight: int(e, raw.weight, p('weight'), { min: 1 }),
    length: int(e, raw.length, p('length'), { min: 1 }),
    width: int(e, raw.width, p('width'), { min: 1 }),
    depth: int(e, raw.depth, p('depth'), { min: 1 }),
  };
  const { allow_override, net_weight } = app.store.packaging;
  const allSent = sent.weight !== undefined && sent.length !== undefined && sent.width !== undefined && sent.depth !== undefined;
  // The packaging type in play: the one named, else the default when something is missing or overriding is off.
  if (!pkg && pkgKey === undefined && (!allow_override || !allSent)) pkg = defaultPackaging(app);
  const dims = {
    length: allow_override || !pkg ? sent.length ?? (pkg ? cm(pkg.external_height) : undefined) : cm(pkg.external_height),
    width: allow_override || !pkg ? sent.width ?? (pkg ? cm(pkg.external_width) : undefined) : cm(pkg.external_width),
    depth: allow_override || !pkg ? sent.depth ?? (pkg ? cm(pkg.external_depth) : undefined) : cm(pkg.external_depth),
  };
  let weight = sent.weight ?? pkg?.default_weight;
  if (!pkg && pkgKey === undefined) {
    for (const k of ['weight', 'length', 'width', 'depth'] as const) {
      const v = k === 'weight' ? weight : dims[k];
      if (v === undefined && !e.has(p(k))) e.add(p(k), `The ${label(p(k))} field is required when ${label(p('packaging_type_key'))} is not present.`);
    }
  }
  if (pkg && pkgKey !== undefined && weight !== undefined && sent.weight !== undefined && weight > pkg.max_weight) {
    e.add(p('weight'), `The ${label(p('weight'))} may not be greater than ${pkg.max_weight} (the max weight of packaging type ${pkg.key}).`);
  }
  if (pkg && net_weight && weight !== undefined) weight += pkg.packaging_weight;
  const value = num(e, raw.value, p('value'), { min: 0 });

  const items: ItemRec[] = [];
  const rawItems = arr(e, raw.items, p('items'));
  if (rawItems) {
    rawItems.forEach((it, j) => {
      const item = parseItem(app, e, it, `${p('items')}.${j}`, international);
      if (item) items.push(item);
    });
  } else if (international && !e.has(p('items'))) {
    e.add(p('items'), `The ${label(p('items'))} field is required for deliveries outside mainland UK.`);
  }
  let itemsValue: number | null = null;
  for (const it of items) if (it.item_value !== null) itemsValue = (itemsValue ?? 0) + it.item_value * it.item_quantity;

  return {
    reference,
    packaging_type_key: pkg?.key ?? null,
    weight: weight ?? 0,
    length: dims.length ?? 0,
    width: dims.width ?? 0,
    depth: dims.depth ?? 0,
    value: value !== undefined ? Math.round(value * 100) : itemsValue,
    items,
    // MAPPED fields may name any attribute of the parcel: what was sent, with the resolved reference, packaging and sizes.
    custom_fields: resolveCustomFields(app, e, 'PARCEL', raw.custom_fields, p('custom_fields'), {
      ...raw,
      reference,
      packaging_type_key: pkg?.key ?? raw.packaging_type_key,
      weight: weight ?? raw.weight,
      length: dims.length ?? raw.length,
      width: dims.width ?? raw.width,
      depth: dims.depth ?? raw.depth,
    }),
    customs_declaration: parseCustoms(e, raw.customs_declaration, p('customs_declaration'), true, { invoice: '' }),
  };
}

/** Items sharing an item_line_id must describe the same item. */
function checkItemLines(e: Errors, parcels: ParcelDraft[]): void {
  const seen = new Map<string, { item: ItemRec; path: string }>();
  // "Validation prevents non-matching items appearing in the same parcel": matching items may share a line ID
  // (in one parcel or across several); items that differ may not.
  parcels.forEach((parcel, i) => {
    parcel.items.forEach((it, j) => {
      if (it.item_line_id === null) return;
      const path = `parcels.${i}.items.${j}.item_line_id`;
      const first = seen.get(it.item_line_id);
      if (!first) {
        seen.set(it.item_line_id, { item: it, path: `parcels.${i}.items.${j}` });
        return;
      }
      const a = first.item;
      if (a.sku !== it.sku || a.short_description !== it.short_description || a.harmonised_code !== it.harmonised_code || a.country_of_origin !== it.country_of_origin || a.item_value !== it.item_value) {
        e.add(path, `The ${label(path)} links items that do not match (see ${first.path}).`);
      }
    });
  });
}

/** Validates a shipment request (POST /shipments and get-services). */
function parseDraft(app: SandboxApp, req: ApiRequest, forQuote: boolean): Draft {
  // A body that is not an object (null, an array, nothing) is validated as an empty one: every required field reported.
  const b = (isObject(req.body) ? req.body : {}) as Record<string, unknown>;
  const e = new Errors();
  checkForbidden(e, b);

  const shipment_reference = str(e, b.shipment_reference, 'shipment_reference', { required: true }) ?? '';
  if (!forQuote && shipment_reference && app.store.activeByRef.has(shipment_reference)) e.add('shipment_reference', msg.taken('shipment_reference'));
  const order_reference = str(e, b.order_reference, 'order_reference') ?? null;

  let requested: ServiceRec | null = null;
  const requestedField = isBlank(b.delivery_service_key) && !isBlank(b.service_key) ? 'service_key' : 'delivery_service_key';
  const key = str(e, b[requestedField], requestedField);
  if (key !== undefined) {
    requested = app.store.servicesByKey.get(key) ?? null;
    if (!requested) e.add(requestedField, msg.invalid(requestedField));
  }

  let brand_id: string | null = app.store.defaultBrand()?.id ?? null;
  const brandRef = str(e, b.brand, 'brand');
  if (brandRef !== undefined) {
    const brand = app.store.brand(brandRef);
    if (!brand) e.add('brand', msg.invalid('brand'));
    else brand_id = brand.id;
  }
  let location_id = app.store.defaultLocation().id;
  const locRef = str(e, b.location_code, 'location_code');
  if (locRef !== undefined) {
    const loc = app.store.location(locRef);
    if (!loc) e.add('location_code', msg.invalid('location_code'));
    else location_id = loc.id;
  }
  let despatch_date = app.nowStr();
  const dd = str(e, b.despatch_date, 'despatch_date');
  if (dd !== undefined) {
    // The document's format, whole (Laravel's date_format:Y-m-d H:i:s): a date without its time is refused.
    const d = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/.test(dd) ? parseDateTime(dd) : null;
    if (!d) e.add('despatch_date', 'The despatch date does not match the format Y-m-d H:i:s.');
    else despatch_date = fmtDateTime(d);
  }

  const to_address = parseAddress(e, b.to_address);
  // Customs applies outside mainland UK: abroad, and to Northern Ireland and the Channel Islands (GB addresses
  // with a BT, JE or GY postcode).
  const international = to_address.country !== '' && (to_address.country !== HOME_COUNTRY || NOT_MAINLAND_POSTCODE.test(to_address.postcode));

  const parcels: ParcelDraft[] = [];
  const rawParcels = arr(e, b.parcels, 'parcels', { required: true });
  if (rawParcels) {
    const refs = new Map<string, number>();
    const generated: ParcelDraft[] = [];
    rawParcels.forEach((raw, i) => {
      const parcel = parseParcel(app, e, raw, i, shipment_reference, international);
      if (!parcel) return;
      if (isObject(raw) && !isBlank(raw.reference)) {
        if (refs.has(parcel.reference)) e.add(`parcels.${i}.reference`, `The parcels.${i}.reference field has a duplicate value.`);
        refs.set(parcel.reference, i);
      } else generated.push(parcel);
      parcels.push(parcel);
    });
    // A reference made up for a parcel that has none ("REF-2") must not be one the caller gave another parcel:
    // the document calls it unique, and webhooks identify parcels by it.
    const taken = new Set(refs.keys());
    let next = parcels.length;
    for (const parcel of generated) {
      while (taken.has(parcel.reference)) parcel.reference = `${shipment_reference}-${++next}`;
      taken.add(parcel.reference);
    }
    checkItemLines(e, parcels);
  }

  // MAPPED fields may name any attribute of the shipment (Custom Field: source), so all of the request is offered.
  const attributes: Record<string, unknown> = { ...b, shipment_reference, order_reference, to_address };
  const custom_fields = resolveCustomFields(app, e, 'SHIPMENT', b.custom_fields, 'custom_fields', attributes);
  const customsSent = b.customs_declaration !== undefined && b.customs_declaration !== null;
  const customs_declaration =
    customsSent || international
      ? (parseCustoms(e, b.customs_declaration, 'customs_declaration', false, { invoice: order_reference ?? shipment_reference }) as CustomsRec | null) ??
        (parseCustoms(e, {}, 'customs_declaration', false, { invoice: order_reference ?? shipment_reference }) as CustomsRec)
      : null;

  const format = oneOf(e, b.format, 'format', FORMATS) ?? 'ZPL';
  const print_labels = bool(e, b.print_labels, 'print_labels') ?? false;
  let print_to_user: UserRec | null = null;
  const ptu = str(e, b.print_to_user, 'print_to_user');
  if (ptu !== undefined) {
    if (!print_labels) e.add('print_to_user', 'The print to user field is prohibited unless print labels is true.');
    else {
      print_to_user = app.store.users.get(ptu) ?? null;
      if (!print_to_user) e.add('print_to_user', msg.invalid('print_to_user'));
    }
  }
  const printer_key = str(e, b.printer_key, 'printer_key') ?? null;

  let container: ContainerRec | null = null;
  const cref = str(e, b.container_reference, 'container_reference');
  if (cref !== undefined) {
    container = app.store.container(cref) ?? null;
    if (!container) e.add('container_reference', msg.invalid('container_reference'));
    else if (container.status !== 'Open') e.add('container_reference', `The container ${container.reference} is closed; no more shipments can be added.`);
  }

  const draft: Draft = {
    shipment_reference,
    order_reference,
    requested,
    requestedField,
    brand_id,
    location_id,
    despatch_date,
    to_address,
    delivery_instructions: str(e, b.delivery_instructions, 'delivery_instructions') ?? null,
    custom_fields,
    customs_declaration,
    recipient_vat_number: str(e, b.recipient_vat_number, 'recipient_vat_number') ?? null,
    recipient_eori_number: str(e, b.recipient_eori_number, 'recipient_eori_number') ?? null,
    recipient_ukims_number: str(e, b.recipient_ukims_number, 'recipient_ukims_number') ?? null,
    format,
    print_labels,
    print_to_user,
    printer_key,
    container,
    parcels,
  };
  e.throwIfAny();
  return draft;
}

function facts(p: ParcelDraft, countryCode: string): ParcelFacts {
  return { weight: p.weight, length: p.length, width: p.width, depth: p.depth, country: countryCode };
}

/** The first parcel a service cannot carry, with the condition it fails. */
function unmet(s: ServiceRec, d: Draft): string | null {
  for (let i = 0; i < d.parcels.length; i++) {
    const c = failedCondition(s, facts(d.parcels[i], d.to_address.country));
    if (c) return `parcels.${i} (${c[0]} must be ${c[1]} ${c[2]})`;
  }
  return null;
}

/** Prices a service for a draft: base + additional parcels + surcharge + fuel (percent of base and additional). */
function quote(s: ServiceRec, d: Draft): Quote {
  const base = s.price;
  const additional = s.additional_parcel_price * Math.max(0, d.parcels.length - 1);
  const surcharges = s.surcharge;
  const fuel = Math.round(((base + additional) * s.fuel_percent) / 100);
  return { service: s, base, additional, surcharges, fuel, total: base + additional + surcharges + fuel };
}

/** Services that can carry the draft (consolidation services only for a container, and only its own). */
function eligibleQuotes(app: SandboxApp, d: Draft): Quote[] {
  const out: Quote[] = [];
  for (const s of app.store.services.values()) {
    if (d.container ? s.key !== d.container.service_key : s.consolidation) continue;
    if (unmet(s, d) === null) out.push(quote(s, d));
  }
  return out.sort((a, b) => a.total - b.total || a.service.key.localeCompare(b.service.key));
}

/** Picks the service: the requested one (checked against the parcels and the container), else routing's cheapest. */
function chooseService(app: SandboxApp, d: Draft): Quote {
  const f = d.requestedField;
  if (d.requested) {
    const s = d.requested;
    if (d.container && s.key !== d.container.service_key) {
      fail(f, `The ${label(f)} must be the container's delivery service (${d.container.service_key}).`);
    }
    if (!d.container && s.consolidation) {
      fail(f, `The delivery service ${s.key} is a consolidation service; give a container reference to use it.`);
    }
    const why = unmet(s, d);
    if (why) fail(f, `The delivery service ${s.key} cannot carry ${why}.`);
    return quote(s, d);
  }
  const quotes = eligibleQuotes(app, d);
  if (quotes.length === 0) {
    fail('delivery_service_key', `No delivery service can carry these parcels to ${d.to_address.country}; give a delivery service key or change the parcels.`);
  }
  return quotes[0];
}

/** Checks the container's limits with the new shipment added. */
function checkContainer(app: SandboxApp, c: ContainerRec, d: Draft): void {
  const svc = app.store.servicesByKey.get(c.service_key);
  if (!svc) return;
  const t = containerTotals(app, c);
  const add = parcelTotals(d.parcels);
  const over: string[] = [];
  if (svc.max_parcels !== null && t.parcels + add.parcels > svc.max_parcels) over.push(`max parcels (${svc.max_parcels})`);
  if (svc.max_items !== null && t.items + add.items > svc.max_items) over.push(`max items (${svc.max_items})`);
  if (svc.max_weight !== null && t.weight + add.weight > svc.max_weight) over.push(`max weight (${svc.max_weight} g)`);
  if (svc.max_value !== null && t.value + add.value > svc.max_value) over.push(`max value (${svc.max_value})`);
  if (over.length > 0) {
    throw new HttpError(400, VALIDATION_MESSAGE, {
      container_reference: over.map((o) => `The shipment does not fit in container ${c.reference}: it would exceed the container's ${o}.`),
    });
  }
}

function quoteObject(q: Quote, estimated: string): Record<string, string> {
  const s = q.service;
  return {
    carrier: s.carrier,
    carrier_account: s.carrier_account,
    service_name: s.name,
    full_service_name: `${s.carrier} ${s.name}`,
    service_key: s.key,
    base_price: money(q.base),
    additional_parcel_price: money(q.additional),
    surcharges: money(q.surcharges),
    fuel_surcharge: money(q.fuel),
    total_price: money(q.total),
    estimated_delivery_date: estimated,
  };
}

function estimatedDelivery(despatch: string, s: ServiceRec): string {
  const d = parseDateTime(despatch) ?? new Date();
  const eta = addBusinessDays(d, s.transit_days);
  eta.setUTCHours(23, 59, 0, 0);
  return fmtDateTimeMinutes(eta);
}

/** POST /shipments/get-services: priced services for the request, cheapest first; creates nothing. */
export function getServices(app: SandboxApp, req: ApiRequest): ApiResponse {
  const d = parseDraft(app, req, true);
  const quotes = eligibleQuotes(app, d);
  let recommended: Quote | undefined = quotes[0];
  if (d.requested) {
    const mine = quotes.find((q) => q.service.key === d.requested!.key);
    if (mine) recommended = mine;
  }
  return ok('Services', {
    recommended_service: recommended ? quoteObject(recommended, estimatedDelivery(d.despatch_date, recommended.service)) : null,
    services: quotes.map((q) => quoteObject(q, estimatedDelivery(d.despatch_date, q.service))),
  });
}

function nextTracking(app: SandboxApp, s: ServiceRec): string {
  const n = ++app.store.counters.tracking;
  return `${s.tracking_prefix}${String(n).padStart(9, '0')}GB`;
}

function nextUniversal(app: SandboxApp): string {
  const n = ++app.store.counters.universal;
  return `C${n.toString(36).toUpperCase().padStart(11, '0')}`;
}

/** One element of the creation response (one per parcel). */
function element(app: SandboxApp, s: ShipmentRec, i: number, svc: ServiceRec, label: { zpl: string; pdf: string; png: string | string[] }): Record<string, unknown> {
  const p = s.parcels[i];
  const loc = app.store.locations.get(s.location_id);
  const el: Record<string, unknown> = {
    id: s.id,
    shipment_reference: s.shipment_reference,
    parcel_reference: p.reference,
    carrier: svc.carrier,
    service_name: svc.name,
    tracking_reference: p.tracking_reference,
    universal_tracking_reference: s.universal_tracking_reference,
    created_by: s.created_by_name,
    created_with: s.created_with,
    created_at: s.created_at,
    price: money(s.price),
    estimated_delivery_date: s.estimated_delivery_date,
    weight: p.weight,
  };
  if (s.container_id) el.container_reference = app.store.containers.get(s.container_id)?.reference ?? '';
  el.to_address = presentAddress(s.to_address);
  el.despatch_location = loc ? presentLocation(loc) : null;
  el.pdf = label.pdf;
  el.zpl = label.zpl;
  el.png = label.png;
  return el;
}

/** POST /shipments: validates, routes, stores, labels; `data` has one element per parcel. */
export function createShipment(app: SandboxApp, req: ApiRequest): ApiResponse | Promise<ApiResponse> {
  const d = parseDraft(app, req, false);
  const q = chooseService(app, d);
  if (d.container) checkContainer(app, d.container, d);
  const svc = q.service;
  const user = app.store.users.get(req.userId!)!;
  const now = app.nowStr();
  const format: LabelFormat = d.print_labels ? (d.print_to_user ?? user).printer_format : d.format;

  const parcels: ParcelRec[] = d.parcels.map((p) => ({
    id: randomUUID(),
    reference: p.reference,
    tracking_reference: nextTracking(app, svc),
    packaging_type_key: p.packaging_type_key,
    weight: p.weight,
    length: p.length,
    width: p.width,
    depth: p.depth,
    value: p.value,
    items: p.items,
    custom_fields: p.custom_fields,
    customs_declaration: p.customs_declaration,
    events: [trackingEvent('LABEL_CREATED', now)],
  }));
  const s: ShipmentRec = {
    id: randomUUID(),
    shipment_reference: d.shipment_reference,
    order_reference: d.order_reference,
    service_key: svc.key,
    brand_id: d.brand_id,
    location_id: d.location_id,
    despatch_date: d.despatch_date,
    to_address: d.to_address,
    delivery_instructions: d.delivery_instructions,
    custom_fields: d.custom_fields,
    customs_declaration: d.customs_declaration,
    recipient_vat_number: d.recipient_vat_number,
    recipient_eori_number: d.recipient_eori_number,
    recipient_ukims_number: d.recipient_ukims_number,
    format,
    price: q.total,
    estimated_delivery_date: estimatedDelivery(d.despatch_date, svc),
    universal_tracking_reference: nextUniversal(app),
    created_at: now,
    created_by: user.id,
    created_by_name: `${user.first_name} ${user.last_name}`,
    created_with: APP_NAME,
    status: 'created',
    cancelled_at: null,
    container_id: d.container?.id ?? null,
    parcels,
  };
  app.store.addShipment(s);
  if (d.container) {
    d.container.shipment_ids.push(s.id);
    d.container.updated_at = now;
  }
  if (d.print_labels) {
    app.store.printJobs.push({ id: randomUUID(), shipment_reference: s.shipment_reference, user_id: (d.print_to_user ?? user).id, printer_key: d.printer_key, labels: parcels.length, format, at: now });
  }
  app.changed();
  if (app.webhooksActive) emitShipment(app, 'SHIPMENT_CREATED', s);

  if (format === 'ZPL') {
    const data = new Array(parcels.length);
    for (let i = 0; i < parcels.length; i++) data[i] = element(app, s, i, svc, { zpl: renderZpl(app, s, i), pdf: '', png: '' });
    return ok('Shipment Created', data, 201);
  }
  return (async () => {
    const data = [];
    for (let i = 0; i < parcels.length; i++) {
      const l = await renderLabel(app, s, i, format);
      data.push(element(app, s, i, svc, { zpl: l.zpl, pdf: l.pdf, png: format === 'PNG' ? [l.png] : '' }));
    }
    return ok('Shipment Created', data, 201);
  })();
}

/** Emits SHIPMENT_CREATED / SHIPMENT_CANCELLED with lazily rendered labels for subscriptions that want them. */
function emitShipment(app: SandboxApp, event: 'SHIPMENT_CREATED' | 'SHIPMENT_CANCELLED', s: ShipmentRec): void {
  const svc = app.store.servicesByKey.get(s.service_key);
  app.dispatcher.emit(event, {
    shipment_reference: s.shipment_reference,
    parcel_references: s.parcels.map((p) => p.reference),
    source: APP_NAME,
    order_reference: s.order_reference,
    carrier: svc?.carrier ?? '',
    carrier_account: svc?.carrier_account ?? '',
    tracking_numbers: s.parcels.map((p) => p.tracking_reference),
    custom_fields: s.custom_fields,
    recipient: { name: s.to_address.name, email_address: s.to_address.email_address, telephone: s.to_address.telephone },
    labels: () => shipmentLabels(app, s, s.format),
  });
}

/**
 * DELETE /shipments/:ref: cancels a shipment not yet manifested; frees its reference for reuse. `:ref` is the
 * shipment reference only (the document says so here, where other endpoints say "reference or ID").
 */
export function cancelShipment(app: SandboxApp, req: ApiRequest): ApiResponse {
  const ref = req.params.ref;
  const s = app.store.shipmentByRef(ref);
  if (!s) throw notFound(`No shipment with reference "${ref}".`);
  if (s.status === 'cancelled') fail('shipment_reference', 'The shipment has already been cancelled.');
  if (isManifested(s)) fail('shipment_reference', 'The shipment has already been manifested and cannot be cancelled.');
  app.store.cancelShipment(s, app.nowStr());
  app.changed();
  if (app.webhooksActive) emitShipment(app, 'SHIPMENT_CANCELLED', s);
  return ok('Shipment Cancelled', null);
}

/** GET /shipments/:ref/events: reference or ID; keyed by each parcel's carrier tracking reference. */
export function shipmentEvents(app: SandboxApp, req: ApiRequest): ApiResponse {
  const s = app.store.shipmentByRefOrId(req.params.ref);
  if (!s) throw notFound(`No shipment with reference or ID "${req.params.ref}".`);
  const data: Record<string, unknown> = {};
  for (const p of s.parcels) {
    data[p.tracking_reference] = { shipment_reference: s.shipment_reference, courier_tracking_reference: p.tracking_reference, tracking_events: p.events };
  }
  return ok('Tracking events', data);
}

function findAny(app: SandboxApp, ref: string): ShipmentRec {
  const s = app.store.shipmentByAnyRef(ref);
  if (!s) throw notFound(`No shipment with ID, reference, order reference or tracking reference "${ref}".`);
  return s;
}

/** PUT /shipments/:ref/print: sends the shipment's labels to a user's desktop printing application. */
export function printShipment(app: SandboxApp, req: ApiRequest): ApiResponse {
  const s = findAny(app, req.params.ref);
  const b = isObject(req.body) ? req.body : {};
  const e = new Errors();
  checkForbidden(e, b);
  let target = app.store.users.get(req.userId!)!;
  const ptu = str(e, b.print_to_user, 'print_to_user');
  if (ptu !== undefined) {
    const u = app.store.users.get(ptu);
    if (!u) e.add('print_to_user', msg.invalid('print_to_user'));
    else target = u;
  }
  const printer_key = str(e, b.printer_key, 'printer_key') ?? null;
  e.throwIfAny();
  if (s.status === 'cancelled') fail('shipment_reference', 'The shipment has been cancelled; its labels cannot be printed.');
  const n = s.parcels.length;
  app.store.printJobs.push({ id: randomUUID(), shipment_reference: s.shipment_reference, user_id: target.id, printer_key, labels: n, format: target.printer_format, at: app.nowStr() });
  app.changed();
  return ok(`${n} ${n === 1 ? 'label' : 'labels'} sent to printer`, []);
}

/** GET /shipments/:ref/commercial-invoice: `data` is an array holding one object with the base64 A4 PDF. */
export async function shipmentInvoice(app: SandboxApp, req: ApiRequest): Promise<ApiResponse> {
  const s = findAny(app, req.params.ref);
  const pdf = await invoicePdf(app, s);
  const c = effectiveCustoms(s);
  return ok('Commercial invoice', [
    { shipment_reference: s.shipment_reference, commercial_invoice_number: c.commercial_invoice_number, format: 'PDF', pdf: pdf.toString('base64') },
  ]);
}

