// What each kind of command loads at start-up, checked on the real bundle (esbuild, in memory): the heavy
// modules stay out of the chunks every command, every API call and every settings lookup load.
import { build, type Metafile } from 'esbuild';
import { beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs script without types
import { buildOptions } from '../../scripts/build-options.mjs';

let meta: Metafile;
const OUT = 'dist-chunks-test';

beforeAll(async () => {
  const r = await build({ ...buildOptions({ outdir: OUT, version: '0.0.0-test' }), write: false, sourcemap: false, metafile: true, logLevel: 'silent' });
  meta = r.metafile!;
}, 60_000);

/** The output chunk holding a source file. */
function chunkOf(src: string): string {
  const hit = Object.entries(meta.outputs).find(([, o]) => o.inputs[src]);
  if (!hit) throw new Error(`no chunk holds ${src}`);
  return hit[0];
}

/** Every input loaded before `srcs` can run: the static-import closure of their chunks and of main.js. */
function staticInputs(...srcs: string[]): string[] {
  const seen = new Set<string>();
  const walk = (out: string) => {
    if (seen.has(out)) return;
    seen.add(out);
    for (const imp of meta.outputs[out].imports) if (imp.kind === 'import-statement' && !imp.external) walk(imp.path);
  };
  walk(`${OUT}/main.js`);
  for (const s of srcs) walk(chunkOf(s));
  return [...seen].flatMap((out) => Object.keys(meta.outputs[out].inputs));
}

const packages = (inputs: string[]) => new Set(inputs.map((f) => /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(f)?.[1]).filter(Boolean));
const LAZY = ['zod', 'conf', 'ajv', 'cli-table3', 'ora', '@inquirer/prompts', '@inquirer/core', 'csv-parse', 'pdf-lib', 'bwip-js', 'pngjs', 'node-thermal-printer'];

describe('start-up chunks', () => {
  it('every command (--version, --help) loads no heavy module and no undici', () => {
    const pkgs = packages(staticInputs());
    for (const p of [...LAZY, 'undici']) expect(pkgs, p).not.toContain(p);
  });

  it('every command (--version, --help) loads none of the config store (its keys come from config/keys.ts)', () => {
    const inputs = staticInputs();
    for (const f of ['src/config/store.ts', 'src/config/validate.ts', 'src/util/mkdir.ts']) expect(inputs, f).not.toContain(f);
    expect(inputs).toContain('src/config/keys.ts');
  });

  it('reading settings and calling the API load neither zod nor conf, and undici without fetch & co.', () => {
    const inputs = staticInputs('src/api/resources.ts', 'src/config/store.ts', 'src/config/settings.ts', 'src/commands/auth/whoami.ts', 'src/commands/reference/services.ts');
    const pkgs = packages(inputs);
    for (const p of LAZY) expect(pkgs, p).not.toContain(p);
    expect(inputs).toContain('node_modules/undici/lib/dispatcher/agent.js');
    expect(inputs).not.toContain('node_modules/undici/index.js');
  });

  it('undici comes without node:http2 (ship never speaks HTTP/2; its client falls back when the module is missing)', () => {
    const imports = Object.values(meta.outputs).flatMap((o) => o.imports.map((i) => i.path));
    expect(imports).not.toContain('node:http2');
    expect(imports).not.toContain('http2');
    const inputs = staticInputs('src/api/resources.ts');
    expect(inputs).toContain('undici-no-http2:http2');
  });

  it('zod comes with its English messages only', () => {
    const locales = Object.values(meta.outputs).flatMap((o) => Object.keys(o.inputs)).filter((f) => f.includes('node_modules/zod/v4/locales/'));
    expect(locales).toEqual(['node_modules/zod/v4/locales/en.js']);
  });
});
