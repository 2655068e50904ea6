// Generates completion scripts and the man page from the live command tree.
import type { Command } from 'commander';
import { describe } from '../../completion/tree.js';
import { bashCompletion, fishCompletion, zshCompletion } from '../../completion/shells.js';
import { manPage } from '../../completion/man.js';
import { ENVIRONMENT_HELP, EXIT_CODES_HELP, VERSION } from '../../program.js';

/** The completion script for one shell. */
export function completionScript(program: Command, shell: 'bash' | 'zsh' | 'fish'): string {
  const tree = describe(program);
  if (shell === 'bash') return bashCompletion(tree);
  if (shell === 'zsh') return zshCompletion(tree);
  return fishCompletion(tree);
}

/** The roff man page. */
export function manPageText(program: Command): string {
  return manPage(describe(program), { version: VERSION, environment: ENVIRONMENT_HELP, exitCodes: EXIT_CODES_HELP });
}
