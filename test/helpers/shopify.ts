// The genuine Shopify orders export of test/fixtures, and a copy of it whose Canadian orders' line items carry SKUs.
//
// The export's only orders with an address and a line to ship (#1005 and #1013) go to Canada with line items that
// have no SKU: outside mainland UK an item without a SKU needs customs data an orders export never has, so
// --preset shopify leaves them out. They are also fulfilled already (the export is of a store's past orders), which
// leaves them out too unless --include-fulfilled. A shop whose products are in the service's SKU inventory exports
// their SKUs; the copy is that shop's file (SKUs the sandbox's seeded inventory holds) exported before those two
// orders were fulfilled (Fulfillment Status unfulfilled, each line pending), everything else byte for byte as
// Shopify wrote it.
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parse } from 'csv-parse/sync';

export const SHOPIFY_EXPORT = resolve(import.meta.dirname, '../fixtures/shopify-orders-export.csv');

/** SKUs given to the line items of #1005 and #1013, in row order (rows 11, 12, 31, 32). */
export const SHOPIFY_SKUS = ['TEE-BLK-M', 'SOCKS-3PK', 'GIFT-CARD', 'BOOK-042'];

/**
 * Writes DIR/orders_export.csv: the export with SHOPIFY_SKUS in the empty `Lineitem sku` cells of #1005 and #1013,
 * as exported before they were fulfilled.
 */
export function shopifyExportWithSkus(dir: string): string {
  const text = readFileSync(SHOPIFY_EXPORT, 'utf8');
  const rows = parse(text, { relax_column_count: true }) as string[][];
  const skuColumn = rows[0].indexOf('Lineitem sku');
  const orderStatus = rows[0].indexOf('Fulfillment Status');
  const lineStatus = rows[0].indexOf('Lineitem fulfillment status');
  let next = 0;
  for (const row of rows.slice(1)) {
    if (row[0] !== '#1005' && row[0] !== '#1013') continue;
    if (row[skuColumn] === '') row[skuColumn] = SHOPIFY_SKUS[next++];
    if (row[orderStatus] !== '') row[orderStatus] = 'unfulfilled';
    row[lineStatus] = 'pending';
  }
  const quote = (v: string) => (/[",\n\r]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v);
  const path = join(dir, 'orders_export.csv');
  writeFileSync(path, rows.map((r) => r.map(quote).join(',')).join('\n') + '\n');
  return path;
}

/**
 * Writes DIR/orders_mixed.csv: the genuine export, as exported before #1005 and #1013 were fulfilled, these two
 * renamed #9005 and #9013, #9013 going to London instead of Canada (shippable with no customs data), #9005 still to
 * Canada with line items that have no SKU (customs data it lacks: left out for want of data the user can give).
 */
export function shopifyExportOneNeedsCustoms(dir: string): string {
  const rows = parse(readFileSync(SHOPIFY_EXPORT, 'utf8'), { relax_column_count: true }) as string[][];
  const col = (name: string) => rows[0].indexOf(name);
  for (const row of rows.slice(1)) {
    if (row[0] !== '#1005' && row[0] !== '#1013') continue;
    if (row[col('Fulfillment Status')] !== '') row[col('Fulfillment Status')] = 'unfulfilled';
    row[col('Lineitem fulfillment status')] = 'pending';
    // Renamed, so a sandbox that created the other copies' #1005 and #1013 does not take these for them.
    row[0] = row[0] === '#1005' ? '#9005' : '#9013';
    if (row[0] === '#9013' && row[col('Shipping Country')] !== '') {
      row[col('Shipping City')] = 'London';
      row[col('Shipping Zip')] = 'SW1A 1AA';
      row[col('Shipping Province')] = '';
      row[col('Shipping Country')] = 'GB';
    }
  }
  const quote = (v: string) => (/[",\n\r]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v);
  const path = join(dir, 'orders_mixed.csv');
  writeFileSync(path, rows.map((r) => r.map(quote).join(',')).join('\n') + '\n');
  return path;
}
