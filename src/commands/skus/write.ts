// `ship skus create` and `ship skus update REF [--replace]`: a SKU from attribute flags and/or a JSON file.
import { readFile } from 'node:fs/promises';
import type { Ctx } from '../../context.js';
import { InputError, UsageError, ValidationError, type InputProblem } from '../../errors.js';
import { validateRequest, SkuPatchSchema, SkuRequestSchema, type SkuPatch, type SkuRequest } from '../../api/index.js';
import { parseCell, SKU_COLUMNS, skuColumn, type SkuRecord } from '../../skus/columns.js';
import { suggestSkuColumn } from '../../skus/header.js';
import { withoutBom } from '../../shipment-input/read.js';
import { jsonSyntaxMessage } from '../../util/json-error.js';
import { skuDetails } from './render.js';

/** Options of `skus create` / `skus update`. */
export interface WriteOptions {
  /** create: POST; update: PATCH; replace: PUT. */
  mode: 'create' | 'update' | 'replace';
  /** replace: confirmed beforehand (--yes). */
  yes?: boolean;
  ref?: string;
  /** Attribute flag values as typed, keyed by attribute name. */
  values: Record<string, string>;
  /** --custom-field KEY=VALUE entries. */
  customFields: string[];
  file?: string;
}

/** The flag of each request field, for messages in the user's terms. */
export const SKU_FLAGS: Record<string, string> = Object.fromEntries(SKU_COLUMNS.map((c) => [c.name, `--${c.name.replace(/_/g, '-')}`]));

/** Flag name for a request path: custom_fields.KEY → "--custom-field KEY". */
function flagOf(path: string): string {
  if (path.startsWith('custom_fields.')) return `--custom-field ${path.slice('custom_fields.'.length)}`;
  return SKU_FLAGS[path] ?? SKU_FLAGS[path.split('.')[0]] ?? (path || '--file');
}

const READ_ONLY = new Set(['id', 'created_at', 'updated_at']);

/** Reads --file: a JSON object of SKU attributes (as `skus get --json` prints, or as the API takes). */
async function readSkuFile(ctx: Ctx, file: string): Promise<Record<string, unknown>> {
  let text: string;
  try {
    if (file === '-') {
      const chunks: Buffer[] = [];
      for await (const c of ctx.io.stdin) chunks.push(Buffer.from(c));
      text = Buffer.concat(chunks).toString('utf8');
    } else text = await readFile(file, 'utf8');
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    throw new UsageError(err.code === 'ENOENT' ? `--file: no such file: ${file}` : `--file: cannot read ${file}: ${err.message}`);
  }
  let json: unknown;
  try {
    text = withoutBom(text);
    json = JSON.parse(text);
  } catch (e) {
    throw new InputError(`--file ${file} is not valid JSON`, [{ column: '--file', message: await jsonSyntaxMessage(e, text) }]);
  }
  if (!json || typeof json !== 'object' || Array.isArray(json)) {
    throw new InputError(`--file ${file} must hold one JSON object of SKU attributes`, [{ column: '--file', message: 'not a JSON object' }]);
  }
  const out: Record<string, unknown> = {};
  // A key that is no SKU attribute (a typo, or hazard_codes, gone in 1.2) would be sent and ignored: the SKU
  // reported updated without the change. Refused, as an import refuses such a column.
  const unknown = Object.keys(json as Record<string, unknown>).filter((k) => !skuColumn(k) && !READ_ONLY.has(k) && k !== 'custom_fields');
  if (unknown.length) {
    throw new InputError(
      `--file ${file}: ${unknown.length === 1 ? 'a key that is' : `${unknown.length} keys that are`} not SKU attributes`,
      unknown.map((k) => {
        const near = suggestSkuColumn(k);
        return { column: k, message: `not a SKU attribute${near ? `; did you mean ${near}?` : ' (custom fields go under "custom_fields")'}` };
      }),
      { hint: '`ship skus get REF --json` shows the attributes a SKU has' },
    );
  }
  for (const [k, v] of Object.entries(json as Record<string, unknown>)) {
    // Read-only fields, and nulls (what a response shows for "not set"; the write schema takes no nulls).
    if (READ_ONLY.has(k) || v === null) continue;
    // What `skus get --json` prints has Country and Location objects; a write takes their codes.
    if ((k === 'country_of_origin' || k === 'location') && v && typeof v === 'object' && !Array.isArray(v)) {
      const o = v as { code?: unknown; id?: unknown };
      out[k] = o.code ?? o.id;
      continue;
    }
    out[k] = v;
  }
  return out;
}

