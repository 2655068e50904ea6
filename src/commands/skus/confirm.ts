// The question --replace asks before a PUT resets every attribute a request leaves out (import and update).
import type { Ctx } from '../../context.js';
import { confirmOrRefuse } from '../shared/confirm.js';

/**
 * True when a --replace may go ahead: --yes given, or the person at the terminal said yes. Without a terminal
 * and without --yes it refuses (a script must say so explicitly: the attributes it leaves out are reset).
 */
export function confirmReplace(ctx: Ctx, opts: { yes: boolean; what: string; question: string }): Promise<boolean> {
  return confirmOrRefuse(ctx, { yes: opts.yes, question: opts.question, needs: `--replace overwrites every attribute of ${opts.what} and` });
}
