// Checks a webhook payload's auth_token against the expected one without leaking timing.
import { createHash, timingSafeEqual } from 'node:crypto';

/** Whether `given` equals `expected`, compared in constant time (both hashed first so lengths match). */
export function tokenMatches(expected: string, given: unknown): boolean {
  if (typeof given !== 'string') return false;
  const a = createHash('sha256').update(expected, 'utf8').digest();
  const b = createHash('sha256').update(given, 'utf8').digest();
  return timingSafeEqual(a, b);
}
