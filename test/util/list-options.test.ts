// The LIST options reading shared by the CSV check and the sandbox: both see the same choices.
import { describe, expect, it } from 'vitest';
import { parseListOptions } from '../../src/util/list-options.js';
import { parseOptions } from '../../src/sandbox/routes/custom-fields.js';
import { ruleBroken } from '../../src/csv/custom-field-rules.js';

describe('parseListOptions', () => {
  it('reads quoted and plain choices', () => {
    expect(parseListOptions('"a","b, c","say ""hi"""')).toEqual(['a', 'b, c', 'say "hi"']);
    expect(parseListOptions('red, green ,blue')).toEqual(['red', 'green', 'blue']);
    expect(parseListOptions('')).toEqual([]);
  });

  it('is the sandbox\'s reading, and the CSV check accepts exactly its choices', () => {
    expect(parseOptions).toBe(parseListOptions);
    const def = { key: 'colour', data_type: 'LIST', source: 'DIRECT', data_validation_rules: { options: '"Dark, blue","Red"' } } as never;
    expect(ruleBroken(def, 'Dark, blue')).toBeUndefined();
    expect(ruleBroken(def, 'Dark')).toMatch(/not one of the choices/);
  });
});
