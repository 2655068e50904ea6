// Laravel-style request validation: 400, "The given data failed to pass validation.", and a map of dotted field
// paths to message arrays. Field names in messages show underscores as spaces (`to_address.postcode` →
// "The to address.postcode field is required.").
import { HttpError } from './http.js';
import { isCountryCode } from './countries.js';
import { longerThan } from '../util/chars.js';

export const VALIDATION_MESSAGE = 'The given data failed to pass validation.';

/** How a field path is shown in messages: underscores become spaces. */
export function label(path: string): string {
  return path.replace(/_/g, ' ');
}

/** Collects field messages; throw() raises the 400 when any were added. */
export class Errors {
  readonly data: Record<string, string[]> = {};
  private count = 0;

  /** Adds a message for a path. */
  add(path: string, message: string): void {
    (this.data[path] ??= []).push(message);
    this.count++;
  }

  /** True when the path already has a message (so later checks on it can be skipped). */
  has(path: string): boolean {
    return this.data[path] !== undefined;
  }

  get any(): boolean {
    return this.count > 0;
  }

  /** Throws the 400 validation error when any message was added. */
  throwIfAny(): void {
    if (this.count > 0) throw new HttpError(400, VALIDATION_MESSAGE, this.data);
  }
}

/** Raises a 400 validation error with a single field message. */
export function fail(path: string, message: string): never {
  throw new HttpError(400, VALIDATION_MESSAGE, { [path]: [message] });
}

/** Message helpers in Laravel's wording. */
export const msg = {
  required: (p: string) => `The ${label(p)} field is required.`,
  string: (p: string) => `The ${label(p)} must be a string.`,
  integer: (p: string) => `The ${label(p)} must be an integer.`,
  numeric: (p: string) => `The ${label(p)} must be a number.`,
  boolean: (p: string) => `The ${label(p)} field must be true or false.`,
  array: (p: string) => `The ${label(p)} must be an array.`,
  object: (p: string) => `The ${label(p)} must be an object.`,
  invalid: (p: string) => `The selected ${label(p)} is invalid.`,
  taken: (p: string) => `The ${label(p)} has already been taken.`,
  min: (p: string, n: number | string) => `The ${label(p)} must be at least ${n}.`,
  max: (p: string, n: number | string) => `The ${label(p)} may not be greater than ${n}.`,
  maxChars: (p: string, n: number) => `The ${label(p)} may not be greater than ${n} characters.`,
  minChars: (p: string, n: number) => `The ${label(p)} must be at least ${n} characters.`,
  country: (p: string) => `The ${label(p)} must be a two-character ISO 3166-1 country code.`,
  forbidden: (p: string) => `The ${label(p)} must not contain a backslash (\\) or a caret (^).`,
};

/** True when Laravel would treat the value as absent for `required`. */
export function isBlank(v: unknown): boolean {
  return v === undefined || v === null || (typeof v === 'string' && v.trim() === '') || (Array.isArray(v) && v.length === 0);
}

/** True for a plain JSON object. */
export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * The backslash and caret ban: adds an error for every string (at any depth) that contains either character.
 * Runs over the whole request body of every create and update.
 */
export function checkForbidden(e: Errors, value: unknown, path = ''): void {
  if (typeof value === 'string') {
    if (value.indexOf('\\') !== -1 || value.indexOf('^') !== -1) e.add(path, msg.forbidden(path));
    return;
  }
  if (typeof value !== 'object' || value === null) return;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) checkForbidden(e, value[i], path ? `${path}.${i}` : String(i));
    return;
  }
  for (const k in value) checkForbidden(e, (value as Record<string, unknown>)[k], path ? `${path}.${k}` : k);
}

interface Opt {
  required?: boolean;
}

/** An optional or required string; returns it trimmed of nothing (as sent), or undefined. */
export function str(e: Errors, v: unknown, path: string, o: Opt & { max?: number } = {}): string | undefined {
  if (isBlank(v)) {
    if (o.required) e.add(path, msg.required(path));
    return undefined;
  }
  if (typeof v !== 'string') {
    e.add(path, msg.string(path));
    return undefined;
  }
  if (o.max !== undefined && longerThan(v, o.max)) e.add(path, msg.maxChars(path, o.max));
  return v;
}

