// Flags of `ship custom-fields create` → the POST /custom-fields body, with every cross-check the API
// document implies (enums, which rules apply to which data type), each failure naming the flag.
import { UsageError } from '../../errors.js';
import { BANNED_CHARS, CUSTOM_FIELD_DATA_TYPES, CUSTOM_FIELD_ENTITIES, CUSTOM_FIELD_SOURCES, type CustomFieldRequest } from '../../api/schemas.js';

type Flags = Record<string, string | boolean | undefined>;

/** Parses and cross-checks the flags of `custom-fields create` into a request body (UsageError naming the flag). */
export function buildCustomFieldRequest(flags: Flags): CustomFieldRequest {
  const str = (name: string): string | undefined => {
    const v = flags[name];
    if (v === undefined || typeof v === 'boolean') return undefined;
    if (BANNED_CHARS.test(v)) {
      throw new UsageError(`--${kebab(name)}: must not contain a backslash (\\) or caret (^)`, {
        hint: name === 'regex' ? 'the API rejects both characters in any text, regular expressions included: use [0-9] for \\d, and no ^ anchor' : undefined,
      });
    }
    return v;
  };
  const required = (name: string): string => {
    const v = str(name)?.trim();
    if (!v) throw new UsageError(`--${kebab(name)} must not be empty`);
    return v;
  };
  const oneOf = <T extends string>(name: string, raw: string, choices: readonly T[]): T => {
    const v = raw.trim().toUpperCase();
    if (!(choices as readonly string[]).includes(v)) throw new UsageError(`--${kebab(name)}: "${raw}" is not one of ${choices.join(', ')}`);
    return v as T;
  };

  const name = required('name');
  const key = required('key');
  const entity = oneOf('entity', required('entity'), CUSTOM_FIELD_ENTITIES);
  const dataType = oneOf('dataType', required('dataType'), CUSTOM_FIELD_DATA_TYPES);
  const sourceRaw = str('source');
  const source = sourceRaw === undefined ? undefined : oneOf('source', sourceRaw, CUSTOM_FIELD_SOURCES);
  const defaultValue = str('defaultValue');
  const mappedTo = str('mappedTo')?.trim();

  if (source === 'MAPPED' && !mappedTo) throw new UsageError('--source MAPPED needs --mapped-to KEY');
  if (mappedTo !== undefined && source !== 'MAPPED') throw new UsageError('--mapped-to only applies with --source MAPPED');
  if (source === 'FIXED' && (defaultValue === undefined || defaultValue === '')) throw new UsageError('--source FIXED needs --default-value');

  // Which rule flags apply to which data type (API document, Validation Rules).
  const applies: Record<string, (typeof CUSTOM_FIELD_DATA_TYPES)[number]> = {
    minLength: 'TEXT',
    maxLength: 'TEXT',
    regex: 'TEXT',
    options: 'LIST',
    numericType: 'NUMERIC',
    minValue: 'NUMERIC',
    maxValue: 'NUMERIC',
  };
  for (const [flag, type] of Object.entries(applies)) {
    if (flags[flag] !== undefined && dataType !== type) {
      throw new UsageError(`--${kebab(flag)} applies only to --data-type ${type} (this field is ${dataType})`);
    }
  }

  const rules: NonNullable<CustomFieldRequest['data_validation_rules']> = {};
  if (flags.required === true) rules.is_required = true;

  if (dataType === 'TEXT') {
    const min = wholeNumber('minLength', str('minLength'));
    const max = wholeNumber('maxLength', str('maxLength'));
    if (min !== undefined && max !== undefined && min > max) throw new UsageError(`--min-length ${min} is greater than --max-length ${max}`);
    if (min !== undefined) rules.min_length = min;
    if (max !== undefined) rules.max_length = max;
    const regex = str('regex');
    if (regex !== undefined) {
      if (regex === '') throw new UsageError('--regex must not be empty');
      rules.regex = regex;
    }
    if (defaultValue !== undefined && defaultValue !== '') {
      if (max !== undefined && defaultValue.length > max) throw new UsageError(`--default-value is longer than --max-length ${max}`);
      if (min !== undefined && defaultValue.length < min) throw new UsageError(`--default-value is shorter than --min-length ${min}`);
    }
  }

  if (dataType === 'LIST') {
    const raw = str('options');
    if (raw === undefined || raw.trim() === '') throw new UsageError('--data-type LIST needs --options (e.g. --options "Red,Green,Blue")');
    const choices = parseOptionsList(raw);
    rules.options = encodeOptionsList(choices);
    if (defaultValue !== undefined && defaultValue !== '' && !choices.includes(defaultValue)) {
      throw new UsageError(`--default-value "${defaultValue}" is not one of --options (${choices.join(', ')})`);
    }
  }

  if (dataType === 'NUMERIC') {
    const typeRaw = str('numericType');
    const numericType = typeRaw === undefined ? undefined : oneOf('numericType', typeRaw, ['INT', 'DECIMAL'] as const);
    if (numericType) rules.numeric_type = numericType;
    const min = decimal('minValue', str('minValue'), numericType);
    const max = decimal('maxValue', str('maxValue'), numericType);
    if (min !== undefined && max !== undefined && min > max) throw new UsageError(`--min-value ${min} is greater than --max-value ${max}`);
    if (min !== undefined) rules.min_value = min;
    if (max !== undefined) rules.max_value = max;
    if (defaultValue !== undefined && defaultValue !== '') {
      const d = decimal('defaultValue', defaultValue, numericType);
      if (d !== undefined && ((min !== undefined && d < min) || (max !== undefined && d > max))) {
        throw new UsageError(`--default-value ${d} is outside --min-value/--max-value`);
      }
    }
  }

  if (dataType === 'BOOLEAN' && defaultValue !== undefined && defaultValue !== '') {
    if (!/^(true|false|1|0)$/i.test(defaultValue.trim())) throw new UsageError(`--default-value: "${defaultValue}" is not a boolean; use true or false`);
  }

  const body: CustomFieldRequest = { name, key, entity, data_type: dataType };
  if (source) body.source = source;
  if (defaultValue !== undefined) body.default_value = defaultValue;
  if (mappedTo !== undefined) body.mapped_to = mappedTo;
  if (Object.keys(rules).length) body.data_validation_rules = rules;
  return body;
}

