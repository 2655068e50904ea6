// Documents of the sandbox (issue 3, item 3): ZPL labels a Zebra printer would print, PDF labels and an A4 commercial
// invoice that poppler renders, PNG labels that decode. Rendering and text extraction use Debian's poppler-utils.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  commercialInvoicePdf,
  containerDocumentsPdf,
  containerLabelPdf,
  containerLabelZpl,
  pdfLabels,
  pngLabel,
  zplLabel,
  type ContainerDocInput,
  type InvoiceInput,
  type LabelInput,
} from '../../src/sandbox/documents/index.js';

const run = promisify(execFile);

const sender = {
  name: 'Warehouse Team',
  company_name: 'Acme Ltd',
  line_1: '1 High St',
  city: 'Derby',
  postcode: 'DE1 1EE',
  country: 'GB',
  telephone: '01332 000000',
  email_address: 'ops@acme.example',
};

function label(over: Partial<LabelInput> = {}): LabelInput {
  return {
    shipment_reference: 'SHIP-1001',
    order_reference: 'ORD-77',
    parcel_reference: 'SHIP-1001-P1',
    parcel_number: 1,
    parcel_count: 2,
    carrier: 'Royal Parcels',
    service_name: 'Next Day',
    tracking_reference: 'RP123456789GB',
    universal_tracking_reference: 'C5D414200003',
    weight_grams: 1250,
    despatch_date: '2026-11-21',
    delivery_instructions: 'Leave with neighbour',
    sender,
    to: { name: 'Jürgen Łódź', company_name: 'Zürich AG', line_1: 'Bahnhofstrasse 1', city: 'Zürich', postcode: '8001', country: 'CH' },
    ...over,
  };
}

function invoice(itemCount: number, over: Partial<InvoiceInput> = {}): InvoiceInput {
  return {
    invoice_number: 'INV-1001',
    date: '2026-11-21',
    shipment_reference: 'SHIP-1001',
    order_reference: 'ORD-77',
    sender,
    to: { name: 'Anna Nowak', line_1: 'ul. Piotrkowska 1', city: 'Łódź', postcode: '90-001', country: 'PL', email_address: 'anna@example.pl' },
    currency: 'GBP',
    duty_method: 'DDP',
    items: Array.from({ length: itemCount }, (_, i) => ({
      description: `Widget model ${i + 1}`,
      quantity: (i % 3) + 1,
      unit_value: '12.50',
      weight_grams: 250,
      harmonised_code: '8471300000',
      country_of_origin: 'GB',
      sku: `SKU-${i + 1}`,
    })),
    insurance_value: '5.00',
    freight_value: '12.00',
    packing_value: '1.50',
    handling_value: '2.00',
    other_value: '-3.25',
    export_purpose: { sale_of_goods: true, other: 'Trade fair' },
    recipient_vat_number: 'PL1234567890',
    recipient_eori_number: 'PL123456789000000',
    export_license_number: 'EL-42',
    other_export_comments: 'Fragile electronics, keep dry.',
    tracking_references: ['RP123456789GB'],
    ...over,
  };
}

const container: ContainerDocInput = {
  reference: 'C26325001',
  carrier: 'Global Freight',
  service_name: 'Consolidated Economy',
  tracking_reference: 'GF000123456',
  clearance_country: 'US',
  clearance_location: 'JFK',
  despatch_date: '2026-11-21',
  parcels: 3,
  items: 7,
  weight_grams: 4200,
  value_minor: 123456,
  currency: 'GBP',
  shipments: [
    { reference: 'SHIP-A', tracking_reference: 'RPA1', parcels: 2, weight_grams: 3000 },
    { reference: 'SHIP-B', tracking_reference: 'RPB1', parcels: 1, weight_grams: 1200 },
  ],
};

/** Every `^FD…^FS` field's data, in order. */
function fields(zpl: string): string[] {
  return [...zpl.matchAll(/\^FD([\s\S]*?)\^FS/g)].map((m) => m[1]);
}

