// A --file or --map that is not JSON is placed by line and column, whichever Node version says what.
import { describe, expect, it } from 'vitest';
import { jsonErrorOffset, jsonSyntaxMessage, lineAndColumn } from '../../src/util/json-error.js';

const refused = (text: string): unknown => {
  try {
    JSON.parse(text);
  } catch (e) {
    return e;
  }
  throw new Error(`JSON.parse took ${text}`);
};

describe('jsonSyntaxMessage', () => {
  const text = '{\n  "shipment_reference": "A",\n  "parcels": [{ "weight": 1000, }]\n}\n';
  // The "}" after "1000, " is where a property name was expected: line 3, column 33.
  const at = text.indexOf('}]');

  it('says the line and the column from Node 20\'s position alone, and from Node 24\'s, the same', async () => {
    expect(lineAndColumn(text, at)).toEqual({ line: 3, column: 33 });
    const node20 = new SyntaxError(`Expected double-quoted property name in JSON at position ${at}`);
    const node24 = new SyntaxError(`Expected double-quoted property name in JSON at position ${at} (line 3 column 33)`);
    expect(await jsonSyntaxMessage(node20, text)).toBe('line 3, column 33: Expected double-quoted property name');
    expect(await jsonSyntaxMessage(node24, text)).toBe('line 3, column 33: Expected double-quoted property name');
    expect(await jsonSyntaxMessage(new SyntaxError('Unexpected non-whitespace character after JSON at position 4 (line 2 column 2)'), '{}\n x')).toBe(
      'line 2, column 2: Unexpected non-whitespace character after JSON',
    );
    // And what this Node's JSON.parse says.
    expect(await jsonSyntaxMessage(refused(text), text)).toBe('line 3, column 33: Expected double-quoted property name');
  });

  it('finds the place of an unexpected character, which no Node version gives, instead of quoting the text', async () => {
    const bare = '{\n  "to_address": {\n    "name": Ada\n  }\n}';
    // What Node 20 and Node 24 both say: a stretch of the text, no position.
    expect(await jsonSyntaxMessage(new SyntaxError(`Unexpected token 'A', ..."  "name": Ada\n  }\n}" is not valid JSON`), bare)).toBe("line 3, column 13: Unexpected token 'A'");
    expect(await jsonSyntaxMessage(refused(bare), bare)).toBe("line 3, column 13: Unexpected token 'A'");
    expect(await jsonSyntaxMessage(refused('[1,]'), '[1,]')).toBe("line 1, column 4: Unexpected token ']'");
    expect(await jsonSyntaxMessage(refused('{"a":\n'), '{"a":\n')).toBe('line 2, column 1: Unexpected end of JSON input');
  });

  it('places the first token that cannot continue the text, for every way a file stops being JSON', async () => {
    // Offsets of the token jsonc-parser stops at: where the user has to look.
    const cases: Array<[string, number]> = [
      ['{"a":1,}', 7],
      ['{"a":1}x', 7],
      ['{"a" 1}', 5],
      ['[1 2]', 3],
      ["{'a':1}", 1],
      ['{"a":1}}', 7],
      ['\n\n  [true, fals]', 11],
      ['[1,]', 3],
      ['{"a":\n', 6],
      ['// a comment\n{}', 0],
    ];
    for (const [t, offset] of cases) expect(await jsonErrorOffset(t), t).toBe(offset);
    // Whatever JSON.parse refuses, jsonc-parser refuses too (so a place is always found).
    for (const t of ['{"a":"b\nc"}', '[1.]', '[-]', '[01]', '[1e]', '{"a":"\\x"}']) {
      expect(() => JSON.parse(t), t).toThrow();
      expect(await jsonErrorOffset(t), t).toBeGreaterThanOrEqual(0);
    }
    for (const ok of ['{}', ' [1, -2.5e+3, "a\\u00e9\\n", true, false, null, {"x": []}] ', '"s"', '0']) expect(await jsonErrorOffset(ok), ok).toBeUndefined();
    expect(await jsonSyntaxMessage(refused('\n\n  [true, fals]'), '\n\n  [true, fals]')).toBe("line 3, column 10: Unexpected token ']'");
  });
});
