// Runs one invocation of `ship`: builds the program, runs it, and turns any error into a message and an exit code.
// This is the only place that decides exit codes and prints errors.
import { type Command, CommanderError } from 'commander';
import { createContext, type Ctx } from './context.js';
import { AuthError, ExitCode, exitCodeOf, InputError, Interrupted, REJECTED_CREDENTIALS_HINT, ShipError, ValidationError, ApiError, problemLocation } from './errors.js';
import { processIO, type IO } from './output/io.js';
import { redact } from './output/redact.js';
import { buildProgram, USAGE_HINT, VERSION } from './program.js';
import { registersAlone } from './commands/index.js';
import { inertData } from './output/inert.js';

export interface MainOptions {
  io?: IO;
  env?: Record<string, string | undefined>;
  /** Installs SIGINT/SIGTERM handlers (off in in-process tests). */
  handleSignals?: boolean;
  /** Called with the context once it exists (tests use this to pre-set a clock or inspect state). */
  ctx?: Ctx;
}

/** Runs `ship` with the given arguments (without node and script) and resolves to the exit code. */
export async function main(argv: string[], opts: MainOptions = {}): Promise<number> {
  const io = opts.io ?? processIO();
  const env = opts.env ?? process.env;
  const abort = new AbortController();
  const ctx = opts.ctx ?? createContext({ io, env, signal: abort.signal });
  // `ship help containers close`: commander's help command looks one level deep only.
  if (argv[0] === 'help' && argv.length > 2 && !argv.slice(1).some((a) => a.startsWith('-'))) argv = [...argv.slice(1), '--help'];
  const handleSignals = opts.handleSignals ?? !opts.io;

  let interrupts = 0;
  let signals = 0;
  // What first stopped the command from outside, and its exit code: Ctrl-C 130, SIGTERM 143, a closed stdout
  // 141, stdout failing otherwise (a full disk) 1. The first signal after a closed stdout takes its place.
  let stop: { signal?: NodeJS.Signals; exitCode: number } | undefined;
  /** Stops a command that holds interrupts (a bulk run) cleanly: requests in flight finish, the journal is written. */
  const stopHeld = (text: string, signal?: NodeJS.Signals) => {
    // On a terminal the line under the cursor is the progress line (with the ^C the terminal echoed): cleared,
    // not left behind with stale counts; the progress line goes on below the message until the summary.
    // Under --json stderr is JSON lines (Output.info writes this one so); a command under way has its mode.
    if (ctx.interruptsQuiet) {
      // The command says how it stopped itself (track --watch redraws its screen).
    } else if (ctx.mode.json) ctx.out.info(text);
    else io.stderr.write(`${io.stderrIsTTY ? '\r\x1b[K' : '\n'}${text}\n`);
    abort.abort(new Interrupted(undefined, signal));
  };
  const onSignal = (sig: NodeJS.Signals) => {
    signals++;
    // The first signal after a closed stdout's stop is that same stop, the user's: Ctrl-C to the whole pipeline
    // kills the reader too, and ship may meet the closed pipe before it handles the signal. It takes the stop's
    // exit code (130, 143) and finishing the requests goes on; only a second signal aborts. (After stdout failed
    // otherwise, a full disk, a signal is a second stop, as ever.)
    const samePipelineStop = signals === 1 && stop?.signal === 'SIGPIPE';
    if (!samePipelineStop) interrupts++;
    if (stop === undefined || samePipelineStop) stop = { signal: sig, exitCode: sig === 'SIGTERM' ? ExitCode.Terminated : ExitCode.Interrupted };
    const stopping = stop;
    if (interrupts === 1 && ctx.interruptHolders > 0) {
      stopHeld(sig === 'SIGINT' ? 'Interrupted: finishing requests in flight (Ctrl-C again to abort)…' : `Stopping (${sig}): finishing requests in flight (a second signal aborts)…`, sig);
      return;
    }
    // A spinner's line would otherwise stay on the terminal after the process is gone.
    ctx.out.wait.close();
    if (interrupts > 1 && ctx.interruptHolders > 0 && !ctx.interruptsQuiet) {
      // A second signal while a bulk run was finishing its requests: what happens to them is settled next time.
      const text = 'aborted: the requests in flight were not waited for; rerun the same command to continue (it finds out first what they did)';
      if (ctx.mode.json) io.stderr.write(`${JSON.stringify({ error: { message: text, exit_code: stopping.exitCode, type: 'Interrupted' } })}\n`);
      else io.stderr.write(`${io.stderrIsTTY ? '\r\x1b[K' : ''}${text}\n`);
    } else if (interrupts === 1 && !ctx.interruptsQuiet && stopping.signal !== undefined && stopping.signal !== 'SIGPIPE') {
      // A command stopped at once (nothing of it to finish): a script's log says why it ended, under --json as
      // its one error line; a person at a terminal saw the ^C (a SIGTERM from elsewhere is said there too).
      const text = stopping.signal === 'SIGINT' ? 'interrupted' : `stopped (${stopping.signal})`;
      if (ctx.mode.json) io.stderr.write(`${JSON.stringify({ error: { message: text, exit_code: stopping.exitCode, type: 'Interrupted' } })}\n`);
      else if (!io.stderrIsTTY || stopping.signal !== 'SIGINT') io.stderr.write(`${text}\n`);
    }
    process.exit(stopping.exitCode);
  };
  if (handleSignals) {
    let stdoutFailed = false;
    process.stdout.on('error', (e: NodeJS.ErrnoException) => {
      // Later writes of the same broken stream fail too: the first failure decides.
      if (stdoutFailed) return;
      stdoutFailed = true;
      const closed = e.code === 'EPIPE';
      if (ctx.interruptHolders > 0) {
        // Already stopping (Ctrl-C reached the whole pipeline, the reader died with it): that stop goes on.
        if (interrupts > 0) return;
        // A bulk run whose reader went away (`| head`) or whose output file filled up: stopped as Ctrl-C stops
        // it, not cut off with requests in flight, so its summary says where it got and a rerun continues.
        interrupts++;
        stop = closed ? { signal: 'SIGPIPE', exitCode: ExitCode.BrokenPipe } : { exitCode: ExitCode.Failure };
        stopHeld(`Stopping: ${closed ? 'stdout was closed (its reader went away)' : `stdout cannot be written (${e.message})`}; finishing requests in flight…`);
        return;
      }
      // `ship services | head -1` closes the pipe early: the reader had what it wanted, not an error.
      if (closed) process.exit(process.exitCode ?? 0);
      const message = `could not write to stdout: ${e.message}`;
      io.stderr.write(ctx.mode.json ? `${JSON.stringify({ error: { message, exit_code: ExitCode.Failure, type: 'Error' } })}\n` : `error: ${message}\n`);
      process.exit(ExitCode.Failure);
    });
    // Nothing can be said once stderr is gone: the exit code says it.
    process.stderr.on('error', (e: NodeJS.ErrnoException) => process.exit(e.code === 'EPIPE' ? (process.exitCode ?? 0) : ExitCode.Failure));
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  }

  // `ship --version --json`: commander prints the version as text before it has read --json.
  if (asksVersionAsJson(argv)) {
    io.stdout.write(`${JSON.stringify({ version: VERSION, api_version: 'v1.2', node: process.version })}\n`);
    return ExitCode.Ok;
  }

  const jsonErrors = asksJson(argv);
  const program = buildProgram(ctx, { jsonErrors, only: commandToDeclare(argv) });

  try {
    await program.parseAsync(argv, { from: 'user' });
    // The command did all it had to, but its stdout was closed or failed on the way (a bulk run's last lines
    // lost): not a success for whoever reads them.
    return stop !== undefined && stop.signal !== 'SIGINT' && stop.signal !== 'SIGTERM' ? stop.exitCode : ExitCode.Ok;
  } catch (err) {
    if (err instanceof CommanderError) {
      if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version') return ExitCode.Ok;
      // Help asked for (`ship help`, `ship help skus`) is a success; help shown because the command is missing
      // (`ship`, `ship containers`: commander's exit code 1) is a usage error, so `ship containers "$SUB"` with an
      // empty $SUB does not pass for success in a script.
      if (err.code === 'commander.help') {
        if (err.exitCode === 0) return ExitCode.Ok;
        // Under --json the help text was held back (buildProgram): the script gets the one JSON error line.
        if (jsonErrors) {
          const error = { message: missingCommandMessage(program, argv), exit_code: ExitCode.Usage, type: 'UsageError', hint: USAGE_HINT };
          io.stderr.write(`${JSON.stringify({ error })}\n`);
        }
        return ExitCode.Usage;
      }
      if (err.code === 'commander.executeSubCommandAsync') return err.exitCode;
      // `ship label --printer TRK123`: --printer's optional value took the reference.
      const printerAte = err.code === 'commander.missingArgument' && printerTookArgument(argv);
      const hint = printerAte ? '--printer takes an optional value, which took the reference: put the reference before --printer' : USAGE_HINT;
      // Written as text by commander unless --json is on the command line (buildProgram's jsonErrors).
      if (jsonErrors) {
        const message = err.message.replace(/^error: /, '');
        io.stderr.write(`${JSON.stringify({ error: { message, exit_code: ExitCode.Usage, type: 'UsageError', hint } })}\n`);
      } else if (printerAte) io.stderr.write(`hint: ${hint}\n`);
      return ExitCode.Usage;
    }
    // A command stopped by SIGTERM or a broken stdout says so in its exit code (143, 141, 1), whichever part of
    // it noticed the stop.
    const stopped =
      err instanceof Interrupted && stop !== undefined && err.exitCode !== stop.exitCode && err.signal !== 'SIGINT'
        ? new Interrupted(err.message, stop.signal, { hint: err.hint, exitCode: stop.exitCode })
        : err;
    await reportError(ctx, stopped);
    return exitCodeOf(stopped);
  } finally {
    // No spinner outlives the command (its timer would keep the process alive).
    ctx.out.wait.close();
    if (handleSignals) {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    }
  }
}

