// main() declares only the command a run names (registerCommands' `only`): what it declares must be exactly what
// the whole tree has for that command, and the table of names must match what each registration adds.
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { COMMAND_GROUPS, registerCommands, registersAlone } from '../../src/commands/index.js';
import { createContext } from '../../src/context.js';
import { commandToDeclare } from '../../src/main.js';
import { buildProgram } from '../../src/program.js';
import { bufferIO, runShip } from '../helpers/run.js';

const ctx = () => createContext({ io: bufferIO(), env: { NO_COLOR: '1' } });
const names = (c: Command) => c.commands.map((s) => s.name());

/** Every help text of a command and its subcommands, keyed by their path. */
function helps(c: Command, path = c.name()): Record<string, string> {
  const out: Record<string, string> = { [path]: c.helpInformation() };
  for (const sub of c.commands) Object.assign(out, helps(sub, `${path} ${sub.name()}`));
  return out;
}

describe('declaring only the command that runs', () => {
  it('each registration adds exactly the top-level commands the table names, and all of them make the whole tree', () => {
    const whole = names(buildProgram(ctx()));
    for (const group of COMMAND_GROUPS) {
      for (const name of group) {
        const alone = new Command('ship');
        registerCommands(alone, ctx(), name);
        expect(names(alone), name).toEqual(group);
      }
    }
    expect([...whole].sort()).toEqual(COMMAND_GROUPS.flat().sort());
    const none = new Command('ship');
    registerCommands(none, ctx(), null);
    expect(none.commands).toEqual([]);
  });

  it('a command declared alone has the same flags, subcommands and help as in the whole tree', () => {
    const whole = buildProgram(ctx());
    let alone = 0;
    for (const name of COMMAND_GROUPS.flat()) {
      if (!registersAlone(name)) continue;
      alone++;
      const own = buildProgram(ctx(), { only: name }).commands.find((c) => c.name() === name)!;
      expect(helps(own), name).toEqual(helps(whole.commands.find((c) => c.name() === name)!));
    }
    expect(alone).toBeGreaterThan(20);
    // completion and __man walk the whole tree; help and unknown words need every name.
    for (const name of ['completion', '__man', 'help', 'whoamii']) expect(registersAlone(name), name).toBe(false);
  });

  it('main() asks for the command the arguments name (after global options and their values), none for a plain --version', () => {
    expect(commandToDeclare(['whoami', '--json'])).toBe('whoami');
    expect(commandToDeclare(['--profile', 'track', '--base-url', 'http://127.0.0.1:1/v1.2', '--timeout', '5', '-q', 'label', 'T1', '-o', '-'])).toBe('label');
    expect(commandToDeclare(['--json', 'shipments', 'create'])).toBe('shipments');
    expect(commandToDeclare(['track', 'R', '--version'])).toBe('track');
    // Its help is the same declared alone (above).
    expect(commandToDeclare(['whoami', '-h'])).toBe('whoami');
    expect(commandToDeclare(['-V'])).toBeNull();
    expect(commandToDeclare(['--version', '--json'])).toBeNull();
    // The whole tree: help, a word that is no command, nothing, completion, `--`.
    for (const argv of [['--version', '--help'], ['-h', 'whoami'], ['help', 'whoami'], ['whoamii'], [], ['--json'], ['completion', 'bash'], ['--', 'whoami']]) {
      expect(commandToDeclare(argv), argv.join(' ')).toBeUndefined();
    }
  });

  it('runs as before: a command after global options, unknown commands with suggestions, version, help, completion', async () => {
    const env = { SHIP_CONFIG_DIR: '/nonexistent/ship-test' };
    const path = await runShip(['--profile', 'work', '--timeout', '5', 'config', 'path'], { env });
    expect(path.code, path.stderr).toBe(0);
    expect(path.stdout.trim()).toBe('/nonexistent/ship-test/config.json');
    const typo = await runShip(['whoamii']);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain("unknown command 'whoamii'");
    expect(typo.stderr).toContain('whoami');
    const version = await runShip(['--profile', 'x', '-V']);
    expect(version.code).toBe(0);
    expect(version.stdout).toMatch(/^\d+\.\d+\.\d+\S*\n$/);
    const help = await runShip(['whoami', '--help']);
    expect(help.stdout).toMatch(/^Usage: ship whoami/m);
    const completion = await runShip(['completion', 'bash']);
    for (const name of COMMAND_GROUPS.flat().filter((n) => n !== '__man')) expect(completion.stdout, name).toContain(name);
  });
});
