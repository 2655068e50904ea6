// One shipment for `ship create` / `ship quote`, from flags, from --file (JSON body), or picked from --csv:
// built, converted and validated the same way whatever the source, with problems naming the flag, the JSON
// field or the CSV row and column.
import type { Ctx } from '../context.js';
import { InputError, UsageError, ValidationError, type InputProblem } from '../errors.js';
import { columnDef, columnForPath, locateApiPath } from '../csv/columns.js';
import { buildShipment, convertCell, setPath, type ShipmentBody } from './build.js';
import { csvDefaultsFromFlags, draftFromFlags, flagForColumn } from './flags.js';
import { inputKind, PARCEL_FLAGS, SHIPMENT_FLAGS, type ShipmentInputOptions } from './options.js';
import { readInputText } from './read.js';
import { jsonSyntaxMessage } from '../util/json-error.js';
import { shellWord } from '../util/shell.js';
import { BANNED_CHARS, BANNED_CHARS_MESSAGE } from '../api/banned-chars.js';
import { apiChecker, apiValidator, bodyWarnings, localDay, type RequestIssue } from './validate.js';
import type { ShipmentDraft } from './draft.js';

export { readInputText };

/** A request field set from a run-level flag (e.g. --format → format), added to every body. */
export interface ExtraField {
  path: string;
  value: unknown;
  flag: string;
  /** A default rather than a flag given: a --file body's own value of the field stands. */
  ifAbsent?: boolean;
}

/** One validated shipment body and what the user should hear about it. */
export interface SingleShipment {
  body: ShipmentBody;
  warnings: InputProblem[];
  /** Where it came from, for messages ("flags", "shipment.json", "orders.csv row 4"). */
  source: string;
  /** Where a request field came from: the flag, the field of the JSON file, the CSV row. */
  locate(path: string): { row?: number; column: string };
}

/**
 * Places the field messages of the API's validation error in the user's input (ValidationError.located), so
 * that a refusal of a shipment given by flags names `--to-postcode`, not `to_address.postcode`.
 */
export function locateApiProblems(err: unknown, input: SingleShipment): void {
  if (!(err instanceof ValidationError)) return;
  err.located = Object.entries(err.fields).flatMap(([path, messages]) => messages.map((message) => ({ ...input.locate(path), message })));
}

/**
 * Where a problem of an item given by flags is, when the item lacks the field: `--item #2 hs=…`, so two items
 * missing the same attribute are two problems, each naming its item; a parcel without items:
 * `--item sku=…,parcel=2`. Undefined for other paths (and for a field the item has: its own flag names it).
 */
