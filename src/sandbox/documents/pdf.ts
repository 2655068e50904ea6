// PDF rendering of labels with pdf-lib; barcodes drawn as vector rectangles from bwip-js's symbol data.
import { loadPdfLib } from '../../util/interop.js';
import type { PDFDocument, PDFFont, PDFPage } from 'pdf-lib';
import type { LabelInput } from './index.js';
import { winAnsi } from './format.js';
import { LABEL_H, LABEL_W, labelLayout, type LabelOp } from './layout.js';

/** 4 x 6 in in PDF points. */
export const LABEL_PAGE: [number, number] = [288, 432];
const K = 288 / LABEL_W;

/** The fonts a PDF document draws with (standard fonts, WinAnsi text). */
export interface PdfFonts {
  regular: PDFFont;
  bold: PDFFont;
}

/** Loads pdf-lib on first use (see src/util/interop.ts for why it goes through cjsExports). */
export { loadPdfLib };

/** Embeds Helvetica and Helvetica-Bold into a document. */
export async function standardFonts(doc: PDFDocument): Promise<PdfFonts> {
  const { StandardFonts } = await loadPdfLib();
  const [regular, bold] = await Promise.all([doc.embedFont(StandardFonts.Helvetica), doc.embedFont(StandardFonts.HelveticaBold)]);
  return { regular, bold };
}

/** Symbol data from bwip-js: bar/space widths of a Code 128, or the module matrix of a QR code. */
export async function barcodeSymbol(bcid: 'code128', data: string): Promise<{ sbs: number[] }>;
export async function barcodeSymbol(bcid: 'qrcode', data: string): Promise<{ pixs: number[]; pixx: number; pixy: number }>;
export async function barcodeSymbol(bcid: 'code128' | 'qrcode', data: string): Promise<unknown> {
  const bwip = (await import('bwip-js')).default;
  return bwip.raw(bcid, data, (bcid === 'qrcode' ? { eclevel: 'M' } : {}) as never)[0];
}

/** Cuts text to fit a width, with an ellipsis when it had to be cut. */
export function fitText(font: PDFFont, text: string, size: number, width: number): string {
  if (width <= 0 || font.widthOfTextAtSize(text, size) <= width) return text;
  let lo = 0;
  let hi = text.length;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (font.widthOfTextAtSize(text.slice(0, mid) + '...', size) <= width) lo = mid;
    else hi = mid - 1;
  }
  return text.slice(0, lo) + '...';
}

/** Splits text into at most `maxLines` lines that fit a width; the last line is cut with an ellipsis. */
export function wrapText(font: PDFFont, text: string, size: number, width: number, maxLines: number): string[] {
  const words = text.split(/\s+/).filter(Boolean);
  const lines: string[] = [];
  let current = '';
  for (let i = 0; i < words.length; i++) {
    const next = current ? `${current} ${words[i]}` : words[i];
    if (font.widthOfTextAtSize(next, size) <= width || !current) {
      current = next;
      continue;
    }
    lines.push(current);
    current = words[i];
    if (lines.length === maxLines - 1) {
      current = words.slice(i).join(' ');
      break;
    }
  }
  if (current) lines.push(current);
  return lines.slice(0, maxLines).map((l) => fitText(font, l, size, width));
}

/** Draws label primitives (in dots) onto a 4x6 in page. */
export async function drawLabelOps(doc: PDFDocument, page: PDFPage, ops: LabelOp[], fonts: PdfFonts): Promise<void> {
  const { rgb } = await loadPdfLib();
  const black = rgb(0, 0, 0);
  const pageH = LABEL_H * K;
  for (const op of ops) {
    if (op.kind === 'rule') {
      page.drawRectangle({ x: op.x * K, y: pageH - (op.y + op.thickness) * K, width: op.width * K, height: op.thickness * K, color: black });
    } else if (op.kind === 'text') {
      const font = op.bold ? fonts.bold : fonts.regular;
      const size = op.size * K;
      const width = op.width * K;
      const lines = wrapText(font, winAnsi(op.text), size, width, op.lines ?? 1);
      lines.forEach((line, i) => {
        const w = font.widthOfTextAtSize(line, size);
        const dx = op.align === 'C' ? (width - w) / 2 : op.align === 'R' ? width - w : 0;
        const baseline = op.y * K + size * 0.85 + i * size * 1.15;
        page.drawText(line, { x: op.x * K + dx, y: pageH - baseline, size, font, color: black });
      });
    } else if (op.kind === 'code128') {
      if (!op.data) continue;
      // Bars are drawn as vector rectangles from bwip-js's symbol data: sharp at any printer resolution.
      const { sbs } = await barcodeSymbol('code128', op.data);
      const modules = sbs.reduce((a, b) => a + b, 0);
      const mw = Math.min((op.width * K) / modules, 3 * K);
      let x = op.x * K + (op.width * K - modules * mw) / 2;
      const y = pageH - (op.y + op.height) * K;
      sbs.forEach((n, i) => {
        if (i % 2 === 0) page.drawRectangle({ x, y, width: n * mw, height: op.height * K, color: black });
        x += n * mw;
      });
    } else if (op.kind === 'qr') {
      if (!op.data) continue;
      const { pixs, pixx, pixy } = await barcodeSymbol('qrcode', op.data);
      const cell = (op.size * K) / Math.max(pixx, pixy);
      const top = pageH - op.y * K;
      for (let j = 0; j < pixy; j++) {
        // One rectangle per horizontal run of dark modules keeps the page small.
        for (let i = 0; i < pixx; ) {
          if (!pixs[j * pixx + i]) {
            i++;
            continue;
          }
          let run = 1;
          while (i + run < pixx && pixs[j * pixx + i + run]) run++;
          page.drawRectangle({ x: op.x * K + i * cell, y: top - (j + 1) * cell, width: run * cell, height: cell, color: black });
          i += run;
        }
      }
    }
  }
}

/** Renders labels as one PDF with one 4x6 in page per label. */
export async function pdfLabels(inputs: LabelInput[]): Promise<Buffer> {
  const { PDFDocument } = await loadPdfLib();
  const doc = await PDFDocument.create();
  doc.setTitle(inputs.length === 1 ? `Label ${winAnsi(inputs[0].tracking_reference)}` : 'Labels');
  doc.setProducer('ship sandbox');
  doc.setCreator('ship sandbox');
  const fonts = await standardFonts(doc);
  for (const input of inputs) {
    const page = doc.addPage(LABEL_PAGE);
    await drawLabelOps(doc, page, labelLayout(input), fonts);
  }
  if (inputs.length === 0) doc.addPage(LABEL_PAGE);
  return Buffer.from(await doc.save());
}
