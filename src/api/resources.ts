// One function per endpoint: builds the request, unwraps the envelope, parses the response leniently.
import type { z } from 'zod';
import type { ZodMiniType } from 'zod/mini';
import { ApiError, NotFoundError, ValidationError } from '../errors.js';
import { apiPath, HttpClient, type RequestSpec } from './client.js';
import { toDocumentResult, type DocumentResult } from './documents.js';
import type { Api, ApiOptions, CallOptions } from './index.js';
import type { ShipmentResponse, Sku, SkuPage } from './schemas.js';
import { fastSku, fastSkuLinks, fastSkuMeta } from './sku-fast.js';
import { fastShipmentResponse } from './shipment-fast.js';
import { fastLabel, fastLabels, fastShipmentEvents, fastTrackingEvent, fastTrackingEvents } from './parcel-fast.js';
import { fastBrand, fastCustomField, fastDeliveryService, fastLocation, fastPackagingOptions, fastUser } from './reference-fast.js';

// Response bodies are parsed here and read nowhere else: the fast parsers may hand their objects back,
// normalised in place, instead of copying them (FastParseOptions.reuse).
const OWNED = { reuse: true } as const;
const ownedSku = (item: unknown) => fastSku(item, OWNED);
const ownedShipmentResponse = (item: unknown) => fastShipmentResponse(item, OWNED);
const ownedSkuLinks = (item: unknown) => fastSkuLinks(item, OWNED);
const ownedSkuMeta = (item: unknown) => fastSkuMeta(item, OWNED);

/** The request schemas (classic zod), with the response schemas they re-export. */
type Schemas = typeof import('./schemas.js');
/** The response schemas alone (zod/mini). */
type Responses = typeof import('./response-schemas.js');
type SchemaPick<S extends z.ZodType> = (schemas: Schemas) => S;
/** A response schema (zod/mini). */
type ResponseSchema = ZodMiniType;
type ResponsePick<S extends ResponseSchema> = (schemas: Responses) => S;
/** A fast parser: the schema's output for an answer that matches it, undefined for the schema to judge. */
type Fast<S extends ResponseSchema> = (item: unknown) => z.output<S> | undefined;

let schemasP: Promise<[Schemas, typeof import('./validate.js')]> | undefined;
/**
 * The request schemas (and classic zod), loaded by the first call that validates a request body, not with
 * the client: a command that sends none never loads them.
 */
const loadSchemas = () => (schemasP ??= Promise.all([import('./schemas.js'), import('./validate.js')]));

let responsesP: Promise<Responses> | undefined;
/**
 * The response schemas (zod/mini, without classic zod and the request schemas), loaded by the first call whose
 * answer needs them: one whose answer needs no parsing (`whoami`: GET /tokens), or whose answer a fast parser
 * took (`track`, `label`, `skus list`, the reference commands), never loads zod.
 */
const loadResponses = () =>
  (responsesP ??= import('./response-schemas.js').then((loaded) => {
    responsesLoaded = loaded;
    return loaded;
  }));
/** The response schemas once loaded: a bulk run's thousands of calls take them without waiting on a promise each. */
let responsesLoaded: Responses | undefined;

/** Largest number of SKU pages `skus.all` follows (30 per page: 300 000 SKUs). */
const MAX_SKU_PAGES = 10_000;

/** `{message, data}` of an enveloped body; a body without `data` is taken as the data itself. */
function envelope(body: unknown): { message?: string; data: unknown } {
  if (body && typeof body === 'object' && !Array.isArray(body) && 'data' in body) {
    const b = body as { message?: unknown; data: unknown };
    return { message: typeof b.message === 'string' ? b.message : undefined, data: b.data };
  }
  return { data: body };
}

/** A short, readable summary of zod issues for a warning. */
function issueSummary(error: z.core.$ZodError): string {
  const shown = error.issues.slice(0, 3).map((i) => `${i.path.length ? i.path.join('.') : '(root)'}: ${i.message}`);
  const more = error.issues.length > 3 ? ` (+${error.issues.length - 3} more)` : '';
  return shown.join('; ') + more;
}