function itemFlag(draft: ShipmentDraft, path: string): { column: string } | undefined {
  const m = /^parcels\.(\d+)\.items(?:\.(\d+)\.(.+))?$/.exec(path);
  if (!m) return undefined;
  const parcel = draft.parcels[Number(m[1])];
  if (!parcel) return undefined;
  if (m[2] === undefined) return { column: `--item sku=…${draft.parcels.length > 1 ? `,parcel=${Number(m[1]) + 1}` : ''}` };
  const item = parcel.items[Number(m[2])];
  const n = item && [...item.cells.values()].map((c) => /^--item #(\d+) /.exec(c.column ?? '')?.[1]).find((x) => x !== undefined);
  const col = columnForPath('item', m[3]);
  if (!n || !col || item.cells.has(col)) return undefined;
  return { column: `--item #${n} ${col.replace(/^item_/, '')}=…` };
}

function toProblems(issues: RequestIssue[], locate: (path: string) => { row?: number; column: string }): InputProblem[] {
  const seen = new Set<string>();
  const out: InputProblem[] = [];
  for (const i of issues) {
    const at = locate(i.path);
    const key = `${at.row}\u0000${at.column}\u0000${i.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ ...(at.row !== undefined ? { row: at.row } : {}), ...(at.column ? { column: at.column } : {}), message: i.message });
  }
  return out;
}

/**
 * Builds and validates the one shipment the flags describe. For quote a missing --reference gets a placeholder
 * (the API requires one, and a quote creates nothing). Throws InputError with every problem.
 */
export async function loadSingleShipment(
  ctx: Ctx,
  o: ShipmentInputOptions,
  opts: { purpose: 'create' | 'quote'; extra?: ExtraField[] },
): Promise<SingleShipment> {
  const kind = inputKind(o);
  const validate = await apiValidator();
  const extra = opts.extra ?? [];
  const placeholder = () => `QUOTE-${ctx.clock.now().toISOString().replace(/\D/g, '').slice(0, 14)}`;

  if (kind === 'csv') {
    const { loadCsvInput, disposeCsvInput } = await import('./csv.js');
    const loaded = await loadCsvInput(ctx, o, { only: o.shipment }).finally(disposeCsvInput);
    if (loaded.shipments.length === 0) {
      const why = loaded.excluded.length ? `: ${loaded.excluded.map((e) => `${e.reference} (${e.reason})`).join(', ')}` : '';
      throw new UsageError(o.shipment ? `${o.csv} has no shipment "${o.shipment}" to use${why}` : `${o.csv} holds no shipment to use${why}`);
    }
    if (loaded.shipments.length > 1) {
      const refs = loaded.shipments.slice(0, 5).map((s) => s.reference).join(', ');
      throw new UsageError(`${o.csv} holds ${loaded.shipments.length} shipments (${refs}${loaded.shipments.length > 5 ? ', …' : ''}): pick one with --shipment REF`);
    }
    const s = loaded.shipments[0];
    for (const e of extra) setPath(s.body, e.path, e.value);
    // A quote's --service asks for that service's price: it wins over the row's key, as over a --file body's.
    const asked = opts.purpose === 'quote' ? o.service?.trim() : undefined;
    if (asked) s.body.delivery_service_key = asked;
    return {
      body: s.body,
      warnings: loaded.warnings,
      source: `${o.csv} row ${s.row}`,
      locate: (path) => (asked && path === 'delivery_service_key' ? { column: '--service' } : locateApiPath(s, path, loaded.labelFor)),
    };
  }

  if (kind === 'file') {
    const name = o.file === '-' ? 'stdin' : o.file!;
    const text = await readInputText(ctx, o.file!, '--file');
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch (e) {
      throw new InputError(`${name} is not valid JSON`, [{ message: await jsonSyntaxMessage(e, text) }]);
    }
    if (!body || typeof body !== 'object' || Array.isArray(body)) {
      throw new InputError(`${name} must hold one shipment request (a JSON object)`, [{ message: 'expected a JSON object like examples/shipment.json' }]);
    }
    if ((o.parcel?.length ?? 0) > 0 || o.parcels || o.item?.length || o.weight || o.length || o.width || o.depth || o.value || o.packaging) {
      throw new UsageError('parcel and item flags cannot be combined with --file: the file lists the parcels');
    }
    const b = body as ShipmentBody;
    const fromFlag = new Map<string, string>();
    const problems: InputProblem[] = [];
    for (const [key, flag, col] of SHIPMENT_FLAGS) {
      const v = o[key];
      if (typeof v !== 'string' || v.trim() === '') continue;
      const def = columnDef(col)!;
      const r = convertCell(def, v);
      if (!r.ok) problems.push({ column: flag, message: r.message });
      else {
        setPath(b, def.path, r.value);
        fromFlag.set(def.path, flag);
        // --service overrides the file's service also when the file names it by its deprecated alias.
        if (def.path === 'delivery_service_key') delete (b as Record<string, unknown>).service_key;
      }
    }
    for (const kv of o.customField ?? []) {
      const eq = kv.indexOf('=');
      if (eq <= 0) throw new UsageError(`--custom-field "${kv}": expected KEY=VALUE`);
      setPath(b, `custom_fields.${kv.slice(0, eq).trim()}`, kv.slice(eq + 1).trim());
    }
    if (opts.purpose === 'quote' && (b.shipment_reference === undefined || b.shipment_reference === '')) b.shipment_reference = placeholder();
    for (const e of extra) {
      if (e.ifAbsent && (b as Record<string, unknown>)[e.path] !== undefined) continue;
      setPath(b, e.path, e.value);
      fromFlag.set(e.path, e.flag);
    }
    const locate = (path: string) => ({ column: fromFlag.get(path) ?? `${path || '(body)'} in ${name}` });
    const checked = (await apiChecker())(b);
    problems.push(...toProblems(checked.issues, locate));
    if (problems.length) throw new InputError(`${name}: the shipment request has ${problems.length} problem${problems.length === 1 ? '' : 's'}; nothing was sent`, problems);
    // What is sent: "1650" as 1650, "gb" as GB (a dry run shows this, not the file as written).
    const sent = checked.value ?? b;
    const warnings = bodyWarnings(sent, localDay(ctx.clock.now())).map((w) => ({ column: locate(w.path).column, message: w.message }));
    // The schemas let unknown keys through (the service may know more than the document): a near miss of a
    // known one is most likely a typo, whose value would otherwise be lost without a word.
    const { misspelledKeys } = await import('../api/validate.js');
    for (const t of misspelledKeys(b)) warnings.push({ column: `${t.path} in ${name}`, message: `not a field of the API (sent as it is): did you mean ${t.meant}?` });
    return { body: sent, warnings, source: name, locate };
  }

  // At a terminal a value the shipment needs is asked for instead of refused; scripts, CI and --no-input get
  // the error naming the flag that supplies it (ctx.prompt refuses with it when no person is there).
  // What a person typed at the prompts, as flags: said with a refusal, so that nothing typed is lost.
  const typed: Array<[flag: string, value: string]> = [];
  if (opts.purpose === 'create' && !o.reference?.trim() && ctx.mode.interactive) {
    o = { ...o, reference: await ctx.prompt.input({ message: 'Shipment reference (yours, unique)', supplyWith: '--reference', validate: answered }) };
    typed.push(['--reference', o.reference!]);
  }
  for (let asked = false; ; asked = true) {
    const flagProblems: InputProblem[] = [];
    const draft = draftFromFlags(o, flagProblems);
    if (!draft.cells.has('shipment_reference')) {
      if (opts.purpose === 'create') {
        throw new UsageError('--reference is required: your unique reference for the shipment', {
          hint: 'or create from a request body (--file shipment.json) or in bulk (--csv orders.csv)',
        });
      }
      draft.cells.set('shipment_reference', { value: placeholder(), column: '--reference' });
    }
    const built = buildShipment(draft, { labelFor: flagForColumn, defaults: csvDefaultsFromFlags({}) });
    const fromFlag = new Map<string, string>();
    for (const e of extra) {
      setPath(built.body, e.path, e.value);
      fromFlag.set(e.path, e.flag);
    }
    const locate = (path: string) => (fromFlag.has(path) ? { column: fromFlag.get(path)! } : itemFlag(draft, path) ?? built.locate(path));
    const seen = new Set(built.problems.map((p) => p.column));
    const problems = [...flagProblems, ...built.problems, ...toProblems(validate(built.body), locate).filter((p) => !seen.has(p.column))];
    const missing = asked || !ctx.mode.interactive ? [] : missingFlags(problems);
    if (missing.length) {
      // Asked once, in the order of the problems; what is still wrong after that is refused as usual.
      for (const m of missing) {
        const value = await ctx.prompt.input({ message: m.message, supplyWith: m.flag, validate: answered });
        o = { ...o, [m.key]: value };
        typed.push([m.flag, value]);
      }
      continue;
    }
    if (problems.length) {
      const again = typed.length ? { hint: `your answers, to give as flags with the rest: ${typed.map(([flag, value]) => `${flag} ${shellWord(value)}`).join(' ')}` } : undefined;
      throw new InputError(`the shipment has ${problems.length} problem${problems.length === 1 ? '' : 's'}; nothing was sent`, problems, again);
    }
    const warnings = bodyWarnings(built.body, localDay(ctx.clock.now())).map((w) => ({ column: locate(w.path).column, message: w.message }));
    return { body: built.body, warnings, source: 'flags', locate };
  }
}

/**
 * An answer to a prompt for a required value: anything but blank, and without the backslash or caret the API
 * refuses in any text (said at once, while the person can type it again, not after the last question).
 */
const answered = (v: string): true | string => (v.trim() === '' ? 'required' : BANNED_CHARS.test(v) ? BANNED_CHARS_MESSAGE : true);

/** What to ask for a flag the shipment needs: the address first, as a label reads. */
const PROMPTS: Record<string, string> = {
  '--to-name': 'Recipient name',
  '--to-line1': 'Address line 1',
  '--to-city': 'Town or city',
  '--to-postcode': 'Postcode',
  '--to-country': 'Country (two-letter code or name, e.g. GB)',
};

/** The flags whose value the problems say is missing ("is required"), as prompts: each once, in problem order. */
function missingFlags(problems: readonly InputProblem[]): Array<{ key: keyof ShipmentInputOptions; flag: string; message: string }> {
  const out: Array<{ key: keyof ShipmentInputOptions; flag: string; message: string }> = [];
  for (const p of problems) {
    if (p.message !== 'is required' || p.column === undefined) continue;
    const entry = [...SHIPMENT_FLAGS, ...PARCEL_FLAGS].find(([, flag]) => flag === p.column);
    if (!entry || out.some((m) => m.flag === entry[1])) continue;
    out.push({ key: entry[0], flag: entry[1], message: PROMPTS[entry[1]] ?? `Value for ${entry[1]}` });
  }
  return out;
}
