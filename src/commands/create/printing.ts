// --printer for create: resolve the printer and ask it for its status before the first label (~HS preflight),
// then send each shipment's ZPL files in input order. A raw port gives no acknowledgement: labels are "sent".
import { readFile } from 'node:fs/promises';
import type { Ctx } from '../../context.js';
import type { PrinterTarget } from '../../printer/index.js';

/** Resolves --printer (address or profile name) and runs the preflight; undefined without --printer. */
export async function preparePrinter(ctx: Ctx, o: { printer?: string; preflight: boolean; printerTimeoutMs?: number }): Promise<PrinterTarget | undefined> {
  if (o.printer === undefined) return undefined;
  const { resolvePrinter, preflight } = await import('../../printer/index.js');
  const target = await resolvePrinter(ctx, o.printer);
  if (!target) return undefined;
  if (o.preflight) await preflight(target, { timeoutMs: o.printerTimeoutMs });
  return target;
}

/**
 * Sends label files to the printer, one after another, unchanged (timeoutMs: connection and idle timeout, default
 * 5 s). After Ctrl-C (ctx.signal) no further label is started: Interrupted is thrown, onSent having counted the sent.
 */
export async function printLabelFiles(ctx: Ctx, target: PrinterTarget, paths: readonly string[], onSent?: (index: number) => void, timeoutMs?: number): Promise<number> {
  if (paths.length === 0) return 0;
  const { sendLabels } = await import('../../printer/index.js');
  async function* bytes() {
    for (const p of paths) yield await readFile(p);
  }
  const n = await sendLabels(target, bytes(), { onSent, timeoutMs, signal: ctx.signal });
  ctx.out.debug(`sent ${n} label${n === 1 ? '' : 's'} to ${target.name ?? target.url}`);
  return n;
}

/**
 * The printer did not answer its status after a shipment's labels: whether it read them is not known (a printer
 * that took the connection and stopped reading, hung or rebooting: the bytes sat in the socket's buffers and the
 * labels counted as sent). They are owed, as if not sent.
 */
export class LabelsNotConfirmed extends Error {
  constructor(cause: unknown) {
    super(cause instanceof Error ? cause.message : String(cause), { cause });
    this.name = 'LabelsNotConfirmed';
  }
}

/**
 * Asks the printer for its status (~HS) once a shipment's labels were sent (with the preflight, which showed it
 * answers): the question travels on the next connection, which a raw port serves once it has read the one
 * before, so an answer says the labels reached the printer. No answer: LabelsNotConfirmed. An answer saying
 * paper out, head open or paused: PrinterError (the labels it read print once it is fixed; no more are sent).
 */
export async function confirmLabelsRead(target: PrinterTarget, timeoutMs?: number): Promise<void> {
  const { queryHostStatus, blockingProblems, PrinterError } = await import('../../printer/index.js');
  let status: Awaited<ReturnType<typeof queryHostStatus>>;
  try {
    status = await queryHostStatus(target, { timeoutMs });
  } catch (e) {
    throw new LabelsNotConfirmed(e);
  }
  const problems = blockingProblems(status);
  if (problems.length) {
    throw new PrinterError(`printer ${target.name ?? target.url} reports ${problems.join(', ')}: no more labels sent to it`, {
      hint: 'fix the printer; the labels it has already read come out then',
    });
  }
}
