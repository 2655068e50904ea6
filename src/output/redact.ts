// Secrets never reach stdout, stderr, traces or error messages: at most their last 4 characters.

/** Masks a secret as `****abcd` (last 4 characters only; nothing for short secrets). */
export function mask(secret: string | undefined | null): string {
  if (!secret) return '';
  return secret.length <= 8 ? '****' : `****${secret.slice(-4)}`;
}

/**
 * Replaces every occurrence of each known secret in `text` with its mask: as it is, and as it reads inside JSON
 * text (a secret with a quote, a backslash or a control character is escaped there, once or twice when an
 * error body is itself quoted in a JSON error line). Secrets shorter than 4 characters are left: masking them
 * would garble every word that contains them.
 */
export function redact(text: string, secrets: Iterable<string | undefined | null>): string {
  let out = text;
  for (const s of secrets) {
    if (!s || s.length < 4) continue;
    out = out.split(s).join(mask(s));
    // As a URL or a form body carries it (a server echoing a request back): percent-encoded as a URL encodes it
    // or as a form does (which encodes ! ' ( ) ~ too, and a space as +), in upper or lower case hex.
    for (const encoded of new Set([encodeURIComponent(s), new URLSearchParams({ s }).toString().slice(2)])) {
      if (encoded === s) continue;
      const lower = encoded.replace(/%[0-9A-F]{2}/g, (h) => h.toLowerCase());
      out = out.split(encoded).join(mask(s)).split(lower).join(mask(s));
    }
    const inJson = JSON.stringify(s).slice(1, -1);
    if (inJson !== s) {
      out = out.split(inJson).join(mask(s));
      const twice = JSON.stringify(inJson).slice(1, -1);
      out = out.split(twice).join(mask(s));
    }
  }
  // JSON bodies: mask values of password/token/api-key-like keys whatever they are, also in JSON quoted in JSON.
  return out
    .replace(/("(?:password|token|api_key|apiKey|auth_token|access_token)"\s*:\s*")((?:[^"\\]|\\.)*)(")/gi, (_m, a: string, v: string, b: string) => `${a}${mask(v)}${b}`)
    // Quoted twice, the value's own quote reads \\\" and its backslash \\\\; a lone \" ends it.
    .replace(/(\\"(?:password|token|api_key|apiKey|auth_token|access_token)\\"\s*:\s*\\")((?:[^"\\]|\\\\\\"|\\\\\\\\|\\\\[^"\\])*)(\\")/gi, (_m, a: string, v: string, b: string) => `${a}${mask(v)}${b}`);
}

/**
 * A copy of `value` (a parsed JSON body) with every string in it redacted, keys too (a validation error's field
 * paths are the server's words); `value` itself when there are no secrets.
 */
export function redactDeep<T>(value: T, secrets: ReadonlyArray<string>): T {
  if (secrets.length === 0) return value;
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return redact(v, secrets);
    if (Array.isArray(v)) return v.map(walk);
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [redact(k, secrets), walk(x)]));
    return v;
  };
  return walk(value) as T;
}
