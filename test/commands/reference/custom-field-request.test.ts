import { describe, expect, it } from 'vitest';
import { buildCustomFieldRequest, encodeOptionsList, parseOptionsList } from '../../../src/commands/reference/custom-field-request.js';
import { CustomFieldRequestSchema } from '../../../src/api/schemas.js';
import { UsageError } from '../../../src/errors.js';

const base = { name: 'Gift message', key: 'gift_message', entity: 'shipment', dataType: 'text' };

describe('buildCustomFieldRequest', () => {
  it('builds a TEXT field with length and regex rules, enums upper-cased', () => {
    const body = buildCustomFieldRequest({ ...base, required: true, minLength: '2', maxLength: '200', regex: '[A-Za-z ]+$', defaultValue: 'Hi' });
    expect(body).toEqual({
      name: 'Gift message',
      key: 'gift_message',
      entity: 'SHIPMENT',
      data_type: 'TEXT',
      default_value: 'Hi',
      data_validation_rules: { is_required: true, min_length: 2, max_length: 200, regex: '[A-Za-z ]+$' },
    });
    expect(CustomFieldRequestSchema.safeParse(body).success).toBe(true);
  });

  it('builds LIST options in the API form and checks the default against them', () => {
    const body = buildCustomFieldRequest({ ...base, dataType: 'LIST', options: 'Red, Green ,Blue', defaultValue: 'Green' });
    expect(body.data_validation_rules).toEqual({ options: '"Red","Green","Blue"' });
    expect(() => buildCustomFieldRequest({ ...base, dataType: 'LIST', options: 'Red,Green', defaultValue: 'Pink' })).toThrow(/not one of --options/);
    expect(() => buildCustomFieldRequest({ ...base, dataType: 'LIST' })).toThrow(/LIST needs --options/);
  });

  it('builds NUMERIC rules and checks values against numeric type and range', () => {
    const body = buildCustomFieldRequest({ ...base, dataType: 'numeric', numericType: 'int', minValue: '1', maxValue: '40', defaultValue: '2' });
    expect(body.data_validation_rules).toEqual({ numeric_type: 'INT', min_value: 1, max_value: 40 });
    expect(() => buildCustomFieldRequest({ ...base, dataType: 'NUMERIC', numericType: 'INT', minValue: '1.5' })).toThrow(/--min-value.*whole number/);
    expect(() => buildCustomFieldRequest({ ...base, dataType: 'NUMERIC', minValue: '5', maxValue: '1' })).toThrow(/greater than --max-value/);
    expect(() => buildCustomFieldRequest({ ...base, dataType: 'NUMERIC', maxValue: '10', defaultValue: '11' })).toThrow(/outside/);
    expect(() => buildCustomFieldRequest({ ...base, dataType: 'NUMERIC', numericType: 'FLOAT' })).toThrow(/--numeric-type.*INT, DECIMAL/);
    expect(() => buildCustomFieldRequest({ ...base, dataType: 'NUMERIC', minValue: '1.234' })).toThrow(/2 decimal places/);
  });

  it.each([
    ['minLength', '5', 'NUMERIC', '--min-length applies only to --data-type TEXT'],
    ['regex', 'x', 'LIST', '--regex applies only to --data-type TEXT'],
    ['options', 'a,b', 'TEXT', '--options applies only to --data-type LIST'],
    ['numericType', 'INT', 'TEXT', '--numeric-type applies only to --data-type NUMERIC'],
    ['maxValue', '3', 'BOOLEAN', '--max-value applies only to --data-type NUMERIC'],
  ])('refuses --%s for the wrong data type', (flag, value, dataType, message) => {
    expect(() => buildCustomFieldRequest({ ...base, dataType, options: dataType === 'LIST' ? 'a' : undefined, [flag]: value })).toThrow(message);
  });

  it('checks enums, sources and their companions', () => {
    expect(() => buildCustomFieldRequest({ ...base, entity: 'ORDER' })).toThrow(/--entity: "ORDER" is not one of SHIPMENT, PARCEL, CONTACT, SKU/);
    expect(() => buildCustomFieldRequest({ ...base, dataType: 'DATE' })).toThrow(/--data-type/);
    expect(() => buildCustomFieldRequest({ ...base, source: 'GUESS' })).toThrow(/--source/);
    expect(() => buildCustomFieldRequest({ ...base, source: 'MAPPED' })).toThrow(/needs --mapped-to/);
    expect(() => buildCustomFieldRequest({ ...base, mappedTo: 'x' })).toThrow(/only applies with --source MAPPED/);
    expect(() => buildCustomFieldRequest({ ...base, source: 'FIXED' })).toThrow(/needs --default-value/);
    expect(buildCustomFieldRequest({ ...base, source: 'mapped', mappedTo: 'order_reference' })).toMatchObject({ source: 'MAPPED', mapped_to: 'order_reference' });
    expect(() => buildCustomFieldRequest({ ...base, dataType: 'BOOLEAN', defaultValue: 'maybe' })).toThrow(/not a boolean/);
    expect(() => buildCustomFieldRequest({ ...base, name: '  ' })).toThrow(/--name must not be empty/);
    expect(() => buildCustomFieldRequest({ ...base, name: 'a^b' })).toThrow(/--name.*caret/);
    // The API's text ban covers regexes too; say so rather than let the server refuse it.
    let err: UsageError | undefined;
    try {
      buildCustomFieldRequest({ ...base, regex: '^\\d+$' });
    } catch (e) {
      err = e as UsageError;
    }
    expect(err?.message).toMatch(/--regex/);
    expect(err?.hint).toMatch(/regular expressions included/);
    expect(() => buildCustomFieldRequest({ ...base, minLength: '5', maxLength: '2' })).toThrow(UsageError);
    expect(() => buildCustomFieldRequest({ ...base, maxLength: '2', defaultValue: 'long' })).toThrow(/longer than --max-length/);
  });
});

describe('options lists', () => {
  it('parses plain and quoted forms', () => {
    expect(parseOptionsList('a, b,c')).toEqual(['a', 'b', 'c']);
    expect(parseOptionsList('"Red","Dark, blue", "Say ""hi"""')).toEqual(['Red', 'Dark, blue', 'Say "hi"']);
  });
  it('reads a CSV-style mix of plain and quoted choices: a quoted one keeps its commas', () => {
    expect(parseOptionsList('Red,"Green, light",Blue')).toEqual(['Red', 'Green, light', 'Blue']);
    expect(parseOptionsList('"Dark, blue", Red')).toEqual(['Dark, blue', 'Red']);
    expect(parseOptionsList('12" pizza,14" pizza')).toEqual(['12" pizza', '14" pizza']);
    expect(encodeOptionsList(parseOptionsList('Red,"Green, light",Blue'))).toBe('"Red","Green, light","Blue"');
  });
  it('refuses empty, repeated and malformed lists', () => {
    for (const bad of ['a,,b', 'a,', 'a,a', '"a', '"a" "b"', 'a,"b" c', 'a,"b']) expect(() => parseOptionsList(bad)).toThrow(UsageError);
  });
  it('round-trips through the API form', () => {
    const choices = ['Red', 'Dark, blue', 'Say "hi"'];
    expect(parseOptionsList(encodeOptionsList(choices))).toEqual(choices);
  });
});
