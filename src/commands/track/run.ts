// `ship track`: fetches tracking events per shipment (or parcel) and renders one timeline per parcel;
// --watch polls until every parcel has reached a final stage.
import type { Ctx } from '../../context.js';
import { cellWidth } from '../../output/width.js';
import { ApiError, AuthError, Interrupted, NotFoundError, PartialFailure, ServiceFailure, TimedOut, UsageError } from '../../errors.js';
import type { Api, TrackingEvent } from '../../api/index.js';
import { errorMessage, isServiceFailure, isUnreachable } from '../../bulk/runner.js';
import { FINAL_STAGES, renderTimeline, sortEvents, stageLabel, type ParcelTimeline } from './render.js';
import { collectRefs, listGiven } from '../shared/read-lines.js';
import { inert } from '../../output/inert.js';

/** Options of `ship track`. */
export interface TrackOptions {
  refs: string[];
  /** --from FILE ("-" for stdin): more references, one per line. */
  from?: string;
  parcel: boolean;
  watch: boolean;
  intervalMs: number;
  /** --max-wait: stop watching after this long (exit 1 when parcels are not final by then). */
  maxWaitMs?: number;
}

/** What one reference resolved to: its parcels' timelines, or the error that stopped it. */
export interface TrackedShipment {
  /** As the user gave it (a shipment reference or ID, or with --parcel a tracking reference). */
  reference: string;
  /** The shipment's own reference, as the API names it (a shipment found by its ID says it here). */
  shipmentReference?: string;
  parcels: ParcelTimeline[];
  error?: unknown;
  /** Tracked before, then answered 404 while watched: no longer polled (its last timeline is kept). */
  gone?: boolean;
}

/** How long after --max-wait the poll made as it ends may take to answer (see run). */
const POLL_GRACE_MS = 2000;

