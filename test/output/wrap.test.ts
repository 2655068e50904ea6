import { describe, expect, it } from 'vitest';
import { wrapHelpText, wrapMessageLine } from '../../src/output/wrap.js';

describe('wrapHelpText (help at a terminal narrower than the text)', () => {
  const fits = (text: string, columns: number) => {
    for (const l of text.split('\n')) expect(l.length, l).toBeLessThan(columns);
  };

  it('leaves text that fits exactly as it is, line breaks and all', () => {
    const text = 'Exit codes:\n  0    success\n  1    failed\n\nA short paragraph\n  split by its author.\n';
    expect(wrapHelpText(text, 80)).toBe(text);
  });

  it('reflows a paragraph written for a wider terminal between words, keeping its indentation', () => {
    const text =
      '  A header row is required; names match case-insensitively, spaces and hyphens count as underscores.\n' +
      '  UTF-8, or UTF-16 with a byte-order mark; a file that is not UTF-8 is read as Windows-1252 (Excel).\n';
    const out = wrapHelpText(text, 60);
    fits(out, 60);
    for (const l of out.trimEnd().split('\n')) expect(l).toMatch(/^ {2}\S/);
    expect(out.replace(/\s+/g, ' ').trim()).toBe(text.replace(/\s+/g, ' ').trim());
  });

  it('continues a "label   description" row under its description', () => {
    const text = '  SHIP_WEBHOOK_TOKEN  the token `ship webhooks listen` requires of deliveries (instead of --auth-token)\n  NO_COLOR          disable colour\n';
    const out = wrapHelpText(text, 60).split('\n');
    expect(out[0]).toBe('  SHIP_WEBHOOK_TOKEN  the token `ship webhooks listen`');
    expect(out[1]).toBe('                      requires of deliveries (instead of');
    expect(out[2]).toBe('                      --auth-token)');
    expect(out[3]).toBe('  NO_COLOR          disable colour');
  });

  it('continues an example command 4 further in, never inside a quoted argument', () => {
    const text = '  ship create --reference ORDER-1001 --service RM_TRACKED_24 --to-name "Ada Lovelace" --to-line1 "1 High St"\n';
    const out = wrapHelpText(text, 60);
    fits(out, 60);
    const lines = out.trimEnd().split('\n');
    expect(lines[0].startsWith('  ship create')).toBe(true);
    for (const l of lines.slice(1)) expect(l).toMatch(/^ {6}\S/);
    expect(out).toContain('"Ada Lovelace"');
    expect(out).toContain('"1 High St"');
  });
});

describe('ship … --help at an 80-column terminal', () => {
  it('fits every line (but a single word longer than the line) to the terminal, for the root and create', async () => {
    const { main } = await import('../../src/main.js');
    const { bufferIO } = await import('../helpers/run.js');
    for (const args of [['--help'], ['create', '--help'], ['sandbox', '--help']]) {
      const io = { ...bufferIO({ tty: true }), columns: 80 };
      const buf = io as ReturnType<typeof bufferIO>;
      await main(args, { io, env: { NO_COLOR: '1' }, handleSignals: false });
      const text = buf.out();
      expect(text).toContain('Examples:');
      for (const l of text.split('\n')) if (l.length >= 80) expect(l.trim(), `${args.join(' ')}: ${l}`).not.toContain(' ');
    }
  });
});

describe('wrapMessageLine (errors and warnings on a terminal)', () => {
  it('breaks between words at any width, the first line keeping its lead, the others the indent; colour takes no cells', () => {
    const line = '  row 3, column delivery_service_key: "RM_TRAKED_48" is not a delivery service of the account (did you mean RM_TRACKED_48?)';
    const out = wrapMessageLine(line, 40, '    ');
    const lines = out.split('\n');
    for (const l of lines) expect(l.length, l).toBeLessThanOrEqual(40);
    expect(lines[0].startsWith('  row 3,')).toBe(true);
    for (const l of lines.slice(1)) expect(l.startsWith('    ') && !l.startsWith('     ')).toBe(true);
    // Every word whole, the suggested fix among them.
    expect(out.replace(/\n +/g, ' ')).toBe(line);
    expect(out).toContain('RM_TRACKED_48?)');
    const coloured = '\x1b[33mwarning:\x1b[39m ' + 'word '.repeat(12).trim();
    expect(wrapMessageLine(coloured, 30, '  ').split('\n')[0]).toBe('\x1b[33mwarning:\x1b[39m word word word word');
    expect(wrapMessageLine('short', 30, '  ')).toBe('short');
  });
});
