// Writes SKUs as a CSV file in exactly the format `skus import` reads: the attribute columns, then one
// `custom_fields.KEY` column per custom field key. Text cells are formula-escaped (see escape.ts).
//
// The custom field keys are only known once every SKU has been seen, and the header comes first. To stay
// in constant memory the rows are spooled to a temporary file while the pages stream in, and the CSV is then
// written from the spool (one local file pass, not a second fetch). The spool holds each row's attribute
// cells as finished CSV text; the custom field values of the (usually few) rows that have any go to a second
// spool, one JSON line per row. When no SKU has a custom field, which is common, the first spool is the CSV
// body byte for byte and is copied out as it is; otherwise each row gets its custom field cells appended.
// The first 1 M characters of rows stay in memory and reach the file only beyond that (a bounded buffer: memory
// stays flat however many SKUs there are), so an export of up to ~5,000 SKUs never touches the temporary file.
import { createReadStream, createWriteStream, type WriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { Writable } from 'node:stream';
import { once } from 'node:events';
import { StringDecoder } from 'node:string_decoder';
import { customFieldsOf, CUSTOM_FIELD_PREFIX, exportCell, SKU_COLUMNS, type SkuRecord } from './columns.js';
import { escapeFormula } from './escape.js';
import { csvField } from '../bulk/csv-out.js';

/** Text is written in batches of about this many characters (pages are small: 30 rows). */
const BATCH = 64 * 1024;

/** Characters of rows held in memory before they are spooled to the temporary file. */
const MEMORY_ROWS = 1024 * 1024;

/** The CSV header of an export with the given custom field keys. */
export function exportHeader(customKeys: readonly string[]): string {
  return [...SKU_COLUMNS.map((c) => c.name), ...customKeys.map((k) => CUSTOM_FIELD_PREFIX + k)].map((f) => csvField(f)).join(',');
}

/** The fixed (non-custom) part of one exported row, as CSV text. */
export function exportFixedCells(sku: SkuRecord): string {
  // Most cells are empty or plain; a loop with one string avoids two arrays per row (10 000 rows per export).
  let line = '';
  for (let i = 0; i < SKU_COLUMNS.length; i++) {
    const cell = exportCell(SKU_COLUMNS[i], sku);
    const text = cell === '' ? '' : csvField(cell);
    line = i === 0 ? text : line + ',' + text;
  }
  return line;
}

/** The custom field values of a SKU as text, or undefined when it has none (the usual case). */
function customFieldsIfAny(sku: SkuRecord): Record<string, string> | undefined {
  const raw = sku.custom_fields;
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return undefined;
  const cf = customFieldsOf(sku);
  for (const _ in cf) return cf;
  return undefined;
}

async function write(out: Writable, text: string | Buffer): Promise<void> {
  if (!out.write(text)) await once(out, 'drain');
}

async function finish(stream: WriteStream | undefined): Promise<void> {
  if (!stream || stream.closed) return;
  stream.end();
  await once(stream, 'close');
}

/**
 * Streams every SKU from `pages` into `out` as import-format CSV and resolves to the number of SKUs.
 * `onPage` is told after each page is spooled (for progress); `memoryChars` (tests) overrides MEMORY_ROWS.
 */
export async function writeSkuCsv(
  pages: AsyncIterable<{ data: SkuRecord[] }>,
  out: Writable,
  opts: { onPage?: (count: number) => void; memoryChars?: number } = {},
): Promise<{ count: number; customKeys: string[] }> {
  const dir = await mkdtemp(join(tmpdir(), 'ship-sku-export-'));
  const rowsPath = join(dir, 'rows.csv');
  const customPath = join(dir, 'custom.ndjson');
  try {
    // Rows in memory until there are more than MEMORY_ROWS characters, then in the file. Held as bytes: a
    // batch of text is a rope of thousands of small strings, which every young-generation GC would copy.
    const held: Buffer[] = [];
    let heldChars = 0;
    const memoryChars = opts.memoryChars ?? MEMORY_ROWS;
    let rows: WriteStream | undefined;
    const spoolRows = async (text: string) => {
      if (!rows && heldChars + text.length <= memoryChars) {
        held.push(Buffer.from(text));
        heldChars += text.length;
        return;
      }
      rows ??= createWriteStream(rowsPath);
      for (const t of held.splice(0)) await write(rows, t);
      await write(rows, text);
    };
    let custom: WriteStream | undefined;
    const keys = new Set<string>();
    let count = 0;
    try {
      let chunk = '';
      let customChunk = '';
      for await (const page of pages) {
        for (const sku of page.data) {
          chunk += exportFixedCells(sku) + '\n';
          const cf = customFieldsIfAny(sku);
          if (cf) {
            for (const k in cf) keys.add(k);
            customChunk += JSON.stringify([count, cf]) + '\n';
          }
          count++;
        }
        if (chunk.length > BATCH) {
          await spoolRows(chunk);
          chunk = '';
        }
        if (customChunk.length > BATCH) {
          custom ??= createWriteStream(customPath);
          await write(custom, customChunk);
          customChunk = '';
        }
        opts.onPage?.(count);
      }
      if (chunk) await spoolRows(chunk);
      if (customChunk) {
        custom ??= createWriteStream(customPath);
        await write(custom, customChunk);
      }
    } finally {
      await finish(rows);
      await finish(custom);
    }

    const customKeys = [...keys].sort();
    await write(out, exportHeader(customKeys) + '\n');
    const spooled: AsyncIterable<Buffer> = rows ? createReadStream(rowsPath, { highWaterMark: BATCH }) : inMemory(held);
    if (customKeys.length === 0) {
      // Every row is complete as spooled.
      for await (const text of spooled) await write(out, text);
    } else {
      await appendCustomCells(spooled, customPath, customKeys, out);
    }
    return { count, customKeys };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function* inMemory(batches: Buffer[]): AsyncGenerator<Buffer> {
  // Handed out once each, so the memory goes as the text is written.
  while (batches.length > 0) yield batches.shift()!;
}

/** Writes the spooled rows with their custom field cells (from the second spool, by row number) appended. */
async function appendCustomCells(spooled: AsyncIterable<Buffer>, customPath: string, customKeys: readonly string[], out: Writable): Promise<void> {
  const cellsOf = (cf: Record<string, string>) => ',' + customKeys.map((k) => csvField(escapeFormula(cf[k] ?? ''))).join(',');
  const empty = cellsOf({});
  const records = createInterface({ input: createReadStream(customPath), crlfDelay: Infinity })[Symbol.asyncIterator]();
  let next: [number, Record<string, string>] | undefined;
  const advance = async () => {
    for (;;) {
      const r = await records.next();
      if (r.done) return undefined;
      if (r.value !== '') return JSON.parse(r.value) as [number, Record<string, string>];
    }
  };
  next = await advance();

  let row = 0;
  let carry = '';
  let quoted = false;
  let chunk = '';
  // A batch read from the file may end inside a character: the decoder keeps those bytes for the next one.
  const decoder = new StringDecoder('utf8');
  for await (const bytes of spooled) {
    const text = decoder.write(bytes);
    let start = 0;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      // Cells are written by csvField: a quote only occurs inside a quoted cell (doubled when literal), so a
      // line feed ends the row exactly when the quotes seen so far on the row are balanced.
      if (c === 34) quoted = !quoted;
      else if (c === 10 && !quoted) {
        const fixed = carry + text.slice(start, i);
        carry = '';
        start = i + 1;
        let cells = empty;
        if (next && next[0] === row) {
          cells = cellsOf(next[1]);
          next = await advance();
        }
        chunk += fixed + cells + '\n';
        row++;
      }
    }
    carry += text.slice(start);
    if (chunk.length > BATCH) {
      await write(out, chunk);
      chunk = '';
    }
  }
  if (chunk) await write(out, chunk);
  await records.return?.();
}
