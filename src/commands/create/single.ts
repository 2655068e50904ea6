// `ship create` for one shipment (flags or --file): validate, create, write the labels, print the parcels.
import { accessSync, constants } from 'node:fs';
import type { Api, ShipmentResponse } from '../../api/index.js';
import { classifyFailure } from '../../bulk/runner.js';
import type { Ctx } from '../../context.js';
import { ExitCode, Interrupted, ShipError, UsageError, ValidationError } from '../../errors.js';
import { LabelNamer, parseLabelFormat } from '../../labels/index.js';
import { mergePdfs } from '../../labels/index.js';
import { loadSingleShipment, locateApiProblems } from '../../shipment-input/index.js';
import { printDryRun, problemText } from './render.js';
import { extraFields, type CreateOptions } from './run.js';
import { createShipment, findShipment, isDuplicateReference, LabelsNotWritten, shipmentExists, type Created, type LabelPolicy } from './shipment.js';
import { abortableSleep } from '../../util/sleep.js';
import { preparePrinter, printLabelFiles } from './printing.js';
import { printerName, type PrinterTarget } from '../../printer/index.js';
import { resendRestHint } from '../shared/printer-flag.js';
import { makeDirSync } from '../../util/mkdir.js';
import { accountReadSignal } from '../shared/account-read.js';
import type { CustomFieldsBody } from '../../csv/custom-field-rules.js';