/** Prints timelines; with --watch polls until all parcels are final. Exit 5 / 3 when references failed. */
export async function run(ctx: Ctx, opts: TrackOptions): Promise<void> {
  const startedAt = ctx.clock.now().getTime();
  const refs = [...new Set(await collectRefs(ctx, opts.refs, opts.from, 'track'))];
  if (refs.length === 0) {
    // A list given but empty is nothing to track (a script gets its one JSON document, empty); none at all is a usage error.
    const list = listGiven(opts.refs, opts.from);
    if (list === undefined) throw new UsageError('no references to track: give at least one (blank lines and comments do not count)');
    if (ctx.mode.json) ctx.out.json(toJson([]));
    ctx.out.info(`nothing to track: ${list} holds no references (blank lines and comments do not count)`);
    return;
  }
  const api = await ctx.api();
  // --max-wait bounds the whole watch, a poll still waiting for its answer included (the service may hang): the
  // last poll, made as --max-wait ends, has POLL_GRACE_MS to answer. A poll cut by it is undefined.
  const deadline = opts.watch && opts.maxWaitMs !== undefined ? startedAt + opts.maxWaitMs : undefined;
  const poll = async (st: TrackedShipment[]): Promise<TrackedShipment[] | undefined> => {
    if (deadline === undefined) return fetchAll(api, st, opts.parcel);
    const cut = AbortSignal.timeout(Math.max(0, deadline - ctx.clock.now().getTime()) + POLL_GRACE_MS);
    try {
      return await fetchAll(api, st, opts.parcel, AbortSignal.any([ctx.signal, cut]));
    } catch (e) {
      if (cut.aborted && !ctx.signal.aborted) return undefined;
      throw e;
    }
  };
  const first = await poll(refs.map((reference) => ({ reference, parcels: [] })));
  if (first === undefined) {
    throw new TimedOut(`stopped watching after --max-wait ${opts.maxWaitMs! / 1000}s: the service did not answer the first poll`, {
      hint: 'check the service (`ship doctor`); --max-wait bounds the whole watch, waiting for answers included',
    });
  }
  let state = first;

  // One reference that cannot be tracked is just an error (said once, on stderr, like `ship label NOPE`),
  // with or without --watch (waiting will not make it trackable); among several, its place in the output
  // says which one failed.
  if (state.length === 1 && state[0].error) return finish(state);
  if (!opts.watch) {
    output(ctx, state);
    return finish(state);
  }

  // The timeline is redrawn in place (or followed line by line): a spinner would tear it.
  ctx.out.wait.suspend();
  // --quiet follows as a script would read it, a line per parcel whose status changed: never a redrawn timeline.
  const redraw = ctx.io.stdoutIsTTY && !ctx.mode.json && !ctx.mode.quiet && !ctx.mode.dumbTerminal;
  const seen = new Set<string>();
  const shownStatus = new Map<string, string>();
  // Polls that failed in a row (the service down, the network), and the last one's error: said, not hidden
  // behind the last known timeline.
  let failedPolls = 0;
  let pollError: unknown;
  let drawnLines = 0;
  let drawnText = '';
  let drawnColumns: number | undefined;
  const show = (watching = true) => {
    if (ctx.mode.json) return;
    if (redraw) {
      const limit = opts.maxWaitMs !== undefined ? ` · for up to ${opts.maxWaitMs / 1000}s` : '';
      const failing = failedPolls ? `\n${ctx.out.c.yellow(`${pollFailureText(failedPolls, pollError)}; showing the last known state`)}` : '';
      const footer = watching ? `\n${ctx.out.c.dim(`watching · every ${opts.intervalMs / 1000}s${limit} · Ctrl-C to stop`)}${failing}\n` : '';
      const text = renderAll(ctx, state) + footer;
      const columns = ctx.io.columns;
      const reach = redrawFrom(drawnLines, drawnColumns, columns, ctx.io.rows);
      // Taller than the screen: each redraw leaves a copy of the top in the scrollback, so only a change is drawn.
      if (reach === 'screen' && drawnColumns === columns && text === drawnText) return;
      // Move up over the previous drawing and blank it row by row, so the timeline updates in place; when that
      // drawing is out of reach (resized, or taller than the screen), clear the screen and draw from its top
      // instead. Not "clear to the end of the screen" from its top: at the screen's top-left that is clearing the
      // whole screen, which tmux (scroll-on-clear) keeps a copy of in its history, one per poll.
      if (reach === 'up') ctx.io.stdout.write(`\x1b[${drawnLines}A${'\x1b[2K\n'.repeat(drawnLines)}\x1b[${drawnLines}A`);
      else if (reach === 'screen') ctx.io.stdout.write('\x1b[H\x1b[J');
      // (Event descriptions come from the API: shown, not obeyed by the terminal.)
      const shown = inert(text);
      ctx.io.stdout.write(shown);
      drawnLines = screenRows(shown, columns);
      drawnText = text;
      drawnColumns = columns;
    } else {
      if (ctx.mode.quiet) {
        for (const st of state) {
          for (const p of st.parcels) {
            const status = latestType(p);
            if (shownStatus.get(p.tracking_reference) === status) continue;
            shownStatus.set(p.tracking_reference, status);
            ctx.out.line(`${p.tracking_reference}\t${status}`);
          }
        }
      } else for (const line of newEventLines(state, seen)) ctx.out.line(line);
      // As without --watch: a reference that cannot be tracked is said on stderr (once), naming it. A lone
      // reference's error is the command's own, which main.ts says when it ends.
      for (const s of state.length === 1 ? [] : state) {
        if (!s.error || seen.has(`\u0001${s.reference}`)) continue;
        seen.add(`\u0001${s.reference}`);
        ctx.io.stderr.write(`${ctx.out.c.red('error:')} ${s.reference}: ${errorMessage(s.error)}\n`);
      }
    }
  };
  show();
  // With --json the document comes at the end: a script that stops the watch (Ctrl-C, `timeout`) still gets
  // the last known state, so the first signal ends the loop instead of the process. So on a terminal too: the
  // last drawing stays, without its "watching · Ctrl-C to stop" line, and it says it stopped.
  const release = ctx.mode.json || redraw ? ctx.holdInterrupts({ quiet: !ctx.mode.json }) : undefined;
  let timedOut = false;
  try {
    while (!allFinal(state) && !ctx.signal.aborted) {
      const left = deadline === undefined ? opts.intervalMs : deadline - ctx.clock.now().getTime();
      if (left <= 0) {
        timedOut = true;
        break;
      }
      try {
        // The last wait is cut to the deadline, so the final poll comes when --max-wait ends, not after it.
        await ctx.clock.sleep(Math.min(opts.intervalMs, left), ctx.signal);
      } catch {
        break;
      }
      const polled = await poll(state);
      if (polled === undefined) {
        // The service did not answer before --max-wait ended: the last known state stands.
        timedOut = true;
        failedPolls++;
        pollError = new Error(`no answer within ${POLL_GRACE_MS / 1000}s after --max-wait ended`);
        break;
      }
      const failure = pollFailure(state, polled);
      state = merge(state, polled);
      if (failure !== undefined) {
        failedPolls++;
        pollError = failure;
        // Off the redrawn screen, said once when polls start failing (the footer says it on a terminal).
        if (failedPolls === 1 && !redraw) ctx.out.warn(`${pollFailureText(1, failure)}; the last known state stands, polling again every ${opts.intervalMs / 1000}s`);
      } else if (failedPolls) {
        if (!redraw) ctx.out.warn(`polling works again after ${failedPolls} failed poll${failedPolls === 1 ? '' : 's'}`);
        failedPolls = 0;
        pollError = undefined;
      }
      show();
      // Credentials refused now (a revoked token) will not come back by polling: stop, exit 4.
      if (state.some((s) => s.error instanceof AuthError)) break;
    }
  } finally {
    release?.();
  }
  // Watching is over (every parcel final, or Ctrl-C): the last drawing stays on screen without the line that
  // still said "watching · Ctrl-C to stop".
  if (redraw && drawnLines) show(false);
  if (ctx.mode.json) ctx.out.json(toJson(state));
  // The watch ends on a failed delivery as on a delivered one: said apart, so a log (or a person) sees which.
  const failedDelivery = state.flatMap((s) => (s.error ? [] : s.parcels.filter((p) => latestType(p) === 'DELIVERY_FAILED').map((p) => `${p.tracking_reference} (${s.reference})`)));
  if (failedDelivery.length) ctx.out.warn(`delivery failed: ${failedDelivery.join(', ')}`);
  if (ctx.signal.aborted) throw new Interrupted('stopped watching');
  if (timedOut && !state.some((s) => s.error instanceof AuthError)) throw timedOutError(state, opts.maxWaitMs!, failedPolls ? pollFailureText(failedPolls, pollError) : undefined);
  return finish(state);
}

