// How a file's rows become contract columns: the plain contract layout (with an optional --map), or a preset
// that reads another system's export as it is (--preset shopify).
import type { InputProblem } from '../../errors.js';
import type { Cell, ShipmentDraft } from '../../shipment-input/draft.js';
import type { CanonicalRow } from '../group.js';
import { resolveHeader, valuesUnderNoHeader, type HeaderMapping } from '../headers.js';
import type { CsvRecord } from '../reader.js';

/** What a preset decides about a grouped shipment: send it, or leave it out with a reason. */
export interface Finalized {
  /** Why the shipment is left out (reported to the user, never sent). */
  exclude?: string;
  /** Left out for want of data the user can give (customs details), not by design (fulfilled already). */
  excludeNeedsData?: boolean;
  warnings?: InputProblem[];
}

/** A layout bound to one file's header row. */
export interface BoundLayout {
  /** Header problems (unknown or missing columns); non-empty means the file is refused. */
  problems: InputProblem[];
  warnings: InputProblem[];
  /** Notes for the user about how the file is read (stderr). */
  notes: string[];
  /** The user's name for a contract column (their header, the preset's source column, or the contract name). */
  labelFor(column: string): string;
  /** Translates one data row; null for a row that carries nothing (blank line). */
  toRow(rec: CsvRecord, problems: InputProblem[]): CanonicalRow | null;
  /** Last word on each shipment once all its rows are in. */
  finalize?(draft: ShipmentDraft): Finalized;
  /** Position of the column holding the shipment reference, when it is a plain column (a fast path for big files). */
  referenceIndex?: number;
}

/** A file layout: binds to a header row. */
export interface Layout {
  bind(header: string[]): BoundLayout;
}

/** The contract's own layout, after an optional --map. */
export function contractLayout(opts: { mapping?: HeaderMapping; allowUnknown?: boolean } = {}): Layout {
  return {
    bind(header) {
      const resolved = resolveHeader(header, opts);
      const checkUnheaded = valuesUnderNoHeader(header);
      // A row no longer than a header with every column named has no value under no header: no need to look.
      const allNamed = header.every((h) => h.replace(/^\uFEFF/, '').trim() !== '');
      // The bound columns, listed once rather than looked over for every row.
      const bound = resolved.bindings.filter((b) => b.column);
      const indexes = bound.map((b) => b.index);
      const columns = bound.map((b) => b.column!);
      const labels = bound.map((b) => b.label);
      const notes: string[] = [];
      const lower = new Set(header.map((h) => h.trim().toLowerCase()));
      if (lower.has('lineitem name') && lower.has('shipping address1')) notes.push('this looks like a Shopify orders export: add --preset shopify');
      return {
        problems: resolved.problems,
        warnings: resolved.warnings,
        notes,
        labelFor: (column) => resolved.labels.get(column) ?? column,
        referenceIndex: resolved.bindings.find((b) => b.column === 'shipment_reference')?.index,
        toRow(rec, problems) {
          const values = rec.values;
          if (allBlank(values)) return null;
          if (!allNamed || values.length > header.length) checkUnheaded(rec, problems);
          const cells = new Map<string, Cell>();
          for (let i = 0; i < indexes.length; i++) {
            const v = values[indexes[i]] ?? '';
            if (v !== '') cells.set(columns[i], { value: v, row: rec.row, column: labels[i] });
          }
          return { row: rec.row, cells };
        },
      };
    },
  };
}

function allBlank(values: readonly string[]): boolean {
  for (let i = 0; i < values.length; i++) if (values[i] !== '') return false;
  return true;
}

/** The named presets of `--preset`. */
export const PRESETS = ['shopify'] as const;
/** A name `--preset` accepts. */
export type PresetName = (typeof PRESETS)[number];

/** What a preset may be told by flags. */
export interface PresetOptions {
  /** Ship what the export marks already fulfilled too (--include-fulfilled). */
  includeFulfilled?: boolean;
}

/** Loads a preset's layout by name. */
export async function presetLayout(name: PresetName, opts: PresetOptions = {}): Promise<Layout> {
  switch (name) {
    case 'shopify':
      return (await import('./shopify.js')).shopifyLayout(opts);
  }
}
