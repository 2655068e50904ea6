// Converting the customs declaration's cells (flags or CSV columns) to what the API takes.
import { describe, expect, it } from 'vitest';
import { columnDef, columnForPath } from '../../src/csv/columns.js';
import { convertCell } from '../../src/shipment-input/build.js';

const convert = (column: string, raw: string) => convertCell(columnDef(column)!, raw);

describe('customs declaration cells', () => {
  it('land under customs_declaration, duty method and currency in capitals', () => {
    expect(columnDef('duty_method')?.path).toBe('customs_declaration.duty_method');
    expect(columnDef('export_purpose')?.path).toBe('customs_declaration.export_purpose');
    expect(convert('duty_method', ' ddp ')).toEqual({ ok: true, value: 'DDP' });
    expect(convert('duty_method', 'EXW')).toEqual({ ok: false, message: 'must be DAP or DDP, not "EXW"' });
    expect(convert('currency_code', 'eur')).toEqual({ ok: true, value: 'EUR' });
    expect(convert('currency_code', 'euro').ok).toBe(false);
    expect(convert('other_value', '-3.00')).toEqual({ ok: true, value: -3 });
  });

  it('export_purpose: named purposes are true, other=TEXT keeps its commas; anything else is refused', () => {
    expect(convert('export_purpose', 'gift')).toEqual({ ok: true, value: { gift: true } });
    expect(convert('export_purpose', 'Sale of goods, commercial-sample')).toEqual({ ok: true, value: { sale_of_goods: true, commercial_sample: true } });
    expect(convert('export_purpose', 'returned_goods,other=Repair, then return')).toEqual({ ok: true, value: { returned_goods: true, other: 'Repair, then return' } });
    expect(convert('export_purpose', 'other: Exhibition')).toEqual({ ok: true, value: { other: 'Exhibition' } });
    expect(convert('export_purpose', 'gfit')).toMatchObject({ ok: false, message: expect.stringMatching(/^"gfit" is not an export purpose/) });
    expect(convert('export_purpose', 'other=')).toMatchObject({ ok: false });
    expect(convert('export_purpose', 'other=a^b')).toMatchObject({ ok: false, message: expect.stringMatching(/caret/) });
    // The API's message about one of its fields is about the export_purpose column (or flag).
    expect(columnForPath('shipment', 'customs_declaration.export_purpose.other')).toBe('export_purpose');
  });

  it('refuses numbers too large to be sent exactly, rather than sending another number', () => {
    expect(convert('weight', '9007199254740991')).toEqual({ ok: true, value: 9007199254740991 });
    expect(convert('weight', '9007199254740993')).toEqual({ ok: false, message: 'is too large, "9007199254740993"' });
    expect(convert('weight', '90071992547409930.0')).toEqual({ ok: false, message: 'is too large, "90071992547409930.0"' });
    expect(convert('value', '9999999999999.99')).toEqual({ ok: true, value: 9999999999999.99 });
    expect(convert('value', '99999999999999999999.99')).toEqual({ ok: false, message: 'is too large, "99999999999999999999.99"' });
    expect(convert('value', '-12345678901234')).toEqual({ ok: false, message: 'is too large, "-12345678901234"' });
  });
});
