// Dynamic imports of CommonJS packages, made to work the same in the bundle and under vitest.

/**
 * The exports of a dynamically imported CommonJS package. With code splitting, esbuild puts such a
 * package in a chunk whose only export is `default` (module.exports), so `(await import('pdf-lib')).PDFDocument`
 * is undefined in the built binary while it works unbundled. Node's own loader also sets `default` to
 * module.exports, so `default` when present is always the full set of exports.
 */
export function cjsExports<T extends object>(mod: T): T {
  const fallback = (mod as { default?: unknown }).default;
  return (fallback !== null && (typeof fallback === 'object' || typeof fallback === 'function') ? fallback : mod) as T;
}

/** pdf-lib, loaded on first use. */
export async function loadPdfLib(): Promise<typeof import('pdf-lib')> {
  return cjsExports(await import('pdf-lib'));
}
