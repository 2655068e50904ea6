import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe as suite, expect, it } from 'vitest';
import { buildProgram } from '../../src/program.js';
import { createContext } from '../../src/context.js';
import { describe, flatten } from '../../src/completion/tree.js';
import { bashCompletion, fishCompletion, zshCompletion } from '../../src/completion/shells.js';
import { manPage, roff } from '../../src/completion/man.js';
import { bufferIO } from '../helpers/run.js';

function tree() {
  const ctx = createContext({ io: bufferIO(), env: { NO_COLOR: '1' } });
  return describe(buildProgram(ctx));
}

function has(cmd: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${cmd}`]).status === 0;
}

/** Asks the generated bash script what it completes for the words typed so far. */
function bashComplete(script: string, words: string[]): string[] {
  const dir = mkdtempSync(join(tmpdir(), 'ship-compl-'));
  const file = join(dir, 'ship.bash');
  writeFileSync(file, script);
  const quoted = words.map((w) => `'${w}'`).join(' ');
  const out = execFileSync(
    'bash',
    ['-c', `source ${file}; COMP_WORDS=(${quoted}); COMP_CWORD=${words.length - 1}; _ship; printf '%s\\n' "\${COMPREPLY[@]}"`],
    { encoding: 'utf8', cwd: dir },
  );
  return out.split('\n').filter(Boolean);
}

suite('command tree', () => {
  it('every visible command has at least one example in its --help (contract: Install and run)', () => {
    const missing = flatten(tree())
      .filter((c) => c.examples.length === 0)
      .map((c) => `ship ${c.path.join(' ')}`.trim());
    expect(missing).toEqual([]);
  });
});

suite('bash completion', () => {
  const script = bashCompletion(tree());

  it('is valid bash', () => {
    execFileSync('bash', ['-n'], { input: script });
  });

  it('completes top-level commands, subcommands, options and option choices', () => {
    expect(bashComplete(script, ['ship', 'comp'])).toEqual(['completion']);
    expect(bashComplete(script, ['ship', '--js'])).toEqual(['--json']);
    expect(bashComplete(script, ['ship', 'completion', '--verb'])).toEqual(['--verbose']);
    // -h/--help, which commander keeps apart from the options, on every command.
    expect(bashComplete(script, ['ship', 'create', '--he'])).toEqual(['--help']);
    const top = bashComplete(script, ['ship', '']);
    expect(top).toContain('completion');
    for (const c of tree().subcommands) expect(top).toContain(c.name);
  });

  it('completes nested subcommands after their parent, skipping option values', () => {
    const t = tree();
    const group = t.subcommands.find((c) => c.name === 'containers');
    if (!group) throw new Error('expected the `containers` command group');
    expect(group.subcommands.length).toBeGreaterThan(1);
    const got = bashComplete(script, ['ship', '--profile', 'x', group.name, '']);
    expect(got.sort()).toEqual(group.subcommands.flatMap((s) => [s.name, ...s.aliases]).sort());
  });
});

suite('positional arguments', () => {
  const script = bashCompletion(tree());
  const events = ['SHIPMENT_CREATED', 'SHIPMENT_CANCELLED', 'TRACKING_UPDATED', 'TRACKING_COLLECTED', 'TRACKING_IN_TRANSIT', 'TRACKING_OUT_FOR_DELIVERY', 'TRACKING_DELIVERED', 'TRACKING_DELIVERY_FAILED'];

  it('the tree knows each command\'s arguments, with the values to offer', () => {
    const find = (path: string) => flatten(tree()).find((c) => c.path.join(' ') === path)!;
    expect(find('config set').args.map((a) => [a.name, a.choices?.includes('label_format') ?? false])).toEqual([['key', true], ['value', false]]);
    expect(find('webhooks trigger').args[0].choices).toEqual(events);
    expect(find('skus import').args[0]).toMatchObject({ name: 'file', path: true });
    expect(find('track').args[0]).toMatchObject({ variadic: true, path: false });
  });

  it('bash offers the values of the argument at the cursor: config keys, event kinds, shells; files for a FILE', () => {
    expect(bashComplete(script, ['ship', 'config', 'set', 'label'])).toEqual(['label_format']);
    // A named printer's key starts with printers. (the name is the user's own).
    expect(bashComplete(script, ['ship', 'config', 'set', 'printers'])).toEqual(['printers.']);
    expect(bashComplete(script, ['ship', 'config', 'unset', 't']).sort()).toEqual(['test_base_url', 'timeout', 'token']);
    // The value after the key is not a key again.
    expect(bashComplete(script, ['ship', 'config', 'set', 'timeout', 'ti'])).toEqual([]);
    // An option's value is not counted as the argument.
    expect(bashComplete(script, ['ship', 'webhooks', 'trigger', '--to', 'http://x', 'TRACKING_D']).sort()).toEqual(['TRACKING_DELIVERED', 'TRACKING_DELIVERY_FAILED']);
    expect(bashComplete(script, ['ship', 'completion', 'z'])).toEqual(['zsh']);
  });

  it.runIf(has('zsh'))('zsh offers them too (its completion functions stubbed: compadd, _files, _describe)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ship-zsh-'));
    writeFileSync(join(dir, '_ship'), zshCompletion(tree()));
    const complete = (...words: string[]) =>
      execFileSync('zsh', ['-c', `compdef() {}; source ./_ship; compadd() { shift; print -l -- "$@" }; _files() { print FILES }; _describe() { print -l -- \${(P)2} }; words=(${words.map((w) => `'${w}'`).join(' ')}); CURRENT=${words.length}; _ship`], { encoding: 'utf8', cwd: dir })
        .split('\n')
        .filter(Boolean);
    expect(complete('ship', 'config', 'set', '')).toContain('label_format');
    expect(complete('ship', 'config', 'set', 'timeout', '')).toEqual(['FILES']);
    expect(complete('ship', 'webhooks', 'trigger', '--to', 'http://x', '')).toEqual(events);
    expect(complete('ship', 'skus', 'import', '')).toEqual(['FILES']);
  });

  it.runIf(has('fish'))('fish offers them too, and file names where a FILE is expected (its -f hides them elsewhere)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ship-fish-'));
    writeFileSync(join(dir, 'ship.fish'), fishCompletion(tree()));
    writeFileSync(join(dir, 'skus.csv'), '');
    const complete = (line: string) =>
      execFileSync('fish', ['-c', `source ship.fish; complete -C ${JSON.stringify(line)}`], { encoding: 'utf8', cwd: dir })
        .split('\n')
        .filter(Boolean)
        .map((l) => l.split('\t')[0]);
    expect(complete('ship config set label')).toEqual(['label_format']);
    expect(complete('ship config set timeout ')).toEqual([]);
    expect(complete('ship webhooks trigger --to http://x TRACKING_D')).toEqual(['TRACKING_DELIVERED', 'TRACKING_DELIVERY_FAILED']);
    expect(complete('ship skus import ')).toContain('skus.csv');
    expect(complete('ship track ')).toEqual([]);
    expect(complete('ship --profile x containers cl')).toEqual(['close']);
  });
});

suite('--printer completion', () => {
  // A stand-in `ship` on PATH answering `ship config list --quiet` as a profile with two named printers does.
  function withStubShip(): { dir: string; env: NodeJS.ProcessEnv } {
    const dir = mkdtempSync(join(tmpdir(), 'ship-printers-'));
    mkdirSync(join(dir, 'bin'));
    // (`--profile work`: that profile's one printer, w1.)
    writeFileSync(
      join(dir, 'bin', 'ship'),
      '#!/bin/sh\n[ "$1 $2 $3" = "config list --quiet" ] && printf "base_url\\nprinter\\nprinters.dock3\\nprinters.dock-4\\n"\n[ "$1 $2 $3 $4 $5" = "--profile work config list --quiet" ] && printf "printers.w1\\n"\nexit 0\n',
      { mode: 0o755 },
    );
    writeFileSync(join(dir, 'orders.csv'), '');
    return { dir, env: { ...process.env, PATH: `${join(dir, 'bin')}:${process.env.PATH}` } };
  }

  it('bash offers the profile\'s printer names, not file names', () => {
    const { dir, env } = withStubShip();
    writeFileSync(join(dir, 'ship.bash'), bashCompletion(tree()));
    const complete = (...words: string[]) =>
      execFileSync('bash', ['-c', `source ship.bash; COMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}; _ship; printf '%s\\n' "\${COMPREPLY[@]}"`], { encoding: 'utf8', cwd: dir, env })
        .split('\n')
        .filter(Boolean);
    expect(complete('ship', 'create', '--csv', 'orders.csv', '--printer', '')).toEqual(['dock3', 'dock-4']);
    expect(complete('ship', 'print', 'REF', '--printer', 'dock-')).toEqual(['dock-4']);
    expect(complete('ship', '--profile', 'work', 'label', 'X', '--printer', '')).toEqual(['w1']);
  });

  it.runIf(has('zsh'))('zsh offers them too', () => {
    const { dir, env } = withStubShip();
    writeFileSync(join(dir, '_ship'), zshCompletion(tree()));
    const complete = (...words: string[]) =>
      execFileSync('zsh', ['-c', `compdef() {}; source ./_ship; compadd() { shift; print -l -- "$@" }; _files() { print FILES }; words=(${words.map((w) => `'${w}'`).join(' ')}); CURRENT=${words.length}; _ship`], { encoding: 'utf8', cwd: dir, env })
        .split('\n')
        .filter(Boolean);
    expect(complete('ship', 'label', 'X', '--printer', '')).toEqual(['dock3', 'dock-4']);
    expect(complete('ship', '--profile', 'work', 'label', 'X', '--printer', '')).toEqual(['w1']);
  });

  it.runIf(has('fish'))('fish offers them too; and no file names for a value that is not a path (choices, free text)', () => {
    const { dir, env } = withStubShip();
    writeFileSync(join(dir, 'ship.fish'), fishCompletion(tree()));
    const complete = (line: string) =>
      execFileSync('fish', ['-c', `source ship.fish; complete -C ${JSON.stringify(line)}`], { encoding: 'utf8', cwd: dir, env })
        .split('\n')
        .filter(Boolean)
        .map((l) => l.split('\t')[0]);
    expect(complete('ship create --printer ')).toEqual(['dock3', 'dock-4']);
    expect(complete('ship create --format ').sort()).toEqual(['PDF', 'PNG', 'ZPL']);
    expect(complete('ship create --to-name ')).toEqual([]);
    expect(complete('ship create --csv ')).toContain('orders.csv');
    expect(complete('ship skus create --file ')).toContain('orders.csv');
    expect(complete('ship --profile work create --printer ')).toEqual(['w1']);
    // Without a `ship` on PATH (run through npx, an alias): nothing offered, and no error printed at each Tab.
    const bare = spawnSync('fish', ['-c', 'source ship.fish; complete -C "ship create --printer "'], { encoding: 'utf8', cwd: dir, env: { ...process.env, PATH: '/usr/bin:/bin' } });
    expect([bare.stdout, bare.stderr]).toEqual(['', '']);
  });
});

suite('zsh and fish completion', () => {
  it.runIf(has('zsh'))('zsh script parses', () => {
    execFileSync('zsh', ['-n'], { input: zshCompletion(tree()) });
  });
  it.runIf(has('fish'))('fish script parses', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ship-fish-'));
    writeFileSync(join(dir, 'ship.fish'), fishCompletion(tree()));
    execFileSync('fish', ['-n', join(dir, 'ship.fish')]);
  });
  it('both list every top-level command', () => {
    const z = zshCompletion(tree());
    const f = fishCompletion(tree());
    for (const c of tree().subcommands) {
      expect(z).toContain(`'${c.name}:`);
      expect(f).toContain(`-a '${c.name}'`);
    }
  });
});

