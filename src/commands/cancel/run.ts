// `ship cancel`: DELETE /shipments/:ref for each reference, through the bulk runner (no journal: cancelling
// twice is harmless — a shipment cancelled already is reported as such, not as a failure), one result per reference.
import type { Ctx } from '../../context.js';
import { ApiError, NotFoundError, UsageError, ValidationError } from '../../errors.js';
import { runBulkCommand } from '../../bulk/command.js';
import { errorMessage, type BulkResult } from '../../bulk/runner.js';
import { collectRefs, listGiven } from '../shared/read-lines.js';

/** Options of `ship cancel`. */
export interface CancelOptions {
  refs: string[];
  from?: string;
  concurrency: number;
  /** --yes: no question at a terminal. */
  yes?: boolean;
}

interface Cancelled {
  message: string;
}

/** Cancels each shipment; one result per reference; exit 3 if some failed (a single reference: its own code). */
export async function run(ctx: Ctx, opts: CancelOptions): Promise<void> {
  const refs = await collectRefs(ctx, opts.refs, opts.from, 'cancel');
  if (refs.length === 0) {
    // A list given but empty (a quiet day's file of cancellations) is nothing to do; no list at all is a usage error.
    const list = listGiven(opts.refs, opts.from);
    if (list === undefined) throw new UsageError('give at least one shipment reference, --from FILE, or - for stdin');
    ctx.out.info(`nothing to cancel: ${list} holds no references (blank lines and comments do not count)`);
    return;
  }
  const api = await ctx.api();
  const seen = new Set<string>();
  const unique = refs.filter((r) => (seen.has(r) ? false : (seen.add(r), true)));
  if (unique.length < refs.length) ctx.out.warn(`${refs.length - unique.length} repeated reference(s) ignored`);

  // Cancelling cannot be undone (and the labels still count toward usage): a person at a terminal is asked
  // once; scripts (no terminal, CI, --no-input) never are.
  if (ctx.mode.interactive && !opts.yes) {
    const settings = await ctx.settings();
    // Four are named rather than "three and 1 more".
    const shown = unique.length <= 4 ? unique.join(', ') : `${unique.slice(0, 3).join(', ')} and ${unique.length - 3} more`;
    const ok = await ctx.prompt.confirm({
      message: `Cancel ${unique.length === 1 ? 'shipment' : `${unique.length} shipments`} ${shown} on ${settings.baseUrl.value}?`,
      supplyWith: '--yes',
      default: false,
    });
    if (!ok) {
      ctx.out.info('Nothing cancelled.');
      return;
    }
  }
  const tasks = unique.map((ref) => ({ key: ref, rows: [] as number[], input: ref }));
  await runBulkCommand<string, Cancelled>(ctx, {
    noun: 'shipments',
    createdWord: 'cancelled',
    tasks,
    total: tasks.length,
    concurrency: opts.concurrency,
    // The API layer already retries DELETE on network errors and 429/5xx.
    retries: 0,
    progress: tasks.length > 5,
    singleTaskOwnError: true,
    hooks: {
      idempotent: true,
      async execute(task) {
        try {
          return await api.shipments.cancel(task.input);
        } catch (e) {
          // Cancelling is what was asked; a shipment cancelled before (by an earlier run of the same list,
          // or in the portal) is no failure: scripts can rerun a cancel list safely.
          if (isAlreadyCancelled(e)) return { message: ALREADY_CANCELLED };
          throw explain(task.input, e);
        }
      },
    },
    jsonLine: (r) => {
      const line: Record<string, unknown> = {
        shipment_reference: r.task.key,
        status: r.status === 'failed' ? 'failed' : 'cancelled',
      };
      if (r.result) line.message = r.result.message;
      if (r.error) Object.assign(line, errorJson(r.error));
      return line;
    },
    textLine: (r) => textLine(ctx, r),
    quietLine: (r) => (r.status === 'failed' ? undefined : r.task.key),
  });
}

function textLine(ctx: Ctx, r: BulkResult<string, Cancelled>): string {
  if (ctx.io.stdoutIsTTY) {
    const c = ctx.out.c;
    return r.status === 'failed'
      ? `${c.red('✗')} ${r.task.key}: ${errorMessage(r.error)}`
      : `${c.green('✓')} Cancelled ${r.task.key}${r.result?.message && !/^shipment cancelled$/i.test(r.result.message) ? ` (${r.result.message})` : ''}`;
  }
  if (r.status === 'failed') return `failed\t${r.task.key}\t${errorMessage(r.error)}`;
  return r.result?.message === ALREADY_CANCELLED ? `cancelled\t${r.task.key}\t${ALREADY_CANCELLED}` : `cancelled\t${r.task.key}`;
}

/** The error fields of a JSON result line. */
export function errorJson(err: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = { error: errorMessage(err) };
  if (err instanceof ApiError && err.http.status !== undefined) out.http_status = err.http.status;
  if (err instanceof ValidationError) out.fields = err.fields;
  return out;
}

/** The message of a result whose shipment had been cancelled already. */
const ALREADY_CANCELLED = 'already cancelled';

/** The API's refusal because the shipment is cancelled already (a validation error on shipment_reference). */
export function isAlreadyCancelled(err: unknown): boolean {
  return err instanceof ValidationError && /already (been )?cancel/i.test(refusalText(err));
}

/** Everything a validation error says (its message and every field message), to recognise a refusal by. */
function refusalText(err: ValidationError): string {
  return [err.message, ...Object.values(err.fields).flat()].join(' ');
}

/** Turns the API's refusal into a message a person can act on. */
function explain(ref: string, err: unknown): unknown {
  if (err instanceof NotFoundError) {
    return new NotFoundError(`shipment ${ref} not found`, err.http, { hint: 'check the reference (cancel takes the shipment reference)' });
  }
  if (err instanceof ApiError && !(err instanceof ValidationError) && err.http.status !== undefined && err.http.status >= 400 && err.http.status < 500) {
    const text = `${err.http.apiMessage ?? err.message}`;
    if (/manifest/i.test(text)) {
      return new ValidationError(
        `shipment ${ref} has already been manifested to the carrier and can no longer be cancelled`,
        {},
        err.http,
      );
    }
  }
  if (err instanceof ValidationError) {
    if (/manifest/i.test(refusalText(err))) {
      // The API's own field messages stay with it (a script reading --json sees what the service said).
      return new ValidationError(`shipment ${ref} has already been manifested to the carrier and can no longer be cancelled`, err.fields, err.http);
    }
  }
  return err;
}
