// The label format a command uses when --format is not given: the profile's label_format, else ZPL.
import type { Ctx } from '../../context.js';
import { parseLabelFormat, type LabelFormat } from '../../labels/index.js';

/** The profile's label_format, else ZPL (also when the config cannot be read: a label is still wanted). */
export async function defaultLabelFormat(ctx: Ctx): Promise<LabelFormat> {
  try {
    const store = await ctx.config();
    return parseLabelFormat(store.profile().label_format) ?? 'ZPL';
  } catch {
    return 'ZPL';
  }
}

/** The format a file name's extension names (.zpl, .pdf, .png, any case), if any. */
export function formatOfPath(path: string | undefined): LabelFormat | undefined {
  const ext = /\.(zpl|pdf|png)$/i.exec(path ?? '')?.[1];
  return ext ? (ext.toUpperCase() as LabelFormat) : undefined;
}