/**
 * The error of a poll that could not read a reference tracked so far, for a reason that may pass (the service
 * down, the network): merge() keeps its last timeline. Undefined when the poll read every such reference.
 */
function pollFailure(before: TrackedShipment[], next: TrackedShipment[]): unknown {
  for (let i = 0; i < next.length; i++) {
    const e = next[i].error;
    const last = before[i];
    if (e === undefined || !last || last.gone || last.error) continue;
    if (e instanceof NotFoundError || e instanceof AuthError) continue;
    return e;
  }
  return undefined;
}

function pollFailureText(failed: number, error: unknown): string {
  return `${failed === 1 ? 'the last poll' : `the last ${failed} polls`} failed (${errorMessage(error)})`;
}

/**
 * The next poll's results over the last known state. A reference that was tracked and now answers 404 was
 * deleted or cancelled in the service: it is said once and no longer polled (polling it would go on forever);
 * other failures (5xx, network) keep the last known timeline and are polled again; a refusal (401/403) stops.
 */
function merge(before: TrackedShipment[], next: TrackedShipment[]): TrackedShipment[] {
  return next.map((s, i) => {
    const last = before[i];
    if (!s.error || !last || last.gone || last.error) return s;
    if (s.error instanceof NotFoundError) {
      const what = last.shipmentReference !== undefined ? 'shipment' : 'parcel';
      const error = new NotFoundError(
        `${what} ${JSON.stringify(s.reference)} is no longer found (HTTP 404: deleted or cancelled in the service?); stopped watching it`,
        s.error.http,
      );
      return { ...last, error, gone: true };
    }
    if (s.error instanceof AuthError) return { ...last, error: s.error };
    return last;
  });
}

/** --max-wait ran out: which references are not delivered yet, at which stage (exit 1). */
function timedOutError(state: TrackedShipment[], maxWaitMs: number, polling?: string): TimedOut {
  const waiting = state.filter((s) => !s.error && !(s.parcels.length > 0 && s.parcels.every((p) => FINAL_STAGES.has(latestType(p)))));
  const SHOWN = 10;
  const listed = waiting.slice(0, SHOWN).map((s) => {
    const stages = [...new Set(s.parcels.filter((p) => !FINAL_STAGES.has(latestType(p))).map((p) => stageLabel(latestType(p) || undefined)))];
    return `${s.reference} (${stages.length ? stages.join(', ') : 'no parcels'})`;
  });
  const more = waiting.length > SHOWN ? ` and ${waiting.length - SHOWN} more` : '';
  const failed = state.filter((s) => s.error).length;
  const untracked = failed ? `; ${failed} could not be tracked` : '';
  // Tracking has no event for a cancelled shipment: one cancelled before it was manifested stays at its label.
  const stuck = waiting.some((s) => s.parcels.length > 0 && s.parcels.every((p) => latestType(p) === 'LABEL_CREATED'));
  return new TimedOut(
    `stopped watching after --max-wait ${maxWaitMs / 1000}s: not delivered yet: ${listed.join(', ')}${more}${untracked}${polling ? `; ${polling}` : ''}`,
    stuck ? { hint: 'a shipment still at "Label created" may have been cancelled (tracking has no event for that) or not handed to the carrier yet' } : undefined,
  );
}

