// The report of orders a preset left out: each order with its reason while there are few; many (a day's export
// holds every order already fulfilled) are counted by reason, each with its first orders, so that thousands of
// lines do not bury the rest; every one is listed when asked (--verbose).
import { describe, expect, it } from 'vitest';
import { excludedLines } from '../../../src/commands/create/bulk.js';
import type { ExcludedShipment } from '../../../src/csv/load.js';

const FULFILLED = 'already fulfilled (Fulfillment Status; --include-fulfilled ships it again)';
const NO_ADDRESS = 'no shipping address';
const order = (n: number, reason: string): ExcludedShipment => ({ reference: `#${1000 + n}`, row: n + 1, rows: [n + 1], reason });

describe('excludedLines', () => {
  it('lists each order with its row and reason, up to 10', () => {
    const ten = Array.from({ length: 10 }, (_, i) => order(i + 1, i % 2 ? FULFILLED : NO_ADDRESS));
    const lines = excludedLines(ten);
    expect(lines).toHaveLength(10);
    expect(lines[0]).toBe(`  #1001 (row 2): ${NO_ADDRESS}`);
    expect(lines[1]).toBe(`  #1002 (row 3): ${FULFILLED}`);
  });

  it('counts more than 10 by reason, in the order reasons first appear, naming the first five of each', () => {
    const many = [order(1, NO_ADDRESS), ...Array.from({ length: 12 }, (_, i) => order(i + 2, FULFILLED)), order(20, 'no line item requires shipping')];
    expect(excludedLines(many)).toEqual([
      `  1 order: ${NO_ADDRESS}: #1001 (row 2)`,
      `  12 orders: ${FULFILLED}: #1002 (row 3), #1003 (row 4), #1004 (row 5), #1005 (row 6), #1006 (row 7) and 7 more`,
      '  1 order: no line item requires shipping: #1020 (row 21)',
      '  (--verbose lists every order; --json gives each as a line with its reason)',
    ]);
  });

  it('lists every order when asked, however many', () => {
    const many = Array.from({ length: 30 }, (_, i) => order(i + 1, FULFILLED));
    const lines = excludedLines(many, true);
    expect(lines).toHaveLength(30);
    expect(lines.at(-1)).toBe(`  #1030 (row 31): ${FULFILLED}`);
  });
});