/** Creates one shipment and prints its parcels (table), tracking references (--quiet) or JSON (--json). */
export async function runSingleCreate(ctx: Ctx, o: CreateOptions): Promise<void> {
  const input = await loadSingleShipment(ctx, o, { purpose: 'create', extra: extraFields(o) });
  for (const w of input.warnings) ctx.out.warn(problemText(w));
  const ref = String(input.body.shipment_reference);
  if (o.dryRun) {
    const parcels = input.body.parcels ?? [];
    await printDryRun(ctx, [{ reference: ref, body: input.body, parcels: parcels.length, items: parcels.reduce((n, p) => n + (p.items?.length ?? 0), 0) }], { jsonLines: false });
    ctx.out.info('Dry run: valid, nothing sent.');
    return;
  }

  const api = await ctx.api();
  const printer = await preparePrinter(ctx, o);
  // The format asked for: --format, else a --file body's own, else the default (see extraFields).
  const format = parseLabelFormat(String(input.body.format ?? '')) ?? o.format;
  // Before anything is created: merging ZPL or PNG labels failed after the shipment was made, hiding it.
  if (o.merge && format !== 'PDF') {
    // Name where the format came from: the --file body's own "format", or the default (label_format, else ZPL).
    const fromFile = input.locate('format').column !== '--format';
    const given = fromFile ? `${o.file ?? 'the request'} asks for ${format}` : `${o.file ?? 'the request'} names no "format" and the default is ${format}`;
    throw new UsageError(`--merge joins PDF labels, and ${given}: add --format PDF`);
  }
  // A label directory that cannot be made or written to is found before the shipment exists, not after.
  if (o.labels) {
    makeDirSync(o.outputDir);
    accessSync(o.outputDir, constants.W_OK);
  }
  const policy: LabelPolicy = { dir: o.outputDir, format, write: o.labels, namer: new LabelNamer(o.outputDir) };
  let created: Created;
  let response: ShipmentResponse[] | undefined;
  // Created, but no label file: the shipment is shown as usual, then the run fails (exit 1) saying so.
  let labelsFailed: LabelsNotWritten | undefined;
  // A request whose outcome is unknown (a timeout, a reset, a 5xx) is sent once more, after a look-up
  // (api-notes: re-post a shipment only once it is known whether it exists). Found, it is sent all the same: it
  // may be a cancelled shipment whose reference this one reuses (the look-up cannot tell), and the service
  // refuses a live duplicate, which is then fetched.
  let unknownError: unknown;
  // Fetched after the service refused the resend as a duplicate: made by the first request, whose answer was lost.
  let foundAfterUnknown = false;
  for (;;) {
    try {
      ({ created, response } = await createShipment(api, input.body, policy));
      break;
    } catch (e) {
      await explainCustomFields(ctx, api, e, input.body);
      locateApiProblems(e, input);
      if (e instanceof LabelsNotWritten) {
        created = e.created;
        response = e.response;
        labelsFailed = e;
        break;
      }
      if (isDuplicateReference(e) && unknownError !== undefined) {
        created = await existingAfterUnknown(ctx, api, ref, policy, unknownError);
        foundAfterUnknown = true;
        break;
      }
      if (isDuplicateReference(e)) {
        const err = e as ValidationError;
        err.hint = `a shipment ${ref} exists already: \`ship track ${ref}\` shows it; to change it, \`ship cancel ${ref}\` and create it again`;
        throw err;
      }
      if (unknownError === undefined && classifyFailure(e).unknownOutcome) {
        unknownError = e;
        // A moment first: a request the service is still working on has finished by then.
        await abortableSleep(UNKNOWN_SETTLE_MS, ctx.signal);
        const exists = await shipmentExists(api, ref).catch(() => undefined);
        if (exists === undefined) throw withHint(e, `the shipment may or may not exist: check with \`ship track ${ref}\` before creating it again`);
        ctx.out.warn(
          `the create request ended in an error (${errorText(e)}); ${exists ? `a shipment ${ref} exists, perhaps a cancelled one: sending it again (the service refuses a live duplicate)` : `no shipment ${ref} exists: sending it again`}`,
        );
        continue;
      }
      if (unknownError !== undefined) {
        throw withHint(e, `the first attempt (${errorText(unknownError)}) may or may not have created it: check with \`ship track ${ref}\` before creating it again`);
      }
      throw e;
    }
  }

  if (created.label_error) ctx.out.warn(created.label_error);
  // A printer that fails does not hide the shipment it was printing for: shown first, then the error.
  let printFailed: unknown;
  let sent = 0;
  if (printer && !labelsFailed) {
    // Ctrl-C while sending finishes the label under way and stops there; the shipment is shown, then what was not sent.
    const release = ctx.holdInterrupts();
    await printLabelFiles(ctx, printer, created.labels, () => sent++, o.printerTimeoutMs)
      .catch((e: unknown) => (printFailed = e ?? new Error('printer failed')))
      .finally(release);
  }
  if (o.merge && created.labels.length) {
    await mergePdfs(created.labels, o.merge);
    ctx.out.info(`Labels merged into ${o.merge}`);
  }
  await show(ctx, o, ref, created, response, foundAfterUnknown);
  // Ctrl-C while the last label was being sent (one earlier would have stopped the next: printFailed): it was
  // finished and none is left, but the run was interrupted all the same (exit 130, as `ship label` says it).
  if (printer && printFailed === undefined && sent > 0 && sent === created.labels.length && ctx.signal.aborted) {
    throw allLabelsSent(ref, printer, sent, o.outputDir, ctx.signal.reason instanceof Interrupted ? ctx.signal.reason.signal : undefined);
  }
  if (printFailed !== undefined) {
    const name = printer!.name ?? printer!.url;
    // Some of its labels went out: `ship print REF` would send those again; name the parcels still to send
    // (one label file per parcel, in parcel order), as the bulk run does.
    const rest = sent > 0 && created.tracking_references.length === created.labels.length ? created.tracking_references.slice(sent) : [];
    const resend = rest.length
      ? `send only the parcels not sent: ${resendRestHint(ref, name, rest, sent)}`
      : `\`ship print ${ref} --printer ${name}\``;
    const notSent = `${sent === 0 ? 'its labels were' : `${created.labels.length - sent} of its ${created.labels.length} labels were`} not sent to printer ${name}`;
    // Interrupted is shown as its message alone (exit 130): the way on goes in it.
    if (printFailed instanceof Interrupted) {
      throw new Interrupted(`interrupted: shipment ${ref} was created, but ${notSent}; do not create it again: ${resend}`, printFailed.signal);
    }
    throw new ShipError(
      `shipment ${ref} was created, but ${notSent}: ${printFailed instanceof Error ? printFailed.message : String(printFailed)}`,
      ExitCode.Failure,
      { cause: printFailed, hint: `do not create it again; when the printer is back: ${resend} (the label files are in ${o.outputDir})` },
    );
  }
  if (labelsFailed) {
    const first = created.tracking_references[0];
    // A trailing separator: `ship label -o DIR/` writes into DIR (made if missing); `-o DIR` names a file when
    // DIR does not exist, and the cause may well have been that DIR could not be made.
    const dirArg = /[\\/]$/.test(o.outputDir) ? o.outputDir : `${o.outputDir}/`;
    throw new ShipError(labelsFailed.message, ExitCode.Failure, {
      cause: labelsFailed,
      hint: first
        ? `do not create it again; once the cause is fixed, \`ship label ${first} -o ${dirArg}\` writes its label (one such command per parcel)`
        : `do not create it again: \`ship track ${ref}\` shows it`,
    });
  }
}

/**
 * Ctrl-C came while the last of a created shipment's labels was being sent: that label was finished, so every
 * one went out whole and nothing is left to send; pressed while they printed, the user cannot tell, and sending
 * them again would print them twice. Interrupted is shown as its message alone, so all of it is in the message.
 */
function allLabelsSent(ref: string, printer: PrinterTarget, n: number, dir: string, signal: NodeJS.Signals | undefined): Interrupted {
  const where = printerName(printer);
  const what =
    n === 1
      ? `its label being sent was finished: it went to printer ${where} whole, and nothing is left to send (the label file is in ${dir}). Do not create it again, nor send its label again unless it did not print`
      : `the last of its labels being sent was finished: all ${n} went to printer ${where} whole, and nothing is left to send (the label files are in ${dir}). Do not create it again, nor send its labels again unless they did not print`;
  return new Interrupted(`interrupted: shipment ${ref} was created, and ${what}`, signal);
}