function finish(state: TrackedShipment[]): void {
  const failed = state.filter((s) => s.error);
  if (failed.length === 0) return;
  if (state.length === 1) throw failed[0].error;
  // Credentials refused (401/403) or an API that cannot be reached is not one reference's failure but the
  // command's: exit 4 or 1, as cancel and create --csv stop on them, not 3 ("some references failed").
  const refused = failed.find((s) => s.error instanceof AuthError);
  if (refused) throw refused.error;
  const unreachable = failed.find((s) => isUnreachable(s.error));
  if (unreachable) throw unreachable.error;
  // Every reference failed for the service (5xx, 429 after the retries), none for itself: the service is down,
  // exit 1 as for one reference (and as cancel says it), not 3 ("some references are wrong").
  if (failed.length === state.length && failed.every((s) => isServiceFailure(s.error))) {
    throw new ServiceFailure(failed.length, state.length, `the service failed for every one of the ${state.length} references (${errorMessage(failed[0].error)})`, {
      hint: 'once the service is back, run the same command again',
    });
  }
  throw new PartialFailure(failed.length, state.length, `${failed.length} of ${state.length} references could not be tracked`);
}

/** Polls every reference of `state` but those no longer watched (gone), which keep what they have. */
async function fetchAll(api: Api, state: TrackedShipment[], parcel: boolean, signal?: AbortSignal): Promise<TrackedShipment[]> {
  const o = signal ? { signal } : undefined;
  return Promise.all(
    state.map(async ({ reference, ...known }): Promise<TrackedShipment> => {
      if (known.gone) return { reference, ...known };
      try {
        if (parcel) {
          const events = await api.parcels.events(reference, o);
          return { reference, parcels: [{ tracking_reference: reference, events: sortEvents(events) }] };
        }
        const data = await api.shipments.events(reference, o);
        const parcels = Object.entries(data).map(([trk, p]) => ({
          tracking_reference: trk,
          courier_tracking_reference: p.courier_tracking_reference || undefined,
          events: sortEvents(p.tracking_events ?? []),
        }));
        const shipmentReference = Object.values(data).find((p) => p.shipment_reference)?.shipment_reference;
        return { reference, ...(shipmentReference ? { shipmentReference } : {}), parcels };
      } catch (error) {
        if (!(error instanceof ApiError)) throw error;
        // No shipment by that reference: a parcel's tracking number (a scanned label) is tracked as such.
        if (!parcel && error instanceof NotFoundError) {
          try {
            const events = await api.parcels.events(reference, o);
            return { reference, parcels: [{ tracking_reference: reference, events: sortEvents(events) }] };
          } catch (e) {
            if (!(e instanceof ApiError)) throw e;
            if (!(e instanceof NotFoundError)) return { reference, parcels: [], error: e };
            error.message = `no shipment or parcel ${JSON.stringify(reference)}: not found`;
          }
        }
        return { reference, parcels: [], error };
      }
    }),
  );
}

function allFinal(state: TrackedShipment[]): boolean {
  // A reference that cannot be tracked (or no longer can) will not become final by waiting.
  const watched = state.filter((s) => !s.error);
  if (watched.length === 0) return true;
  const parcels = watched.flatMap((s) => s.parcels);
  return parcels.length > 0 && parcels.every((p) => FINAL_STAGES.has(latestType(p)));
}

function latestType(p: ParcelTimeline): string {
  return (p.events[p.events.length - 1]?.type ?? '').toUpperCase();
}

