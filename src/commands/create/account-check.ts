// The part of a CSV file's check that needs the account: the values the API checks against the account's own
// settings rather than fixed rules — delivery service keys, packaging type keys, brands, and custom fields (keys
// and their rules). Read once (GET /services, /packaging-options, /brands, /custom-fields, only those the file
// uses) and checked for every shipment before anything is sent, so a typo in a service key stops the file
// (exit 2) instead of failing its 10,000 shipments one by one.
import type { Api } from '../../api/index.js';
import type { CustomField } from '../../api/schemas.js';
import type { Ctx } from '../../context.js';
import { InputError, type InputProblem } from '../../errors.js';
import { locateApiPath, type ShipmentRows } from '../../csv/columns.js';
import { customFieldChecker, type CustomFieldsBody } from '../../csv/custom-field-rules.js';
import { FileProblems, type AccountRefs, type LoadedCsv } from '../../csv/load.js';
import { problemCount, sortFileProblems } from '../../csv/problems.js';
import { nearWord } from '../../util/near.js';
import { accountReadSignal, unreadReason } from '../shared/account-read.js';

/** The parts of a request body checked against the account: its custom fields, and the keys below. */
type Body = CustomFieldsBody & { delivery_service_key?: unknown; service_key?: unknown; brand?: unknown };

/** A shipment to check: its rows, and its request body as an object or as JSON text. */
export type ShipmentToCheck = ShipmentRows & ({ json: string } | { body: Body });

/** One kind of account value a file may name: how it is read, and what the account has. */
interface RefKind {
  /** What the file's values are checked against, for messages. */
  label: string;
  what: string;
  command: string;
  read: (api: Api, signal: AbortSignal) => Promise<{ keys: string[]; alsoKnown?: string[] }>;
}

const KINDS: Record<keyof AccountRefs, RefKind> = {
  services: {
    label: 'delivery service keys',
    what: 'a delivery service of the account',
    command: 'ship services',
    read: async (api, signal) => ({ keys: (await api.services.list(undefined, { signal })).map((s) => s.key).filter((k): k is string => typeof k === 'string') }),
  },
  packaging: {
    label: 'packaging type keys',
    what: 'a packaging type of the account',
    command: 'ship packaging',
    read: async (api, signal) => ({ keys: ((await api.packaging.get({ signal })).packaging_types ?? []).map((t) => t.key).filter((k): k is string => typeof k === 'string') }),
  },
  brands: {
    label: 'brands',
    what: 'a brand of the account (its key or ID)',
    command: 'ship brands',
    read: async (api, signal) => {
      const brands = await api.brands.list({ signal });
      return { keys: brands.map((b) => b.key).filter((k): k is string => typeof k === 'string'), alsoKnown: brands.map((b) => b.id).filter((k): k is string => typeof k === 'string') };
    },
  },
};

/**
 * Checks `shipments` against the account's settings the file uses. Throws an InputError naming each value refused
 * (exit 2, nothing sent). What cannot be read (no credentials, a user without access, the service unreachable)
 * is left to the service, which checks each shipment as it comes; a dry run says what it could not check.
 */
export async function checkAgainstAccount(
  ctx: Ctx,
  csvPath: string,
  shipments: () => Iterable<ShipmentToCheck> | AsyncIterable<ShipmentToCheck>,
  file: Pick<LoadedCsv, 'header' | 'labelFor' | 'hasCustomFields' | 'accountRefs'>,
  opts: { dryRun: boolean },
): Promise<void> {
  const found = await accountProblems(ctx, shipments, file, { ...opts, quiet: false });
  if (!found) return;
  const { problems, onlyFields } = found;
  const what = onlyFields ? `custom field value${problems.length === 1 ? '' : 's'}` : `value${problems.length === 1 ? '' : 's'}`;
  throw new InputError(`${csvPath}: ${problems.length} ${what} the service would refuse; nothing was sent`, problems, { hint: accountHint(onlyFields) });
}

function accountHint(onlyFields: boolean): string {
  return onlyFields
    ? 'fix the file and run again; `ship custom-fields` lists the account\'s fields, `ship custom-fields KEY` one field\'s rules'
    : 'fix the file and run again (each value refused names the command that lists what the account has)';
}

/**
 * Loads a file (`load`, which throws the file's own problems as FileProblems) and, when it has problems of its
 * own, checks its shipments against the account as well (those with problems too, for the values the account
 * check reads), so that one run reports every problem: the
 * account's used to come only once the file's own were fixed, a second round on a 10,000-row file. The account
 * is read as a dry run reads it (a short wait; what cannot be read is left out, the file's own problems said).
 */
