// `ship create`: one shipment from flags or --file, or many from --csv (bulk, resumable).
import type { Ctx } from '../../context.js';
import { UsageError } from '../../errors.js';
import type { LabelFormat } from '../../labels/index.js';
import type { ExtraField } from '../../shipment-input/index.js';
import { inputKind, type ShipmentInputOptions } from '../../shipment-input/options.js';

/** Options of `ship create` (input flags plus what happens to the result). */
export interface CreateOptions extends ShipmentInputOptions {
  format: LabelFormat;
  /** --format was given (or --printer, which takes ZPL): it overrides a --file body's own `format`. */
  formatGiven?: boolean;
  outputDir: string;
  /** false with --no-labels. */
  labels: boolean;
  merge?: string;
  printer?: string;
  /** false with --no-preflight. */
  preflight: boolean;
  /** --printer-timeout in ms: the printer's connection, status (~HS) and idle timeout (default 5 s). */
  printerTimeoutMs?: number;
  /** --printer-timeout was given (it needs --printer). */
  printerTimeoutGiven?: boolean;
  print?: boolean;
  printToUser?: string;
  printerKey?: string;
  dryRun?: boolean;
  yes?: boolean;
  concurrency: number;
  results?: string;
}

/** Request fields that come from run-level flags (--format, --print…), added to every body. */
export function extraFields(o: CreateOptions): ExtraField[] {
  const out: ExtraField[] = [{ path: 'format', value: o.format, flag: '--format', ifAbsent: o.formatGiven !== true }];
  if (o.print) out.push({ path: 'print_labels', value: true, flag: '--print' });
  if (o.printToUser) out.push({ path: 'print_to_user', value: o.printToUser, flag: '--print-to-user' });
  if (o.printerKey) out.push({ path: 'printer_key', value: o.printerKey, flag: '--printer-key' });
  return out;
}

/** Creates the shipment(s) the flags describe and prints the result. */
export async function run(ctx: Ctx, o: CreateOptions): Promise<void> {
  if ((o.printToUser || o.printerKey) && !o.print) throw new UsageError('--print-to-user and --printer-key go with --print (the desktop printing application)');
  // Both would print every label twice: once by the desktop application, once by the thermal printer.
  if (o.print && o.printer !== undefined) {
    throw new UsageError('--print (the desktop printing application) and --printer (a thermal printer) would each print every label: give one');
  }
  // With print_labels the label format is the one picked in the desktop application (api-spec), not --format.
  if (o.merge && o.print) throw new UsageError('--merge joins PDF labels, and with --print the desktop printing application picks the label format: give one');
  // A --file body names its own format unless --format is given: checked against that one (single.ts).
  if (o.merge && o.format !== 'PDF' && !(o.file && !o.formatGiven)) throw new UsageError('--merge joins PDF labels: add --format PDF');
  if (o.merge && !o.labels) throw new UsageError('--merge needs the label files: drop --no-labels');
  if (o.printer !== undefined && o.format !== 'ZPL') throw new UsageError('--printer sends ZPL to a thermal printer: use --format ZPL (the default)');
  if (o.printer !== undefined && !o.labels) throw new UsageError('--printer prints the label files: drop --no-labels');
  if (o.printerTimeoutGiven && o.printer === undefined) throw new UsageError('--printer-timeout goes with --printer');
  const kind = inputKind(o);
  if (kind !== 'csv' && o.results) throw new UsageError('--results only applies with --csv');
  if (o.results !== undefined || o.merge !== undefined) (await import('./outputs.js')).refuseOutputsOverInputs(o);
  if (kind === 'csv') {
    const { runBulkCreate } = await import('./bulk.js');
    return runBulkCreate(ctx, o);
  }
  const { runSingleCreate } = await import('./single.js');
  return runSingleCreate(ctx, o);
}
