import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LabelNamer, mergePdfs, safeFileStem, safeLabelFileName, writeLabels } from '../../src/labels/index.js';

const RESERVED = /^(con|prn|aux|nul|com\d|lpt\d)(\.|$)/i;
function assertSafe(name: string) {
  expect(name).not.toMatch(/[\/\\<>:"|?*\u0000-\u001f]/);
  expect(name).not.toContain('..');
  expect(name).not.toMatch(/^[. ]|[. ]$/);
  expect(name).not.toMatch(RESERVED);
  expect(name.length).toBeLessThanOrEqual(110);
}

describe('safe label file names', () => {
  it('keeps ordinary references as they are', () => {
    expect(safeLabelFileName('ORDER-1001', 1, 'ZPL')).toBe('ORDER-1001_1.zpl');
    expect(safeLabelFileName('ORDER-1001', 2, 'PDF')).toBe('ORDER-1001_2.pdf');
  });

  it.each([
    '../../etc/passwd',
    '..\\..\\windows\\system32',
    '/absolute/path',
    'CON',
    'con.txt',
    'LPT1',
    'nul',
    'a\u0000b\nc\td',
    'name. ',
    '...',
    '',
    'x'.repeat(300),
    'ÅÄÖ-ordre/2024',
    '🚚'.repeat(80),
    'a:b*c?"d<e>f|g',
  ])('makes %j safe', (ref) => {
    const name = safeLabelFileName(ref, 1, 'ZPL');
    assertSafe(name);
    expect(name.endsWith('_1.zpl')).toBe(true);
  });

  it('never lets a path escape the directory', () => {
    const stem = safeFileStem('../../etc/passwd');
    expect(join('/out', `${stem}_1.zpl`).startsWith('/out/')).toBe(true);
    expect(stem).not.toContain('/');
  });

  it('keeps different references apart after sanitising and truncating', () => {
    expect(safeFileStem('A/B')).not.toBe(safeFileStem('A_B'));
    expect(safeFileStem('A/B')).not.toBe(safeFileStem('A:B'));
    const long1 = 'x'.repeat(300) + '1';
    const long2 = 'x'.repeat(300) + '2';
    expect(safeFileStem(long1)).not.toBe(safeFileStem(long2));
    expect(safeFileStem(long1).length).toBeLessThanOrEqual(100);
    // deterministic across runs (resume writes the same file)
    expect(safeFileStem('A/B')).toBe(safeFileStem('A/B'));
  });

  it('keeps unicode letters and does not cut surrogate pairs', () => {
    expect(safeFileStem('Ørsted-Æbler')).toBe('Ørsted-Æbler');
    const s = safeFileStem('🚚'.repeat(80));
    expect(s).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])/);
  });

  it('bounds names in UTF-8 bytes, as file systems count them (90 CJK characters are 270 bytes)', () => {
    for (const ref of ['日'.repeat(90), '本'.repeat(100), 'é'.repeat(120), '🚚'.repeat(30)]) {
      const stem = safeFileStem(ref);
      expect(Buffer.byteLength(stem), ref).toBeLessThanOrEqual(100);
      expect(stem).toMatch(/-[0-9a-f]{8}$/);
      expect(Buffer.byteLength(safeLabelFileName(ref, 12, 'PDF'))).toBeLessThan(255);
    }
    expect(safeFileStem('日'.repeat(90))).not.toBe(safeFileStem('日'.repeat(91)));
    expect(safeFileStem('日'.repeat(30))).toBe('日'.repeat(30)); // 90 bytes: kept whole
    // A case twin of a long one stays within the bound too.
    const n = new LabelNamer();
    n.name('ä'.repeat(45), 1, 'ZPL');
    expect(Buffer.byteLength(n.name('Ä'.repeat(45), 1, 'ZPL'))).toBeLessThan(120);
  });

  it('separates references that differ only in case (case-insensitive file systems)', () => {
    const n = new LabelNamer();
    const a = n.name('order-1', 1, 'ZPL');
    const b = n.name('ORDER-1', 1, 'ZPL');
    expect(a.toLowerCase()).not.toBe(b.toLowerCase());
    expect(n.name('order-1', 2, 'ZPL')).toBe('order-1_2.zpl');
  });

  it('counts the label files already in the directory: a case twin of an earlier run\'s file is not overwritten', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ship-namer-'));
    writeFileSync(join(dir, 'order-1_1.zpl'), 'earlier run');
    writeFileSync(join(dir, 'notes.txt'), '');
    const n = new LabelNamer(dir);
    // The same reference as the file's: its own name (a rerun rewrites its own label).
    expect(n.name('order-1', 1, 'ZPL')).toBe('order-1_1.zpl');
    const twin = new LabelNamer(dir);
    const first = twin.name('ORDER-1', 1, 'ZPL');
    expect(first.toLowerCase()).not.toBe('order-1_1.zpl');
    expect(first).toMatch(/^ORDER-1-[0-9a-f]{8}_1\.zpl$/);
    // Every parcel of it gets the same stem, in every format, and the name is the same on a rerun.
    expect(twin.name('ORDER-1', 2, 'PDF')).toBe(first.replace('_1.zpl', '_2.pdf'));
    expect(new LabelNamer(dir).name('ORDER-1', 1, 'ZPL')).toBe(first);
    // A directory not there yet: plain names.
    expect(new LabelNamer(join(dir, 'missing')).name('ORDER-1', 1, 'ZPL')).toBe('ORDER-1_1.zpl');
    const written = writeLabels(['^XA^XZ'], { dir, shipmentRef: 'ORDER-1', format: 'ZPL', namer: new LabelNamer(dir) });
    expect(readFileSync(join(dir, 'order-1_1.zpl'), 'utf8')).toBe('earlier run');
    expect(written[0]).toBe(join(dir, first));
  });
});

describe('writeLabels', () => {
  it('writes ZPL byte for byte, decodes PDF/PNG, one file per parcel, no temp files left', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ship-labels-'));
    const zpl = 'CT~~CD,~CC^~CT~\n^XA^FO50,50^FD%COMPANY_NAME% Ünïcode^FS^XZ\r\n^XA^GFA,4,4,1,FFFF^XZ';
    const paths = writeLabels([zpl, zpl + '2'], { dir, shipmentRef: 'ORD/1', format: 'ZPL' });
    expect(paths).toHaveLength(2);
    expect(readFileSync(paths[0], 'utf8')).toBe(zpl);
    expect(readFileSync(paths[1])).toEqual(Buffer.from(zpl + '2', 'utf8'));
    const { PDFDocument } = await import('pdf-lib');
    const doc = await PDFDocument.create();
    doc.addPage([100, 100]);
    const pdf = Buffer.from(await doc.save());
    const [p] = writeLabels([pdf.toString('base64')], { dir, shipmentRef: 'ORD-2', format: 'PDF' });
    expect(readFileSync(p)).toEqual(pdf);
    expect(() => writeLabels([Buffer.from('nope').toString('base64')], { dir, shipmentRef: 'X', format: 'PNG' })).toThrow(/not a PNG/);
    expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('merges PDFs in the given order', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ship-merge-'));
    const { PDFDocument } = await import('pdf-lib');
    const make = async (w: number) => {
      const d = await PDFDocument.create();
      d.addPage([w, 100]);
      return d.save();
    };
    const out = join(dir, 'all.pdf');
    const pages = await mergePdfs([await make(101), await make(102), await make(103)], out);
    expect(pages).toBe(3);
    const merged = await PDFDocument.load(readFileSync(out));
    expect(merged.getPages().map((p) => Math.round(p.getWidth()))).toEqual([101, 102, 103]);
  });
});
