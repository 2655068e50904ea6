import { describe, expect, it } from 'vitest';
import { problemLocation } from '../src/errors.js';
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

describe('main', () => {
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
      [['track', '--json'], "missing required argument 'refs'"],
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
