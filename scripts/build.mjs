// Bundles src/ into dist/ with code splitting, so each command's heavy modules load only when it runs.
import { build } from 'esbuild';
import { readFile, rename, rm } from 'node:fs/promises';

const pkg = JSON.parse(await readFile(new URL('../package.json', import.meta.url), 'utf8'));
// Build beside dist/ and swap it in, so a binary started during a rebuild never finds dist/ missing.
const dist = new URL('../dist', import.meta.url).pathname;
const next = `${dist}.next-${process.pid}`;
const old = `${dist}.old-${process.pid}`;
await rm(next, { recursive: true, force: true });

await build({
  entryPoints: { main: 'src/main.ts' },
  outdir: next,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20.18',
  sourcemap: 'linked',
  logLevel: 'warning',
  chunkNames: 'chunks/[name]-[hash]',
  define: { __SHIP_VERSION__: JSON.stringify(pkg.version) },
  // CommonJS dependencies bundled into ESM still call require() for Node built-ins.
  banner: {
    js: "import { createRequire as __shipCreateRequire } from 'node:module'; const require = __shipCreateRequire(import.meta.url);",
  },
});

await rename(dist, old).catch(() => {});
await rename(next, dist);
await rm(old, { recursive: true, force: true });
