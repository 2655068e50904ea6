// A schema built on first use, shared by the request schemas (schemas.ts) and the response schemas (response-schemas.ts).

/**
 * A schema built on first use: building all ~40 schemas up front cost every API command ~25 ms of start-up,
 * while a command uses one or two. The value behaves as the schema itself (a transparent proxy).
 */
export function deferred<T extends object>(build: () => T): T {
  let built: T | undefined;
  const target = (): T => (built ??= build());
  return new Proxy({} as T, {
    get: (_, key) => {
      const t = target();
      return Reflect.get(t, key, t);
    },
    has: (_, key) => Reflect.has(target(), key),
    set: (_, key, value) => Reflect.set(target(), key, value),
    defineProperty: (_, key, desc) => Reflect.defineProperty(target(), key, desc),
    deleteProperty: (_, key) => Reflect.deleteProperty(target(), key),
    ownKeys: () => Reflect.ownKeys(target()),
    getOwnPropertyDescriptor: (_, key) => {
      const d = Reflect.getOwnPropertyDescriptor(target(), key);
      // A proxy may only report a property as non-configurable if its own target has it so.
      return d ? { ...d, configurable: true } : undefined;
    },
    getPrototypeOf: () => Reflect.getPrototypeOf(target()),
  });
}