suite('man page', () => {
  const page = manPage(tree(), { version: '1.2.3', environment: 'Environment:\n  SHIP_X  an var', exitCodes: 'Exit codes:\n  0  ok\n  5  not found' });

  it('has the sections of a man page and every command and option', () => {
    for (const s of ['.SH NAME', '.SH SYNOPSIS', '.SH GLOBAL OPTIONS', '.SH COMMANDS', '.SH ENVIRONMENT', '.SH EXIT STATUS', '.SH EXAMPLES']) {
      expect(page).toContain(s);
    }
    for (const c of flatten(tree()).filter((c) => c.path.length)) {
      expect(page).toContain(`.SS "ship ${roff(c.path.join(' '))}`);
      for (const o of c.options) expect(page).toContain(roff(o.flags));
    }
    expect(page).toContain('SHIP_X');
  });

  it('is the full reference: each command\'s notes (CSV columns, JSON shapes…), option defaults, runnable groups in SYNOPSIS', () => {
    expect(page).toContain(roff('CSV files (--csv FILE):'));
    expect(page).toContain(`${roff('with --csv: requests in flight at once')}. Default: 8.`);
    expect(page).toMatch(/\.B ship custom\\-fields\n/);
  });

  it.runIf(has('man'))('renders with man without warnings', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ship-man-'));
    writeFileSync(join(dir, 'ship.1'), page);
    const r = spawnSync('man', ['--warnings', '-l', join(dir, 'ship.1')], { encoding: 'utf8', env: { ...process.env, MANPAGER: 'cat', MANWIDTH: '80' } });
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/NAME\s+ship/);
    expect(r.stderr).toBe('');
  });
});

suite('ship completion', () => {
  it('prints the script, or with --json one JSON document holding it (the contract: every command takes --json)', async () => {
    const { runShip } = await import('../helpers/run.js');
    const plain = await runShip(['completion', 'bash']);
    expect(plain.code).toBe(0);
    expect(plain.stdout).toContain('_ship');
    const json = await runShip(['completion', 'bash', '--json']);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual({ shell: 'bash', script: plain.stdout });
  });
});
