// Values shells may offer for an option that accepts more than a fixed list (any case, say), so commander's
// choices() — which refuses anything else — cannot carry them. Read by the completion and man generators.
import type { Option } from 'commander';

const VALUES = new WeakMap<Option, readonly string[]>();

/** Marks `option`'s usual values for completion; returns the option (for addOption). */
export function completeWith(option: Option, values: readonly string[]): Option {
  VALUES.set(option, values);
  return option;
}

/** The values marked for `option`, if any. */
export function completionValues(option: Option): readonly string[] | undefined {
  return VALUES.get(option);
}
