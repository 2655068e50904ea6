// Resolves where requests go and with which credentials: flag > env > profile > default, each with its source.
import type { GlobalOptions } from '../context.js';
import { refusedCredential, UsageError } from '../errors.js';
import { credentialPath, credentialsOf, type ConfigStore, type CredentialSet, type CredentialSetName, type Profile } from './store.js';
import { credentialProblem, type LabelFormat, normalizeBaseUrl, parseLabelFormat, parseTimeoutSeconds } from './validate.js';

/** Where a setting came from, highest precedence first. */
export type Source = 'flag' | 'env' | 'profile' | 'default';

/** A setting's value and where it came from (so `whoami`/`config list` can say). */
export interface Resolved<T> {
  value: T;
  source: Source;
  /** The flag, env var or profile key it came from, e.g. "SHIP_API_KEY", "--base-url", "test_base_url". */
  origin?: string;
}

/** Which of the profile's credential sets this run uses, and why (for whoami, config list, doctor). */
export interface CredentialSetChoice {
  name: CredentialSetName;
  /** In words, e.g. "the live base URL", "test mode (--test)", "--base-url is the profile's test_base_url". */
  why: string;
}

/** Everything the API client needs, resolved. */
export interface Settings {
  profile: Resolved<string>;
  baseUrl: Resolved<string>;
  testMode: Resolved<boolean>;
  /** The credential set apiKey and token come from (when not from the environment), and the user cached with them. */
  credentialSet: CredentialSetChoice;
  apiKey?: Resolved<string>;
  token?: Resolved<string>;
  timeoutMs: Resolved<number>;
  /** The profile's default label format, if set (commands' own --format flags win). Checked when read. */
  labelFormat?: Resolved<LabelFormat>;
  /** The profile's default printer as tcp://HOST:PORT (a printers.NAME entry resolved), if set. Checked when read. */
  printer?: Resolved<string>;
  /** Full path of the config file. */
  configPath: string;
}

/** The built-in base URL: the embedded sandbox on its default port. */
export const DEFAULT_BASE_URL = 'http://127.0.0.1:4010/v1.2';

/** The built-in request timeout. */
export const DEFAULT_TIMEOUT_MS = 30_000;

/** Reads an env var, treating an empty value as unset. */
function envValue(env: Record<string, string | undefined>, name: string): string | undefined {
  const v = env[name];
  return v === undefined || v === '' ? undefined : v;
}

/** SHIP_TEST and friends: 1/true/yes/on is on, 0/false/no/off is off. */
function envFlag(raw: string, name: string): boolean {
  const v = raw.trim().toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(v)) return true;
  if (['0', 'false', 'no', 'off'].includes(v)) return false;
  throw new UsageError(`${name}: "${raw}" is not a switch; use 1 or 0`);
}

/** Whether test mode is on: --test > SHIP_TEST > off. */
export function resolveTestMode(env: Record<string, string | undefined>, globals: GlobalOptions): Resolved<boolean> {
  if (globals.test) return { value: true, source: 'flag', origin: '--test' };
  const raw = envValue(env, 'SHIP_TEST');
  if (raw !== undefined) return { value: envFlag(raw, 'SHIP_TEST'), source: 'env', origin: 'SHIP_TEST' };
  return { value: false, source: 'default' };
}

/** Base URL: --base-url > SHIP_BASE_URL > profile (test_base_url in test mode, else base_url) > the sandbox. */
export function resolveBaseUrl(
  env: Record<string, string | undefined>,
  globals: GlobalOptions,
  profile: Profile,
  testMode: boolean,
  profileName = 'default',
): Resolved<string> {
  const insecure = Boolean(globals.insecure);
  if (globals.baseUrl !== undefined) {
    return { value: normalizeBaseUrl(globals.baseUrl, { insecure, what: '--base-url' }), source: 'flag', origin: '--base-url' };
  }
  const fromEnv = envValue(env, 'SHIP_BASE_URL');
  if (fromEnv !== undefined) {
    return { value: normalizeBaseUrl(fromEnv, { insecure, what: 'SHIP_BASE_URL' }), source: 'env', origin: 'SHIP_BASE_URL' };
  }
  const key = testMode ? 'test_base_url' : 'base_url';
  const stored = profile[key];
  if (typeof stored === 'string' && stored) {
    return { value: normalizeBaseUrl(stored, { insecure, what: `${key} of profile ${profileName}` }), source: 'profile', origin: key };
  }
  if (testMode) {
    throw new UsageError(`test mode is on, but profile ${profileName} has no test base URL`, {
      hint: 'run `ship config set test_base_url URL`, or pass --base-url URL',
    });
  }
  return { value: DEFAULT_BASE_URL, source: 'default' };
}

