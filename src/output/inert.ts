// Text from the API or a file (a tracking description, a custom field's name, an error message) shown on a
// terminal: a control character or escape sequence in it would be obeyed by the terminal — cursor moves that
// overwrite what was printed, a window title, OSC 52 writing the clipboard, OSC 8 links. Shown as escapes
// instead (\x1b), except colour (SGR: ESC [ … m), which our own output uses, and line breaks and tabs.
// Applied where text reaches a terminal (Output, main's error printing); pipes and files get the text as it is.

const UNSAFE = /\x1b\[[0-9;]*m|\r\n|[\x00-\x08\x0b-\x1f\x7f-\x9f]/g;
const DATA_UNSAFE = /\r\n|[\x00-\x08\x0b-\x1f\x7f-\x9f]/g;
const ANY_CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/;

const shown = (m: string): string => (m === '\r\n' ? '\n' : m.length > 1 ? m : `\\x${m.charCodeAt(0).toString(16).padStart(2, '0')}`);

/** The text with every control character but colour, tab and line break shown as an escape (\x1b, \x07). */
export function inert(text: string): string {
  if (!ANY_CONTROL.test(text)) return text;
  return text.replace(UNSAFE, shown);
}

/**
 * The same for text that is data alone (a table cell, an event's description, an error message), before our own
 * colour is put around it: its colour sequences too (`ESC[8m` hides all that follows, `ESC[31m` passes for our
 * red), since none of them are ours.
 */
export function inertData(text: string): string {
  if (!ANY_CONTROL.test(text)) return text;
  return text.replace(DATA_UNSAFE, shown);
}
