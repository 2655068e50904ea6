import { describe, expect, it } from 'vitest';
import { duplicateJsonKeys, normalizeHeader, parseMapping, resolveHeader, suggestColumn } from '../../src/csv/headers.js';

describe('normalizeHeader', () => {
  it('matches case-insensitively with spaces and hyphens as underscores', () => {
    expect(normalizeHeader('Shipment Reference')).toBe('shipment_reference');
    expect(normalizeHeader('  TO-LINE-1 ')).toBe('to_line_1');
    expect(normalizeHeader('item  short - description')).toBe('item_short_description');
    expect(normalizeHeader('\uFEFFshipment_reference')).toBe('shipment_reference');
  });
  it('normalises only the prefix of custom field columns, keeping the key as written', () => {
    expect(normalizeHeader('Custom Fields.Gift Message')).toBe('custom_fields.Gift Message');
    expect(normalizeHeader('PARCEL-CUSTOM-FIELDS.fragile')).toBe('parcel_custom_fields.fragile');
  });
});

describe('resolveHeader', () => {
  it('binds known columns and keeps the user header as the label', () => {
    const r = resolveHeader(['Shipment Reference', 'To Postcode', 'custom_fields.priority']);
    expect(r.problems).toEqual([]);
    expect(r.bindings.map((b) => b.column)).toEqual(['shipment_reference', 'to_postcode', 'custom_fields.priority']);
    expect(r.labels.get('to_postcode')).toBe('To Postcode');
  });
  it('refuses unknown columns with a did-you-mean, and a missing shipment_reference', () => {
    const r = resolveHeader(['reference', 'to_postcod', 'colour']);
    expect(r.problems).toEqual([
      { row: 1, column: 'reference', message: 'unknown column (did you mean shipment_reference?)' },
      { row: 1, column: 'to_postcod', message: 'unknown column (did you mean to_postcode?)' },
      { row: 1, column: 'colour', message: 'unknown column' },
      { row: 1, column: 'shipment_reference', message: expect.stringContaining('required column is missing') },
    ]);
  });
  it('refuses two headers that mean the same column', () => {
    const r = resolveHeader(['shipment_reference', 'To Name', 'to-name']);
    expect(r.problems).toEqual([{ row: 1, column: 'to-name', message: 'is the same column as "To Name" (to_name); keep one of them' }]);
  });
  it('says a clash of two headers is the --map file\'s doing, naming it, when the map sends one there', () => {
    const mapping = { ...parseMapping({ Ref: 'shipment_reference', Addr: 'to_line_1', Town: 'to_line_1', Name: 'to_name' }), source: 'cols.json' };
    const r = resolveHeader(['Ref', 'Addr', 'Town', 'Name', 'to_name'], { mapping });
    expect(r.problems).toEqual([
      { row: 1, column: 'Town', message: 'is the same column as "Addr" (to_line_1) by --map cols.json: map one of them to another column, or to null' },
      { row: 1, column: 'to_name', message: 'is the same column as "Name" (to_name) by --map cols.json: map one of them to another column, or to null' },
    ]);
  });
  it('ignores unknown columns with a warning when asked to', () => {
    const r = resolveHeader(['shipment_reference', 'colour', ''], { allowUnknown: true });
    expect(r.problems).toEqual([]);
    expect(r.warnings).toEqual([{ row: 1, message: 'ignoring unknown columns: colour' }]);
  });
  it('applies a mapping (exact or normalised header), with null ignoring a column', () => {
    const mapping = parseMapping({ 'Order No': 'shipment_reference', 'Post Code': 'to-postcode', Notes: null });
    const r = resolveHeader(['order no', 'Post Code', 'Notes', 'to_city'], { mapping });
    expect(r.problems).toEqual([]);
    expect(r.bindings.map((b) => [b.label, b.column])).toEqual([
      ['order no', 'shipment_reference'],
      ['Post Code', 'to_postcode'],
      ['Notes', null],
      ['to_city', 'to_city'],
    ]);
  });
});

