// Outbound webhooks of the sandbox, as the API document's Events section describes them: subscriptions with an
// auth token, JSON or form-encoded payloads, retries with exponential back-off, automatic pause and reinstatement.
// Delivery is queued per subscription and runs off the request path, so emitting never slows the caller down.
import { randomUUID } from 'node:crypto';
// Static on purpose: in the esbuild bundle a dynamic import of undici (CommonJS) exposes only `default`.
import { request as undiciRequest } from 'undici';
import { EVENT_KINDS, isEventKind, type EventKind } from '../webhooks/events.js';

/** The eight event kinds of the API document (one list, shared with `ship webhooks`). */
export const WEBHOOK_EVENTS = EVENT_KINDS;

/** One event kind. */
export type WebhookEvent = EventKind;

/** Payload encoding chosen per webhook. */
export type WebhookFormat = 'json' | 'form';

/** Label format carried by the "payload variants with labels". */
export type LabelFormat = 'ZPL' | 'PDF' | 'PNG';

/** Tracking event types of the API document (Tracking Event `type`). */
export type TrackingType = 'LABEL_CREATED' | 'MANIFESTED' | 'COLLECTED' | 'IN_TRANSIT' | 'DELIVERED' | 'DELIVERY_FAILED';

/** What a caller supplies to subscribe a handler. */
export interface SubscribeInput {
  url: string;
  /** Sent as `auth_token` in every payload; generated when omitted. */
  auth_token?: string;
  /** Default `json`. */
  format?: WebhookFormat;
  /** Event kinds to receive; empty or omitted means all. */
  events?: string[];
  /** Retry attempts after the first failed one; default 3, 0..10. */
  retries?: number;
  name?: string;
  /** When true, SHIPMENT_* payloads carry `labels` (the label variant). Default false. */
  labels?: boolean;
}

/** A subscribed handler (the sandbox's stand-in for a webhook configured in the web portal). */
export interface Subscription {
  id: string;
  name: string | null;
  url: string;
  auth_token: string;
  format: WebhookFormat;
  /** Empty means all events. */
  events: WebhookEvent[];
  retries: number;
  labels: boolean;
  status: 'active' | 'paused';
  created_at: string;
  paused_at: string | null;
  /** Events whose every attempt failed, since the last success. */
  consecutive_failures: number;
  /** Events not delivered because the subscription was paused or its queue was full. */
  skipped: number;
  last_error: string | null;
}

/** One delivery attempt. */
export interface Delivery {
  id: string;
  subscription_id: string;
  event: WebhookEvent;
  /** Idempotency token of the event; the same on every retry of it. */
  request_token: string;
  /** 1 for the first attempt, 2 for the first retry, … */
  attempt: number;
  /** HTTP status answered by the handler, or null when it could not be reached. */
  status: number | null;
  /** Why the attempt failed (`HTTP 500`, `ECONNREFUSED`, `timeout`), or null on success. */
  error: string | null;
  ok: boolean;
  /** ISO 8601 time the attempt started. */
  at: string;
  duration_ms: number;
  url: string;
  format: WebhookFormat;
}

/** Recipient details as the server knows them (an address in request form is enough). */
export interface RecipientInput {
  name?: string;
  first_name?: string;
  last_name?: string;
  email_address?: string;
  email?: string;
  telephone?: string;
}

/** The recipient object of every payload. */
export interface RecipientPayload {
  recipient_full_name: string;
  recipient_first_name: string;
  recipient_last_name: string;
  recipient_email: string;
  recipient_telephone: string;
}

/** The labels of a shipment for the label variant: ZPL text, base64 PDF, or base64 PNGs (one per label). */
export interface ShipmentLabels {
  format: LabelFormat;
  /** ZPL code or base64 PDF for ZPL/PDF; array of base64 PNG strings for PNG. */
  content: string | string[];
}

/** Facts about a shipment from which SHIPMENT_CREATED / SHIPMENT_CANCELLED payloads are built. */
export interface ShipmentEventData {
  shipment_reference: string;
  parcel_references: string[];
  /** Channel key (the API key's application name in the sandbox). */
  source?: string;
  order_reference?: string | null;
  carrier: string;
  carrier_account: string;
  tracking_numbers: string[];
  /** Shipment custom fields as a key/value object or already as `[{key, value}]`. */
  custom_fields?: Record<string, unknown> | Array<{ key: string; value: unknown }>;
  recipient: RecipientInput;
  /** Labels for subscriptions that want them; a function is called only when some subscription does. */
  labels?: ShipmentLabels | (() => ShipmentLabels | Promise<ShipmentLabels>);
}

