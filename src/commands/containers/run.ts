// The work of `ship containers …`: each function is one subcommand, called from index.ts.
import { join, resolve } from 'node:path';
import type { Ctx } from '../../context.js';
import { confirmOrRefuse } from '../shared/confirm.js';
import { ApiError, AuthError, ExitCode, NetworkError, NotFoundError, ShipError, UsageError, ValidationError } from '../../errors.js';
import type { Api, Container, ContainerRequest, ContainerShipment, DocumentResult } from '../../api/index.js';
import { documentBytes } from '../../api/documents.js';
import { safeFileStem, writeFileAtomic } from '../../labels/index.js';
import { shellWord } from '../../util/shell.js';
import { formatGrams, formatMinor, limitPair, mapFieldsToFlags } from './format.js';
import { readyPrinter, sendZpl } from './print.js';
import type { PrinterTarget } from '../../printer/index.js';
import { makeDirSync } from '../../util/mkdir.js';
import { stdoutAlias } from '../../util/special-file.js';
import { checkDespatchDate, localDay } from '../../shipment-input/validate.js';

/** Flags of `containers create`. */
export interface CreateContainerOptions {
  reference?: string;
  despatchDate?: string;
  location?: string;
  service?: string;
  clearanceCountry?: string;
  clearanceLocation?: string;
  currency?: string;
}

/** The flag that supplies each field of POST /containers, for error messages in the user's terms. */
export const CONTAINER_FLAGS: Record<string, string> = {
  reference: '--reference',
  despatch_date: '--despatch-date',
  despatch_location: '--location',
  delivery_service_key: '--service',
  clearance_country: '--clearance-country',
  clearance_location: '--clearance-location',
  value_currency: '--currency',
};

/** Creates a container; asks for the required values on a terminal, names their flags otherwise. */
export async function createContainer(ctx: Ctx, opts: CreateContainerOptions): Promise<void> {
  const ask = async (value: string | undefined, message: string, flag: string) =>
    value ?? (await ctx.prompt.input({ message, supplyWith: flag }));
  if (!ctx.mode.interactive) {
    const missing = [
      ['--service', opts.service],
      ['--clearance-country', opts.clearanceCountry],
      ['--clearance-location', opts.clearanceLocation],
    ]
      .filter(([, v]) => v === undefined)
      .map(([f]) => f);
    if (missing.length > 0) throw new UsageError(`missing ${missing.join(', ')}`, { hint: 'a container needs a consolidation service, a clearance country and a clearance location' });
  }
  const body: Record<string, string> = {
    delivery_service_key: await ask(opts.service, 'Consolidation service key', '--service'),
    clearance_country: await ask(opts.clearanceCountry, 'Clearance country (two-letter code)', '--clearance-country'),
    clearance_location: await ask(opts.clearanceLocation, 'Clearance location code', '--clearance-location'),
  };
  if (opts.reference !== undefined) body.reference = opts.reference;
  if (opts.despatchDate !== undefined) body.despatch_date = opts.despatchDate;
  if (opts.location !== undefined) body.despatch_location = opts.location;
  if (opts.currency !== undefined) body.value_currency = opts.currency;
  // As create warns of a shipment's: a date days ago is most likely a command line run again from the history.
  for (const w of checkDespatchDate(body, localDay(ctx.clock.now()))) ctx.out.warn(`--despatch-date: ${w.message}`);

  const api = await ctx.api();
  let container: Container;
  try {
    container = await api.containers.create(body as ContainerRequest, { signal: ctx.signal });
  } catch (err) {
    throw inFlagTerms(err, 'the container was not created');
  }
  if (ctx.mode.json) return ctx.out.json(container);
  if (ctx.mode.quiet) return ctx.out.line(container.reference);
  ctx.out.success(`Container ${container.reference} created (${container.status ?? 'Open'})`);
  renderContainer(ctx, container);
  ctx.out.info(`Add shipments with: ship create --container ${container.reference} …  (or a container_reference CSV column)`);
}

/**
 * A ValidationError about request fields, located at the flags that supply them; other errors unchanged.
 * `fields` keeps the API's field paths (what `--json` scripts read for every command); the flags go to `located`.
 */
