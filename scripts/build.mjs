// Bundles src/ into dist/ with code splitting, so each command's heavy modules load only when it runs.
import { build } from 'esbuild';
import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import { buildOptions } from './build-options.mjs';

const pkg = JSON.parse(await readFile(new URL('../package.json', import.meta.url), 'utf8'));
// Build beside dist/ and swap it in, so a binary started during a rebuild never finds dist/ missing.
const dist = new URL('../dist', import.meta.url).pathname;
const next = `${dist}.next-${process.pid}`;
const old = `${dist}.old-${process.pid}`;
await rm(next, { recursive: true, force: true });

const result = await build({
  ...buildOptions({ outdir: next, version: pkg.version }),
  // SHIP_BUILD_METAFILE=1 writes dist/meta.json: which inputs went into which chunk, and what each chunk imports
  // (`node scripts/chunks.mjs [src/file.ts…]` lists what a command loads; or https://esbuild.github.io/analyze/).
  metafile: process.env.SHIP_BUILD_METAFILE === '1',
});

if (result.metafile) {
  // Paths name the temporary build directory; report them as they will be after the swap.
  const tmpName = next.slice(next.lastIndexOf('/') + 1);
  await writeFile(`${next}/meta.json`, JSON.stringify(result.metafile).replaceAll(`${tmpName}/`, 'dist/'));
}

await rename(dist, old).catch(() => {});
await rename(next, dist);
await rm(old, { recursive: true, force: true });