/** Facts about one parcel's tracking change from which TRACKING_* payloads are built. */
export interface TrackingEventData {
  shipment_reference: string;
  parcel_reference: string;
  source?: string;
  order_reference?: string | null;
  carrier: string;
  carrier_account: string;
  tracking_number: string;
  tracking_event_code: string;
  /** Either the API type (`IN_TRANSIT`) or a stage name (`In Transit`); payloads carry the stage name. */
  tracking_event_type: string;
  tracking_event_name: string;
  tracking_event_description: string;
  /** `YYYY-MM-DD HH:mm:ss` */
  tracking_event_time: string;
  tracking_url: string;
  tracking_url_carrier: string;
  recipient: RecipientInput;
}

/** The payload of SHIPMENT_CREATED / SHIPMENT_CANCELLED. */
export interface ShipmentEventPayload {
  auth_token: string;
  request_token: string;
  event: WebhookEvent;
  shipment_reference: string;
  parcel_references: string[];
  source: string;
  order_reference: string;
  carrier: string;
  carrier_account: string;
  tracking_numbers: string[];
  custom_fields: Array<{ key: string; value: string }>;
  recipient: RecipientPayload;
  labels?: string | string[];
}

/** The payload of TRACKING_* events (one per parcel). */
export interface TrackingEventPayload {
  auth_token: string;
  request_token: string;
  event: WebhookEvent;
  shipment_reference: string;
  parcel_reference: string;
  source: string;
  order_reference: string;
  carrier: string;
  carrier_account: string;
  tracking_number: string;
  tracking_event_code: string;
  tracking_event_type: string;
  tracking_event_name: string;
  tracking_event_description: string;
  tracking_event_time: string;
  tracking_url: string;
  tracking_url_carrier: string;
  recipient: RecipientPayload;
}

/** Either payload. */
export type WebhookPayload = ShipmentEventPayload | TrackingEventPayload;

/** Tuning of the dispatcher; the defaults suit a running sandbox, tests shrink the delays. */
export interface DispatcherOptions {
  /** First back-off delay; attempt n waits base * 2^(n-1). Default 1000 ms. */
  baseDelayMs?: number;
  /** Cap of one back-off delay. Default 60000 ms. */
  maxDelayMs?: number;
  /** Per-attempt timeout. Default 5000 ms. */
  timeoutMs?: number;
  /** Pause a subscription after this many consecutive failed events (all attempts failed). Default 5. */
  pauseAfterFailedEvents?: number;
  /** Pause a subscription after this many consecutive attempts that could not reach the handler. Default 4. */
  pauseAfterUnreachable?: number;
  /** Most events waiting per subscription; beyond it new events are skipped. Default 10000. */
  maxQueue?: number;
  /** Most delivery records kept (oldest dropped first). Default 10000. */
  maxDeliveries?: number;
  /** Wall clock, for timestamps. */
  now?: () => Date;
  /** Called when the dispatcher itself changes a subscription (automatic pause), so the owner can persist it. */
  onSubscriptionChange?: (sub: Subscription) => void;
}

/** Thrown by subscribe() for bad input; `errors` maps field names to messages like a 400 validation answer. */
export class WebhookSubscriptionError extends Error {
  constructor(readonly errors: Record<string, string[]>) {
    super('The given data failed to pass validation.');
    this.name = 'WebhookSubscriptionError';
  }
}

const TRACKING_STAGE: Record<string, string> = {
  LABEL_CREATED: 'Label Created',
  MANIFESTED: 'Manifested',
  COLLECTED: 'Collected',
  IN_TRANSIT: 'In Transit',
  OUT_FOR_DELIVERY: 'Out for Delivery',
  DELIVERED: 'Delivered',
  DELIVERY_FAILED: 'Delivery Failed',
};

