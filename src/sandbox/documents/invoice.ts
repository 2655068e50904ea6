// The A4 commercial invoice: parties, references, items, customs values and totals, export purpose, declaration.
import type { DocAddress, InvoiceInput } from './index.js';
import { A4Writer, type Column } from './a4.js';
import { addressLines, fromMinor, toMinor } from './format.js';

/** Lines of a party block: address, then contact details. */
function partyLines(a: DocAddress): string[] {
  const lines = addressLines(a);
  if (a.telephone) lines.push(`Tel: ${a.telephone}`);
  if (a.email_address) lines.push(`Email: ${a.email_address}`);
  return lines;
}

/** Draws blocks side by side (each a title and lines) and moves the cursor below the longest. */
export function sideBySide(w: A4Writer, blocks: Array<{ title: string; lines: string[] }>, size = 9): void {
  const colW = w.width / blocks.length;
  const rows = Math.max(...blocks.map((b) => b.lines.length)) + 1;
  w.ensure(rows * size * 1.35 + 6);
  const top = w.y;
  blocks.forEach((b, i) => {
    const x = w.left + i * colW;
    w.y = top;
    w.text(b.title, x, size, { bold: true, width: colW - 10 });
    w.y -= size * 1.4;
    for (const l of b.lines) {
      w.text(l, x, size, { width: colW - 10 });
      w.y -= size * 1.35;
    }
  });
  w.y = top - rows * size * 1.35 - 8;
}

const PURPOSES: Array<[keyof NonNullable<InvoiceInput['export_purpose']>, string]> = [
  ['gift', 'Gift'],
  ['documents', 'Documents'],
  ['sale_of_goods', 'Sale of goods'],
  ['commercial_sample', 'Commercial sample'],
  ['returned_goods', 'Returned goods'],
];

