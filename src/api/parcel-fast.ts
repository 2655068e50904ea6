// A fast path for the answers a script polls most: tracking events (GET /shipments/:ref/events and
// /parcels/:ref/events) and parcel labels (GET /parcels/:ref/label). Parsing them with zod meant loading zod and
// the schemas first, ~20–60 ms of a one-request `ship track` or `ship label` (a third of its run on Node 24).
// Like shipment-fast.ts, these give the schema's output for an answer that matches it and give up (undefined)
// on anything else, which then goes through the schema as before, with the same warnings.
// test/api/parcel-fast.test.ts holds them to the schemas on varied inputs.
import type { Label, ParcelEvents, ShipmentEvents, TrackingEvent } from './schemas.js';
import { RESPONSE_ADDRESS_FIELDS } from './shipment-fast.js';
import { compile, parseObject, type Shape } from './sku-fast.js';

/** TrackingEventSchema. */
export const TRACKING_EVENT_FIELDS: Shape = { code: 'optString', name: 'optString', description: 'optString', date: 'optString', type: 'optString' };

/** ParcelEventsSchema's fields but tracking_events (a list of events, made [] when missing or null). */
export const PARCEL_EVENTS_FIELDS: Shape = { shipment_reference: 'optString', courier_tracking_reference: 'optString' };

/** LabelSchema. */
export const LABEL_FIELDS: Shape = {
  shipment_reference: 'optString',
  parcel_reference: 'optString',
  carrier: 'optString',
  service_name: 'optString',
  tracking_reference: 'optString',
  created_by: 'optString',
  created_with: 'optString',
  created_at: 'optString',
  to_address: { object: RESPONSE_ADDRESS_FIELDS },
  pdf: 'optString',
  zpl: 'optString',
  png: 'pngOne',
};

const EVENT = compile(TRACKING_EVENT_FIELDS);
const LABEL = compile(LABEL_FIELDS);

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Each element through `one`, into a new list; undefined when one of them does not match. */
function everyOf<T>(list: readonly unknown[], one: (item: unknown) => T | undefined): T[] | undefined {
  const out: T[] = [];
  for (const item of list) {
    const v = one(item);
    if (v === undefined) return undefined;
    out.push(v);
  }
  return out;
}

/** TrackingEventSchema's output for an event that matches it; undefined: parse it with zod. */
export function fastTrackingEvent(input: unknown): TrackingEvent | undefined {
  return parseObject(EVENT, input) as TrackingEvent | undefined;
}

/** TrackingEventSchema's output for every event of a list (GET /parcels/:ref/events); undefined: leave it to zod. */
export function fastTrackingEvents(input: unknown): TrackingEvent[] | undefined {
  return Array.isArray(input) ? everyOf(input, fastTrackingEvent) : undefined;
}

/** ParcelEventsSchema's output (its two fields, then tracking_events, then unknown fields); undefined: zod. */
export function fastParcelEvents(input: unknown): ParcelEvents | undefined {
  if (!isRecord(input) || Object.hasOwn(input, '__proto__')) return undefined;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(PARCEL_EVENTS_FIELDS)) {
    if (!Object.hasOwn(input, key)) continue;
    const v = input[key];
    if (v !== undefined && v !== null && typeof v !== 'string') return undefined;
    out[key] = v;
  }
  const events = input.tracking_events;
  if (events === undefined || events === null) out.tracking_events = [];
  else {
    const list = Array.isArray(events) ? everyOf(events, fastTrackingEvent) : undefined;
    if (list === undefined) return undefined;
    out.tracking_events = list;
  }
  for (const key of Object.keys(input)) if (!Object.hasOwn(out, key) && !Object.hasOwn(PARCEL_EVENTS_FIELDS, key)) out[key] = input[key];
  return out as ParcelEvents;
}

/** ShipmentEventsSchema's output (parcels keyed by carrier tracking reference); undefined: zod. */
export function fastShipmentEvents(input: unknown): ShipmentEvents | undefined {
  if (!isRecord(input) || Object.hasOwn(input, '__proto__')) return undefined;
  const out: Record<string, ParcelEvents> = {};
  for (const key of Object.keys(input)) {
    const parcel = fastParcelEvents(input[key]);
    if (parcel === undefined) return undefined;
    out[key] = parcel;
  }
  return out;
}

/** LabelSchema's output for a label that matches it; undefined: parse it with zod. */
export function fastLabel(input: unknown): Label | undefined {
  return parseObject(LABEL, input) as Label | undefined;
}

/** LabelSchema's output for every label of a list; undefined: leave it to zod. */
export function fastLabels(input: unknown): Label[] | undefined {
  return Array.isArray(input) ? everyOf(input, fastLabel) : undefined;
}
