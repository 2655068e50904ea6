// Registers every command. Each module only declares flags and help; its work is imported when it runs.
import type { Command } from 'commander';
import type { Ctx } from '../context.js';
import { registerCompletion } from './completion/index.js';

type Register = (program: Command, ctx: Ctx) => void;

const registrations: Register[] = [
  registerCompletion,
];

/** Adds every command to the root program. */
export function registerCommands(program: Command, ctx: Ctx): void {
  for (const register of registrations) register(program, ctx);
}