const SPECIFIC_EVENT: Record<string, WebhookEvent> = {
  COLLECTED: 'TRACKING_COLLECTED',
  IN_TRANSIT: 'TRACKING_IN_TRANSIT',
  OUT_FOR_DELIVERY: 'TRACKING_OUT_FOR_DELIVERY',
  DELIVERED: 'TRACKING_DELIVERED',
  DELIVERY_FAILED: 'TRACKING_DELIVERY_FAILED',
};

/** The key of a tracking type (`In Transit` → `IN_TRANSIT`); an IN_TRANSIT event named "Out for delivery" is OUT_FOR_DELIVERY. */
function stageKey(type: string, name?: string): string {
  const key = type.trim().toUpperCase().replace(/[\s-]+/g, '_');
  return key === 'IN_TRANSIT' && name && /out for delivery/i.test(name) ? 'OUT_FOR_DELIVERY' : key;
}

/** True when `e` is one of the eight event kinds. */
export function isWebhookEvent(e: unknown): e is WebhookEvent {
  return typeof e === 'string' && isEventKind(e);
}

/** True for SHIPMENT_CREATED / SHIPMENT_CANCELLED (payload per shipment); false for TRACKING_* (per parcel). */
export function isShipmentEvent(e: WebhookEvent): boolean {
  return e === 'SHIPMENT_CREATED' || e === 'SHIPMENT_CANCELLED';
}

/**
 * The events one tracking change emits: always TRACKING_UPDATED, plus the specific kind for Collected, In Transit,
 * Out for Delivery, Delivered and Delivery Failed. `name` lets an IN_TRANSIT event named "Out for delivery" count as such.
 */
export function trackingEventsFor(type: string, name?: string): WebhookEvent[] {
  const specific = SPECIFIC_EVENT[stageKey(type, name)];
  return specific ? ['TRACKING_UPDATED', specific] : ['TRACKING_UPDATED'];
}

/** The stage name carried in `tracking_event_type` (`IN_TRANSIT` → `In Transit`); unknown values pass through. */
export function trackingStage(type: string, name?: string): string {
  return TRACKING_STAGE[stageKey(type, name)] ?? type;
}

/** Builds the payload recipient object, splitting a full name into first and last name. */
export function recipientPayload(r: RecipientInput | undefined): RecipientPayload {
  const full = (r?.name ?? [r?.first_name, r?.last_name].filter(Boolean).join(' ')).trim();
  const space = full.indexOf(' ');
  const first = r?.first_name ?? (space < 0 ? full : full.slice(0, space));
  const last = r?.last_name ?? (space < 0 ? '' : full.slice(space + 1).trim());
  return {
    recipient_full_name: full,
    recipient_first_name: first,
    recipient_last_name: last,
    recipient_email: r?.email_address ?? r?.email ?? '',
    recipient_telephone: r?.telephone ?? '',
  };
}

function customFieldList(cf: ShipmentEventData['custom_fields']): Array<{ key: string; value: string }> {
  if (!cf) return [];
  const pairs = Array.isArray(cf) ? cf.map((p) => [p.key, p.value] as const) : Object.entries(cf);
  return pairs.map(([key, value]) => ({ key, value: value === null || value === undefined ? '' : String(value) }));
}

/** Who a payload is for: the subscription's auth token, and the event's request token when already chosen. */
export interface PayloadTarget {
  auth_token: string;
  /** Include `labels` (label variant). */
  labels?: boolean;
}

/** Builds a SHIPMENT_CREATED / SHIPMENT_CANCELLED payload (labels resolved beforehand when a function). */
export function shipmentEventPayload(
  event: WebhookEvent,
  data: ShipmentEventData,
  sub: PayloadTarget,
  request_token: string = randomUUID(),
): ShipmentEventPayload {
  const payload: ShipmentEventPayload = {
    auth_token: sub.auth_token,
    request_token,
    event,
    shipment_reference: data.shipment_reference,
    parcel_references: [...data.parcel_references],
    source: data.source ?? '',
    order_reference: data.order_reference ?? '',
    carrier: data.carrier,
    carrier_account: data.carrier_account,
    tracking_numbers: [...data.tracking_numbers],
    custom_fields: customFieldList(data.custom_fields),
    recipient: recipientPayload(data.recipient),
  };
  if (sub.labels && data.labels && typeof data.labels !== 'function') {
    const { format, content } = data.labels;
    // The document: a string for ZPL or PDF, an array of base64 PNGs for PNG.
    if (format === 'PNG') payload.labels = Array.isArray(content) ? [...content] : [content];
    else if (!Array.isArray(content)) payload.labels = content;
    else payload.labels = format === 'ZPL' ? content.join('') : (content[0] ?? '');
  }
  return payload;
}

