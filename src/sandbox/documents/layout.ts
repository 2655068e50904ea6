// The 4x6 in label drawn as a list of primitives in printer dots (812 x 1218 at 203 dpi), shared by the PDF and
// PNG renderers so both look like the ZPL label.
import type { ContainerDocInput, DocAddress, LabelInput } from './index.js';
import { addressLines, kg, labelDate } from './format.js';

/** Label width in dots (4 in at 203 dpi). */
export const LABEL_W = 812;
/** Label height in dots (6 in at 203 dpi). */
export const LABEL_H = 1218;

/** One drawing primitive; coordinates are dots from the top-left corner. */
export type LabelOp =
  | { kind: 'text'; x: number; y: number; size: number; text: string; width: number; align?: 'L' | 'C' | 'R'; bold?: boolean; lines?: number }
  | { kind: 'rule'; x: number; y: number; width: number; thickness: number }
  | { kind: 'code128'; x: number; y: number; width: number; height: number; data: string }
  | { kind: 'qr'; x: number; y: number; size: number; data: string };

function senderLine(a: DocAddress): string {
  return [a.company_name || a.name, a.line_1, a.line_2, a.line_3, a.city, a.county, a.postcode, a.country]
    .filter((p) => p && p.trim() !== '')
    .join(', ');
}

/** The primitives of one parcel label, in the same places as the ZPL label. */
export function labelLayout(input: LabelInput): LabelOp[] {
  const ops: LabelOp[] = [
    { kind: 'text', x: 32, y: 24, size: 36, text: input.carrier, width: 560, bold: true },
    { kind: 'text', x: 32, y: 66, size: 28, text: input.service_name + (input.brand_name ? ` - ${input.brand_name}` : ''), width: 560 },
    { kind: 'text', x: 600, y: 24, size: 22, text: 'Tracking', width: 190, align: 'R' },
    { kind: 'text', x: 560, y: 54, size: 26, text: input.universal_tracking_reference || input.tracking_reference, width: 230, align: 'R' },
    { kind: 'text', x: 32, y: 104, size: 20, text: 'Sender: ' + senderLine(input.sender), width: 748, lines: 2 },
    { kind: 'rule', x: 0, y: 152, width: 812, thickness: 3 },
    { kind: 'text', x: 32, y: 164, size: 24, text: 'Deliver To', width: 300, bold: true },
  ];
  let y = 200;
  for (const line of addressLines(input.to)) {
    if (y > 470) break;
    ops.push({ kind: 'text', x: 32, y, size: 34, text: line, width: 540 });
    y += 42;
  }
  const refs = input.order_reference ? `${input.shipment_reference} / ${input.order_reference}` : input.shipment_reference;
  ops.push(
    { kind: 'qr', x: 590, y: 200, size: 190, data: input.tracking_reference },
    { kind: 'rule', x: 0, y: 520, width: 812, thickness: 3 },
    { kind: 'text', x: 32, y: 540, size: 24, text: 'Despatch Date', width: 260 },
    { kind: 'text', x: 300, y: 540, size: 24, text: 'Weight', width: 220, align: 'C' },
    { kind: 'text', x: 560, y: 540, size: 24, text: 'Parcel', width: 220, align: 'C' },
    { kind: 'text', x: 32, y: 580, size: 32, text: labelDate(input.despatch_date), width: 260, bold: true },
    { kind: 'text', x: 300, y: 580, size: 32, text: kg(input.weight_grams), width: 220, align: 'C', bold: true },
    { kind: 'text', x: 560, y: 580, size: 32, text: `${input.parcel_number} of ${input.parcel_count}`, width: 220, align: 'C', bold: true },
    { kind: 'rule', x: 0, y: 630, width: 812, thickness: 3 },
    { kind: 'text', x: 32, y: 648, size: 24, text: 'Shipment Reference / Order', width: 748 },
    { kind: 'text', x: 32, y: 680, size: 30, text: refs, width: 748 },
    { kind: 'text', x: 32, y: 722, size: 24, text: 'Parcel Reference', width: 748 },
    { kind: 'text', x: 32, y: 754, size: 30, text: input.parcel_reference || '', width: 748 },
    { kind: 'rule', x: 0, y: 796, width: 812, thickness: 3 },
    { kind: 'text', x: 32, y: 812, size: 24, text: 'Delivery Instructions', width: 748 },
    { kind: 'text', x: 32, y: 846, size: 26, text: input.delivery_instructions || '', width: 748, lines: 2 },
    { kind: 'rule', x: 0, y: 912, width: 812, thickness: 3 },
    { kind: 'code128', x: 60, y: 940, width: 692, height: 180, data: input.tracking_reference },
    { kind: 'text', x: 0, y: 1140, size: 34, text: input.tracking_reference, width: 812, align: 'C', bold: true },
  );
  return ops;
}

