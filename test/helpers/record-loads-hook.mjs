// The module-loading hook of record-loads.mjs (hooks run on a thread of their own; it inherits the environment).
import { appendFileSync } from 'node:fs';

export async function load(url, context, next) {
  const out = process.env.SHIP_TEST_LOADED;
  if (out && url.startsWith('file:') && url.includes('/dist/')) appendFileSync(out, `${url}\n`);
  return next(url, context);
}
