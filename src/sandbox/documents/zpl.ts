// ZPL II for a 4x6 in label at 203 dpi (812 x 1218 dots). Plain string templating: the sandbox renders
// thousands of these per second, so no libraries and no per-call regex construction.
import type { ContainerDocInput, DocAddress, LabelInput } from './index.js';
import { addressLines, kg, labelDate } from './format.js';

// Characters that mean something to the printer inside ^FD data: ^ and ~ start commands, _ is the ^FH hex
// indicator, \ is the ^FB line-break escape (`\&`); control characters would break the field.
const NEEDS_ESCAPE = /[\x00-\x1f\x7f\\^_~]/;
const ESCAPE_ALL = /[\x00-\x1f\x7f\\^_~]/g;

function hexEscape(ch: string): string {
  const code = ch.charCodeAt(0);
  // Line breaks and tabs read as spaces on a label; other control characters are dropped.
  if (code < 0x20 || code === 0x7f) return code === 9 || code === 10 || code === 13 ? ' ' : '';
  return '_' + code.toString(16).toUpperCase().padStart(2, '0');
}

/** Escapes text for a `^FH^FD…^FS` field (hex escapes with `_`); non-ASCII stays as UTF-8 under `^CI28`. */
export function zplEscape(text: string | undefined | null): string {
  if (!text) return '';
  return NEEDS_ESCAPE.test(text) ? text.replace(ESCAPE_ALL, hexEscape) : text;
}

/** One text field: `^FO x,y`, font height h, optional field block width/lines/alignment. */
function text(x: number, y: number, h: number, value: string | undefined, width = 0, lines = 1, align = 'L'): string {
  const block = width > 0 ? `^FB${width},${lines},0,${align},0` : '';
  return `^FO${x},${y}^A0N,${h},${h}${block}^FH^FD${zplEscape(value)}^FS\n`;
}

function senderLine(a: DocAddress): string {
  return [a.company_name || a.name, a.line_1, a.line_2, a.line_3, a.city, a.county, a.postcode, a.country]
    .filter((p) => p && p.trim() !== '')
    .join(', ');
}

/** `^BY`/`^BC` for a Code 128 barcode centred across the label: the widest module that fits 740 dots. */
function code128(y: number, height: number, data: string, raw: string): string {
  // Subset B needs 11 modules per character plus start, check, stop and quiet zones; digits pack tighter, so
  // this estimate errs wide.
  const modules = 11 * raw.length + 35;
  const by = modules * 3 <= 740 ? 3 : modules * 2 <= 740 ? 2 : 1;
  const x = Math.max(0, Math.floor((812 - modules * by) / 2));
  return `^FO${x},${y}^BY${by},3,${height}^BCN,${height},N,N,N^FH^FD${data}^FS\n`;
}

/**
 * What the real service's labels start with (api-notes.md, api-examples/post-shipments.response.json): the
 * control characters reset to their defaults, then a `^XA … ^XZ` block of printer set-up (media, darkness,
 * speed) before the label's own block. Emulated so clients meet the same bytes the service sends: a client
 * that expects a label to start with `^XA`, to hold one block, or "cleans" it, fails here as it would there.
 */
const PRINTER_SETUP = 'CT~~CD,~CC^~CT~\n^XA\n\n~TA000~JSN^MNW^MTD^PON^PMN^JMA^PR5,5~SD15^JUS^LRN^CI0^XZ\n';

// A small embedded graphic (^GFA: ASCII hex, 64 x 24 dots) where the real labels carry the carrier's and the
// service's logos: clients and printers must pass graphics data through too.
const LOGO = (() => {
  const rows: string[] = [];
  for (let r = 0; r < 24; r++) {
    let row = '';
    for (let b = 0; b < 8; b++) row += r < 2 || r > 21 || b === 0 || b === 7 ? 'FF' : r % 4 < 2 ? 'F0' : '0F';
    rows.push(row);
  }
  return `^GFA,192,192,8,${rows.join('')}^FS\n`;
})();

/**
 * The real labels' address block is a template with one line per slot; a slot the address leaves empty keeps
 * its placeholder, outside any field (printers skip it): `%COMPANY_NAME%`, `%ADDRESS_LINE_2%`… as in the
 * service's own example.
 */
const PLACEHOLDER: Partial<Record<keyof DocAddress, string>> = {
  company_name: '%COMPANY_NAME%\n',
  line_2: '%ADDRESS_LINE_2%\n',
  line_3: '%ADDRESS_LINE_3%\n',
};