/** A number sent as a number or as a string matching `pattern`, checked by `valid` and the bounds. */
function numeric(
  e: Errors,
  v: unknown,
  path: string,
  o: Opt & { min?: number; max?: number },
  pattern: RegExp,
  valid: (n: number) => boolean,
  invalid: (path: string) => string,
): number | undefined {
  if (isBlank(v)) {
    if (o.required) e.add(path, msg.required(path));
    return undefined;
  }
  let n: number;
  if (typeof v === 'number') n = v;
  else if (typeof v === 'string' && pattern.test(v)) n = Number(v);
  else n = NaN;
  if (!valid(n)) {
    e.add(path, invalid(path));
    return undefined;
  }
  if (o.min !== undefined && n < o.min) {
    e.add(path, msg.min(path, o.min));
    return undefined;
  }
  if (o.max !== undefined && n > o.max) {
    e.add(path, msg.max(path, o.max));
    return undefined;
  }
  return n;
}

/** An integer (numbers or integer strings, as Laravel's `integer` rule accepts). */
export function int(e: Errors, v: unknown, path: string, o: Opt & { min?: number; max?: number } = {}): number | undefined {
  return numeric(e, v, path, o, /^\s*-?\d+\s*$/, Number.isInteger, msg.integer);
}

/** A decimal (numbers or numeric strings), rounded to 2 d.p. by callers where money. */
export function num(e: Errors, v: unknown, path: string, o: Opt & { min?: number; max?: number } = {}): number | undefined {
  return numeric(e, v, path, o, /^\s*-?(\d+\.?\d*|\.\d+)\s*$/, Number.isFinite, msg.numeric);
}

/**
 * A boolean as Laravel's `boolean` rule accepts it: true, false, 1, 0, "1", "0" (not "true"/"false"; `words`
 * takes those too, for the sandbox's own control endpoints).
 */
export function bool(e: Errors, v: unknown, path: string, o: Opt & { words?: boolean } = {}): boolean | undefined {
  if (v === undefined || v === null || v === '') {
    if (o.required) e.add(path, msg.required(path));
    return undefined;
  }
  if (v === true || v === 1 || v === '1' || (o.words && v === 'true')) return true;
  if (v === false || v === 0 || v === '0' || (o.words && v === 'false')) return false;
  e.add(path, msg.boolean(path));
  return undefined;
}

/** One of a fixed set of values: an exact match, as the API's `in:` rules are (`upper`: any case, for the sandbox's own control endpoints). */
export function oneOf<T extends string>(e: Errors, v: unknown, path: string, values: readonly T[], o: Opt & { upper?: boolean } = {}): T | undefined {
  const s = str(e, v, path, o);
  if (s === undefined) return undefined;
  const cand = o.upper ? s.toUpperCase() : s;
  if (!(values as readonly string[]).includes(cand)) {
    e.add(path, msg.invalid(path));
    return undefined;
  }
  return cand as T;
}

/** A two-letter ISO 3166-1 alpha-2 code (case-insensitive on input, upper case out). */
export function country(e: Errors, v: unknown, path: string, o: Opt = {}): string | undefined {
  const s = str(e, v, path, o);
  if (s === undefined) return undefined;
  const up = s.toUpperCase();
  if (!isCountryCode(up)) {
    e.add(path, msg.country(path));
    return undefined;
  }
  return up;
}

/** An optional nested object; adds "must be an object" when something else was sent. */
export function obj(e: Errors, v: unknown, path: string, o: Opt = {}): Record<string, unknown> | undefined {
  if (v === undefined || v === null) {
    if (o.required) e.add(path, msg.required(path));
    return undefined;
  }
  if (!isObject(v)) {
    e.add(path, msg.object(path));
    return undefined;
  }
  if (o.required && Object.keys(v).length === 0) {
    e.add(path, msg.required(path));
    return undefined;
  }
  return v;
}

/** An optional or required array. */
export function arr(e: Errors, v: unknown, path: string, o: Opt = {}): unknown[] | undefined {
  if (isBlank(v)) {
    if (o.required) e.add(path, msg.required(path));
    return undefined;
  }
  if (!Array.isArray(v)) {
    e.add(path, msg.array(path));
    return undefined;
  }
  return v;
}
