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
