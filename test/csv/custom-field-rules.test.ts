// Custom field values of a CSV file checked by the account's rules before anything is sent.
import { describe, expect, it } from 'vitest';
import type { CustomField } from '../../src/api/schemas.js';
import { customFieldProblems, ruleBroken } from '../../src/csv/custom-field-rules.js';

const defs: CustomField[] = [
  { key: 'gift_message', entity: 'SHIPMENT', data_type: 'TEXT', data_validation_rules: { max_length: 5 } },
  { key: 'priority', entity: 'SHIPMENT', data_type: 'LIST', data_validation_rules: { options: '"standard","express, fast"' } },
  { key: 'declared_value', entity: 'PARCEL', data_type: 'NUMERIC', data_validation_rules: { numeric_type: 'INT', min_value: 0, max_value: 100 } },
  { key: 'fragile', entity: 'PARCEL', data_type: 'BOOLEAN', data_validation_rules: [] },
] as CustomField[];

describe('custom field rules', () => {
  it('checks lengths, LIST choices and numbers; leaves blank values, other types and unknown keys to the API', () => {
    expect(ruleBroken(defs[0], 'hello')).toBeUndefined();
    expect(ruleBroken(defs[0], 'hello!')).toBe('6 characters; custom field gift_message takes at most 5');
    expect(ruleBroken(defs[1], 'express, fast')).toBeUndefined();
    expect(ruleBroken(defs[1], 'Express')).toMatch(/^"Express" is not one of the choices of custom field priority: standard, express, fast$/);
    expect(ruleBroken(defs[2], '12')).toBeUndefined();
    expect(ruleBroken(defs[2], '1.5')).toBe('custom field declared_value takes a whole number (got "1.5")');
    expect(ruleBroken(defs[2], 'abc')).toBe('custom field declared_value takes a whole number (got "abc")');
    expect(ruleBroken(defs[2], '101')).toBe('101 is more than 100, the most custom field declared_value takes');
    expect(ruleBroken(defs[3], 'perhaps')).toBeUndefined();
    expect(ruleBroken(defs[0], '')).toBeUndefined();
    // FIXED and MAPPED fields take their value elsewhere: what the file says is not checked.
    expect(ruleBroken({ ...defs[0], source: 'FIXED' }, 'far too long')).toBeUndefined();
    expect(ruleBroken({ ...defs[0], source: 'MAPPED', mapped_to: 'order_reference' }, 'far too long')).toBeUndefined();
    // A listing as the document shows it (no source, no rules): the field may be FIXED, so nothing is guessed;
    // said to take input (DIRECT), a number field still wants a number.
    const listed = { key: 'weight_note', entity: 'PARCEL', data_type: 'NUMERIC' } as CustomField;
    expect(ruleBroken(listed, 'abc')).toBeUndefined();
    expect(ruleBroken({ ...listed, source: 'DIRECT' }, 'abc')).toBe('custom field weight_note takes a number (got "abc")');
  });

  it('names the row and the user\'s column of each value: shipment fields on the first row, parcel fields on the parcel\'s', () => {
    const shipments = [
      { rows: [2, 3], rowParcels: [0, 1], json: JSON.stringify({ custom_fields: { gift_message: 'too long', other: 'x' }, parcels: [{ custom_fields: { declared_value: 5 } }, { custom_fields: { declared_value: 500 } }] }) },
      { rows: [4], rowParcels: [0], json: JSON.stringify({ custom_fields: { priority: 'slow' }, parcels: [{}] }) },
    ];
    const problems = customFieldProblems(defs, shipments, (c) => (c === 'custom_fields.gift_message' ? 'Gift Note' : c));
    expect(problems).toEqual([
      { row: 2, column: 'Gift Note', message: '8 characters; custom field gift_message takes at most 5' },
      { row: 3, column: 'parcel_custom_fields.declared_value', message: '500 is more than 100, the most custom field declared_value takes' },
      { row: 4, column: 'custom_fields.priority', message: '"slow" is not one of the choices of custom field priority: standard, express, fast' },
    ]);
  });
});
