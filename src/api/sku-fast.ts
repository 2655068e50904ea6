// A fast path for the SKUs of GET /skus pages: `skus export` and `skus list --all` parse 30 SKUs per page, and
// zod (SkuSchema) cost ~25 µs per SKU, a third of the export's own time. This gives SkuSchema's output for a
// SKU that matches it (same keys in the same order, money normalised, unknown fields kept) and gives up
// (undefined) on anything else, which then goes through SkuSchema as before, with the same warnings.
// test/api/sku-fast.test.ts holds it to SkuSchema: same keys as the schemas, same output on varied inputs.
import type { Sku } from './schemas.js';
import { toMoney } from './money.js';

/** What a field of a lenient response schema accepts (null and undefined always, as `.nullish()`). */
type Field =
  | 'string' // z.string() (required: undefined fails)
  | 'optString' // z.string().nullish()
  | 'optNumber' // z.number().nullish()
  | 'optBoolean' // z.boolean().nullish()
  | 'money' // z.union([z.string(), z.number()]).transform(toMoney).nullish()
  | 'boolOrNumber' // z.union([z.boolean(), z.number()]).nullish()
  | 'customFields' // z.union([z.record(z.string(), z.unknown()), z.array(z.unknown())]).nullish()
  | 'pngList' // z.union([z.array(z.string()), z.string(), z.null()]).transform(→ string[]).optional()
  | 'pngOne' // z.union([z.string(), z.array(z.string()), z.null()]).transform(→ one string, or the list).optional()
  | 'stringOrNumber' // z.union([z.string(), z.number()]).nullish() (either order)
  | 'scalar' // z.union([z.string(), z.number(), z.boolean()]).nullish()
  | { objectOrString: Shape } // z.union([z.looseObject(shape), z.string()]).nullish()
  | { object: Shape } // z.looseObject(shape).nullish()
  | { objectOrList: Shape } // z.union([z.looseObject(shape), z.array(z.unknown())]).nullish()
  | { list: Shape } // z.array(z.looseObject(shape)).nullish().transform((v) => v ?? [])
  // z.array(z.union([z.tuple([z.string(), z.string(), z.union([z.string(), z.number()])]).rest(z.unknown()),
  // z.looseObject(shape)])).nullish().transform((v) => v ?? []): service conditions, as triples or objects.
  | { conditions: Shape };

/** A lenient response schema's fields, in the schema's order (shipment-fast.ts describes its shapes with it). */
export type Shape = Readonly<Record<string, Field>>;

const FAIL = Symbol('fail');

/** CountrySchema. */
export const COUNTRY_FIELDS: Shape = { code: 'optString', name: 'optString' };
const countryOut: Field = { objectOrString: COUNTRY_FIELDS };

/** LocationSchema. */
export const LOCATION_FIELDS: Shape = {
  id: 'string',
  code: 'optString',
  name: 'optString',
  type: 'optString',
  telephone: 'optString',
  email: 'optString',
  address_name: 'optString',
  address_line_1: 'optString',
  address_line_2: 'optString',
  address_line_3: 'optString',
  address_town_city: 'optString',
  address_county: 'optString',
  address_country: countryOut,
  address_post_zip_code: 'optString',
  default: 'optBoolean',
  created_at: 'optString',
  updated_at: 'optString',
};

/** SkuSchema. */
export const SKU_FIELDS: Shape = {
  id: 'optString',
  sku: 'string',
  image_url: 'optString',
  product_name: 'optString',
  outer_barcode: 'optString',
  inner_barcode: 'optString',
  product_code: 'optString',
  description_short: 'optString',
  description_full: 'optString',
  department: 'optString',
  category: 'optString',
  location: { objectOrString: LOCATION_FIELDS },
  warehouse_location: 'optString',
  tariff_code: 'optString',
  tariff_description: 'optString',
  country_of_origin: countryOut,
  manufacturer_name: 'optString',
  part_number: 'optString',
  value_ex_vat: 'money',
  vat_rate: 'money',
  value_inc_vat: 'money',
  gross_weight: 'optNumber',
  net_weight: 'optNumber',
  width: 'optNumber',
  length: 'optNumber',
  depth: 'optNumber',
  active: 'boolOrNumber',
  is_stocked_item: 'boolOrNumber',
  in_stock: 'boolOrNumber',
  custom_fields: 'customFields',
  item_handling: 'optString',
  created_at: 'optString',
  updated_at: 'optString',
};

const isNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A shape laid out for the hot loop: keys and kinds by index, and the index of each key. */
export interface Compiled {
  keys: string[];
  kinds: Field[];
  index: Map<string, number>;
  nested: Array<Compiled | undefined>;
  /** The indexes of the lists the schema makes [] when missing. */
  lists: number[];
  /** The last key list found in the shape's order (a page's objects nearly always share one). */
  lastInOrder?: string[];
}