/** Decodes `^FH` hex escapes (`_5E` → `^`) as the printer does. */
function unhex(data: string): string {
  return data.replace(/_([0-9A-Fa-f]{2})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16)));
}

/** Run lengths (dark first) of a scanline's barcode, from the first dark pixel to the last. */
function darkRuns(row: (x: number) => number, width: number): number[] {
  let x = 0;
  while (x < width && row(x) >= 128) x++;
  let end = width - 1;
  while (end > x && row(end) >= 128) end--;
  const runs: number[] = [];
  let dark = true;
  let n = 0;
  for (let i = x; i <= end; i++) {
    if (row(i) < 128 === dark) n++;
    else {
      runs.push(n);
      dark = !dark;
      n = 1;
    }
  }
  runs.push(n);
  return runs;
}

/** True when the runs are, up to scale, the bar/space widths bwip-js gives for a Code 128 of `data`. */
async function isCode128Of(runs: number[], data: string): Promise<boolean> {
  const bwip = (await import('bwip-js')).default;
  const { sbs } = bwip.raw('code128', data, {})[0] as { sbs: number[] };
  const expected = sbs.slice(0, sbs.length % 2 === 0 ? -1 : undefined);
  if (runs.length !== expected.length) return false;
  const module = runs.reduce((a, b) => a + b, 0) / expected.reduce((a, b) => a + b, 0);
  return runs.every((r, i) => Math.round(r / module) === expected[i]);
}

