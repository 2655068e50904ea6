// /parcels/:ref (a carrier tracking reference): tracking events and the label.
import { presentAddress, type SandboxApp } from '../app.js';
import { notFound, ok, type ApiRequest, type ApiResponse } from '../http.js';
import { renderLabel } from '../labels.js';
import type { LabelFormat } from '../store.js';
import { Errors, oneOf } from '../validation.js';

function findParcel(app: SandboxApp, ref: string) {
  const hit = app.store.parcelsByTracking.get(ref);
  if (!hit) throw notFound(`No parcel with tracking reference "${ref}".`);
  return hit;
}

/** GET /parcels/:ref/events: the parcel's tracking events in date order. */
export function parcelEvents(app: SandboxApp, req: ApiRequest): ApiResponse {
  return ok('Tracking events', findParcel(app, req.params.ref).parcel.events);
}

/** GET /parcels/:ref/label?format=: an array holding the parcel's Label (default: the shipment's format). */
export async function parcelLabel(app: SandboxApp, req: ApiRequest): Promise<ApiResponse> {
  const { shipment: s, parcel: p } = findParcel(app, req.params.ref);
  const e = new Errors();
  const raw = req.query.get('format');
  const format: LabelFormat = (raw ? oneOf(e, raw, 'format', ['ZPL', 'PDF', 'PNG'] as const) : undefined) ?? s.format;
  e.throwIfAny();
  const svc = app.store.servicesByKey.get(s.service_key);
  const l = await renderLabel(app, s, s.parcels.indexOf(p), format);
  return ok('Label', [
    {
      shipment_reference: s.shipment_reference,
      parcel_reference: p.reference,
      carrier: svc?.carrier ?? '',
      service_name: svc?.name ?? '',
      tracking_reference: p.tracking_reference,
      created_by: s.created_by_name,
      created_with: s.created_with,
      created_at: s.created_at,
      to_address: presentAddress(s.to_address),
      format,
      pdf: l.pdf,
      zpl: l.zpl,
      png: l.png,
    },
  ]);
}