/** Whether `--printer` is followed by a word (not an option), which commander gave it as its value. */
function printerTookArgument(argv: readonly string[]): boolean {
  const i = argv.indexOf('--printer');
  return i >= 0 && i + 1 < argv.length && !argv[i + 1].startsWith('-');
}

/**
 * What of the command tree this run needs (see registerCommands): the one top-level command it names, nothing
 * for a plain `ship --version`, else (help, an unknown or missing command) the whole tree.
 */
export function commandToDeclare(argv: readonly string[]): string | null | undefined {
  let versionAsked = false;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--') return undefined;
    if (a === '-h' || a === '--help') return undefined;
    if (a === '-V' || a === '--version') versionAsked = true;
    if (a.startsWith('-')) {
      if (VALUE_OPTIONS.has(a)) i++;
      continue;
    }
    return registersAlone(a) ? a : undefined;
  }
  return versionAsked ? null : undefined;
}

/** `missing command: ship containers takes one of create, show, …` for the group that argv stops at. */
function missingCommandMessage(program: Command, argv: readonly string[]): string {
  let group = program;
  const path = ['ship'];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--') break;
    if (a.startsWith('-')) {
      if (VALUE_OPTIONS.has(a)) i++;
      continue;
    }
    const sub = group.commands.find((c) => c.name() === a || c.aliases().includes(a));
    if (!sub) break;
    group = sub;
    path.push(sub.name());
  }
  // (Not the internal ones: `__man`, hidden from the help, generates the man page.)
  const names = group.commands.map((c) => c.name()).filter((n) => n !== 'help' && !n.startsWith('__'));
  return `missing command: ${path.join(' ')} takes one of ${names.join(', ')}`;
}

