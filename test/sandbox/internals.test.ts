// Unit tests of the sandbox's building blocks: validation wording, option lists, regexes, item_handling,
// money and dates, routing of paths, the fault rate limiter.
import { describe, expect, it } from 'vitest';
import { countryCodeOf, countryObject, isCountryCode } from '../../src/sandbox/countries.js';
import { Faults } from '../../src/sandbox/faults.js';
import { addBusinessDays, dayOfYear, fmtDateTime, money, parseDateTime } from '../../src/sandbox/format.js';
import { Router } from '../../src/sandbox/router.js';
import { compileRegex } from '../../src/sandbox/routes/custom-fields.js';
import { normaliseItemHandling } from '../../src/sandbox/routes/skus.js';
import { Errors, checkForbidden, label } from '../../src/sandbox/validation.js';

describe('validation wording (Errors: Validation failure)', () => {
  it('shows underscores as spaces and keeps the dotted path', () => {
    expect(label('to_address.line_1')).toBe('to address.line 1');
    expect(label('parcels.0.packaging_type_key')).toBe('parcels.0.packaging type key');
  });

  it('the backslash/caret scan reports every offending string by path, at any depth', () => {
    const e = new Errors();
    checkForbidden(e, { a: 'ok', b: { c: ['x', 'y\\z'], d: 'p^q' }, n: 5, t: true, z: null });
    expect(Object.keys(e.data).sort()).toEqual(['b.c.1', 'b.d']);
  });
});

describe('custom field helpers (Validation Rules: options, regex)', () => {
  // Option lists: test/util/list-options.test.ts (the sandbox's parseOptions is that parser).
  it('compiles PCRE-style expressions with or without delimiters', () => {
    expect(compileRegex('/^[a-z]+$/i')!.test('ABC')).toBe(true);
    expect(compileRegex('[0-9]{3}')!.test('a123')).toBe(true);
    expect(compileRegex('([')).toBeNull();
  });
});

describe('item_handling (SKU)', () => {
  it('normalises the documented spellings, any case', () => {
    for (const v of ['1', 'True', 'y', 'Yes', 'P', 'PACKABLE', 1, true]) expect(normaliseItemHandling(v)).toBe('PACKABLE');
    for (const v of ['0', 'FALSE', 'n', 'No', 'nonpackable', 'Non-Packable', 'NON_PACKABLE', 0, false]) expect(normaliseItemHandling(v)).toBe('NON_PACKABLE');
    expect(normaliseItemHandling('sometimes')).toBeUndefined();
  });
});

describe('countries (Conventions: Country codes)', () => {
  it('knows ISO codes and full names', () => {
    expect(isCountryCode('GB')).toBe(true);
    expect(isCountryCode('UK')).toBe(false);
    expect(countryCodeOf('germany')).toBe('DE');
    expect(countryCodeOf('fr')).toBe('FR');
    expect(countryCodeOf('Narnia')).toBeUndefined();
    expect(countryObject('US')).toEqual({ code: 'US', name: 'United States' });
  });
});

describe('money and time formats (Conventions)', () => {
  it('formats minor units as 0.00 strings', () => {
    expect(money(0)).toBe('0.00');
    expect(money(5)).toBe('0.05');
    expect(money(1234)).toBe('12.34');
    expect(money(-150)).toBe('-1.50');
  });

  it('formats and parses timestamps as YYYY-MM-DD HH:mm:ss (UTC)', () => {
    expect(fmtDateTime(new Date('2024-05-21T13:24:12Z'))).toBe('2024-05-21 13:24:12');
    expect(parseDateTime('2024-02-30')).toBeNull();
    expect(parseDateTime('2024-05-21 25:00:00')).toBeNull();
    expect(parseDateTime('2024-05-21 13:24:12')!.toISOString()).toBe('2024-05-21T13:24:12.000Z');
  });

  it('counts business days over weekends, and the day of the year', () => {
    expect(addBusinessDays(new Date('2026-11-20T10:00:00Z'), 1).toISOString().slice(0, 10)).toBe('2026-11-23'); // Fri → Mon
    expect(dayOfYear(new Date('2026-01-01T00:00:00Z'))).toBe(1);
    expect(dayOfYear(new Date('2024-12-31T12:00:00Z'))).toBe(366);
  });
});

describe('router', () => {
  const r = new Router<null>()
    .add('GET', '/shipments/:ref/events', () => ({ status: 200, body: 'events' }))
    .add('POST', '/shipments/get-services', () => ({ status: 200, body: 'quote' }))
    .add('DELETE', '/shipments/:ref', () => ({ status: 200, body: 'cancel' }));

  it('matches params (decoded) and prefers the method that fits', () => {
    const m = r.match('GET', '/shipments/A%2FB/events');
    expect(m && 'params' in m && m.params).toEqual({ ref: 'A/B' });
    const q = r.match('POST', '/shipments/get-services');
    expect(q && 'handler' in q).toBe(true);
  });

  it('reports the allowed methods of a known path, and null for unknown paths', () => {
    expect(r.match('PUT', '/shipments/X')).toEqual({ allowed: ['DELETE'] });
    expect(r.match('GET', '/nothing/here/at/all')).toBeNull();
  });
});

describe('fault rate limiter', () => {
  it('allows rate_limit_per_s requests per one-second window, then 429 with Retry-After until the window ends', () => {
    const f = new Faults();
    f.set({ rate_limit_per_s: 2 });
    expect(f.decide(1000).kind).toBe('none');
    expect(f.decide(1100).kind).toBe('none');
    expect(f.decide(1200)).toEqual({ kind: 'limit', retryAfter: 1 });
    expect(f.decide(2000).kind).toBe('none');
  });

  it('{} clears everything (inactive)', () => {
    const f = new Faults();
    f.set({ fail_rate: 1 });
    expect(f.active).toBe(true);
    f.set({});
    expect(f.active).toBe(false);
  });
});
