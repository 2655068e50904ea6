// Runs the built binary (bin/ship.js) with execa, under the same Node that runs the tests.
import { execa, type Options, type ResultPromise } from 'execa';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

export const BIN = resolve(import.meta.dirname, '../../bin/ship.js');

/** A fresh, empty config dir so tests never read the developer's own config. */
export function tempConfigDir(): string {
  return mkdtempSync(join(tmpdir(), 'ship-test-'));
}

/** Environment for a binary run: no colour, no CI prompts, isolated config; extra vars win. */
export function binEnv(extra: Record<string, string | undefined> = {}): Record<string, string | undefined> {
  return {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    NO_COLOR: '1',
    CI: 'true',
    SHIP_CONFIG_DIR: extra.SHIP_CONFIG_DIR ?? tempConfigDir(),
    ...extra,
  };
}

/** Runs the built `ship` binary; never rejects, so tests can assert on the exit code. */
export function ship(args: string[], opts: Options & { env?: Record<string, string | undefined> } = {}): ResultPromise {
  return execa(process.execPath, [BIN, ...args], {
    reject: false,
    extendEnv: false,
    stdin: 'ignore',
    timeout: 60_000,
    ...opts,
    env: binEnv(opts.env),
  } as Options) as ResultPromise;
}
