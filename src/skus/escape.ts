// Spreadsheet formula-injection escaping for exported text cells, and its exact inverse for import.
//
// A spreadsheet runs a cell that starts with `=`, `+`, `-`, `@` (and, in some programs, a tab or a carriage
// return) as a formula. Export prefixes such text with `'`, which spreadsheets show as plain text. So that
// export → import changes nothing, the escaping is a bijection: one `'` is added to every value that matches
// /^'*[=+\-@\t\r]/ (including values that already start with quotes before such a character), and import
// removes exactly one `'` from every value that matches /^'+[=+\-@\t\r]/. A value like `'abc` is left alone
// both ways.
//
// Numeric and boolean columns are never escaped: export writes them from JSON numbers, so `-5` cannot be a
// formula and stays `-5`. Import still accepts `'-5` in a numeric column (a spreadsheet may have kept the
// quote), and reads it as -5.

const NEEDS_ESCAPE = /^'*[=+\-@\t\r]/;
const ESCAPED = /^'+[=+\-@\t\r]/;

/** Escapes a text cell for export so a spreadsheet shows it as text instead of running it as a formula. */
export function escapeFormula(value: string): string {
  return NEEDS_ESCAPE.test(value) ? `'${value}` : value;
}

/** Undoes escapeFormula on an imported cell (exact inverse; unescaped input passes through unchanged). */
export function unescapeFormula(value: string): string {
  return ESCAPED.test(value) ? value.slice(1) : value;
}
