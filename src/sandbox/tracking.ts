// Tracking over time: LABEL_CREATED at creation, then MANIFESTED → COLLECTED → IN_TRANSIT → DELIVERED one stage per
// advance (or a jump to a named stage), each change emitting TRACKING_UPDATED plus the specific webhook event.
import type { SandboxApp } from './app.js';
import { APP_NAME } from './seed.js';
import type { ParcelRec, ShipmentRec, TrackingEventRec, TrackingType } from './store.js';

/** Stages `advance` can move to: the API's tracking types plus OUT_FOR_DELIVERY (an IN_TRANSIT event so named). */
export type Stage = TrackingType | 'OUT_FOR_DELIVERY';

export const STAGES: readonly Stage[] = ['LABEL_CREATED', 'MANIFESTED', 'COLLECTED', 'IN_TRANSIT', 'OUT_FOR_DELIVERY', 'DELIVERED', 'DELIVERY_FAILED'];

const TEMPLATES: Record<Stage, Omit<TrackingEventRec, 'date'>> = {
  LABEL_CREATED: { code: 'LC', name: 'Label created', description: 'The label has been created; the parcel has not been handed to the carrier yet.', type: 'LABEL_CREATED' },
  MANIFESTED: { code: 'MF', name: 'Manifested', description: 'The parcel has been manifested and sent to the carrier.', type: 'MANIFESTED' },
  COLLECTED: { code: 'CO', name: 'Collected', description: 'The parcel has been collected by the carrier.', type: 'COLLECTED' },
  IN_TRANSIT: { code: 'IT', name: 'In transit', description: 'The parcel is on its way to the delivery depot.', type: 'IN_TRANSIT' },
  OUT_FOR_DELIVERY: { code: 'OD', name: 'Out for delivery', description: 'The parcel is with the driver for delivery today.', type: 'IN_TRANSIT' },
  DELIVERED: { code: 'DL', name: 'Delivered', description: 'The parcel has been delivered.', type: 'DELIVERED' },
  DELIVERY_FAILED: { code: 'DF', name: 'Delivery failed', description: 'Nobody was available to accept the parcel; a card was left.', type: 'DELIVERY_FAILED' },
};

/** A tracking event of the given stage at the given time. */
export function trackingEvent(stage: Stage, date: string): TrackingEventRec {
  return { ...TEMPLATES[stage], date };
}

/** The stage a parcel is at (its latest event). */
export function currentStage(p: ParcelRec): Stage {
  const last = p.events[p.events.length - 1];
  if (!last) return 'LABEL_CREATED';
  return last.code === 'OD' ? 'OUT_FOR_DELIVERY' : last.type;
}

/** True once any parcel has gone past LABEL_CREATED (the shipment can no longer be cancelled). */
export function isManifested(s: ShipmentRec): boolean {
  for (const p of s.parcels) if (currentStage(p) !== 'LABEL_CREATED') return true;
  return false;
}

/** The next stage of one plain advance; null at DELIVERED. */
export function nextStage(stage: Stage): Stage | null {
  switch (stage) {
    case 'LABEL_CREATED':
      return 'MANIFESTED';
    case 'MANIFESTED':
      return 'COLLECTED';
    case 'COLLECTED':
      return 'IN_TRANSIT';
    case 'IN_TRANSIT':
    case 'OUT_FOR_DELIVERY':
    case 'DELIVERY_FAILED':
      return 'DELIVERED';
    default:
      return null;
  }
}

/** Whether a jump from one stage to a target is forward (DELIVERED is final; failures and out-for-delivery can repeat). */
export function canJump(from: Stage, to: Stage): boolean {
  if (from === 'DELIVERED') return false;
  if (to === 'DELIVERY_FAILED' || to === 'OUT_FOR_DELIVERY') return true;
  return STAGES.indexOf(to) > STAGES.indexOf(from === 'DELIVERY_FAILED' ? 'OUT_FOR_DELIVERY' : from);
}

/** One parcel's move, as reported by the advance control endpoint. */
export interface Moved {
  shipment_reference: string;
  tracking_reference: string;
  from: Stage;
  to: Stage;
}

/** Appends a stage event to a parcel and emits its webhooks. */
export function addStage(app: SandboxApp, s: ShipmentRec, p: ParcelRec, stage: Stage): TrackingEventRec {
  const ev = trackingEvent(stage, app.nowStr());
  p.events.push(ev);
  if (app.webhooksActive) {
    const svc = app.store.servicesByKey.get(s.service_key);
    app.dispatcher.emitTracking({
      shipment_reference: s.shipment_reference,
      parcel_reference: p.reference,
      source: APP_NAME,
      order_reference: s.order_reference,
      carrier: svc?.carrier ?? '',
      carrier_account: svc?.carrier_account ?? '',
      tracking_number: p.tracking_reference,
      tracking_event_code: ev.code,
      tracking_event_type: ev.type,
      tracking_event_name: ev.name,
      tracking_event_description: ev.description,
      tracking_event_time: ev.date,
      tracking_url: `https://track.sandbox.invalid/${s.universal_tracking_reference}`,
      tracking_url_carrier: `${svc?.tracking_url ?? 'https://track.sandbox.invalid/'}${p.tracking_reference}`,
      recipient: { name: s.to_address.name, email_address: s.to_address.email_address, telephone: s.to_address.telephone },
    });
  }
  return ev;
}

/** Moves every parcel of the given shipments one stage (or to `to`); cancelled shipments and DELIVERED parcels stay. */
export function advance(app: SandboxApp, shipments: Iterable<ShipmentRec>, to?: Stage): Moved[] {
  const moved: Moved[] = [];
  for (const s of shipments) {
    if (s.status === 'cancelled') continue;
    for (const p of s.parcels) {
      const from = currentStage(p);
      const target = to ? (canJump(from, to) ? to : null) : nextStage(from);
      if (!target) continue;
      addStage(app, s, p, target);
      moved.push({ shipment_reference: s.shipment_reference, tracking_reference: p.tracking_reference, from, to: target });
    }
  }
  if (moved.length > 0) app.changed();
  return moved;
}

/**
 * Tracking that moves forward over time, as the real service's does (it manifests shipments itself, then the
 * carrier's scans follow): each live shipment moves one stage every `seconds`, counted from when the sandbox
 * first saw it (its creation, or the start for shipments loaded from a state file; for a shipment in a container,
 * the container's closing, which manifests it), until DELIVERED. Checked a
 * few times per step, so a shipment's own timing holds whatever the others do. Returns a function that stops it.
 */
export function startAutoAdvance(app: SandboxApp, seconds: number): () => void {
  const stepMs = seconds * 1000;
  // When each shipment moves next; in memory only (a restart restarts every shipment's clock).
  const due = new WeakMap<ShipmentRec, number>();
  const tick = () => {
    const now = app.now().getTime();
    for (const s of app.store.shipments.values()) {
      if (s.status === 'cancelled') continue;
      // A shipment in a container is manifested when the container closes, not before: its clock starts then.
      if (s.container_id !== null && app.store.containers.get(s.container_id)?.status !== 'Closed') continue;
      const at = due.get(s);
      if (at === undefined) due.set(s, now + stepMs);
      else if (now >= at) {
        advance(app, [s]);
        due.set(s, now + stepMs);
      }
    }
  };
  const timer = setInterval(tick, Math.min(1000, Math.max(10, stepMs / 4)));
  timer.unref();
  tick();
  return () => clearInterval(timer);
}
