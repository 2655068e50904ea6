// `ship skus …` in-process against the embedded sandbox on a loopback port.
import { mkdtempSync, readFileSync, writeFileSync, existsSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { runShip } from '../../helpers/run.js';
import { allSkus, apiCall, sandboxForFile, type ApiAuth } from '../../helpers/sandbox.js';
import { startRecordingProxy } from '../create/recording-proxy.js';

const sb = await sandboxForFile();
let env: ApiAuth;
let dir: string;

/** Direct API call to the sandbox (not through ship), for setting up and checking state. */
const api = (method: string, path: string, body?: unknown) => apiCall(env, method, path, body);

const ship = (args: string[], opts: { stdin?: string; tty?: boolean } = {}) =>
  runShip(args, { env: { ...env, SHIP_CONFIG_DIR: dir, CI: opts.tty ? undefined : 'true' }, ...opts });

const file = (name: string, text: string) => {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
};

beforeEach(async () => {
  env = await sb.authEnv();
  dir = mkdtempSync(join(tmpdir(), 'ship-skus-'));
});

describe('skus list / get', () => {
  it('lists one page as TSV without a terminal, and as a JSON array', async () => {
    const seeded = await allSkus(env);
    const r = await ship(['skus', 'list']);
    expect(r.code).toBe(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines).toHaveLength(seeded.length);
    expect(lines[0].split('\t')[0]).toBe(seeded[0].sku);
    const j = await ship(['skus', 'list', '--json']);
    expect(JSON.parse(j.stdout).map((s: any) => s.sku)).toEqual(seeded.map((s) => s.sku));
    // --quiet: the codes only, one per line, like the other list commands' keys.
    const q = await ship(['skus', 'list', '--quiet']);
    expect(q.stdout).toBe(seeded.map((s) => `${s.sku}\n`).join(''));
  });

  it('--all streams every page in order as one JSON array or as NDJSON', async () => {
    for (let i = 0; i < 95; i++) await api('POST', '/skus', { sku: `L-${String(i).padStart(3, '0')}`, product_name: `P${i}` });
    const expected = (await allSkus(env)).map((s) => s.sku);
    expect(expected.length).toBeGreaterThan(90);
    const j = await ship(['skus', 'list', '--all', '--json']);
    expect(j.code).toBe(0);
    expect(j.stdout.startsWith('[')).toBe(true);
    expect(JSON.parse(j.stdout).map((s: any) => s.sku)).toEqual(expected);
    const n = await ship(['skus', 'list', '--all', '--ndjson']);
    const lines = n.stdout.trim().split('\n');
    expect(lines.map((l) => JSON.parse(l).sku)).toEqual(expected);
    const p = await ship(['skus', 'list', '--page', '4', '--json']);
    expect(JSON.parse(p.stdout).map((s: any) => s.sku)).toEqual(expected.slice(90, 120));
  });

  it('gets one SKU, and exits 5 for an unknown one', async () => {
    const r = await ship(['skus', 'get', 'MUG-001', '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).sku).toBe('MUG-001');
    const t = await ship(['skus', 'get', 'MUG-001']);
    expect(t.stdout).toMatch(/product_name\tCeramic Mug/);
    expect((await ship(['skus', 'get', 'NOPE-404'])).code).toBe(5);
  });

  it('streams a fixed-width table with one header on a terminal for --all', async () => {
    for (let i = 0; i < 40; i++) await api('POST', '/skus', { sku: `T-${String(i).padStart(2, '0')}`, product_name: `Table ${i}` });
    const all = await allSkus(env);
    const r = await ship(['skus', 'list', '--all'], { tty: true });
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^SKU\s+Product\s+Location/);
    expect(lines).toHaveLength(all.length + 1);
    expect(lines.at(-1)!.startsWith(all.at(-1).sku)).toBe(true);
    expect(r.stderr).toMatch(new RegExp(`${all.length} SKUs`));
  });

  it('refuses --page with --all', async () => {
    const r = await ship(['skus', 'list', '--all', '--page', '2']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--page or --all/);
  });
});

describe('skus create / update', () => {
  it('creates from flags, normalising values, and updates only the given attributes', async () => {
    const c = await ship(['skus', 'create', '--sku', 'NEW-1', '--product-name', 'New thing', '--gross-weight', '120', '--country-of-origin', 'de', '--item-handling', 'No', '--custom-field', 'hazard_class=none', '--json']);
    expect(c.code, c.stderr).toBe(0);
    const got = (await api('GET', '/skus/NEW-1')).body.data;
    expect(got).toMatchObject({ product_name: 'New thing', gross_weight: 120, item_handling: 'NON_PACKABLE', custom_fields: { hazard_class: 'none' } });
    expect(got.country_of_origin.code).toBe('DE');

    const u = await ship(['skus', 'update', 'NEW-1', '--in-stock', 'yes', '--depth', '40']);
    expect(u.code, u.stderr).toBe(0);
    const after = (await api('GET', '/skus/NEW-1')).body.data;
    expect(after).toMatchObject({ product_name: 'New thing', gross_weight: 120, in_stock: true, depth: 40 });
  });

  it('names the flag of a bad value and sends nothing', async () => {
    const r = await ship(['skus', 'create', '--sku', 'BAD-1', '--gross-weight', '1.5', '--country-of-origin', 'GBR']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--gross-weight/);
    expect(r.stderr).toMatch(/--country-of-origin/);
    expect((await api('GET', '/skus/BAD-1')).status).toBe(404);
  });

  it('a refusal by the API names the flag, and --json keeps the API field path in `fields`', async () => {
    const r = await ship(['skus', 'create', '--sku', 'MUG-001', '--product-name', 'Again']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--sku: .*already been taken/);
    const j = await ship(['skus', 'create', '--sku', 'MUG-001', '--product-name', 'Again', '--json']);
    expect(j.code).toBe(2);
    const err = JSON.parse(j.stderr).error;
    expect(Object.keys(err.fields)).toEqual(['sku']);
    expect(err.problems).toEqual([{ column: '--sku', message: err.fields.sku[0] }]);
  });

  it('updates from a file as `skus get --json` prints it, edited', async () => {
    const g = await ship(['skus', 'get', 'TEE-BLK-M', '--json']);
    const sku = JSON.parse(g.stdout);
    sku.product_name = 'T-shirt Black Medium';
    const f = file('tee.json', JSON.stringify(sku));
    const r = await ship(['skus', 'update', 'TEE-BLK-M', '--file', f]);
    expect(r.code, r.stderr).toBe(0);
    const after = (await api('GET', '/skus/TEE-BLK-M')).body.data;
    expect(after.product_name).toBe('T-shirt Black Medium');
    expect(after.country_of_origin.code).toBe(sku.country_of_origin.code);
    expect(after.location.code).toBe(sku.location.code);
    // A file edited into something that is not JSON: placed by line and column.
    writeFileSync(f, JSON.stringify(sku, null, 2).replace('"T-shirt Black Medium"', '"T-shirt Black Medium",'));
    const bad = await ship(['skus', 'update', 'TEE-BLK-M', '--file', f]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--file: line \d+, column \d+: Expected double-quoted property name\n/);
    // A key that is no SKU attribute (a typo; hazard_codes, gone in 1.2) is refused, not sent and ignored.
    writeFileSync(f, JSON.stringify({ in_stok: true, hazard_codes: 'x' }));
    const typo = await ship(['skus', 'update', 'TEE-BLK-M', '--file', f, '--json']);
    expect(typo.code).toBe(2);
    expect(JSON.parse(typo.stderr.trim().split('\n').at(-1)!).error.problems).toEqual([
      { column: 'in_stok', message: 'not a SKU attribute; did you mean in_stock?' },
      { column: 'hazard_codes', message: 'not a SKU attribute (custom fields go under "custom_fields")' },
    ]);
    expect((await api('GET', '/skus/TEE-BLK-M')).body.data.product_name).toBe('T-shirt Black Medium');
  });

  it('update --replace resets what it leaves out, so it asks first: --yes in scripts', async () => {
    const before = (await api('GET', '/skus/BOOK-042')).body.data;
    const r = await ship(['skus', 'update', 'BOOK-042', '--replace', '--product-name', 'Field Guide 2']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--replace overwrites every attribute of SKU BOOK-042 and needs confirmation');
    expect((await api('GET', '/skus/BOOK-042')).body.data).toEqual(before);
    const ok = await ship(['skus', 'update', 'BOOK-042', '--replace', '--product-name', 'Field Guide 2', '--yes']);
    expect(ok.code, ok.stderr).toBe(0);
    expect((await api('GET', '/skus/BOOK-042')).body.data.product_name).toBe('Field Guide 2');
  });

  it('says nothing changes when update gets no attributes', async () => {
    const r = await ship(['skus', 'update', 'MUG-001']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/nothing to change/);
  });
});

describe('skus import', () => {
  it('creates new SKUs and updates existing ones, counting each exactly', async () => {
    const f = file(
      'skus.csv',
      'SKU,Product Name,gross-weight,country_of_origin,item_handling,custom_fields.hazard_class\n' +
        'MUG-001,Mug renamed,,,,\n' +
        'IMP-1,Imported one,100,cn,packable,\n' +
        'IMP-2,Imported two,200,VN,N,"=2"\n',
    );
    const r = await ship(['skus', 'import', f, '--json']);
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trim().split('\n').map((l) => JSON.parse(l));
    expect(lines.map((l) => [l.row, l.sku, l.status])).toEqual([
      [2, 'MUG-001', 'updated'],
      [3, 'IMP-1', 'created'],
      [4, 'IMP-2', 'created'],
    ]);
    const mug = (await api('GET', '/skus/MUG-001')).body.data;
    expect(mug.product_name).toBe('Mug renamed');
    expect(mug.gross_weight).toBe(420); // blank cell: unchanged
    const two = (await api('GET', '/skus/IMP-2')).body.data;
    expect(two).toMatchObject({ gross_weight: 200, item_handling: 'NON_PACKABLE', custom_fields: { hazard_class: '=2' } });
    expect(two.country_of_origin.code).toBe('VN');
    // A finished run leaves no journal behind, so importing an edited file later applies every row.
    expect(readdirSync(dir).filter((n) => n.startsWith('.ship-journal'))).toEqual([]);
  });

  it('resuming after an interruption sends a row edited since the interrupted run imported it', async () => {
    const f = file('resume.csv', 'sku,product_name\nRES-1,Edited after the run\nRES-2,Untouched\n');
    // The interrupted run imported RES-1 with other values, and RES-2 with these.
    const { journalPathFor } = await import('../../../src/bulk/journal.js');
    const { resolve, dirname } = await import('node:path');
    const journal = journalPathFor(dirname(resolve(f)), `${resolve(f)}.skus`, { baseUrl: env.SHIP_BASE_URL, apiKey: env.SHIP_API_KEY });
    const fpOf = (request: object) => JSON.stringify(['PATCH', request]);
    await api('POST', '/skus', { sku: 'RES-1', product_name: 'Before the edit' });
    const { writeFileSync } = await import('node:fs');
    writeFileSync(
      journal,
      [
        { k: 'RES-1', s: 'done', t: 'x', r: { action: 'created' }, f: fpOf({ sku: 'RES-1', product_name: 'Before the edit' }) },
        { k: 'RES-2', s: 'done', t: 'x', r: { action: 'created' }, f: fpOf({ sku: 'RES-2', product_name: 'Untouched' }) },
      ].map((l) => JSON.stringify(l)).join('\n') + '\n',
    );
    const r = await ship(['skus', 'import', f, '--json']);
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trim().split('\n').map((l) => JSON.parse(l));
    expect(lines.map((l) => [l.sku, l.status])).toEqual([['RES-1', 'updated'], ['RES-2', 'skipped']]);
    expect((await api('GET', '/skus/RES-1')).body.data.product_name).toBe('Edited after the run');
  });

  it('a journal left by a run against another service (the test one) or account does not skip rows on this one', async () => {
    const f = file('two-services.csv', 'sku,product_name\nSVC-1,One\nSVC-2,Two\n');
    const { journalPathFor } = await import('../../../src/bulk/journal.js');
    const { resolve, dirname } = await import('node:path');
    const fpOf = (request: object) => JSON.stringify(['PATCH', request]);
    const done = (sku: string, name: string) => JSON.stringify({ k: sku, s: 'done', t: 'x', r: { action: 'created' }, f: fpOf({ sku, product_name: name }) });
    // An interrupted run of the same file against another base URL, in another account at this one (another API
    // key), or of an older version (unkeyed) did SVC-1.
    for (const other of [{ baseUrl: 'http://127.0.0.1:1/v1.2', apiKey: env.SHIP_API_KEY }, { baseUrl: env.SHIP_BASE_URL, apiKey: 'another-account' }, { baseUrl: env.SHIP_BASE_URL }, undefined]) {
      writeFileSync(journalPathFor(dirname(resolve(f)), `${resolve(f)}.skus`, other), done('SVC-1', 'One') + '\n');
    }
    const r = await ship(['skus', 'import', f, '--json']);
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trim().split('\n').map((l) => JSON.parse(l));
    expect(lines.map((l) => [l.sku, l.status])).toEqual([['SVC-1', 'created'], ['SVC-2', 'created']]);
    expect((await api('GET', '/skus/SVC-1')).status).toBe(200);
    // This service's own journal is still honoured.
    writeFileSync(journalPathFor(dirname(resolve(f)), `${resolve(f)}.skus`, { baseUrl: env.SHIP_BASE_URL, apiKey: env.SHIP_API_KEY }), done('SVC-1', 'One') + '\n');
    const again = await ship(['skus', 'import', f, '--json']);
    expect(again.stdout.trim().split('\n').map((l) => JSON.parse(l).status)).toEqual(['skipped', 'unchanged']);
  });

  it('validates the whole file first: every problem with row and column, nothing sent', async () => {
    const before = await allSkus(env);
    const f = file('bad.csv', 'sku,product_name,gross_weight,country_of_origin,active\nOK-1,Fine,10,GB,yes\nBAD-1,x,1.5,GB,yes\nBAD-2,y,3,GBR,perhaps\nOK-1,dup,1,GB,no\n');
    const r = await ship(['skus', 'import', f]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/row 3, column gross_weight/);
    expect(r.stderr).toMatch(/row 4, column country_of_origin/);
    expect(r.stderr).toMatch(/row 4, column active/);
    expect(r.stderr).toMatch(/row 5, column sku: SKU OK-1 is already on row 2/);
    expect(await allSkus(env)).toEqual(before);
  });

  it('a row with a stray quote is one problem among the others: the rows after it are read and numbered right', async () => {
    const before = await allSkus(env);
    const f = file('quotes.csv', 'sku,product_name,gross_weight\nQ-1,6" frame,1.5\nQ-2,"Mug"s,2\nQ-3,Plate,x\nQ-4,Bowl,3\n');
    const r = await ship(['skus', 'import', f, '--json']);
    expect(r.code, r.stderr).toBe(2);
    const problems = JSON.parse(r.stderr.trim().split('\n').pop()!).error.problems;
    expect(problems.map((p: { row: number; column: string; message: string }) => [p.row, p.column, p.message.split(':')[0]])).toEqual([
      [2, 'product_name', 'a stray quote (") inside the cell'],
      [2, 'gross_weight', expect.any(String)],
      [3, 'product_name', 'text after the quote (") that closes the cell'],
      [4, 'gross_weight', expect.any(String)],
    ]);
    expect(await allSkus(env)).toEqual(before);
  });

  it("checks custom field columns and values against the account's SKU custom fields before sending anything", async () => {
    const before = await allSkus(env);
    // hazard_class: a SKU TEXT field of at most 20 characters; hazrd_class a typo; gone_field blank throughout.
    const f = file(
      'cf.csv',
      'sku,custom_fields.hazrd_class,custom_fields.hazard_class,custom_fields.gone_field\n' +
        'CFR-1,,UN1263,\n' +
        'CFR-2,x,ABCDEFGHIJKLMNOPQRSTUVWXYZ,\n',
    );
    // A dry run says so too (it reads the account's fields), as the real run does.
    for (const extra of [['--dry-run'], []]) {
      const r = await ship(['skus', 'import', f, '--json', ...extra]);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stdout).toBe('');
      const problems = JSON.parse(r.stderr.trim().split('\n').pop()!).error.problems;
      expect(problems).toEqual([
        { row: 3, column: 'custom_fields.hazrd_class', message: expect.stringMatching(/no SKU custom field "hazrd_class"; did you mean custom_fields.hazard_class/) },
        { row: 3, column: 'custom_fields.hazard_class', message: expect.stringMatching(/26 characters; custom field hazard_class takes at most 20/) },
      ]);
    }
    expect(await allSkus(env)).toEqual(before);
    // Fixed, the file imports; the blank column of a field the account lacks sends nothing and is no problem.
    writeFileSync(f, 'sku,custom_fields.hazard_class,custom_fields.gone_field\nCFR-1,UN1263,\nCFR-2,"=ABC",\n');
    const ok = await ship(['skus', 'import', f, '--json']);
    expect(ok.code, ok.stderr).toBe(0);
    expect((await api('GET', '/skus/CFR-2')).body.data.custom_fields).toEqual({ hazard_class: '=ABC' });
  });

  it("reports the file's own problems and its custom field problems together, in one run", async () => {
    const before = await allSkus(env);
    const f = file('cf-both.csv', 'sku,gross_weight,custom_fields.hazard_class\nCFB-1,heavy,UN1263\nCFB-2,1500,ABCDEFGHIJKLMNOPQRSTUVWXYZ\n');
    for (const extra of [['--dry-run'], []]) {
      const r = await ship(['skus', 'import', f, '--json', ...extra]);
      expect(r.code, r.stderr).toBe(2);
      const err = JSON.parse(r.stderr.trim().split('\n').pop()!).error;
      expect(err.message).toBe(`${f}: 2 problems found; nothing was sent`);
      expect(err.problems).toEqual([
        { row: 2, column: 'gross_weight', message: expect.any(String) },
        { row: 3, column: 'custom_fields.hazard_class', message: expect.stringMatching(/26 characters; custom field hazard_class takes at most 20/) },
      ]);
      expect(err.hint).toMatch(/ship custom-fields/);
    }
    expect(await allSkus(env)).toEqual(before);
  });

  it('warns (once per column, with its rows) about codes a spreadsheet wrote in scientific notation', async () => {
    const f = file(
      'sci.csv',
      'sku,Inner Barcode,outer_barcode,tariff_code,product_name\n' +
        'SCI-1,5.01235E+12,05012345678900,6.91E+09,1.5E+3\n' +
        'SCI-2,5.01235E+12,,6912002310,x\n' +
        '2E10,,,,\n',
    );
    const r = await ship(['skus', 'import', f, '--dry-run']);
    expect(r.code, r.stderr).toBe(0);
    const warnings = r.stderr.split('\n').filter((l) => l.startsWith('warning:'));
    expect(warnings).toEqual([
      expect.stringContaining('column Inner Barcode, rows 2, 3: "5.01235E+12" is a number a spreadsheet wrote in scientific notation'),
      expect.stringContaining('column tariff_code, row 2: "6.91E+09"'),
    ]);
  });

  it('a value under a blank header (or past the last) is a problem, not dropped; empty cells there are fine', async () => {
    const f = file('cut.csv', 'sku,product_name,,\nCUT-1,Mug, blue,\nCUT-2,Plate,,\n');
    const r = await ship(['skus', 'import', f, '--dry-run']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('row 2, column 3 (no header): a value under no header ("blue")');
    expect(r.stderr).not.toMatch(/row 3/);
  });

  it('sends the spaces of a quoted value (as export writes one), and trims those of a bare one', async () => {
    const f = file('spaces.csv', 'sku,product_name,description_short\nSPC-1," =spaced","trailing  "\nSPC-2,  bare  ,x\n');
    const proxy = await startRecordingProxy(env.SHIP_BASE_URL);
    try {
      const r = await runShip(['skus', 'import', f, '--json'], { env: { ...env, SHIP_BASE_URL: proxy.baseUrl, SHIP_CONFIG_DIR: dir, CI: 'true' } });
      expect(r.code, r.stderr).toBe(0);
      const sent = (sku: string) => proxy.requests.find((q) => q.method !== 'GET' && q.body?.sku === sku)?.body;
      expect(sent('SPC-1')).toMatchObject({ product_name: ' =spaced', description_short: 'trailing  ' });
      expect(sent('SPC-2').product_name).toBe('bare');
    } finally {
      await proxy.close();
    }
    // The service trims what it is sent (its framework's TrimStrings), as the sandbox does.
    expect((await api('GET', '/skus/SPC-1')).body.data.product_name).toBe('=spaced');
    // So the same file again holds nothing new: no update is sent.
    const again = await ship(['skus', 'import', f, '--json']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout.trim().split('\n').map((l) => JSON.parse(l).status)).toEqual(['unchanged', 'unchanged']);
  });

  it('a row the API refuses is told in the file\'s terms: its row and its own column (as --map names it), in the line and FILE.failed.csv', async () => {
    const f = file('mp.csv', 'Code,Store\nMP-1,NOWHERE\n');
    const map = file('m.json', JSON.stringify({ Code: 'sku', Store: 'location' }));
    const r = await ship(['skus', 'import', f, '--map', map, '--json']);
    expect(r.code).toBe(3);
    const line = JSON.parse(r.stdout.trim());
    expect(line.error).toMatch(/^row 2, column Store: /);
    expect(Object.keys(line.fields)).toEqual(['location']);
    expect(readFileSync(f.replace(/\.csv$/, '.failed.csv'), 'utf8')).toMatch(/^Code,Store,error\nMP-1,NOWHERE,"?row 2, column Store: /);
  });

  it('reads amounts with a decimal comma in a file separated by ";" (a European spreadsheet\'s), as create --csv does', async () => {
    const f = file('semi.csv', 'sku;product_name;value_ex_vat\nDC-1;Mug;12,50\n');
    const r = await ship(['skus', 'import', f, '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(Number((await api('GET', '/skus/DC-1')).body.data.value_ex_vat)).toBe(12.5);
    const ambiguous = await ship(['skus', 'import', file('semi2.csv', 'sku;value_ex_vat\nDC-2;1,000\n'), '--dry-run']);
    expect(ambiguous.code).toBe(2);
    expect(ambiguous.stderr).toContain('must be a number such as 12.50 (got "1,000")');
  });

  it('--dry-run validates and sends nothing', async () => {
    const before = await allSkus(env);
    const f = file('ok.csv', 'sku,product_name\nDRY-1,Dry\n');
    const r = await ship(['skus', 'import', f, '--dry-run']);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/1 SKU row valid; nothing sent/);
    expect(await allSkus(env)).toEqual(before);
  });

  it('reports rows the API refuses, writes FILE.failed.csv, exits 3, and a rerun skips the rows already done', async () => {
    const f = file('part.csv', 'sku,product_name,location\nP-1,One,\nP-2,Two,NOWHERE\nP-3,Three,\n');
    const r = await ship(['skus', 'import', f, '--json']);
    expect(r.code).toBe(3);
    const lines = r.stdout.trim().split('\n').map((l) => JSON.parse(l));
    expect(lines.map((l) => l.status)).toEqual(['created', 'failed', 'created']);
    expect(lines[1].fields).toHaveProperty('location');
    const failed = readFileSync(join(dir, 'part.failed.csv'), 'utf8');
    expect(failed.split('\n')[0]).toBe('sku,product_name,location,error');
    expect(failed).toMatch(/^P-2,Two,NOWHERE,/m);

    const again = await ship(['skus', 'import', f, '--json']);
    const l2 = again.stdout.trim().split('\n').map((l) => JSON.parse(l));
    expect(l2.map((l) => l.status)).toEqual(['skipped', 'failed', 'skipped']);
    expect(l2[0].previous).toBe('created');
  });

  it('a file of only a header (a quiet day\'s export) is nothing to do: said, exit 0, nothing sent', async () => {
    const before = await allSkus(env);
    const f = file('header-only.csv', 'sku,product_name,gross_weight\n');
    for (const extra of [[], ['--dry-run']]) {
      const r = await ship(['skus', 'import', f, ...extra]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toContain(`${f} has no SKU rows (only a header): nothing to do`);
    }
    const dry = await ship(['skus', 'import', f, '--dry-run', '--json']);
    expect(JSON.parse(dry.stdout)).toEqual({ dry_run: true, file: f, rows: 0, valid: true });
    expect(await allSkus(env)).toEqual(before);
  });

  it('imports its own FILE.failed.csv once fixed, as it is: the error column is ignored', async () => {
    const f = file('fix.csv', 'sku,product_name,location\nFIX-1,ok,WH1\nFIX-2,bad location,NOPE\n');
    const r = await ship(['skus', 'import', f]);
    expect(r.code).toBe(3);
    const failedPath = join(dir, 'fix.failed.csv');
    const failed = readFileSync(failedPath, 'utf8');
    expect(failed.split('\n')[0]).toBe('sku,product_name,location,error');
    writeFileSync(failedPath, failed.replace('NOPE', 'WH1'));
    const again = await ship(['skus', 'import', failedPath, '--json']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout.trim().split('\n').map((l) => JSON.parse(l).status)).toEqual(['created']);
    expect((await api('GET', '/skus/FIX-2')).body.data.location.code).toBe('WH1');
  });

  it('renames headers with --map and imports them', async () => {
    const map = file('map.json', JSON.stringify({ columns: { 'Item No': 'sku', Title: 'product_name', 'Weight (g)': 'gross_weight', Hazard: 'custom_fields.hazard_class', Notes: null } }));
    const f = file('supplier.csv', 'Item No,Title,Weight (g),Hazard,Notes\nSUP-1,Supplied,250,none,ignore me\n');
    const r = await ship(['skus', 'import', f, '--map', map, '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout.trim())).toMatchObject({ row: 2, sku: 'SUP-1', status: 'created' });
    expect((await api('GET', '/skus/SUP-1')).body.data).toMatchObject({ product_name: 'Supplied', gross_weight: 250, custom_fields: { hazard_class: 'none' } });
    const bad = file('badmap.json', JSON.stringify({ 'Item No': 'skew' }));
    const b = await ship(['skus', 'import', f, '--map', bad]);
    expect(b.code).toBe(2);
    expect(b.stderr).toMatch(/did you mean sku/);
    // Not JSON: placed by line and column.
    const broken = file('brokenmap.json', '{\n  "Item No": "sku",\n}\n');
    const j = await ship(['skus', 'import', f, '--map', broken]);
    expect(j.code).toBe(2);
    expect(j.stderr).toContain(`--map ${broken} is not valid JSON`);
    expect(j.stderr).toContain('--map: line 3, column 1: Expected double-quoted property name');
  });

  it('reads a Windows-1252 file with its accents (saying so), and --encoding overrides the guess', async () => {
    const p = join(dir, 'excel.csv');
    writeFileSync(p, Buffer.from([...Buffer.from('sku;product_name\r\nENC-1;Cr'), 0xe8, ...Buffer.from('me br'), 0xfb, ...Buffer.from('l'), 0xe9, ...Buffer.from('e '), 0x80, 0x0d, 0x0a]));
    const r = await ship(['skus', 'import', p, '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/not UTF-8 text: read as Windows-1252/);
    expect((await api('GET', '/skus/ENC-1')).body.data.product_name).toBe('Crème brûlée €');
    const strict = await ship(['skus', 'import', p, '--encoding', 'utf-8', '--dry-run']);
    expect(strict.code).toBe(2);
    expect(strict.stderr).toMatch(/not valid utf-8 text/);
  });

  it('lists rows with bytes that are not UTF-8 among the file\'s other problems, by row then column, in one error', async () => {
    const before = await allSkus(env);
    const MIXED = 'bytes that are not UTF-8 in a file otherwise UTF-8 (a row pasted from another program?): fix that row, or give --encoding';
    const p = join(dir, 'mixed-other.csv');
    // UTF-8 ("Zoë" on row 2), a Latin-1 byte in row 3's product_name, a width that is no number on row 4, and on
    // row 5 a Latin-1 byte in country_of_origin after a bad width: read in that order, listed in the columns'.
    writeFileSync(
      p,
      Buffer.concat([
        Buffer.from('sku,product_name,width,country_of_origin\nMIX-1,Zoë mug,10,GB\n'),
        Buffer.from([...Buffer.from('MIX-2,Zo'), 0xeb, ...Buffer.from(' mug,10,GB\n')]),
        Buffer.from('MIX-3,Width,ten,GB\n'),
        Buffer.from([...Buffer.from('MIX-4,Mug,wide,G'), 0xc9, 0x0a]),
      ]),
    );
    const r = await ship(['skus', 'import', p]);
    expect(r.code, r.stderr).toBe(2);
    const lines = r.stderr.trimEnd().split('\n');
    expect(lines[0]).toBe(`error: ${p} is not valid utf-8 text, and the file has other problems: 4 problems in 3 rows; nothing was sent`);
    expect(lines.slice(1, -1).map((l) => l.replace(/^ {2}(row \d+, column \w+): .*$/, '$1'))).toEqual([
      'row 3, column product_name',
      'row 4, column width',
      'row 5, column width',
      'row 5, column country_of_origin',
    ]);
    expect(lines[1]).toBe(`  row 3, column product_name: ${MIXED}`);
    expect(lines[4]).toBe(`  row 5, column country_of_origin: ${MIXED}`);
    // The encoding's advice first, then the import's own.
    expect(lines.at(-1)).toMatch(/^hint: retype those rows .*--encoding.*; fix the file \(or rename columns with --map FILE\.json\)/);
    expect(await allSkus(env)).toEqual(before);

    // --encoding given (here UTF-8 on a Windows-1252 file): its own words, the same way.
    const q = join(dir, 'latin-other.csv');
    writeFileSync(q, Buffer.concat([Buffer.from('sku,product_name,width\nLAT-1,Caf'), Buffer.from([0xe9]), Buffer.from(',10\nLAT-2,Mug,ten\n')]));
    const g = await ship(['skus', 'import', q, '--encoding', 'utf-8', '--dry-run', '--json']);
    expect(g.code, g.stderr).toBe(2);
    const { error } = JSON.parse(g.stderr.trim().split('\n').at(-1)!);
    expect(error.message).toBe(`${q} is not valid utf-8 text, and the file has other problems: 2 problems in 2 rows; nothing was sent`);
    expect(error.problems.map((x: { row: number; column: string; message: string }) => [x.row, x.column, x.message.startsWith('bytes that are not utf-8')])).toEqual([
      [2, 'product_name', true],
      [3, 'width', false],
    ]);
    expect(error.hint).toMatch(/--encoding/);
  });

  it('a file whose only problems are bytes that are not UTF-8 gets the encoding\'s refusal alone, as before', async () => {
    const p = join(dir, 'mixed-only.csv');
    writeFileSync(p, Buffer.concat([Buffer.from('sku,product_name\nONLY-1,Zoë mug\n'), Buffer.from([...Buffer.from('ONLY-2,Zo'), 0xeb, ...Buffer.from(' mug\n')])]));
    const r = await ship(['skus', 'import', p, '--dry-run']);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toBe(
      `error: ${p} is not valid utf-8 text\n` +
        '  row 3, column product_name: bytes that are not UTF-8 in a file otherwise UTF-8 (a row pasted from another program?): fix that row, or give --encoding\n' +
        'hint: retype those rows (or save the file as "CSV UTF-8"); if the whole file is in another encoding, give it with --encoding (e.g. windows-1252 for Excel\'s "CSV (Comma delimited)")\n',
    );
    // Given an --encoding the file is not in, likewise: the rows, in its words.
    const q = join(dir, 'latin-only.csv');
    writeFileSync(q, Buffer.concat([Buffer.from('sku,product_name\nLATO-1,Caf'), Buffer.from([0xe9]), Buffer.from('\n')]));
    const g = await ship(['skus', 'import', q, '--encoding', 'utf-8', '--dry-run', '--json']);
    expect(g.code, g.stderr).toBe(2);
    expect(JSON.parse(g.stderr.trim().split('\n').at(-1)!).error).toEqual({
      message: `${q} is not valid utf-8 text`,
      exit_code: 2,
      type: 'InputError',
      problems: [{ row: 2, column: 'product_name', message: 'bytes that are not utf-8' }],
      hint: 'give the file\'s encoding with --encoding (e.g. windows-1252 for Excel\'s "CSV (Comma delimited)"), or save it as "CSV UTF-8"',
    });
  });

  it('reads the CSV from stdin with -', async () => {
    const r = await ship(['skus', 'import', '-', '--json'], { stdin: 'sku;product_name\nSTDIN-1;From stdin\n' });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout.trim())).toMatchObject({ sku: 'STDIN-1', status: 'created' });
    expect((await api('GET', '/skus/STDIN-1')).body.data.product_name).toBe('From stdin');
  });

  it('counts updated SKUs apart from created ones in the closing summary (JSON and text)', async () => {
    const existing = (await allSkus(env)).slice(0, 2).map((s) => s.sku as string);
    expect(existing).toHaveLength(2);
    const rows = [...existing, 'CNT-1', 'CNT-2', 'CNT-3'].map((sku) => `${sku},Counted ${sku}`).join('\n');
    const j = await ship(['skus', 'import', file('count.csv', `sku,product_name\n${rows}\n`), '--json']);
    expect(j.code, j.stderr).toBe(0);
    const summary = JSON.parse(j.stderr.trim().split('\n').pop()!).summary;
    expect(summary).toMatchObject({ total: 5, created: 3, updated: 2, skipped: 0, failed: 0 });

    // The same rows again: every SKU already has those values, so nothing is sent.
    const same = await ship(['skus', 'import', file('count2.csv', `sku,product_name\n${rows}\n`)]);
    expect(same.code, same.stderr).toBe(0);
    expect(same.stderr).toMatch(/^ {2}created\s+0\n {2}updated\s+0\n {2}unchanged\s+5\n/m);
    // Edited rows: every one is an update.
    const edited = rows.replace(/Counted /g, 'Recounted ');
    const t = await ship(['skus', 'import', file('count3.csv', `sku,product_name\n${edited}\n`)]);
    expect(t.code, t.stderr).toBe(0);
    expect(t.stderr).toMatch(/^ {2}created\s+0\n {2}updated\s+5\n/m);
    expect(t.stderr).toMatch(/updates sent with PATCH/);
  });

  it('--replace needs --yes without a terminal', async () => {
    const f = file('r.csv', 'sku,product_name\nMUG-001,Mug\n');
    const r = await ship(['skus', 'import', f, '--replace']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--yes/);
    const ok = await ship(['skus', 'import', f, '--replace', '--yes', '--json']);
    expect(ok.code, ok.stderr).toBe(0);
    const mug = (await api('GET', '/skus/MUG-001')).body.data;
    // PUT replaces: attributes missing from the file return to their defaults.
    expect(mug.gross_weight).toBeNull();
  });
});

describe('skus export', () => {
  it('writes every SKU in the import format, and importing it back changes nothing', async () => {
    await api('POST', '/skus', { sku: '=HYPERLINK("x")', product_name: '-5 degrees', part_number: '@home', custom_fields: { hazard_class: '+1' }, value_ex_vat: 0 });
    const before = await allSkus(env);
    const out = join(dir, 'export.csv');
    const e = await ship(['skus', 'export', '-o', out]);
    expect(e.code, e.stderr).toBe(0);
    const text = readFileSync(out, 'utf8');
    expect(text.split('\n')[0]).toMatch(/^sku,product_name,image_url,/);
    expect(text).toContain(`"'=HYPERLINK(""x"")",'-5 degrees,`);
    expect(text).toContain("'-5 degrees");
    expect(text).toContain("'@home");
    expect(readdirSync(dir).filter((n) => n.endsWith('.partial'))).toEqual([]);
    // A directory given as the file is refused before anything is fetched (exit 2), and a missing directory named.
    const d = await ship(['skus', 'export', '-o', dir]);
    expect(d.code).toBe(2);
    expect(d.stderr).toContain(`-o ${dir} is a directory: give the CSV file's name`);
    const missing = await ship(['skus', 'export', '-o', join(dir, 'nodir', 'x.csv')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain(`its directory ${join(dir, 'nodir')} does not exist`);
    expect(missing.stderr).not.toContain('.partial');

    const i = await ship(['skus', 'import', out, '--json']);
    expect(i.code, i.stderr).toBe(0);
    const statuses = i.stdout.trim().split('\n').map((l) => JSON.parse(l).status);
    // Every row already matches its SKU: nothing is sent, not even a PATCH that would touch updated_at.
    expect(statuses.every((s) => s === 'unchanged')).toBe(true);
    expect(statuses).toHaveLength(before.length);
    expect(await allSkus(env)).toEqual(before);
  });

  it('writes to stdout with -o -', async () => {
    const r = await ship(['skus', 'export', '-o', '-']);
    expect(r.code).toBe(0);
    const rows = r.stdout.trim().split('\n');
    expect(rows.length).toBe((await allSkus(env)).length + 1);
  });

  it('--concurrency 1 (one page after another) gives the same file as the default look-ahead; bad values refused', async () => {
    for (let i = 0; i < 70; i++) await api('POST', '/skus', { sku: `CONC-${String(i).padStart(3, '0')}`, product_name: `Item ${i}` });
    const one = await ship(['skus', 'export', '-o', '-', '--concurrency', '1']);
    const many = await ship(['skus', 'export', '-o', '-', '--concurrency', '4']);
    expect(one.code, one.stderr).toBe(0);
    expect(many.code, many.stderr).toBe(0);
    expect(one.stdout.trim().split('\n').length).toBeGreaterThan(70);
    expect(one.stdout).toBe(many.stdout);
    const list = await ship(['skus', 'list', '--all', '--ndjson', '--concurrency', '1']);
    expect(list.stdout.trim().split('\n')).toHaveLength(one.stdout.trim().split('\n').length - 1);
    expect((await ship(['skus', 'export', '-o', '-', '--concurrency', '0'])).code).toBe(2);
    expect((await ship(['skus', 'list', '--concurrency', '2'])).stderr).toMatch(/--concurrency applies to --all/);
  });
});
