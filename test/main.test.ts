import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { groupedProblemLines, problemLocation } from '../src/errors.js';
import { systemErrorMessage } from '../src/main.js';
import { runShip } from './helpers/run.js';

describe('problemLocation', () => {
  it('names CSV rows and columns, flags, and JSON fields in the user’s own terms', () => {
    expect(problemLocation({ row: 4, column: 'to_country' })).toBe('row 4, column to_country');
    expect(problemLocation({ row: 4 })).toBe('row 4');
    expect(problemLocation({ column: '--to-postcode' })).toBe('--to-postcode');
    expect(problemLocation({ column: 'parcels.0.weight' })).toBe('field parcels.0.weight');
    expect(problemLocation({})).toBe('');
  });
});

describe('groupedProblemLines', () => {
  it('says the same warning of many rows once, listing five rows and counting the rest; others stay as they are', () => {
    const past = (row: number) => ({ row, column: 'despatch_date', message: '2026-11-20 is in the past' });
    const lines = groupedProblemLines([past(2), { row: 3, column: 'to_line_1', message: 'long' }, past(4), past(5), past(6), past(7), past(8), past(9), { message: 'a note' }, { message: 'a note' }]);
    expect(lines).toEqual([
      'rows 2, 4, 5, 6, 7 and 2 more, column despatch_date: 2026-11-20 is in the past',
      'row 3, column to_line_1: long',
      'a note',
      'a note',
    ]);
    expect(groupedProblemLines([past(2), past(3)])).toEqual(['rows 2, 3, column despatch_date: 2026-11-20 is in the past']);
  });
});

