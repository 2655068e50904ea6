// The --parcel/--item spec syntax and the problems of flags, reported all at once with the flag that has them.
import { describe, expect, it } from 'vitest';
import type { InputProblem } from '../../src/errors.js';
import { draftFromFlags, parseSpec } from '../../src/shipment-input/flags.js';

describe('parseSpec', () => {
  it('reads key=value pairs; a value in double quotes keeps its commas, "" is a quote', () => {
    expect(parseSpec('weight=1200,length=30', '--parcel')).toEqual([['weight', '1200'], ['length', '30']]);
    expect(parseSpec('description="Mug, red",qty=2', '--item')).toEqual([['description', 'Mug, red'], ['qty', '2']]);
    expect(parseSpec('description="say ""hi""",qty=2', '--item')).toEqual([['description', 'say "hi"'], ['qty', '2']]);
    expect(parseSpec('weight=1, ,length=2,', '--parcel')).toEqual([['weight', '1'], ['length', '2']]);
    expect(parseSpec('note=a=b', '--item')).toEqual([['note', 'a=b']]);
  });

  it('a quote inside a value is part of it: 12" vinyl does not swallow the rest of the spec', () => {
    expect(parseSpec('description=12" vinyl,quantity=1,value=3', '--item')).toEqual([['description', '12" vinyl'], ['quantity', '1'], ['value', '3']]);
  });

  it("keeps a custom field's own key as written (only the custom_fields. or cf. prefix is normalised)", () => {
    expect(parseSpec('Weight=1,Custom-Fields.Gift_Note=x,cf.HS-Code=2', '--parcel')).toEqual([['weight', '1'], ['custom_fields.Gift_Note', 'x'], ['custom_fields.HS-Code', '2']]);
    expect(() => parseSpec('cf.a=1,custom_fields.a=2', '--parcel')).toThrow(/custom_fields.a is given twice/);
  });

  it('refuses an unclosed quote, a part without =, a missing key and a key given twice', () => {
    expect(() => parseSpec('description="Mug, red,qty=2', '--item')).toThrow(/the quote that opens description's value is not closed/);
    expect(() => parseSpec('weight', '--parcel')).toThrow(/"weight" is not key=value/);
    expect(() => parseSpec('=5', '--parcel')).toThrow(/has no key/);
    expect(() => parseSpec('weight=100,weight=200', '--parcel')).toThrow(/weight is given twice/);
  });
});

describe('draftFromFlags', () => {
  it('collects every problem of the flags, each with its flag, instead of stopping at the first', () => {
    const problems: InputProblem[] = [];
    draftFromFlags({ parcel: ['weight=100,colour=red', 'weight=2,weight=3'], item: ['sku=A,parcel=3', 'description="open'], customField: [' =x', 'a=1', 'a=2'] }, problems);
    expect(problems.map((p) => p.column)).toEqual(['--custom-field', '--custom-field a', '--parcel #1', '--parcel #2', '--item #1 parcel', '--item #2']);
    expect(problems.find((p) => p.column === '--item #1 parcel')?.message).toBe('parcel=3 does not exist (there are 2)');
  });

  it('--parcel custom_fields.KEY=value sets that parcel custom field, named after its flag in messages', () => {
    const problems: InputProblem[] = [];
    const draft = draftFromFlags({ reference: 'R1', parcel: ['weight=500,custom_fields.fragile=true', 'weight=300,cf.declared_value="12.50"', 'weight=1,cf.=x'] }, problems);
    expect(draft.parcels[0].cells.get('parcel_custom_fields.fragile')).toEqual({ value: 'true', column: '--parcel #1 custom_fields.fragile' });
    expect(draft.parcels[1].cells.get('parcel_custom_fields.declared_value')?.value).toBe('12.50');
    expect(draft.parcels[0].cells.has('parcel_custom_fields.declared_value')).toBe(false);
    expect(problems).toEqual([{ column: '--parcel #3', message: `"weight=1,cf.=x": custom_fields. needs the field's key (custom_fields.KEY=value)` }]);
  });
});
