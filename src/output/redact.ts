// Secrets never reach stdout, stderr, traces or error messages: at most their last 4 characters.

/** Masks a secret as `****abcd` (last 4 characters only; nothing for short secrets). */
export function mask(secret: string | undefined | null): string {
  if (!secret) return '';
  return secret.length <= 8 ? '****' : `****${secret.slice(-4)}`;
}

/** Replaces every occurrence of each known secret in `text` with its mask. */
export function redact(text: string, secrets: ReadonlyArray<string | undefined | null>): string {
  let out = text;
  for (const s of secrets) {
    if (s && s.length >= 4) out = out.split(s).join(mask(s));
  }
  // JSON bodies: mask values of password/token/api-key-like keys whatever they are.
  return out.replace(
    /("(?:password|token|api_key|apiKey|auth_token|access_token)"\s*:\s*")([^"]*)(")/gi,
    (_m, a: string, v: string, b: string) => `${a}${mask(v)}${b}`,
  );
}
