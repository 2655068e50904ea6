// /containers: create (consolidation services only; reference CYYDDDSSS when omitted), get, label, documents,
// commercial invoice, shipments, close (Open → Closed, manifesting its shipments), delete (empty or all cancelled).
import { randomUUID } from 'node:crypto';
import { presentContainer, shipmentTotals, type SandboxApp } from '../app.js';
import { dayOfYear, fmtDate, parseDateTime } from '../format.js';
import { HttpError, notFound, ok, type ApiRequest, type ApiResponse } from '../http.js';
import { containerDocuments, containerInvoice, containerLabel } from '../labels.js';
import type { ContainerRec } from '../store.js';
import { addStage, currentStage } from '../tracking.js';
import { Errors, checkForbidden, country, fail, isObject, msg, oneOf, str } from '../validation.js';
import { isCurrencyCode } from '../../api/currencies.js';

function findContainer(app: SandboxApp, ref: string): ContainerRec {
  const c = app.store.container(ref);
  if (!c) throw notFound(`No container with reference or ID "${ref}".`);
  return c;
}

/** The next generated reference: C, two-digit year, three-digit day of year, three-digit sequence of that day. */
function nextReference(app: SandboxApp): string {
  const now = app.now();
  const day = `${String(now.getUTCFullYear() % 100).padStart(2, '0')}${String(dayOfYear(now)).padStart(3, '0')}`;
  let n = app.store.counters.containers[day] ?? 0;
  let ref: string;
  do {
    n++;
    ref = `C${day}${String(n).padStart(3, '0')}`;
  } while (app.store.containersByRef.has(ref));
  app.store.counters.containers[day] = n;
  return ref;
}

/** POST /containers. */
export function createContainer(app: SandboxApp, req: ApiRequest): ApiResponse {
  const b = isObject(req.body) ? req.body : {};
  const e = new Errors();
  checkForbidden(e, b);
  // No length limits: the document states none for a container's reference or clearance location.
  const reference = str(e, b.reference, 'reference');
  if (reference !== undefined && app.store.containersByRef.has(reference)) e.add('reference', msg.taken('reference'));
  let despatch = fmtDate(app.now());
  const dd = str(e, b.despatch_date, 'despatch_date');
  if (dd !== undefined) {
    if (!/^\d{4}-\d{2}-\d{2}$/.test(dd) || !parseDateTime(dd)) e.add('despatch_date', 'The despatch date does not match the format Y-m-d.');
    else despatch = dd;
  }
  let location_id = app.store.defaultLocation().id;
  const loc = str(e, b.despatch_location, 'despatch_location');
  if (loc !== undefined) {
    const l = app.store.location(loc);
    if (!l) e.add('despatch_location', msg.invalid('despatch_location'));
    else location_id = l.id;
  }
  const key = str(e, b.delivery_service_key, 'delivery_service_key', { required: true });
  if (key !== undefined) {
    const svc = app.store.servicesByKey.get(key);
    if (!svc) e.add('delivery_service_key', msg.invalid('delivery_service_key'));
    else if (!svc.consolidation) e.add('delivery_service_key', 'The delivery service key must be a consolidation service.');
  }
  const clearance_country = country(e, b.clearance_country, 'clearance_country', { required: true });
  const clearance_location = str(e, b.clearance_location, 'clearance_location', { required: true });
  const cur = str(e, b.value_currency, 'value_currency');
  if (cur !== undefined && !/^[A-Za-z]{3}$/.test(cur)) e.add('value_currency', 'The value currency must be a three-letter ISO 4217 currency code.');
  else if (cur !== undefined && !isCurrencyCode(cur.toUpperCase())) e.add('value_currency', msg.invalid('value_currency'));
  e.throwIfAny();

  const svc = app.store.servicesByKey.get(key!)!;
  const now = app.nowStr();
  const ref = reference ?? nextReference(app);
  const trk = `${svc.tracking_prefix}${String(++app.store.counters.tracking).padStart(9, '0')}GB`;
  const c: ContainerRec = {
    id: randomUUID(),
    reference: ref,
    despatch_date: despatch,
    location_id,
    service_key: svc.key,
    tracking_reference: trk,
    consolidation_reference: trk,
    clearance_country: clearance_country!,
    clearance_location: clearance_location!.toUpperCase(),
    value_currency: (cur ?? 'GBP').toUpperCase(),
    status: 'Open',
    shipment_ids: [],
    created_at: now,
    updated_at: now,
    closed_at: null,
  };
  app.store.putContainer(c);
  app.changed();
  return ok('Container created', presentContainer(app, c), 201);
}

