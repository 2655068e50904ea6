// Documents the sandbox generates: parcel labels (ZPL, PDF, PNG), commercial invoices, container labels and documents.
// ZPL is plain string templating (cheap, loaded eagerly); PDF and PNG load pdf-lib / bwip-js / pngjs lazily on first use.

/** An address as printed on a document (request form: `name`, ISO2 `country`). */
export interface DocAddress {
  name: string;
  company_name?: string;
  line_1: string;
  line_2?: string;
  line_3?: string;
  city: string;
  county?: string;
  postcode: string;
  /** ISO 3166-1 alpha-2 */
  country: string;
  telephone?: string;
  email_address?: string;
}

/** Everything printed on one parcel label. */
export interface LabelInput {
  shipment_reference: string;
  order_reference?: string;
  parcel_reference?: string;
  /** 1-based position of this parcel in the shipment */
  parcel_number: number;
  parcel_count: number;
  carrier: string;
  service_name: string;
  tracking_reference: string;
  universal_tracking_reference?: string;
  weight_grams: number;
  /** YYYY-MM-DD (a longer `YYYY-MM-DD HH:mm:ss` is accepted; the date part is used) */
  despatch_date: string;
  delivery_instructions?: string;
  sender: DocAddress;
  to: DocAddress;
  brand_name?: string;
}

/** One line of a commercial invoice. */
export interface InvoiceItem {
  description: string;
  quantity: number;
  /** decimal string `0.00` */
  unit_value: string;
  weight_grams?: number;
  harmonised_code?: string;
  country_of_origin?: string;
  sku?: string;
}

/** Export purpose boxes of the customs declaration. */
export interface ExportPurpose {
  gift?: boolean;
  documents?: boolean;
  sale_of_goods?: boolean;
  commercial_sample?: boolean;
  returned_goods?: boolean;
  other?: string;
}

/** Everything printed on an A4 commercial invoice. Money values are decimal strings `0.00` (other_value may be negative). */
export interface InvoiceInput {
  invoice_number: string;
  /** YYYY-MM-DD */
  date: string;
  shipment_reference: string;
  order_reference?: string;
  sender: DocAddress;
  to: DocAddress;
  /** ISO 4217 */
  currency: string;
  duty_method?: 'DAP' | 'DDP';
  items: InvoiceItem[];
  insurance_value: string;
  freight_value: string;
  packing_value: string;
  handling_value: string;
  other_value: string;
  export_purpose?: ExportPurpose;
  recipient_vat_number?: string;
  recipient_eori_number?: string;
  export_license_number?: string;
  export_certificate_number?: string;
  other_export_comments?: string;
  tracking_references?: string[];
}

/** Everything printed on a container label and the container's carrier documents. */
export interface ContainerDocInput {
  reference: string;
  carrier: string;
  service_name: string;
  tracking_reference: string;
  /** ISO2 */
  clearance_country: string;
  clearance_location: string;
  /** YYYY-MM-DD */
  despatch_date: string;
  parcels: number;
  items: number;
  weight_grams: number;
  /** pence/cents */
  value_minor: number;
  currency: string;
  shipments: Array<{ reference: string; tracking_reference: string; parcels: number; weight_grams: number }>;
  /** Optional extras for the documents: the despatch location's address and the clearance location's name. */
  sender?: DocAddress;
  clearance_location_name?: string;
}

export { zplLabel, containerLabelZpl } from './zpl.js';

/** Renders labels as one PDF, one 4x6 in page per label (base64 it for the API). */
export async function pdfLabels(inputs: LabelInput[]): Promise<Buffer> {
  const m = await import('./pdf.js');
  return m.pdfLabels(inputs);
}

/** Renders one label as an 812x1218 PNG image (base64 it for the API). */
export async function pngLabel(input: LabelInput): Promise<Buffer> {
  const m = await import('./png.js');
  return m.pngLabel(input);
}

/** Renders the A4 commercial invoice PDF: addresses, items, customs values, totals, export purpose. */
export async function commercialInvoicePdf(input: InvoiceInput): Promise<Buffer> {
  const m = await import('./invoice.js');
  return m.commercialInvoicePdf(input);
}

/** Renders the container label as a 4x6 in PDF. */
export async function containerLabelPdf(input: ContainerDocInput): Promise<Buffer> {
  const m = await import('./container.js');
  return m.containerLabelPdf(input);
}

/** Renders the container's carrier documents: a manifest and a certificate-of-origin-style page. */
export async function containerDocumentsPdf(input: ContainerDocInput): Promise<Buffer> {
  const m = await import('./container.js');
  return m.containerDocumentsPdf(input);
}
