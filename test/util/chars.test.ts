// Characters as the API document counts them ("up to N characters"): code points, not UTF-16 units.
import { describe, expect, it } from 'vitest';
import { charCount, longerThan } from '../../src/util/chars.js';

describe('charCount / longerThan', () => {
  it('counts a character outside the BMP (emoji, rare CJK) once, and a lone surrogate once', () => {
    expect(charCount('')).toBe(0);
    expect(charCount('abc')).toBe(3);
    expect(charCount('Zoë 中')).toBe(5);
    expect(charCount('😀😀')).toBe(2);
    expect(charCount('𠀀x')).toBe(2);
    expect(charCount('\uD83Dx')).toBe(2);
    expect(charCount('x\uDE00')).toBe(2);
    expect(charCount('\uD83D')).toBe(1);
    expect(longerThan('😀'.repeat(5), 5)).toBe(false);
    expect(longerThan('😀'.repeat(6), 5)).toBe(true);
    expect(longerThan('abcde', 5)).toBe(false);
    expect(longerThan('abcdef', 5)).toBe(true);
  });
});
