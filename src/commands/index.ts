// Registers every command. Each module only declares flags and help; its work is imported when it runs.
import type { Command } from 'commander';
import type { Ctx } from '../context.js';
import { registerAuth } from './auth/index.js';
import { registerConfig } from './config/index.js';
import { registerReference } from './reference/index.js';
import { registerCompletion } from './completion/index.js';
import { registerWebhooks } from './webhooks/index.js';
import { registerSmoke } from './smoke/index.js';
import { registerDoctor } from './doctor/index.js';
import { registerSandbox } from './sandbox/index.js';
import { registerContainers } from './containers/index.js';
import { registerSkus } from './skus/index.js';
import { registerCreate } from './create/index.js';
import { registerQuote } from './quote/index.js';
import { registerCancel } from './cancel/index.js';
import { registerTrack } from './track/index.js';
import { registerLabel } from './label/index.js';
import { registerPrint } from './print/index.js';
import { registerInvoice } from './invoice/index.js';

type Register = (program: Command, ctx: Ctx) => void;

/**
 * Each registration with the top-level commands it adds (test/commands/index.test.ts checks the names against
 * what it really adds). `completion` and `__man` walk the whole tree, so they only run in it.
 */
const registrations: ReadonlyArray<readonly [names: readonly string[], register: Register]> = [
  [['create', 'shipments'], registerCreate],
  [['quote'], registerQuote],
  [['cancel'], registerCancel],
  [['track'], registerTrack],
  [['label'], registerLabel],
  [['print'], registerPrint],
  [['invoice'], registerInvoice],
  [['login', 'logout', 'whoami'], registerAuth],
  [['containers'], registerContainers],
  [['skus'], registerSkus],
  [['services', 'locations', 'brands', 'users', 'packaging', 'custom-fields'], registerReference],
  [['config'], registerConfig],
  [['webhooks'], registerWebhooks],
  [['smoke'], registerSmoke],
  [['doctor'], registerDoctor],
  [['sandbox'], registerSandbox],
  [['completion', '__man'], registerCompletion],
];

/** The names that need the whole tree even when named: they walk it. */
const WHOLE_TREE = new Set(['completion', '__man']);

/** The top-level command names, as registered, each with the names registered beside it (exported for tests). */
export const COMMAND_GROUPS: ReadonlyArray<readonly string[]> = registrations.map(([names]) => names);

/**
 * Whether `name` is a top-level command that can run with only its own registration (not `help`, not a
 * command that walks the tree, not an unknown word that needs every name for commander's suggestions).
 */
export function registersAlone(name: string): boolean {
  return !WHOLE_TREE.has(name) && registrations.some(([names]) => names.includes(name));
}

/**
 * Adds the commands to the root program: every one, or (`only`) just the registration that adds that command,
 * or none (`only: null`). Declaring every command's flags and help costs a one-command run ~10 ms (commander
 * builds each Command and Option), so main() asks only for the command it will run.
 */
export function registerCommands(program: Command, ctx: Ctx, only?: string | null): void {
  for (const [names, register] of registrations) {
    if (only === undefined || (only !== null && names.includes(only))) register(program, ctx);
  }
}