/** Global options that take a value (their value is not a command name). */
const VALUE_OPTIONS = new Set(['--profile', '--base-url', '--timeout']);

/** True when --json is on the command line (before any `--`): wherever it is, it is the global option. */
function asksJson(argv: readonly string[]): boolean {
  for (const a of argv) {
    if (a === '--') return false;
    // (--ndjson, skus list's, is machine output too.)
    if (a === '--json' || a === '--ndjson') return true;
  }
  return false;
}

/** True for `ship [global options] --version … --json` (either order), before any command. */
function asksVersionAsJson(argv: readonly string[]): boolean {
  let version = false;
  let json = false;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--') break;
    if (!a.startsWith('-')) break; // a command: its own --version/--json are not the program's
    if (a === '--version' || a === '-V') version = true;
    else if (a === '--json') json = true;
    else if (VALUE_OPTIONS.has(a)) i++;
  }
  return version && json;
}

/** Prints an error to stderr: message, API field messages or input problems, and a hint. Secrets redacted. */
export async function reportError(ctx: Ctx, err: unknown): Promise<void> {
  const secrets = await knownSecrets(ctx);
  if (err instanceof AuthError && err.hint === REJECTED_CREDENTIALS_HINT) err.hint = (await rejectedFromEnv(ctx, err.http?.apiMessage)) ?? err.hint;
  const { stderr, stderrIsTTY } = ctx.io;
  // Secrets masked; on a terminal, control characters an API message carries shown, not obeyed (see inert).
  const clean = (s: string) => (stderrIsTTY ? inertData(redact(s, secrets)) : redact(s, secrets));
  let mode;
  try {
    mode = ctx.mode;
  } catch {
    mode = undefined;
  }
  const c = ctx.out.c;

  if (err instanceof Interrupted) {
    // A script reading stderr as JSON lines under --json gets this one as JSON too.
    if (mode?.json) stderr.write(clean(JSON.stringify({ error: { message: err.message, exit_code: err.exitCode, type: err.name } })) + '\n');
    else stderr.write(`${clean(err.message)}\n`);
    return;
  }
  if (!(err instanceof ShipError)) {
    const e = err instanceof Error ? err : new Error(String(err));
    const message = systemErrorMessage(e) ?? e.message;
    if (mode?.json) {
      stderr.write(clean(JSON.stringify({ error: { message, exit_code: exitCodeOf(err), type: e.name || 'Error' } })) + '\n');
    } else stderr.write(`${c.red('error:')} ${clean(message)}\n`);
    if (mode?.verbose && e.stack) stderr.write(clean(e.stack) + '\n');
    return;
  }

  if (mode?.json) {
    const body: Record<string, unknown> = { message: err.message, exit_code: err.exitCode, type: err.name };
    if (err instanceof ApiError && err.http.status) body.status = err.http.status;
    if (err instanceof ValidationError) body.fields = err.fields;
    if (err instanceof ValidationError && err.located?.length) body.problems = err.located;
    if (err instanceof InputError) body.problems = err.problems;
    if (err.hint) body.hint = err.hint;
    stderr.write(clean(JSON.stringify({ error: body })) + '\n');
    return;
  }

  const wrap = await wrapperFor(ctx);
  stderr.write(wrap(`${c.red('error:')} ${clean(err.message)}`, '  ') + '\n');
  if (err instanceof ValidationError && !err.located?.length) {
    for (const [field, messages] of Object.entries(err.fields)) {
      for (const m of messages) stderr.write(wrap(`  ${c.bold(clean(field))}: ${clean(m)}`, '    ') + '\n');
    }
  }
  const problems = err instanceof InputError ? err.problems : err instanceof ValidationError ? (err.located ?? []) : [];
  for (const p of problems) {
    const where = problemLocation(p);
    stderr.write(wrap(`  ${where ? c.bold(clean(where)) + ': ' : ''}${clean(p.message)}`, '    ') + '\n');
  }
  if (err.hint) stderr.write(wrap(`${c.dim('hint:')} ${clean(err.hint)}`, '  ') + '\n');
  if (mode?.verbose && err.cause instanceof Error) stderr.write(c.dim(`cause: ${clean(err.cause.message)}`) + '\n');
}

