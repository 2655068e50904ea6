// `ship completion bash|zsh|fish` prints a completion script; the hidden `ship __man` prints the man page.
import { Argument, type Command } from 'commander';
import type { Ctx } from '../../context.js';

/** Registers `ship completion` and the hidden man-page generator. */
export function registerCompletion(program: Command, ctx: Ctx): void {
  program
    .command('completion')
    .description('Print a shell completion script')
    .addArgument(new Argument('<shell>', 'the shell').choices(['bash', 'zsh', 'fish']))
    .addHelpText(
      'after',
      `
Examples:
  ship completion bash > ~/.local/share/bash-completion/completions/ship
  ship completion zsh > "\${fpath[1]}/_ship"
  ship completion fish > ~/.config/fish/completions/ship.fish
  ship completion bash --json | jq -r .script     (one JSON document: {"shell", "script"})`,
    )
    .action(async (shell: 'bash' | 'zsh' | 'fish') => {
      const { completionScript } = await import('./run.js');
      const script = completionScript(program, shell);
      // --json keeps its promise here too: one JSON document on stdout.
      if (ctx.mode.json) ctx.out.json({ shell, script });
      else ctx.out.write(script);
    });

  program
    .command('__man', { hidden: true })
    .description('Print the man page (roff)')
    .action(async () => {
      const { manPageText } = await import('./run.js');
      ctx.out.write(manPageText(program));
    });
}
