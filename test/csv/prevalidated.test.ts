// The bulk create sends the loader's validated bodies without the API layer's second validation
// (`prevalidated`): what it keeps must be exactly what that validation would have produced from the built body.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { validateShipmentRequest } from '../../src/api/validate.js';
import { loadCsv } from '../../src/csv/load.js';
import { contractLayout, presetLayout } from '../../src/csv/presets/index.js';
import { apiChecker, apiValidator } from '../../src/shipment-input/validate.js';
import { shopifyExportWithSkus } from '../helpers/shopify.js';

const ROOT = join(import.meta.dirname, '..', '..');
const dir = mkdtempSync(join(tmpdir(), 'ship-preval-'));

// Values the schema normalises (lower-case codes, numeric text, blanks, padded numbers, dates, custom fields).
const ODD = join(dir, 'odd.csv');
writeFileSync(
  ODD,
  [
    'shipment_reference,order_reference,delivery_service_key,despatch_date,to_name,to_line_1,to_city,to_postcode,to_country,weight,length,width,depth,value,item_sku,item_quantity,item_value,item_country_of_origin,custom_fields.gift,parcel_custom_fields.fragile',
    'S-1,42,RM_TRACKED_48,2026-12-01,Ann,1 Road,Derby,de1 1aa,gb,500,30,20,10,9.99,MUG,1,9.99,gb,yes,',
    'S-1,,,,,,,,,,,,,,BOWL,2,4.5,France,,',
    'S-2,,DPD_NEXT_DAY,,Bob,2 Road,Paris,75001,France,1000.0,10,10,10,.5,SCARF,,,,,1',
    'S-3,0007,RM_TRACKED_48,,Zoë Ünal,3 Straße,Köln,50667,DE,1,1,1,1,0,X,3,1.10,DE,,',
  ].join('\n') + '\n',
);

async function both(path: string, layout: Parameters<typeof loadCsv>[0]['layout']) {
  const kept = await loadCsv({ source: { path }, layout, validate: await apiChecker(), keep: 'json' });
  const built = await loadCsv({ source: { path }, layout, validate: await apiValidator(), keep: true });
  return { kept, built };
}

describe('validated bodies kept for sending', () => {
  it.each([
    ['examples/orders.csv', join(ROOT, 'examples', 'orders.csv'), async () => contractLayout()],
    ['normalised values', ODD, async () => contractLayout()],
    ['a Shopify export', shopifyExportWithSkus(dir), async () => presetLayout('shopify')],
  ])('are validateShipmentRequest of the built bodies (%s)', async (_name, path, layout) => {
    const { kept, built } = await both(path, await layout());
    expect(kept.compact.length).toBeGreaterThan(0);
    expect(kept.compact.map((c) => c.reference)).toEqual(built.shipments.map((s) => s.reference));
    for (let i = 0; i < kept.compact.length; i++) {
      const c = kept.compact[i];
      expect(c.validated).toBe(true);
      const r = validateShipmentRequest(built.shipments[i].body);
      expect(r.ok).toBe(true);
      // Exactly what the API layer's validation would have sent, key order included.
      expect(c.json).toBe(JSON.stringify(r.ok && r.value));
      // And the validator's output passes it again unchanged (a second validation would change nothing).
      const again = validateShipmentRequest(JSON.parse(c.json));
      expect(again.ok && JSON.stringify(again.value)).toBe(c.json);
    }
  });

  it('keep the row facts of the full form (rows, parcels, items, where each item came from)', async () => {
    const { kept, built } = await both(join(ROOT, 'examples', 'orders.csv'), contractLayout());
    expect(kept.compact.some((c) => c.itemRows !== undefined && c.rows.length > 1)).toBe(true);
    // (toEqual takes an absent itemRows and an undefined one as the same.)
    expect(kept.compact.map(({ json: _json, validated: _validated, ...facts }) => facts)).toEqual(built.shipments.map(({ body: _body, ...facts }) => facts));
  });

  it('keeps the built bodies, unmarked, when the validator gives no normalised body', async () => {
    const kept = await loadCsv({ source: { path: ODD }, layout: contractLayout(), validate: await apiValidator(), keep: 'json' });
    expect(kept.compact.every((c) => c.validated === false)).toBe(true);
  });
});