/** Lays a shape out for parseObject(). */
export function compile(shape: Shape): Compiled {
  const keys = Object.keys(shape);
  const kinds = keys.map((k) => shape[k]);
  return {
    keys,
    kinds,
    index: new Map(keys.map((k, i) => [k, i])),
    // Each object kind names one shape.
    nested: kinds.map((k) => (typeof k === 'object' ? compile(Object.values(k)[0]) : undefined)),
    lists: kinds.flatMap((k, i) => (isList(k) ? [i] : [])),
  };
}

/** Whether the schema makes the field [] when it is missing or null. */
const isList = (kind: Field): boolean => typeof kind === 'object' && ('list' in kind || 'conditions' in kind);

/** Each element through `one`, into a new list (or, with reuse, the list itself); FAIL when one does not match. */
function listOf(v: unknown[], one: (e: unknown) => unknown, reuse: boolean): unknown[] | typeof FAIL {
  const out = reuse ? v : new Array<unknown>(v.length);
  for (let i = 0; i < v.length; i++) {
    const r = one(v[i]);
    if (r === undefined) return FAIL;
    out[i] = r;
  }
  return out;
}

/** A service condition: a triple (copied, as zod copies a tuple) or an object of the shape; undefined otherwise. */
function condition(c: Compiled, e: unknown, reuse: boolean): unknown {
  if (Array.isArray(e)) {
    const ok = e.length >= 3 && typeof e[0] === 'string' && typeof e[1] === 'string' && (typeof e[2] === 'string' || isNumber(e[2]));
    return ok ? (reuse ? e : e.slice()) : undefined;
  }
  return isRecord(e) ? object(c, e, reuse) : undefined;
}

function field(kind: Field, nested: Compiled | undefined, v: unknown, reuse: boolean): unknown {
  if (kind === 'pngList') {
    // zod copies a list into a new array; "" and null become [], a lone string a one-element list.
    if (v === null || v === '') return [];
    if (typeof v === 'string') return [v];
    if (!Array.isArray(v)) return FAIL;
    for (const e of v) if (typeof e !== 'string') return FAIL;
    return reuse ? v : v.slice();
  }
  if (kind === 'pngOne') {
    // LabelSchema: null and [] become "", a one-element list its string; a longer list is copied as zod does.
    if (v === null) return '';
    if (typeof v === 'string') return v;
    if (!Array.isArray(v)) return FAIL;
    for (const e of v) if (typeof e !== 'string') return FAIL;
    return v.length <= 1 ? (v[0] ?? '') : reuse ? v : v.slice();
  }
  if (v === null) return kind === 'string' ? FAIL : isList(kind) ? [] : null;
  switch (kind) {
    case 'string':
    case 'optString':
      return typeof v === 'string' ? v : FAIL;
    case 'optNumber':
      return isNumber(v) ? v : FAIL;
    case 'optBoolean':
      return typeof v === 'boolean' ? v : FAIL;
    case 'money':
      return typeof v === 'string' || isNumber(v) ? toMoney(v) : FAIL;
    case 'boolOrNumber':
      return typeof v === 'boolean' || isNumber(v) ? v : FAIL;
    case 'stringOrNumber':
      return typeof v === 'string' || isNumber(v) ? v : FAIL;
    case 'scalar':
      return typeof v === 'string' || typeof v === 'boolean' || isNumber(v) ? v : FAIL;
    case 'customFields':
      // zod copies both (the record into a new plain object, the list into a new array) and drops `__proto__`.
      if (Array.isArray(v)) return reuse ? v : v.slice();
      if (isRecord(v) && Object.getPrototypeOf(v) === Object.prototype && !Object.hasOwn(v, '__proto__')) return reuse ? v : { ...v };
      return FAIL;
    default:
      if ('list' in kind) return Array.isArray(v) ? listOf(v, (e) => (isRecord(e) ? object(nested!, e, reuse) : undefined), reuse) : FAIL;
      if ('conditions' in kind) return Array.isArray(v) ? listOf(v, (e) => condition(nested!, e, reuse), reuse) : FAIL;
      // zod copies the list of z.array(z.unknown()).
      if (Array.isArray(v)) return 'objectOrList' in kind ? (reuse ? v : v.slice()) : FAIL;
      if (typeof v === 'string' && 'objectOrString' in kind) return v;
      return isRecord(v) ? (object(nested!, v, reuse) ?? FAIL) : FAIL;
  }
}