/** Builds a TRACKING_* payload for one parcel. */
export function trackingEventPayload(
  event: WebhookEvent,
  data: TrackingEventData,
  sub: PayloadTarget,
  request_token: string = randomUUID(),
): TrackingEventPayload {
  return {
    auth_token: sub.auth_token,
    request_token,
    event,
    shipment_reference: data.shipment_reference,
    parcel_reference: data.parcel_reference,
    source: data.source ?? '',
    order_reference: data.order_reference ?? '',
    carrier: data.carrier,
    carrier_account: data.carrier_account,
    tracking_number: data.tracking_number,
    tracking_event_code: data.tracking_event_code,
    tracking_event_type: trackingStage(data.tracking_event_type, data.tracking_event_name),
    tracking_event_name: data.tracking_event_name,
    tracking_event_description: data.tracking_event_description,
    tracking_event_time: data.tracking_event_time,
    tracking_url: data.tracking_url,
    tracking_url_carrier: data.tracking_url_carrier,
    recipient: recipientPayload(data.recipient),
  };
}

/** Options for example payloads; the portal's test event lets these three references be edited. */
export interface ExampleOptions {
  auth_token?: string;
  request_token?: string;
  shipment_reference?: string;
  order_reference?: string;
  parcel_reference?: string;
  /** Adds `labels` to SHIPMENT_* examples: ZPL text, or for PDF/PNG the given base64 content. */
  labels?: ShipmentLabels;
}

const EXAMPLE_TRACKING: Record<string, { code: string; type: string; name: string; description: string }> = {
  TRACKING_UPDATED: { code: 'IT', type: 'IN_TRANSIT', name: 'In transit', description: 'The parcel is on its way to the delivery depot.' },
  TRACKING_COLLECTED: { code: 'CO', type: 'COLLECTED', name: 'Collected', description: 'The parcel has been collected from the sender.' },
  TRACKING_IN_TRANSIT: { code: 'IT', type: 'IN_TRANSIT', name: 'In transit', description: 'The parcel is on its way to the delivery depot.' },
  TRACKING_OUT_FOR_DELIVERY: { code: 'OD', type: 'OUT_FOR_DELIVERY', name: 'Out for delivery', description: 'The parcel is with the driver for delivery today.' },
  TRACKING_DELIVERED: { code: 'DL', type: 'DELIVERED', name: 'Delivered', description: 'The parcel has been delivered.' },
  TRACKING_DELIVERY_FAILED: { code: 'DF', type: 'DELIVERY_FAILED', name: 'Delivery failed', description: 'Nobody was available to accept the parcel; a card was left.' },
};

/** A documented example payload of each event kind, with fixed example values (as the portal's test event). */
export function examplePayload(event: WebhookEvent, opts: ExampleOptions = {}): WebhookPayload {
  const sub = { auth_token: opts.auth_token ?? 'whk_example_auth_token', labels: Boolean(opts.labels) };
  const shipment_reference = opts.shipment_reference ?? 'EXAMPLE-1001';
  const order_reference = opts.order_reference ?? '1001';
  const parcel_reference = opts.parcel_reference ?? 'EXAMPLE-1001-1';
  const recipient = { name: 'Jane Smith', email_address: 'jane.smith@example.com', telephone: '07700900123' };
  if (isShipmentEvent(event)) {
    return shipmentEventPayload(
      event,
      {
        shipment_reference,
        parcel_references: [parcel_reference],
        source: 'example-shop',
        order_reference,
        carrier: 'Example Carrier',
        carrier_account: 'example-carrier-account',
        tracking_numbers: ['EX123456789GB'],
        custom_fields: [{ key: 'gift_message', value: 'Happy birthday' }],
        recipient,
        labels: opts.labels,
      },
      sub,
      opts.request_token,
    );
  }
  const t = EXAMPLE_TRACKING[event];
  if (!t) throw new Error(`unknown webhook event ${String(event)}`);
  return trackingEventPayload(
    event,
    {
      shipment_reference,
      parcel_reference,
      source: 'example-shop',
      order_reference,
      carrier: 'Example Carrier',
      carrier_account: 'example-carrier-account',
      tracking_number: 'EX123456789GB',
      tracking_event_code: t.code,
      tracking_event_type: t.type,
      tracking_event_name: t.name,
      tracking_event_description: t.description,
      tracking_event_time: '2024-05-22 09:15:00',
      tracking_url: 'https://track.example.com/EX123456789GB',
      tracking_url_carrier: 'https://carrier.example.com/track?ref=EX123456789GB',
      recipient,
    },
    sub,
    opts.request_token,
  );
}

