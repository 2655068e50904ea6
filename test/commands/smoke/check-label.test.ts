import { describe, expect, it } from 'vitest';
import { checkLabel, smokeReference, smokeShipment } from '../../../src/commands/smoke/run.js';
import { validateShipmentRequest } from '../../../src/api/index.js';

describe('smoke helpers', () => {
  it('accepts real label bytes and refuses look-alikes', () => {
    expect(checkLabel(Buffer.from('CT~~CD,~CC^~CT~\n^XA^FO50,50^FDhi^FS^XZ'), 'ZPL')).toMatch(/^ZPL, \d+ bytes$/);
    expect(() => checkLabel(Buffer.from('^XA without an end'), 'ZPL')).toThrow(/not ZPL/);
    expect(checkLabel(Buffer.from('%PDF-1.7\n%…'), 'PDF')).toMatch(/^PDF/);
    expect(() => checkLabel(Buffer.from('%PDF1.7'), 'PDF')).toThrow(/not a PDF/);
    expect(() => checkLabel(Buffer.from('^XA^XZ'), 'PDF')).toThrow(/not a PDF/);
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0]);
    expect(checkLabel(png, 'PNG')).toBe('PNG, 10 bytes');
    expect(() => checkLabel(png.subarray(0, 7), 'PNG')).toThrow(/not a PNG/);
    expect(() => checkLabel(Buffer.from('GIF89a'), 'PNG')).toThrow(/not a PNG/);
  });

  it('makes unique references of at most 30 characters and a shipment the API layer accepts', () => {
    const now = new Date('2026-05-21T09:30:00Z');
    const a = smokeReference(now);
    expect(a).toMatch(/^SMOKE-20260521093000-[0-9A-F]{6}$/);
    expect(a.length).toBeLessThanOrEqual(30);
    const many = new Set(Array.from({ length: 200 }, () => smokeReference(now)));
    expect(many.size).toBeGreaterThan(195);
    const result = validateShipmentRequest(smokeShipment(a));
    expect(result.ok, JSON.stringify(result)).toBe(true);
  });
});
