// Container label (4x6 in PDF) and the carrier documents produced when a container closes: a manifest of its
// shipments and a certificate-of-origin-style declaration.
import type { ContainerDocInput } from './index.js';
import { A4Writer } from './a4.js';
import { addressLines, fromMinor, kg, labelDate, winAnsi } from './format.js';
import { containerLayout } from './layout.js';
import { LABEL_PAGE, drawLabelOps, loadPdfLib, standardFonts } from './pdf.js';

/** Renders the container label as a one-page 4x6 in PDF. */
export async function containerLabelPdf(input: ContainerDocInput): Promise<Buffer> {
  const { PDFDocument } = await loadPdfLib();
  const doc = await PDFDocument.create();
  doc.setTitle(`Container label ${winAnsi(input.reference)}`);
  doc.setProducer('ship sandbox');
  const page = doc.addPage(LABEL_PAGE);
  await drawLabelOps(doc, page, containerLayout(input), await standardFonts(doc));
  return Buffer.from(await doc.save());
}

/** Renders the container's documents: manifest pages then a certificate of origin page. */
export async function containerDocumentsPdf(input: ContainerDocInput): Promise<Buffer> {
  const w = await A4Writer.create(`Container ${input.reference} documents`);
  const clearance = `${input.clearance_location}${input.clearance_location_name ? ` ${input.clearance_location_name}` : ''} (${input.clearance_country})`;
  const value = `${fromMinor(input.value_minor)} ${input.currency}`;

  w.line('CONSOLIDATION MANIFEST', 18, { bold: true, gap: 6 });
  const facts: Array<[string, string]> = [
    ['Container reference', input.reference],
    ['Carrier / service', `${input.carrier} - ${input.service_name}`],
    ['Tracking reference', input.tracking_reference],
    ['Despatch date', labelDate(input.despatch_date)],
    ['Clearance', clearance],
    ['Shipments', String(input.shipments.length)],
    ['Parcels', String(input.parcels)],
    ['Items', String(input.items)],
    ['Total weight', kg(input.weight_grams)],
    ['Declared value', value],
  ];
  for (const [k, v] of facts) {
    w.text(`${k}:`, w.left, 9, { bold: true, width: 140 });
    w.line(v, 9, { x: w.left + 145 });
  }
  if (input.sender) {
    w.y -= 4;
    w.line('Despatched from', 9, { bold: true });
    w.line(addressLines(input.sender).join(', '), 9);
  }
  w.y -= 6;
  w.rule();
  w.table(
    [
      { header: '#', width: 30, align: 'R' },
      { header: 'Shipment reference', width: 170 },
      { header: 'Tracking reference', width: 170 },
      { header: 'Parcels', width: 60, align: 'R' },
      { header: 'Weight', width: w.width - 430, align: 'R' },
    ],
    input.shipments.map((s, i) => [String(i + 1), s.reference, s.tracking_reference, String(s.parcels), kg(s.weight_grams)]),
  );
  if (input.shipments.length === 0) w.line('(no shipments in this container)', 9);
  w.line(`Totals: ${input.shipments.length} shipments, ${input.parcels} parcels, ${input.items} items, ${kg(input.weight_grams)}, ${value}`, 9, { bold: true });

  w.newPage();
  w.line('CERTIFICATE OF ORIGIN', 18, { bold: true, gap: 6 });
  w.line(`Consolidation container ${input.reference}`, 11, { gap: 8 });
  if (input.sender) {
    w.line('Exporter', 9, { bold: true });
    for (const l of addressLines(input.sender)) w.line(l, 9);
    w.y -= 6;
  }
  w.line('Means of transport', 9, { bold: true });
  w.line(`${input.carrier} - ${input.service_name}, tracking ${input.tracking_reference}, despatched ${labelDate(input.despatch_date)}`, 9, { gap: 6 });
  w.line('Customs clearance', 9, { bold: true });
  w.line(clearance, 9, { gap: 6 });
  w.line('Goods', 9, { bold: true });
  w.line(`${input.items} items in ${input.parcels} parcels (${input.shipments.length} shipments), gross weight ${kg(input.weight_grams)}, value ${value}`, 9, { gap: 6 });
  if (input.sender?.country) w.line(`Country of origin of the goods: ${input.sender.country}`, 9, { gap: 6 });
  w.rule();
  w.paragraph(
    'The undersigned hereby declares that the above details and statements are correct, that all the goods were produced in the country stated, and that they comply with the origin requirements for export.',
    9,
  );
  w.y -= 36;
  w.page.drawRectangle({ x: w.left, y: w.y, width: 220, height: 0.8 });
  w.y -= 4;
  w.text('Signature and stamp of the exporter', w.left, 8, { width: 220 });
  return w.save();
}
