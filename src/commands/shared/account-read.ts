// Reading what the account defines (its custom fields, services…) to check a file against it before sending:
// a real run waits as long as any request; a dry run may be offline, so it waits a little, then goes on and
// says what it could not check.
import type { Ctx } from '../../context.js';

/** How long a dry run waits for the account before going on without it. */
const DRY_RUN_WAIT_MS = 10_000;

/** The signal of such a read: the run's own, cut short after DRY_RUN_WAIT_MS in a dry run. */
export function accountReadSignal(ctx: Ctx, dryRun: boolean): AbortSignal {
  return dryRun ? AbortSignal.any([ctx.signal, AbortSignal.timeout(DRY_RUN_WAIT_MS)]) : ctx.signal;
}

/** Why such a read failed, for the dry run's warning. */
export function unreadReason(e: unknown): string {
  if (e instanceof Error && e.name === 'TimeoutError') return `no answer in ${DRY_RUN_WAIT_MS / 1000} s`;
  return e instanceof Error ? e.message : String(e);
}
