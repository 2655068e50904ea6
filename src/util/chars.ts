// "Up to N characters" in the API document counts characters (Unicode code points), not JavaScript's UTF-16
// units: `.length` counts an emoji or a rare CJK character as two, which would halve a limit for such text.

/** The characters (code points) of `s`; a lone surrogate counts as one. */
export function charCount(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length - 1; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n--;
        i++;
      }
    }
  }
  return n;
}

/** `s` has more than `max` characters (no count made when its UTF-16 length already says not). */
export function longerThan(s: string, max: number): boolean {
  return s.length > max && charCount(s) > max;
}
