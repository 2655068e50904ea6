// Tracking timelines: events oldest first (the latest last, always), stages named for people and coloured.
import type { ChalkInstance } from 'chalk';
import { inertData } from '../../output/inert.js';
import type { TrackingEvent } from '../../api/index.js';
import { displayWidth } from '../../output/width.js';
import { fillWords } from '../../output/wrap.js';

/** One parcel's events, oldest first. */
export interface ParcelTimeline {
  tracking_reference: string;
  courier_tracking_reference?: string;
  events: TrackingEvent[];
}

/** Stages after which nothing more happens (--watch stops when every parcel reached one). */
export const FINAL_STAGES: ReadonlySet<string> = new Set(['DELIVERED', 'DELIVERY_FAILED']);

const LABELS: Record<string, string> = {
  LABEL_CREATED: 'Label created',
  MANIFESTED: 'Manifested',
  COLLECTED: 'Collected',
  IN_TRANSIT: 'In transit',
  OUT_FOR_DELIVERY: 'Out for delivery',
  DELIVERED: 'Delivered',
  DELIVERY_FAILED: 'Delivery failed',
};

/** A stage type as people say it: LABEL_CREATED → "Label created"; unknown types are turned the same way. */
export function stageLabel(type: string | null | undefined): string {
  if (!type) return 'Unknown';
  const t = type.toUpperCase();
  if (LABELS[t]) return LABELS[t];
  const words = type.replace(/[_-]+/g, ' ').trim().toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/**
 * Events oldest first (dates are `YYYY-MM-DD HH:mm:ss`, so text order is time order); ties keep API order.
 * Compared code unit by code unit, not with localeCompare: its first call loads ICU's collator, ~17 ms of every
 * `ship track` (a script's polling loop runs it thousands of times), for an order it would not change.
 */
export function sortEvents(events: readonly TrackingEvent[]): TrackingEvent[] {
  return events
    .map((e, i) => ({ e, i }))
    .sort((a, b) => compareText(a.e.date ?? '', b.e.date ?? '') || a.i - b.i)
    .map(({ e }) => e);
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

// Hues readable on dark and light themes alike: blue is faint on a dark background and yellow on a light one,
// so the early stages keep the terminal's own colour.
function colorFor(c: ChalkInstance, type: string): (s: string) => string {
  switch (type.toUpperCase()) {
    case 'DELIVERED':
      return c.green;
    case 'DELIVERY_FAILED':
      return c.red;
    case 'IN_TRANSIT':
    case 'OUT_FOR_DELIVERY':
      return c.cyan;
    case 'COLLECTED':
    case 'MANIFESTED':
      return c.magenta;
    default:
      return (s: string) => s;
  }
}

/** One parcel's timeline as text lines: a heading, then `time  stage  description` per event, latest last. */
export function renderTimeline(p: ParcelTimeline, o: { color: ChalkInstance; tty: boolean; indent?: string; columns?: number }): string {
  const c = o.color;
  const ind = o.indent ?? '';
  // The API's text, at a terminal: its control characters and colour sequences shown, not obeyed (output/inert.ts).
  const data = (s: string): string => (o.tty ? inertData(s) : s);
  const head = `${ind}Parcel ${data(p.tracking_reference)}${p.courier_tracking_reference && p.courier_tracking_reference !== p.tracking_reference ? ` (carrier ${data(p.courier_tracking_reference)})` : ''}`;
  if (p.events.length === 0) return `${head}\n${ind}  ${c.dim('no tracking events yet')}\n`;
  const width = Math.max(...p.events.map((e) => data(stageLabel(e.type)).length));
  const lines = p.events.map((e, i) => {
    const latest = i === p.events.length - 1;
    const label = data(stageLabel(e.type)).padEnd(width);
    const stage = colorFor(c, e.type ?? '')(latest ? c.bold(label) : label);
    const marker = o.tty ? (latest ? '▶' : '•') : latest ? '>' : '-';
    const desc = data(e.description || e.name || '');
    const date = data(e.date ?? '');
    // The time is data, not decoration: not dim (faint to unreadable on many themes).
    const head = `${ind}  ${marker} ${date}  ${stage}`;
    // At a terminal, a description longer than the line wraps under itself, between words (not back at the
    // margin, mid-word); on a terminal too narrow for a column of text beside the stage, it goes under the date.
    const lead = ind.length + 4 + date.length + 2 + width + 2;
    if (o.tty && o.columns && desc && lead + displayWidth(desc) >= o.columns) {
      if (o.columns - 1 - lead >= MIN_TEXT) return `${head}  ${wrapWords(desc, o.columns - 1 - lead).join(`\n${' '.repeat(lead)}`)}`;
      const under = ind.length + 4;
      return [head, ...wrapWords(desc, o.columns - 1 - under).map((l) => `${' '.repeat(under)}${l}`)].join('\n');
    }
    return `${head}  ${desc}`.trimEnd();
  });
  return `${c.bold(head)}\n${lines.join('\n')}\n`;
}

/** The narrowest column of description text worth keeping beside the stage. */
const MIN_TEXT = 24;

/**
 * Text as lines of at most `width` terminal cells, broken between words (a word longer than that keeps a line of its
 * own); the text as it is when there is too little room (under 10) for wrapping to help.
 */
export function wrapWords(text: string, width: number): string[] {
  // Terminal cells, not UTF-16 units: a carrier's description in Chinese or Japanese takes two per character.
  if (width < 10 || displayWidth(text) <= width) return [text];
  return fillWords(text.split(/\s+/).filter(Boolean), width);
}
