// The config file (conf): named profiles with base URLs, credentials, defaults. Mode 0600.
// PLACEHOLDER — replaced by the config work (issue 2, item 4).
import type { GlobalOptions } from '../context.js';

export interface ConfigStore {
  /** Full path of the config file. */
  readonly path: string;
}

export async function openConfig(_input: { env: Record<string, string | undefined>; globals: GlobalOptions }): Promise<ConfigStore> {
  throw new Error('not implemented');
}
