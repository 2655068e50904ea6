// `ship custom-fields [REF]` and `ship custom-fields create`: GET/POST /custom-fields.
import type { Ctx } from '../../context.js';
import type { CustomField, CustomFieldRequest } from '../../api/schemas.js';
import { NotFoundError, ValidationError } from '../../errors.js';
import { nearWord } from '../../util/near.js';


/** The validation rules of a field as one readable line: `required, max length 200`. */
export function rulesText(f: CustomField): string {
  const r = f.data_validation_rules;
  if (!r || Array.isArray(r)) return '';
  const parts: string[] = [];
  if (r.is_required) parts.push('required');
  if (r.min_length != null) parts.push(`min length ${r.min_length}`);
  if (r.max_length != null) parts.push(`max length ${r.max_length}`);
  if (r.regex) parts.push(`matches ${r.regex}`);
  if (r.options) parts.push(`one of ${r.options}`);
  if (r.numeric_type) parts.push(r.numeric_type === 'INT' ? 'whole number' : 'decimal');
  if (r.min_value != null) parts.push(`>= ${r.min_value}`);
  if (r.max_value != null) parts.push(`<= ${r.max_value}`);
  return parts.join(', ');
}

/** Lists custom fields or shows one (by key or ID). */
export async function run(ctx: Ctx, opts: { ref?: string }): Promise<void> {
  const api = await ctx.api();
  if (opts.ref !== undefined) {
    let f;
    try {
      f = await api.customFields.get(opts.ref, { signal: ctx.signal });
    } catch (e) {
      // `ship custom-fields creat`: the typo of the subcommand is taken for a field's key.
      if (e instanceof NotFoundError && nearWord(opts.ref, 'create')) e.hint = 'did you mean `ship custom-fields create`?';
      throw e;
    }
    return showOne(ctx, f);
  }
  const fields = await api.customFields.list({ signal: ctx.signal });
  if (ctx.mode.json) return ctx.out.json(fields);
  if (ctx.mode.quiet) {
    for (const f of fields) ctx.out.line(f.key);
    return;
  }
  if (fields.length === 0) return ctx.out.info('No custom fields.');
  await ctx.out.table(fields, [
    { header: 'KEY', value: (f) => f.key },
    { header: 'NAME', value: (f) => f.name },
    { header: 'ENTITY', value: (f) => f.entity },
    { header: 'DATA TYPE', value: (f) => f.data_type },
    { header: 'SOURCE', value: (f) => f.source },
    { header: 'DEFAULT', value: (f) => (f.default_value == null ? '' : String(f.default_value)) },
    { header: 'MAPPED TO', value: (f) => f.mapped_to },
    { header: 'RULES', value: (f) => rulesText(f) },
  ]);
}

function showOne(ctx: Ctx, f: CustomField): void {
  if (ctx.mode.json) return ctx.out.json(f);
  if (ctx.mode.quiet) return ctx.out.line(f.key);
  ctx.out.keyValues([
    ['key', f.key],
    ['name', f.name],
    ['id', f.id],
    ['entity', f.entity],
    ['data type', f.data_type],
    ['source', f.source],
    ['default value', f.default_value],
    ['mapped to', f.mapped_to],
    ['rules', rulesText(f) || 'none'],
  ]);
}

/** Creates a custom field and prints it like `custom-fields KEY` does. */
export async function create(ctx: Ctx, body: CustomFieldRequest): Promise<void> {
  const api = await ctx.api();
  let created: CustomField;
  try {
    created = await api.customFields.create(body, { signal: ctx.signal });
  } catch (err) {
    if (err instanceof ValidationError) {
      // `fields` keeps the API's field paths (what --json scripts read); the flags that supply them go to `located`.
      const e = new ValidationError(`the custom field was not created: ${err.message}`, err.fields, err.http);
      e.located = Object.entries(err.fields).flatMap(([path, msgs]) => msgs.map((message) => ({ column: customFieldFlagOf(path), message })));
      e.hint = err.hint;
      throw e;
    }
    throw err;
  }
  ctx.out.success(`Created custom field ${created.key ?? body.key}`);
  showOne(ctx, { ...body, ...created } as CustomField);
}

/** The flag of `custom-fields create` that supplies each field of POST /custom-fields, for the API's messages. */
const CUSTOM_FIELD_FLAGS: Record<string, string> = {
  name: '--name',
  key: '--key',
  entity: '--entity',
  data_type: '--data-type',
  source: '--source',
  default_value: '--default-value',
  mapped_to: '--mapped-to',
  'data_validation_rules.is_required': '--required',
  'data_validation_rules.min_length': '--min-length',
  'data_validation_rules.max_length': '--max-length',
  'data_validation_rules.regex': '--regex',
  'data_validation_rules.options': '--options',
  'data_validation_rules.numeric_type': '--numeric-type',
  'data_validation_rules.min_value': '--min-value',
  'data_validation_rules.max_value': '--max-value',
};

export function customFieldFlagOf(path: string): string {
  return CUSTOM_FIELD_FLAGS[path] ?? path;
}
