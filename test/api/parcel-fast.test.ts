import { describe, expect, it } from 'vitest';
import { LabelSchema, ParcelEventsSchema, ResponseAddressSchema, ShipmentEventsSchema, TrackingEventSchema } from '../../src/api/schemas.js';
import {
  fastLabel,
  fastLabels,
  fastParcelEvents,
  fastShipmentEvents,
  fastTrackingEvent,
  fastTrackingEvents,
  LABEL_FIELDS,
  PARCEL_EVENTS_FIELDS,
  TRACKING_EVENT_FIELDS,
} from '../../src/api/parcel-fast.js';
import { RESPONSE_ADDRESS_FIELDS } from '../../src/api/shipment-fast.js';
import { expectSameAsSchema, fieldVariants, missedByFast, type NestedField, VALUES } from './fast-parser.js';

// As the sandbox and the API notes show them: tracking events, and a label with its address.
const event = { code: 'MAN', name: 'Manifested', description: 'Shipment details sent to the carrier', date: '2024-05-21 13:24:12', type: 'MANIFESTED' };
const parcel = { shipment_reference: 'ORDER-1001', courier_tracking_reference: 'JD0002250000000001', tracking_events: [event, { ...event, type: 'COLLECTED' }] };
const label = {
  shipment_reference: 'ORDER-1001',
  parcel_reference: 'ORDER-1001-1',
  carrier: 'Royal Mail',
  service_name: 'Tracked 24',
  tracking_reference: 'RM24000000001GB',
  created_by: 'Dana Demo',
  created_with: 'ship-sandbox',
  created_at: '2024-05-21 13:24:12',
  to_address: { delivery_name: 'Ada', line_1: '1 High St', line_2: '', city: 'London', postcode: 'SW1A 1AA', country: { code: 'GB', name: 'United Kingdom' } },
  pdf: '',
  zpl: 'CT~~CD,~CC^~CT~\n^XA^FDx^FS^XZ',
  png: '',
};

const values: unknown[] = [...VALUES, ['a'], ['a', 'b'], [event], [event, { date: 3 }], { line_1: 'x', country: 'FR' }];

function* eventVariants(): Generator<unknown> {
  yield* fieldVariants(event, [...Object.keys(TRACKING_EVENT_FIELDS), 'carrier_code'], [], values);
  yield JSON.parse('{"date":"x","__proto__":{"polluted":true}}');
  yield null;
  yield 'MANIFESTED';
}

function* parcelVariants(): Generator<unknown> {
  yield* fieldVariants(parcel, [...Object.keys(PARCEL_EVENTS_FIELDS), 'tracking_events', 'toString', 'extra'], [], values);
  yield { extra: 1, tracking_events: [event], shipment_reference: 'A' };
  yield {};
  yield JSON.parse('{"tracking_events":[],"__proto__":{"x":1}}');
  yield [parcel];
}

function* labelVariants(): Generator<unknown> {
  const nested: NestedField[] = [['to_address', [...Object.keys(RESPONSE_ADDRESS_FIELDS), 'extra'], label.to_address]];
  yield* fieldVariants(label, [...Object.keys(LABEL_FIELDS), 'label_id'], nested, values);
  yield JSON.parse('{"zpl":"^XA^XZ","__proto__":{"x":1}}');
  yield null;
}

describe('tracking events and labels without zod', () => {
  it('know exactly the fields of their schemas', () => {
    expect(Object.keys(TRACKING_EVENT_FIELDS)).toEqual(Object.keys(TrackingEventSchema.shape));
    expect([...Object.keys(PARCEL_EVENTS_FIELDS), 'tracking_events']).toEqual(Object.keys(ParcelEventsSchema.shape));
    expect(Object.keys(LABEL_FIELDS)).toEqual(Object.keys(LabelSchema.shape));
    expect(Object.keys(RESPONSE_ADDRESS_FIELDS)).toEqual(Object.keys(ResponseAddressSchema.shape));
  });

  it('give what the schemas give for the usual answers', () => {
    const shipment = { 'JD0002250000000001': parcel, 'JD0002250000000002': { ...parcel, tracking_events: [] } };
    expect(fastShipmentEvents(shipment)).toStrictEqual(ShipmentEventsSchema.parse(shipment));
    expect(fastTrackingEvents([event, event])).toStrictEqual([event, event].map((e) => TrackingEventSchema.parse(e)));
    expect(fastLabels([label])).toStrictEqual([LabelSchema.parse(label)]);
    // A one-element png list is its string, as LabelSchema makes it.
    expect(fastLabel({ ...label, png: ['iVBOR'] })!.png).toBe('iVBOR');
  });

  it('a tracking event: what TrackingEventSchema gives, or left to it', () => {
    expect(expectSameAsSchema(TrackingEventSchema, fastTrackingEvent, eventVariants())).toBeGreaterThan(50);
    expect(missedByFast(TrackingEventSchema, fastTrackingEvent, eventVariants())).toEqual([]);
  });

  it("a parcel's events: what ParcelEventsSchema gives (tracking_events [] when missing or null), or left to it", () => {
    expect(expectSameAsSchema(ParcelEventsSchema, fastParcelEvents, parcelVariants())).toBeGreaterThan(50);
    expect(missedByFast(ParcelEventsSchema, fastParcelEvents, parcelVariants())).toEqual([]);
    // Keyed by tracking reference: one odd parcel leaves the whole answer to the schema.
    const shipments = [...parcelVariants()].map((p) => ({ T1: parcel, T2: p }));
    expect(expectSameAsSchema(ShipmentEventsSchema, fastShipmentEvents, shipments)).toBeGreaterThan(50);
    expect(missedByFast(ShipmentEventsSchema, fastShipmentEvents, shipments)).toEqual([]);
  });

  it('a label: what LabelSchema gives (png: "" for null or [], the string of a one-element list), or left to it', () => {
    expect(expectSameAsSchema(LabelSchema, fastLabel, labelVariants())).toBeGreaterThan(200);
    expect(missedByFast(LabelSchema, fastLabel, labelVariants())).toEqual([]);
  });

  it('lists: every element or none (an odd element sends the whole list to the schema, which warns about it)', () => {
    expect(fastTrackingEvents([event, { date: 3 }])).toBeUndefined();
    expect(fastLabels([label, { zpl: 5 }])).toBeUndefined();
    expect(fastTrackingEvents({ 0: event })).toBeUndefined();
    expect(fastTrackingEvents([])).toEqual([]);
  });
});
