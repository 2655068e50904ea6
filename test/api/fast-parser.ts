// Shared scaffolding for the "fast parser gives what the zod schema gives" tests (sku-fast, shipment-fast):
// varied inputs built from a base record, and the two checks run over them.
import { expect } from 'vitest';

/** Odd and ordinary values each field is set to in turn (undefined: the key is removed). */
export const VALUES: unknown[] = [
  null,
  undefined,
  '',
  'x',
  ' 12 ',
  'N/A',
  0,
  -3,
  1.5,
  true,
  false,
  {},
  [],
  [1, 'a'],
  { a: 1, b: [2] },
  { code: 'FR' },
  { code: 5 },
  { id: 'L2', address_country: 'DE', extra: { deep: 1 } },
  { id: 7 },
  { name: 'no id' },
];

/** A nested object field to vary: its name, the keys to set, and the object whose copy gets them. */
export type NestedField = readonly [field: string, keys: readonly string[], from: Record<string, unknown>];

/**
 * The base, then the base with one key (or one key of a nested object) set to each value, each way; last the
 * base with an unknown key first and the rest in reverse order (the output order must still be zod's).
 */
export function* fieldVariants(
  base: Record<string, unknown>,
  keys: readonly string[],
  nested: readonly NestedField[],
  values: readonly unknown[],
): Generator<unknown> {
  yield base;
  for (const key of keys) {
    for (const v of values) {
      const copy: Record<string, unknown> = { ...base };
      if (v === undefined) delete copy[key];
      else copy[key] = v;
      yield copy;
      if (v === undefined) yield { ...base, [key]: undefined };
    }
  }
  for (const [field, nestedKeys, from] of nested) {
    for (const key of nestedKeys) {
      for (const v of values) {
        const inner: Record<string, unknown> = { ...from };
        if (v === undefined) delete inner[key];
        else inner[key] = v;
        yield { ...base, [field]: inner };
      }
    }
  }
  yield Object.fromEntries(Object.entries({ zzz: 1, ...base }).reverse());
}

/** A zod schema as far as these checks use it. */
interface SafeParser {
  safeParse(input: unknown): { success: boolean; data?: unknown };
}

/** Checks that wherever `fast` answers, the schema accepts the input and gives the very same value; returns how often `fast` answered. */
export function expectSameAsSchema(schema: SafeParser, fast: (input: unknown) => object | undefined, inputs: Iterable<unknown>): number {
  let answered = 0;
  for (const input of inputs) {
    const z = schema.safeParse(input);
    const f = fast(input);
    if (f === undefined) continue;
    answered++;
    expect(z.success, JSON.stringify(input)).toBe(true);
    // Same keys in the same order (JSON output and CSV columns depend on it), same values, same prototypes.
    expect(Object.keys(f)).toEqual(Object.keys(z.data!));
    expect(JSON.stringify(f)).toBe(JSON.stringify(z.data));
    expect(f).toStrictEqual(z.data);
  }
  return answered;
}

/** The inputs the schema accepts but `fast` leaves to it, except those with the rare `__proto__` key. */
export function missedByFast(schema: SafeParser, fast: (input: unknown) => object | undefined, inputs: Iterable<unknown>): unknown[] {
  const missed: unknown[] = [];
  for (const input of inputs) {
    if (schema.safeParse(input).success && fast(input) === undefined && !JSON.stringify(input).includes('__proto__')) missed.push(input);
  }
  return missed;
}

/**
 * The checks of expectSameAsSchema for a fast parser run with `reuse` (it may normalise its input in place and
 * hand it back): each input is a fresh copy, compared with what the schema gives for the untouched original.
 * Where the parser gives up, the schema must still give the same for what is left of the copy (partly
 * normalised). Returns how often it answered and how often the answer was the input object itself.
 */
export function expectSameAsSchemaReusing(
  schema: SafeParser,
  fast: (input: unknown) => object | undefined,
  inputs: Iterable<unknown>,
): { answered: number; reused: number } {
  let answered = 0;
  let reused = 0;
  for (const original of inputs) {
    const z = schema.safeParse(original);
    const input = structuredClone(original);
    const f = fast(input);
    const expected = z.success ? JSON.stringify(z.data) : undefined;
    if (f === undefined) {
      const again = schema.safeParse(input);
      expect(again.success, JSON.stringify(original)).toBe(z.success);
      if (z.success) expect(JSON.stringify(again.data)).toBe(expected);
      continue;
    }
    answered++;
    if (f === input) reused++;
    expect(z.success, JSON.stringify(original)).toBe(true);
    expect(Object.keys(f)).toEqual(Object.keys(z.data!));
    expect(JSON.stringify(f)).toBe(expected);
    expect(f).toStrictEqual(z.data);
  }
  return { answered, reused };
}
