// The one question asked before an irreversible step (a container closed or deleted, attributes reset by --replace).
import type { Ctx } from '../../context.js';
import { UsageError } from '../../errors.js';

/**
 * True when the step may go ahead: --yes given, or the person at the terminal said yes. Without a terminal and
 * without --yes it refuses: a script must say so explicitly. `needs` names the step in that refusal ("deleting
 * container C needs confirmation…").
 */
export async function confirmOrRefuse(ctx: Ctx, opts: { yes: boolean; question: string; needs: string }): Promise<boolean> {
  if (opts.yes) return true;
  if (!ctx.mode.interactive) {
    throw new UsageError(`${opts.needs} needs confirmation, and there is no terminal to ask on`, { hint: 'pass --yes to confirm in scripts' });
  }
  return ctx.prompt.confirm({ message: opts.question, supplyWith: '--yes', default: false });
}