/** GET /containers/:ref. */
export function getContainer(app: SandboxApp, req: ApiRequest): ApiResponse {
  return ok('Container', presentContainer(app, findContainer(app, req.params.ref)));
}

/** GET /containers/:ref/label?format=ZPL|PDF: `data` is an array holding one object with `zpl` or `pdf`. */
export async function getContainerLabel(app: SandboxApp, req: ApiRequest): Promise<ApiResponse> {
  const c = findContainer(app, req.params.ref);
  const e = new Errors();
  const raw = req.query.get('format');
  const format = (raw ? oneOf(e, raw, 'format', ['ZPL', 'PDF'] as const) : undefined) ?? 'ZPL';
  e.throwIfAny();
  const content = await containerLabel(app, c, format);
  return ok('Container label', [
    { container_reference: c.reference, tracking_reference: c.tracking_reference, format, zpl: format === 'ZPL' ? content : '', pdf: format === 'PDF' ? content : '' },
  ]);
}

function requireClosed(c: ContainerRec, what: string): void {
  // A GET creates or updates nothing, so this is not the document's "validation failure" (field-keyed data):
  // a plain 400 ("bad request") with its reason, as the document leaves the error of this case unshown.
  if (c.status !== 'Closed') throw new HttpError(400, `The container ${c.reference} is open: its ${what} are generated when it is closed.`, null);
}

/** GET /containers/:ref/documents: carrier documents (base64 PDF), available once the container is Closed. */
export async function getContainerDocuments(app: SandboxApp, req: ApiRequest): Promise<ApiResponse> {
  const c = findContainer(app, req.params.ref);
  requireClosed(c, 'documents');
  return ok('Container documents', [{ container_reference: c.reference, format: 'PDF', pdf: await containerDocuments(app, c) }]);
}

/** GET /containers/:ref/commercial-invoice: A4 invoice (base64 PDF), available once the container is Closed. */
export async function getContainerInvoice(app: SandboxApp, req: ApiRequest): Promise<ApiResponse> {
  const c = findContainer(app, req.params.ref);
  requireClosed(c, 'commercial invoice documents');
  return ok('Commercial invoice', [{ container_reference: c.reference, format: 'PDF', pdf: await containerInvoice(app, c) }]);
}

/** GET /containers/:ref/shipments: `data.shipments`, cancelled ones included with their status. */
export function getContainerShipments(app: SandboxApp, req: ApiRequest): ApiResponse {
  const c = findContainer(app, req.params.ref);
  const shipments = [];
  for (const id of c.shipment_ids) {
    const s = app.store.shipments.get(id);
    if (!s) continue;
    const t = shipmentTotals(s);
    shipments.push({
      id: s.id,
      reference: s.shipment_reference,
      tracking_reference: s.parcels[0]?.tracking_reference ?? '',
      parcels: t.parcels,
      items: t.items,
      weight: t.weight,
      value: t.value,
      status: s.status === 'cancelled' ? 'Cancelled' : 'Active',
    });
  }
  return ok('Container shipments', { shipments });
}

/** PATCH /containers/:ref/close: Open → Closed; its live shipments are manifested; documents become available. */
export function closeContainer(app: SandboxApp, req: ApiRequest): ApiResponse {
  const c = findContainer(app, req.params.ref);
  if (c.status === 'Closed') fail('reference', `The container ${c.reference} is already closed.`);
  const now = app.nowStr();
  c.status = 'Closed';
  c.closed_at = now;
  c.updated_at = now;
  for (const id of c.shipment_ids) {
    const s = app.store.shipments.get(id);
    if (!s || s.status === 'cancelled') continue;
    for (const p of s.parcels) if (currentStage(p) === 'LABEL_CREATED') addStage(app, s, p, 'MANIFESTED');
  }
  app.changed();
  return ok('Container closed', presentContainer(app, c));
}

/**
 * DELETE /containers/:ref: only an Open container that holds no shipments or only cancelled ones (the document's
 * state table has deletion from Open alone; a Closed one has been handed to the carrier with its documents).
 */
export function deleteContainer(app: SandboxApp, req: ApiRequest): ApiResponse {
  const c = findContainer(app, req.params.ref);
  if (c.status === 'Closed') fail('reference', `The container ${c.reference} is closed and cannot be deleted.`);
  const live = c.shipment_ids.filter((id) => app.store.shipments.get(id)?.status === 'created').length;
  if (live > 0) {
    fail('reference', `The container ${c.reference} holds ${live} shipment${live === 1 ? '' : 's'} that ${live === 1 ? 'is' : 'are'} not cancelled; cancel ${live === 1 ? 'it' : 'them'} first.`);
  }
  app.store.deleteContainer(c);
  app.changed();
  return ok('Container deleted', null);
}