/** Builds the Api for the given options (see index.ts for the contract). */
export function buildApi(opts: ApiOptions): Api {
  const http = new HttpClient(opts);
  const warn = (message: string) => opts.onWarning?.(message);

  /** Parses leniently: on a mismatch, warns and returns the data as received. */
  function lenient<S extends ResponseSchema>(schema: S, data: unknown, where: string): z.output<S> {
    const r = schema.safeParse(data);
    if (r.success) return r.data as z.output<S>;
    warn(`${where}: the response did not match the expected shape (${issueSummary(r.error)}); using it as received`);
    return data as z.output<S>;
  }

  /**
   * Parses a list element by element, so one odd element keeps the others normalised. `fast` may give an
   * element's parsed value without zod (undefined: let the schema judge it).
   */
  function lenientList<S extends ResponseSchema>(schema: S, data: unknown, where: string, fast?: Fast<S>): Array<z.output<S>> {
    return listOf(data, where).map((item, i) => (fast && fast(item)) ?? lenient(schema, item, `${where} [${i}]`));
  }

  /** lenient, loading the response schemas only if `fast` (when given) gives up on the answer. */
  async function parseOne<S extends ResponseSchema>(pick: ResponsePick<S>, data: unknown, where: string, fast?: Fast<S>): Promise<z.output<S>> {
    const f = fast?.(data);
    if (f !== undefined) return f;
    return lenient(pick(responsesLoaded ?? (await loadResponses())), data, where);
  }

  /** lenientList, loading the response schemas only if `fast` (when given) gives up on an element. */
  async function parseList<S extends ResponseSchema>(pick: ResponsePick<S>, data: unknown, where: string, fast?: Fast<S>): Promise<Array<z.output<S>>> {
    const items = listOf(data, where);
    const parsed = fast ? items.map((item) => fast(item)) : [];
    if (fast && !parsed.includes(undefined)) return parsed as Array<z.output<S>>;
    const schema = pick(responsesLoaded ?? (await loadResponses()));
    return items.map((item, i) => parsed[i] ?? lenient(schema, item, `${where} [${i}]`));
  }

  /** The elements of an answer that should be a list (warning when it is not). */
  function listOf(data: unknown, where: string): unknown[] {
    if (Array.isArray(data)) return data;
    if (data === null || data === undefined) return [];
    if (typeof data === 'object') {
      // PHP serialises arrays with gaps in their keys as objects.
      warn(`${where}: expected a list, got an object; using its values`);
      return Object.values(data);
    }
    warn(`${where}: expected a list, got ${typeof data}; ignoring it`);
    return [];
  }

  /** Validates a request body before sending; a failure is a ValidationError with dotted field paths. */
  async function checked<S extends z.ZodType>(pick: SchemaPick<S>, body: unknown, what: string): Promise<z.output<S>> {
    const [schemas, { validateRequest }] = await loadSchemas();
    const r = validateRequest(pick(schemas), body);
    if (r.ok) return r.value;
    const fields: Record<string, string[]> = {};
    for (const i of r.issues) (fields[i.path || '(body)'] ??= []).push(i.message);
    throw new ValidationError(`the ${what} is not valid (checked before sending; nothing was sent)`, fields, {});
  }

  /** Sends `spec` (a fresh object of the caller's: the signal of `o` is set on it). */
  async function call(spec: RequestSpec, o?: CallOptions): Promise<{ message?: string; data: unknown; body: unknown }> {
    if (o?.signal) spec.signal = o.signal;
    if (o?.callerRetries) spec.callerRetries = true;
    const res = await http.send(spec);
    const out = envelope(res.body) as { message?: string; data: unknown; body: unknown };
    out.body = res.body;
    return out;
  }

  const where = (spec: { method: string; path: string }) => `${spec.method} ${spec.path}`;

  // Without a fast parser, the response schemas load while the request is on the wire; with one, only if it gives up.
  async function get<S extends ResponseSchema>(path: string, pick: ResponsePick<S>, what: string, o?: CallOptions, fast?: Fast<S>) {
    const [{ data }] = await Promise.all([call({ method: 'GET', path, what }, o), fast ? undefined : loadResponses()]);
    if (data === null || data === undefined) throw new ApiError(`GET ${path}: the response carries no ${what}`, { method: 'GET', path, status: 200 });
    return parseOne(pick, data, where({ method: 'GET', path }), fast);
  }

  async function getList<S extends ResponseSchema>(path: string, pick: ResponsePick<S>, o?: CallOptions, query?: RequestSpec['query'], fast?: Fast<S>) {
    const [{ data }] = await Promise.all([call({ method: 'GET', path, query }, o), fast ? undefined : loadResponses()]);
    return parseList(pick, data, where({ method: 'GET', path }), fast);
  }

  /** Sends a call and loads the response schemas meanwhile (the module loads while the request is on the wire). */
  async function callParsed(spec: RequestSpec, o?: CallOptions): Promise<{ message?: string; data: unknown; body: unknown; schemas: Responses }> {
    if (responsesLoaded !== undefined) {
      const res = (await call(spec, o)) as { message?: string; data: unknown; body: unknown; schemas: Responses };
      res.schemas = responsesLoaded;
      return res;
    }
    const [res, schemas] = await Promise.all([call(spec, o), loadResponses()]);
    return { ...res, schemas };
  }

  async function getDocument(path: string, what: string, o?: CallOptions, query?: RequestSpec['query']): Promise<DocumentResult> {
    const { message, data } = await call({ method: 'GET', path, query, what }, o);
    const doc = toDocumentResult(data, message);
    if (doc.base64 === undefined && doc.pdf === undefined && doc.zpl === undefined && doc.png === undefined) {
      warn(`GET ${path}: the response holds no recognisable document`);
    }
    return doc;
  }

  /**
   * A SKU page parsed part by part, so one odd SKU leaves the rest of the page normalised. The fast parsers
   * take a usual page whole, and zod (loaded only then) the parts they give up on: `skus list` loads no zod.
   */
  async function parseSkuPage(body: unknown, path: string): Promise<SkuPage> {
    const at = `GET ${path}`;
    const whole = Array.isArray(body);
    const b = !whole && body && typeof body === 'object' ? (body as Record<string, unknown>) : {};
    if (!whole && !Array.isArray(b.data)) warn(`${at}: the response has no data list`);
    const { data: _data, links, meta, ...rest } = b;
    const data = await parseList((s) => s.SkuSchema, whole ? body : b.data, at, ownedSku);
    if (whole) return { data, links: {}, meta: {} } as SkuPage;
    return {
      ...rest,
      data,
      links: await parseOne((s) => s.SkuLinksSchema, links ?? {}, `${at} links`, ownedSkuLinks),
      meta: await parseOne((s) => s.SkuMetaSchema, meta ?? {}, `${at} meta`, ownedSkuMeta),
    } as SkuPage;
  }

  async function skuPageAt(url: string, o?: CallOptions): Promise<SkuPage> {
    let target: URL;
    try {
      target = new URL(url, http.urlFor('/skus'));
    } catch {
      throw new ApiError(`invalid page URL ${JSON.stringify(url)}`);
    }
    if (target.origin !== http.origin) {
      // Never send our credentials to another host because a response told us to.
      throw new ApiError(`refusing to follow a page link to ${target.origin}: it is not the API's origin (${http.origin})`);
    }
    const res = await http.send({ method: 'GET', path: target.pathname, url: target.href, signal: o?.signal });
    return parseSkuPage(res.body, target.pathname + target.search);
  }

  /** Follows links.next; a link on another origin is not followed, its page number is asked of our own base URL instead. */
  async function nextSkuPage(next: string, o?: CallOptions): Promise<SkuPage> {
    let target: URL | undefined;
    try {
      target = new URL(next, http.urlFor('/skus'));
    } catch {
      target = undefined;
    }
    if (target && target.origin === http.origin) return skuPageAt(target.href, o);
    const page = Number(target?.searchParams.get('page'));
    if (!Number.isInteger(page) || page < 1) throw new ApiError(`cannot follow the SKU page link ${JSON.stringify(next)}`);
    return api.skus.list({ page }, o);
  }

  const skuWriteResult = (schemas: Responses, data: unknown, path: string): Sku | unknown => {
    if (data && typeof data === 'object' && !Array.isArray(data) && 'sku' in data) return lenient(schemas.SkuSchema, data, path);
    return data;
  };

  /** The shipments of a POST /shipments answer. */
  function createdShipments({ data, schemas }: { data: unknown; schemas: Responses }): ShipmentResponse[] {
    // The document leaves the count open; a single object is accepted as a one-element list.
    const list = data && typeof data === 'object' && !Array.isArray(data) ? [data] : data;
    const shipments = lenientList(schemas.ShipmentResponseSchema, list, 'POST /shipments', ownedShipmentResponse);
    if (shipments.length === 0) warn('POST /shipments: the response holds no shipment (it may still have been created)');
    return shipments;
  }

  const api: Api = {
    tokens: {
      async create(body, o) {
        // Not run through the character ban: a password may hold any character, and it is the API's to judge.
        const [{ TokenRequestSchema, TokenResultSchema }] = await loadSchemas();
        const parsed = TokenRequestSchema.safeParse(body);
        if (!parsed.success) {
          const fields: Record<string, string[]> = {};
          for (const i of parsed.error.issues) (fields[i.path.join('.') || '(body)'] ??= []).push(i.message);
          throw new ValidationError('the login is not valid (checked before sending; nothing was sent)', fields, {});
        }
        const b = parsed.data;
        const { data } = await call(
          {
            method: 'POST',
            path: '/tokens',
            body: b,
            sendToken: false,
            issuesCredential: true,
            authHint: 'check the username, password and API key (SHIP_API_KEY, or the key `ship login` asks for)',
          },
          o,
        );
        const r = TokenResultSchema.safeParse(data);
        if (r.success) return r.data;
        const token = data && typeof data === 'object' ? (data as { token?: unknown }).token : undefined;
        if (typeof token !== 'string' || token === '') {
          throw new ApiError('POST /tokens: the response carries no token', { method: 'POST', path: '/tokens' });
        }
        warn(`POST /tokens: the response did not match the expected shape (${issueSummary(r.error)}); using it as received`);
        return data as z.output<typeof TokenResultSchema>;
      },
      async check(o) {
        return (await api.tokens.session(o)).active;
      },
      async session(o) {
        let data: unknown;
        try {
          ({ data } = await call({ method: 'GET', path: '/tokens' }, o));
        } catch (err) {
          if (err instanceof ApiError && err.http.status === 401) return err.http.apiMessage ? { active: false, refusal: err.http.apiMessage } : { active: false };
          throw err;
        }
        const user = data && typeof data === 'object' ? (data as { user?: unknown }).user : undefined;
        return user && typeof user === 'object' && !Array.isArray(user) ? { active: true, user: user as Record<string, unknown> } : { active: true };
      },
      async revoke(o) {
        await call({ method: 'DELETE', path: '/tokens' }, o);
      },
    },

    shipments: {
      async create(body, o) {
        // A prevalidated body is validateShipmentRequest's own output (e.g. a CSV validated whole before the
        // first request): validating it again per request changes nothing and cost ~40 µs each in bulk runs.
        const b = o?.prevalidated ? body : await checked((s) => s.ShipmentRequestSchema, body, 'shipment');
        return createdShipments(await callParsed({ method: 'POST', path: '/shipments', body: b }, o));
      },
      async createPrevalidated(json, o) {
        return createdShipments(await callParsed({ method: 'POST', path: '/shipments', bodyText: json }, o));
      },
      async getServices(body, o) {
        const b = await checked((s) => s.ShipmentRequestSchema, body, 'shipment');
        const { data, schemas } = await callParsed({ method: 'POST', path: '/shipments/get-services', body: b }, o);
        return lenient(schemas.ServiceQuotesSchema, data, 'POST /shipments/get-services');
      },
      async cancel(ref, o) {
        const path = apiPath`/shipments/${ref}`;
        const { message } = await call({ method: 'DELETE', path, what: `shipment ${JSON.stringify(ref)}` }, o);
        return { message: message ?? 'Shipment Cancelled' };
      },
      async events(ref, o) {
        const path = apiPath`/shipments/${ref}/events`;
        // Not callParsed: an answer the fast parser takes needs no schemas, and `ship track` no zod.
        const { data } = await call({ method: 'GET', path, what: `shipment ${JSON.stringify(ref)}` }, o);
        // An empty PHP array arrives as [] rather than {}.
        if (Array.isArray(data) && data.length === 0) return {};
        const fast = fastShipmentEvents(data ?? {});
        if (fast) return fast;
        const schemas = await loadResponses();
        return lenient(schemas.ShipmentEventsSchema, data ?? {}, `GET ${path}`);
      },
      async print(ref, body, o) {
        const path = apiPath`/shipments/${ref}/print`;
        const b = body && Object.keys(body).length > 0 ? await checked((s) => s.PrintRequestSchema, body, 'print request') : undefined;
        // Each call prints the labels again: a lost answer is not retried (the labels may be printing).
        const { message } = await call({ method: 'PUT', path, body: b ?? {}, what: `shipment ${JSON.stringify(ref)}`, once: true }, o);
        return { message: message ?? '' };
      },
      async commercialInvoice(ref, o) {
        return getDocument(apiPath`/shipments/${ref}/commercial-invoice`, `commercial invoice of shipment ${JSON.stringify(ref)}`, o);
      },
    },

    parcels: {
      async events(trackingRef, o) {
        const path = apiPath`/parcels/${trackingRef}/events`;
        const { data } = await call({ method: 'GET', path, what: `parcel ${JSON.stringify(trackingRef)}` }, o);
        const fast = fastTrackingEvents(data);
        if (fast) return fast;
        const schemas = await loadResponses();
        return lenientList(schemas.TrackingEventSchema, data, `GET ${path}`, fastTrackingEvent);
      },
      async label(trackingRef, q, o) {
        const path = apiPath`/parcels/${trackingRef}/label`;
        // Not callParsed: an answer the fast parser takes needs no schemas, and `ship label` no zod.
        const { data } = await call({ method: 'GET', path, query: { format: q?.format }, what: `parcel ${JSON.stringify(trackingRef)}` }, o);
        const list = data && typeof data === 'object' && !Array.isArray(data) ? [data] : data;
        const fast = fastLabels(list);
        if (fast) return fast;
        const schemas = await loadResponses();
        return lenientList(schemas.LabelSchema, list, `GET ${path}`, fastLabel);
      },
    },

    // The reference data: fast parsers take the usual answers, so these commands load no zod.
    users: {
      list: (o) => getList('/users', (s) => s.UserSchema, o, undefined, fastUser),
    },

    locations: {
      async list(o) {
        const { data } = await call({ method: 'GET', path: '/locations' }, o);
        // Documented as a paginator (data.data); a plain list is accepted too.
        const inner = data && typeof data === 'object' && !Array.isArray(data) && 'data' in data ? (data as { data: unknown }).data : data;
        return parseList((s) => s.LocationSchema, inner, 'GET /locations', fastLocation);
      },
      get: (ref, o) => get(apiPath`/locations/${ref}`, (s) => s.LocationSchema, `location ${JSON.stringify(ref)}`, o, fastLocation),
    },

    brands: {
      list: (o) => getList('/brands', (s) => s.BrandSchema, o, undefined, fastBrand),
      get: (ref, o) => get(apiPath`/brands/${ref}`, (s) => s.BrandSchema, `brand ${JSON.stringify(ref)}`, o, fastBrand),
    },

    services: {
      list: (filter, o) =>
        getList(
          '/services',
          (s) => s.DeliveryServiceSchema,
          o,
          { weight: filter?.weight, length: filter?.length, width: filter?.width, depth: filter?.depth },
          fastDeliveryService,
        ),
    },

    customFields: {
      list: (o) => getList('/custom-fields', (s) => s.CustomFieldSchema, o, undefined, fastCustomField),
      async get(ref, o) {
        const path = apiPath`/custom-fields/${ref}`;
        const { data } = await call({ method: 'GET', path, what: `custom field ${JSON.stringify(ref)}` }, o);
        const one = Array.isArray(data) ? data[0] : data;
        if (one === undefined || one === null) {
          throw new NotFoundError(`custom field ${JSON.stringify(ref)} not found`, { method: 'GET', path, status: 200 });
        }
        return parseOne((s) => s.CustomFieldSchema, one, `GET ${path}`, fastCustomField);
      },
      async create(body, o) {
        const b = await checked((s) => s.CustomFieldRequestSchema, body, 'custom field');
        const { data, schemas } = await callParsed({ method: 'POST', path: '/custom-fields', body: b }, o);
        return lenient(schemas.CustomFieldSchema, Array.isArray(data) ? data[0] : data, 'POST /custom-fields');
      },
    },

    packaging: {
      get: (o) => get('/packaging-options', (s) => s.PackagingOptionsSchema, 'packaging options', o, fastPackagingOptions),
    },

    skus: {
      async create(body, o) {
        const b = await checked((s) => s.SkuRequestSchema, body, 'SKU');
        const { data, schemas } = await callParsed({ method: 'POST', path: '/skus', body: b }, o);
        return skuWriteResult(schemas, data, 'POST /skus');
      },
      async replace(ref, body, o) {
        const path = apiPath`/skus/${ref}`;
        const b = await checked((s) => s.SkuRequestSchema, body, 'SKU');
        const { data, schemas } = await callParsed({ method: 'PUT', path, body: b, what: `SKU ${JSON.stringify(ref)}` }, o);
        return skuWriteResult(schemas, data, `PUT ${path}`);
      },
      async update(ref, body, o) {
        const path = apiPath`/skus/${ref}`;
        const b = await checked((s) => s.SkuPatchSchema, body, 'SKU update');
        const { data, schemas } = await callParsed({ method: 'PATCH', path, body: b, what: `SKU ${JSON.stringify(ref)}` }, o);
        return skuWriteResult(schemas, data, `PATCH ${path}`);
      },
      async list(q, o) {
        const res = await http.send({ method: 'GET', path: '/skus', query: { page: q?.page }, signal: o?.signal });
        return parseSkuPage(res.body, '/skus');
      },
      page: (url, o) => skuPageAt(url, o),
      async *all(o) {
        let page = await api.skus.list({}, o);
        const seen = new Set<string>();
        for (let n = 0; n < MAX_SKU_PAGES; n++) {
          for (const s of page.data) yield s;
          const next = page.links?.next;
          if (!next || seen.has(next) || page.data.length === 0) return;
          seen.add(next);
          page = await nextSkuPage(next, o);
        }
      },
      get: (ref, o) => get(apiPath`/skus/${ref}`, (s) => s.SkuSchema, `SKU ${JSON.stringify(ref)}`, o),
    },

    containers: {
      async create(body, o) {
        const b = await checked((s) => s.ContainerRequestSchema, body, 'container');
        const { data, schemas } = await callParsed({ method: 'POST', path: '/containers', body: b }, o);
        return lenient(schemas.ContainerSchema, data, 'POST /containers');
      },
      get: (ref, o) => get(apiPath`/containers/${ref}`, (s) => s.ContainerSchema, `container ${JSON.stringify(ref)}`, o),
      label: (ref, q, o) => getDocument(apiPath`/containers/${ref}/label`, `container ${JSON.stringify(ref)}`, o, { format: q?.format }),
      documents: (ref, o) => getDocument(apiPath`/containers/${ref}/documents`, `documents of container ${JSON.stringify(ref)}`, o),
      commercialInvoice: (ref, o) =>
        getDocument(apiPath`/containers/${ref}/commercial-invoice`, `commercial invoice of container ${JSON.stringify(ref)}`, o),
      async shipments(ref, o) {
        const path = apiPath`/containers/${ref}/shipments`;
        const { data, schemas } = await callParsed({ method: 'GET', path, what: `container ${JSON.stringify(ref)}` }, o);
        const inner = data && typeof data === 'object' && !Array.isArray(data) && 'shipments' in data ? (data as { shipments: unknown }).shipments : data;
        return lenientList(schemas.ContainerShipmentSchema, inner, `GET ${path}`);
      },
      async close(ref, o) {
        const path = apiPath`/containers/${ref}/close`;
        const { message, data } = await call({ method: 'PATCH', path, what: `container ${JSON.stringify(ref)}` }, o);
        return { message: message ?? '', data };
      },
      async delete(ref, o) {
        const path = apiPath`/containers/${ref}`;
        const { message } = await call({ method: 'DELETE', path, what: `container ${JSON.stringify(ref)}` }, o);
        return { message: message ?? '' };
      },
    },

    close: () => http.close(),
  };
  return api;
}