/** How a fast parse may treat its input. */
export interface FastParseOptions {
  /**
   * The input is the caller's own, fresh from JSON.parse, and nothing else will read it (a response body the
   * API layer parsed): objects and lists already in zod's form are handed back themselves, normalised in
   * place (money), instead of copied. Copying was a tenth of a 10,000-SKU export's work, with its garbage.
   * When the parse then gives up, the input may be partly normalised; the schema gives the same output for
   * it (every change made is one the schema would make, and makes again without effect).
   */
  reuse?: boolean;
}

/**
 * A looseObject parse of `input`: the shape's fields first, in the shape's order, then the unknown ones;
 * undefined when the input does not match (or might not: leave it to zod).
 */
export function parseObject(c: Compiled, input: unknown, opts?: FastParseOptions): Record<string, unknown> | undefined {
  return isRecord(input) ? object(c, input, opts?.reuse === true) : undefined;
}

function object(c: Compiled, input: Record<string, unknown>, reuse: boolean): Record<string, unknown> | undefined {
  // zod drops a `__proto__` key; rare enough to leave to zod.
  if (Object.hasOwn(input, '__proto__')) return undefined;
  const own = Object.keys(input);
  // Usually the keys already come in the shape's order (unknown ones last): then a copy has zod's order and
  // only the fields that change (money, nested objects) are replaced. Otherwise the object is built in order.
  let inOrder = sameKeys(own, c.lastInOrder);
  if (!inOrder) {
    inOrder = true;
    let last = -1;
    for (const key of own) {
      const i = c.index.get(key);
      if (i === undefined) last = c.keys.length;
      else if (i > last) last = i;
      else {
        inOrder = false;
        break;
      }
    }
    // A missing list becomes [] in its place among the shape's keys: then the object is built in order.
    if (inOrder) for (const i of c.lists) if (!Object.hasOwn(input, c.keys[i])) inOrder = false;
    if (inOrder) c.lastInOrder = own;
  }
  const out: Record<string, unknown> = inOrder ? (reuse ? input : { ...input }) : {};
  // In order, the values are read in one go and matched to the shape's keys in step: `input[key]` with a key
  // that changes at every turn is a megamorphic load, ~6% of a whole SKU export's instructions.
  const values = inOrder ? Object.values(input) : undefined;
  let next = 0;
  for (let i = 0; i < c.keys.length; i++) {
    const key = c.keys[i];
    let v: unknown;
    if (values === undefined) v = input[key];
    else if (own[next] === key) v = values[next++];
    if (v === undefined) {
      if (c.kinds[i] === 'string') return undefined;
      if (isList(c.kinds[i])) out[key] = [];
      else if (!inOrder && key in input) out[key] = undefined;
      continue;
    }
    const r = field(c.kinds[i], c.nested[i], v, reuse);
    if (r === FAIL) return undefined;
    if (!inOrder || r !== v) out[key] = r;
  }
  if (!inOrder) for (const key of own) if (!c.index.has(key)) out[key] = input[key];
  return out;
}

function sameKeys(a: readonly string[], b: readonly string[] | undefined): boolean {
  if (!b || a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** SkuLinksSchema (the `links` of a GET /skus page). */
export const SKU_LINKS_FIELDS: Shape = { first: 'optString', last: 'optString', prev: 'optString', next: 'optString' };

/** SkuMetaSchema (the `meta` of a GET /skus page). */
export const SKU_META_FIELDS: Shape = {
  current_page: 'optNumber',
  from: 'optNumber',
  last_page: 'optNumber',
  path: 'optString',
  per_page: 'optNumber',
  to: 'optNumber',
  total: 'optNumber',
};

const SKU = compile(SKU_FIELDS);
const SKU_LINKS = compile(SKU_LINKS_FIELDS);
const SKU_META = compile(SKU_META_FIELDS);

/**
 * SkuLinksSchema's output for a page's `links` that match it, undefined otherwise (then zod): zod took ~16 ms
 * for the links and meta of a 10,000-SKU export's 334 pages.
 */
export function fastSkuLinks(input: unknown, opts?: FastParseOptions): Record<string, unknown> | undefined {
  return parseObject(SKU_LINKS, input, opts);
}

/** SkuMetaSchema's output for a page's `meta` that match it, undefined otherwise (then zod). */
export function fastSkuMeta(input: unknown, opts?: FastParseOptions): Record<string, unknown> | undefined {
  return parseObject(SKU_META, input, opts);
}

/** SkuSchema's output for a SKU that matches it; undefined when it does not (or might not): parse that one with zod. */
export function fastSku(input: unknown, opts?: FastParseOptions): Sku | undefined {
  return parseObject(SKU, input, opts) as Sku | undefined;
}
