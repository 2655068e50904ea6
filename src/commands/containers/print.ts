// Sending a container label to a raw ZPL printer (tcp://HOST:PORT or a configured printer name).
import type { Ctx } from '../../context.js';
import { UsageError } from '../../errors.js';
import type { PrinterTarget } from '../../printer/index.js';

/** How to talk to the printer: --no-preflight (preflight false) and --printer-timeout in ms. */
export interface PrinterTalk {
  preflight?: boolean;
  timeoutMs?: number;
}

/** Resolves --printer (or the profile's default printer) and checks with ~HS that it is ready (unless --no-preflight). */
export async function readyPrinter(ctx: Ctx, printer: string | undefined, talk: PrinterTalk = {}): Promise<PrinterTarget> {
  const { resolvePrinter, preflight } = await import('../../printer/index.js');
  const target = await resolvePrinter(ctx, printer);
  if (!target) {
    throw new UsageError('no printer to print on', { hint: 'pass --printer tcp://HOST:PORT (or a printer name from your profile), or -o FILE to save the label' });
  }
  if (talk.preflight === false) return target;
  const status = await preflight(target, { timeoutMs: talk.timeoutMs });
  ctx.out.debug(`printer ${target.url} ready (${status.formatsInBuffer} formats in buffer)`);
  return target;
}

/** Sends ZPL bytes unchanged to a ready printer. */
export async function sendZpl(ctx: Ctx, target: PrinterTarget, bytes: Uint8Array, talk: PrinterTalk = {}): Promise<void> {
  const { sendRaw } = await import('../../printer/index.js');
  await sendRaw(target, bytes, { timeoutMs: talk.timeoutMs });
  ctx.out.debug(`sent ${bytes.length} bytes to ${target.url}`);
}
