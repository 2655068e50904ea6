import { describe, expect, it } from 'vitest';
import { parseSkuMapping, resolveSkuHeader } from '../../src/skus/header.js';

describe('resolveSkuHeader', () => {
  it('matches headers case-insensitively with spaces and hyphens as underscores, keeping custom field keys', () => {
    const r = resolveSkuHeader(['SKU', 'Product Name', 'gross-weight', 'custom_fields.Hazard_Class', '']);
    expect(r.problems).toEqual([]);
    expect(r.bindings.map((b) => b.column)).toEqual(['sku', 'product_name', 'gross_weight', 'custom_fields.Hazard_Class', null]);
  });

  it('names unknown headers with a suggestion, and ignores them from the data', () => {
    const r = resolveSkuHeader(['sku', 'prodct_name', 'colour']);
    expect(r.problems).toHaveLength(2);
    expect(r.problems[0]).toMatchObject({ row: 1, column: 'prodct_name' });
    expect(r.problems[0].message).toMatch(/did you mean product_name/);
    expect(r.bindings.map((b) => b.column)).toEqual(['sku', null, null]);
  });

  it('applies a --map file (exact or normalised names, null to ignore, ignore_unknown)', () => {
    const mapping = parseSkuMapping({ columns: { 'Item No': 'sku', Title: 'product name', Notes: null }, ignore_unknown: true });
    const r = resolveSkuHeader(['Item No', 'title', 'Notes', 'Whatever'], mapping);
    expect(r.problems).toEqual([]);
    expect(r.bindings.map((b) => b.column)).toEqual(['sku', 'product_name', null, null]);
    expect(r.warnings).toEqual(['ignoring unknown columns: Whatever']);
  });

  it('names a --map entry that matches no header of the file', () => {
    const mapping = parseSkuMapping({ columns: { 'Item No': 'sku', 'Gross Weight': 'gross_weight' }, ignore_unknown: true });
    const r = resolveSkuHeader(['Item No', 'Gross Weight (g)'], mapping);
    expect(r.problems).toEqual([{ column: '--map', message: '"Gross Weight" matches no column of the file (did you mean "Gross Weight (g)"?)' }]);
  });

  it('refuses a mapping to a column that does not exist', () => {
    expect(() => parseSkuMapping({ 'Item No': 'skew' })).toThrow(/"skew" is not a SKU column \(did you mean sku\?\)/);
    expect(() => parseSkuMapping([])).toThrow();
  });

  it('requires a sku column', () => {
    const r = resolveSkuHeader(['product_name']);
    expect(r.problems.map((p) => p.message)).toEqual(['the file needs a sku column']);
  });
});
