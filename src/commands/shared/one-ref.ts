// Commands that take one reference: "-" there is not stdin (as it is for cancel and track), and sending it to
// the API would answer a puzzling "not found" (exit 5); it is refused as a usage error with the way to do it.
import { UsageError } from '../../errors.js';

/** `ref` unchanged, or a UsageError when it is "-" (stdin), naming `command` and how to run it per line. */
export function oneRef(ref: string, command: string): string {
  if (ref.trim() !== '-') return ref;
  throw new UsageError(`${command} takes one reference; "-" (references from stdin) is for cancel and track`, {
    hint: `run it once per line: xargs -n1 ship ${command} < refs.txt`,
  });
}