/**
 * On a terminal, a line of an error wrapped at spaces to the terminal's width, later lines indented (a long
 * hint broke mid-word at the edge); off a terminal, as it is (a log or a script reads whole lines).
 */
async function wrapperFor(ctx: Ctx): Promise<(line: string, indent: string) => string> {
  const width = ctx.io.stderrIsTTY ? ctx.io.columns : undefined;
  if (!width) return (line) => line;
  const { wrapMessageLine } = await import('./output/wrap.js');
  return (line, indent) => wrapMessageLine(line, width, indent);
}

/** Plain words for the file-system errors a path given by the user can cause. */
const SYSTEM_ERRORS: Record<string, string> = {
  ENOENT: 'no such file or directory',
  EISDIR: 'is a directory',
  ENOTDIR: 'a part of the path is not a directory',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  ENOSPC: 'no space left on the device',
  EROFS: 'read-only file system',
  EEXIST: 'already exists',
  EMFILE: 'too many open files',
};

/**
 * `PATH: what is wrong (syscall)` for a Node file-system error, instead of `ENOENT: no such file or directory,
 * open '/x/l.zpl.123.ab12cd.tmp'`: the path the user gave (not our temporary file's), in words.
 */
export function systemErrorMessage(e: Error): string | undefined {
  const err = e as NodeJS.ErrnoException;
  // mkdir -p fails with EEXIST only where a FILE has the name of a directory on the path (-o FILE/x.zpl).
  const what = err.code === 'EEXIST' && err.syscall === 'mkdir' ? 'a file is in the way of that directory' : err.code ? SYSTEM_ERRORS[err.code] : undefined;
  if (!what || !err.path) return undefined;
  // writeFileAtomic's temporary name: PATH.PID.RANDOM.tmp
  const path = err.path.replace(/\.\d+\.[a-z0-9]+\.tmp$/, '');
  return `${path}: ${what}${err.syscall ? ` (${err.syscall})` : ''}`;
}

