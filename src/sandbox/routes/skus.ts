// /skus: create (POST), replace (PUT), partial update (PATCH), paginated list (30 per page with links and meta,
// no message: an envelope exception), get by SKU number or ID.
import { randomUUID } from 'node:crypto';
import { presentSku, type SandboxApp } from '../app.js';
import { notFound, ok, type ApiRequest, type ApiResponse } from '../http.js';
import type { SkuRec } from '../store.js';
import { Errors, bool, checkForbidden, country, int, isBlank, isObject, msg, num, str } from '../validation.js';
import { resolveCustomFields } from './custom-fields.js';

export const SKU_PAGE_SIZE = 30;

const STRING_FIELDS = [
  'product_name',
  'outer_barcode',
  'inner_barcode',
  'product_code',
  'description_short',
  'description_full',
  'department',
  'category',
  'warehouse_location',
  'tariff_code',
  'tariff_description',
  'manufacturer_name',
  'part_number',
] as const;
const DECIMAL_FIELDS = ['value_ex_vat', 'vat_rate', 'value_inc_vat'] as const;
const INT_FIELDS = ['gross_weight', 'net_weight', 'width', 'length', 'depth'] as const;

const PACKABLE = new Set(['1', 'true', 'y', 'yes', 'p', 'packable']);
const NON_PACKABLE = new Set(['0', 'false', 'n', 'no', 'nonpackable', 'non-packable', 'non_packable']);

/** Normalises item_handling as the document lists (any letter case); undefined when not recognised. */
export function normaliseItemHandling(v: unknown): 'PACKABLE' | 'NON_PACKABLE' | undefined {
  const s = String(v).trim().toLowerCase();
  if (PACKABLE.has(s)) return 'PACKABLE';
  if (NON_PACKABLE.has(s)) return 'NON_PACKABLE';
  return undefined;
}

function blankSku(app: SandboxApp, id: string, sku: string, now: string): SkuRec {
  return {
    id,
    sku,
    image_url: null,
    product_name: null,
    outer_barcode: null,
    inner_barcode: null,
    product_code: null,
    description_short: null,
    description_full: null,
    department: null,
    category: null,
    location_id: app.store.defaultLocation().id,
    warehouse_location: null,
    tariff_code: null,
    tariff_description: null,
    country_of_origin: null,
    manufacturer_name: null,
    part_number: null,
    value_ex_vat: null,
    vat_rate: null,
    value_inc_vat: null,
    gross_weight: null,
    net_weight: null,
    width: null,
    length: null,
    depth: null,
    active: true,
    is_stocked_item: false,
    in_stock: false,
    custom_fields: {},
    item_handling: 'PACKABLE',
    created_at: now,
    updated_at: now,
  };
}

/**
 * Validates a SKU body and applies it to `target`. `partial` (PATCH) checks and applies only the attributes sent;
 * otherwise `sku` is required and everything not sent takes its default.
 */
function applySku(app: SandboxApp, body: Record<string, unknown>, target: SkuRec, partial: boolean, existing?: SkuRec): void {
  const e = new Errors();
  checkForbidden(e, body);
  const has = (k: string) => !partial || Object.prototype.hasOwnProperty.call(body, k);
  const changes: Partial<SkuRec> = {};

  if (has('sku')) {
    // No length limits: the document states none for SKU attributes.
    const s = str(e, body.sku, 'sku', { required: true });
    if (s !== undefined) {
      const clash = app.store.skusBySku.get(s);
      if (clash && clash !== existing) e.add('sku', msg.taken('sku'));
      else changes.sku = s;
    }
  }
  if (has('image_url')) {
    const u = str(e, body.image_url, 'image_url');
    // "On write, the service downloads a copy": something it cannot download is refused.
    if (u !== undefined && !/^https?:\/\/[^\s/]+/i.test(u)) e.add('image_url', 'The image url must be a valid URL.');
    else changes.image_url = u ?? null;
  }
  for (const k of STRING_FIELDS) if (has(k)) (changes as Record<string, unknown>)[k] = str(e, body[k], k) ?? null;
  for (const k of DECIMAL_FIELDS) {
    if (!has(k)) continue;
    const v = num(e, body[k], k, { min: 0 });
    (changes as Record<string, unknown>)[k] = v === undefined ? null : Math.round(v * 100) / 100;
  }
  for (const k of INT_FIELDS) if (has(k)) (changes as Record<string, unknown>)[k] = int(e, body[k], k, { min: 0 }) ?? null;
  if (has('location')) {
    if (isBlank(body.location)) changes.location_id = app.store.defaultLocation().id;
    else {
      const ref = str(e, body.location, 'location');
      if (ref !== undefined) {
        const loc = app.store.location(ref);
        if (!loc) e.add('location', msg.invalid('location'));
        else changes.location_id = loc.id;
      }
    }
  }
  if (has('country_of_origin')) changes.country_of_origin = country(e, body.country_of_origin, 'country_of_origin') ?? null;
  if (has('active')) changes.active = bool(e, body.active, 'active') ?? true;
  if (has('is_stocked_item')) changes.is_stocked_item = bool(e, body.is_stocked_item, 'is_stocked_item') ?? false;
  if (has('in_stock')) changes.in_stock = bool(e, body.in_stock, 'in_stock') ?? false;
  if (has('item_handling')) {
    if (isBlank(body.item_handling)) changes.item_handling = 'PACKABLE';
    else {
      const h = typeof body.item_handling === 'object' ? undefined : normaliseItemHandling(body.item_handling);
      if (!h) e.add('item_handling', msg.invalid('item_handling'));
      else changes.item_handling = h;
    }
  }
  // MAPPED fields copy the SKU attribute (or custom field) named in mapped_to, so they are resolved on every write
  // (a PATCH of product_name refreshes a field mapped to it) from the SKU as it will be.
  // (A PATCH without custom_fields keeps the values stored, so a field mapped to another custom field reads those.)
  const attributes: Record<string, unknown> = { ...(partial ? target.custom_fields : {}), ...target, ...changes };
  attributes.location = app.store.locations.get(attributes.location_id as string)?.code ?? null;
  changes.custom_fields = resolveCustomFields(app, e, 'SKU', has('custom_fields') ? body.custom_fields : undefined, 'custom_fields', attributes, { applyDefaults: !partial });
  if (partial) changes.custom_fields = { ...target.custom_fields, ...changes.custom_fields };
  e.throwIfAny();

  Object.assign(target, changes);
}