export function inFlagTerms(err: unknown, message: string): unknown {
  if (!(err instanceof ValidationError)) return err;
  const e = new ValidationError(`${message}: ${err.message}`, err.fields, err.http);
  e.located = Object.entries(mapFieldsToFlags(err.fields, CONTAINER_FLAGS)).flatMap(([column, msgs]) => msgs.map((m) => ({ column, message: m })));
  e.hint = err.hint;
  return e;
}

/** Prints a container's state, limits and counts side by side. */
function renderContainer(ctx: Ctx, c: Container): void {
  const currency = c.value_currency ?? '';
  const location = typeof c.despatch_location === 'object' && c.despatch_location ? c.despatch_location.code ?? c.despatch_location.name : c.despatch_location;
  const country = typeof c.clearance_country === 'object' && c.clearance_country ? c.clearance_country.code : c.clearance_country;
  ctx.out.keyValues([
    ['reference', c.reference],
    ['status', c.status],
    ['service', c.full_service_name ?? c.service_name ?? c.delivery_service_key],
    ['tracking', c.tracking_reference],
    ['despatch', [c.despatch_date, location].filter(Boolean).join(' from ')],
    ['clearance', [country, c.clearance_location_name ?? c.clearance_location].filter(Boolean).join(' · ')],
    ['parcels', limitPair(c.parcels, c.max_parcels, String)],
    ['items', limitPair(c.items, c.max_items, String)],
    ['weight', limitPair(c.weight, c.max_weight, formatGrams)],
    ['value', limitPair(c.value, c.max_value, (v) => formatMinor(v, currency))],
  ]);
}

/** `containers show REF`. */
export async function showContainer(ctx: Ctx, opts: { ref: string }): Promise<void> {
  const api = await ctx.api();
  const c = await api.containers.get(opts.ref, { signal: ctx.signal });
  if (ctx.mode.json) return ctx.out.json(c);
  if (ctx.mode.quiet) return ctx.out.line(c.status ?? '');
  renderContainer(ctx, c);
}

/** `containers shipments REF`: one row per shipment (value in the container's currency). */
export async function listContainerShipments(ctx: Ctx, opts: { ref: string }): Promise<void> {
  const api = await ctx.api();
  const [shipments, container] = await Promise.all([
    api.containers.shipments(opts.ref, { signal: ctx.signal }),
    ctx.mode.json || ctx.mode.quiet ? undefined : api.containers.get(opts.ref, { signal: ctx.signal }),
  ]);
  if (ctx.mode.json) return ctx.out.json(shipments);
  if (ctx.mode.quiet) {
    for (const s of shipments) ctx.out.line(s.reference ?? s.id ?? '');
    return;
  }
  if (shipments.length === 0) {
    ctx.out.info(`Container ${opts.ref} holds no shipments.`);
    return;
  }
  const currency = container?.value_currency ?? '';
  await ctx.out.table<ContainerShipment>(shipments, [
    { header: 'Reference', value: (s) => s.reference },
    { header: 'Tracking', value: (s) => s.tracking_reference },
    { header: 'Parcels', value: (s) => s.parcels, align: 'right' },
    { header: 'Items', value: (s) => s.items, align: 'right' },
    { header: 'Weight', value: (s) => (s.weight == null ? '' : formatGrams(s.weight)), align: 'right' },
    { header: 'Value', value: (s) => (s.value == null ? '' : formatMinor(s.value, currency)), align: 'right' },
    { header: 'Status', value: (s) => String((s as { status?: unknown }).status ?? '') },
  ]);
}

/** Where a container label goes: a printer, a file, or stdout. */
interface LabelTarget {
  format?: 'ZPL' | 'PDF';
  output?: string;
  printer?: string;
  /** false with --no-preflight: send without asking the printer for its status (~HS). */
  preflight?: boolean;
  /** --printer-timeout in ms (default 5 s). */
  printerTimeoutMs?: number;
}

/** Where the label of `--print` / `--printer` goes once it is fetched (resolved and checked beforehand). */
interface Delivery extends LabelTarget {
  target?: PrinterTarget;
}

