// The config file: named profiles with base URLs, credentials, defaults. Mode 0600.
// Reads are a plain readFileSync + JSON.parse of the file conf writes; conf (with ajv, atomically, semver: ~45 ms
// of start-up) is loaded only to write, so commands that only read settings never pay for it.
//
// Layout of config.json:
//   { "current_profile": "default",
//     "profiles": { "default": { "base_url": "…", "test_base_url": "…", "api_key": "…", "token": "…",
//                                "user": {…}, "test_credentials": { "api_key": "…", "token": "…", "user": {…} },
//                                "label_format": "ZPL", "printer": "tcp://…", "timeout": 30,
//                                "printers": { "dock": "tcp://10.0.0.50:9100" } } } }
// A profile holds two credential sets, so that a login against the test base URL never replaces the live one:
// the flat api_key/token/user are the live set (the only set older versions wrote, so their files read as they
// are, with no migration), and test_credentials the test set. test_credentials is written only when a test
// credential is stored, and removed again when its last key is.
import { chmodSync, existsSync, readFileSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import type Conf from 'conf';
import type { GlobalOptions } from '../context.js';
import { ExitCode, ShipError, UsageError } from '../errors.js';
import type { Source } from './settings.js';
import {
  credentialProblem,
  type LabelFormat,
  normalizeBaseUrl,
  parseLabelFormat,
  parsePrinterUrl,
  parseTimeoutSeconds,
  validateName,
} from './validate.js';
import { LockFile, type LockWording, ownerText } from '../util/lock-file.js';
import { makeDirSync } from '../util/mkdir.js';
import { SETTABLE_KEYS } from './keys.js';

/** The user as cached at login (from POST /tokens or GET /users); fields as the API sends them. */
export interface CachedUser {
  id?: string;
  first_name?: string;
  last_name?: string;
  email?: string;
  access_level?: string;
  user_type?: string;
  account_name?: string;
  [field: string]: unknown;
}

/** Which of a profile's two credential sets: the one for its live base URL, or the one for its test base URL. */
export type CredentialSetName = 'live' | 'test';

/** One set of credentials: an API key, the token a login gave, and the user it was given to. */
export interface CredentialSet {
  api_key?: string;
  token?: string;
  user?: CachedUser;
}

/** The profile key that holds the test set (the live set's keys sit flat in the profile). */
export const TEST_CREDENTIALS = 'test_credentials';

/** Keys that belong to a credential set rather than to the profile: get/set/unset take the set they mean. */
export const CREDENTIAL_KEYS: ReadonlySet<string> = new Set(['api_key', 'token', 'user']);

/** One profile as stored in the file. Every field is optional; hand edits may leave odd types. */
export interface Profile extends CredentialSet {
  base_url?: string;
  test_base_url?: string;
  /** The test set; absent until a test credential is stored. */
  test_credentials?: CredentialSet;
  label_format?: LabelFormat;
  printer?: string;
  timeout?: number;
  printers?: Record<string, string>;
}

export { SETTABLE_KEYS };

/** Keys whose values are secrets: masked in every listing, never printed in full. */
export const SECRET_KEYS: ReadonlySet<string> = new Set(['api_key', 'token']);

/** Where a selected profile name came from. */
export interface ProfileSelection {
  name: string;
  source: Source;
  origin?: string;
}

/** The user's config file: profiles, credentials and defaults. */
export interface ConfigStore {
  /** Full path of the config file. */
  readonly path: string;
  /** The profile in use: --profile > SHIP_PROFILE > current_profile in the file > "default". */
  readonly selected: ProfileSelection;
  /** Names of the profiles in the file, sorted. */
  profileNames(): string[];
  /** The `current_profile` key of the file, if set. */
  currentInFile(): string | undefined;
  /** A stored profile (an empty object when absent); defaults to the selected one. */
  profile(name?: string): Profile;
  /**
   * A stored value by key (`base_url`, `printers.dock`, `user`…) of a profile; undefined when unset.
   * For api_key, token and user, `set` says which credential set (default live).
   */
  get(key: string, profile?: string, set?: CredentialSetName): unknown;
  /**
   * Validates and stores a value; returns what was stored. Unknown keys and bad values throw UsageError.
   * For api_key and token, `set` says which credential set (default live); a new token drops that set's cached
   * user, who belonged to the token it replaces.
   */
  set(key: string, value: string, opts?: { profile?: string; insecure?: boolean; set?: CredentialSetName }): unknown;
  /** Removes a key (of credential set `set` for api_key, token, user); returns whether it was set. Unknown keys throw UsageError. */
  unset(key: string, profile?: string, set?: CredentialSetName): boolean;
  /** A profile's credential set (an empty object when it has none); defaults to the selected profile. */
  credentials(set: CredentialSetName, profile?: string): CredentialSet;
  /** Makes `name` the current profile in the file. */
  use(name: string): void;
  /** Stores what a login produced (API key, token, user, and optionally the base URL it was made against) in its set. */
  saveLogin(login: LoginRecord, profile?: string): void;
  /** Removes the token (and the cached user) of a profile's credential set (default live); returns whether there was one. */
  forgetToken(profile?: string, set?: CredentialSetName): boolean;
  /** Turns a printer name (a `printers.NAME` entry) or a `tcp://HOST:PORT` address into an address. */
  resolvePrinter(nameOrUrl: string, profile?: string): string;
  /**
   * Loads the writer (conf), after which set/unset/use/saveLogin/forgetToken work; resolves to this store.
   * openConfig does it unless given `write: false` (ctx.config() reads only; ctx.config({ write: true }) writes).
   */
  writable(): Promise<ConfigStore>;
}

/** What `ship login` stores in a profile. */
export interface LoginRecord {
  /** The credential set the login belongs to (default live). */
  set?: CredentialSetName;
  apiKey: string;
  token: string;
  user?: CachedUser;
  /** Set when the login went to a URL given on the command line, so later commands go to the same server. */
  baseUrl?: { key: 'base_url' | 'test_base_url'; value: string };
}

/** Where the config directory is: SHIP_CONFIG_DIR, else undefined (the platform's, see platformConfigDir). */
export function configDir(env: Record<string, string | undefined>): string | undefined {
  return env.SHIP_CONFIG_DIR ? resolve(env.SHIP_CONFIG_DIR) : undefined;
}

/**
 * The platform's config directory for ship, as conf has always put it (env-paths for project "ship", no suffix):
 * $XDG_CONFIG_HOME/ship or ~/.config/ship; ~/Library/Preferences/ship; %APPDATA%\ship\Config.
 */
export function platformConfigDir(): string {
  const home = homedir();
  if (process.platform === 'darwin') return join(home, 'Library', 'Preferences', 'ship');
  if (process.platform === 'win32') return join(process.env.APPDATA || join(home, 'AppData', 'Roaming'), 'ship', 'Config');
  return join(process.env.XDG_CONFIG_HOME || join(home, '.config'), 'ship');
}

/** Which profile is in use, and why: --profile > SHIP_PROFILE > current_profile in the file > "default". */
export function selectProfile(
  env: Record<string, string | undefined>,
  globals: GlobalOptions,
  currentInFile: string | undefined,
): ProfileSelection {
  const fromEnv = env.SHIP_PROFILE || undefined;
  // commander also fills --profile from SHIP_PROFILE; equal values mean the env var supplied it. An empty
  // --profile '' (a script's unset variable) is refused, not taken as "no profile given": the wrong profile
  // would be used, or written to by `config set`.
  if (globals.profile !== undefined && globals.profile !== env.SHIP_PROFILE) {
    return { name: validateName(globals.profile, '--profile'), source: 'flag', origin: '--profile' };
  }
  if (fromEnv) return { name: validateName(fromEnv, 'SHIP_PROFILE'), source: 'env', origin: 'SHIP_PROFILE' };
  if (currentInFile) return { name: validateName(currentInFile, 'current_profile'), source: 'profile', origin: 'current_profile' };
  return { name: 'default', source: 'default' };
}

/** Every API key and token a config file holds: of every profile, in both credential sets. */
export function storedSecrets(store: Pick<ConfigStore, 'profileNames' | 'credentials'>): string[] {
  const out: string[] = [];
  for (const name of store.profileNames()) {
    for (const set of ['live', 'test'] as const) {
      const c = store.credentials(set, name);
      for (const v of [c.api_key, c.token]) if (typeof v === 'string' && v) out.push(v);
    }
  }
  return out;
}

/** The profiles a config file has, as messages add them: " (profiles: a, b)" or " (there are none yet)". */
export function profilesNote(names: readonly string[]): string {
  return names.length ? ` (profiles: ${names.join(', ')})` : ' (there are none yet)';
}

/**
 * The error to give when the profile named by --profile or SHIP_PROFILE is not in the config file (a typo, most
 * likely: every value would silently fall back to its default); undefined when it exists, or was not named.
 * `default` is never unknown: it is what a fresh install uses.
 */
/**
 * unknownProfile(), for a command that talks to the service: only when that profile was to give the credentials
 * or the base URL. Credentials and base URL from the environment or flags need no profile; credentials from the
 * environment with a mistyped profile name would otherwise go to the built-in default URL.
 */
export function unknownProfileNeeded(
  store: Pick<ConfigStore, 'selected' | 'profileNames'>,
  s: { apiKey?: unknown; token?: unknown; baseUrl: { source: Source } },
  needToken = true,
): UsageError | undefined {
  if (s.apiKey && (s.token || !needToken) && s.baseUrl.source !== 'default') return undefined;
  return unknownProfile(store);
}

export function unknownProfile(store: Pick<ConfigStore, 'selected' | 'profileNames'>): UsageError | undefined {
  const { name, source, origin } = store.selected;
  if ((source !== 'flag' && source !== 'env') || name === 'default') return undefined;
  const names = store.profileNames();
  if (names.includes(name)) return undefined;
  return new UsageError(`${origin}: no profile "${name}"${profilesNote(names)}`, {
    hint: `to start one: ship login --profile ${name}, or ship --profile ${name} config set KEY VALUE`,
  });
}

/** Validates a value for a settable key and returns what to store. */
export function normalizeValue(key: string, value: string, opts: { insecure?: boolean } = {}): string | number {
  const k = checkKey(key);
  switch (k) {
    case 'base_url':
    case 'test_base_url':
      return normalizeBaseUrl(value, { insecure: opts.insecure, what: k });
    case 'api_key':
    case 'token': {
      const v = value.trim();
      if (!v) throw new UsageError(`${k}: must not be empty`);
      const problem = credentialProblem(v);
      if (problem) throw new UsageError(`${k}: ${problem}`);
      return v;
    }
    case 'label_format':
      return parseLabelFormat(value, k);
    case 'timeout':
      return parseTimeoutSeconds(value, k) / 1000;
    case 'printer': {
      const v = value.trim();
      if (v.startsWith('tcp://') || v.includes(':')) {
        parsePrinterUrl(v, k);
        return v.replace(/\/$/, '');
      }
      return validateName(v, 'printer (a printers.NAME entry)');
    }
    default: {
      parsePrinterUrl(value, key);
      return value.trim().replace(/\/$/, '');
    }
  }
}

/** `printer.NAME` (singular, as people write it: `ship config set printer.dock3 tcp://…`) is `printers.NAME`. */
export function canonicalKey(key: string): string {
  return key.startsWith('printer.') ? `printers.${key.slice('printer.'.length)}` : key;
}

/** Where a credential key of a set lives in a profile: `token` (live) or `test_credentials.token` (test). */
export function credentialPath(set: CredentialSetName, key: string): string {
  return set === 'test' ? `${TEST_CREDENTIALS}.${key}` : key;
}

/** A profile's credential set as stored: the flat keys (live), or test_credentials (test; empty when absent or not an object). */
export function credentialsOf(profile: Profile, set: CredentialSetName): CredentialSet {
  const holder = set === 'test' ? profile.test_credentials : profile;
  if (!holder || typeof holder !== 'object' || Array.isArray(holder)) return {};
  const out: CredentialSet = {};
  for (const key of CREDENTIAL_KEYS) if (Object.hasOwn(holder, key)) (out as Record<string, unknown>)[key] = (holder as Record<string, unknown>)[key];
  return out;
}

/** Checks a key name against the settable keys; returns it (canonical), throwing UsageError listing the valid keys. */
export function checkKey(name: string): string {
  const key = canonicalKey(name);
  if (Object.hasOwn(SETTABLE_KEYS, key) && key !== 'printers.NAME') return key;
  if (key.startsWith('printers.')) {
    validateName(key.slice('printers.'.length), 'printer name');
    return key;
  }
  throw new UsageError(`unknown config key "${key}"`, {
    hint: `valid keys: ${Object.keys(SETTABLE_KEYS).join(', ')}`,
  });
}

interface FileShape extends Record<string, unknown> {
  current_profile?: string;
  profiles?: Record<string, Profile>;
}

/**
 * Opens (creating the directory, not the file) the config; the file is written only when something is set.
 * Unless `write: false`, also loads the writer (see ConfigStore.writable).
 */
export async function openConfig(input: {
  env: Record<string, string | undefined>;
  globals: GlobalOptions;
  write?: boolean;
}): Promise<ConfigStore> {
  const dir = configDir(input.env);
  if (dir && !existsSync(dir)) makeDirSync(dir, 0o700);
  const store = new FileStore(resolve(dir ?? platformConfigDir(), 'config.json'), input);
  // Read once now, as conf did on opening: a file that is not JSON fails here, naming the file.
  store.profileNames();
  tightenMode(store.path);
  // The platform directory (~/.config/ship) is created with the umask's mode; it is ours, so keep it private.
  // A SHIP_CONFIG_DIR the user already had is left as it is.
  if (!dir) tightenDir(dirname(store.path));
  if (input.write !== false) await store.writable();
  return store;
}

function unreadable(path: string, err: unknown, text?: string): ShipError {
  const why = err instanceof SyntaxError ? jsonProblem(err, text) : err instanceof Error ? err.message : String(err);
  const notJson = err instanceof SyntaxError;
  return new UsageError(`cannot read the config file ${path}: ${why}`, {
    hint: notJson ? 'fix the JSON by hand, or move the file away to start afresh' : 'check the file and its directory (their type and permissions)',
    // Not a JSON parse error: its message quotes the file's text (a token or a key), which --verbose would print.
    cause: notJson ? undefined : err,
  });
}

/**
 * What is wrong with a file that is not JSON, without quoting it: V8's messages show a stretch of the text
 * (`Unexpected token 'o', ..."token": tok0cdf5f75"... is not valid JSON`), which in this file is a token or a key.
 * Says where instead: the line and column when the message gives a position, else the line of the quoted stretch.
 */
export function jsonProblem(err: SyntaxError, text?: string): string {
  const at = /at position (\d+)/.exec(err.message);
  if (at && text !== undefined) {
    const before = text.slice(0, Number(at[1])).split('\n');
    return `not valid JSON (line ${before.length}, column ${before[before.length - 1].length + 1})`;
  }
  // V8 quotes up to 10 characters either side of the problem, with "..." where it cut the text.
  const quoted = /, (\.\.\.)?"([\s\S]*)"(?:\.\.\.)? is not valid JSON$/.exec(err.message);
  const start = quoted && text !== undefined ? text.indexOf(quoted[2]) : -1;
  if (quoted && start >= 0) {
    const line = text!.slice(0, start + (quoted[1] ? Math.min(10, quoted[2].length) : 0)).split('\n').length;
    return `not valid JSON (near line ${line})`;
  }
  return 'not valid JSON';
}

/** A config file from an older run or another tool may be group/world readable; secrets must not be. */
function tightenMode(path: string): void {
  try {
    if (process.platform !== 'win32' && (statSync(path).mode & 0o077) !== 0) chmodSync(path, 0o600);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
}

function tightenDir(path: string): void {
  try {
    if (process.platform !== 'win32' && (statSync(path).mode & 0o077) !== 0) chmodSync(path, 0o700);
  } catch {
    // a directory we cannot change is still usable; the file itself is 0600
  }
}

class FileStore implements ConfigStore {
  #selected?: ProfileSelection;
  #conf?: Conf<FileShape>;

  constructor(
    readonly path: string,
    private readonly input: { env: Record<string, string | undefined>; globals: GlobalOptions },
  ) {}

  get selected(): ProfileSelection {
    this.#selected ??= selectProfile(this.input.env, this.input.globals, this.currentInFile());
    return this.#selected;
  }

  async writable(): Promise<ConfigStore> {
    if (!this.#conf) {
      const { default: ConfClass } = await import('conf');
      try {
        this.#conf = new ConfClass<FileShape>({ cwd: dirname(this.path), configName: 'config', configFileMode: 0o600 });
      } catch (err) {
        throw unreadable(this.path, err);
      }
    }
    return this;
  }

  /** The file as conf reads it (a fresh read each time, so a write is seen at once); missing means empty. */
  private read(): FileShape {
    let text: string;
    try {
      text = readFileSync(this.path, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw unreadable(this.path, err);
      try {
        // As conf does: the directory is (re)created so that the first write finds it.
        makeDirSync(dirname(this.path));
      } catch (e) {
        throw unreadable(this.path, e);
      }
      return Object.create(null) as FileShape;
    }
    try {
      return Object.assign(Object.create(null) as FileShape, JSON.parse(text));
    } catch (err) {
      throw unreadable(this.path, err, text);
    }
  }

  /**
   * Changes the file under its lock: read afresh inside it, changed, written (conf: atomically), so two processes
   * writing at once (parallel `ship config set`, a login while another command writes) each keep their change.
   * `mutate` returning false means there was nothing to change: nothing is written. Reads take no lock (the file
   * is always replaced whole, never seen half-written).
   */
  private write(mutate: (file: FileShape) => boolean | void): boolean {
    if (!this.#conf) throw new Error('the config file was opened for reading only: use ctx.config({ write: true }) to change it');
    let lock: LockFile;
    try {
      lock = LockFile.acquire(`${this.path}.lock`, configLockWording(`${this.path}.lock`), { waitMs: CONFIG_LOCK_WAIT_MS });
    } catch (err) {
      if (err instanceof ShipError) throw err;
      // The directory cannot be written (EACCES, EROFS…): the file could not have been either.
      throw new ShipError(`cannot write the config file ${this.path}: ${(err as Error).message}`, ExitCode.Failure, { cause: err });
    }
    try {
      const file = this.read();
      if (mutate(file) === false) return false;
      this.#conf.store = file;
      tightenMode(this.path);
      return true;
    } finally {
      lock.release();
    }
  }

  profileNames(): string[] {
    const profiles = this.read().profiles;
    return profiles && typeof profiles === 'object' ? Object.keys(profiles).sort() : [];
  }

  currentInFile(): string | undefined {
    const v = this.read().current_profile;
    return typeof v === 'string' && v ? v : undefined;
  }

  profile(name = this.selected.name): Profile {
    const p = this.read().profiles?.[name];
    return p && typeof p === 'object' ? p : {};
  }

  credentials(set: CredentialSetName, profile?: string): CredentialSet {
    return credentialsOf(this.profile(profile), set);
  }

  get(keyName: string, profile?: string, set: CredentialSetName = 'live'): unknown {
    const key = canonicalKey(keyName);
    const p = this.profile(profile) as Record<string, unknown>;
    if (CREDENTIAL_KEYS.has(key)) return (credentialsOf(p, set) as Record<string, unknown>)[key];
    if (key.startsWith('printers.')) {
      const printers = p.printers as Record<string, unknown> | undefined;
      return printers && typeof printers === 'object' ? printers[key.slice('printers.'.length)] : undefined;
    }
    return Object.hasOwn(p, key) ? p[key] : undefined;
  }

  set(keyName: string, value: string, opts: { profile?: string; insecure?: boolean; set?: CredentialSetName } = {}): unknown {
    const key = canonicalKey(keyName);
    const stored = normalizeValue(key, value, opts);
    const name = opts.profile ?? this.selected.name;
    this.write((file) => {
      const p = profileOf(file, name) as Record<string, unknown>;
      if (CREDENTIAL_KEYS.has(key)) {
        const holder = credentialHolder(p, opts.set ?? 'live');
        holder[key] = stored;
        // The cached user is the one the old token was given to; a token set by hand may be anyone's.
        if (key === 'token') delete holder.user;
      } else if (key.startsWith('printers.')) {
        const printers = (p.printers && typeof p.printers === 'object' ? p.printers : {}) as Record<string, unknown>;
        printers[key.slice('printers.'.length)] = stored;
        p.printers = printers;
      } else {
        p[key] = stored;
      }
    });
    return stored;
  }

  unset(keyName: string, profile?: string, set: CredentialSetName = 'live'): boolean {
    const key = canonicalKey(keyName);
    if (key !== 'user') checkKey(key);
    const name = profile ?? this.selected.name;
    if (this.get(key, name, set) === undefined) return false;
    // Checked again inside the lock: another process may have removed it meanwhile.
    return this.write((file) => {
      const p = file.profiles?.[name] as Record<string, unknown> | undefined;
      if (!p || typeof p !== 'object') return false;
      if (CREDENTIAL_KEYS.has(key)) {
        const holder = set === 'live' ? p : (p[TEST_CREDENTIALS] as Record<string, unknown> | undefined);
        if (!holder || typeof holder !== 'object' || !Object.hasOwn(holder, key)) return false;
        delete holder[key];
        dropEmptyTestSet(p);
      } else if (key.startsWith('printers.')) {
        const printers = p.printers as Record<string, unknown> | undefined;
        const printer = key.slice('printers.'.length);
        if (!printers || typeof printers !== 'object' || !Object.hasOwn(printers, printer)) return false;
        delete printers[printer];
        if (Object.keys(printers).length === 0) delete p.printers;
      } else {
        if (!Object.hasOwn(p, key)) return false;
        delete p[key];
      }
    });
  }

  use(name: string): void {
    validateName(name, 'profile');
    this.write((file) => {
      file.current_profile = name;
      profileOf(file, name);
    });
    this.#selected = undefined;
  }

  saveLogin(login: LoginRecord, profile?: string): void {
    const name = profile ?? this.selected.name;
    this.write((file) => {
      const p = profileOf(file, name);
      const holder = credentialHolder(p as Record<string, unknown>, login.set ?? 'live');
      holder.api_key = login.apiKey;
      holder.token = login.token;
      if (login.user) holder.user = login.user;
      else delete holder.user;
      if (login.baseUrl) p[login.baseUrl.key] = login.baseUrl.value;
    });
  }

  forgetToken(profile?: string, set: CredentialSetName = 'live'): boolean {
    const name = profile ?? this.selected.name;
    const c = this.credentials(set, name);
    if (c.token === undefined && c.user === undefined) return false;
    // Checked again inside the lock: another process may have logged out meanwhile.
    return this.write((file) => {
      const p = file.profiles?.[name] as Record<string, unknown> | undefined;
      if (!p || typeof p !== 'object') return false;
      const holder = set === 'live' ? p : (p[TEST_CREDENTIALS] as Record<string, unknown> | undefined);
      if (!holder || typeof holder !== 'object' || (holder.token === undefined && holder.user === undefined)) return false;
      delete holder.token;
      delete holder.user;
      dropEmptyTestSet(p);
    });
  }

  resolvePrinter(nameOrUrl: string, profile?: string): string {
    const v = nameOrUrl.trim();
    if (v.startsWith('tcp://')) {
      parsePrinterUrl(v);
      return v;
    }
    const named = this.get(`printers.${v}`, profile);
    if (typeof named !== 'string') {
      const known = Object.keys(this.profile(profile).printers ?? {});
      // 10.0.0.50:9100 or zebra-dock3:9100 is an address without its tcp://, not a name.
      const address = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9._-]+):\d{1,5}$/.test(v);
      throw new UsageError(`no printer named "${v}" in profile ${profile ?? this.selected.name}`, {
        hint: address
          ? `for the printer at that address: tcp://${v}`
          : known.length
          ? `known printers: ${known.join(', ')}; or give tcp://HOST:PORT`
          : `add one with \`ship config set printers.${/^[\w-]+$/.test(v) ? v : 'NAME'} tcp://HOST:PORT\`, or give tcp://HOST:PORT`,
      });
    }
    parsePrinterUrl(named, `printers.${v}`);
    return named;
  }
}

/**
 * How long a config write waits for another process's to finish. A write holds the lock for milliseconds, so
 * even dozens of parallel `ship config set` get through; a lock held longer is a process stuck or gone elsewhere.
 */
const CONFIG_LOCK_WAIT_MS = 5_000;

/** How the config file's lock speaks: of other ship processes writing the file. */
function configLockWording(path: string): LockWording {
  return {
    held: (owner) =>
      new ShipError(
        `the config file is locked by another ship process${owner ? ` (${ownerText(owner)})` : ''}: gave up waiting for ${path} after ${CONFIG_LOCK_WAIT_MS / 1000} s`,
        ExitCode.Failure,
        { hint: `run the command again; if no other ship is running${owner && !owner.local ? ` on ${owner.hostname}` : ''}, delete ${path}` },
      ),
  };
}

/** The profile object inside a file being edited, created when missing. */
function profileOf(file: FileShape, name: string): Profile {
  validateName(name, 'profile');
  if (!file.profiles || typeof file.profiles !== 'object') file.profiles = {};
  const existing = file.profiles[name];
  if (!existing || typeof existing !== 'object') file.profiles[name] = {};
  return file.profiles[name];
}

/** The object a credential set's keys live in, inside a profile being edited: the profile itself, or its test set (created when missing). */
function credentialHolder(p: Record<string, unknown>, set: CredentialSetName): Record<string, unknown> {
  if (set === 'live') return p;
  const existing = p[TEST_CREDENTIALS];
  if (!existing || typeof existing !== 'object' || Array.isArray(existing)) p[TEST_CREDENTIALS] = {};
  return p[TEST_CREDENTIALS] as Record<string, unknown>;
}

/** Removes an emptied test set, so a profile without test credentials keeps the layout older versions wrote. */
function dropEmptyTestSet(p: Record<string, unknown>): void {
  const t = p[TEST_CREDENTIALS];
  if (t && typeof t === 'object' && Object.keys(t).length === 0) delete p[TEST_CREDENTIALS];
}