/** The base URL given on the command line or in the environment, unchecked; undefined when it comes from the profile. */
export function explicitBaseUrl(env: Record<string, string | undefined>, globals: GlobalOptions): { value: string; origin: string } | undefined {
  if (globals.baseUrl !== undefined) return { value: globals.baseUrl, origin: '--base-url' };
  const fromEnv = envValue(env, 'SHIP_BASE_URL');
  return fromEnv !== undefined ? { value: fromEnv, origin: 'SHIP_BASE_URL' } : undefined;
}

/** A base URL as compared with another: normalised when it can be (trailing slash, case of the host), else trimmed. */
function comparableUrl(raw: string): string {
  try {
    return normalizeBaseUrl(raw, { insecure: true, what: 'base URL' });
  } catch {
    return raw.trim().replace(/\/+$/, '');
  }
}

/**
 * Which credential set goes with the base URL in use. From the profile: base_url → live, test_base_url (test
 * mode) → test. Given by --base-url or SHIP_BASE_URL: the set whose stored URL it is (the credentials must be the
 * ones that server issued); when it is both or neither, test mode decides, so `ship --test --base-url URL login`
 * stores test credentials (and URL as test_base_url), and a plain run against an unknown URL uses the live set.
 */
export function chooseCredentialSet(
  profile: Profile,
  testMode: Resolved<boolean>,
  explicit: { value: string; origin: string } | undefined,
): CredentialSetChoice {
  const modeWords = testMode.value ? `test mode (${testMode.origin ?? 'on'})` : 'not in test mode';
  if (!explicit) return testMode.value ? { name: 'test', why: modeWords } : { name: 'live', why: 'the live base URL' };
  const url = comparableUrl(explicit.value);
  const stored = (key: 'base_url' | 'test_base_url') => {
    const v = profile[key];
    return typeof v === 'string' && v !== '' && comparableUrl(v) === url;
  };
  const isLive = stored('base_url');
  const isTest = stored('test_base_url');
  if (isTest && !isLive) return { name: 'test', why: `${explicit.origin} is the profile's test_base_url` };
  if (isLive && !isTest) return { name: 'live', why: `${explicit.origin} is the profile's base_url` };
  const which = isLive ? 'both base_url and test_base_url' : "neither of the profile's base URLs";
  return { name: testMode.value ? 'test' : 'live', why: `${explicit.origin} is ${which}; ${modeWords}` };
}

/** Timeout: --timeout > SHIP_TIMEOUT > profile timeout > 30 s. */
export function resolveTimeout(env: Record<string, string | undefined>, globals: GlobalOptions, profile: Profile): Resolved<number> {
  if (globals.timeout !== undefined) return { value: parseTimeoutSeconds(globals.timeout, '--timeout'), source: 'flag', origin: '--timeout' };
  const fromEnv = envValue(env, 'SHIP_TIMEOUT');
  if (fromEnv !== undefined) return { value: parseTimeoutSeconds(fromEnv, 'SHIP_TIMEOUT'), source: 'env', origin: 'SHIP_TIMEOUT' };
  if (profile.timeout !== undefined && profile.timeout !== null) {
    return { value: parseTimeoutSeconds(profile.timeout as number | string, 'timeout in the profile'), source: 'profile', origin: 'timeout' };
  }
  return { value: DEFAULT_TIMEOUT_MS, source: 'default' };
}

/**
 * A credential: env var > the key in the credential set in use > none. (`--api-key` exists only on `ship login`,
 * which handles it itself.) The origin names where the set keeps it: `token`, or `test_credentials.token`.
 */
export function resolveSecret(
  env: Record<string, string | undefined>,
  envName: string,
  credentials: CredentialSet,
  key: 'api_key' | 'token',
  set: CredentialSetName = 'live',
): Resolved<string> | undefined {
  const fromEnv = envValue(env, envName);
  if (fromEnv !== undefined) return { value: fromEnv.trim(), source: 'env', origin: envName };
  const stored = credentials[key];
  if (typeof stored === 'string' && stored) return { value: stored, source: 'profile', origin: credentialPath(set, key) };
  return undefined;
}

/** The login command that stores credentials in the set in use: `ship login`, or `ship --test login` for the test set. */
export function loginCommand(s: Pick<Settings, 'credentialSet'>): string {
  return s.credentialSet.name === 'test' ? 'ship --test login' : 'ship login';
}

/**
 * Throws a UsageError when a credential cannot be sent (see credentialProblem), naming where it came from and how
 * to replace it. Checked when a request is about to be made, not on resolving: `ship login` and `ship logout`
 * must still work to replace a stored one that is broken.
 */
export function checkCredential(r: Resolved<string>, profileName: string): void {
  const problem = credentialProblem(r.value);
  if (!problem) return;
  const key = r.origin?.endsWith('token') || r.origin === 'SHIP_TOKEN' ? 'token' : 'api_key';
  const where = r.source === 'profile' ? `${r.origin ?? key} of profile ${profileName}` : (r.origin ?? key);
  // A test credential is replaced in test mode, which keeps it apart from the live one.
  const ship = r.origin?.startsWith('test_credentials.') ? 'ship --test' : 'ship';
  const hint =
    r.source === 'env'
      ? `set ${r.origin} again without it`
      : r.source === 'profile'
        ? key === 'token'
          ? `run \`${ship} login\` to store a new token`
          : `store it again: \`${ship} config set api_key -\` (reads stdin), or \`${ship} login\` (it asks for the key)`
        : undefined;
  throw new UsageError(`${where}: ${problem}`, { hint });
}

