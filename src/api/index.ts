// PLACEHOLDER — replaced by the API layer work (issue 2, item 3).
export interface ApiOptions {
  baseUrl: string;
  apiKey?: string;
  token?: string;
  timeoutMs?: number;
  trace?: (line: string) => void;
  onWarning?: (message: string) => void;
}
export type Api = Record<string, never>;
export function createApi(_opts: ApiOptions): Api {
  throw new Error('not implemented');
}
