import { describe, expect, it } from 'vitest';
import { countryName, resolveCountry } from '../../src/csv/countries.js';

describe('resolveCountry', () => {
  it('accepts ISO alpha-2 codes in any case', () => {
    expect(resolveCountry('GB')).toEqual({ ok: true, code: 'GB' });
    expect(resolveCountry(' de ')).toEqual({ ok: true, code: 'DE' });
  });
  it('turns English names and common aliases into codes', () => {
    const cases: Array<[string, string]> = [
      ['United Kingdom', 'GB'], ['UK', 'GB'], ['Great Britain', 'GB'], ['England', 'GB'], ['USA', 'US'],
      ['United States', 'US'], ['United States of America', 'US'], ['Germany', 'DE'], ['Deutschland', 'DE'],
      ['the Netherlands', 'NL'], ['Holland', 'NL'], ['france', 'FR'], ['Viet Nam', 'VN'], ['Vietnam', 'VN'],
      ['South Korea', 'KR'], ['Republic of Korea', 'KR'], ['Côte d\'Ivoire', 'CI'], ['Cote d\'Ivoire', 'CI'],
      ['Czech Republic', 'CZ'], ['Czechia', 'CZ'], ['España', 'ES'], ['Ireland', 'IE'], ['U.K.', 'GB'], ['U.S.A.', 'US'],
      ['Democratic Republic of the Congo', 'CD'], ['Virgin Islands, British', 'VG'], ['Georgia', 'GE'],
    ];
    for (const [name, code] of cases) expect(resolveCountry(name), name).toEqual({ ok: true, code });
  });
  it('refuses names of more than one country, naming the candidates', () => {
    expect(resolveCountry('Korea')).toEqual({ ok: false, message: '"Korea" may be KR (South Korea) or KP (North Korea): write the two-letter code' });
    for (const name of ['Congo', 'virgin islands', 'Channel Islands']) expect(resolveCountry(name), name).toMatchObject({ ok: false, message: expect.stringContaining('write the two-letter code') });
  });
  it('refuses three-letter codes, suggesting the two-letter one', () => {
    expect(resolveCountry('GBR')).toEqual({ ok: false, message: 'must be a two-letter ISO 3166-1 country code, not "GBR" (did you mean GB?)' });
    expect(resolveCountry('fra')).toMatchObject({ ok: false, message: expect.stringContaining('did you mean FR?') });
  });
  it('refuses unassigned codes and unknown names', () => {
    expect(resolveCountry('XX')).toEqual({ ok: false, message: '"XX" is not an ISO 3166-1 two-letter country code' });
    expect(resolveCountry('Atlantis')).toMatchObject({ ok: false });
  });
  it('knows the English name of a code', () => {
    expect(countryName('fr')).toBe('France');
    expect(countryName('ZZ')).toBeUndefined();
  });
});
