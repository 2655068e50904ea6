// The lenient view of label/document/invoice responses, and the bytes written to files or printers.
import { describe, expect, it } from 'vitest';
import { documentBytes, toDocumentResult } from '../../src/api/index.js';
import { example } from './fixtures.js';

const PDF = Buffer.from('%PDF-1.7\nbody\n%%EOF\n');
const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3]);

describe('toDocumentResult', () => {
  it('a bare base64 string', () => {
    const r = toDocumentResult(PDF.toString('base64'), 'ok');
    expect(r).toEqual({ raw: PDF.toString('base64'), message: 'ok', base64: PDF.toString('base64') });
    expect(documentBytes(r, 'PDF').equals(PDF)).toBe(true);
  });

  it('a bare ZPL string, byte for byte (the real label with set-up commands and placeholders)', () => {
    const zpl = (example('post-shipments.response.json') as { data: Array<{ zpl: string }> }).data[0].zpl;
    const r = toDocumentResult(zpl);
    expect(r.zpl).toBe(zpl);
    expect(r.base64).toBeUndefined();
    expect(documentBytes(r, 'ZPL').equals(Buffer.from(zpl, 'utf8'))).toBe(true);
  });

  it('objects with named fields, and a one-element array of them', () => {
    const r = toDocumentResult([{ pdf: PDF.toString('base64'), png: [PNG.toString('base64')], zpl: '' }]);
    expect(r.pdf).toBe(PDF.toString('base64'));
    expect(r.png).toBe(PNG.toString('base64'));
    expect(r.zpl).toBeUndefined();
    expect(documentBytes(r, 'PNG').equals(PNG)).toBe(true);
    expect(documentBytes(r, 'PDF').equals(PDF)).toBe(true);
  });

  it('generic fields: document, invoice, label (ZPL or base64)', () => {
    expect(toDocumentResult({ document: 'QUJD' }).base64).toBe('QUJD');
    expect(toDocumentResult({ invoice: 'QUJD' }).base64).toBe('QUJD');
    expect(toDocumentResult({ label: '^XA^XZ' }).zpl).toBe('^XA^XZ');
  });

  it('nothing usable: null, empty array, empty strings', () => {
    for (const d of [null, [], '', { pdf: '' }]) {
      const r = toDocumentResult(d);
      expect(r.base64 ?? r.pdf ?? r.zpl ?? r.png).toBeUndefined();
      expect(() => documentBytes(r, 'PDF')).toThrow(/no PDF/);
    }
  });
});

describe('documentBytes', () => {
  it('refuses a base64 blob of the wrong kind when the format was not named', () => {
    const r = toDocumentResult(PNG.toString('base64'));
    expect(() => documentBytes(r, 'PDF')).toThrow(/not a PDF/);
    expect(documentBytes(r, 'PNG').equals(PNG)).toBe(true);
    expect(() => documentBytes(r, 'ZPL')).toThrow(/no ZPL/);
  });

  it('accepts a raw (not base64) PDF string', () => {
    const r = toDocumentResult({ pdf: PDF.toString('latin1') });
    expect(documentBytes(r, 'PDF').equals(PDF)).toBe(true);
  });
});
