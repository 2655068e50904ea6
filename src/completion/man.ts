// The man page ship(1), generated from the command tree so every command and option of every release is in it.
import { flatten, type CommandSpec, type OptionSpec } from './tree.js';

/** Escapes text for roff: backslashes, and dots or quotes at the start of a line. */
export function roff(text: string): string {
  return text
    .replace(/\\/g, '\\e')
    .replace(/-/g, '\\-')
    // Break points after commas and slashes, so long flag values and URLs wrap instead of overflowing.
    .replace(/([,/])(?=\S)/g, '$1\\:')
    .split('\n')
    .map((l) => (/^[.']/.test(l) ? `\\&${l}` : l))
    .join('\n');
}

function optionItem(o: OptionSpec): string {
  const env = o.env ? ` (env: ${o.env})` : '';
  const choices = o.choices ? ` One of: ${o.choices.join(', ')}.` : '';
  const byDefault = o.defaultValue !== undefined ? ` Default: ${o.defaultValue}.` : '';
  return `.TP\n.B ${roff(o.flags)}\n${roff(o.description + env + (o.description.endsWith('.') ? '' : '.') + choices + byDefault)}`;
}

export interface ManPageInput {
  version: string;
  environment: string;
  exitCodes: string;
}

/** Parses "  NAME   description" lines (as in the help epilogues) into pairs. */
function pairs(block: string): Array<[string, string]> {
  return block
    .split('\n')
    .slice(1)
    .map((l) => l.trim())
    .filter(Boolean)
    .map((l) => {
      const m = l.match(/^(\S+)\s+(.*)$/);
      return m ? [m[1], m[2]] : [l, ''];
    });
}

/** The roff source of ship(1). */
export function manPage(root: CommandSpec, input: ManPageInput): string {
  const commands = flatten(root).filter((c) => c.path.length > 0);
  const out: string[] = [];
  out.push(`.TH SHIP 1 "" "ship ${input.version}" "User Commands"`);
  // Left-adjusted, no hyphenation: long URLs and flags in examples cannot be justified without warnings.
  out.push('.ad l', '.nh');
  out.push('.SH NAME', 'ship \\- command-line tool for the Parcel Shipping Service API v1.2');
  out.push('.SH SYNOPSIS', '.B ship', '[\\fIglobal options\\fR] \\fIcommand\\fR [\\fIoptions\\fR] [\\fIarguments\\fR]');
  for (const c of commands.filter((c) => c.subcommands.length === 0 || c.runnable)) {
    out.push('.br', `.B ship ${roff(c.path.join(' '))}`, roff(c.usage.replace(/\[options\]\s*/, '[options] ')));
  }
  out.push('.SH DESCRIPTION', roff(root.description));
  out.push(
    'Results go to standard output; progress, prompts, warnings and errors go to standard error.',
    'With \\fB\\-\\-json\\fR, standard output carries exactly one JSON document (bulk commands: one JSON object per line),',
    'and standard error carries JSON lines, one object per line: \\fB{"info":{"message":\\fR...\\fB}}\\fR for progress and success lines, \\fB{"warning":{"message":\\fR...\\fB}}\\fR, a bulk run\\(aqs \\fB{"summary":\\fR...\\fB}\\fR and \\fB{"error":\\fR...\\fB}\\fR (\\fB\\-\\-verbose\\fR traces stay text).',
    'Without a terminal, or with \\fBCI\\fR set, or with \\fB\\-\\-no\\-input\\fR, ship never prompts.',
    'Tables are boxed at a terminal, with one block of \\(lqheader  value\\(rq lines per row when the terminal is too narrow for all their columns, and tab-separated lines without headers otherwise.',
    'At a terminal, a spinner shows while the service or a printer is slow to answer or a large CSV file is being checked, and bulk commands show a progress bar;',
    '\\fB\\-\\-json\\fR, \\fB\\-\\-quiet\\fR, \\fB\\-\\-no\\-input\\fR and \\fBCI\\fR turn both off.',
  );
  out.push('.SH GLOBAL OPTIONS');
  for (const o of root.options) out.push(optionItem(o));
  out.push('.SH COMMANDS');
  for (const c of commands) {
    out.push(`.SS "ship ${roff(c.path.join(' '))}${c.usage ? ' ' + roff(c.usage) : ''}"`);
    if (c.aliases.length) out.push(`Alias: ${roff(c.aliases.join(', '))}.`, '.PP');
    out.push(roff(c.description));
    for (const o of c.options) out.push(optionItem(o));
    if (c.notes) out.push('.PP', '.nf', roff(c.notes), '.fi');
    if (c.examples.length) {
      out.push('.PP', 'Examples:', '.RS', '.nf');
      for (const e of c.examples) out.push(roff(e));
      out.push('.fi', '.RE');
    }
  }
  out.push('.SH ENVIRONMENT');
  for (const [name, text] of pairs(input.environment)) out.push(`.TP\n.B ${roff(name)}\n${roff(text)}`);
  out.push('.SH EXIT STATUS');
  for (const [code, text] of pairs(input.exitCodes)) out.push(`.TP\n.B ${roff(code)}\n${roff(text)}`);
  out.push('.SH EXAMPLES', '.nf');
  for (const e of root.examples) out.push(roff(e));
  out.push('.fi');
  out.push(
    '.SH FILES',
    'The config file (profiles, credentials; mode 0600) lives in \\fB$SHIP_CONFIG_DIR\\fR, or the platform config directory; \\fBship config path\\fR prints it.',
    '.SH SEE ALSO',
    'The README of the ship package; \\fBship completion\\fR for shell completion scripts.',
  );
  return out.join('\n') + '\n';
}