/** The primitives of a container label, in the same places as the container ZPL label. */
export function containerLayout(input: ContainerDocInput): LabelOp[] {
  const value = (input.value_minor / 100).toFixed(2);
  return [
    { kind: 'text', x: 32, y: 24, size: 36, text: input.carrier, width: 560, bold: true },
    { kind: 'text', x: 32, y: 66, size: 28, text: input.service_name, width: 560 },
    { kind: 'text', x: 32, y: 110, size: 24, text: 'CONSOLIDATION CONTAINER', width: 560, bold: true },
    { kind: 'rule', x: 0, y: 150, width: 812, thickness: 3 },
    { kind: 'text', x: 32, y: 170, size: 24, text: 'Container Reference', width: 540 },
    { kind: 'text', x: 32, y: 204, size: 48, text: input.reference, width: 540, bold: true },
    { kind: 'text', x: 32, y: 272, size: 24, text: 'Clearance', width: 540 },
    { kind: 'text', x: 32, y: 306, size: 32, text: `${input.clearance_location} (${input.clearance_country})`, width: 540 },
    { kind: 'qr', x: 590, y: 170, size: 190, data: input.tracking_reference },
    { kind: 'rule', x: 0, y: 420, width: 812, thickness: 3 },
    { kind: 'text', x: 32, y: 440, size: 24, text: 'Despatch Date', width: 260 },
    { kind: 'text', x: 300, y: 440, size: 24, text: 'Shipments', width: 220, align: 'C' },
    { kind: 'text', x: 560, y: 440, size: 24, text: 'Parcels', width: 220, align: 'C' },
    { kind: 'text', x: 32, y: 480, size: 32, text: labelDate(input.despatch_date), width: 260, bold: true },
    { kind: 'text', x: 300, y: 480, size: 32, text: String(input.shipments.length), width: 220, align: 'C', bold: true },
    { kind: 'text', x: 560, y: 480, size: 32, text: String(input.parcels), width: 220, align: 'C', bold: true },
    { kind: 'text', x: 32, y: 540, size: 24, text: 'Items', width: 260 },
    { kind: 'text', x: 300, y: 540, size: 24, text: 'Weight', width: 220, align: 'C' },
    { kind: 'text', x: 560, y: 540, size: 24, text: 'Value', width: 220, align: 'C' },
    { kind: 'text', x: 32, y: 580, size: 32, text: String(input.items), width: 260, bold: true },
    { kind: 'text', x: 300, y: 580, size: 32, text: kg(input.weight_grams), width: 220, align: 'C', bold: true },
    { kind: 'text', x: 560, y: 580, size: 32, text: `${value} ${input.currency}`, width: 240, align: 'C', bold: true },
    { kind: 'rule', x: 0, y: 640, width: 812, thickness: 3 },
    { kind: 'code128', x: 60, y: 700, width: 692, height: 220, data: input.tracking_reference },
    { kind: 'text', x: 0, y: 950, size: 34, text: input.tracking_reference, width: 812, align: 'C', bold: true },
  ];
}
