// `--printer` takes a value (tcp://HOST:PORT or a printers.NAME entry) or none: alone, it means the profile's
// own printer (`ship config set printer …`), so a warehouse PC's one printer need not be typed every time.

/** The flag as commander gives it: text, `true` when given alone, undefined when absent. */
export type PrinterFlag = string | boolean | undefined;

/** '' for the profile's printer (the flag alone), the value given, or undefined (no --printer). */
export function printerFlag(v: PrinterFlag): string | undefined {
  if (v === undefined || v === false) return undefined;
  return v === true ? '' : v;
}

/** How --printer's help ends: what it means alone. */
export const PRINTER_ALONE = "alone: the profile's printer";

/**
 * The way to send only the parcels whose labels did not go out after a printer failed partway through a
 * shipment: `ship print REF` would send every label again, `ship label PARCEL` sends one parcel's.
 */
export function resendRestHint(ref: string, printerName: string, notSent: readonly string[], sentCount: number): string {
  return `${notSent.map((t) => `\`ship label ${t} --printer ${printerName}\``).join(', ')} (\`ship print ${ref}\` would send the first ${sentCount === 1 ? 'one' : sentCount} again)`;
}
