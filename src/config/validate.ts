// Checks for values that reach the config file or the resolved settings: URLs, printers, formats, names.
// Pure functions, so `config set` and settings resolution refuse the same things with the same words.
import { UsageError } from '../errors.js';

/** Label formats the API can return. */
export const LABEL_FORMATS = ['ZPL', 'PDF', 'PNG'] as const;
export type LabelFormat = (typeof LABEL_FORMATS)[number];

/** Whether a URL host is this machine: 127.0.0.0/8, ::1 or localhost. */
export function isLoopbackHost(hostname: string): boolean {
  const h = hostname.toLowerCase().replace(/^\[|\]$/g, '');
  // localhost itself, not *.localhost: the system's resolver may ask DNS for those (glibc's does), and plain http
  // with the credentials would then go wherever DNS says.
  if (h === 'localhost') return true;
  if (h === '::1' || h === '0:0:0:0:0:0:0:1') return true;
  // IPv4-mapped IPv6 loopback, as WHATWG URL normalises it (::ffff:7f00:1).
  if (/^::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}$/.test(h)) return true;
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(h);
  return Boolean(m && Number(m[1]) === 127 && m.slice(2).every((p) => Number(p) <= 255));
}

/**
 * Validates and normalises an API base URL: http(s) with a host, no credentials, query or fragment,
 * no trailing slash. Plain http to a non-loopback host is refused unless `insecure`.
 * `what` names the setting in messages (e.g. "--base-url", "SHIP_BASE_URL", "base_url").
 */
export function normalizeBaseUrl(raw: string, opts: { insecure?: boolean; what: string }): string {
  // Shown in messages with any password and query hidden: the URL is refused, its secrets must not be echoed.
  const value = shownUrl(raw.trim());
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new UsageError(`${opts.what}: "${value}" is not a URL`, {
      hint: 'give a full URL including the version segment, e.g. https://api.example.com/v1.2',
    });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UsageError(`${opts.what}: "${value}" must start with https:// or http://`);
  }
  if (!url.hostname) throw new UsageError(`${opts.what}: "${value}" has no host`);
  if (url.username || url.password) {
    // Credentials in a URL end up in shell history, traces and error messages.
    throw new UsageError(`${opts.what}: the URL must not contain a user name or password`, {
      hint: 'use `ship login` or SHIP_API_KEY / SHIP_TOKEN for credentials',
    });
  }
  if (url.search || url.hash) throw new UsageError(`${opts.what}: "${value}" must not contain a query or fragment`);
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname) && !opts.insecure) {
    throw new UsageError(`${opts.what}: refusing plain http:// to ${url.hostname}: credentials would travel unencrypted`, {
      hint: 'use https://, or pass --insecure if you really mean it',
    });
  }
  return url.toString().replace(/\/+$/, '');
}

/**
 * A URL as it may be shown: a password in it (`//user:secret@`), a user name standing alone (`//sk_live_…@`,
 * how keys are often passed) and its query (which may carry a key) replaced by `****`. Works on text that does
 * not parse as a URL too.
 */
