// The CSV input of create and quote: turns --csv/--map/--preset/--delimiter and the blank-filling flags into a
// loadCsv() call (streamed, fully validated before anything is sent).
import type { Ctx } from '../context.js';
import { InputError, UsageError, type InputProblem } from '../errors.js';
import { columnDef } from '../csv/columns.js';
import { duplicateJsonKeys, parseMapping } from '../csv/headers.js';
import { loadCustomsTable } from '../csv/customs.js';
import { loadCsv, type LoadedCsv, type LoadProgress } from '../csv/load.js';
import { contractLayout, presetLayout, PRESETS, type Layout, type PresetName } from '../csv/presets/index.js';
import { csvEncodingFor, type CsvSource } from '../csv/reader.js';
import { convertCell, type Defaults } from './build.js';
import { csvDefaultsFromFlags } from './flags.js';
import { readInputText, refuseTerminalPath, refuseTerminalStdin } from './read.js';
import { jsonSyntaxMessage } from '../util/json-error.js';
import { isStreamPath, namesStdin } from '../util/special-file.js';
import { copyToTempFile } from '../util/temp-copy.js';
import type { ShipmentInputOptions } from './options.js';
import { apiChecker, localDay } from './validate.js';

/** The layout the flags ask for: a preset, the contract's columns after a --map file, or the plain contract. */
export async function layoutFor(ctx: Ctx, o: ShipmentInputOptions): Promise<Layout> {
  if (o.preset) {
    if (!(PRESETS as readonly string[]).includes(o.preset)) throw new UsageError(`--preset: unknown preset "${o.preset}" (known: ${PRESETS.join(', ')})`);
    return presetLayout(o.preset as PresetName, { includeFulfilled: o.includeFulfilled === true });
  }
  if (o.map) {
    const text = await readInputText(ctx, o.map, '--map');
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (e) {
      throw new UsageError(`--map ${o.map} is not valid JSON: ${await jsonSyntaxMessage(e, text)}`, { hint: 'see examples/mapping.json' });
    }
    let mapping;
    try {
      mapping = { ...parseMapping(json), source: o.map };
    } catch (e) {
      throw new UsageError(`--map ${o.map}: ${(e as Error).message}`, { hint: 'see examples/mapping.json' });
    }
    const twice = duplicateJsonKeys(text);
    if (twice.length) {
      throw new UsageError(`--map ${o.map}: ${twice.map((k) => `"${k}"`).join(', ')} ${twice.length === 1 ? 'is' : 'are'} given twice (only the last would count): keep one of each`, { hint: 'see examples/mapping.json' });
    }
    return contractLayout({ mapping, allowUnknown: o.allowUnknownColumns });
  }
  return contractLayout({ allowUnknown: o.allowUnknownColumns });
}

/** Copies stdin to a temporary file, so a piped CSV can be read in two passes and again for the row files. */
async function spoolStdin(ctx: Ctx, flag: string): Promise<string> {
  refuseTerminalStdin(ctx, flag);
  return spool(ctx, ctx.io.stdin);
}

/**
 * The path to read an input from: the file itself; for `-` (or /dev/stdin…), a copy of stdin; for a pipe given by
 * its path (`--csv <(…)`, a named pipe: isStreamPath), a copy of it.
 */
async function readablePath(ctx: Ctx, path: string, flag: string): Promise<string> {
  if (path !== '-' && !isStreamPath(path)) return path;
  if (namesStdin(path)) return spoolStdin(ctx, flag);
  await refuseTerminalPath(path, flag);
  const { createReadStream } = await import('node:fs');
  return spool(ctx, createReadStream(path));
}

async function spool(ctx: Ctx, input: NodeJS.ReadableStream): Promise<string> {
  const copy = await copyToTempFile(input, { prefix: 'ship-stdin-', signal: ctx.signal });
  spooled.push(copy.remove);
  return copy.path;
}
const spooled: Array<() => Promise<void>> = [];