describe('main', () => {
  it('a reference taken by --printer\'s optional value: the usage error says so', async () => {
    const r = await runShip(['label', '--printer', 'TRK123']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('hint: --printer takes an optional value, which took the reference: put the reference before --printer');
  });

  it('`ship help GROUP COMMAND` shows the nested command\'s help', async () => {
    const r = await runShip(['help', 'containers', 'close']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Usage: ship containers close \[options\] <ref>/);
  });

  it('an unknown flag is a usage error (exit 2) with a pointer to --help on stderr and nothing on stdout', async () => {
    const r = await runShip(['--no-such-flag']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/unknown option '--no-such-flag'/);
    expect(r.stderr).toContain('--help');
  });

  it("with --json anywhere on the line, commander's usage errors are the one JSON error line too", async () => {
    for (const [args, message] of [
      [['services', '--bogus', '--json'], "unknown option '--bogus'"],
      [['label', '--json'], "missing required argument 'tracking-ref'"],
      [['--json', 'nosuchcmd'], "unknown command 'nosuchcmd'"],
      [['create', '--format', 'XYZ', '--json'], "option '--format <format>' argument 'XYZ' is invalid. must be ZPL, PDF or PNG."],
    ] as const) {
      const r = await runShip([...args]);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(JSON.parse(r.stderr)).toEqual({ error: { message, exit_code: 2, type: 'UsageError', hint: 'run with --help for usage' } });
    }
    // After `--` it is an argument, not the option.
    expect((await runShip(['services', '--bogus', '--', '--json'])).stderr).toContain("error: unknown option '--bogus'\n(run with --help for usage)");
  });

  it('a file-system error is told in words with the path the user gave, and under --json as the JSON error line', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ship-main-'));
    const csv = join(dir, 'o.csv');
    writeFileSync(csv, 'shipment_reference,to_name,to_line_1,to_city,to_postcode,to_country,weight\nX-1,Ann,1 St,London,E1 1AA,GB,100\n');
    // Nothing is sent: the output directory fails first (and the API address is a closed loopback port).
    const env = { SHIP_API_KEY: 'k', SHIP_TOKEN: 't', SHIP_BASE_URL: 'http://127.0.0.1:1/v1.2', SHIP_CONFIG_DIR: join(dir, 'cfg') };
    const text = await runShip(['create', '--csv', csv, '-o', join(csv, 'labels')], { env });
    expect(text.code).toBe(1);
    expect(text.stderr).toBe(`error: ${join(csv, 'labels')}: a part of the path is not a directory (mkdir)\n`);
    const json = await runShip(['create', '--csv', csv, '-o', join(csv, 'labels'), '--json'], { env });
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stderr)).toEqual({ error: { message: `${join(csv, 'labels')}: a part of the path is not a directory (mkdir)`, exit_code: 1, type: 'Error' } });
    // An input that is a directory is a usage error naming it.
    const input = await runShip(['create', '--csv', dir, '--json'], { env });
    expect(input.code).toBe(2);
    expect(JSON.parse(input.stderr).error.message).toBe(`${dir} is a directory, not a file`);
  });

  it('systemErrorMessage: our temporary file name is told as the file it stands for; other errors are left alone', () => {
    const e = Object.assign(new Error("ENOENT: no such file or directory, open '/proc/nope.zpl.30268.vsn0n3.tmp'"), { code: 'ENOENT', syscall: 'open', path: '/proc/nope.zpl.30268.vsn0n3.tmp' });
    expect(systemErrorMessage(e)).toBe('/proc/nope.zpl: no such file or directory (open)');
    // mkdir of a directory whose name a file has (-o afile/x.zpl): not "already exists", which reads as fine.
    const inWay = Object.assign(new Error("EEXIST: file already exists, mkdir '/tmp/afile'"), { code: 'EEXIST', syscall: 'mkdir', path: '/tmp/afile' });
    expect(systemErrorMessage(inWay)).toBe('/tmp/afile: a file is in the way of that directory (mkdir)');
    expect(systemErrorMessage(new Error('boom'))).toBeUndefined();
    expect(systemErrorMessage(Object.assign(new Error('x'), { code: 'ECONNRESET' }))).toBeUndefined();
  });

  it('a question refused on a terminal names what forbids it (--no-input, CI), not a missing terminal', async () => {
    const env = { SHIP_CONFIG_DIR: mkdtempSync(join(tmpdir(), 'ship-main-')) };
    const ci = await runShip(['login'], { tty: true, env: { ...env, CI: 'true' } });
    expect(ci.code).toBe(2);
    expect(ci.stderr).toMatch(/cannot ask ".*": CI is set, which forbids prompts/);
    const flag = await runShip(['--no-input', 'login'], { tty: true, env });
    expect(flag.stderr).toMatch(/cannot ask ".*": --no-input forbids prompts/);
    const none = await runShip(['login'], { env });
    expect(none.stderr).toMatch(/cannot ask ".*": no terminal to prompt on/);
  });

  it('a missing command or subcommand is a usage error (exit 2, help on stderr); help asked for is a success', async () => {
    for (const args of [[], ['containers'], ['skus'], ['webhooks']]) {
      const r = await runShip(args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(/^Usage: ship/m);
    }
    for (const args of [['help'], ['help', 'containers'], ['containers', '--help'], ['--help']]) {
      const r = await runShip(args);
      expect(r.code, args.join(' ')).toBe(0);
      expect(r.stdout).toMatch(/^Usage: ship/m);
    }
  });

  it('a missing command under --json is one JSON error line on stderr, without the help text', async () => {
    const cases: Array<[string[], string]> = [
      [['--json'], 'missing command: ship takes one of create, shipments, quote'],
      [['containers', '--json'], 'missing command: ship containers takes one of create, show, shipments, label'],
      [['--json', '--profile', 'work', 'skus'], 'missing command: ship skus takes one of import, list, get'],
      [['shipments', '--json'], 'missing command: ship shipments takes one of create'],
    ];
    for (const [args, message] of cases) {
      const r = await runShip(args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stdout).toBe('');
      const lines = r.stderr.trim().split('\n');
      expect(lines, args.join(' ')).toHaveLength(1);
      const { error } = JSON.parse(lines[0]);
      expect(error).toMatchObject({ exit_code: 2, type: 'UsageError', hint: 'run with --help for usage' });
      expect(error.message).toContain(message);
      expect(error.message).not.toContain('help');
      // Nor the hidden internal command (`__man`).
      expect(error.message).not.toContain('__');
      if (args.length === 1) expect(error.message).toMatch(/, completion$/);
    }
    // Help asked for under --json is still help, on stdout.
    const asked = await runShip(['containers', '--help', '--json']);
    expect(asked.code).toBe(0);
    expect(asked.stdout).toMatch(/^Usage: ship containers/m);
  });

  it('--version prints the version alone on stdout', async () => {
    const r = await runShip(['--version']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^\d+\.\d+\.\d+\S*\n$/);
  });

  it('--version --json (either order, after other global options) prints one JSON object', async () => {
    for (const args of [['--version', '--json'], ['--json', '-V'], ['--profile', 'work', '--json', '--version']]) {
      const r = await runShip(args);
      expect(r.code, args.join(' ')).toBe(0);
      const out = JSON.parse(r.stdout);
      expect(out).toEqual({ version: expect.stringMatching(/^\d+\.\d+\.\d+/), api_version: 'v1.2', node: process.version });
      expect(r.stdout.trim().split('\n')).toHaveLength(1);
    }
    // A command's own flags are not the program's: `ship track --json --version` is not a version request.
    const r = await runShip(['track', '--json', '--version']);
    expect(r.stdout).not.toContain('api_version');
  });
});

describe('errors on a terminal', () => {
  it('are wrapped at spaces to the terminal width, later lines indented; off a terminal a line stays whole', async () => {
    const { main } = await import('../src/main.js');
    const { bufferIO } = await import('./helpers/run.js');
    const args = ['create', '--merge', 'm.pdf', '--print', '--reference', 'R1'];
    const env = { NO_COLOR: '1', SHIP_CONFIG_DIR: mkdtempSync(join(tmpdir(), 'ship-wrap-')) };
    const io = Object.assign(bufferIO({ tty: true }), { columns: 50 });
    expect(await main(args, { io, env, handleSignals: false })).toBe(2);
    const lines = io.err().trimEnd().split('\n');
    expect(lines.length).toBeGreaterThan(2);
    expect(lines[0]).toMatch(/^error: --merge joins PDF labels/);
    for (const l of lines) expect(l.length, l).toBeLessThanOrEqual(50);
    for (const l of lines.slice(1)) expect(l, l).toMatch(/^ {2}\S/);
    // The words are all there, in order.
    expect(lines.map((l) => l.trim()).join(' ')).toContain('--merge joins PDF labels, and with --print the desktop printing application picks the label format: give one');
    const piped = bufferIO();
    expect(await main(args, { io: Object.assign(piped, { columns: 50 }), env, handleSignals: false })).toBe(2);
    expect(piped.err()).toMatch(/^error: --merge joins PDF labels, and with --print the desktop printing application picks the label format: give one\n/);
  });
});