describe('--map entries that match no header', () => {
  it('are problems naming the entry, with the one header it likely meant (not dropped under ignore_unknown)', () => {
    const mapping = parseMapping({ columns: { 'Order No': 'shipment_reference', 'Carton Weight': 'weight', 'Ship-To  zip': 'to_postcode', Picker: null }, ignore_unknown: true });
    const r = resolveHeader(['order no', 'Carton Weight (g)', 'ship_to_zip', 'Colour'], { mapping });
    expect(r.problems).toEqual([{ column: '--map', message: '"Carton Weight" matches no column of the file (did you mean "Carton Weight (g)"?)' }]);
    // Matched as headers are: exactly, or case, spaces and hyphens aside; a null entry loses nothing when absent.
    expect(r.bindings.map((b) => [b.label, b.column])).toEqual([['order no', 'shipment_reference'], ['Carton Weight (g)', null], ['ship_to_zip', 'to_postcode'], ['Colour', null]]);
  });

  it('suggest a header that differs only in punctuation; with none close (or several), only a warning: one map may serve several exports', () => {
    const r = resolveHeader(['Ref', 'Post.Code', 'Recipient Name', 'Company Name', 'Notes'], {
      mapping: parseMapping({ Ref: 'shipment_reference', 'Post Code': 'to_postcode', Name: 'to_name', Weight: 'weight' }),
    });
    const mapProblems = (x: { problems: Array<{ column?: string; message: string }> }) => x.problems.filter((p) => p.column === '--map').map((p) => p.message);
    expect(mapProblems(r)).toEqual(['"Post Code" matches no column of the file (did you mean "Post.Code"?)']);
    expect(r.warnings.filter((w) => w.column === '--map').map((w) => w.message)).toEqual([
      '"Name" matches no column of the file (left unused)',
      '"Weight" matches no column of the file (left unused)',
    ]);
    // A header another entry takes is not suggested.
    const taken = resolveHeader(['Ref', 'Recipient Name', 'Company Name'], { mapping: parseMapping({ Ref: 'shipment_reference', Name: 'to_name', 'Company Name': 'to_company_name' }) });
    expect(mapProblems(taken)).toEqual(['"Name" matches no column of the file (did you mean "Recipient Name"?)']);
  });

  it('take a header one or two letters from the entry for a near miss (a typo), in names of five letters or more', () => {
    const mapping = parseMapping({ columns: { 'Gift Nte': 'custom_fields.gift_message', 'Caton ID': 'parcel_reference', 'HS Cde': 'item_harmonised_code', Zp: 'to_postcode' }, ignore_unknown: true });
    const r = resolveHeader(['Order', 'Gift Note', 'Carton ID', 'HS Code', 'Zip'], { mapping });
    expect(r.problems.filter((p) => p.column === '--map').map((p) => p.message)).toEqual([
      '"Gift Nte" matches no column of the file (did you mean "Gift Note"?)',
      '"Caton ID" matches no column of the file (did you mean "Carton ID"?)',
      '"HS Cde" matches no column of the file (did you mean "HS Code"?)',
    ]);
    // Two letters are too few to tell a typo from another name.
    expect(r.warnings.filter((w) => w.column === '--map').map((w) => w.message)).toEqual(['"Zp" matches no column of the file (left unused)']);
  });

  it('do not take a one- or two-letter header inside the entry for a near miss (L, W, D are in many names)', () => {
    const mapping = parseMapping({ 'Order Number': 'shipment_reference', 'Ship To Email': 'to_email_address', 'Carton ID': 'parcel_reference', 'Qty Shipped': 'item_quantity' });
    const r = resolveHeader(['Order Number', 'L', 'W', 'D', 'Qty'], { mapping, allowUnknown: true });
    expect(r.problems.filter((p) => p.column === '--map').map((p) => p.message)).toEqual(['"Qty Shipped" matches no column of the file (did you mean "Qty"?)']);
    expect(r.warnings.filter((w) => w.column === '--map').map((w) => w.message)).toEqual([
      '"Ship To Email" matches no column of the file (left unused)',
      '"Carton ID" matches no column of the file (left unused)',
    ]);
  });
});

describe('parseMapping', () => {
  it('accepts the {columns, ignore_unknown} form', () => {
    expect(parseMapping({ columns: { A: 'weight' }, ignore_unknown: true })).toEqual({ columns: { A: 'weight' }, ignoreUnknown: true });
  });
  it('names a bad target with a suggestion', () => {
    expect(() => parseMapping({ Zip: 'postcode' })).toThrow('"Zip": "postcode" is not a column (did you mean to_postcode?)');
    expect(() => parseMapping([])).toThrow(/JSON object/);
  });
  it('suggests columns for common other names', () => {
    expect(suggestColumn('Zip')).toBe('to_postcode');
    expect(suggestColumn('to_line1')).toBe('to_line_1');
    expect(suggestColumn('completely different')).toBeUndefined();
  });
});

describe('duplicateJsonKeys', () => {
  it('finds a key given twice in one object (JSON.parse keeps the last), in any object, escapes and all', () => {
    expect(duplicateJsonKeys('{"Ref": "shipment_reference", "Name": "to_name", "Ref" : "order_reference"}')).toEqual(['Ref']);
    expect(duplicateJsonKeys('{"columns": {"A\\"b": "x", "A\\u0022b": null}, "ignore_unknown": true}')).toEqual(['A"b']);
    // The same key in two objects, a value equal to a key, and strings in arrays are not duplicates.
    expect(duplicateJsonKeys('{"a": {"x": "a"}, "b": {"x": ["a", "a"]}, "c": "a:"}')).toEqual([]);
  });
});