function kebab(flag: string): string {
  return flag.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
}

function wholeNumber(flag: string, raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  if (!/^\s*\d+\s*$/.test(raw) || !Number.isSafeInteger(Number(raw))) throw new UsageError(`--${kebab(flag)}: "${raw}" is not a whole number`);
  return Number(raw);
}

function decimal(flag: string, raw: string | undefined, numericType: 'INT' | 'DECIMAL' | undefined): number | undefined {
  if (raw === undefined) return undefined;
  const v = raw.trim();
  if (!/^-?\d+(\.\d+)?$/.test(v)) throw new UsageError(`--${kebab(flag)}: "${raw}" is not a number`);
  if (numericType === 'INT' && v.includes('.')) throw new UsageError(`--${kebab(flag)}: "${raw}" is not a whole number (--numeric-type INT)`);
  if (/\.\d{3,}$/.test(v)) throw new UsageError(`--${kebab(flag)}: "${raw}" has more than 2 decimal places`);
  return Number(v);
}

/**
 * The choices of --options: plain `Red, Green, Blue`, the API's own form, comma-separated and
 * quote-encapsulated (`"Red","Dark, blue"`, a quote inside doubled), or a mix of both as in a CSV line
 * (`Red,"Dark, blue",Green`): a choice that starts with a quote runs to its closing quote, commas included.
 * A quote later in a plain choice is kept as it is (`12" pizza`). Empty or repeated choices are refused.
 */
export function parseOptionsList(raw: string): string[] {
  const text = raw.trim();
  const choices: string[] = [];
  let i = 0;
  for (;;) {
    while (text[i] === ' ') i++;
    if (text[i] === '"') {
      let value = '';
      i++;
      for (;;) {
        if (i >= text.length) throw new UsageError(`--options: unterminated quote in ${JSON.stringify(raw)}`);
        if (text[i] === '"' && text[i + 1] === '"') {
          value += '"';
          i += 2;
        } else if (text[i] === '"') {
          i++;
          break;
        } else {
          value += text[i++];
        }
      }
      choices.push(value);
      while (text[i] === ' ') i++;
      if (i < text.length && text[i] !== ',') throw new UsageError(`--options: expected "," after a quoted choice in ${JSON.stringify(raw)}`);
    } else {
      const comma = text.indexOf(',', i);
      const stop = comma === -1 ? text.length : comma;
      choices.push(text.slice(i, stop).trim());
      i = stop;
    }
    if (i >= text.length) break;
    i++; // the comma
  }
  if (choices.some((c) => c === '')) throw new UsageError('--options: empty choice (two commas in a row, or a trailing comma?)');
  const seen = new Set<string>();
  for (const c of choices) {
    if (seen.has(c)) throw new UsageError(`--options: "${c}" is listed twice`);
    seen.add(c);
  }
  return choices;
}

/** The API's form of an options list: `"Red","Green"`, quotes inside a choice doubled. */
export function encodeOptionsList(choices: readonly string[]): string {
  return choices.map((c) => `"${c.replace(/"/g, '""')}"`).join(',');
}