function formPairs(prefix: string, value: unknown, out: string[]): void {
  if (value === undefined) return;
  if (value === null) {
    out.push(`${encodeURIComponent(prefix)}=`);
  } else if (Array.isArray(value)) {
    value.forEach((v, i) => formPairs(`${prefix}[${i}]`, v, out));
  } else if (typeof value === 'object') {
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) formPairs(prefix ? `${prefix}[${k}]` : k, v, out);
  } else {
    // Form handlers in PHP-style frameworks read booleans as 1/0.
    const s = typeof value === 'boolean' ? (value ? '1' : '0') : String(value);
    out.push(`${encodeURIComponent(prefix)}=${encodeURIComponent(s)}`);
  }
}

/** Form-encodes a payload with bracket notation for nested objects and arrays (`recipient[recipient_email]=…`). */
export function formEncode(payload: object): string {
  const out: string[] = [];
  formPairs('', payload, out);
  return out.join('&');
}

/** Encodes a payload for the wire: the request body and its content type. */
export function encodePayload(payload: object, format: WebhookFormat): { body: string; contentType: string } {
  return format === 'form'
    ? { body: formEncode(payload), contentType: 'application/x-www-form-urlencoded' }
    : { body: JSON.stringify(payload), contentType: 'application/json' };
}

interface Job {
  event: WebhookEvent;
  data: ShipmentEventData | TrackingEventData;
  request_token: string;
}

interface SubState {
  sub: Subscription;
  queue: Job[];
  running: boolean;
  timer: NodeJS.Timeout | null;
  wake: (() => void) | null;
  unreachable: number;
}


/** Queues and delivers webhook events to subscribed handlers, with retries, back-off and automatic pause. */
export class WebhookDispatcher {
  private readonly subs = new Map<string, SubState>();
  private log: Delivery[] = [];
  private readonly opts: Required<Omit<DispatcherOptions, 'now' | 'onSubscriptionChange'>> & {
    now: () => Date;
    onSubscriptionChange: (sub: Subscription) => void;
  };
  private closed = false;
  private generation = 0;
  private readonly inflight = new Set<Promise<void>>();
  private idleWaiters: Array<() => void> = [];
  private readonly labelCache = new WeakMap<object, Promise<ShipmentLabels | undefined>>();

  constructor(options: DispatcherOptions = {}) {
    this.opts = {
      baseDelayMs: options.baseDelayMs ?? 1000,
      maxDelayMs: options.maxDelayMs ?? 60_000,
      timeoutMs: options.timeoutMs ?? 5000,
      pauseAfterFailedEvents: options.pauseAfterFailedEvents ?? 5,
      pauseAfterUnreachable: options.pauseAfterUnreachable ?? 4,
      maxQueue: options.maxQueue ?? 10_000,
      maxDeliveries: options.maxDeliveries ?? 10_000,
      now: options.now ?? (() => new Date()),
      onSubscriptionChange: options.onSubscriptionChange ?? (() => {}),
    };
  }

