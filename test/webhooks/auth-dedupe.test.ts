import { describe, expect, it } from 'vitest';
import { tokenMatches } from '../../src/webhooks/auth.js';
import { Deduper } from '../../src/webhooks/dedupe.js';
import { parseEventList, summarize } from '../../src/webhooks/events.js';

describe('tokenMatches', () => {
  it('accepts only the exact token, whatever the lengths', () => {
    expect(tokenMatches('s3cret-token', 's3cret-token')).toBe(true);
    expect(tokenMatches('s3cret-token', 's3cret-toke')).toBe(false);
    expect(tokenMatches('s3cret-token', 's3cret-token-longer')).toBe(false);
    expect(tokenMatches('s3cret-token', 'S3CRET-TOKEN')).toBe(false);
    expect(tokenMatches('s3cret-token', '')).toBe(false);
    expect(tokenMatches('s3cret-token', undefined)).toBe(false);
    expect(tokenMatches('s3cret-token', 123)).toBe(false);
    expect(tokenMatches('s3cret-token', ['s3cret-token'])).toBe(false);
  });
});

describe('Deduper', () => {
  it('returns the first value for a repeated key and remembers new ones', () => {
    const d = new Deduper<number>();
    expect(d.check('a', 1)).toBeUndefined();
    expect(d.check('b', 2)).toBeUndefined();
    expect(d.check('a', 3)).toBe(1);
    expect(d.check('a', 4)).toBe(1);
    expect(d.check(undefined, 5)).toBeUndefined();
    expect(d.check('', 6)).toBeUndefined();
    expect(d.size).toBe(2);
  });

  it('forgets the oldest keys beyond its limit', () => {
    const d = new Deduper<number>(3);
    for (const [i, k] of ['a', 'b', 'c', 'd'].entries()) d.check(k, i);
    expect(d.size).toBe(3);
    expect(d.check('a', 9)).toBeUndefined(); // forgotten, so new again
    expect(d.check('d', 9)).toBe(3);
  });
});

describe('events', () => {
  it('parses --events lists with wildcards and rejects unknown names', () => {
    expect([...parseEventList('shipment_created, TRACKING_DELIVERED')]).toEqual(['SHIPMENT_CREATED', 'TRACKING_DELIVERED']);
    expect(parseEventList('SHIPMENT_*').size).toBe(2);
    expect(parseEventList('TRACKING_*').size).toBe(6);
    expect(() => parseEventList('SHIPMENT_CREATED,NOPE')).toThrow(/NOPE/);
  });

  it('summarizes tracking and shipment payloads', () => {
    expect(
      summarize({ event: 'TRACKING_DELIVERED', shipment_reference: 'R1', tracking_event_type: 'Delivered', tracking_event_description: 'Left at door', tracking_number: 'T1' }),
    ).toEqual({ event: 'TRACKING_DELIVERED', shipmentReference: 'R1', stage: 'Delivered', description: 'Left at door (T1)' });
    expect(summarize({ event: 'SHIPMENT_CREATED', shipment_reference: 'R2', carrier: 'DPD', parcel_references: ['a', 'b'], tracking_numbers: ['T1', 'T2'] })).toEqual({
      event: 'SHIPMENT_CREATED',
      shipmentReference: 'R2',
      stage: '',
      description: 'DPD, 2 parcels, tracking T1, T2',
    });
    expect(summarize({ event: 'X', shipment_reference: { odd: true } }).shipmentReference).toBe('');
    // Anyone who can reach the listener can send a payload: a line break cannot forge another event's line, an
    // ESC cannot reach the terminal.
    expect(summarize({ event: 'TRACKING_DELIVERED\u001b[2J', shipment_reference: 'R3', tracking_event_description: 'Left\n05:31:11  TRACKING_DELIVERED   ORDER-9\tDelivered' })).toEqual({
      event: 'TRACKING_DELIVERED\\x1b[2J',
      shipmentReference: 'R3',
      stage: '',
      description: 'Left\\n05:31:11  TRACKING_DELIVERED   ORDER-9\\tDelivered',
    });
  });
});
