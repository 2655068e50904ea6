// Control endpoints for tests and demos, under /__sandbox (never under /v1.2, no authentication): reset,
// tracking advance, webhook subscriptions and deliveries, faults, print jobs, packaging settings.
import type { SandboxApp } from './app.js';
import type { Faults } from './faults.js';
import { HttpError, notFound, ok, type ApiRequest, type ApiResponse } from './http.js';
import { Router, unroutedMethod } from './router.js';
import { advance, STAGES, type Stage } from './tracking.js';
import { Errors, VALIDATION_MESSAGE, bool, int, isObject, oneOf, str } from './validation.js';
import { randomUUID } from 'node:crypto';
import type { SkuRec } from './store.js';
import { WebhookSubscriptionError, type SubscribeInput } from './webhooks.js';

/** What control handlers work on. */
export interface ControlContext {
  app: SandboxApp;
  faults: Faults;
}

/** The control routes (paths below /__sandbox). */
export function controlRouter(): Router<ControlContext> {
  const r = new Router<ControlContext>();
  r.add('GET', '/health', () => ok('OK', { status: 'ok' }));
  r.add('POST', '/reset', ({ app, faults }) => {
    app.reset();
    faults.clear();
    return ok('Sandbox reset', null);
  });
  r.add('POST', '/tracking/advance', ({ app }, req) => {
    const b = isObject(req.body) ? req.body : {};
    const e = new Errors();
    const ref = str(e, b.shipment_reference, 'shipment_reference');
    const to = oneOf(e, b.to, 'to', STAGES.filter((s) => s !== 'LABEL_CREATED') as Stage[], { upper: true });
    e.throwIfAny();
    let targets = app.store.shipments.values();
    if (ref !== undefined) {
      const s = app.store.shipmentByAnyRef(ref);
      if (!s) throw notFound(`No shipment with reference "${ref}".`);
      targets = [s].values();
    }
    const moved = advance(app, targets, to);
    return ok(`${moved.length} parcel${moved.length === 1 ? '' : 's'} advanced`, { moved });
  });
  r.add('POST', '/webhooks', ({ app }, req) => {
    try {
      const sub = app.dispatcher.subscribe((isObject(req.body) ? req.body : {}) as unknown as SubscribeInput);
      app.webhooksActive = true;
      app.syncWebhooks();
      return ok('Webhook subscribed', sub, 201);
    } catch (err) {
      if (err instanceof WebhookSubscriptionError) throw new HttpError(400, VALIDATION_MESSAGE, err.errors);
      throw err;
    }
  });
  r.add('GET', '/webhooks', ({ app }) => ok('Webhook subscriptions', app.dispatcher.subscriptions()));
  r.add('GET', '/webhooks/deliveries', ({ app }) => ok('Webhook deliveries', app.dispatcher.deliveries()));
  r.add('POST', '/webhooks/:id/resume', ({ app }, req) => {
    const sub = app.dispatcher.resume(req.params.id);
    if (!sub) throw notFound(`No webhook subscription "${req.params.id}".`);
    app.syncWebhooks();
    return ok('Webhook reinstated', sub);
  });
  r.add('POST', '/webhooks/:id/pause', ({ app }, req) => {
    const sub = app.dispatcher.pause(req.params.id);
    if (!sub) throw notFound(`No webhook subscription "${req.params.id}".`);
    app.syncWebhooks();
    return ok('Webhook paused', sub);
  });
  r.add('DELETE', '/webhooks/:id', ({ app }, req) => {
    if (!app.dispatcher.unsubscribe(req.params.id)) throw notFound(`No webhook subscription "${req.params.id}".`);
    app.syncWebhooks();
    return ok('Webhook removed', null);
  });
  r.add('POST', '/faults', ({ faults }, req) => ok('Faults set', faults.set(req.body)));
  r.add('GET', '/faults', ({ faults }) => ok('Faults', faults.config));
  r.add('GET', '/prints', ({ app }) => ok('Print jobs', app.store.printJobs));
  r.add('POST', '/seed/skus', ({ app }, req) => {
    const b = isObject(req.body) ? req.body : {};
    const e = new Errors();
    const count = int(e, b.count, 'count', { required: true, min: 1, max: 100_000 });
    const prefix = str(e, b.prefix, 'prefix', { max: 50 }) ?? 'SKU';
    e.throwIfAny();
    const created: string[] = [];
    for (let i = 1; i <= count!; i++) {
      const sku = `${prefix}-${String(i).padStart(6, '0')}`;
      if (app.store.skusBySku.has(sku)) continue;
      app.store.addSku(seededSku(app, sku, i));
      created.push(sku);
    }
    app.changed();
    return ok(`${created.length} SKUs created`, { created: created.length, first: created[0] ?? null, last: created.at(-1) ?? null });
  });
  r.add('POST', '/packaging', ({ app }, req) => {
    const b = isObject(req.body) ? req.body : {};
    const e = new Errors();
    const net = bool(e, b.net_weight, 'net_weight', { words: true });
    const override = bool(e, b.allow_override, 'allow_override', { words: true });
    e.throwIfAny();
    if (net !== undefined) app.store.packaging.net_weight = net;
    if (override !== undefined) app.store.packaging.allow_override = override;
    app.changed();
    return ok('Packaging options updated', { net_weight: app.store.packaging.net_weight, allow_override: app.store.packaging.allow_override });
  });
  return r;
}

/** Runs a control request. */
export async function handleControl(router: Router<ControlContext>, ctx: ControlContext, req: ApiRequest): Promise<ApiResponse> {
  const m = router.match(req.method === 'HEAD' ? 'GET' : req.method, req.path);
  if (!m) throw notFound(`Unknown sandbox control endpoint: ${req.method} /__sandbox${req.path}`);
  if ('allowed' in m) {
    const answer = unroutedMethod(req.method, `/__sandbox${req.path}`, m.allowed);
    if (answer instanceof HttpError) throw answer;
    return answer;
  }
  req.params = m.params;
  return m.handler(ctx, req);
}

/** A plausible SKU for bulk seeding (`POST /__sandbox/seed/skus`). */
function seededSku(app: ControlContext['app'], sku: string, i: number): SkuRec {
  const now = app.nowStr();
  return {
    id: randomUUID(),
    sku,
    image_url: null,
    product_name: `Product ${sku}`,
    outer_barcode: null,
    inner_barcode: String(5_000_000_000_000 + i),
    product_code: null,
    description_short: `Product ${i}`,
    description_full: `Seeded product number ${i}`,
    department: 'Seeded',
    category: null,
    location_id: app.store.defaultLocation().id,
    warehouse_location: `S${Math.ceil(i / 50)}-${String(i % 50).padStart(2, '0')}`,
    tariff_code: '6109100010',
    tariff_description: null,
    country_of_origin: 'GB',
    manufacturer_name: null,
    part_number: null,
    value_ex_vat: 10 + (i % 90),
    vat_rate: 20,
    value_inc_vat: Math.round((10 + (i % 90)) * 120) / 100,
    gross_weight: 100 + (i % 900),
    net_weight: 90 + (i % 900),
    width: 100,
    length: 150,
    depth: 50,
    active: true,
    is_stocked_item: true,
    in_stock: true,
    custom_fields: {},
    item_handling: 'PACKABLE',
    created_at: now,
    updated_at: now,
  };
}
