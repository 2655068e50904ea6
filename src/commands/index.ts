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

const registrations: Register[] = [
  registerCreate,
  registerQuote,
  registerCancel,
  registerTrack,
  registerLabel,
  registerPrint,
  registerInvoice,
  registerAuth,
  registerContainers,
  registerSkus,
  registerReference,
  registerConfig,
  registerWebhooks,
  registerSmoke,
  registerDoctor,
  registerSandbox,
  registerCompletion,
];

/** Adds every command to the root program. */
export function registerCommands(program: Command, ctx: Ctx): void {
  for (const register of registrations) register(program, ctx);
}