  /** Validates and adds a subscription; throws WebhookSubscriptionError with field messages on bad input. */
  subscribe(input: SubscribeInput): Subscription {
    const errors: Record<string, string[]> = {};
    const add = (field: string, msg: string) => (errors[field] ??= []).push(msg);
    let url: URL | null = null;
    if (typeof input?.url !== 'string' || input.url.trim() === '') add('url', 'The url field is required.');
    else {
      try {
        url = new URL(input.url);
        if (url.protocol !== 'http:' && url.protocol !== 'https:') add('url', 'The url must be an http or https URL.');
      } catch {
        add('url', 'The url must be a valid URL.');
      }
    }
    const format = input?.format ?? 'json';
    if (format !== 'json' && format !== 'form') add('format', 'The selected format is invalid.');
    const events = input?.events ?? [];
    if (!Array.isArray(events)) add('events', 'The events must be an array.');
    else
      events.forEach((e, i) => {
        if (!isWebhookEvent(e)) add(`events.${i}`, 'The selected events.' + i + ' is invalid.');
      });
    const retries = input?.retries ?? 3;
    if (!Number.isInteger(retries) || retries < 0 || retries > 10) add('retries', 'The retries must be an integer between 0 and 10.');
    if (input?.auth_token !== undefined && (typeof input.auth_token !== 'string' || input.auth_token === ''))
      add('auth_token', 'The auth token must be a non-empty string.');
    if (input?.name !== undefined && input.name !== null && typeof input.name !== 'string') add('name', 'The name must be a string.');
    if (Object.keys(errors).length > 0) throw new WebhookSubscriptionError(errors);

    const sub: Subscription = {
      id: randomUUID(),
      name: input.name ?? null,
      url: url!.toString(),
      auth_token: input.auth_token ?? `whk_${randomUUID().replace(/-/g, '')}`,
      format,
      events: [...new Set(events as WebhookEvent[])],
      retries,
      labels: Boolean(input.labels),
      status: 'active',
      created_at: this.opts.now().toISOString(),
      paused_at: null,
      consecutive_failures: 0,
      skipped: 0,
      last_error: null,
    };
    this.subs.set(sub.id, { sub, queue: [], running: false, timer: null, wake: null, unreachable: 0 });
    return { ...sub, events: [...sub.events] };
  }

  /** Restores subscriptions saved with subscriptions() (for `--state FILE`); their queues start empty. */
  restore(saved: Subscription[]): void {
    for (const s of saved) {
      this.subs.set(s.id, { sub: { ...s, events: [...s.events] }, queue: [], running: false, timer: null, wake: null, unreachable: 0 });
    }
  }

  /** Removes a subscription; pending events for it are dropped. Returns false when unknown. */
  unsubscribe(id: string): boolean {
    const st = this.subs.get(id);
    if (!st) return false;
    this.stopSub(st);
    this.subs.delete(id);
    return true;
  }

  /** Reinstates a paused subscription (the portal's "reinstate"). Returns it, or null when unknown. */
  resume(id: string): Subscription | null {
    const st = this.subs.get(id);
    if (!st) return null;
    st.sub.status = 'active';
    st.sub.paused_at = null;
    st.sub.consecutive_failures = 0;
    st.unreachable = 0;
    return this.copy(st.sub);
  }

  /** Pauses a subscription by hand; pending events are dropped. Returns it, or null when unknown. */
  pause(id: string): Subscription | null {
    const st = this.subs.get(id);
    if (!st) return null;
    this.pauseSub(st, 'paused by user');
    return this.copy(st.sub);
  }

  /** All subscriptions, oldest first (copies). */
  subscriptions(): Subscription[] {
    return [...this.subs.values()].map((st) => this.copy(st.sub));
  }

  /** One subscription by id (copy), or null. */
  subscription(id: string): Subscription | null {
    const st = this.subs.get(id);
    return st ? this.copy(st.sub) : null;
  }

  /** Every delivery attempt recorded, oldest first (copies; bounded by maxDeliveries). */
  deliveries(): Delivery[] {
    return this.log.map((d) => ({ ...d }));
  }

  /**
   * Queues an event for every active subscription that wants it and returns at once. SHIPMENT_* take
   * ShipmentEventData (one per shipment); TRACKING_* take TrackingEventData (one per parcel). Returns the number of
   * subscriptions it was queued for.
   */
  emit(event: WebhookEvent, data: ShipmentEventData | TrackingEventData): number {
    if (this.closed || !isWebhookEvent(event)) return 0;
    let queued = 0;
    for (const st of this.subs.values()) {
      const sub = st.sub;
      if (sub.events.length > 0 && !sub.events.includes(event)) continue;
      if (sub.status !== 'active' || st.queue.length >= this.opts.maxQueue) {
        sub.skipped++;
        continue;
      }
      st.queue.push({ event, data, request_token: randomUUID() });
      queued++;
      this.kick(st);
    }
    return queued;
  }