export async function loadReportingAll<T>(ctx: Ctx, load: () => Promise<T>, opts: { skipped?: () => Promise<Set<string>>; dryRun?: boolean } = {}): Promise<T> {
  try {
    return await load();
  } catch (e) {
    if (!(e instanceof FileProblems)) throw e;
    // What a rerun will skip (created by an earlier run) is not checked, as the run itself does not check it.
    const skipped = (await opts.skipped?.().catch(() => undefined)) ?? new Set<string>();
    const shipments = skipped.size ? () => notSkipped(e.valid.shipments(), skipped) : e.valid.shipments;
    // A dry run says what it could not check against the account, as it does for a file without problems.
    const found = await accountProblems(ctx, shipments, e.valid, { dryRun: true, quiet: !opts.dryRun }).catch((err: unknown) => {
      if (ctx.signal.aborted) throw err;
      return undefined;
    });
    if (!found) throw e;
    // A cell the file's own check refused already (a service key with a caret) is said once, by that check.
    const refused = new Set(e.problems.map((p) => `${p.row}\u0000${p.column}`));
    const more = found.problems.filter((p) => !refused.has(`${p.row}\u0000${p.column}`));
    if (more.length === 0) throw e;
    const problems = [...e.problems, ...more];
    sortFileProblems(problems, e.valid.header);
    const rows = new Set(problems.flatMap((p) => (p.row === undefined ? [] : [p.row]))).size;
    const hint = [e.hint, accountHint(found.onlyFields)].filter((h) => h !== undefined).join('; ');
    throw new InputError(`${e.valid.name}: ${problemCount(problems.length, rows)}; nothing was sent`, problems, { hint });
  }
}

async function* notSkipped<S extends { reference: string }>(all: Iterable<S> | AsyncIterable<S>, skipped: Set<string>): AsyncGenerator<S> {
  for await (const s of all) if (!skipped.has(s.reference)) yield s;
}

/** The problems `shipments` have against the account's settings, or undefined for none (or none readable). */
async function accountProblems(
  ctx: Ctx,
  shipments: () => Iterable<ShipmentToCheck> | AsyncIterable<ShipmentToCheck>,
  file: Pick<LoadedCsv, 'header' | 'labelFor' | 'hasCustomFields' | 'accountRefs'>,
  opts: { dryRun: boolean; quiet: boolean },
): Promise<{ problems: InputProblem[]; onlyFields: boolean } | undefined> {
  const used = (Object.keys(KINDS) as Array<keyof AccountRefs>).filter((k) => file.accountRefs[k].size > 0);
  if (used.length === 0 && !file.hasCustomFields) return;
  // What could not be read, and why (said by a dry run).
  const unread: string[] = [];
  const reasons = new Set<string>();
  const couldNotRead = (what: string, e: unknown) => {
    if (ctx.signal.aborted) throw e; // Ctrl-C while asking: stop, as anywhere else
    unread.push(what);
    reasons.add(unreadReason(e));
  };
  let client: Api | undefined;
  try {
    client = await ctx.api();
  } catch (e) {
    for (const kind of used) couldNotRead(KINDS[kind].label, e);
    if (file.hasCustomFields) couldNotRead('custom fields', e);
  }
  const api = client;
  let defs: CustomField[] | undefined;
  const unknown = new Map<keyof AccountRefs, { values: Set<string>; keys: string[] }>();
  if (api) {
    const signal = accountReadSignal(ctx, opts.dryRun);
    await Promise.all([
      file.hasCustomFields
        ? api.customFields.list({ signal }).then(
            (d) => void (defs = d),
            (e: unknown) => couldNotRead('custom fields', e),
          )
        : undefined,
      ...used.map((kind) =>
        KINDS[kind].read(api, signal).then(
          ({ keys, alsoKnown = [] }) => {
            const known = new Set([...keys, ...alsoKnown]);
            const values = new Set([...file.accountRefs[kind]].filter((v) => !known.has(v)));
            if (values.size) unknown.set(kind, { values, keys });
          },
          (e: unknown) => couldNotRead(KINDS[kind].label, e),
        ),
      ),
    ]);
  }
  if (unread.length && opts.dryRun && !opts.quiet) {
    ctx.out.warn(`${unread.join(', ')} not checked against the account, which could not be read (${[...reasons].join('; ')}); the service checks them when the shipments are sent`);
  }
  if (defs === undefined && unknown.size === 0) return;

  const problems: InputProblem[] = [];
  const checkFields = defs ? customFieldChecker(defs, file.labelFor) : undefined;
  const refused = (s: ShipmentRows, path: string, kind: keyof AccountRefs, value: unknown) => {
    const u = unknown.get(kind);
    if (!u || typeof value !== 'string' || !u.values.has(value)) return;
    const near = u.keys.filter((k) => nearWord(value, k)).slice(0, 3);
    const at = locateApiPath(s, path, file.labelFor);
    problems.push({ row: at.row, column: at.column, message: `"${value}" is not ${KINDS[kind].what}${near.length ? ` (did you mean ${near.join(' or ')}?)` : ''}; \`${KINDS[kind].command}\` lists them` });
  };
  for await (const s of shipments()) {
    const body: Body = 'json' in s ? (JSON.parse(s.json) as Body) : s.body;
    checkFields?.(s, body, problems);
    if (unknown.size === 0) continue;
    refused(s, body.delivery_service_key !== undefined ? 'delivery_service_key' : 'service_key', 'services', body.delivery_service_key ?? body.service_key);
    refused(s, 'brand', 'brands', body.brand);
    ((body.parcels ?? []) as Array<{ packaging_type_key?: unknown } | null>).forEach((p, i) => refused(s, `parcels.${i}.packaging_type_key`, 'packaging', p?.packaging_type_key));
  }
  if (problems.length === 0) return;
  sortFileProblems(problems, file.header);
  return { problems, onlyFields: unknown.size === 0 };
}