/** Renders one parcel label: the printer set-up block, then the label's `^XA … ^XZ` block. */
export function zplLabel(input: LabelInput): string {
  const to = addressLines(input.to);
  let address = '';
  let y = 200;
  for (const line of to) {
    if (y > 470) break;
    address += text(32, y, 34, line, 520, 1);
    y += 42;
  }
  for (const slot of ['company_name', 'line_2', 'line_3'] as const) if (!input.to[slot]) address += PLACEHOLDER[slot];
  const trk = zplEscape(input.tracking_reference);
  const refs = input.order_reference ? `${input.shipment_reference} / ${input.order_reference}` : input.shipment_reference;
  return (
    PRINTER_SETUP +
    '^XA\n^CI28\n^MMT\n^PW812\n^LL1218\n^LH0,0\n' +
    text(32, 24, 36, input.carrier, 560, 1) +
    text(32, 66, 28, input.service_name + (input.brand_name ? ` - ${input.brand_name}` : ''), 560, 1) +
    text(600, 24, 22, 'Tracking', 190, 1, 'R') +
    text(560, 54, 26, input.universal_tracking_reference || input.tracking_reference, 230, 1, 'R') +
    text(32, 104, 20, 'Sender: ' + senderLine(input.sender), 748, 2) +
    '^FO0,152^GB812,0,3^FS\n' +
    text(32, 164, 24, 'Deliver To') +
    address +
    `^FO590,200^BQN,2,6^FH^FDQA,${trk}^FS\n` +
    '^FO0,520^GB812,0,3^FS\n' +
    text(32, 540, 24, 'Despatch Date', 260) +
    text(300, 540, 24, 'Weight', 220, 1, 'C') +
    text(560, 540, 24, 'Parcel', 220, 1, 'C') +
    text(32, 580, 32, labelDate(input.despatch_date), 260) +
    text(300, 580, 32, kg(input.weight_grams), 220, 1, 'C') +
    text(560, 580, 32, `${input.parcel_number} of ${input.parcel_count}`, 220, 1, 'C') +
    '^FO0,630^GB812,0,3^FS\n' +
    text(32, 648, 24, 'Shipment Reference / Order') +
    text(32, 680, 30, refs, 748, 1) +
    text(32, 722, 24, 'Parcel Reference') +
    text(32, 754, 30, input.parcel_reference || '', 748, 1) +
    '^FO0,796^GB812,0,3^FS\n' +
    text(32, 812, 24, 'Delivery Instructions') +
    text(32, 846, 26, input.delivery_instructions || '', 748, 2) +
    '^FO0,912^GB812,0,3^FS\n' +
    code128(940, 180, trk, input.tracking_reference) +
    text(0, 1140, 34, `${input.tracking_reference}`, 812, 1, 'C') +
    '^FO716,1186' + LOGO +
    '^PQ1,0,1,Y\n^XZ\n'
  );
}

/** Renders a container label: the printer set-up block, then the label's `^XA … ^XZ` block. */
export function containerLabelZpl(input: ContainerDocInput): string {
  const trk = zplEscape(input.tracking_reference);
  const value = (input.value_minor / 100).toFixed(2);
  return (
    PRINTER_SETUP +
    '^XA\n^CI28\n^MMT\n^PW812\n^LL1218\n^LH0,0\n' +
    text(32, 24, 36, input.carrier, 560, 1) +
    text(32, 66, 28, input.service_name, 560, 1) +
    text(32, 110, 24, 'CONSOLIDATION CONTAINER') +
    '^FO0,150^GB812,0,3^FS\n' +
    text(32, 170, 24, 'Container Reference') +
    text(32, 204, 48, input.reference, 540, 1) +
    text(32, 272, 24, 'Clearance') +
    text(32, 306, 32, `${input.clearance_location} (${input.clearance_country})`, 540, 1) +
    `^FO590,170^BQN,2,6^FH^FDQA,${trk}^FS\n` +
    '^FO0,420^GB812,0,3^FS\n' +
    text(32, 440, 24, 'Despatch Date', 260) +
    text(300, 440, 24, 'Shipments', 220, 1, 'C') +
    text(560, 440, 24, 'Parcels', 220, 1, 'C') +
    text(32, 480, 32, labelDate(input.despatch_date), 260) +
    text(300, 480, 32, String(input.shipments.length), 220, 1, 'C') +
    text(560, 480, 32, String(input.parcels), 220, 1, 'C') +
    text(32, 540, 24, 'Items', 260) +
    text(300, 540, 24, 'Weight', 220, 1, 'C') +
    text(560, 540, 24, 'Value', 220, 1, 'C') +
    text(32, 580, 32, String(input.items), 260) +
    text(300, 580, 32, kg(input.weight_grams), 220, 1, 'C') +
    text(560, 580, 32, `${value} ${input.currency}`, 220, 1, 'C') +
    '^FO0,640^GB812,0,3^FS\n' +
    code128(700, 220, trk, input.tracking_reference) +
    text(0, 950, 34, input.tracking_reference, 812, 1, 'C') +
    '^PQ1,0,1,Y\n^XZ\n'
  );
}