function output(ctx: Ctx, state: TrackedShipment[]): void {
  if (ctx.mode.json) return ctx.out.json(toJson(state));
  if (ctx.mode.quiet) {
    for (const s of state) for (const p of s.parcels) ctx.out.line(`${p.tracking_reference}\t${latestType(p)}`);
  } else ctx.out.write(renderAll(ctx, state));
  // Off a terminal (or with --quiet) stdout is data: a reference that could not be tracked is said on stderr
  // instead, naming it (the closing "1 of 2 references could not be tracked" does not).
  if (!ctx.io.stdoutIsTTY || ctx.mode.quiet) {
    for (const s of state) if (s.error) ctx.io.stderr.write(`${ctx.out.c.red('error:')} ${s.reference}: ${errorMessage(s.error)}\n`);
  }
}

function renderAll(ctx: Ctx, state: TrackedShipment[]): string {
  const c = ctx.out.c;
  const tty = ctx.io.stdoutIsTTY;
  const parts: string[] = [];
  for (const s of state) {
    if (s.error && !s.gone) {
      if (tty) parts.push(`${c.bold(s.reference)}\n  ${c.red('error:')} ${errorMessage(s.error)}\n`);
      continue;
    }
    let text = `${c.bold(s.reference)}${s.parcels.length === 0 ? c.dim('  (no parcels)') : ''}\n`;
    for (const p of s.parcels) text += renderTimeline(p, { color: c, tty, indent: '  ', columns: ctx.io.columns });
    // No longer found while watched: its last known timeline, then why it stopped (on a terminal).
    if (s.error && tty) text += `  ${c.red('error:')} ${errorMessage(s.error)}\n`;
    parts.push(text);
  }
  return parts.join('\n');
}

/** Lines for events not printed before (non-TTY --watch appends only what is new). */
function newEventLines(state: TrackedShipment[], seen: Set<string>): string[] {
  const lines: string[] = [];
  for (const s of state) {
    for (const p of s.parcels) {
      for (const e of p.events) {
        const id = `${p.tracking_reference}\u0000${e.date}\u0000${e.type}\u0000${e.code}\u0000${e.description}`;
        if (seen.has(id)) continue;
        seen.add(id);
        lines.push([e.date ?? '', s.reference, p.tracking_reference, stageLabel(e.type), e.description ?? ''].join('\t'));
      }
    }
  }
  return lines;
}

function toJson(state: TrackedShipment[]): unknown {
  return {
    shipments: state.map((s) => {
      const o: Record<string, unknown> = {
        reference: s.reference,
        // Named as cancel's and create's lines name it, so scripts can join them on it.
        ...(s.shipmentReference ? { shipment_reference: s.shipmentReference } : {}),
        parcels: s.parcels.map((p) => ({
          tracking_reference: p.tracking_reference,
          ...(p.courier_tracking_reference ? { courier_tracking_reference: p.courier_tracking_reference } : {}),
          status: latestType(p) || null,
          delivered: latestType(p) === 'DELIVERED',
          events: p.events.map((e: TrackingEvent) => ({ date: e.date ?? null, type: e.type ?? null, code: e.code ?? null, name: e.name ?? null, description: e.description ?? null })),
        })),
      };
      if (s.error) o.error = errorMessage(s.error);
      return o;
    }),
  };
}

/**
 * How a --watch redraw reaches the previous drawing: 'none' (nothing drawn yet), 'up' (cursor up over its rows),
 * or 'screen' (clear the whole screen). Cursor-up stops at the screen's top, so a drawing as tall as the screen
 * cannot be reached, and after a resize the terminal has re-wrapped (or cut) the old lines into a number of rows
 * no one can know: both left the old drawing's top on screen above the new one.
 */
export function redrawFrom(drawnRows: number, drawnColumns: number | undefined, columns: number | undefined, rows: number | undefined): 'none' | 'up' | 'screen' {
  if (!drawnRows) return 'none';
  if (drawnColumns !== columns) return 'screen';
  if (rows !== undefined && rows > 0 && drawnRows >= rows) return 'screen';
  return 'up';
}

/**
 * How many terminal rows `text` (ending in a newline) takes: a line wider than the terminal wraps onto more
 * rows, and the redraw must move up over all of them or the old drawing's top stays on screen.
 */
export function screenRows(text: string, columns: number | undefined): number {
  const width = columns && columns > 0 ? columns : 80;
  const lines = text.split('\n');
  lines.pop(); // after the last newline
  let rows = 0;
  for (const line of lines) rows += Math.max(1, Math.ceil(cellWidth(line) / width));
  return rows;
}
