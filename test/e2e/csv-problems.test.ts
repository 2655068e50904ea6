// The built binary: `ship create --csv` and `ship skus import` list rows with bytes that are not UTF-8 among the
// file's other problems, and `ship skus import` a cell with text after its closing quote, in one error (exit 2),
// sending nothing.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ship } from '../helpers/bin.js';
import { allSkus, useTestSandbox } from '../helpers/sandbox.js';

const { env } = useTestSandbox();
const dir = mkdtempSync(join(tmpdir(), 'ship-e2e-csv-problems-'));
const csv = (name: string, bytes: string | Buffer) => {
  const p = join(dir, name);
  writeFileSync(p, bytes);
  return p;
};

describe('ship create --csv: every problem of the file in one error', () => {
  it('rows with bytes that are not UTF-8 among the others, by row, with the --encoding hint', async () => {
    const header = 'shipment_reference,to_name,to_line_1,to_city,to_postcode,to_country,weight\n';
    const file = csv(
      'orders.csv',
      Buffer.concat([
        Buffer.from(`${header}U-1,Zoë,1 High St,London,SW1A 1AA,GB,100\n`),
        Buffer.from([...Buffer.from('U-2,Zo'), 0xeb, ...Buffer.from(',1 High St,London,SW1A 1AA,GB,100\n')]),
        Buffer.from('U-3,Ann,1 High St,London,SW1A 1AA,XX,100\n'),
        Buffer.from([...Buffer.from('U-4,M'), 0xfc, ...Buffer.from('ller,1 High St,London,SW1A 1AA,GB,100\n')]),
      ]),
    );
    const r = await ship(['create', '--csv', file, '--dry-run'], { env });
    const err = String(r.stderr);
    expect(r.exitCode, err).toBe(2);
    expect(err).toMatch(/orders.csv is not valid utf-8 text, and the file has other problems: 3 problems in 3 rows; nothing was sent/);
    const rows = [...err.matchAll(/^ {2}row (\d+), column (\w+): (bytes that are not UTF-8|.*country)/gm)].map((m) => [Number(m[1]), m[2]]);
    expect(rows).toEqual([[3, 'to_name'], [4, 'to_country'], [5, 'to_name']]);
    expect(err).toMatch(/hint: .*--encoding/);
  });
});

describe('ship skus import: every problem of the file in one error', () => {
  it('a quoted value followed by more text is one problem of its row, and the rows after it are checked', async () => {
    const before = await allSkus(env);
    const file = csv(
      'after-quote.csv',
      'sku,product_name,width,country_of_origin\n' + 'OK-1,Fine,10,GB\n' + 'BAD-1,"Mug" large,10,GB\n' + 'BAD-2,Width,ten,GB\n' + 'OK-1,Again,10,GB\n',
    );
    const r = await ship(['skus', 'import', file], { env });
    const err = String(r.stderr);
    expect(r.exitCode, err).toBe(2);
    expect(err).toMatch(/row 3, column product_name: text after the quote/);
    expect(err).toMatch(/row 4, column width/);
    expect(err).toMatch(/row 5, column sku: SKU OK-1 is already on row 2/);
    expect(err).not.toMatch(/cannot be read past/);
    expect(err).toMatch(/nothing was sent/);
    expect(await allSkus(env)).toEqual(before);
  });

  it('rows with bytes that are not UTF-8 among the others, by row, with the --encoding hint; alone, the refusal as before', async () => {
    const before = await allSkus(env);
    const file = csv(
      'mixed.csv',
      Buffer.concat([
        Buffer.from('sku,product_name,width,country_of_origin\nOK-1,Zoë mug,10,GB\n'),
        Buffer.from([...Buffer.from('BAD-1,Zo'), 0xeb, ...Buffer.from(' mug,10,GB\n')]),
        Buffer.from('BAD-2,Width,ten,GB\n'),
      ]),
    );
    const r = await ship(['skus', 'import', file], { env });
    const err = String(r.stderr);
    expect(r.exitCode, err).toBe(2);
    expect(err).toMatch(/mixed.csv is not valid utf-8 text, and the file has other problems: 2 problems in 2 rows; nothing was sent/);
    const rows = [...err.matchAll(/^ {2}row (\d+), column (\w+): /gm)].map((m) => [Number(m[1]), m[2]]);
    expect(rows).toEqual([[3, 'product_name'], [4, 'width']]);
    expect(err).toMatch(/row 3, column product_name: bytes that are not UTF-8/);
    expect(err).toMatch(/hint: .*--encoding/);
    expect(await allSkus(env)).toEqual(before);

    const only = csv('mixed-only.csv', Buffer.concat([Buffer.from('sku,product_name\nOK-1,Zoë mug\n'), Buffer.from([...Buffer.from('BAD-1,Zo'), 0xeb, ...Buffer.from(' mug\n')])]));
    const alone = await ship(['skus', 'import', only], { env });
    const aloneErr = String(alone.stderr);
    expect(alone.exitCode, aloneErr).toBe(2);
    expect(aloneErr).toMatch(/mixed-only.csv is not valid utf-8 text\n {2}row 3, column product_name: bytes that are not UTF-8/);
    expect(aloneErr).not.toMatch(/other problems/);
    expect(aloneErr).toMatch(/hint: .*--encoding/);
  });
});
