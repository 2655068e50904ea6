// Where a file given as JSON (--file, --map) stops being JSON, as a line and a column on every Node version.

/**
 * What JSON.parse refused in `text`, as "line L, column C: reason". Node 20 says at most a character position
 * ("… in JSON at position 41"), Node 24 adds "(line 3 column 8)", and neither places an unexpected character
 * ("Unexpected token 'x', "…" is not valid JSON", quoting a stretch of the text instead): the position is then
 * found by reading the text (jsonErrorOffset). Lines and columns count from 1.
 */
export function jsonSyntaxMessage(err: unknown, text: string): string {
  const message = err instanceof Error ? err.message : String(err);
  const reason = message
    .replace(/(?: in JSON)? at position \d+(?: \(line \d+ column \d+\))?$/, '')
    .replace(/, (?:\.\.\.)?"[\s\S]*"(?:\.\.\.)? is not valid JSON$/, '');
  const given = /at position (\d+)/.exec(message);
  const offset = given ? Number(given[1]) : /^Unexpected end of JSON input/.test(message) ? text.length : jsonErrorOffset(text);
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

/** Thrown inside jsonErrorOffset where the text stops being JSON. */
class NotJsonAt {
  constructor(readonly offset: number) {}
}

/**
 * Where `text` stops being JSON (RFC 8259, as JSON.parse reads it): the offset of the first character that
 * cannot continue it (the text's length when it ends too soon), or undefined when it is JSON (or nested too
 * deep to follow).
 */
export function jsonErrorOffset(text: string): number | undefined {
  let i = 0;
  const fail = (): never => {
    throw new NotJsonAt(i);
  };
  const space = () => {
    while (i < text.length && (text[i] === ' ' || text[i] === '\t' || text[i] === '\n' || text[i] === '\r')) i++;
  };
  const digits = () => {
    const start = i;
    while (text[i] >= '0' && text[i] <= '9') i++;
    if (i === start) fail();
  };
  const string = () => {
    i++; // the opening quote
    for (;;) {
      const c = text[i];
      if (c === undefined || c < ' ') fail();
      if (c === '"') {
        i++;
        return;
      }
      if (c !== '\\') {
        i++;
        continue;
      }
      const e = text[i + 1];
      if (e !== undefined && '"\\/bfnrt'.includes(e)) i += 2;
      else if (e === 'u' && /^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) i += 6;
      else {
        i++;
        fail();
      }
    }
  };
  const value = (): void => {
    space();
    const c = text[i];
    if (c === '{') {
      i++;
      space();
      if (text[i] === '}') {
        i++;
        return;
      }
      for (;;) {
        space();
        if (text[i] !== '"') fail();
        string();
        space();
        if (text[i] !== ':') fail();
        i++;
        value();
        space();
        if (text[i] === ',') i++;
        else if (text[i] === '}') {
          i++;
          return;
        } else fail();
      }
    }
    if (c === '[') {
      i++;
      space();
      if (text[i] === ']') {
        i++;
        return;
      }
      for (;;) {
        value();
        space();
        if (text[i] === ',') i++;
        else if (text[i] === ']') {
          i++;
          return;
        } else fail();
      }
    }
    if (c === '"') return string();
    if (c === '-' || (c >= '0' && c <= '9')) {
      if (c === '-') i++;
      if (text[i] === '0') i++;
      else digits();
      if (text[i] === '.') {
        i++;
        digits();
      }
      if (text[i] === 'e' || text[i] === 'E') {
        i++;
        if (text[i] === '+' || text[i] === '-') i++;
        digits();
      }
      return;
    }
    const literal = c === 't' ? 'true' : c === 'f' ? 'false' : c === 'n' ? 'null' : undefined;
    if (literal === undefined) fail();
    // Character by character, so that "tru}" stops at the "}", where JSON.parse does.
    for (const ch of literal!) {
      if (text[i] !== ch) fail();
      i++;
    }
  };
  try {
    value();
    space();
    if (i < text.length) fail();
    return undefined;
  } catch (e) {
    if (e instanceof NotJsonAt) return e.offset;
    return undefined; // nested too deep for the call stack: no position, V8's message alone
  }
}
