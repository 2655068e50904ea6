// Turns shipment and container records into the documents module's inputs, and renders labels per format.
// ZPL renders synchronously on the request path; PDF and PNG load their libraries only when asked for.
import type { SandboxApp } from './app.js';
import { containerTotals, shipmentTotals } from './app.js';
import {
  commercialInvoicePdf,
  containerDocumentsPdf,
  containerLabelPdf,
  containerLabelZpl,
  pdfLabels,
  pngLabel,
  zplLabel,
  type ContainerDocInput,
  type DocAddress,
  type InvoiceInput,
  type InvoiceItem,
  type LabelInput,
} from './documents/index.js';
import { money } from './format.js';
import type { ContainerRec, CustomsRec, ItemRec, LabelFormat, LocationRec, ShipmentRec } from './store.js';

function senderOf(loc: LocationRec | undefined): DocAddress {
  return {
    name: loc?.address_name ?? '',
    line_1: loc?.address_line_1 ?? '',
    line_2: loc?.address_line_2 ?? '',
    line_3: loc?.address_line_3 ?? '',
    city: loc?.address_town_city ?? '',
    county: loc?.address_county ?? '',
    postcode: loc?.address_post_zip_code ?? '',
    country: loc?.address_country ?? 'GB',
    telephone: loc?.telephone,
    email_address: loc?.email,
  };
}

/** The label input of one parcel of a shipment. */
export function labelInput(app: SandboxApp, s: ShipmentRec, index: number): LabelInput {
  const p = s.parcels[index];
  const svc = app.store.servicesByKey.get(s.service_key);
  const brand = s.brand_id ? app.store.brands.get(s.brand_id) : undefined;
  return {
    shipment_reference: s.shipment_reference,
    order_reference: s.order_reference ?? undefined,
    parcel_reference: p.reference,
    parcel_number: index + 1,
    parcel_count: s.parcels.length,
    carrier: svc?.carrier ?? '',
    service_name: svc?.name ?? '',
    tracking_reference: p.tracking_reference,
    universal_tracking_reference: s.universal_tracking_reference,
    weight_grams: p.weight,
    despatch_date: s.despatch_date,
    delivery_instructions: s.delivery_instructions ?? undefined,
    sender: senderOf(app.store.locations.get(s.location_id)),
    to: s.to_address,
    brand_name: brand?.name,
  };
}

/**
 * One parcel's label in each response field. The document says `pdf` and `png` are "Empty when not requested",
 * and says no such thing of `zpl` ("ZPL printer code of labels"): so ZPL is always there, and a PDF or PNG
 * label comes beside it.
 */
export interface RenderedLabel {
  zpl: string;
  pdf: string;
  png: string;
}

/** Renders one parcel's ZPL label (synchronous; the hot path). */
export function renderZpl(app: SandboxApp, s: ShipmentRec, index: number): string {
  return zplLabel(labelInput(app, s, index));
}

/** Renders one parcel's label in the given format (PDF/PNG base64). */
export async function renderLabel(app: SandboxApp, s: ShipmentRec, index: number, format: LabelFormat): Promise<RenderedLabel> {
  const input = labelInput(app, s, index);
  if (format === 'ZPL') return { zpl: zplLabel(input), pdf: '', png: '' };
  if (format === 'PDF') return { zpl: zplLabel(input), pdf: (await pdfLabels([input])).toString('base64'), png: '' };
  return { zpl: zplLabel(input), pdf: '', png: (await pngLabel(input)).toString('base64') };
}

/** All of a shipment's labels for the webhook label variant: ZPL text, one base64 PDF, or base64 PNGs. */
export async function shipmentLabels(app: SandboxApp, s: ShipmentRec, format: LabelFormat): Promise<{ format: LabelFormat; content: string | string[] }> {
  const inputs = s.parcels.map((_, i) => labelInput(app, s, i));
  if (format === 'ZPL') return { format, content: inputs.map(zplLabel).join('') };
  if (format === 'PDF') return { format, content: (await pdfLabels(inputs)).toString('base64') };
  const pngs = await Promise.all(inputs.map(async (i) => (await pngLabel(i)).toString('base64')));
  return { format, content: pngs };
}

/** The account's default customs declaration, under the given commercial invoice number. */
export function defaultCustoms(invoiceNumber: string): CustomsRec {
  return {
    duty_method: 'DAP',
    commercial_invoice_number: invoiceNumber,
    insurance_value: 0,
    freight_value: 0,
    packing_value: 0,
    handling_value: 0,
    other_value: 0,
    currency_code: 'GBP',
    export_license_number: null,
    export_certificate_number: null,
    other_export_comments: null,
    export_purpose: null,
  };
}

/** The customs declaration of a shipment with account defaults filled in. */
export function effectiveCustoms(s: ShipmentRec): CustomsRec {
  return s.customs_declaration ?? defaultCustoms(s.order_reference ?? s.shipment_reference);
}