/**
 * A 401's hint when SHIP_API_KEY or SHIP_TOKEN supplied the credentials (`ship login` would not help), or when
 * they came from the test set (which `ship --test login` replaces, not `ship login`).
 */
async function rejectedFromEnv(ctx: Ctx, apiMessage: string | undefined): Promise<string | undefined> {
  try {
    // Resolved already: the request that was rejected used them.
    const [s, { rejectedFromEnvHint, loginCommand }] = await Promise.all([ctx.settings(), import('./config/settings.js')]);
    return rejectedFromEnvHint(s, apiMessage) ?? (s.credentialSet.name === 'test' ? `the API key or token of the test credentials was rejected; run \`${loginCommand(s)}\`` : undefined);
  } catch {
    return undefined;
  }
}

async function knownSecrets(ctx: Ctx): Promise<string[]> {
  // Cleared below: a pending timer would hold every failing run open for the whole 200 ms.
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    // Resolving the settings adds their secrets to ctx.secrets.
    await Promise.race([ctx.settings(), new Promise<undefined>((r) => (timer = setTimeout(r, 200, undefined)))]);
  } catch {
    // settings may be what failed; the env secrets are still masked
  } finally {
    clearTimeout(timer);
  }
  return [ctx.env.SHIP_API_KEY, ctx.env.SHIP_TOKEN, ...ctx.secrets].filter((s): s is string => Boolean(s));
}
