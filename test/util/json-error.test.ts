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

  it('says the line and the column from Node 20\'s position alone, and from Node 24\'s, the same', () => {
    expect(lineAndColumn(text, at)).toEqual({ line: 3, column: 33 });
    const node20 = new SyntaxError(`Expected double-quoted property name in JSON at position ${at}`);
    const node24 = new SyntaxError(`Expected double-quoted property name in JSON at position ${at} (line 3 column 33)`);
    expect(jsonSyntaxMessage(node20, text)).toBe('line 3, column 33: Expected double-quoted property name');
    expect(jsonSyntaxMessage(node24, text)).toBe('line 3, column 33: Expected double-quoted property name');
    expect(jsonSyntaxMessage(new SyntaxError('Unexpected non-whitespace character after JSON at position 4 (line 2 column 2)'), '{}\n x')).toBe(
      'line 2, column 2: Unexpected non-whitespace character after JSON',
    );
    // And what this Node's JSON.parse says.
    expect(jsonSyntaxMessage(refused(text), text)).toBe('line 3, column 33: Expected double-quoted property name');
  });

  it('finds the place of an unexpected character, which no Node version gives, instead of quoting the text', () => {
    const bare = '{\n  "to_address": {\n    "name": Ada\n  }\n}';
    // What Node 20 and Node 24 both say: a stretch of the text, no position.
    expect(jsonSyntaxMessage(new SyntaxError(`Unexpected token 'A', ..."  "name": Ada\n  }\n}" is not valid JSON`), bare)).toBe("line 3, column 13: Unexpected token 'A'");
    expect(jsonSyntaxMessage(refused(bare), bare)).toBe("line 3, column 13: Unexpected token 'A'");
    expect(jsonSyntaxMessage(refused('[1,]'), '[1,]')).toBe("line 1, column 4: Unexpected token ']'");
    expect(jsonSyntaxMessage(refused('{"a":\n'), '{"a":\n')).toBe('line 2, column 1: Unexpected end of JSON input');
  });

  it('reads the text as JSON.parse does: where it gives a position, the same one', () => {
    const broken = ['{"a":1,}', '{"a":1', '{"a":1}x', '{"a":"b\nc"}', '[1.]', '[-]', '[01]', '[1e]', '{"a" 1}', '[1 2]', '{"a":"\\x"}', "{'a':1}", '{"a":1}}', '\n\n  [true, fals]'];
    for (const t of broken) {
      const given = /at position (\d+)/.exec((refused(t) as Error).message);
      if (given) expect(jsonErrorOffset(t), t).toBe(Number(given[1]));
      else expect(jsonErrorOffset(t), t).toBeGreaterThanOrEqual(0);
    }
    expect(jsonErrorOffset('\n\n  [true, fals]')).toBe(15);
    for (const ok of ['{}', ' [1, -2.5e+3, "a\\u00e9\\n", true, false, null, {"x": []}] ', '"s"', '0']) expect(jsonErrorOffset(ok)).toBeUndefined();
  });
});
