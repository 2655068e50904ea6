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

  it('keeps one record per line off a terminal: tabs, line breaks and backslashes in a value are escaped', async () => {
    const io = bufferIO();
    await new Output(io, mode).table([{ k: 'a', v: 'line1\nline2\r\nx\ty\\z' }], [
      { header: 'K', value: (r: { k: string; v: string }) => r.k },
      { header: 'V', value: (r: { k: string; v: string }) => r.v },
    ]);
    expect(io.out()).toBe('a\tline1\\nline2\\nx\\ty\\\\z\n');
  });

  it('key/value lines off a terminal: one line per pair, a multi-line value escaped as in a table', () => {
    const io = bufferIO();
    new Output(io, mode).keyValues([
      ['sku', 'A-1'],
      ['description_full', 'line one\nline two'],
    ]);
    expect(io.out()).toBe('sku\tA-1\ndescription_full\tline one\\nline two\n');
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

describe('Output.table on a narrow terminal', () => {
  it('a table that fits only by cutting a word in two is shown as blocks of "Header  value" lines instead: every word whole', async () => {
    const io = { ...bufferIO({ tty: true }), columns: 60 };
    const ref = 'REF-' + 'X'.repeat(76);
    const path = '/var/lib/ship/labels/' + 'Y'.repeat(70) + '_1.zpl';
    await new Output(io, mode).table([{ ref, path }], [
      { header: 'Shipment', value: (r: { ref: string; path: string }) => r.ref },
      { header: 'Labels', value: (r: { ref: string; path: string }) => r.path },
    ]);
    expect(io.out()).toBe(`Shipment  ${ref}\nLabels    ${path}\n`);
  });

  it('prose wraps between words in its column while the identifiers beside it fit whole', async () => {
    const io = { ...bufferIO({ tty: true }), columns: 50 };
    type R = { ref: string; note: string };
    const ref = 'REF-' + 'Z'.repeat(20);
    await new Output(io, mode).table([{ ref, note: 'Leave with reception please, ring twice, then wait at the gate' }], [
      { header: 'Shipment', value: (r: R) => r.ref },
      { header: 'Note', value: (r: R) => r.note },
    ]);
    const lines = io.out().trimEnd().split('\n');
    for (const l of lines) expect(l.length, l).toBeLessThanOrEqual(50);
    expect(lines.some((l) => l.includes('│'))).toBe(true);
    expect(io.out()).toContain(ref);
    const notes = lines.map((l) => (l.split('│')[2] ?? '').trim()).filter(Boolean);
    expect(notes.length).toBeGreaterThan(1);
    for (const word of ['Leave', 'with', 'reception', 'please,', 'ring', 'twice,', 'gate']) expect(notes.some((n) => n.split(' ').includes(word)), word).toBe(true);
  });
});

describe('Output.table: words kept whole', () => {
  it('a quote table: boxed while every word fits its column, else blocks, never a key or header cut in two', async () => {
    type Q = { key: string; service: string; surcharges: string; date: string };
    const rows: Q[] = [
      { key: 'RM_SPECIAL_1PM', service: 'Special Delivery Guaranteed by 1pm', surcharges: '0.00', date: '2026-11-23 23:59' },
      { key: 'DPD_SATURDAY', service: 'Saturday', surcharges: '2.00', date: '2026-11-23 23:59' },
    ];
    const render = async (width: number) => {
      const io = { ...bufferIO({ tty: true }), columns: width };
      await new Output(io, mode).table(rows, [
        { header: 'Service key', value: (r: Q) => r.key },
        { header: 'Service', value: (r: Q) => r.service },
        { header: 'Surcharges', value: (r: Q) => r.surcharges, align: 'right' },
        { header: 'Estimated delivery', value: (r: Q) => r.date },
      ]);
      return io.out();
    };
    // 64 columns: the service names and the date wrap between words; the table stays boxed.
    const at64 = await render(64);
    for (const l of at64.trimEnd().split('\n')) expect(l.length, l).toBeLessThanOrEqual(64);
    expect(at64).toContain('│');
    for (const word of ['RM_SPECIAL_1PM', 'DPD_SATURDAY', 'Surcharges', 'Guaranteed', '2026-11-23']) expect(at64).toContain(word);
    // 54: only by cutting "Surcharges" or a key: blocks instead, every word whole.
    const at54 = await render(54);
    expect(at54).not.toContain('│');
    expect(at54).toContain('Service key         RM_SPECIAL_1PM\n');
    expect(at54).toContain('Surcharges          2.00\n');
    expect(at54).not.toContain('…');
  });
});

describe('Output.table: wrapping headers or values', () => {
  const tsv = (text: string) => text.trim().split('\n').map((l) => l.split('\t'));
  const render = async (headers: string[], rows: string[][], width: number) => {
    const io = { ...bufferIO({ tty: true }), columns: width };
    await new Output(io, mode).table(rows, headers.map((header, i) => ({ header, value: (r: string[]) => r[i] })));
    return io.out();
  };
  const packaging = tsv(`SMALL_BOX\tSmall Box\t*\t240 × 190 × 90\t250 × 200 × 100\t2000\t500\t120
MEDIUM_BOX\tMedium Box\t\t390 × 290 × 190\t400 × 300 × 200\t10000\t2000\t300
MAILING_BAG\tMailing Bag\t\t320 × 240 × 20\t330 × 250 × 25\t1000\t200\t15`);
  const packagingHeads = ['KEY', 'NAME', 'DEFAULT', 'INTERNAL W×H×D (mm)', 'EXTERNAL W×H×D (mm)', 'MAX WEIGHT (g)', 'DEFAULT WEIGHT (g)', 'PACKAGING WEIGHT (g)'];
  const fields = tsv(`gift_message\tGift message\tSHIPMENT\tTEXT\tDIRECT\t\t\tmax length 100
priority\tPriority\tSHIPMENT\tLIST\tDIRECT\tstandard\t\tone of "standard","express","overnight"
declared_value\tDeclared value\tPARCEL\tNUMERIC\tDIRECT\t\t\tdecimal, >= 0, <= 10000`);
  const fieldHeads = ['KEY', 'NAME', 'ENTITY', 'DATA TYPE', 'SOURCE', 'DEFAULT', 'MAPPED TO', 'RULES'];

  it('wraps long headers over short values rather than the values beside them (`ship packaging` at 120)', async () => {
    const out = await render(packagingHeads, packaging, 120);
    for (const dims of ['390 × 290 × 190', '400 × 300 × 200', '250 × 200 × 100']) expect(out).toContain(dims);
    expect(out.split('\n').every((l) => [...l].length <= 120)).toBe(true);
  });

  it('keeps headers whole when wrapping them spares no value a wrap (`ship custom-fields` at 125)', async () => {
    const out = await render(fieldHeads, fields, 125);
    expect(out).toContain('DATA TYPE');
    expect(out).toContain('MAPPED TO');
    expect(out.split('\n').every((l) => [...l].length <= 125)).toBe(true);
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
  it('keeps columns at least as wide as their longest word while that fits', () => {
    const w = fitColumns([19, 80], 40, [19, 7])!;
    expect(w).toEqual([21, 16]);
  });
  it('wraps headers before values: a long header over short values gives up its width first', () => {
    // `ship packaging` at 120 columns: dimensions (14 cells) under 19-cell headers, weights (3–5 cells) under
    // 14–20-cell headers. The dimensions used to wrap while the weight columns kept their headers' width.
    const natural = [11, 11, 7, 19, 19, 14, 18, 20];
    const words = [11, 11, 7, 8, 8, 6, 7, 9];
    const values = [11, 11, 7, 14, 14, 6, 7, 9];
    const w = fitColumns(natural, 120, words, values)!;
    expect(w.reduce((a, b) => a + b, 0) + natural.length + 1).toBeLessThanOrEqual(120);
    expect(w.slice(3, 5).every((x) => x >= 16)).toBe(true);
    // Without the values' widths, the old behaviour: every wide column shrinks alike, dimensions included.
    expect(fitColumns(natural, 120, words)!.slice(3, 5).some((x) => x < 16)).toBe(true);
  });
  it('never below a column\'s longest word: widths wider than the terminal say the table cannot be shown whole', () => {
    const w = fitColumns([80, 80, 3], 60, [80, 80, 3])!;
    expect(w).toEqual([82, 82, 5]);
    expect(w.reduce((a, b) => a + b, 0) + 4).toBeGreaterThan(60);
  });
});

describe('Output.batchLines', () => {
  it('writes the lines of one event-loop turn to a pipe in one write, in order, and the rest when stopped', async () => {
    const io = bufferIO();
    const writes: string[] = [];
    const write = io.stdout.write.bind(io.stdout);
    io.stdout.write = ((chunk: string, ...rest: never[]) => {
      writes.push(String(chunk));
      return write(chunk, ...rest);
    }) as typeof io.stdout.write;
    const out = new Output(io, mode);
    const stop = out.batchLines();
    out.jsonLine({ n: 1 });
    out.line('two');
    out.jsonLine({ n: 3 });
    expect(writes).toEqual([]);
    await new Promise((r) => setImmediate(r));
    expect(writes).toEqual(['{"n":1}\ntwo\n{"n":3}\n']);
    out.line('four');
    out.write('five\n'); // anything else written to stdout comes after the lines held back
    stop();
    out.line('six');
    expect(io.out()).toBe('{"n":1}\ntwo\n{"n":3}\nfour\nfive\nsix\n');
  });

  it('writes at once when a batch reaches 64 KB', () => {
    const io = bufferIO();
    const out = new Output(io, mode);
    const stop = out.batchLines();
    const long = 'x'.repeat(1000);
    for (let i = 0; i < 70; i++) out.line(long);
    expect(io.out().length).toBeGreaterThanOrEqual(65_536);
    stop();
    expect(io.out()).toBe(`${long}\n`.repeat(70));
  });

  it('leaves a terminal unbatched: every line shows as it is printed', () => {
    const io = bufferIO({ tty: true });
    const out = new Output(io, mode);
    const stop = out.batchLines();
    out.line('now');
    expect(io.out()).toBe('now\n');
    stop();
  });
});

describe('colour and secrets', () => {
  it('colour on for a terminal stderr only: stderr keeps it, stdout (a pipe) gets plain text', () => {
    const io = bufferIO();
    const out = new Output(io, { ...mode, color: true, stdoutColor: false });
    out.line(out.c.bold('ORD-1005') + ' ' + out.c.green('delivered'));
    out.warn(out.c.bold('late'));
    expect(io.out()).toBe('ORD-1005 delivered\n');
    expect(io.err()).toContain('\x1b[');
  });

  it('warnings and traces mask the secrets of the run (a server message may quote them)', () => {
    const io = bufferIO();
    const secrets = new Set(['live-token-abcdef-1234']);
    const out = new Output(io, { ...mode, verbose: true }, secrets);
    out.warn('answer: live-token-abcdef-1234');
    out.debug('← 500 live-token-abcdef-1234');
    expect(io.err()).toBe('warning: answer: ****1234\n← 500 ****1234\n');
  });
});

describe('Output.table on a terminal too narrow for its columns', () => {
  type S = { sku: string; product: string; location: string; weight: number; value: string; origin: string; active: boolean; stock: boolean };
  const skus: S[] = [
    { sku: 'MUG-001', product: 'Ceramic Mug', location: 'WH1 A1-01', weight: 420, value: '8.33', origin: 'GB', active: true, stock: true },
    { sku: 'TEE-BLK-M', product: 'T-shirt Black M', location: 'WH1 B2-04', weight: 200, value: '12.50', origin: 'PT', active: true, stock: false },
  ];
  const cols = [
    { header: '', value: (r: S) => (r.sku === 'MUG-001' ? '★' : '') },
    { header: 'SKU', value: (r: S) => r.sku },
    { header: 'Product', value: (r: S) => r.product },
    { header: 'Location', value: (r: S) => r.location },
    { header: 'Weight g', value: (r: S) => r.weight, align: 'right' as const },
    { header: 'Value', value: (r: S) => r.value, align: 'right' as const },
    { header: 'Origin', value: (r: S) => r.origin },
    { header: 'Active', value: (r: S) => r.active },
    { header: 'In stock', value: (r: S) => r.stock },
  ];

  it('prints one block of "Header  value" lines per row instead of a table wider than the screen', async () => {
    // Nine columns need more than 60 cells even at their narrowest: a box would overflow and every line wrap.
    const io = { ...bufferIO({ tty: true }), columns: 60 };
    await new Output(io, mode).table(skus, cols);
    const text = io.out();
    for (const l of text.trimEnd().split('\n')) expect(l.length, l).toBeLessThanOrEqual(60);
    expect(text).not.toContain('│');
    const blocks = text.trimEnd().split('\n\n');
    expect(blocks).toHaveLength(2);
    expect(blocks[0].split('\n')).toEqual([
      '          ★',
      'SKU       MUG-001',
      'Product   Ceramic Mug',
      'Location  WH1 A1-01',
      'Weight g  420',
      'Value     8.33',
      'Origin    GB',
      'Active    yes',
      'In stock  yes',
    ]);
    // Identifiers whole, never split across lines; the unmarked row has no marker line.
    expect(blocks[1].split('\n')[0]).toBe('SKU       TEE-BLK-M');
    expect(blocks[1]).toContain('Product   T-shirt Black M');
  });

  it('keeps the boxed table when the columns fit', async () => {
    const io = { ...bufferIO({ tty: true }), columns: 100 };
    await new Output(io, mode).table(skus, cols);
    expect(io.out()).toContain('│ MUG-001');
  });
});

describe('Output talk on stderr under --json', () => {
  const json = { ...mode, json: true };
  /** Every line of stderr, each parsed as JSON (a line that is not JSON fails the test). */
  const jsonLines = (text: string) => text.trimEnd().split('\n').map((l) => JSON.parse(l) as unknown);

  it('info, success and warn are one JSON object a line each: {"info"|"warning": {"message"}}', () => {
    const io = bufferIO();
    const out = new Output(io, json);
    out.info('Smoke test against http://127.0.0.1:4010/v1.2');
    out.success('Logged in as Dana Demo');
    out.warn('1 shipment reference was already on the service: "DUP-1"\nsecond line');
    expect(io.out()).toBe('');
    expect(jsonLines(io.err())).toEqual([
      { info: { message: 'Smoke test against http://127.0.0.1:4010/v1.2' } },
      { info: { message: 'Logged in as Dana Demo' } },
      { warning: { message: '1 shipment reference was already on the service: "DUP-1"\nsecond line' } },
    ]);
  });

  it('drops colour from the message, masks secrets in warnings, and --quiet hides info but not warnings', () => {
    const io = bufferIO();
    const out = new Output(io, { ...json, quiet: true, color: true }, ['tok-SECRET-9911']);
    out.info('hidden');
    out.success('hidden too');
    out.warn(`${out.c.yellow('rejected')} token tok-SECRET-9911`);
    expect(jsonLines(io.err())).toEqual([{ warning: { message: 'rejected token ****9911' } }]);
  });

  it('stays text without --json: the tick, the "warning:" prefix, the line as given', () => {
    const io = bufferIO();
    const out = new Output(io, mode);
    out.info('Smoke test against X');
    out.success('Logged in');
    out.warn('careful');
    expect(io.err()).toBe('Smoke test against X\n✓ Logged in\nwarning: careful\n');
  });
});

describe('text from the API on a terminal (inert)', () => {
  const hostile = 'Delivered\x1b]52;c;cm0gLXJmIH4=\x07 to \x1b[2J\x1b[Hporch\rX';

  it('shows control characters and escape sequences as escapes on a terminal, keeping colour, tabs and line breaks', async () => {
    const io = { ...bufferIO({ tty: true }), columns: 200 };
    const out = new Output(io, { ...mode, color: true });
    out.line(`${out.c.green('ok')}\tline1\r\nline2 ${hostile}`);
    const text = (io as ReturnType<typeof bufferIO>).out();
    expect(text).toContain('\x1b[32mok\x1b[39m\tline1\nline2 ');
    expect(text).toContain('Delivered\\x1b]52;c;cm0gLXJmIH4=\\x07 to \\x1b[2J\\x1b[Hporch\\x0dX');
    // Nothing the terminal would obey but the colour codes.
    expect(text.replace(/\x1b\[\d+m/g, '')).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f-\x9f]/);
    await out.table([{ v: hostile }], [{ header: 'Event', value: (r: { v: string }) => r.v }]);
    out.warn(`API says ${hostile}`);
    expect((io as ReturnType<typeof bufferIO>).err()).toContain('\\x1b]52;c;');
    const all = (io as ReturnType<typeof bufferIO>).out() + (io as ReturnType<typeof bufferIO>).err();
    expect(all).not.toContain('\x1b]52');
    expect(all).not.toContain('\x07');
  });

  it('colour sequences in data (table cells, values, error messages, timelines) are shown too: none of them are ours', async () => {
    const io = { ...bufferIO({ tty: true }), columns: 200 };
    const out = new Output(io, { ...mode, color: true });
    const conceal = 'x\x1b[8mHIDDEN';
    await out.table([{ v: conceal }], [{ header: 'Product', value: (r: { v: string }) => r.v }]);
    out.keyValues([['Name', 'a\x1b[31mRED']]);
    const text = (io as ReturnType<typeof bufferIO>).out();
    expect(text).toContain('x\\x1b[8mHIDDEN');
    expect(text).toContain('a\\x1b[31mRED');
    expect(text).not.toContain('\x1b[8m');
    expect(text).not.toContain('\x1b[31mRED');
    // Our own colour stays (the bold header of the key-value lines).
    expect(text).toContain('\x1b[1m');
    const { renderTimeline } = await import('../../src/commands/track/render.js');
    const timeline = renderTimeline(
      { tracking_reference: 'T\x1b[8m1', events: [{ type: 'DELIVERED', date: '2026-11-27 10:00', description: 'left \x1b[8mwith neighbour' }] } as never,
      { color: out.c, tty: true, columns: 200 },
    );
    expect(timeline).toContain('left \\x1b[8mwith neighbour');
    expect(timeline).toContain('T\\x1b[8m1');
    expect(timeline).not.toContain('\x1b[8m');
  });

  it('warnings on a terminal are broken between words to its width (a long one broke mid-word at the edge)', () => {
    const io = { ...bufferIO({ tty: true }), columns: 40 };
    new Output(io, mode).warn('column Inner Barcode, rows 2, 3: "5.01235E+12" is a number a spreadsheet wrote in scientific notation');
    const lines = (io as ReturnType<typeof bufferIO>).err().trimEnd().split('\n');
    expect(lines.length).toBeGreaterThan(2);
    for (const l of lines) expect(l.length, l).toBeLessThanOrEqual(40);
    expect(lines.join(' ').replace(/ +/g, ' ')).toContain('in scientific notation');
  });

  it('a table whose cells hold control characters keeps its borders aligned (escaped before measuring)', async () => {
    const io = { ...bufferIO({ tty: true }), columns: 80 };
    await new Output(io, mode).table([{ name: 'Bell\x07\x07\x07\x07 widget' }, { name: 'Plain widget' }], [{ header: 'Product', value: (r: { name: string }) => r.name }]);
    const lines = (io as ReturnType<typeof bufferIO>).out().trimEnd().split('\n');
    expect(new Set(lines.map((l) => l.length)).size).toBe(1);
    expect(lines.some((l) => l.includes('Bell\\x07'))).toBe(true);
  });

  it('measures wide characters (CJK) in terminal cells: a table they would overflow is shown as blocks, nothing cut', async () => {
    const io = { ...bufferIO({ tty: true }), columns: 40 };
    const word = '商品名称测试用的长单词'.repeat(2); // 22 characters, 44 cells
    await new Output(io, mode).table([{ sku: 'CJK-1', name: word }], [
      { header: 'SKU', value: (r: { sku: string; name: string }) => r.sku },
      { header: 'Name', value: (r: { sku: string; name: string }) => r.name },
    ]);
    const out = (io as ReturnType<typeof bufferIO>).out();
    expect(out).toContain(word);
    expect(out).not.toContain('…');
  });

  it('leaves text to a pipe or file as it is (data)', () => {
    const io = bufferIO();
    new Output(io, mode).line(hostile);
    expect(io.out()).toBe(`${hostile}\n`);
  });
});

describe('talk on a terminal', () => {
  it('success and info lines break between words at the terminal width (a price or a tracking reference is never cut), and not off a terminal', () => {
    const io = { ...bufferIO({ tty: true }), columns: 60 };
    const out = new Output(io, mode);
    out.success('Created shipment INT-2: 1 parcel, DPD DPD_CLASSIC_EU, tracking DPD0000000000123GB, price 3.20');
    out.info('Event TRACKING_UPDATE for RM48000000327GB: IN_TRANSIT, out for delivery in the morning');
    const lines = io.err().split('\n').filter(Boolean);
    for (const l of lines) expect(l.length, l).toBeLessThanOrEqual(60);
    expect(io.err()).toContain('price 3.20');
    expect(io.err()).toContain('RM48000000327GB');
    expect(lines[1].startsWith('  ')).toBe(true);
    // A line giving a command to copy is left to the terminal's own wrapping (copied as one line).
    const cmd = { ...bufferIO({ tty: true }), columns: 60 };
    new Output(cmd, mode).info('Sandbox ready at http://127.0.0.1:4010/v1.2; log in with: ship login --username demo@example.com --password-stdin');
    expect(cmd.err().trim().split('\n')).toHaveLength(1);
    const piped = bufferIO();
    new Output(piped, mode).success('x '.repeat(80).trim());
    expect(piped.err().split('\n').filter(Boolean)).toHaveLength(1);
  });
});
