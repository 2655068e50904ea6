// The print ledger of `create --csv --printer` (src/commands/create/print-ledger.ts): what a run owes the printer,
// on disk as it goes.
import { appendFileSync, existsSync, mkdtempSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { owedByLedger, PrintLedger } from '../../../src/commands/create/print-ledger.js';

const dir = () => mkdtempSync(join(tmpdir(), 'ship-ledger-'));

describe('print ledger', () => {
  it('owes what was sent and not paid, whatever the reference holds; a torn last line is ignored', () => {
    const path = join(dir(), 'labels', '.journal.jsonl.printing');
    const ledger = new PrintLedger(path).open();
    for (const ref of ['A-1', 'B "2"', 'C\n3', 'D-4']) ledger.owe(ref);
    ledger.owe('A-1'); // once per run
    ledger.settle('A-1');
    ledger.settle('D-4');
    appendFileSync(path, '+"E-'); // killed while writing
    expect([...owedByLedger(path)]).toEqual(['B "2"', 'C\n3']);
    expect(readFileSync(path, 'utf8').split('\n').filter((l) => l.startsWith('+"A-1"'))).toHaveLength(1);
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });

  it('is left holding what is still owed at the end of a run, or removed when nothing is', () => {
    const path = join(dir(), '.journal.jsonl.printing');
    const ledger = new PrintLedger(path).open();
    ledger.owe('A-1');
    ledger.owe('B-2');
    ledger.finish(['B-2']);
    expect(readFileSync(path, 'utf8')).toBe('+"B-2"\n');
    const next = new PrintLedger(path).open();
    next.settle('B-2');
    next.finish([]);
    expect(existsSync(path)).toBe(false);
    expect(owedByLedger(path)).toEqual(new Set());
  });

  it('is never written through a symbolic link planted at its path: refused before the run sends anything', () => {
    const d = dir();
    const target = join(d, 'victim');
    writeFileSync(target, 'mine\n');
    const path = join(d, '.journal.jsonl.printing');
    symlinkSync(target, path);
    expect(() => new PrintLedger(path).open()).toThrow(/is a symbolic link: the print ledger is never written through one/);
    expect(readFileSync(target, 'utf8')).toBe('mine\n');
  });
});