/**
 * The shipment a create whose outcome was unknown made after all: sent again, the service refused it as a
 * duplicate. Fetched (its labels written as usual); a failure to fetch it says how to look.
 */
async function existingAfterUnknown(ctx: Ctx, api: Api, ref: string, policy: LabelPolicy, unknown: unknown): Promise<Created> {
  const lookHint = `the service refused ${ref} as a duplicate: \`ship track ${ref}\` shows it`;
  let found;
  try {
    found = await findShipment(api, ref, policy);
  } catch (e) {
    throw withHint(e, lookHint);
  }
  if (found.status !== 'done') {
    throw new ShipError(`the create request ended in an error (${errorText(unknown)}); sent again, it was refused as a duplicate, yet no shipment ${ref} is found`, ExitCode.Failure, { hint: lookHint });
  }
  ctx.out.warn(`the create request ended in an error (${errorText(unknown)}), but shipment ${ref} exists: using it`);
  return found.result;
}

/** How long a create whose outcome is unknown waits before it is looked up and sent again. */
const UNKNOWN_SETTLE_MS = 500;

/** The error with this hint: what to do now, in place of the API layer's generic one. */
function withHint(e: unknown, hint: string): unknown {
  if (e instanceof Error) (e as Error & { hint?: string }).hint = hint;
  return e;
}

const errorText = (e: unknown): string => (e instanceof Error ? e.message : String(e));

/** Prints a created shipment: JSON (--json), its tracking references (--quiet) or a table of its parcels. */
async function show(ctx: Ctx, o: CreateOptions, ref: string, created: Created, response: ShipmentResponse[] | undefined, found = false): Promise<void> {
  if (ctx.mode.json) {
    if (response) {
      ctx.out.json(
        response.map((r, i) => {
          const { zpl: _z, pdf: _p, png: _g, ...rest } = r;
          return { ...rest, label_path: created.labels[i] ?? null };
        }),
      );
    } else {
      ctx.out.json(created.tracking_references.map((t, i) => ({ shipment_reference: ref, tracking_reference: t, label_path: created.labels[i] ?? null })));
    }
    return;
  }
  if (ctx.mode.quiet) {
    for (const t of created.tracking_references) ctx.out.line(t);
    return;
  }
  const n = Math.max(created.tracking_references.length, response?.length ?? 0);
  const price = created.price ? `, price ${created.price}` : '';
  // Found after a lost answer, it is known by its tracking events only: no carrier, service or price to show.
  const what = found ? `Created shipment ${ref} (by the first request, whose answer was lost)` : `Created shipment ${ref}`;
  ctx.out.success(`${what}: ${n} parcel${n === 1 ? '' : 's'}${created.carrier ? `, ${created.carrier}` : ''}${created.service ? ` ${created.service}` : ''}${price}`);
  const rows = Array.from({ length: n }, (_, i) => ({
    n: i + 1,
    parcel: response?.[i]?.parcel_reference ?? '',
    tracking: response?.[i]?.tracking_reference ?? created.tracking_references[i] ?? '',
    carrier: response?.[i]?.carrier ?? created.carrier ?? '',
    service: response?.[i]?.service_name ?? created.service ?? '',
    label: created.labels[i] ?? (o.labels ? '' : '(not written)'),
  }));
  await ctx.out.table(rows, [
    { header: '#', value: (r) => r.n, align: 'right' },
    { header: 'Parcel', value: (r) => r.parcel },
    { header: 'Tracking', value: (r) => r.tracking },
    { header: 'Carrier', value: (r) => r.carrier },
    { header: 'Service', value: (r) => r.service },
    { header: 'Label', value: (r) => r.label },
  ]);
}

/**
 * A refusal of custom field values says the account's rules (a LIST's choices, a length, the key meant), as a
 * CSV's check does, instead of the API's bare "is invalid": read from GET /custom-fields only then, so a create
 * that succeeds costs no extra request. Left as the API said it when the fields cannot be read.
 */
async function explainCustomFields(ctx: Ctx, api: Api, err: unknown, body: object): Promise<void> {
  if (!(err instanceof ValidationError) || !Object.keys(err.fields).some((p) => /(^|\.)custom_fields\./.test(p))) return;
  try {
    const defs = await api.customFields.list({ signal: accountReadSignal(ctx, true) });
    const { explainCustomFieldRefusals } = await import('../../csv/custom-field-rules.js');
    explainCustomFieldRefusals(err.fields, body as CustomFieldsBody, defs);
  } catch (e) {
    if (ctx.signal.aborted) throw e;
  }
}
