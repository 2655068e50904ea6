// Shared request bodies and recorded-style responses for the API-layer tests.
import { readFileSync } from 'node:fs';

/** Reads a JSON example from test/api/examples (copies of /work/shared/api-examples: real responses of the service). */
export function example(name: string): unknown {
  return JSON.parse(readFileSync(new URL(`./examples/${name}`, import.meta.url), 'utf8'));
}

/** A valid shipment request with one parcel holding two items. */
export function validShipment(): Record<string, any> {
  return {
    shipment_reference: 'ORDER-1001',
    order_reference: '#1001',
    despatch_date: '2026-11-21 09:30:00',
    to_address: {
      name: 'Hayden Zieme',
      line_1: '9584 Judge Harbor',
      city: 'South Shadberg',
      postcode: 'RX44 5LD',
      country: 'GB',
    },
    parcels: [
      {
        reference: 'ORDER-1001-1',
        weight: 1200,
        length: 30,
        width: 20,
        depth: 10,
        value: 19.99,
        items: [
          { sku: 'SKU-1', short_description: 'Mug', item_quantity: 2, item_value: 4.5, item_weight: 300 },
          { sku: 'SKU-2', short_description: 'Plate', item_quantity: 1, item_value: 10.99, item_weight: 600 },
        ],
      },
    ],
    format: 'ZPL',
  };
}

export const API_KEY = 'test-api-key-0123456789abcdef';
export const TOKEN = 'test-token-fedcba9876543210';
