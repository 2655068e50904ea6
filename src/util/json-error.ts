// Where a file given as JSON (--file, --map) stops being JSON, as a line and a column on every Node version.

/**
 * What JSON.parse refused in `text`, as "line L, column C: reason". Node 20 says at most a character position
 * ("… in JSON at position 41"), Node 24 adds "(line 3 column 8)", and neither places an unexpected character
 * ("Unexpected token 'x', "…" is not valid JSON", quoting a stretch of the text instead): the position is then
 * found by reading the text with jsonc-parser (jsonErrorOffset). Lines and columns count from 1.
 */
export async function jsonSyntaxMessage(err: unknown, text: string): Promise<string> {
  const message = err instanceof Error ? err.message : String(err);
  const reason = message
    .replace(/(?: in JSON)? at position \d+(?: \(line \d+ column \d+\))?$/, '')
    .replace(/, (?:\.\.\.)?"[\s\S]*"(?:\.\.\.)? is not valid JSON$/, '');
  const given = /at position (\d+)/.exec(message);
  const offset = given ? Number(given[1]) : /^Unexpected end of JSON input/.test(message) ? text.length : await jsonErrorOffset(text);
  if (offset === undefined) return reason;
  const { line, column } = lineAndColumn(text, offset);
  return `line ${line}, column ${column}: ${reason}`;
}

/** The 1-based line and column of the character at `offset` (a column counts characters, a tab as one). */
export function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, Math.min(offset, text.length));
  let line = 1;
  let lineStart = 0;
  for (let i = before.indexOf('\n'); i >= 0; i = before.indexOf('\n', i + 1)) {
    line++;
    lineStart = i + 1;
  }
  return { line, column: before.length - lineStart + 1 };
}

/**
 * Where `text` stops being JSON, as jsonc-parser (VS Code's JSON scanner) reads it in strict mode (no comments, no
 * trailing commas): the offset of the first token that cannot continue it (the text's length when it ends too
 * soon), or undefined when it is JSON. Loaded only for a file that is not JSON.
 */
export async function jsonErrorOffset(text: string): Promise<number | undefined> {
  // Its ES module build (the package's main is a UMD build that loads its parts with require(), which a bundle cannot follow).
  const { parse } = await import('jsonc-parser/lib/esm/main.js');
  const errors: Array<{ offset: number }> = [];
  parse(text, errors as Parameters<typeof parse>[1], { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false });
  return errors[0]?.offset;
}