/** One goods line of a commercial invoice. */
function invoiceItem(it: ItemRec): InvoiceItem {
  return {
    description: it.full_description || it.short_description || it.sku || 'Goods',
    quantity: it.item_quantity,
    unit_value: money(it.item_value ?? 0),
    weight_grams: it.item_weight ?? undefined,
    harmonised_code: it.harmonised_code ?? undefined,
    country_of_origin: it.country_of_origin ?? undefined,
    sku: it.sku ?? undefined,
  };
}

/** Renders a shipment's A4 commercial invoice as a PDF. */
export async function invoicePdf(app: SandboxApp, s: ShipmentRec): Promise<Buffer> {
  const c = effectiveCustoms(s);
  const items: InvoiceInput['items'] = [];
  for (const p of s.parcels) {
    for (const it of p.items) items.push(invoiceItem(it));
    if (p.items.length === 0) {
      items.push({ description: `Parcel ${p.reference}`, quantity: 1, unit_value: money(p.value ?? 0), weight_grams: p.weight });
    }
  }
  return commercialInvoicePdf({
    invoice_number: c.commercial_invoice_number,
    date: s.despatch_date.slice(0, 10),
    shipment_reference: s.shipment_reference,
    order_reference: s.order_reference ?? undefined,
    sender: senderOf(app.store.locations.get(s.location_id)),
    to: s.to_address,
    currency: c.currency_code,
    duty_method: c.duty_method,
    items,
    insurance_value: money(c.insurance_value),
    freight_value: money(c.freight_value),
    packing_value: money(c.packing_value),
    handling_value: money(c.handling_value),
    other_value: money(c.other_value),
    export_purpose: c.export_purpose ?? undefined,
    recipient_vat_number: s.recipient_vat_number ?? undefined,
    recipient_eori_number: s.recipient_eori_number ?? undefined,
    export_license_number: c.export_license_number ?? undefined,
    export_certificate_number: c.export_certificate_number ?? undefined,
    other_export_comments: c.other_export_comments ?? undefined,
    tracking_references: s.parcels.map((p) => p.tracking_reference),
  });
}

/** The documents module's input for a container. */
export function containerDocInput(app: SandboxApp, c: ContainerRec): ContainerDocInput {
  const svc = app.store.servicesByKey.get(c.service_key);
  const t = containerTotals(app, c);
  const shipments: ContainerDocInput['shipments'] = [];
  for (const id of c.shipment_ids) {
    const s = app.store.shipments.get(id);
    if (!s || s.status === 'cancelled') continue;
    const st = shipmentTotals(s);
    shipments.push({ reference: s.shipment_reference, tracking_reference: s.parcels[0]?.tracking_reference ?? '', parcels: st.parcels, weight_grams: st.weight });
  }
  return {
    reference: c.reference,
    carrier: svc?.carrier ?? '',
    service_name: svc?.name ?? '',
    tracking_reference: c.tracking_reference,
    clearance_country: c.clearance_country,
    clearance_location: c.clearance_location,
    despatch_date: c.despatch_date,
    parcels: t.parcels,
    items: t.items,
    weight_grams: t.weight,
    value_minor: t.value,
    currency: c.value_currency,
    shipments,
  };
}

/** A container's label: ZPL text or a base64 PDF. */
export async function containerLabel(app: SandboxApp, c: ContainerRec, format: 'ZPL' | 'PDF'): Promise<string> {
  const input = containerDocInput(app, c);
  return format === 'ZPL' ? containerLabelZpl(input) : (await containerLabelPdf(input)).toString('base64');
}

/** A container's carrier documents as a base64 PDF. */
export async function containerDocuments(app: SandboxApp, c: ContainerRec): Promise<string> {
  return (await containerDocumentsPdf(containerDocInput(app, c))).toString('base64');
}

/** A container's commercial invoice: one A4 invoice over the items of all its live shipments, base64 PDF. */
export async function containerInvoice(app: SandboxApp, c: ContainerRec): Promise<string> {
  const live = c.shipment_ids.map((id) => app.store.shipments.get(id)).filter((s): s is ShipmentRec => !!s && s.status !== 'cancelled');
  const first = live[0];
  const loc = app.store.locations.get(c.location_id);
  const items = live.flatMap((s) => s.parcels.flatMap((p) => p.items.map(invoiceItem)));
  const pdf = await commercialInvoicePdf({
    invoice_number: c.reference,
    date: c.despatch_date,
    shipment_reference: c.reference,
    sender: senderOf(loc),
    to: first
      ? first.to_address
      : { name: `Clearance ${c.clearance_location}`, line_1: c.clearance_location, city: c.clearance_location, postcode: '', country: c.clearance_country },
    currency: c.value_currency,
    duty_method: 'DAP',
    items,
    insurance_value: '0.00',
    freight_value: '0.00',
    packing_value: '0.00',
    handling_value: '0.00',
    other_value: '0.00',
    tracking_references: [c.tracking_reference],
  });
  return pdf.toString('base64');
}
