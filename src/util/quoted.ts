// A value in double quotes, CSV style (`""` inside stands for one quote): shared by the --item/--parcel spec
// syntax and the sandbox's reading of a custom field's LIST options.

/**
 * Reads the quoted value whose opening quote is at `start`: the text, the index just past the closing quote,
 * and whether a closing quote was found (when not, the text runs to the end).
 */
export function readQuoted(text: string, start: number): { value: string; end: number; closed: boolean } {
  let value = '';
  let i = start + 1;
  while (i < text.length) {
    if (text[i] === '"') {
      if (text[i + 1] === '"') {
        value += '"';
        i += 2;
        continue;
      }
      return { value, end: i + 1, closed: true };
    }
    value += text[i++];
  }
  return { value, end: i, closed: false };
}