/** Removes temporary copies of stdin made by loadCsvInput (call when the command is done with the rows). */
export async function disposeCsvInput(): Promise<void> {
  for (const f of spooled.splice(0)) await f().catch(() => undefined);
}

/** Reads and validates the --csv file completely; throws InputError listing every problem. */
export async function loadCsvInput(ctx: Ctx, o: ShipmentInputOptions, opts: { only?: string; keep?: boolean | 'json' } = {}): Promise<LoadedCsv> {
  const path = o.csv!;
  // stdin is one stream: it can carry one of the orders, the customs table and the column map.
  // (/dev/stdin and the like are stdin too: namesStdin.)
  const fromStdin = ([['--csv', path], ['--customs', o.customs], ['--map', o.map]] as const).filter(([, v]) => v !== undefined && namesStdin(v)).map(([flag, v]) => `${flag} ${v}`);
  if (fromStdin.length === 2) throw new UsageError(`${fromStdin[0]} and ${fromStdin[1]} both read stdin: give one of them as a file`);
  if (fromStdin.length > 2) throw new UsageError(`${fromStdin.join(', ')} all read stdin: give all but one of them as files`);
  const source: CsvSource & { path: string } = { path: await readablePath(ctx, path, '--csv') };
  // Read before the orders, so a table problem is reported as the table's, whichever file is on stdin.
  const customs = o.customs ? await loadCustomsTable(await readablePath(ctx, o.customs, '--customs'), o.customs === '-' ? 'stdin' : o.customs) : undefined;
  let delimiter = o.delimiter;
  if (delimiter === '\\t' || delimiter?.toLowerCase() === 'tab') delimiter = '\t';
  if (delimiter !== undefined && delimiter.length !== 1) throw new UsageError(`--delimiter: expected one character, not "${o.delimiter}"`);
  const name = path === '-' ? 'stdin' : path;
  const defaults = csvDefaultsFromFlags(o);
  checkDefaults(defaults);
  // Said before any problem the file has, which a wrong guess could explain.
  const { encoding, warning } = await csvEncodingFor(source.path, o.encoding, name, delimiter);
  if (warning) ctx.out.warn(warning);
  // A large file takes seconds to check: a person at a terminal sees how far it got.
  const wait = ctx.out.wait;
  const done = wait.begin(`Reading ${name}…`, { likelyLong: true });
  try {
    return await loadCsv({
      source,
      layout: await layoutFor(ctx, o),
      defaults,
      customs,
      validate: await apiChecker(),
      delimiter,
      encoding,
      only: opts.only,
      keep: opts.keep,
      name,
      today: localDay(ctx.clock.now()),
      onProgress: wait.enabled ? (p) => wait.update(progressText(name, p)) : undefined,
    });
  } finally {
    done();
  }
}

/**
 * Refuses a blank-filling flag whose value the API cannot take (--default-weight 1kg), once, before the file is
 * read: checked with each shipment that uses it, it was one identical problem per shipment of the file.
 */
function checkDefaults(defaults: Defaults): void {
  const problems: InputProblem[] = [];
  for (const [column, cell] of defaults) {
    const r = convertCell(columnDef(column)!, cell.value);
    if (!r.ok) problems.push({ column: cell.column, message: r.message });
  }
  if (problems.length) throw new InputError(`${problems.length === 1 ? 'a flag that fills blank cells has a problem' : 'flags that fill blank cells have problems'}; nothing was sent`, problems);
}

/** The spinner's text while a file is read and checked. */
export function progressText(name: string, p: LoadProgress): string {
  const n = (x: number) => x.toLocaleString('en-GB');
  if (p.phase === 'reading') return `Reading ${name}… ${n(p.rows)} row${p.rows === 1 ? '' : 's'}`;
  return `Checking ${name}… ${n(p.rows)}${p.total !== undefined ? ` of ${n(p.total)}` : ''} row${(p.total ?? p.rows) === 1 ? '' : 's'}`;
}