describe('ZPL labels (4x6 in at 203 dpi, what a Zebra printer prints)', () => {
  it('is a printer set-up block as the service sends it, then one balanced ^XA … ^XZ label sized ^PW812 / ^LL1218 with UTF-8 (^CI28)', () => {
    const zpl = zplLabel(label());
    const [setup, block] = zpl.split(/(?<=\^XZ\n)/);
    // As in the service's own example (api-examples/post-shipments.response.json).
    expect(setup).toBe('CT~~CD,~CC^~CT~\n^XA\n\n~TA000~JSN^MNW^MTD^PON^PMN^JMA^PR5,5~SD15^JUS^LRN^CI0^XZ\n');
    expect(block.startsWith('^XA')).toBe(true);
    expect(block.trimEnd().endsWith('^XZ')).toBe(true);
    expect(zpl.match(/\^XA/g)).toHaveLength(2);
    expect(zpl.match(/\^XZ/g)).toHaveLength(2);
    // A 64 x 24 dot graphic: 8 bytes a row, 192 in all, as ASCII hex.
    expect(block).toMatch(/\^GFA,192,192,8,[0-9A-F]{384}\^FS/);
    expect(zpl).toContain('^PW812');
    expect(zpl).toContain('^LL1218');
    expect(zpl).toContain('^CI28');
  });

  it('leaves the placeholder of each address slot the address leaves empty, outside any field (as the service does)', () => {
    const zpl = zplLabel(label());
    expect(zpl).toContain('\n%ADDRESS_LINE_2%\n%ADDRESS_LINE_3%\n');
    expect(zpl).not.toContain('%COMPANY_NAME%');
    expect(fields(zpl).some((d) => d.includes('%'))).toBe(false);
    const full = zplLabel(label({ to: { name: 'A', company_name: 'B', line_1: 'C', line_2: 'D', line_3: 'E', city: 'F', postcode: 'G', country: 'CH' } }));
    expect(full).not.toMatch(/%[A-Z_0-9]+%/);
  });

  it('prints the sender, the Deliver To address, service, weight, parcel n of m, date and references', () => {
    const data = fields(zplLabel(label()));
    expect(data).toContain('Deliver To');
    for (const line of ['Jürgen Łódź', 'Zürich AG', 'Bahnhofstrasse 1', 'Zürich', '8001', 'CH']) expect(data).toContain(line);
    expect(data.some((d) => d.startsWith('Sender: Acme Ltd') && d.includes('DE1 1EE'))).toBe(true);
    expect(data).toContain('Royal Parcels');
    expect(data).toContain('Next Day');
    expect(data).toContain('1.25kg');
    expect(data).toContain('1 of 2');
    expect(data).toContain('21-Nov-2026');
    expect(data).toContain('SHIP-1001 / ORD-77');
    expect(data).toContain('SHIP-1001-P1');
    expect(data).toContain('Leave with neighbour');
  });

  it('carries a Code 128 barcode (^BC) and a QR code (^BQ) of the tracking reference', () => {
    const zpl = zplLabel(label({ tracking_reference: 'TRK-000999' }));
    expect(zpl).toMatch(/\^BCN,\d+,N,N,N\^FH\^FDTRK-000999\^FS/);
    expect(zpl).toMatch(/\^BQN,2,\d+\^FH\^FDQA,TRK-000999\^FS/);
  });

  it('keeps a long tracking reference barcode inside the 812-dot width by narrowing the modules', () => {
    const zpl = zplLabel(label({ tracking_reference: 'X'.repeat(40) }));
    const m = zpl.match(/\^FO(\d+),\d+\^BY(\d),3,\d+\^BC/);
    expect(m).not.toBeNull();
    const [x, by] = [Number(m![1]), Number(m![2])];
    expect(by).toBeLessThan(3);
    expect(x + (11 * 40 + 35) * by).toBeLessThanOrEqual(812);
  });

  it('escapes ^, ~, _ and \\ in field data with ^FH hex escapes, and flattens line breaks', () => {
    const nasty = 'A^B~C_D\\E\nF';
    const zpl = zplLabel(label({ delivery_instructions: nasty, shipment_reference: 'R_1^', order_reference: undefined }));
    // Every field is hex-enabled, and no field data can start a command or a ^FB line break.
    expect(zpl.match(/\^FD/g)!.length).toBe(zpl.match(/\^FH\^FD/g)!.length);
    for (const d of fields(zpl)) {
      expect(d).not.toMatch(/[\^~\\\n]/);
      expect(d.replace(/_[0-9A-F]{2}/g, '')).not.toContain('_');
    }
    const decoded = fields(zpl).map(unhex);
    expect(decoded).toContain('A^B~C_D\\E F');
    expect(decoded).toContain('R_1^');
    expect(zpl).toContain('A_5EB_7EC_5FD_5CE F');
  });

  it('renders a container label with its reference, counts and a ^BC of the container tracking reference', () => {
    const zpl = containerLabelZpl(container);
    expect(zpl.startsWith('CT~~CD,~CC^~CT~\n^XA')).toBe(true);
    expect(zpl.match(/\^XA/g)).toHaveLength(2);
    expect(zpl.match(/\^XZ/g)).toHaveLength(2);
    expect(zpl).toMatch(/\^BCN,\d+,N,N,N\^FH\^FDGF000123456\^FS/);
    const data = fields(zpl);
    expect(data).toContain('C26325001');
    expect(data).toContain('JFK (US)');
    expect(data).toContain('1234.56 GBP');
    expect(data).toContain('4.20kg');
  });
});

