// Values shells may offer for an option or a positional argument that accepts more than a fixed list (any
// case, a name of the user's own such as printers.NAME), so commander's choices() — which refuses anything
// else — cannot carry them. Read by the completion and man generators.
import type { Argument, Option } from 'commander';

const VALUES = new WeakMap<Option | Argument, readonly string[]>();

/** Marks an option's or argument's usual values for completion; returns it (for addOption/addArgument). */
export function completeWith<T extends Option | Argument>(optionOrArgument: T, values: readonly string[]): T {
  VALUES.set(optionOrArgument, values);
  return optionOrArgument;
}

/** The values marked for an option or argument, if any. */
export function completionValues(optionOrArgument: Option | Argument): readonly string[] | undefined {
  return VALUES.get(optionOrArgument);
}
