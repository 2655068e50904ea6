// `ship track`: fetches tracking events per shipment (or parcel) and renders one timeline per parcel;
// --watch polls until every parcel has reached a final stage.
import { stripVTControlCharacters } from 'node:util';
import type { Ctx } from '../../context.js';
import { displayWidth } from '../../output/width.js';
import { ApiError, AuthError, Interrupted, NotFoundError, PartialFailure } from '../../errors.js';
import type { Api, TrackingEvent } from '../../api/index.js';
import { errorMessage, isUnreachable } from '../../bulk/runner.js';
import { FINAL_STAGES, renderTimeline, sortEvents, stageLabel, type ParcelTimeline } from './render.js';

/** Options of `ship track`. */
export interface TrackOptions {
  refs: string[];
  parcel: boolean;
  watch: boolean;
  intervalMs: number;
}

/** What one reference resolved to: its parcels' timelines, or the error that stopped it. */
export interface TrackedShipment {
  /** As the user gave it (a shipment reference or ID, or with --parcel a tracking reference). */
  reference: string;
  /** The shipment's own reference, as the API names it (a shipment found by its ID says it here). */
  shipmentReference?: string;
  parcels: ParcelTimeline[];
  error?: unknown;
}

/** Prints timelines; with --watch polls until all parcels are final. Exit 5 / 3 when references failed. */
export async function run(ctx: Ctx, opts: TrackOptions): Promise<void> {
  const api = await ctx.api();
  const refs = [...new Set(opts.refs.map((r) => r.trim()).filter(Boolean))];
  let state = await fetchAll(api, refs, opts.parcel);

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
  const redraw = ctx.io.stdoutIsTTY && !ctx.mode.json;
  const seen = new Set<string>();
  let drawnLines = 0;
  const show = (watching = true) => {
    if (ctx.mode.json) return;
    if (redraw) {
      const footer = watching ? `\n${ctx.out.c.dim(`watching · every ${opts.intervalMs / 1000}s · Ctrl-C to stop`)}\n` : '';
      const text = renderAll(ctx, state) + footer;
      // Move up over the previous drawing and clear it, so the timeline updates in place.
      if (drawnLines) ctx.io.stdout.write(`\x1b[${drawnLines}A\x1b[J`);
      ctx.io.stdout.write(text);
      drawnLines = screenRows(text, ctx.io.columns);
    } else {
      for (const line of newEventLines(state, seen)) ctx.out.line(line);
      // As without --watch: a reference that cannot be tracked is said on stderr (once), naming it.
      for (const s of state) {
        if (!s.error || seen.has(`\u0001${s.reference}`)) continue;
        seen.add(`\u0001${s.reference}`);
        ctx.io.stderr.write(`${ctx.out.c.red('error:')} ${s.reference}: ${errorMessage(s.error)}\n`);
      }
    }
  };
  show();
  // With --json the document comes at the end: a script that stops the watch (Ctrl-C, `timeout`) still gets
  // the last known state, so the first signal ends the loop instead of the process.
  const release = ctx.mode.json ? ctx.holdInterrupts() : undefined;
  try {
    while (!allFinal(state) && !ctx.signal.aborted) {
      try {
        await ctx.clock.sleep(opts.intervalMs, ctx.signal);
      } catch {
        break;
      }
      const next = await fetchAll(api, refs, opts.parcel);
      // A poll that failed for one reference keeps its last known timeline.
      state = next.map((s, i) => (s.error && state[i] && !state[i].error ? state[i] : s));
      show();
    }
  } finally {
    release?.();
  }
  // Watching is over (every parcel final, or Ctrl-C): the last drawing stays on screen without the line that
  // still said "watching · Ctrl-C to stop".
  if (redraw && drawnLines) show(false);
  if (ctx.mode.json) ctx.out.json(toJson(state));
  if (ctx.signal.aborted) throw new Interrupted('stopped watching');
  return finish(state);
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
  throw new PartialFailure(failed.length, state.length, `${failed.length} of ${state.length} references could not be tracked`);
}

async function fetchAll(api: Api, refs: string[], parcel: boolean): Promise<TrackedShipment[]> {
  return Promise.all(
    refs.map(async (reference): Promise<TrackedShipment> => {
      try {
        if (parcel) {
          const events = await api.parcels.events(reference);
          return { reference, parcels: [{ tracking_reference: reference, events: sortEvents(events) }] };
        }
        const data = await api.shipments.events(reference);
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
            const events = await api.parcels.events(reference);
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
  const parcels = state.flatMap((s) => s.parcels);
  // A reference that cannot be tracked will not become final by waiting.
  if (state.every((s) => s.error)) return true;
  return parcels.length > 0 && parcels.every((p) => FINAL_STAGES.has(latestType(p)));
}

function latestType(p: ParcelTimeline): string {
  return (p.events[p.events.length - 1]?.type ?? '').toUpperCase();
}

function output(ctx: Ctx, state: TrackedShipment[]): void {
  if (ctx.mode.json) return ctx.out.json(toJson(state));
  if (ctx.mode.quiet) {
    for (const s of state) for (const p of s.parcels) ctx.out.line(`${p.tracking_reference}\t${latestType(p)}`);
    return;
  }
  ctx.out.write(renderAll(ctx, state));
  // Off a terminal stdout is data: a reference that could not be tracked is said on stderr instead.
  if (!ctx.io.stdoutIsTTY) {
    for (const s of state) if (s.error) ctx.io.stderr.write(`${ctx.out.c.red('error:')} ${s.reference}: ${errorMessage(s.error)}\n`);
  }
}

function renderAll(ctx: Ctx, state: TrackedShipment[]): string {
  const c = ctx.out.c;
  const tty = ctx.io.stdoutIsTTY;
  const parts: string[] = [];
  for (const s of state) {
    if (s.error) {
      if (tty) parts.push(`${c.bold(s.reference)}\n  ${c.red('error:')} ${errorMessage(s.error)}\n`);
      continue;
    }
    let text = `${c.bold(s.reference)}${s.parcels.length === 0 ? c.dim('  (no parcels)') : ''}\n`;
    for (const p of s.parcels) text += renderTimeline(p, { color: c, tty, indent: '  ', columns: ctx.io.columns });
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
 * How many terminal rows `text` (ending in a newline) takes: a line wider than the terminal wraps onto more
 * rows, and the redraw must move up over all of them or the old drawing's top stays on screen.
 */
export function screenRows(text: string, columns: number | undefined): number {
  const width = columns && columns > 0 ? columns : 80;
  const lines = text.split('\n');
  lines.pop(); // after the last newline
  let rows = 0;
  for (const line of lines) rows += Math.max(1, Math.ceil(displayWidth(stripVTControlCharacters(line)) / width));
  return rows;
}
