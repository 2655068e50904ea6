// The question --replace asks before a PUT resets every attribute a request leaves out (import and update).
import type { Ctx } from '../../context.js';
import { UsageError } from '../../errors.js';

/**
 * True when a --replace may go ahead: --yes given, or the person at the terminal said yes. Without a terminal
 * and without --yes it refuses (a script must say so explicitly: the attributes it leaves out are reset).
 */
export async function confirmReplace(ctx: Ctx, opts: { yes: boolean; what: string; question: string }): Promise<boolean> {
  if (opts.yes) return true;
  if (!ctx.mode.interactive) {
    throw new UsageError(`--replace overwrites every attribute of ${opts.what} and needs confirmation, and there is no terminal to ask on`, {
      hint: 'pass --yes to confirm in scripts',
    });
  }
  return ctx.prompt.confirm({ message: opts.question, supplyWith: '--yes', default: false });
}
