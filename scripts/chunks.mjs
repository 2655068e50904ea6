// What a command loads: reads dist/meta.json (build with SHIP_BUILD_METAFILE=1) and prints, for the chunk that
// holds a source file, every chunk it pulls in statically (loaded before it can run), with sizes and the
// biggest inputs of each. Dynamic imports (lazy loads) are listed but not followed.
//
// Usage: SHIP_BUILD_METAFILE=1 npm run build && node scripts/chunks.mjs [src/commands/reference/services.ts]
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
let meta;
try {
  meta = JSON.parse(readFileSync(resolve(root, 'dist/meta.json'), 'utf8'));
} catch {
  console.error('dist/meta.json is missing: build with SHIP_BUILD_METAFILE=1 npm run build');
  process.exit(2);
}
const outputs = meta.outputs;
const kb = (n) => `${(n / 1024).toFixed(1)} KB`;

/** The chunk whose inputs include `src` (or main.js when none is given). */
function chunkOf(src) {
  if (!src) return 'dist/main.js';
  for (const [out, o] of Object.entries(outputs)) if (!out.endsWith('.map') && o.inputs[src]) return out;
  throw new Error(`no chunk holds ${src}`);
}

/** The static import closure of `start` (what Node must load and evaluate before `start` runs). */
function closure(start) {
  const seen = new Set();
  const walk = (out) => {
    if (seen.has(out)) return;
    seen.add(out);
    for (const imp of outputs[out].imports) if (imp.kind === 'import-statement' && !imp.external) walk(imp.path);
  };
  walk(start);
  return [...seen];
}

const targets = process.argv.slice(2);
const starts = targets.length ? targets.map(chunkOf) : ['dist/main.js'];
// A command runs main.js first, then its own chunk: count both closures once.
const all = new Set(closure('dist/main.js'));
for (const s of starts) for (const c of closure(s)) all.add(c);
let total = 0;
for (const out of [...all].sort((a, b) => outputs[b].bytes - outputs[a].bytes)) {
  const o = outputs[out];
  total += o.bytes;
  const inputs = Object.entries(o.inputs)
    .map(([file, i]) => [file.replace(/^node_modules\/((@[^/]+\/)?[^/]+).*/, '$1'), i.bytesInOutput])
    .reduce((m, [k, v]) => m.set(k, (m.get(k) ?? 0) + v), new Map());
  const top = [...inputs].sort((a, b) => b[1] - a[1]).slice(0, 4).map(([k, v]) => `${k} ${kb(v)}`);
  console.log(`${kb(o.bytes).padStart(10)}  ${out}  ${top.join(', ')}`);
}
console.log(`${kb(total).padStart(10)}  total loaded statically for ${targets.join(' ') || 'main.js'}`);