export function shownUrl(text: string): string {
  // The user information runs to the LAST @ before the query or fragment (a password may hold / @ or a space
  // itself), from after the scheme's // or, without one (a printer given as u:pw@host:9100), from the start. An
  // @ in the query (an e-mail address) is the query's, masked with it.
  const end = text.search(/[?#]/);
  const lastAt = (end < 0 ? text : text.slice(0, end)).lastIndexOf('@');
  const at = lastAt < 0 ? undefined : lastAt + 1;
  let out = text;
  if (at !== undefined) {
    const scheme = /^[A-Za-z][A-Za-z0-9+.-]*:\/\//.exec(text)?.[0] ?? (text.startsWith('//') ? '//' : '');
    const info = text.slice(scheme.length, at - 1);
    out = `${scheme}${info.includes(':') ? info.slice(0, info.indexOf(':') + 1) : ''}****@${text.slice(at)}`;
  }
  // The query and the fragment may carry a key or a token (#access_token=…), spaces included.
  return out.replace(/\?[^#]+/, '?****').replace(/#.+$/s, '#****');
}

/** A printer address `tcp://HOST:PORT`, parsed. */
export interface PrinterAddress {
  host: string;
  port: number;
}

/**
 * Parses `tcp://HOST:PORT` (IPv6 hosts in brackets); throws UsageError naming `what` otherwise. The one parser of
 * printer addresses, for --printer as for the config: the port is required (the contract's tcp://HOST:PORT),
 * and a missing or impossible one is named as such, with the usual raw port in the hint.
 * An IPv6 host may name its zone (the interface of a link-local address), as RFC 6874 writes it,
 * `[fe80::1%25eth0]`, or as ip(8) and ping do, `[fe80::1%eth0]`; the host returned is `fe80::1%eth0`, the form
 * net.connect takes.
 */
export function parsePrinterUrl(raw: string, what = 'printer'): PrinterAddress {
  const m = /^tcp:\/\/(\[[0-9a-fA-F:.]+(?:%[A-Za-z0-9._~-]+)?\]|[A-Za-z0-9._-]+)(?::(\d*))?\/?$/i.exec(raw.trim());
  // Shown with any user name and password hidden (tcp://user:secret@host:9100 is refused, not echoed).
  if (!m) throw new UsageError(`${what}: "${shownUrl(raw.trim())}" is not a printer address`, { hint: 'use tcp://HOST:PORT, e.g. tcp://10.0.0.50:9100' });
  const usual = `a label printer's raw port is usually 9100: tcp://${m[1]}:9100`;
  if (!m[2]) throw new UsageError(`${what}: "${raw}" has no port`, { hint: usual });
  const port = Number(m[2]);
  if (m[2].length > 5 || port < 1 || port > 65535) throw new UsageError(`${what}: "${raw}": port ${m[2]} is not a TCP port (1 to 65535)`, { hint: usual });
  // "%25" is RFC 6874's percent-encoded "%" when a zone follows it; "%25" alone is the zone 25 (Windows numbers its
  // interfaces). Node would take "fe80::1%25eth0" for the zone "25eth0".
  return { host: m[1].replace(/^\[|\]$/g, '').replace(/%25(?=.)/, '%'), port };
}

/** Normalises a label format (case-insensitive) or throws UsageError listing the choices. */
export function parseLabelFormat(raw: string, what = 'label_format'): LabelFormat {
  const v = raw.trim().toUpperCase();
  if ((LABEL_FORMATS as readonly string[]).includes(v)) return v as LabelFormat;
  throw new UsageError(`${what}: "${raw}" is not a label format; use one of ${LABEL_FORMATS.join(', ')}`);
}

/** Parses a timeout in seconds (positive, finite, at most `maxSeconds`, by default a day) into milliseconds. */
export function parseTimeoutSeconds(raw: string | number, what = 'timeout', maxSeconds = 86_400): number {
  // Plain decimal seconds only: Number() also reads "0x10" (16) and "1e3" (1000), which nobody means here.
  const n = typeof raw === 'number' ? raw : /^\d*\.?\d+$|^\d+\.$/.test(String(raw).trim()) ? Number(String(raw).trim()) : Number.NaN;
  if (String(raw).trim() === '' || !Number.isFinite(n) || n <= 0) {
    throw new UsageError(`${what}: "${raw}" is not a timeout; give a positive number of seconds, e.g. 30`);
  }
  if (n > maxSeconds) throw new UsageError(`${what}: "${raw}" is too long; give at most ${maxSeconds} seconds`);
  // At least a millisecond: 0 would read as "not set" (the 30 s default), the opposite of what was asked.
  return Math.max(1, Math.round(n * 1000));
}

const NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

/** Profile and printer names: letters, digits, `_` and `-` (they become keys in the config file). */
export function validateName(raw: string, what: string): string {
  if (!NAME.test(raw)) {
    throw new UsageError(`${what}: "${raw}" is not a valid name; use letters, digits, "_" and "-" (at most 64)`);
  }
  return raw;
}

/**
 * Where a credential has a character an HTTP header cannot carry as it is: anything but visible ASCII (what API
 * keys and tokens are made of). A space, a line break or a zero-width space pasted with the key would otherwise
 * fail every request as a network error. Returns the problem in words (naming the character, never the
 * secret), or undefined when the value can be sent.
 */
export function credentialProblem(value: string): string | undefined {
  let i = 0;
  for (const ch of value) {
    i++;
    if (ch < '!' || ch > '~') {
      const code = `U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
      const name = ch === ' ' ? 'a space' : ch === '\n' || ch === '\r' ? 'a line break' : ch === '\t' ? 'a tab' : `the character ${code}`;
      return `has ${name} at position ${i}; only visible ASCII characters can be sent in an HTTP header`;
    }
  }
  return undefined;
}