/**
 * The env vars among SHIP_API_KEY and SHIP_TOKEN that supplied this run's credentials: they win over what
 * `ship login` stores, so a rejected one is not mended by logging in again.
 */
export function credentialsFromEnv(s: Pick<Settings, 'apiKey' | 'token'>): string[] {
  return [s.apiKey, s.token].filter((r) => r?.source === 'env').map((r) => r!.origin!);
}

/**
 * The env vars that supplied the credentials a 401 rejected (both candidates when its message does not say
 * which): a token revoked while only SHIP_API_KEY came from the environment is mended by `ship login`.
 */
function rejectedFromEnv(s: Pick<Settings, 'apiKey' | 'token'>, apiMessage: string | undefined): string[] {
  const which = refusedCredential(apiMessage);
  return credentialsFromEnv(which === 'apiKey' ? { apiKey: s.apiKey } : which === 'token' ? { token: s.token } : s);
}

/**
 * The hint for rejected credentials when env vars supplied them (see credentialsFromEnv); undefined otherwise.
 * `apiMessage` is the 401's own message, which may say which credential it refused.
 */
export function rejectedFromEnvHint(s: Pick<Settings, 'apiKey' | 'token'>, apiMessage?: string): string | undefined {
  const names = rejectedFromEnv(s, apiMessage);
  if (names.length === 0) return undefined;
  const them = names.length > 1 ? 'them' : 'it';
  return `${names.join(' and ')} ${names.length > 1 ? 'are' : 'is'} set in the environment and ${names.length > 1 ? 'win' : 'wins'} over the profile, so \`ship login\` does not replace ${them}: set ${them} anew, or unset ${them} to use the profile's`;
}

/**
 * What to do about refused credentials, as the start of a sentence: set the env vars that supplied them anew, or
 * the login that replaces the set in use (`ship login`, `ship --test login`).
 */
export function renewCredentials(s: Pick<Settings, 'apiKey' | 'token' | 'credentialSet'>, apiMessage?: string): string {
  const names = rejectedFromEnv(s, apiMessage);
  if (names.length) return `Set ${names.join(' and ')} anew (${names.length > 1 ? 'they win' : 'it wins'} over the profile)`;
  return `Run \`${loginCommand(s)}\``;
}

/** Resolves every setting for this run. Throws UsageError for values that cannot be used. */
export function resolveSettings(input: {
  env: Record<string, string | undefined>;
  globals: GlobalOptions;
  store: ConfigStore;
}): Settings {
  const { env, globals, store } = input;
  const sel = store.selected;
  const profile = store.profile(sel.name);
  const testMode = resolveTestMode(env, globals);
  const baseUrl = resolveBaseUrl(env, globals, profile, testMode.value, sel.name);
  const credentialSet = chooseCredentialSet(profile, testMode, explicitBaseUrl(env, globals));
  const credentials = credentialsOf(profile, credentialSet.name);
  const settings: Settings = {
    profile: { value: sel.name, source: sel.source, origin: sel.origin },
    baseUrl,
    testMode,
    credentialSet,
    apiKey: resolveSecret(env, 'SHIP_API_KEY', credentials, 'api_key', credentialSet.name),
    token: resolveSecret(env, 'SHIP_TOKEN', credentials, 'token', credentialSet.name),
    timeoutMs: resolveTimeout(env, globals, profile),
    configPath: store.path,
  };
  // Read on use, so a bad default printer only fails the commands that print.
  Object.defineProperties(settings, {
    labelFormat: {
      enumerable: true,
      get: (): Resolved<LabelFormat> | undefined =>
        typeof profile.label_format === 'string'
          ? { value: parseLabelFormat(profile.label_format, `label_format of profile ${sel.name}`), source: 'profile', origin: 'label_format' }
          : undefined,
    },
    printer: {
      enumerable: true,
      get: (): Resolved<string> | undefined =>
        typeof profile.printer === 'string' && profile.printer
          ? { value: store.resolvePrinter(profile.printer, sel.name), source: 'profile', origin: 'printer' }
          : undefined,
    },
  });
  return settings;
}

/** How a source reads in human output: "flag --base-url", "env SHIP_API_KEY", "profile work (base_url)", "default". */
export function describeSource(r: { source: Source; origin?: string }, profileName?: string): string {
  switch (r.source) {
    case 'flag':
      return `flag ${r.origin ?? ''}`.trim();
    case 'env':
      return `env ${r.origin ?? ''}`.trim();
    case 'profile':
      return `profile${profileName ? ` ${profileName}` : ''}${r.origin ? ` (${r.origin})` : ''}`;
    default:
      return 'default';
  }
}