function findSku(app: SandboxApp, ref: string): SkuRec {
  const s = app.store.sku(ref);
  if (!s) throw notFound(`No SKU with number or ID "${ref}".`);
  return s;
}

/** POST /skus: `sku` is the only required attribute; `active` defaults to true, item_handling to PACKABLE. */
export function createSku(app: SandboxApp, req: ApiRequest): ApiResponse {
  const body = isObject(req.body) ? req.body : {};
  const now = app.nowStr();
  const rec = blankSku(app, randomUUID(), '', now);
  applySku(app, body, rec, false);
  app.store.addSku(rec);
  app.changed();
  return ok('SKU created', presentSku(app, rec), 201);
}

/** PUT /skus/:ref: replaces every attribute (mandatory ones must be sent; others not sent return to defaults). */
export function replaceSku(app: SandboxApp, req: ApiRequest): ApiResponse {
  const existing = findSku(app, req.params.ref);
  const body = isObject(req.body) ? req.body : {};
  const next = blankSku(app, existing.id, existing.sku, app.nowStr());
  next.created_at = existing.created_at;
  applySku(app, body, next, false, existing);
  const oldSku = existing.sku;
  Object.assign(existing, next);
  if (oldSku !== existing.sku) app.store.renameSku(existing, oldSku);
  app.changed();
  return ok('SKU updated', presentSku(app, existing));
}

/** PATCH /skus/:ref: changes only the attributes sent. */
export function patchSku(app: SandboxApp, req: ApiRequest): ApiResponse {
  const existing = findSku(app, req.params.ref);
  const body = isObject(req.body) ? req.body : {};
  const oldSku = existing.sku;
  applySku(app, body, existing, true, existing);
  if (oldSku !== existing.sku) app.store.renameSku(existing, oldSku);
  existing.updated_at = app.nowStr();
  app.changed();
  return ok('SKU updated', presentSku(app, existing));
}

/** GET /skus/:ref. */
export function getSku(app: SandboxApp, req: ApiRequest): ApiResponse {
  return ok('SKU', presentSku(app, findSku(app, req.params.ref)));
}

/**
 * GET /skus?page=N: `{data, links, meta}` with 30 per page and absolute links. `meta` holds exactly the keys the
 * document lists (no `total` or `last_page`: a client must find the last page from `links.last` or `next`).
 * Laravel's paginator, which these `links` and `meta` are, throughout: `prev` is page N-1 whenever N > 1, even
 * past the last page (an empty page, `from` and `to` null, `next` null); a `page` that is not a whole number of
 * at least 1 is page 1.
 */
export function listSkus(app: SandboxApp, req: ApiRequest): ApiResponse {
  const list = app.store.skuList;
  const total = list.length;
  const lastPage = Math.max(1, Math.ceil(total / SKU_PAGE_SIZE));
  const raw = req.query.get('page');
  let page = raw !== null && /^\d+$/.test(raw) ? Number(raw) : 1;
  // Past the safe integers page N-1 would not be N-1 (nor print as digits); Laravel likewise takes a page
  // number past its integers as page 1.
  if (page < 1 || !Number.isSafeInteger(page)) page = 1;
  const start = (page - 1) * SKU_PAGE_SIZE;
  const slice = list.slice(start, start + SKU_PAGE_SIZE);
  const path = `${req.origin}/v1.2/skus`;
  const link = (p: number) => `${path}?page=${p}`;
  return {
    status: 200,
    body: {
      data: slice.map((s) => presentSku(app, s)),
      links: {
        first: link(1),
        last: link(lastPage),
        prev: page > 1 ? link(page - 1) : null,
        next: page < lastPage ? link(page + 1) : null,
      },
      meta: {
        current_page: page,
        from: slice.length ? start + 1 : null,
        path,
        per_page: SKU_PAGE_SIZE,
        to: slice.length ? start + slice.length : null,
      },
    },
  };
}