describe('PDF and PNG documents', () => {
  let dir = '';
  beforeAll(async () => {
    try {
      await run('pdftoppm', ['-v']);
      await run('pdftotext', ['-v']);
    } catch {
      throw new Error('pdftoppm/pdftotext not found: install Debian poppler-utils (apt-get install -y poppler-utils); CI installs it');
    }
    dir = await mkdtemp(join(tmpdir(), 'ship-docs-'));
  });
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  /** Writes the PDF, renders every page with pdftoppm (failing on any error output) and returns its text. */
  async function check(name: string, pdf: Buffer): Promise<{ text: string; pages: number; info: string }> {
    expect(pdf.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    const file = join(dir, `${name}.pdf`);
    await writeFile(file, pdf);
    const render = await run('pdftoppm', ['-r', '30', '-png', file, join(dir, name)]);
    expect(render.stderr).toBe('');
    const pngs = (await readdir(dir)).filter((f) => f.startsWith(`${name}-`) && f.endsWith('.png'));
    const { stdout: info } = await run('pdfinfo', [file]).catch(() => ({ stdout: '' }));
    const { stdout: text, stderr } = await run('pdftotext', ['-layout', file, '-']);
    expect(stderr).toBe('');
    return { text, pages: pngs.length, info };
  }

  it('PDF labels: one 4x6 in page per label that poppler renders, with the label text', async () => {
    const pdf = await pdfLabels([label(), label({ parcel_number: 2, tracking_reference: 'RP999999999GB' })]);
    const { text, pages, info } = await check('labels', pdf);
    expect(pages).toBe(2);
    if (info) expect(info).toMatch(/Page size:\s+288 x 432 pts/);
    expect(text).toContain('RP123456789GB');
    expect(text).toContain('RP999999999GB');
    expect(text).toContain('2 of 2');
    expect(text).toContain('Deliver To');
    // WinAnsi keeps ü; Ł and ź fold to their base letters instead of crashing pdf-lib's standard fonts.
    expect(text).toContain('Zürich AG');
    expect(text).toContain('Lódz');
    // Render a thin strip through the barcode at 600 dpi: its bars are the Code 128 of the tracking reference.
    const strip = join(dir, 'strip');
    await run('pdftoppm', ['-r', '600', '-f', '1', '-l', '1', '-x', '0', '-y', '3000', '-W', '2400', '-H', '4', '-png', '-singlefile', join(dir, 'labels.pdf'), strip]);
    const img = PNG.sync.read(await readFile(`${strip}.png`));
    expect(await isCode128Of(darkRuns((x) => img.data[(2 * img.width + x) * 4], img.width), 'RP123456789GB')).toBe(true);
  });

  it('PNG label: a valid 812x1218 image with ink in the barcode area and blank margins', async () => {
    const png = PNG.sync.read(await pngLabel(label()));
    expect(png.width).toBe(812);
    expect(png.height).toBe(1218);
    const px = (x: number, y: number) => png.data[(y * png.width + x) * 4];
    // The bars are the Code 128 of the tracking reference, not just ink.
    expect(await isCode128Of(darkRuns((x) => px(x, 1030), 812), 'RP123456789GB')).toBe(true);
    expect(await isCode128Of(darkRuns((x) => px(x, 1030), 812), 'RP123456789GC')).toBe(false);
    let dark = 0;
    for (let x = 0; x < 812; x++) if (px(x, 1030) < 128) dark++;
    // A Code 128 row is roughly half bars.
    expect(dark).toBeGreaterThan(150);
    expect(dark).toBeLessThan(600);
    expect(px(5, 1210)).toBe(255);
    // The QR code sits at the right of the address block.
    let qr = 0;
    for (let y = 200; y < 390; y++) for (let x = 590; x < 780; x++) if (px(x, y) < 128) qr++;
    expect(qr).toBeGreaterThan(2000);
  });

  it('PNG label: text in any script does not crash the renderer', async () => {
    const png = PNG.sync.read(await pngLabel(label({ to: { ...label().to, name: '中文 ☃ Łódź', line_2: 'ÆØÅ ß' } })));
    expect(png.width).toBe(812);
  });

  it('commercial invoice: A4 PDF listing items, customs values, totals, export purpose and VAT/EORI', async () => {
    const pdf = await commercialInvoicePdf(invoice(3));
    const { text, pages, info } = await check('invoice', pdf);
    expect(pages).toBe(1);
    if (info) expect(info).toMatch(/Page size:\s+595\.28 x 841\.89 pts/);
    expect(text).toContain('COMMERCIAL INVOICE');
    expect(text).toContain('INV-1001');
    for (const d of ['Widget model 1', 'Widget model 2', 'Widget model 3']) expect(text).toContain(d);
    expect(text).toContain('8471300000');
    // Items: 1x12.50 + 2x12.50 + 3x12.50 = 75.00; charges 5.00 + 12.00 + 1.50 + 2.00 - 3.25 = 17.25.
    expect(text).toMatch(/Items subtotal\s+75\.00 GBP/);
    expect(text).toMatch(/Insurance value\s+5\.00 GBP/);
    expect(text).toMatch(/Freight value\s+12\.00 GBP/);
    expect(text).toMatch(/Packing value\s+1\.50 GBP/);
    expect(text).toMatch(/Handling value\s+2\.00 GBP/);
    expect(text).toMatch(/Other value\s+-3\.25 GBP/);
    expect(text).toMatch(/Total invoice value\s+92\.25 GBP/);
    expect(text).toMatch(/37\.50/);
    expect(text).toContain('Reason for export: Sale of goods, Other: Trade fair');
    expect(text).toMatch(/X\s*Sale of goods/);
    expect(text).toContain('PL1234567890');
    expect(text).toContain('PL123456789000000');
    expect(text).toContain('EL-42');
    expect(text).toContain('Fragile electronics, keep dry.');
    expect(text).toContain('DDP');
    expect(text).toContain('Signature');
    // Łódź is not WinAnsi: it is folded, not dropped and not a crash.
    expect(text).toContain('Lódz');
  });

  it('commercial invoice: items that overflow continue on further pages, totals after the last item', async () => {
    const pdf = await commercialInvoicePdf(invoice(60, { export_purpose: { gift: true } }));
    const { text, pages } = await check('invoice-long', pdf);
    expect(pages).toBeGreaterThan(1);
    expect(text).toContain(`page ${pages} of ${pages}`);
    for (let i = 1; i <= 60; i++) expect(text).toMatch(new RegExp(`Widget model ${i}\\b`));
    expect(text.indexOf('Widget model 60')).toBeLessThan(text.indexOf('Total invoice value'));
    // 20 each of quantities 1, 2, 3 at 12.50 = 1500.00; plus 17.25 charges.
    expect(text).toMatch(/Total invoice value\s+1517\.25 GBP/);
    expect(text).toContain('Reason for export: Gift');
  });

  it('minimal and hostile input still renders: no optional fields, no items, emoji, control characters, huge text', async () => {
    const bare: LabelInput = {
      shipment_reference: 'S\u0007\n2',
      parcel_number: 1,
      parcel_count: 1,
      carrier: 'C',
      service_name: 'S',
      tracking_reference: 'T1',
      weight_grams: 0,
      despatch_date: 'today',
      sender: { name: '📦 Shop', line_1: 'x', city: 'y', postcode: 'z', country: 'GB' },
      to: { name: 'N'.repeat(300), line_1: '中文地址', city: 'Łódź', postcode: '1', country: 'PL' },
    };
    expect(zplLabel(bare)).toMatch(/\^XA[\s\S]*\^XZ\n$/);
    await check('bare-label', await pdfLabels([bare]));
    expect(PNG.sync.read(await pngLabel(bare)).height).toBe(1218);
    const { text } = await check(
      'bare-invoice',
      await commercialInvoicePdf(invoice(0, { export_purpose: undefined, duty_method: undefined, other_export_comments: 'ß'.repeat(3000), order_reference: undefined })),
    );
    expect(text).toContain('(no items declared)');
    expect(text).toContain('Reason for export: not stated');
    expect(text).toMatch(/Total invoice value\s+17\.25 GBP/);
    await check('empty-container', await containerDocumentsPdf({ ...container, shipments: [], parcels: 0, items: 0 }));
  });

  it('container label and documents render, listing the container and its shipments', async () => {
    const labelPdf = await check('container-label', await containerLabelPdf(container));
    expect(labelPdf.pages).toBe(1);
    expect(labelPdf.text).toContain('C26325001');
    const docs = await check('container-docs', await containerDocumentsPdf({ ...container, sender }));
    expect(docs.pages).toBe(2);
    expect(docs.text).toContain('CONSOLIDATION MANIFEST');
    expect(docs.text).toContain('CERTIFICATE OF ORIGIN');
    for (const s of ['SHIP-A', 'SHIP-B', 'RPA1', 'RPB1']) expect(docs.text).toContain(s);
    expect(docs.text).toContain('1234.56 GBP');
  });
});
