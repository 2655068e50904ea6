import { describe, expect, it } from 'vitest';
import { escapeFormula, unescapeFormula } from '../../src/skus/escape.js';

describe('formula escaping', () => {
  it('prefixes values a spreadsheet would run as formulas', () => {
    expect(escapeFormula('=SUM(A1:A2)')).toBe("'=SUM(A1:A2)");
    expect(escapeFormula('+44 20')).toBe("'+44 20");
    expect(escapeFormula('-5')).toBe("'-5");
    expect(escapeFormula('@cmd')).toBe("'@cmd");
    expect(escapeFormula('\t=1')).toBe("'\t=1");
    expect(escapeFormula('plain')).toBe('plain');
    expect(escapeFormula("'quoted")).toBe("'quoted");
    expect(escapeFormula('')).toBe('');
  });

  it('is undone exactly by unescape, including values that already start with quotes', () => {
    const values = ['=1+2', "'=1+2", "''=x", "'plain", 'plain', '-', "'", "''", '@', 'a=b', '', "'-5", '\r'];
    for (const v of values) expect(unescapeFormula(escapeFormula(v))).toBe(v);
  });

  it('leaves unescaped user input alone on import', () => {
    expect(unescapeFormula('=x')).toBe('=x');
    expect(unescapeFormula("'abc")).toBe("'abc");
    expect(unescapeFormula('12')).toBe('12');
  });
});
