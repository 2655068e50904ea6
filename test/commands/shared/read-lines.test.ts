// Lists of references read from a file (cancel --from, track --from): blank lines and comments skipped.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Ctx } from '../../../src/context.js';
import { readLines } from '../../../src/commands/shared/read-lines.js';

describe('readLines', () => {
  it('skips blank lines and comments, whole-line or trailing; #1005 (a Shopify order name) is a reference', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'ship-lines-')), 'refs.txt');
    writeFileSync(path, '\uFEFF# refunds of Monday\nC4\n  C5  # asked by phone\n\n#1005\nORD 7 #\n#\nA#1\r\n\t# indented comment\n');
    expect(await readLines({} as Ctx, path)).toEqual(['C4', 'C5', '#1005', 'ORD 7', 'A#1']);
  });
});
