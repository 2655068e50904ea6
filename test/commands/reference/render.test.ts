import { describe, expect, it } from 'vitest';
import { conditionsText, conditionText, countryText, dimensionsText, joinAddress } from '../../../src/commands/reference/render.js';
import { parseServiceFilter } from '../../../src/commands/reference/services.js';
import { UsageError } from '../../../src/errors.js';

describe('conditions', () => {
  it('renders documented triples and the object form, joined with "and"', () => {
    expect(conditionText(['Weight', '<=', '2000'])).toBe('Weight <= 2000');
    expect(conditionText({ field: 'Length', operator: '<', value: 60 })).toBe('Length < 60');
    expect(conditionsText([['Weight', '<=', '2000'], ['Length', '<', '60']])).toBe('Weight <= 2000 and Length < 60');
  });
  it('says "none" for no conditions', () => {
    expect(conditionsText([])).toBe('none');
    expect(conditionsText(null)).toBe('none');
  });
});

describe('small renderers', () => {
  it('joins address parts, skipping blanks', () => {
    expect(joinAddress(['1 High St', '', null, 'Leeds', undefined, 'LS1 1AA', 'GB'])).toBe('1 High St, Leeds, LS1 1AA, GB');
  });
  it('shows countries as codes', () => {
    expect(countryText({ code: 'GB', name: 'United Kingdom' })).toBe('GB');
    expect(countryText('FR')).toBe('FR');
    expect(countryText(null)).toBe('');
  });
  it('shows dimensions', () => {
    expect(dimensionsText(300, 200, 100)).toBe('300 × 200 × 100');
    expect(dimensionsText(null, null, null)).toBe('');
  });
});

describe('parseServiceFilter', () => {
  it('keeps only given flags, as numbers', () => {
    expect(parseServiceFilter({ weight: '1500', depth: ' 10 ' })).toEqual({ weight: 1500, depth: 10 });
    expect(parseServiceFilter({})).toEqual({});
  });
  it.each([['weight', '1.5'], ['length', '-3'], ['width', 'ten'], ['depth', '0'], ['weight', '']])('refuses --%s %j naming the flag', (flag, v) => {
    expect(() => parseServiceFilter({ [flag]: v })).toThrow(UsageError);
    expect(() => parseServiceFilter({ [flag]: v })).toThrow(`--${flag}`);
  });
});
