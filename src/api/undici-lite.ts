// The two pieces of undici the API client uses (a keep-alive Agent and `request`), imported from their own
// files: undici's index also loads fetch, WebSocket, caches, mocks and proxies, which cost every API command
// ~30–80 ms of start-up for nothing (see bench/startup.mjs).
import { setFlagsFromString } from 'node:v8';
import type { Dispatcher } from 'undici';
// Typed in undici-internals.d.ts: the same class and function undici's index exports.
import AgentClass from 'undici/lib/dispatcher/agent.js';
import dispatcherRequest from 'undici/lib/api/api-request.js';

// undici parses HTTP with llhttp compiled to WebAssembly. On Node 20 (V8 11), its one huge parser function is
// tiered up to TurboFan after the first response, and the process then waits at exit for that background
// compile: 50–100 ms added to every API command on a 2-core machine (bench/startup.mjs; `--wasm-tiering-budget`
// on the command line removes it too). A larger budget keeps short runs on the baseline compiler while long
// ones (bulk runs) still tier up. The flag is read when the module is compiled, on the first connection.
// Node 22/24 (V8 12/13) do not wait like this, and the flag's name is only known to hold for V8 11.
if (process.versions.v8.startsWith('11.')) setFlagsFromString('--wasm-tiering-budget=100000000');

/** undici's Agent (the same class as `import { Agent } from 'undici'`). */
export const Agent = AgentClass;

/**
 * `request(url, { dispatcher, … })` as undici's index exports it: the URL split into origin and path, then
 * Dispatcher#request on the given dispatcher (any Dispatcher, including MockAgent).
 */
export function request(
  url: string,
  opts: Omit<Dispatcher.RequestOptions, 'origin' | 'path' | 'method'> & { method: Dispatcher.HttpMethod; dispatcher: Dispatcher },
): Promise<Dispatcher.ResponseData> {
  const { origin, path } = split(url);
  const { dispatcher, ...rest } = opts;
  return dispatcherRequest.call(dispatcher, { ...rest, origin, path });
}

let lastSplit: { url: string; origin: string; path: string } | undefined;

/** The origin and path of a URL; the last one is remembered (a bulk run sends thousands to the same URL). */
function split(url: string): { origin: string; path: string } {
  if (lastSplit?.url === url) return lastSplit;
  const u = new URL(url);
  lastSplit = { url, origin: u.origin, path: u.search ? `${u.pathname}${u.search}` : u.pathname };
  return lastSplit;
}
