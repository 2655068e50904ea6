// PNG rendering of labels: an 8-bit greyscale raster of 812 x 1218 dots, text from bwip-js's OCR-B font, barcodes
// from bwip-js's raw symbol data, encoded with pngjs.
import { cjsExports } from '../../util/interop.js';
import type { LabelInput } from './index.js';
import { plainAscii } from './format.js';
import { LABEL_H, LABEL_W, labelLayout, type LabelOp } from './layout.js';

type Bwip = typeof import('bwip-js');

interface Glyph {
  pixels: Uint8Array;
  width: number;
  height: number;
  top: number;
  left: number;
  advance: number;
}

/** A greyscale canvas (0 black, 255 white). */
class Raster {
  readonly data: Uint8Array;
  constructor(
    readonly width: number,
    readonly height: number,
  ) {
    this.data = new Uint8Array(width * height).fill(255);
  }

  fillRect(x: number, y: number, w: number, h: number): void {
    const x0 = Math.max(0, Math.round(x));
    const y0 = Math.max(0, Math.round(y));
    const x1 = Math.min(this.width, Math.round(x + w));
    const y1 = Math.min(this.height, Math.round(y + h));
    for (let yy = y0; yy < y1; yy++) this.data.fill(0, yy * this.width + x0, yy * this.width + x1);
  }

  /** Darkens pixels by a coverage mask (255 = full ink). */
  blit(mask: Uint8Array, mw: number, mh: number, x: number, y: number): void {
    for (let j = 0; j < mh; j++) {
      const yy = y + j;
      if (yy < 0 || yy >= this.height) continue;
      for (let i = 0; i < mw; i++) {
        const xx = x + i;
        if (xx < 0 || xx >= this.width) continue;
        const ink = mask[j * mw + i];
        if (ink === 0) continue;
        const at = yy * this.width + xx;
        const v = 255 - ink;
        if (v < this.data[at]) this.data[at] = v;
      }
    }
  }
}

class TextPainter {
  private readonly cache = new Map<string, Glyph>();
  private readonly fontId: number;
  constructor(private readonly bwip: Bwip) {
    this.fontId = bwip.FontLib.lookup('OCR-B');
  }

  glyph(ch: number, size: number): Glyph {
    const key = `${ch}:${size}`;
    let g = this.cache.get(key);
    if (!g) {
      const raw = this.bwip.FontLib.getglyph(this.fontId, ch, size, size);
      // getglyph reuses its buffer; copy what we keep.
      const n = raw.pixels ? raw.width * raw.height : 0;
      g = { pixels: n > 0 ? Uint8Array.from(raw.pixels.subarray(0, n)) : new Uint8Array(0), width: n > 0 ? raw.width : 0, height: n > 0 ? raw.height : 0, top: raw.top, left: raw.left, advance: raw.advance };
      this.cache.set(key, g);
    }
    return g;
  }

  measure(text: string, size: number): number {
    let w = 0;
    for (let i = 0; i < text.length; i++) w += this.glyph(text.charCodeAt(i), size).advance;
    return w;
  }

  fit(text: string, size: number, width: number): string {
    if (this.measure(text, size) <= width) return text;
    let t = text;
    while (t.length > 0 && this.measure(t + '...', size) > width) t = t.slice(0, -1);
    return t + '...';
  }

  draw(r: Raster, text: string, x: number, baseline: number, size: number): void {
    let pen = x;
    for (let i = 0; i < text.length; i++) {
      const g = this.glyph(text.charCodeAt(i), size);
      if (g.width > 0 && g.height > 0) r.blit(g.pixels, g.width, g.height, Math.round(pen + g.left), Math.round(baseline - g.top));
      pen += g.advance;
    }
  }
}

function wrap(p: TextPainter, text: string, size: number, width: number, maxLines: number): string[] {
  if (maxLines <= 1) return [p.fit(text, size, width)];
  const words = text.split(/\s+/).filter(Boolean);
  const lines: string[] = [];
  let cur = '';
  for (let i = 0; i < words.length; i++) {
    const next = cur ? `${cur} ${words[i]}` : words[i];
    if (!cur || p.measure(next, size) <= width) {
      cur = next;
      continue;
    }
    lines.push(cur);
    if (lines.length === maxLines - 1) {
      cur = words.slice(i).join(' ');
      break;
    }
    cur = words[i];
  }
  if (cur) lines.push(cur);
  return lines.slice(0, maxLines).map((l) => p.fit(l, size, width));
}

function drawOps(bwip: Bwip, r: Raster, ops: LabelOp[]): void {
  const painter = new TextPainter(bwip);
  for (const op of ops) {
    if (op.kind === 'rule') {
      r.fillRect(op.x, op.y, op.width, op.thickness);
    } else if (op.kind === 'text') {
      // OCR-B glyph size is roughly the em; ZPL's ^A0 height includes leading, so shrink a little.
      const size = Math.round(op.size * 0.85);
      const lines = wrap(painter, plainAscii(op.text), size, op.width, op.lines ?? 1);
      lines.forEach((line, i) => {
        const w = painter.measure(line, size);
        const dx = op.align === 'C' ? (op.width - w) / 2 : op.align === 'R' ? op.width - w : 0;
        painter.draw(r, line, op.x + dx, op.y + size + i * Math.round(op.size * 1.1), size);
      });
    } else if (op.kind === 'code128') {
      if (!op.data) continue;
      const sym = bwip.raw('code128', op.data, {})[0] as { sbs: number[] };
      const modules = sym.sbs.reduce((a, b) => a + b, 0);
      const mw = Math.max(1, Math.floor(op.width / modules));
      let x = op.x + Math.floor((op.width - modules * mw) / 2);
      // sbs alternates bar, space, bar, … widths in modules.
      sym.sbs.forEach((n, i) => {
        if (i % 2 === 0) r.fillRect(x, op.y, n * mw, op.height);
        x += n * mw;
      });
    } else if (op.kind === 'qr') {
      if (!op.data) continue;
      const sym = bwip.raw('qrcode', op.data, { eclevel: 'M' } as never)[0] as { pixs: number[]; pixx: number; pixy: number };
      const cell = Math.max(1, Math.floor(op.size / Math.max(sym.pixx, sym.pixy)));
      for (let j = 0; j < sym.pixy; j++)
        for (let i = 0; i < sym.pixx; i++) if (sym.pixs[j * sym.pixx + i]) r.fillRect(op.x + i * cell, op.y + j * cell, cell, cell);
    }
  }
}

async function renderPng(ops: LabelOp[]): Promise<Buffer> {
  const [bwip, { PNG }] = await Promise.all([import('bwip-js').then((m) => m.default), import('pngjs').then(cjsExports)]);
  const r = new Raster(LABEL_W, LABEL_H);
  drawOps(bwip, r, ops);
  const png = new PNG({ width: r.width, height: r.height, colorType: 0, inputColorType: 0, inputHasAlpha: false, bitDepth: 8 });
  png.data = Buffer.from(r.data.buffer, r.data.byteOffset, r.data.byteLength);
  return PNG.sync.write(png, { colorType: 0, inputColorType: 0, inputHasAlpha: false, bitDepth: 8 });
}

/** Renders one parcel label as an 812x1218 greyscale PNG. */
export async function pngLabel(input: LabelInput): Promise<Buffer> {
  return renderPng(labelLayout(input));
}
