// The outbound webhook events of the service (API document, "Events") and what a receiver reads from them.

/** Every event kind the service sends. */
export const EVENT_KINDS = [
  'SHIPMENT_CREATED',
  'SHIPMENT_CANCELLED',
  'TRACKING_UPDATED',
  'TRACKING_COLLECTED',
  'TRACKING_IN_TRANSIT',
  'TRACKING_OUT_FOR_DELIVERY',
  'TRACKING_DELIVERED',
  'TRACKING_DELIVERY_FAILED',
] as const;
export type EventKind = (typeof EVENT_KINDS)[number];

/** Whether a string names an event kind. */
export function isEventKind(s: string): s is EventKind {
  return (EVENT_KINDS as readonly string[]).includes(s);
}

/**
 * Parses an `--events` list (comma or space separated, any case, `SHIPMENT_*`/`TRACKING_*` wildcards)
 * into the set of kinds; throws with the unknown names.
 */
export function parseEventList(list: string): Set<EventKind> {
  const out = new Set<EventKind>();
  const unknown: string[] = [];
  for (const raw of list.split(/[\s,]+/).filter(Boolean)) {
    const name = raw.toUpperCase().replace(/-/g, '_');
    if (name.endsWith('*')) {
      const prefix = name.slice(0, -1);
      const hits = EVENT_KINDS.filter((k) => k.startsWith(prefix));
      if (hits.length === 0) unknown.push(raw);
      hits.forEach((k) => out.add(k));
    } else if (isEventKind(name)) out.add(name);
    else unknown.push(raw);
  }
  if (unknown.length > 0) {
    throw new Error(`unknown event ${unknown.join(', ')} (known: ${EVENT_KINDS.join(', ')})`);
  }
  return out;
}

/** The few fields every line of `webhooks listen` shows, read leniently from any payload. */
export interface EventSummary {
  event: string;
  shipmentReference: string;
  /** Tracking stage (tracking_event_type) for tracking events; empty otherwise. */
  stage: string;
  description: string;
}

/** Control characters: a line break would make a line that looks like another event, an ESC a terminal command. */
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/g;

/** The text on one line and inert: control characters shown as escapes (\n, \t, \x1b). */
function oneLine(text: string): string {
  return text.replace(CONTROL, (c) => (c === '\n' ? '\\n' : c === '\t' ? '\\t' : c === '\r' ? '\\r' : `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`));
}

/**
 * Reads the summary fields of a payload (JSON or parsed form), tolerating missing or odd fields. Anyone who can
 * reach the listener can send a payload: each field is kept to one inert line (oneLine).
 */
export function summarize(payload: Record<string, unknown>): EventSummary {
  const str = (v: unknown) => oneLine(typeof v === 'string' ? v : typeof v === 'number' ? String(v) : '');
  const event = str(payload.event);
  const stage = str(payload.tracking_event_type);
  let description = str(payload.tracking_event_description) || str(payload.tracking_event_name);
  if (!description) {
    const parcels = Array.isArray(payload.parcel_references) ? payload.parcel_references.length : 0;
    const tracking = Array.isArray(payload.tracking_numbers) ? payload.tracking_numbers.map(str).filter(Boolean) : [];
    const parts = [
      str(payload.carrier),
      parcels ? `${parcels} parcel${parcels === 1 ? '' : 's'}` : '',
      tracking.length ? `tracking ${tracking.join(', ')}` : '',
    ].filter(Boolean);
    description = parts.join(', ');
  } else if (str(payload.tracking_number)) {
    description = `${description} (${str(payload.tracking_number)})`;
  }
  return { event, shipmentReference: str(payload.shipment_reference), stage, description };
}