/** Builds the request body from --file, then the attribute flags, then --custom-field (later wins). */
export async function buildSkuBody(ctx: Ctx, opts: WriteOptions): Promise<Record<string, unknown>> {
  const body: Record<string, unknown> = opts.file ? await readSkuFile(ctx, opts.file) : {};
  const problems: InputProblem[] = [];
  for (const [name, raw] of Object.entries(opts.values)) {
    const col = skuColumn(name)!;
    const r = parseCell(col, raw);
    if (r.ok) body[name] = r.value;
    else problems.push({ column: SKU_FLAGS[name], message: `${name} ${r.message}` });
  }
  for (const entry of opts.customFields) {
    const eq = entry.indexOf('=');
    if (eq <= 0) {
      problems.push({ column: '--custom-field', message: `"${entry}" must be KEY=VALUE` });
      continue;
    }
    const cf = (body.custom_fields && typeof body.custom_fields === 'object' ? body.custom_fields : (body.custom_fields = {})) as Record<string, unknown>;
    cf[entry.slice(0, eq).trim()] = entry.slice(eq + 1);
  }
  if (problems.length) throw new InputError('invalid SKU attributes', problems);
  return body;
}

/** Creates, updates (PATCH) or replaces (PUT) one SKU and shows the result. */
export async function runWrite(ctx: Ctx, opts: WriteOptions): Promise<void> {
  const body = await buildSkuBody(ctx, opts);
  const api = await ctx.api();
  if (opts.mode === 'update' && Object.keys(body).length === 0) {
    throw new UsageError('nothing to change', { hint: 'give attribute flags (e.g. --product-name), --custom-field KEY=VALUE or --file' });
  }
  if (opts.mode === 'replace' && body.sku === undefined) {
    // PUT needs every mandatory attribute, the SKU number included; take it from the existing SKU.
    const existing = await api.skus.get(opts.ref!, { signal: ctx.signal });
    body.sku = existing.sku;
  }
  if (opts.mode === 'create' && body.sku === undefined) {
    throw new UsageError('a SKU needs --sku (or "sku" in --file)');
  }
  const checked = validateRequest(opts.mode === 'update' ? SkuPatchSchema : SkuRequestSchema, body);
  if (!checked.ok) {
    throw new InputError(
      'invalid SKU attributes',
      checked.issues.map((i) => ({ column: flagOf(i.path), message: `${i.path || 'body'} ${i.message}` })),
    );
  }
  // Checked first, then asked: a refusal after the question would waste the person's answer.
  if (opts.mode === 'replace') {
    const { confirmReplace } = await import('./confirm.js');
    const question = `Replace SKU ${opts.ref} with what is given? Every attribute not given is reset.`;
    if (!(await confirmReplace(ctx, { yes: opts.yes === true, what: `SKU ${opts.ref}`, question }))) {
      ctx.out.info('Nothing changed.');
      return;
    }
  }
  let response: unknown;
  try {
    if (opts.mode === 'create') response = await api.skus.create(checked.value as SkuRequest, { signal: ctx.signal });
    else if (opts.mode === 'replace') response = await api.skus.replace(opts.ref!, checked.value as SkuRequest, { signal: ctx.signal });
    else response = await api.skus.update(opts.ref!, checked.value as SkuPatch, { signal: ctx.signal });
  } catch (err) {
    if (err instanceof ValidationError) {
      // `fields` keeps the API's field paths (as every command's --json error does); the flags go to `located`.
      const e = new ValidationError(`the SKU was not ${opts.mode === 'create' ? 'created' : 'updated'}: ${err.message}`, err.fields, err.http);
      e.located = Object.entries(err.fields).flatMap(([path, msgs]) => msgs.map((m) => ({ column: flagOf(path), message: m })));
      e.hint = err.hint;
      throw e;
    }
    throw err;
  }
  // The response body of POST/PUT/PATCH is not documented: use it when it is a SKU, otherwise read the SKU back.
  const skuNumber = String(checked.value.sku ?? opts.ref);
  const sku =
    response && typeof response === 'object' && typeof (response as SkuRecord).sku === 'string'
      ? (response as SkuRecord)
      : ((await api.skus.get(skuNumber, { signal: ctx.signal })) as SkuRecord);
  if (ctx.mode.json) return ctx.out.json(sku);
  if (ctx.mode.quiet) return ctx.out.line(String(sku.sku ?? skuNumber));
  const verb = opts.mode === 'create' ? 'created' : opts.mode === 'replace' ? 'replaced' : 'updated';
  ctx.out.success(`SKU ${String(sku.sku ?? skuNumber)} ${verb}`);
  ctx.out.keyValues(skuDetails(sku));
}
