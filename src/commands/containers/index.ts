// `ship containers …` declares the container commands (the /containers endpoints); work lives in run.ts.
import { Option, type Command } from 'commander';
import type { Ctx } from '../../context.js';
import { UsageError } from '../../errors.js';
import { completeWith } from '../../completion/values.js';
import { parseSeconds } from '../label/index.js';
import { PRINTER_ALONE, printerFlag, type PrinterFlag } from '../shared/printer-flag.js';

/** Parses --format for container labels (ZPL or PDF, any case). */
function containerLabelFormat(v: string | undefined): 'ZPL' | 'PDF' | undefined {
  if (v === undefined) return undefined;
  const u = v.trim().toUpperCase();
  if (u === 'ZPL' || u === 'PDF') return u;
  throw new UsageError(`--format must be ZPL or PDF (got "${v}")`);
}

/** Registers `ship containers` and its subcommands. */
export function registerContainers(program: Command, ctx: Ctx): void {
  const containers = program
    .command('containers')
    .description('Group shipments into containers for consolidation services, close them, get their documents')
    .addHelpText(
      'after',
      `
Examples:
  ship containers create --service DPD_CONSOLIDATED_EU --clearance-country DE --clearance-location FRA
  ship create --csv orders.csv     # rows with a container_reference column go into that container
  ship containers show C24123001
  ship containers close C24123001 --yes --print --printer tcp://10.0.0.50:9100`,
    );

  containers
    .command('create')
    .description('Create an open container (POST /containers)')
    .option('--reference <ref>', 'container reference (generated as CYYDDDSSS when omitted)')
    .option('--despatch-date <YYYY-MM-DD>', 'despatch date (default today; one before today is warned about)')
    .option('--location <code>', 'despatch location code or ID (default: the default location)')
    .option('--service <key>', 'delivery service key of a consolidation service')
    .option('--clearance-country <CC>', 'clearance country, two-letter ISO code')
    .option('--clearance-location <code>', "carrier's clearance location code")
    .option('--currency <ISO>', 'value currency, ISO 4217 (default: the account currency)')
    .addHelpText(
      'after',
      `
Examples:
  ship containers create --service DPD_CONSOLIDATED_EU --clearance-country DE --clearance-location FRA
  ship containers create --reference PALLET-7 --despatch-date 2026-11-23 --location WH1 \\
    --service DPD_CONSOLIDATED_EU --clearance-country DE --clearance-location FRA --currency EUR --json`,
    )
    .action(async (flags: Record<string, string | undefined>) => {
      const { createContainer } = await import('./run.js');
      await createContainer(ctx, {
        reference: flags.reference,
        despatchDate: flags.despatchDate,
        location: flags.location,
        service: flags.service,
        clearanceCountry: flags.clearanceCountry,
        clearanceLocation: flags.clearanceLocation,
        currency: flags.currency,
      });
    });

  containers
    .command('show <ref>')
    .description('Show a container: state, limits and current counts')
    .addHelpText('after', '\nExamples:\n  ship containers show C24123001\n  ship containers show C24123001 --json | jq .parcels')
    .action(async (ref: string) => {
      const { showContainer } = await import('./run.js');
      await showContainer(ctx, { ref });
    });

  containers
    .command('shipments <ref>')
    .description('List the shipments in a container')
    .addHelpText('after', '\nExamples:\n  ship containers shipments C24123001\n  ship containers shipments C24123001 --json')
    .action(async (ref: string) => {
      const { listContainerShipments } = await import('./run.js');
      await listContainerShipments(ctx, { ref });
    });

  containers
    .command('label <ref>')
    .description("Save or print the container's label")
    .addOption(completeWith(new Option('--format <format>', 'ZPL or PDF (default ZPL)'), ['ZPL', 'PDF']))
    .option('-o, --output <path>', 'file to write (- for stdout; default ./container-REF.zpl|pdf)')
    .option('--printer [target]', `send the ZPL label to a thermal printer: tcp://HOST:PORT or a configured printer name (${PRINTER_ALONE})`)
    .option('--no-preflight', "with --printer: don't ask the printer for its status (~HS) before sending")
    .option('--printer-timeout <seconds>', 'with --printer: printer connection and status timeout', '5')
    .addHelpText(
      'after',
      `
Examples:
  ship containers label C24123001 --format PDF -o pallet.pdf
  ship containers label C24123001 --printer tcp://10.0.0.50:9100
  ship containers label C24123001 -o - | lp -d zebra -o raw`,
    )
    .action(async (ref: string, flags: { format?: string; output?: string; printer?: PrinterFlag; preflight: boolean; printerTimeout: string }) => {
      const format = containerLabelFormat(flags.format);
      const printer = printerFlag(flags.printer);
      const printerTimeoutMs = parseSeconds('--printer-timeout', flags.printerTimeout);
      if (printer !== undefined && format === 'PDF') throw new UsageError('--printer sends ZPL; drop --format PDF');
      if (printer !== undefined && flags.output) throw new UsageError('give either --printer or -o, not both');
      const { containerLabel } = await import('./run.js');
      await containerLabel(ctx, { ref, format, output: flags.output, printer, preflight: flags.preflight, printerTimeoutMs });
    });

  containers
    .command('documents <ref>')
    .description("Save the carrier's documents of a (closed) container as PDF files")
    .option('-o, --output-dir <dir>', 'directory to write into (default .)')
    .addHelpText('after', '\nExamples:\n  ship containers documents C24123001 -o ./docs')
    .action(async (ref: string, flags: { outputDir?: string }) => {
      const { containerDocuments } = await import('./run.js');
      await containerDocuments(ctx, { ref, dir: flags.outputDir ?? '.' });
    });

  containers
    .command('invoice <ref>')
    .description("Save the container's A4 commercial invoice (PDF)")
    .option('-o, --output <file>', 'PDF file to write (- for stdout; default ./container-REF-invoice.pdf)')
    .addHelpText('after', '\nExamples:\n  ship containers invoice C24123001 -o invoice.pdf')
    .action(async (ref: string, flags: { output?: string }) => {
      const { containerInvoice } = await import('./run.js');
      await containerInvoice(ctx, { ref, output: flags.output });
    });

  containers
    .command('close <ref>')
    .description('Close a container: the carrier generates its documents; no more shipments can be added')
    .option('-y, --yes', 'do not ask for confirmation (required without a terminal)')
    .option('--print', 'then print the container label (to --printer, or save it with -o)')
    .option('--printer <target>', 'with --print: tcp://HOST:PORT or a configured printer name')
    .addOption(completeWith(new Option('--format <format>', 'with --print: ZPL or PDF label (default ZPL)'), ['ZPL', 'PDF']))
    .option('-o, --output <path>', 'with --print: write the label here instead of printing it')
    .option('--no-preflight', "with --print: don't ask the printer for its status (~HS) before closing")
    .option('--printer-timeout <seconds>', 'with --print: printer connection and status timeout', '5')
    .addHelpText(
      'after',
      `
A container that is closed already is no failure: "already closed" (in --json "message"), exit 0, so a
script can be rerun (no --yes needed then: nothing changes); with --print its label is not sent to the printer
again (the run that closed it sent it, or said it failed, exit 1; \`ship containers label REF --printer …\`
prints it), and with -o FILE it is written again. 5 when there is no such container.

Examples:
  ship containers close C24123001
  ship containers close C24123001 --yes --print --printer tcp://10.0.0.50:9100`,
    )
    .action(async (ref: string, flags: { yes?: boolean; print?: boolean; printer?: string; format?: string; output?: string; preflight: boolean; printerTimeout: string }) => {
      const format = containerLabelFormat(flags.format);
      const printerTimeoutMs = parseSeconds('--printer-timeout', flags.printerTimeout);
      if (!flags.print && (flags.printer || flags.output || format)) {
        throw new UsageError('--printer, --format and -o go with --print');
      }
      if (flags.printer && format === 'PDF') throw new UsageError('--printer sends ZPL; drop --format PDF');
      if (flags.printer && flags.output) throw new UsageError('give either --printer or -o, not both');
      const { closeContainer } = await import('./run.js');
      await closeContainer(ctx, { ref, yes: Boolean(flags.yes), print: Boolean(flags.print), printer: flags.printer, format, output: flags.output, preflight: flags.preflight, printerTimeoutMs });
    });

  containers
    .command('delete <ref>')
    .description('Delete a container (only when it is empty or all its shipments are cancelled)')
    .option('-y, --yes', 'do not ask for confirmation (required without a terminal)')
    .addHelpText('after', '\nExamples:\n  ship containers delete C24123001 --yes')
    .action(async (ref: string, flags: { yes?: boolean }) => {
      const { deleteContainer } = await import('./run.js');
      await deleteContainer(ctx, { ref, yes: Boolean(flags.yes) });
    });
}
