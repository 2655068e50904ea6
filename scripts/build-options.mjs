// The esbuild options of the bundle, shared by scripts/build.mjs and test/build/chunks.test.ts (which checks
// what each command loads at start-up).
import { dirname } from 'node:path';

/**
 * zod re-exports all of its ~50 locales (`z.locales`), 370 KB that every command validating with zod would load
 * and compile; ship only ever uses the English messages zod installs by default, so the bundle gets just `en`.
 */
export const zodEnglishOnly = {
  name: 'zod-english-only',
  setup(b) {
    b.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
      /[\\/]node_modules[\\/]zod[\\/]/.test(args.importer)
        ? { path: 'en-only', namespace: 'zod-locales', pluginData: dirname(args.importer) }
        : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'zod-locales' }, (args) => ({
      contents: "export { default as en } from '../locales/en.js';",
      resolveDir: args.pluginData,
      loader: 'js',
    }));
  },
};

/**
 * undici loads node:http2 (~7 ms on Node 20, ~14 on Node 24: a sizeable share of a one-request command) for its
 * HTTP/2 client, which ship never enables (no allowH2). Its client-h2.js already falls back to `{ constants: {} }`
 * when the module cannot be loaded, as on platforms without HTTP/2: the bundle gives it a module that refuses
 * to load, for that one importer only.
 */
export const undiciWithoutHttp2 = {
  name: 'undici-without-http2',
  setup(b) {
    b.onResolve({ filter: /^(node:)?http2$/ }, (args) =>
      /[\\/]node_modules[\\/]undici[\\/]lib[\\/]dispatcher[\\/]client-h2\.js$/.test(args.importer) ? { path: 'http2', namespace: 'undici-no-http2' } : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'undici-no-http2' }, () => ({
      contents: "throw new Error('HTTP/2 is not used by ship');",
      loader: 'js',
    }));
  },
};

/** esbuild options for bundling src/main.ts into `outdir` with code splitting. */
export function buildOptions({ outdir, version }) {
  return {
    entryPoints: { main: 'src/main.ts' },
    outdir,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20.18',
    sourcemap: 'linked',
    logLevel: 'warning',
    chunkNames: 'chunks/[name]-[hash]',
    plugins: [zodEnglishOnly, undiciWithoutHttp2],
    define: { __SHIP_VERSION__: JSON.stringify(version) },
    // CommonJS dependencies bundled into ESM still call require() for Node built-ins.
    banner: {
      js: "import { createRequire as __shipCreateRequire } from 'node:module'; const require = __shipCreateRequire(import.meta.url);",
    },
  };
}
