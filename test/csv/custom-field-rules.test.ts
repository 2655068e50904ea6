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
  it('checks lengths, LIST choices, numbers and Booleans; leaves blank values and fields it cannot tell take input to the API', () => {
    expect(ruleBroken(defs[0], 'hello')).toBeUndefined();
    expect(ruleBroken(defs[0], 'hello!')).toBe('6 characters; custom field gift_message takes at most 5');
    // Characters, not UTF-16 units: five emoji fit.
    expect(ruleBroken(defs[0], '😀😀😀😀😀')).toBeUndefined();
    expect(ruleBroken(defs[0], '😀😀😀😀😀😀')).toBe('6 characters; custom field gift_message takes at most 5');
    expect(ruleBroken(defs[1], 'express, fast')).toBeUndefined();
    expect(ruleBroken(defs[1], 'Express')).toMatch(/^"Express" is not one of the choices of custom field priority: standard, express, fast$/);
    expect(ruleBroken(defs[2], '12')).toBeUndefined();
    expect(ruleBroken(defs[2], '1.5')).toBe('custom field declared_value takes a whole number (got "1.5")');
    expect(ruleBroken(defs[2], 'abc')).toBe('custom field declared_value takes a whole number (got "abc")');
    expect(ruleBroken(defs[2], '101')).toBe('101 is more than 100, the most custom field declared_value takes');
    // Booleans as the service takes them, case aside.
    const direct = { ...defs[3], source: 'DIRECT' };
    for (const v of ['true', 'False', 'YES', 'no', 'y', 'N', '1', '0']) expect(ruleBroken(direct, v)).toBeUndefined();
    expect(ruleBroken(direct, 'perhaps')).toBe('custom field fragile takes true or false (or yes/no, 1/0), not "perhaps"');
    // Listed without a source and with no rules, it may be FIXED (its value ignored): not refused on a guess.
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
      { row: 2, column: 'custom_fields.other', message: 'the account has no SHIPMENT custom field with the key "other" (its SHIPMENT fields: gift_message, priority)' },
      { row: 3, column: 'parcel_custom_fields.declared_value', message: '500 is more than 100, the most custom field declared_value takes' },
      { row: 4, column: 'custom_fields.priority', message: '"slow" is not one of the choices of custom field priority: standard, express, fast' },
    ]);
  });

  it('refuses a key the account has no field of, naming the column probably meant', () => {
    const rows = { rows: [2], rowParcels: [0] };
    const at = (json: object) => customFieldProblems(defs, [{ ...rows, json: JSON.stringify(json) }], (c) => c).map((p) => p.message);
    // Written as a header may be (case, spaces): the key is the account's own, matched exactly.
    expect(at({ custom_fields: { 'Gift Message': 'hi' } })).toEqual(['the account has no SHIPMENT custom field with the key "Gift Message" (keys are matched exactly: name the column custom_fields.gift_message)']);
    // The other entity's field.
    expect(at({ custom_fields: { fragile: 'yes' } })).toEqual(['the account has no SHIPMENT custom field with the key "fragile"; fragile is a PARCEL custom field: name the column parcel_custom_fields.fragile']);
    expect(at({ parcels: [{ custom_fields: { Priority: 'express' } }] })).toEqual(['the account has no PARCEL custom field with the key "Priority"; priority is a SHIPMENT custom field: name the column custom_fields.priority']);
    // An account with no fields of that kind; the body as an object rather than JSON text.
    expect(customFieldProblems(defs.slice(0, 2), [{ ...rows, body: { parcels: [{ custom_fields: { seal: 'x' } }] } }], (c) => c)).toEqual([
      { row: 2, column: 'parcel_custom_fields.seal', message: 'the account has no PARCEL custom field with the key "seal" (it has none; `ship custom-fields` lists its fields)' },
    ]);
  });
});
