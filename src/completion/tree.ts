// A plain description of the commander tree, the single source for completions and the man page.
import type { Argument, Command, Option } from 'commander';
import { completionValues } from './values.js';

/** One option as shells and the man page need it. */
export interface OptionSpec {
  flags: string;
  long?: string;
  short?: string;
  description: string;
  takesValue: boolean;
  valueName?: string;
  choices?: string[];
  /** The value is a file or directory path (complete with file names). */
  path: boolean;
  env?: string;
  /** The value used when the option is not given (as help shows it), for options that take one. */
  defaultValue?: string;
}

/** One positional argument as shells need it. */
export interface ArgumentSpec {
  name: string;
  /** Values to offer (commander's choices, or those marked with completeWith). */
  choices?: string[];
  /** The value is a file path (complete with file names). */
  path: boolean;
  /** Takes the rest of the words (refs...). */
  variadic: boolean;
}

/** One command and its subcommands. */
export interface CommandSpec {
  /** Full path from the root, e.g. ["containers", "create"]; empty for the root. */
  path: string[];
  name: string;
  aliases: string[];
  usage: string;
  description: string;
  options: OptionSpec[];
  /** Its positional arguments, in order. */
  args: ArgumentSpec[];
  subcommands: CommandSpec[];
  /** Lines of the "Examples:" section of the command's help, without indentation. */
  examples: string[];
  /** The full help text (including text added after it). */
  help: string;
  /** The text added after the options (notes, CSV columns, JSON shapes…), without its Examples section. */
  notes: string;
  /** Runs on its own too (not only a group of subcommands), e.g. `ship custom-fields [ref]`. */
  runnable: boolean;
}

// A value named like a path (file, dir…) or a file of some kind (sku.json).
const PATH_VALUE = /^(file|path|dir|directory|csv|json|out|output|state)|\.(json|csv|pdf|txt|zpl|png)$/i;

function optionSpec(opt: Option): OptionSpec {
  const takesValue = Boolean(opt.required || opt.optional);
  const valueName = opt.flags.match(/[<[]([^>\]]+)[>\]]/)?.[1];
  return {
    flags: opt.flags,
    long: opt.long ?? undefined,
    short: opt.short ?? undefined,
    description: opt.description,
    takesValue,
    valueName,
    choices: opt.argChoices ? [...opt.argChoices] : completionValues(opt) ? [...completionValues(opt)!] : undefined,
    path: takesValue && valueName !== undefined && PATH_VALUE.test(valueName),
    env: opt.envVar,
    defaultValue: takesValue && !opt.negate && opt.defaultValue !== undefined ? (opt.defaultValueDescription ?? String(opt.defaultValue)) : undefined,
  };
}

function argumentSpec(arg: Argument): ArgumentSpec {
  const marked = completionValues(arg);
  return {
    name: arg.name(),
    choices: arg.argChoices ? [...arg.argChoices] : marked ? [...marked] : undefined,
    path: PATH_VALUE.test(arg.name()),
    variadic: arg.variadic,
  };
}

/** Captures a command's full help text, including addHelpText('after') sections, and commander's own part of it. */
function helpText(cmd: Command): { help: string; own: string } {
  let text = '';
  let own = '';
  const saved = cmd.configureOutput();
  cmd.configureOutput({ ...saved, writeOut: (s: string) => (text += s), getOutHelpWidth: () => 100, getOutHasColors: () => false } as never);
  try {
    cmd.outputHelp();
    own = cmd.helpInformation({ error: false });
  } finally {
    cmd.configureOutput(saved);
  }
  return { help: text, own };
}

/** What addHelpText('after') added: the full help past commander's own part, without its Examples section. */
function notesOf(help: string, own: string): string {
  const after = help.startsWith(own) ? help.slice(own.length) : '';
  return after
    .replace(/(^|\n)Examples?:\n(?:[ \t]+.*(?:\n|$))+/, '$1')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

function examplesOf(help: string): string[] {
  const m = help.match(/\nExamples?:\n((?:[ \t]+.*\n?)+)/);
  if (!m) return [];
  return m[1]
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
}

const HELP_OPTION: OptionSpec = { flags: '-h, --help', long: '--help', short: '-h', description: 'show help (for any command)', takesValue: false, path: false };

/** Walks the program and returns the tree of visible commands and options. */
export function describe(cmd: Command, parentPath: string[] = []): CommandSpec {
  const path = cmd.parent ? [...parentPath, cmd.name()] : [];
  const visibleOptions = (cmd.options as Option[]).filter((o) => !o.hidden);
  const { help, own } = helpText(cmd);
  return {
    path,
    name: cmd.name(),
    aliases: cmd.aliases(),
    usage: cmd.usage(),
    description: cmd.description(),
    // commander keeps -h/--help apart from the options; every command takes it (offered with the root's, which
    // the shells offer everywhere, and listed once in the man page).
    options: [...visibleOptions.map(optionSpec), ...(cmd.parent ? [] : [HELP_OPTION])],
    args: (cmd.registeredArguments as Argument[]).map(argumentSpec),
    subcommands: (cmd.commands as Command[])
      .filter((c) => !(c as unknown as { _hidden?: boolean })._hidden && c.name() !== 'help')
      .map((c) => describe(c, path)),
    examples: examplesOf(help),
    help,
    notes: cmd.parent ? notesOf(help, own) : '',
    runnable: Boolean((cmd as unknown as { _actionHandler?: unknown })._actionHandler),
  };
}

/** Every command in the tree, depth first (root first). */
export function flatten(spec: CommandSpec): CommandSpec[] {
  return [spec, ...spec.subcommands.flatMap(flatten)];
}
