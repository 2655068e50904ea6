// Writes SKUs as a CSV file in exactly the format `skus import` reads: the attribute columns, then one
// `custom_fields.KEY` column per custom field key. Text cells are formula-escaped (see escape.ts).
//
// The custom field keys are only known once every SKU has been seen, and the header comes first. To stay
// in constant memory the rows are spooled to a temporary file (one JSON line per SKU) while the pages
// stream in; the CSV is then written from the spool. This costs one local file pass, not a second fetch.
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { Writable } from 'node:stream';
import { once } from 'node:events';
import { customFieldsOf, CUSTOM_FIELD_PREFIX, exportCell, SKU_COLUMNS, type SkuRecord } from './columns.js';
import { escapeFormula } from './escape.js';
import { csvField } from '../bulk/csv-out.js';


/** The CSV header of an export with the given custom field keys. */
export function exportHeader(customKeys: readonly string[]): string {
  return [...SKU_COLUMNS.map((c) => c.name), ...customKeys.map((k) => CUSTOM_FIELD_PREFIX + k)].map(csvField).join(',');
}

/** The fixed (non-custom) part of one exported row, as CSV text. */
export function exportFixedCells(sku: SkuRecord): string {
  return SKU_COLUMNS.map((c) => csvField(exportCell(c, sku))).join(',');
}

async function write(out: Writable, text: string): Promise<void> {
  if (!out.write(text)) await once(out, 'drain');
}

/**
 * Streams every SKU from `pages` into `out` as import-format CSV and resolves to the number of SKUs.
 * `onPage` is told after each page is spooled (for progress).
 */
export async function writeSkuCsv(
  pages: AsyncIterable<{ data: SkuRecord[] }>,
  out: Writable,
  opts: { onPage?: (count: number) => void } = {},
): Promise<{ count: number; customKeys: string[] }> {
  const dir = await mkdtemp(join(tmpdir(), 'ship-sku-export-'));
  const spoolPath = join(dir, 'rows.ndjson');
  try {
    const spool = createWriteStream(spoolPath);
    const keys = new Set<string>();
    let count = 0;
    try {
      // Pages are small (30 rows); writing them in ~64 KB batches keeps the number of file writes low.
      let chunk = '';
      for await (const page of pages) {
        for (const sku of page.data) {
          const cf = customFieldsOf(sku);
          for (const k in cf) keys.add(k);
          chunk += JSON.stringify([exportFixedCells(sku), cf]) + '\n';
          count++;
        }
        if (chunk.length > 64 * 1024) {
          await write(spool, chunk);
          chunk = '';
        }
        opts.onPage?.(count);
      }
      if (chunk) await write(spool, chunk);
    } finally {
      spool.end();
      await once(spool, 'close');
    }

    const customKeys = [...keys].sort();
    await write(out, exportHeader(customKeys) + '\n');
    const lines = createInterface({ input: createReadStream(spoolPath), crlfDelay: Infinity });
    let chunk = '';
    for await (const line of lines) {
      if (line === '') continue;
      const [fixed, cf] = JSON.parse(line) as [string, Record<string, string>];
      chunk += customKeys.length === 0 ? fixed : fixed + ',' + customKeys.map((k) => csvField(escapeFormula(cf[k] ?? ''))).join(',');
      chunk += '\n';
      if (chunk.length > 64 * 1024) {
        await write(out, chunk);
        chunk = '';
      }
    }
    if (chunk) await write(out, chunk);
    return { count, customKeys };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