/** Renders the A4 commercial invoice PDF. */
export async function commercialInvoicePdf(input: InvoiceInput): Promise<Buffer> {
  const w = await A4Writer.create(`Commercial Invoice ${input.invoice_number}`);
  const cur = input.currency;

  w.line('COMMERCIAL INVOICE', 18, { bold: true, gap: 6 });
  const facts: Array<[string, string | undefined]> = [
    ['Invoice number', input.invoice_number],
    ['Invoice date', input.date],
    ['Shipment reference', input.shipment_reference],
    ['Order reference', input.order_reference],
    ['Currency', cur],
    ['Terms of delivery (duty)', input.duty_method],
    ['Tracking references', input.tracking_references?.join(', ')],
  ];
  for (const [k, v] of facts) {
    if (!v) continue;
    w.text(`${k}:`, w.left, 9, { bold: true, width: 140 });
    w.line(v, 9, { x: w.left + 145 });
  }
  w.y -= 6;
  w.rule();

  const recipientExtra: string[] = [];
  if (input.recipient_vat_number) recipientExtra.push(`VAT number: ${input.recipient_vat_number}`);
  if (input.recipient_eori_number) recipientExtra.push(`EORI number: ${input.recipient_eori_number}`);
  sideBySide(w, [
    { title: 'Sender / Exporter', lines: partyLines(input.sender) },
    { title: 'Receiver / Consignee', lines: [...partyLines(input.to), ...recipientExtra] },
  ]);
  w.rule();

  const columns: Column[] = [
    { header: 'Description', width: 160, wrap: true },
    { header: 'HS code', width: 62 },
    { header: 'Origin', width: 42 },
    { header: 'Qty', width: 36, align: 'R' },
    { header: `Unit value (${cur})`, width: 72, align: 'R' },
    { header: `Line total (${cur})`, width: 74, align: 'R' },
    { header: 'Weight (kg)', width: w.width - 446, align: 'R' },
  ];
  let subtotal = 0;
  let quantity = 0;
  let weight = 0;
  const rows = input.items.map((item) => {
    const qty = Number.isFinite(item.quantity) ? item.quantity : 0;
    const unit = toMinor(item.unit_value);
    const line = unit * qty;
    subtotal += line;
    quantity += qty;
    const itemWeight = (item.weight_grams ?? 0) * qty;
    weight += itemWeight;
    return [
      item.sku ? `${item.description}\nSKU: ${item.sku}` : item.description,
      item.harmonised_code ?? '',
      item.country_of_origin ?? '',
      String(qty),
      fromMinor(unit),
      fromMinor(line),
      item.weight_grams !== undefined ? (itemWeight / 1000).toFixed(3) : '',
    ];
  });
  w.line('Contents', 11, { bold: true, gap: 2 });
  w.table(columns, rows);
  if (rows.length === 0) w.line('(no items declared)', 9);

  const charges: Array<[string, string]> = [
    ['Insurance', input.insurance_value],
    ['Freight', input.freight_value],
    ['Packing', input.packing_value],
    ['Handling', input.handling_value],
    ['Other', input.other_value],
  ];
  const total = subtotal + charges.reduce((sum, [, v]) => sum + toMinor(v), 0);
  const labelX = w.right - 250;
  const amountW = 90;
  const amountX = w.right - amountW;
  w.ensure(9 * 1.3 * 9);
  const money = (label: string, minor: number, bold = false) => {
    w.text(label, labelX, 9, { bold, width: 150 });
    w.line(`${fromMinor(minor)} ${cur}`, 9, { x: amountX, width: amountW, align: 'R', bold });
  };
  money('Items subtotal', subtotal);
  for (const [label, v] of charges) money(`${label} value`, toMinor(v));
  w.page.drawRectangle({ x: labelX, y: w.y + 2, width: w.right - labelX, height: 0.8 });
  money('Total invoice value', total, true);
  w.line(`Total quantity: ${quantity}    Total net weight: ${(weight / 1000).toFixed(3)} kg`, 9, { x: labelX });
  w.y -= 6;
  w.rule();

  const purpose = input.export_purpose ?? {};
  w.line('Export purpose', 11, { bold: true, gap: 2 });
  w.ensure(14);
  let x = w.left;
  for (const [key, label] of PURPOSES) x = w.checkbox(label, Boolean(purpose[key]), x);
  w.y -= 14;
  const ticked = PURPOSES.filter(([k]) => purpose[k]).map(([, l]) => l);
  if (purpose.other) ticked.push(`Other: ${purpose.other}`);
  w.line(`Reason for export: ${ticked.length > 0 ? ticked.join(', ') : 'not stated'}`, 9, { gap: 4 });

  const extra: Array<[string, string | undefined]> = [
    ['Duty method', input.duty_method ? `${input.duty_method} (${input.duty_method === 'DDP' ? 'delivered duty paid' : 'delivered at place, duty unpaid'})` : undefined],
    ['Export licence number', input.export_license_number],
    ['Export certificate number', input.export_certificate_number],
    ['Recipient VAT number', input.recipient_vat_number],
    ['Recipient EORI number', input.recipient_eori_number],
  ];
  for (const [k, v] of extra) {
    if (!v) continue;
    w.text(`${k}:`, w.left, 9, { bold: true, width: 140 });
    w.line(v, 9, { x: w.left + 145 });
  }
  if (input.other_export_comments) {
    w.line('Comments:', 9, { bold: true });
    w.paragraph(input.other_export_comments, 9, { maxLines: 30 });
  }
  w.y -= 8;
  w.rule();

  w.ensure(90);
  w.paragraph(
    'I declare that the information in this invoice is true and correct, and that the contents of this shipment are as stated above.',
    9,
  );
  w.y -= 28;
  w.page.drawRectangle({ x: w.left, y: w.y, width: 220, height: 0.8 });
  w.page.drawRectangle({ x: w.left + 280, y: w.y, width: 150, height: 0.8 });
  w.y -= 4;
  w.text('Signature', w.left, 8, { width: 220 });
  w.text(`Date: ${input.date}`, w.left + 280, 8, { width: 150 });
  w.y -= 14;
  w.text(`Name: ${input.sender.name}${input.sender.company_name ? `, ${input.sender.company_name}` : ''}`, w.left, 8);
  return w.save();
}
