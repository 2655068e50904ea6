// Resolves where requests go and with which credentials: flag > env > profile > default, each with its source.
// PLACEHOLDER — replaced by the config work (issue 2, item 4).
import type { GlobalOptions } from '../context.js';
import type { ConfigStore } from './store.js';

export type Source = 'flag' | 'env' | 'profile' | 'default';

/** A setting's value and where it came from (so `whoami`/`config list` can say). */
export interface Resolved<T> {
  value: T;
  source: Source;
  /** The flag, env var or profile key it came from, e.g. "SHIP_API_KEY". */
  origin?: string;
}

/** Everything the API client needs, resolved. */
export interface Settings {
  profile: Resolved<string>;
  baseUrl: Resolved<string>;
  testMode: Resolved<boolean>;
  apiKey?: Resolved<string>;
  token?: Resolved<string>;
  timeoutMs: Resolved<number>;
  /** Full path of the config file. */
  configPath: string;
}

/** The built-in base URL: the embedded sandbox on its default port. */
export const DEFAULT_BASE_URL = 'http://127.0.0.1:4010/v1.2';

export function resolveSettings(_input: {
  env: Record<string, string | undefined>;
  globals: GlobalOptions;
  store: ConfigStore;
}): Settings {
  throw new Error('not implemented');
}
