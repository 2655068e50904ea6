// A small page writer for A4 documents (invoices, manifests): a cursor, text, boxes, tables that continue on new
// pages with their header repeated, and page numbers at the end.
import type { PDFDocument, PDFFont, PDFPage, RGB } from 'pdf-lib';
import { winAnsi } from './format.js';
import { fitText, loadPdfLib, standardFonts, type PdfFonts, wrapText } from './pdf.js';

/** A4 in PDF points. */
export const A4: [number, number] = [595.28, 841.89];
const MARGIN = 40;
const FOOTER = 30;

/** One table column: header, width in points, alignment. */
export interface Column {
  header: string;
  width: number;
  align?: 'L' | 'R' | 'C';
  /** Wrap long cell text onto several lines instead of cutting it. */
  wrap?: boolean;
}

/** Writes A4 pages top to bottom, breaking pages as needed. */
export class A4Writer {
  page!: PDFPage;
  y = 0;
  readonly left = MARGIN;
  readonly right = A4[0] - MARGIN;
  readonly width = A4[0] - 2 * MARGIN;
  private black!: RGB;
  private grey!: RGB;
  private onNewPage: ((w: A4Writer) => void) | null = null;

  private constructor(
    readonly doc: PDFDocument,
    readonly fonts: PdfFonts,
    readonly title: string,
  ) {}

  /** Creates a document with its first page. */
  static async create(title: string): Promise<A4Writer> {
    const { PDFDocument, rgb } = await loadPdfLib();
    const doc = await PDFDocument.create();
    doc.setTitle(title);
    doc.setProducer('ship sandbox');
    doc.setCreator('ship sandbox');
    const w = new A4Writer(doc, await standardFonts(doc), title);
    w.black = rgb(0, 0, 0);
    w.grey = rgb(0.85, 0.85, 0.85);
    w.newPage();
    return w;
  }

  /** Starts a new page; a running table repeats its header there. */
  newPage(): void {
    this.page = this.doc.addPage(A4);
    this.y = A4[1] - MARGIN;
    this.onNewPage?.(this);
  }

  /** Breaks the page when fewer than `h` points are left above the footer. */
  ensure(h: number): void {
    if (this.y - h < MARGIN + FOOTER) this.newPage();
  }

  /** Draws one line of text at (x, current y - size), cut to `width`. */
  text(s: string, x: number, size = 9, opts: { bold?: boolean; width?: number; align?: 'L' | 'R' | 'C'; baseline?: number } = {}): void {
    const font = opts.bold ? this.fonts.bold : this.fonts.regular;
    const width = opts.width ?? this.right - x;
    const line = fitText(font, winAnsi(s), size, width);
    const w = font.widthOfTextAtSize(line, size);
    const dx = opts.align === 'R' ? width - w : opts.align === 'C' ? (width - w) / 2 : 0;
    this.page.drawText(line, { x: x + dx, y: opts.baseline ?? this.y - size, size, font, color: this.black });
  }

  /** Writes a line of text and moves the cursor down. */
  line(s: string, size = 9, opts: { bold?: boolean; x?: number; width?: number; align?: 'L' | 'R' | 'C'; gap?: number } = {}): void {
    this.ensure(size * 1.3);
    this.text(s, opts.x ?? this.left, size, opts);
    this.y -= size * 1.3 + (opts.gap ?? 0);
  }

  /** Writes wrapped text (at most maxLines lines) and moves the cursor down. */
  paragraph(s: string, size = 9, opts: { bold?: boolean; x?: number; width?: number; maxLines?: number } = {}): void {
    const font = opts.bold ? this.fonts.bold : this.fonts.regular;
    const width = opts.width ?? this.right - (opts.x ?? this.left);
    for (const l of wrapText(font, winAnsi(s), size, width, opts.maxLines ?? 50)) this.line(l, size, { ...opts, width });
  }

  /** A horizontal rule across the content width. */
  rule(thickness = 0.8): void {
    this.page.drawRectangle({ x: this.left, y: this.y - thickness, width: this.width, height: thickness, color: this.black });
    this.y -= thickness + 4;
  }

  /** An empty or ticked checkbox with a label, at x on the current line (does not move the cursor). */
  checkbox(label: string, checked: boolean, x: number, size = 9): number {
    const box = size;
    this.page.drawRectangle({ x, y: this.y - box, width: box, height: box, borderColor: this.black, borderWidth: 0.8 });
    if (checked) this.page.drawText('X', { x: x + 1.6, y: this.y - box + 1.5, size: size - 1, font: this.fonts.bold, color: this.black });
    const text = winAnsi(label);
    this.page.drawText(text, { x: x + box + 4, y: this.y - box + 1, size, font: this.fonts.regular, color: this.black });
    return x + box + 4 + this.fonts.regular.widthOfTextAtSize(text, size) + 14;
  }

  /**
   * Draws a table: a header row (repeated on each new page) and rows. Cells of `wrap` columns wrap onto up to
   * `maxLines` lines (a `\n` in the text forces a break); other cells are cut to their column.
   */
  table(columns: Column[], rows: string[][], size = 8, maxLines = 3): void {
    const lineH = size * 1.2;
    const pad = size * 0.5;
    const headerH = lineH + 2 * pad;
    const header = (w: A4Writer) => {
      w.page.drawRectangle({ x: w.left, y: w.y - headerH, width: w.width, height: headerH, color: w.grey });
      let x = w.left;
      for (const c of columns) {
        w.text(c.header, x + 2, size, { bold: true, width: c.width - 4, align: c.align, baseline: w.y - pad - size * 0.9 });
        x += c.width;
      }
      w.y -= headerH;
    };
    this.ensure(headerH + lineH + 2 * pad);
    header(this);
    this.onNewPage = header;
    for (const row of rows) {
      const cells = columns.map((c, i) => {
        const parts = (row[i] ?? '').split('\n').map(winAnsi);
        if (!c.wrap) return [parts.join(' ')];
        return parts
          .flatMap((part) => wrapText(this.fonts.regular, part, size, c.width - 4, maxLines))
          .slice(0, maxLines);
      });
      const rowH = Math.max(...cells.map((l) => l.length)) * lineH + 2 * pad;
      this.ensure(rowH);
      let x = this.left;
      columns.forEach((c, i) => {
        cells[i].forEach((l, j) => this.text(l, x + 2, size, { width: c.width - 4, align: c.align, baseline: this.y - pad - size * 0.9 - j * lineH }));
        x += c.width;
      });
      this.page.drawRectangle({ x: this.left, y: this.y - rowH, width: this.width, height: 0.3, color: this.black });
      this.y -= rowH;
    }
    this.onNewPage = null;
    this.y -= 6;
  }

  /** Writes "title - page n of m" at the foot of every page and returns the PDF bytes. */
  async save(): Promise<Buffer> {
    const pages = this.doc.getPages();
    pages.forEach((p, i) => {
      const label = winAnsi(`${this.title} - page ${i + 1} of ${pages.length}`);
      const size = 7;
      const w = this.fonts.regular.widthOfTextAtSize(label, size);
      p.drawText(label, { x: A4[0] - MARGIN - w, y: MARGIN - 10, size, font: this.fonts.regular, color: this.black });
    });
    return Buffer.from(await this.doc.save());
  }

  /** The regular or bold font. */
  font(bold = false): PDFFont {
    return bold ? this.fonts.bold : this.fonts.regular;
  }
}
