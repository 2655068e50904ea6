// The run-level fields (--format, --print…) added to a validated body's JSON text without parsing it again.
import { describe, expect, it } from 'vitest';
import { extrasAppender } from '../../../src/commands/create/bulk.js';
import { setPath } from '../../../src/shipment-input/build.js';

const slow = (json: string, extra: Array<{ path: string; value: unknown }>) => {
  const body = JSON.parse(json) as Record<string, unknown>;
  for (const e of extra) setPath(body, e.path, e.value);
  return JSON.stringify(body);
};

describe('extrasAppender', () => {
  const extra = [
    { path: 'format', value: 'ZPL' },
    { path: 'print_labels', value: true },
    { path: 'print_to_user', value: 'Dock "3"' },
  ];

  it('gives exactly the text that parsing, setting the fields and serialising gives', () => {
    const append = extrasAppender(extra);
    // The texts are JSON.stringify's own, as the loader keeps them.
    for (const body of [
      { shipment_reference: 'A-1', parcels: [{ weight: 500, items: [{ sku: 'X' }] }] },
      { shipment_reference: 'é \u2028 "q" \\', to_address: { name: 'x' } },
      { a: 1 },
    ]) {
      const json = JSON.stringify(body);
      expect(append(json)).toBe(slow(json, extra));
    }
  });

  it('declines (slow path) when a key of the fields already appears, or the text is not an object', () => {
    const append = extrasAppender(extra);
    expect(append('{"shipment_reference":"A","format":"PDF"}')).toBeUndefined();
    expect(append('{"custom_fields":{"format":"x"}}')).toBeUndefined();
    expect(append('{}')).toBeUndefined();
    expect(append('[1,2]')).toBeUndefined();
    // A value that merely mentions the key, escaped inside a string, is no obstacle.
    const tricky = '{"shipment_reference":"say \\"format\\": no"}';
    expect(append(tricky)).toBe(slow(tricky, extra));
  });

  it('declines nested paths (setPath would have to create objects)', () => {
    expect(extrasAppender([{ path: 'a.b', value: 1 }])('{"x":1}')).toBeUndefined();
  });
});