/** Fetches the container label and prints it or writes it; returns what was done, for --json. */
async function deliverLabel(ctx: Ctx, ref: string, t: Delivery): Promise<Record<string, unknown>> {
  const format = t.target ? 'ZPL' : (t.format ?? 'ZPL');
  const api = await ctx.api();
  const doc = await api.containers.label(ref, { format }, { signal: ctx.signal });
  const bytes = bytesOf(doc, format, `container ${ref} label`);
  if (t.target) {
    await sendZpl(ctx, t.target, bytes, { timeoutMs: t.printerTimeoutMs });
    // The printer as `print` and `label` give it under --json.
    return { format, printer: { url: t.target.url, name: t.target.name ?? null }, bytes: bytes.length };
  }
  if (t.output === '-') {
    ctx.io.stdout.write(bytes);
    return { format, path: '-', bytes: bytes.length };
  }
  const path = resolve(t.output ?? `container-${safeFileStem(ref)}.${format.toLowerCase()}`);
  writeFileAtomic(path, bytes);
  return { format, path, bytes: bytes.length };
}

/** The bytes of a document in a format, or an ApiError saying what the response lacked. */
function bytesOf(doc: DocumentResult, format: 'ZPL' | 'PDF', what: string): Buffer {
  try {
    return documentBytes(doc, format);
  } catch (e) {
    throw new ApiError(`the API returned no usable ${what}: ${(e as Error).message}`);
  }
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The container's own reference when REF is its ID (the API takes either): results, messages and file names
 * then name it as the warehouse does, not by a UUID. REF itself otherwise, or when the ID finds nothing (the
 * call that follows says so).
 */
async function ownReference(ctx: Ctx, ref: string): Promise<string> {
  if (!UUID.test(ref)) return ref;
  try {
    const c = await (await ctx.api()).containers.get(ref, { signal: ctx.signal });
    return typeof c.reference === 'string' && c.reference ? c.reference : ref;
  } catch (e) {
    if (ctx.signal.aborted) throw e;
    return ref;
  }
}

/** `containers label REF`. */
export async function containerLabel(ctx: Ctx, opts: { ref: string } & LabelTarget): Promise<void> {
  opts = { ...opts, output: stdoutAlias(opts.output), ref: await ownReference(ctx, opts.ref) };
  if (opts.output === '-' && ctx.mode.json) throw new UsageError('-o - writes the label to stdout; it cannot be combined with --json');
  const target = opts.printer !== undefined ? await readyPrinter(ctx, opts.printer, { preflight: opts.preflight, timeoutMs: opts.printerTimeoutMs }) : undefined;
  const done = await deliverLabel(ctx, opts.ref, { ...opts, target });
  if (ctx.mode.json) return ctx.out.json({ reference: opts.ref, ...done });
  if (done.path === '-') return;
  if (ctx.mode.quiet) {
    if (done.path) ctx.out.line(String(done.path));
    return;
  }
  if (done.printer) ctx.out.success(`Container ${opts.ref} label sent to ${printerShown(done.printer)}`);
  else ctx.out.success(`Container ${opts.ref} label (${done.format}) written to ${done.path}`);
}

/** `containers close REF [--print]`. */
export async function closeContainer(
  ctx: Ctx,
  opts: { ref: string; yes: boolean; print: boolean } & LabelTarget,
): Promise<void> {
  if (opts.print && opts.output === '-' && ctx.mode.json) throw new UsageError('-o - writes the label to stdout; it cannot be combined with --json');
  opts = { ...opts, ref: await ownReference(ctx, opts.ref) };
  // Nobody is asked to confirm what would change nothing: a container closed already is said at once, with or
  // without a terminal to ask on.
  // With --print too, --yes or not: the printer is not asked about (nor needed) for a container closed already.
  const closedAlready = (!opts.yes || opts.print) && (await isClosedNow(ctx, opts.ref, { evenWithoutTerminal: true }));
  if (!opts.yes && !closedAlready && !ctx.mode.interactive) {
    throw new UsageError(`closing container ${opts.ref} needs confirmation, and there is no terminal to ask on`, { hint: 'pass --yes to confirm in scripts' });
  }
  // The close cannot be undone, so the printer is found and checked (~HS) before anything changes.
  const target = opts.print && !opts.output && !closedAlready ? await readyPrinter(ctx, opts.printer, { preflight: opts.preflight, timeoutMs: opts.printerTimeoutMs }) : undefined;
  const ok = closedAlready || (await confirmOrRefuse(ctx, {
    yes: opts.yes,
    question: `Close container ${opts.ref}? The carrier generates its documents and no more shipments can be added.`,
    needs: `closing container ${opts.ref}`,
  }));
  if (!ok) {
    ctx.out.info(`Container ${opts.ref} left open.`);
    return;
  }
  const api = await ctx.api();
  let message: string = ALREADY_CLOSED;
  try {
    if (!closedAlready) message = (await api.containers.close(opts.ref, { signal: ctx.signal })).message;
  } catch (err) {
    // Closed is what was asked: a container closed before (by an earlier run of the same script, or in the
    // portal) is no failure, as cancel treats a cancelled shipment. The API refuses the transition (400; the
    // state table has none from Closed), so its state is read to tell that refusal from any other.
    if (!(await isClosedRefusal(api, opts.ref, err, ctx.signal))) throw err;
    message = ALREADY_CLOSED;
  }
  const result: Record<string, unknown> = { reference: opts.ref, status: 'Closed', message };
  if (!ctx.mode.json) ctx.out.success(message === ALREADY_CLOSED ? `Container ${opts.ref} was already closed` : `Container ${opts.ref} closed`);
  // A rerun of a closing script prints nothing again: the label went to the printer with the close (a file is
  // written again: that costs nothing).
  const printedAtClose = opts.print && !opts.output && message === ALREADY_CLOSED;
  if (printedAtClose) {
    result.label = null;
    ctx.out.warn(
      `container ${opts.ref} was closed before: its label is not printed again (whoever closed it printed it, or was told it failed); if it did not come out, \`ship containers label ${opts.ref} --printer${opts.printer ? ` ${opts.printer}` : ''}\` prints it`,
    );
  } else if (opts.print) {
    try {
      result.label = await deliverLabel(ctx, opts.ref, { ...opts, target });
    } catch (err) {
      // The container stays closed; say so, so nobody closes it "again" to get the label (also when the
      // label file could not be written: a plain file-system error).
      // The same way of delivering it (--printer, or the profile's printer with --print alone; -o a file).
      const how = opts.output
        ? `${opts.format && opts.format !== 'ZPL' ? ` --format ${opts.format}` : ''} -o ${shellWord(opts.output)}`
        : ` --printer${opts.printer ? ` ${shellWord(opts.printer)}` : ''}`;
      const next = `the container is closed (closing it again prints nothing); get its label with \`ship containers label ${opts.ref}${how}\``;
      if (err instanceof ShipError) {
        err.hint = err.hint ? `${err.hint}; ${next}` : next;
        throw err;
      }
      throw new ShipError(`container ${opts.ref} was closed, but its label could not be delivered: ${err instanceof Error ? err.message : String(err)}`, ExitCode.Failure, { hint: next, cause: err });
    }
    const label = result.label as Record<string, unknown>;
    if (!ctx.mode.json && label.path !== '-') {
      if (label.printer) ctx.out.success(`Label sent to ${printerShown(label.printer)}`);
      else ctx.out.success(`Label (${label.format}) written to ${label.path}`);
    }
  }
  if (ctx.mode.json) ctx.out.json(result);
  else if (ctx.mode.quiet && !(opts.print && opts.output === '-')) ctx.out.line(opts.ref);
}

/** The message of a close whose container had been closed already. */
const ALREADY_CLOSED = 'already closed';

/** Whether `err`, the API's refusal to close `ref`, is because the container is Closed already. */
async function isClosedRefusal(api: Api, ref: string, err: unknown, signal: AbortSignal): Promise<boolean> {
  if (!(err instanceof ApiError) || err instanceof AuthError || err instanceof NotFoundError || err instanceof NetworkError) return false;
  if (err.http.status === undefined || err.http.status < 400 || err.http.status >= 500) return false;
  try {
    return /^closed$/i.test(String((await api.containers.get(ref, { signal })).status ?? ''));
  } catch {
    return false;
  }
}

/**
 * Whether the container is Closed, read before a person is asked to close or delete it (undefined reads as
 * not: the question is asked, and the API has the last word).
 */
async function isClosedNow(ctx: Ctx, ref: string, opts: { evenWithoutTerminal?: boolean } = {}): Promise<boolean> {
  if (!ctx.mode.interactive && !opts.evenWithoutTerminal) return false;
  try {
    const api = await ctx.api();
    return /^closed$/i.test(String((await api.containers.get(ref, { signal: ctx.signal })).status ?? ''));
  } catch (e) {
    if (ctx.signal.aborted) throw e;
    return false;
  }
}

/** `containers delete REF`: explains a refusal with the shipments still in the container. */
export async function deleteContainer(ctx: Ctx, opts: { ref: string; yes: boolean }): Promise<void> {
  opts = { ...opts, ref: await ownReference(ctx, opts.ref) };
  // Not asked for what the API would refuse anyway: a closed container is handed to the carrier.
  if (!opts.yes && (await isClosedNow(ctx, opts.ref))) {
    throw new UsageError(`container ${opts.ref} cannot be deleted`, { hint: 'the container is closed (handed to the carrier), so it cannot be deleted' });
  }
  const ok = await confirmOrRefuse(ctx, { yes: opts.yes, question: `Delete container ${opts.ref}?`, needs: `deleting container ${opts.ref}` });
  if (!ok) {
    ctx.out.info(`Container ${opts.ref} kept.`);
    return;
  }
  const api = await ctx.api();
  try {
    const r = await api.containers.delete(opts.ref, { signal: ctx.signal });
    if (ctx.mode.json) return ctx.out.json({ reference: opts.ref, status: 'deleted', message: r.message });
    if (ctx.mode.quiet) return ctx.out.line(opts.ref);
    ctx.out.success(`Container ${opts.ref} deleted`);
  } catch (err) {
    if (!(err instanceof ApiError) || err instanceof NotFoundError || err instanceof AuthError || err instanceof NetworkError) throw err;
    if (err.http.status !== undefined && err.http.status >= 500) throw err;
    let held: ContainerShipment[] | undefined;
    try {
      held = await api.containers.shipments(opts.ref, { signal: ctx.signal });
    } catch {
      held = undefined;
    }
    const live = (held ?? []).filter((s) => !/cancel/i.test(String((s as { status?: unknown }).status ?? '')));
    const refs = live.map((s) => s.reference ?? s.tracking_reference ?? s.id).filter((s): s is string => Boolean(s));
    const shown = refs.slice(0, 10);
    // Closing manifests the shipments: they can no longer be cancelled, so neither can the container be emptied.
    let closed = false;
    try {
      closed = /closed/i.test(String((await api.containers.get(opts.ref, { signal: ctx.signal })).status ?? ''));
    } catch {
      closed = false;
    }
    err.hint = closed
      ? refs.length > 0
        ? `the container is closed: its ${refs.length} shipment${refs.length === 1 ? ' is' : 's are'} manifested and can no longer be cancelled, so it cannot be deleted`
        : 'the container is closed (handed to the carrier), so it cannot be deleted'
      : 'a container can be deleted only when it is empty or all its shipments are cancelled' +
        (refs.length > 0
          ? `; it holds ${refs.length} shipment(s): ${shown.join(', ')}${refs.length > shown.length ? ', …' : ''}. Cancel them first: ship cancel ${shown.join(' ')}${refs.length > shown.length ? ' …' : ''}`
          : '');
    throw err;
  }
}

/** Carriers may only make documents once a container is closed: a 400 about that gets a next step. */
function withCloseHint(err: unknown, ref: string): unknown {
  if (err instanceof ValidationError && !err.hint && /open|closed/i.test(JSON.stringify(err.fields) + err.message)) {
    err.hint = `close the container first: ship containers close ${ref}`;
  }
  return err;
}

/** `containers documents REF -o DIR`: every carrier document of the response as a PDF file. */
export async function containerDocuments(ctx: Ctx, opts: { ref: string; dir: string }): Promise<void> {
  opts = { ...opts, ref: await ownReference(ctx, opts.ref) };
  const api = await ctx.api();
  const doc = await api.containers.documents(opts.ref, { signal: ctx.signal }).catch((e: unknown) => {
    throw withCloseHint(e, opts.ref);
  });
  const files = documentFiles(doc, opts.ref);
  if (files.length === 0) throw new ApiError(`the API returned no documents for container ${opts.ref}`, {}, { hint: 'carriers may only provide documents once the container is closed' });
  const dir = resolve(opts.dir);
  makeDirSync(dir);
  const written = files.map((f) => {
    const path = join(dir, f.name);
    writeFileAtomic(path, f.bytes);
    return { name: f.label, path, bytes: f.bytes.length };
  });
  if (ctx.mode.json) return ctx.out.json({ reference: opts.ref, documents: written });
  if (ctx.mode.quiet) {
    for (const w of written) ctx.out.line(w.path);
    return;
  }
  for (const w of written) ctx.out.success(`${w.name} written to ${w.path}`);
}

/** The PDFs in a documents response: every base64 (or raw) PDF found in it, named by the key that held it. */
export function documentFiles(doc: DocumentResult, ref: string): Array<{ label: string; name: string; bytes: Buffer }> {
  const stem = `container-${safeFileStem(ref)}`;
  const out: Array<{ label: string; name: string; bytes: Buffer }> = [];
  const seen = new Set<string>();
  const add = (label: string, text: string) => {
    const bytes = text.startsWith('%PDF') ? Buffer.from(text, 'latin1') : Buffer.from(text, 'base64');
    // Only what really is a PDF counts: references, formats and messages sit beside the documents.
    if (bytes.subarray(0, 5).toString('latin1') !== '%PDF-') return;
    const key = `${bytes.length}:${bytes.subarray(-64).toString('base64')}`;
    if (seen.has(key)) return;
    seen.add(key);
    const base = `${stem}-${safeFileStem(label.toLowerCase().replace(/[\s_]+/g, '-'))}`;
    let name = `${base}.pdf`;
    for (let i = 2; out.some((o) => o.name === name); i++) name = `${base}-${i}.pdf`;
    out.push({ label, name, bytes });
  };
  const GENERIC = new Set(['pdf', 'data', 'document', 'documents', 'content', 'base64', 'file']);
  const visit = (v: unknown, label: string): void => {
    if (typeof v === 'string') return add(label, v);
    if (Array.isArray(v)) return v.forEach((e) => visit(e, label));
    if (v && typeof v === 'object') {
      const o = v as Record<string, unknown>;
      const named = [o.name, o.type, o.document_type].find((x): x is string => typeof x === 'string' && x !== '');
      for (const [k, x] of Object.entries(o)) visit(x, named ?? (GENERIC.has(k) ? label : k));
    }
  };
  visit(doc.raw, 'documents');
  return out;
}

/** `containers invoice REF -o FILE.pdf`. */
export async function containerInvoice(ctx: Ctx, opts: { ref: string; output?: string }): Promise<void> {
  opts = { ...opts, output: stdoutAlias(opts.output), ref: await ownReference(ctx, opts.ref) };
  if (opts.output === '-' && ctx.mode.json) throw new UsageError('-o - writes the PDF to stdout; it cannot be combined with --json');
  const api = await ctx.api();
  const doc = await api.containers.commercialInvoice(opts.ref, { signal: ctx.signal }).catch((e: unknown) => {
    throw withCloseHint(e, opts.ref);
  });
  const bytes = bytesOf(doc, 'PDF', `commercial invoice for container ${opts.ref}`);
  if (opts.output === '-') {
    ctx.io.stdout.write(bytes);
    return;
  }
  const path = resolve(opts.output ?? `container-${safeFileStem(opts.ref)}-invoice.pdf`);
  writeFileAtomic(path, bytes);
  if (ctx.mode.json) return ctx.out.json({ reference: opts.ref, path, bytes: bytes.length });
  if (ctx.mode.quiet) return ctx.out.line(path);
  ctx.out.success(`Commercial invoice of container ${opts.ref} written to ${path}`);
}

/** A printer of deliverLabel's result, for a person: its name, else its address. */
function printerShown(p: unknown): string {
  const { url, name } = p as { url: string; name: string | null };
  return name ?? url;
}
