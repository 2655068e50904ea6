// Failures the API reports at send time (dotted field paths) are told in the file's own rows and columns.
import { describe, expect, it } from 'vitest';
import { existedWarning, fingerprint, locateField } from '../../../src/commands/create/bulk.js';

const labels: Record<string, string> = { weight: 'Carton Weight (g)', item_sku: 'Product Code', to_postcode: 'Zip' };
const labelFor = (c: string) => labels[c] ?? c;
// A shipment from rows 7, 8, 9: rows 7 and 8 are parcel 0, row 9 is parcel 1.
const result = { task: { key: 'S', rows: [7, 8, 9], input: { json: '{}', parcels: 2, rowParcels: [0, 0, 1] } }, index: 0, status: 'failed', attempts: 1 } as never;

describe('locateField', () => {
  it('points shipment fields at the first row, parcel and item fields at their parcel\'s first row', () => {
    expect(locateField(result, 'to_address.postcode', labelFor)).toEqual({ row: 7, column: 'Zip' });
    expect(locateField(result, 'delivery_service_key', labelFor)).toEqual({ row: 7, column: 'delivery_service_key' });
    expect(locateField(result, 'parcels.1.weight', labelFor)).toEqual({ row: 9, column: 'Carton Weight (g)' });
    expect(locateField(result, 'parcels.0.items.1.sku', labelFor)).toEqual({ row: 7, column: 'Product Code' });
    expect(locateField(result, 'parcels.0.custom_fields.fragile', labelFor)).toEqual({ row: 7, column: 'parcel_custom_fields.fragile' });
    expect(locateField(result, 'something_new', labelFor)).toEqual({ row: 7, column: 'something_new' });
  });

  it('points item fields at the item\'s own row when the item rows are known', () => {
    // Rows 7 and 8 are parcel 0 with an item each; row 9 is parcel 1 without items.
    const withItems = { task: { key: 'S', rows: [7, 8, 9], input: { json: '{}', parcels: 2, rowParcels: [0, 0, 1], itemRows: [[7, 8], []] } }, index: 0, status: 'failed', attempts: 1 } as never;
    expect(locateField(withItems, 'parcels.0.items.1.sku', labelFor)).toEqual({ row: 8, column: 'Product Code' });
    expect(locateField(withItems, 'parcels.0.items.0.item_value', labelFor)).toEqual({ row: 7, column: 'item_value' });
    // An item the rows do not know (or a parcel-level path) falls back to the parcel's first row.
    expect(locateField(withItems, 'parcels.0.items.5.sku', labelFor)).toEqual({ row: 7, column: 'Product Code' });
    expect(locateField(withItems, 'parcels.1.weight', labelFor)).toEqual({ row: 9, column: 'Carton Weight (g)' });
  });
});

describe('fingerprint', () => {
  it('is stable for equal text and differs for different text', () => {
    expect(fingerprint('{"a":1}')).toBe(fingerprint('{"a":1}'));
    expect(fingerprint('{"a":1}')).not.toBe(fingerprint('{"a":2}'));
    expect(fingerprint('')).toMatch(/^[0-9a-z]+$/);
  });
});

describe('existedWarning', () => {
  it('names up to five references and counts the rest; mentions labels only when they were written', () => {
    const w = existedWarning(['A', 'B', 'C', 'D', 'E', 'F', 'G'], 'labels');
    expect(w).toContain('7 shipment references were already on the service');
    expect(w).toContain('A, B, C, D, E, … (2 more).');
    expect(w).toContain('their existing labels were fetched into labels');
    expect(existedWarning(['A'])).not.toContain('labels were fetched');
  });
});
