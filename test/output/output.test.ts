import { describe, expect, it } from 'vitest';
import { Output, fitColumns } from '../../src/output/output.js';
import { bufferIO } from '../helpers/run.js';

const mode = { json: false, quiet: false, verbose: false, color: false, interactive: false };

describe('Output.table', () => {
  const rows = [{ key: 'NEXT-DAY', description: 'A long description of a delivery service that goes on and on and on for quite a while' }];
  const columns = [
    { header: 'Key', value: (r: (typeof rows)[0]) => r.key },
    { header: 'Description', value: (r: (typeof rows)[0]) => r.description },
  ];

  it('prints tab-separated rows without headers when stdout is not a terminal', async () => {
    const io = bufferIO();
    await new Output(io, mode).table(rows, columns);
    expect(io.out()).toBe(`NEXT-DAY\t${rows[0].description}\n`);
  });

  it('prints a boxed table with headers on a terminal, wrapped to the terminal width', async () => {
    const io = { ...bufferIO({ tty: true }), columns: 50 };
    const buf = io as ReturnType<typeof bufferIO>;
    await new Output(io, mode).table(rows, columns);
    const lines = buf.out().trimEnd().split('\n');
    expect(lines.some((l) => l.includes('Key') && l.includes('Description'))).toBe(true);
    for (const l of lines) expect(l.length).toBeLessThanOrEqual(50);
    expect(buf.out().replace(/[│┃|\s]+/g, ' ')).toContain('on and on');
    expect(buf.out()).not.toContain('…');
  });
});

describe('Output.table rows', () => {
  it('has no rule lines between rows when no cell wraps', async () => {
    const io = { ...bufferIO({ tty: true }), columns: 120 };
    const buf = io as ReturnType<typeof bufferIO>;
    const rows = [{ a: 'x' }, { a: 'y' }, { a: 'z' }];
    await new Output(io, mode).table(rows, [{ header: 'A', value: (r) => r.a }]);
    expect(buf.out().trimEnd().split('\n')).toHaveLength(7); // top, header, rule, 3 rows, bottom
  });
});

describe('fitColumns', () => {
  it('leaves natural widths alone when they fit', () => {
    expect(fitColumns([5, 10], 80)).toBeUndefined();
  });
  it('shrinks the widest column first and keeps narrow ones whole', () => {
    const w = fitColumns([8, 100], 60, [8, 12])!;
    expect(w.reduce((a, b) => a + b, 0) + 3).toBeLessThanOrEqual(60);
    expect(w[0]).toBe(10);
  });
  it('never cuts a column below its longest word, even if the table then overflows', () => {
    const w = fitColumns([19, 80], 20, [19, 7])!;
    expect(w).toEqual([21, 9]);
  });
});
