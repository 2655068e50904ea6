// Ctx: everything a command may touch (streams, env, clock, config, API, prompts), created once per run.
// Heavy parts (config file, API client, prompts) load on first use so `ship --version` stays fast.
import type { IO } from './output/io.js';
import { colorEnabled, envFlag, isCI } from './output/io.js';
import { Output, type OutputMode } from './output/output.js';
import { AuthError, Interrupted, UsageError } from './errors.js';
import { abortableSleep } from './util/sleep.js';
import type { Api } from './api/index.js';
import type { ConfigStore } from './config/store.js';
import type { Settings } from './config/settings.js';

/** Global flags, as parsed by commander on the root program. */
export interface GlobalOptions {
  profile?: string;
  baseUrl?: string;
  test?: boolean;
  timeout?: string;
  json?: boolean;
  quiet?: boolean;
  verbose?: boolean;
  /** false when --no-input was given */
  input?: boolean;
  /** false when --no-color was given */
  color?: boolean;
  insecure?: boolean;
}

/** Wall clock and sleeping, injectable for tests. */
export interface Clock {
  now(): Date;
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/** What a prompt needs to say when nobody can answer it. */
export interface PromptSpec {
  message: string;
  /** The flag or env var that supplies this value without a prompt, e.g. "--username or SHIP_USERNAME". */
  supplyWith: string;
  default?: string;
  /** Checks an answer (input only): true, or what is wrong with it, said under the prompt until it is right. */
  validate?: (answer: string) => true | string;
}

/** Prompts that refuse (UsageError naming the flag) when no person is there. */
export interface Prompter {
  input(spec: PromptSpec): Promise<string>;
  password(spec: PromptSpec): Promise<string>;
  confirm(spec: Omit<PromptSpec, 'default'> & { default?: boolean }): Promise<boolean>;
}

export interface ApiRequirements {
  /** The call needs a user token (all but POST /tokens). Default true. */
  token?: boolean;
  /**
   * Use these credentials instead of the resolved ones (`ship login --api-key`, or the token a login
   * just obtained). Such clients are not cached.
   */
  credentials?: { apiKey: string; token?: string };
}

/** Everything a command may use. Commands never touch process.* directly. */
export interface Ctx {
  readonly io: IO;
  readonly env: Record<string, string | undefined>;
  readonly clock: Clock;
  /** Global flags; filled in by program.ts before any action runs. */
  globals: GlobalOptions;
  /** Aborted on the first Ctrl-C: bulk work stops sending and settles what is in flight. */
  readonly signal: AbortSignal;
  /** Output bound to the streams and the global flags. */
  readonly out: Output;
  readonly mode: OutputMode;
  readonly prompt: Prompter;
  /**
   * The config file (profiles, credentials), opened on first use. Read-only unless `{ write: true }`
   * (which loads conf, the writer; commands that only read settings skip that start-up cost).
   */
  config(opts?: { write?: boolean }): Promise<ConfigStore>;
  /** Base URL, credentials and timeout resolved flag > env > profile > default, each with its source. */
  settings(): Promise<Settings>;
  /** The API client for the resolved settings; throws AuthError when credentials are missing. */
  api(req?: ApiRequirements): Promise<Api>;
  /**
   * Declares that the running command handles Ctrl-C itself via `signal` (finish in-flight work,
   * then throw Interrupted). Without it, the first Ctrl-C exits 130 at once. Returns a release function.
   */
  holdInterrupts(opts?: { quiet?: boolean }): () => void;
  /** How many holders are active (read by main.ts). */
  readonly interruptHolders: number;
  /**
   * Every active holder said `quiet`: the first Ctrl-C then stops the command without main's "finishing
   * requests in flight" notice (track --watch, whose screen the command redraws itself).
   */
  readonly interruptsQuiet: boolean;
  /**
   * Every secret met during the run: the resolved settings' (added when they are resolved), a login's
   * --api-key, password and new token. Masked in errors, traces and warnings.
   */
  readonly secrets: Set<string>;
}

export interface CtxInit {
  io: IO;
  env: Record<string, string | undefined>;
  clock?: Clock;
  signal?: AbortSignal;
}

/** The real clock. */
export const systemClock: Clock = {
  now: () => new Date(),
  sleep: abortableSleep,
};

/**
 * The API client's module: resources.ts rather than api/index.ts, whose re-exports include the zod schemas,
 * which the client loads only when a call parses something (see loadSchemas in resources.ts).
 */
const loadApi = () => import('./api/resources.js').then((m) => ({ createApi: m.buildApi }));

/** Creates the context for one run of `ship`. */
export function createContext(init: CtxInit): Ctx {
  const { io, env } = init;
  const clock = init.clock ?? systemClock;
  const signal = init.signal ?? new AbortController().signal;
  let out: Output | undefined;
  let mode: OutputMode | undefined;
  let configP: Promise<ConfigStore> | undefined;
  let writableP: Promise<ConfigStore> | undefined;
  let settingsP: Promise<Settings> | undefined;
  const apis = new Map<string, Promise<Api>>();
  let holders = 0;
  let quietHolders = 0;

  const ctx: Ctx = {
    io,
    env,
    clock,
    signal,
    globals: {},
    secrets: new Set<string>(),
    holdInterrupts(opts) {
      holders++;
      if (opts?.quiet) quietHolders++;
      let released = false;
      return () => {
        if (!released) {
          holders--;
          if (opts?.quiet) quietHolders--;
        }
        released = true;
      };
    },
    get interruptHolders() {
      return holders;
    },
    get interruptsQuiet() {
      return holders > 0 && quietHolders === holders;
    },
    get mode(): OutputMode {
      if (!mode) {
        const g = ctx.globals;
        const noInput = g.input === false || isCI(env) || envFlag(env.SHIP_NO_INPUT);
        mode = {
          json: Boolean(g.json),
          quiet: Boolean(g.quiet),
          verbose: Boolean(g.verbose) || env.SHIP_VERBOSE === '1',
          // --no-input means "a script is driving": no colour either, unless FORCE_COLOR asks (the contract).
          color: colorEnabled(env, (io.stderrIsTTY || io.stdoutIsTTY) && !noInput, g.color === false),
          stdoutColor: colorEnabled(env, io.stdoutIsTTY && !noInput, g.color === false),
          interactive: io.stdinIsTTY && io.stderrIsTTY && !noInput,
          dumbTerminal: env.TERM === 'dumb',
        };
      }
      return mode;
    },
    get out(): Output {
      out ??= new Output(io, ctx.mode, ctx.secrets);
      return out;
    },
    prompt: createPrompter(() => ctx),
    config(opts) {
      // Every key and token the file holds is masked from then on (warnings, row files, errors), whichever
      // profile and credential set is in use: a message may quote another's, or settings may fail before any.
      configP ??= import('./config/store.js').then(async (m) => {
        const store = await m.openConfig({ env, globals: ctx.globals, write: false });
        for (const secret of m.storedSecrets(store)) ctx.secrets.add(secret);
        return store;
      });
      if (!opts?.write) return configP;
      writableP ??= configP.then((store) => withoutForeignSignalHandlers(() => store.writable()));
      return writableP;
    },
    settings() {
      settingsP ??= (async () => {
        const { resolveSettings } = await import('./config/settings.js');
        const s = await resolveSettings({ env, globals: ctx.globals, store: await ctx.config() });
        if (s.apiKey) ctx.secrets.add(s.apiKey.value);
        if (s.token) ctx.secrets.add(s.token.value);
        return s;
      })();
      return settingsP;
    },
    api(req: ApiRequirements = {}) {
      if (req.credentials) {
        const creds = req.credentials;
        ctx.secrets.add(creds.apiKey);
        if (creds.token) ctx.secrets.add(creds.token);
        return (async () => {
          const s = await ctx.settings();
          const { createApi } = await loadApi();
          return createApi({
            baseUrl: s.baseUrl.value,
            apiKey: creds.apiKey,
            token: creds.token,
            timeoutMs: s.timeoutMs.value,
            trace: ctx.mode.verbose ? (line: string) => ctx.out.debug(line) : undefined,
            onWarning: (msg: string) => ctx.out.debug(`warning: ${msg}`),
            onWait: waitForService(ctx),
            secrets: ctx.secrets,
          });
        })();
      }
      const needToken = req.token !== false;
      const key = needToken ? 'token' : 'key';
      let p = apis.get(key);
      if (!p) {
        p = (async () => {
          const s = await ctx.settings();
          // --profile or SHIP_PROFILE names a profile that does not exist, and it was to give something: said.
          await refuseUnknownProfile(ctx, s, needToken);
          const { checkCredential, loginCommand } = await import('./config/settings.js');
          // The test set is empty until a login in test mode, even when the live one is not: say which is missing.
          const where = s.credentialSet.name === 'test' ? ` in the test credentials of profile ${s.profile.value}` : '';
          if (!s.apiKey) {
            throw new AuthError(`no API key configured${where}`, {}, {
              hint: `set SHIP_API_KEY, or run \`${loginCommand(s)}\` (it asks for the key; SHIP_API_KEY=KEY in a script)`,
            });
          }
          if (needToken && !s.token) {
            throw new AuthError(`not logged in: no user token${where}`, {}, {
              hint: `run \`${loginCommand(s)}\`, or set SHIP_TOKEN`,
            });
          }
          checkCredential(s.apiKey, s.profile.value);
          if (needToken && s.token) checkCredential(s.token, s.profile.value);
          const { createApi } = await loadApi();
          return createApi({
            baseUrl: s.baseUrl.value,
            apiKey: s.apiKey.value,
            token: needToken ? s.token?.value : undefined,
            timeoutMs: s.timeoutMs.value,
            trace: ctx.mode.verbose ? (line: string) => ctx.out.debug(line) : undefined,
            onWarning: (msg: string) => ctx.out.debug(`warning: ${msg}`),
            onWait: waitForService(ctx),
            secrets: ctx.secrets,
          });
        })();
        apis.set(key, p);
      }
      return p;
    },
  };
  return ctx;
}

/** A usage error when the profile chosen by --profile or SHIP_PROFILE is not in the config file (a typo) and was needed. */
async function refuseUnknownProfile(ctx: Ctx, s: Settings, needToken: boolean): Promise<void> {
  let store;
  try {
    store = await ctx.config();
  } catch {
    return;
  }
  const { unknownProfileNeeded } = await import('./config/store.js');
  const err = unknownProfileNeeded(store, s, needToken);
  if (err) throw err;
}

/** The spinner shown while a request to the service is out (a person at a terminal only; see output/wait.ts). */
function waitForService(ctx: Ctx): (() => () => void) | undefined {
  const wait = ctx.out.wait;
  return wait.enabled ? () => wait.begin('Waiting for the shipping service…') : undefined;
}

function createPrompter(getCtx: () => Ctx): Prompter {
  const refuse = (spec: { message: string; supplyWith: string }): never => {
    // A terminal may well be there: then it is --no-input, CI or SHIP_NO_INPUT that forbids the question.
    const { io, env, globals } = getCtx();
    const terminal = io.stdinIsTTY && io.stderrIsTTY;
    const why = !terminal ? 'no terminal to prompt on' : globals.input === false ? '--no-input forbids prompts' : envFlag(env.SHIP_NO_INPUT) ? `SHIP_NO_INPUT=${env.SHIP_NO_INPUT} forbids prompts` : isCI(env) ? 'CI is set, which forbids prompts' : 'prompts are off';
    throw new UsageError(`cannot ask "${spec.message}": ${why}`, {
      hint: `supply it with ${spec.supplyWith}`,
    });
  };
  const streams = () => {
    const { io } = getCtx();
    return { input: io.stdin, output: io.stderr };
  };
  // Inquirer colours by itself (NO_COLOR only): styled with our chalk instead, --no-color and TERM=dumb reach
  // the prompts too. Its look otherwise, but the default answer is not dim (faint on many themes).
  const theme = () => {
    const c = getCtx().out.c;
    return {
      prefix: { idle: c.blue('?'), done: c.green('✔') },
      style: {
        answer: (s: string) => c.cyan(s),
        message: (s: string) => c.bold(s),
        error: (s: string) => c.red(`> ${s}`),
        defaultAnswer: (s: string) => `(${s})`,
        help: (s: string) => s,
        highlight: (s: string) => c.cyan(s),
        key: (s: string) => c.cyan(c.bold(`<${s}>`)),
      },
    };
  };
  // Ctrl-C at a prompt is a keypress inquirer handles itself (no SIGINT reaches main.ts): it rejects with
  // ExitPromptError, which is the user interrupting, so exit 130 like any other interrupt.
  const ask = async <T>(spec: { message: string; supplyWith: string }, prompt: () => Promise<T>): Promise<T> => {
    if (!getCtx().mode.interactive) return refuse(spec);
    // The prompt owns the terminal's last line while it is open: no spinner meanwhile.
    const resume = getCtx().out.wait.suspend();
    try {
      return await prompt();
    } catch (e) {
      if (e instanceof Error && e.name === 'ExitPromptError') throw new Interrupted();
      throw e;
    } finally {
      resume();
    }
  };
  return {
    input: (spec) =>
      ask(spec, async () => {
        const { input } = await import('@inquirer/prompts');
        return input({ message: spec.message, default: spec.default, validate: spec.validate, theme: theme() }, streams());
      }),
    password: (spec) =>
      ask(spec, async () => {
        const { password } = await import('@inquirer/prompts');
        return password({ message: spec.message, mask: '*', theme: theme() }, streams());
      }),
    confirm: (spec) =>
      ask(spec, async () => {
        const { confirm } = await import('@inquirer/prompts');
        return confirm({ message: spec.message, default: spec.default, theme: theme() }, streams());
      }),
  };
}

/**
 * Loads a module (conf, by store.writable()) and removes the SIGINT/SIGTERM handlers its dependencies installed while loading: conf's
 * atomically → when-exit re-raises the signal after its own cleanup, which turned the first Ctrl-C (meant to
 * let a command finish and clean up) into an immediate exit. main.ts alone decides what these signals do.
 */
async function withoutForeignSignalHandlers<T>(load: () => Promise<T>): Promise<T> {
  const signals = ['SIGINT', 'SIGTERM'] as const;
  const before = new Map(signals.map((sig) => [sig, new Set(process.listeners(sig))]));
  const mod = await load();
  for (const [sig, had] of before) {
    for (const listener of process.listeners(sig)) if (!had.has(listener)) process.off(sig, listener);
  }
  return mod;
}