  /** Emits the events of one parcel's tracking change: TRACKING_UPDATED plus the specific kind when there is one. */
  emitTracking(data: TrackingEventData): WebhookEvent[] {
    const events = trackingEventsFor(data.tracking_event_type, data.tracking_event_name);
    for (const e of events) this.emit(e, data);
    return events;
  }

  /** Resolves when every queue is empty and nothing is in flight, or after timeoutMs (returns false then). */
  async drain(timeoutMs = 10_000): Promise<boolean> {
    if (this.isIdle()) return true;
    return new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => {
        this.idleWaiters = this.idleWaiters.filter((w) => w !== done);
        resolve(false);
      }, timeoutMs);
      const done = () => {
        clearTimeout(timer);
        resolve(true);
      };
      this.idleWaiters.push(done);
    });
  }

  /** Drops all subscriptions, queues and delivery records (the sandbox's reset); in-flight attempts are not recorded. */
  reset(): void {
    for (const st of this.subs.values()) this.stopSub(st);
    this.subs.clear();
    this.log = [];
    this.generation++;
    this.notifyIdle();
  }

  /** Stops all timers and queues, and waits for in-flight attempts for at most boundMs. */
  async close(boundMs = 1000): Promise<void> {
    this.closed = true;
    for (const st of this.subs.values()) this.stopSub(st);
    if (this.inflight.size > 0) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        Promise.allSettled([...this.inflight]),
        new Promise<void>((r) => {
          timer = setTimeout(r, boundMs);
        }),
      ]);
      clearTimeout(timer);
    }
    this.notifyIdle();
  }

  private copy(sub: Subscription): Subscription {
    return { ...sub, events: [...sub.events] };
  }

  private isIdle(): boolean {
    for (const st of this.subs.values()) if (st.running || st.queue.length > 0) return false;
    return this.inflight.size === 0;
  }

  private notifyIdle(): void {
    if (this.idleWaiters.length === 0 || !this.isIdle()) return;
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const w of waiters) w();
  }

  private stopSub(st: SubState): void {
    st.queue.length = 0;
    if (st.timer) clearTimeout(st.timer);
    st.timer = null;
    const wake = st.wake;
    st.wake = null;
    wake?.();
  }

  private pauseSub(st: SubState, reason: string): void {
    st.sub.status = 'paused';
    st.sub.paused_at = this.opts.now().toISOString();
    st.sub.last_error = reason;
    st.sub.skipped += st.queue.length;
    this.stopSub(st);
    try {
      this.opts.onSubscriptionChange(this.copy(st.sub));
    } catch {
      // A persistence hook must not break delivery.
    }
  }

  private kick(st: SubState): void {
    if (st.running) return;
    st.running = true;
    // Deliver on a later tick so the emitting request finishes first.
    const p = new Promise<void>((resolve) => setImmediate(resolve))
      .then(() => this.pump(st))
      .catch(() => undefined)
      .finally(() => {
        st.running = false;
        this.inflight.delete(p);
        // An emit may have landed between the loop's last check and here.
        if (st.queue.length > 0 && !this.closed && this.subs.get(st.sub.id) === st) this.kick(st);
        else this.notifyIdle();
      });
    this.inflight.add(p);
  }

  /** Sends the subscription's events one at a time, in order; a failing event holds the queue while it retries. */
  private async pump(st: SubState): Promise<void> {
    const gen = this.generation;
    while (st.queue.length > 0 && this.alive(st, gen)) {
      const job = st.queue[0];
      const payload = await this.buildPayload(st.sub, job);
      const { body, contentType } = encodePayload(payload, st.sub.format);
      let delivered = false;
      for (let attempt = 1; attempt <= st.sub.retries + 1; attempt++) {
        if (!this.alive(st, gen)) return;
        const rec = await this.attempt(st.sub, job, attempt, body, contentType);
        if (gen !== this.generation || this.subs.get(st.sub.id) !== st) return;
        this.record(rec);
        if (rec.ok) {
          delivered = true;
          break;
        }
        st.sub.last_error = rec.error;
        st.unreachable = rec.status === null ? st.unreachable + 1 : 0;
        if (st.unreachable >= this.opts.pauseAfterUnreachable) {
          this.pauseSub(st, `handler unreachable: ${rec.error}`);
          return;
        }
        if (attempt <= st.sub.retries) {
          // close(), reset() or unsubscribe() may have run during the attempt; their wake-up has already fired.
          if (!this.alive(st, gen)) return;
          await this.sleep(st, this.backoff(attempt));
        }
      }
      if (st.queue[0] === job) st.queue.shift();
      if (delivered) {
        st.sub.consecutive_failures = 0;
        st.unreachable = 0;
      } else {
        st.sub.consecutive_failures++;
        if (st.sub.consecutive_failures >= this.opts.pauseAfterFailedEvents) {
          this.pauseSub(st, `${st.sub.consecutive_failures} consecutive events failed: ${st.sub.last_error}`);
          return;
        }
      }
    }
  }

  private alive(st: SubState, gen: number): boolean {
    return !this.closed && gen === this.generation && st.sub.status === 'active' && this.subs.get(st.sub.id) === st;
  }

  private backoff(attempt: number): number {
    return Math.min(this.opts.maxDelayMs, this.opts.baseDelayMs * 2 ** (attempt - 1));
  }

  private sleep(st: SubState, ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      st.wake = resolve;
      st.timer = setTimeout(() => {
        st.timer = null;
        st.wake = null;
        resolve();
      }, ms);
    });
  }

  private async buildPayload(sub: Subscription, job: Job): Promise<WebhookPayload> {
    if (isShipmentEvent(job.event)) {
      const data = job.data as ShipmentEventData;
      let resolved = data;
      if (sub.labels && typeof data.labels === 'function') {
        // Several subscriptions share one event's data: render its labels once.
        let pending = this.labelCache.get(data);
        if (!pending) {
          const render = data.labels;
          pending = Promise.resolve()
            .then(render)
            .catch(() => undefined);
          this.labelCache.set(data, pending);
        }
        resolved = { ...data, labels: await pending };
      }
      return shipmentEventPayload(job.event, resolved, sub, job.request_token);
    }
    return trackingEventPayload(job.event, job.data as TrackingEventData, sub, job.request_token);
  }

  private async attempt(sub: Subscription, job: Job, attempt: number, body: string, contentType: string): Promise<Delivery> {
    const started = this.opts.now();
    const t0 = performance.now();
    const rec: Delivery = {
      id: randomUUID(),
      subscription_id: sub.id,
      event: job.event,
      request_token: job.request_token,
      attempt,
      status: null,
      error: null,
      ok: false,
      at: started.toISOString(),
      duration_ms: 0,
      url: sub.url,
      format: sub.format,
    };
    try {
      const request = undiciRequest;
      const res = await request(sub.url, {
        method: 'POST',
        headers: {
          'content-type': contentType,
          accept: 'application/json',
          'user-agent': 'ship-sandbox-webhooks/1.2',
          'x-webhook-event': job.event,
          'x-request-token': job.request_token,
        },
        body,
        headersTimeout: this.opts.timeoutMs,
        bodyTimeout: this.opts.timeoutMs,
        signal: AbortSignal.timeout(this.opts.timeoutMs),
      });
      // Drain the body so the connection can be reused.
      await res.body.dump().catch(() => undefined);
      rec.status = res.statusCode;
      rec.ok = res.statusCode >= 200 && res.statusCode < 300;
      if (!rec.ok) rec.error = `HTTP ${res.statusCode}`;
    } catch (err) {
      rec.error = errorText(err);
    }
    rec.duration_ms = Math.round(performance.now() - t0);
    return rec;
  }

  private record(rec: Delivery): void {
    this.log.push(rec);
    if (this.log.length > this.opts.maxDeliveries) this.log.splice(0, this.log.length - this.opts.maxDeliveries);
  }
}

function errorText(err: unknown): string {
  const e = err as { name?: string; code?: string; message?: string; cause?: { code?: string } };
  if (e?.name === 'TimeoutError' || e?.code === 'UND_ERR_HEADERS_TIMEOUT' || e?.code === 'UND_ERR_BODY_TIMEOUT') return 'timeout';
  return e?.code ?? e?.cause?.code ?? e?.message ?? String(err);
}
