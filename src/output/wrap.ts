// Help text fitted to the terminal: the epilogues are written for about 110 columns, and a terminal narrower
// than that would cut their lines mid-word back at the margin.
import { cellWidth, displayWidth } from './width.js';

const LABELLED = /^(\s*\S+(?: \S+)?\s{2,})\S/;
const indentOf = (line: string): number => /^\s*/.exec(line)![0].length;
const isExample = (line: string): boolean => line.trimStart().startsWith('ship ');

/**
 * `text` fitted to `columns`, broken between words. Only a block with a line wider than the terminal changes:
 * a paragraph (lines of one indentation) is reflowed as one; a `label   description` row (options, environment
 * variables, exit codes, CSV columns) with its continuation lines is reflowed under its description; an example
 * command (`ship …`) continues 4 further in. Lines with escape sequences are left as they are.
 */
export function wrapHelpText(text: string, columns: number): string {
  const width = columns - 1;
  if (width < 30) return text;
  const lines = text.split('\n');
  const out: string[] = [];
  for (let i = 0; i < lines.length; ) {
    const line = lines[i];
    if (!line.trim() || line.includes('\x1b')) {
      out.push(line);
      i++;
      continue;
    }
    if (isExample(line)) {
      out.push(...(displayWidth(line) <= width ? [line] : layout(line.slice(0, indentOf(line)), line, indentOf(line) + 4, width, true)));
      i++;
      continue;
    }
    const labelled = LABELLED.exec(line);
    // The block: this line and the ones that continue it (same text column, not a row or example of their own).
    const column = labelled ? labelled[1].length : indentOf(line);
    let end = i + 1;
    while (end < lines.length) {
      const next = lines[end];
      if (!next.trim() || next.includes('\x1b') || indentOf(next) !== column || isExample(next) || LABELLED.test(next)) break;
      end++;
    }
    const block = lines.slice(i, end);
    if (block.every((l) => displayWidth(l) <= width)) out.push(...block);
    else {
      const prefix = labelled ? labelled[1] : line.slice(0, column);
      const words = block.map((l, k) => (k === 0 ? l.slice(prefix.length) : l.trim())).join(' ');
      out.push(...layout(prefix, prefix + words, width - column < 20 ? indentOf(line) : column, width));
    }
    i = end;
  }
  return out.join('\n');
}

/**
 * `prefix` then the words of `line` after it, in lines of at most `width`, continuing `hang` cells in; with
 * `quoted`, a "quoted argument" of a command counts as one word.
 */
function layout(prefix: string, line: string, hang: number, width: number, quoted = false): string[] {
  const rest = line.slice(prefix.length);
  const words = quoted ? (rest.match(/(?:"[^"]*"|\S)+/g) ?? []) : rest.split(/ +/).filter(Boolean);
  const lines = fillWords(words, width - hang, width - displayWidth(prefix));
  if (lines.length === 0) return [prefix];
  return lines.map((l, k) => (k === 0 ? prefix : ' '.repeat(hang)) + l);
}

/**
 * Words as lines of at most `width` terminal cells (the first line `first`), broken between words; a word
 * longer than a line keeps a line of its own. Colour codes take no cells.
 */
export function fillWords(words: readonly string[], width: number, first = width): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of words) {
    const room = lines.length ? width : first;
    if (line && cellWidth(line) + 1 + cellWidth(word) > room) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(line);
  return lines;
}

/**
 * One line of a message fitted to a terminal `width`: broken between words, its first line keeping its own
 * leading spaces, the others starting with `indent`. A word longer than a line keeps a line of its own (the
 * terminal wraps it); colour codes take no cells. Unchanged when it fits, or on a terminal narrower than 20
 * cells (the terminal wraps it as it can).
 */
export function wrapMessageLine(line: string, width: number, indent: string): string {
  if (width < 20 || cellWidth(line) <= width) return line;
  const lead = /^ */.exec(line)![0];
  const words = line.slice(lead.length).split(/ +/).filter(Boolean);
  return fillWords(words, width - indent.length, width - lead.length)
    .map((l, k) => (k === 0 ? lead : indent) + l)
    .join('\n');
}
