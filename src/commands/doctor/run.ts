// `ship doctor`: a checklist of the local setup. Reads only: config file, credentials (masked), base URL
// reachability and TLS, token validity (GET /tokens), the clock against the server's, and printer ports.
import { statSync } from 'node:fs';
import { platform } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import type { Ctx } from '../../context.js';
import type { Settings } from '../../config/settings.js';
import { ApiError, AuthError, ExitCode, NotFoundError, ShipError } from '../../errors.js';
import { mask } from '../../output/redact.js';
import { zoneHint, zoneOf, zoneProblem, zoneRefused } from '../../printer/zone.js';

export interface DoctorOptions {
  printerTimeoutMs: number;
}

export type CheckStatus = 'ok' | 'warn' | 'fail' | 'skip';

/** One line of the checklist. */
export interface Check {
  name: string;
  status: CheckStatus;
  detail: string;
  ms?: number;
  /** Where the value came from (flag, env, profile, default), for settings. */
  source?: string;
  /** Credential problems make doctor exit 4 rather than 1. */
  credentials?: boolean;
}

/** Wider than this (group/other bits) is a warning for the config file. */
const PRIVATE_MODE_MASK = 0o077;
/** The clock may be off by this much before doctor warns. */
const CLOCK_SKEW_LIMIT_MS = 2 * 60 * 1000;

/** Runs every check, prints the list, and throws (exit 4 for credentials, else 1) when any failed. */
export async function run(ctx: Ctx, opts: DoctorOptions): Promise<void> {
  const checks: Check[] = [];
  const add = (c: Check) => {
    checks.push(c);
    print(ctx, c);
  };

  // The store tightens a too-open file when it opens it, so look first where we can predict the path.
  const predicted = ctx.env.SHIP_CONFIG_DIR ? join(resolve(ctx.env.SHIP_CONFIG_DIR), 'config.json') : undefined;
  const modeBefore = predicted ? fileMode(predicted) : undefined;

  let settings: Settings | undefined;
  let configPath: string | undefined;
  try {
    const store = await ctx.config();
    configPath = store.path;
    settings = await ctx.settings();
  } catch (err) {
    add({ name: 'config', status: 'fail', detail: errText(err) });
  }

  if (configPath) add(configCheck(configPath, modeBefore, settings));
  if (!settings) return finish(ctx, checks);

  const srcOf = (r: { source: string; origin?: string }) => (r.origin ? `${r.source} ${r.origin}` : r.source);
  // A profile no profile has, where it was to give the credentials or the base URL: commands refuse it.
  let profileRefused = false;
  {
    const { profilesNote, unknownProfile, unknownProfileNeeded } = await import('../../config/store.js');
    const store = await ctx.config();
    const unknown = unknownProfile(store);
    profileRefused = unknownProfileNeeded(store, settings) !== undefined;
    add(
      unknown
        ? { name: 'profile', status: 'warn', detail: `${settings.profile.value}: not in the config file${profilesNote(store.profileNames())}`, source: srcOf(settings.profile) }
        : { name: 'profile', status: 'ok', detail: settings.profile.value, source: srcOf(settings.profile) },
    );
  }
  add({
    name: 'base URL',
    status: 'ok',
    detail: `${settings.baseUrl.value}${settings.testMode.value ? ' (test mode)' : ''}`,
    source: srcOf(settings.baseUrl),
  });
  const { loginCommand, rejectedFromEnvHint } = await import('../../config/settings.js');
  const login = loginCommand(settings);
  // Credentials the environment supplied are set anew there (\`ship login\` does not replace them), as everywhere.
  const fromEnv = rejectedFromEnvHint(settings);
  const renewed = fromEnv ?? `run \`${login}\``;
  // Which of the profile's two credential sets goes with this base URL (the test set is apart from the live one).
  add({ name: 'credentials', status: 'ok', detail: `${settings.credentialSet.name} set (${settings.credentialSet.why})` });
  const apiKey = settings.apiKey;
  const token = settings.token;
  const inSet = settings.credentialSet.name === 'test' ? ' in the test set' : '';
  add(
    apiKey
      ? { name: 'API key', status: 'ok', detail: mask(apiKey.value), source: srcOf(apiKey) }
      : { name: 'API key', status: 'fail', detail: `none${inSet}: set SHIP_API_KEY or run \`${login}\` (it asks for the key)`, credentials: true },
  );
  add(
    token
      ? { name: 'token', status: 'ok', detail: mask(token.value), source: srcOf(token) }
      : { name: 'token', status: 'fail', detail: `none${inSet}: run \`${login}\` or set SHIP_TOKEN`, credentials: true },
  );

  const base = new URL(settings.baseUrl.value);
  const timeoutMs = Math.min(settings.timeoutMs.value, 10_000);
  const { probeHttp, probeTls, probeTcp } = await import('./probes.js');

  let reachable = false;
  // Reached, but what answers there is not the API (a wrong or missing version segment, a wrong path).
  let notTheApi = false;
  let probe: Awaited<ReturnType<typeof probeHttp>> | undefined;
  try {
    // GET /tokens without credentials: the API answers 401 (or 200), whereas the base URL itself is no endpoint
    // and a server answers 404 there as it does for a wrong version segment, which would then pass unnoticed.
    probe = await probeHttp(tokensUrl(base), timeoutMs);
    reachable = true;
    if (probe.status === 404) {
      notTheApi = true;
      add({ name: 'reachable', status: 'fail', detail: `${base.host} answered HTTP 404 for GET ${base.pathname.replace(/\/+$/, '')}/tokens: ${await wrongBaseUrl(settings, base, (u) => probeHttp(tokensUrl(u), timeoutMs))}`, ms: probe.ms });
    } else {
      add({ name: 'reachable', status: 'ok', detail: `${base.host} answered HTTP ${probe.status}`, ms: probe.ms });
    }
  } catch (err) {
    add({ name: 'reachable', status: 'fail', detail: `${base.host}: ${errText(err)}` });
  }

  if (base.protocol === 'https:') {
    // Probed even when the HTTP request failed: an untrusted certificate is often why it failed.
    {
      try {
        const port = base.port ? Number(base.port) : 443;
        const tls = await probeTls(base.hostname, port, timeoutMs);
        const now = ctx.clock.now().getTime();
        const days = tls.validTo ? Math.floor((tls.validTo.getTime() - now) / 86_400_000) : undefined;
        const who = [tls.protocol, tls.issuer ? `issued by ${tls.issuer}` : ''].filter(Boolean).join(', ');
        if (!tls.authorized) add({ name: 'TLS', status: 'fail', detail: `certificate not trusted: ${tls.authorizationError ?? 'unknown reason'}` });
        else if (days !== undefined && days < 0) add({ name: 'TLS', status: 'fail', detail: `certificate expired ${-days} days ago` });
        else if (days !== undefined && days < 14) add({ name: 'TLS', status: 'warn', detail: `certificate expires in ${days} days (${who})` });
        else add({ name: 'TLS', status: 'ok', detail: `certificate valid${days !== undefined ? ` for ${days} more days` : ''}${who ? ` (${who})` : ''}` });
      } catch (err) {
        add({ name: 'TLS', status: 'fail', detail: errText(err) });
      }
    }
  } else {
    const { isLoopbackHost } = await import('../../config/validate.js');
    add(
      isLoopbackHost(base.hostname)
        ? { name: 'TLS', status: 'ok', detail: 'plain http (loopback)' }
        : { name: 'TLS', status: 'warn', detail: `plain http to ${base.hostname}: credentials travel unencrypted (--insecure)` },
    );
  }

  if (!apiKey || !token) add({ name: 'token valid', status: 'skip', detail: 'no credentials to check' });
  else if (profileRefused) add({ name: 'token valid', status: 'skip', detail: 'commands refuse a profile not in the config file when it would give the base URL (see profile)' });
  else if (!reachable) add({ name: 'token valid', status: 'skip', detail: 'server not reachable' });
  else if (notTheApi) add({ name: 'token valid', status: 'skip', detail: 'the base URL does not lead to the API (see reachable)' });
  else {
    const t0 = performance.now();
    try {
      const api = await ctx.api();
      const valid = await api.tokens.check();
      const ms = Math.round(performance.now() - t0);
      await api.close().catch(() => {});
      add(
        valid
          ? { name: 'token valid', status: 'ok', detail: 'GET /tokens answered 200', ms }
          : { name: 'token valid', status: 'fail', detail: `GET /tokens answered 401: the token or API key was refused; ${renewed}`, ms, credentials: true },
      );
    } catch (err) {
      const ms = Math.round(performance.now() - t0);
      // The client's message already starts with the request ("GET /tokens: not found (…)"): say it once.
      let detail = `GET /tokens: ${errText(err).replace(/^GET \/tokens:\s*/, '')}`;
      // A 404 for GET /tokens means the base URL does not point at the API (a missing or wrong /v1.2 segment).
      if (err instanceof NotFoundError) detail += `; check the base URL: it must include the API version, e.g. ${new URL('/v1.2', base).href}`;
      add({ name: 'token valid', status: 'fail', detail, ms, credentials: err instanceof AuthError });
    }
  }

  if (probe?.serverDate) {
    // The Date header has whole seconds; compare with the middle of the round trip.
    const skew = probe.localMidpoint.getTime() - probe.serverDate.getTime();
    const words = `${formatDuration(Math.abs(skew))} ${skew > 0 ? 'ahead of' : 'behind'} the server`;
    add(
      Math.abs(skew) > CLOCK_SKEW_LIMIT_MS
        ? { name: 'clock', status: 'warn', detail: `local clock is ${words}: timestamps and despatch dates may be off` }
        : { name: 'clock', status: 'ok', detail: Math.abs(skew) < 2000 ? 'in step with the server' : `local clock is ${words}` },
    );
  } else {
    add({ name: 'clock', status: 'skip', detail: reachable ? 'the server sent no Date header' : 'server not reachable' });
  }

  for (const p of await printers(ctx, settings)) {
    if ('error' in p) {
      add({ name: `printer ${p.name}`, status: 'fail', detail: p.error });
      continue;
    }
    // Refused as the printing commands refuse it (printer/index.ts): connecting would only say EINVAL.
    const problem = zoneProblem(p.host);
    if (problem) {
      add({ name: `printer ${p.name}`, status: 'fail', detail: zoneDetail(p, problem) });
      continue;
    }
    try {
      const ms = await probeTcp(p.host, p.port, opts.printerTimeoutMs);
      add({ name: `printer ${p.name}`, status: 'ok', detail: `${p.url} accepts connections`, ms });
    } catch (err) {
      const code = ((err as Error).cause as NodeJS.ErrnoException | undefined)?.code;
      // A zone that passed the check but that the system would not use all the same (a number on Windows).
      const detail = code === 'EINVAL' && zoneOf(p.host) !== undefined ? zoneDetail(p, zoneRefused(p.host)) : `${p.url}: ${errText(err)}`;
      add({ name: `printer ${p.name}`, status: 'fail', detail });
    }
  }

  return finish(ctx, checks, login, fromEnv);
}

/** `base`'s GET /tokens URL (the base URL's path kept). */
function tokensUrl(base: URL): string {
  const u = new URL(base.href);
  u.pathname = `${u.pathname.replace(/\/+$/, '')}/tokens`;
  return u.href;
}

/**
 * Says that the base URL looks wrong, naming it, and what to use: a trailing version segment turned into v1.2,
 * else /v1.2 appended, else /v1.2 at the root; the first of them where the API answers (not 404) is offered
 * as the fix, with where to set it, else the first as the form to follow.
 */
async function wrongBaseUrl(settings: Settings, base: URL, probe: (u: URL) => Promise<{ status: number }>): Promise<string> {
  const { shownUrl } = await import('../../config/validate.js');
  const path = base.pathname.replace(/\/+$/, '');
  const candidates = [
    /\/v\d+(\.\d+)*$/i.test(path) ? path.replace(/\/v\d+(\.\d+)*$/i, '/v1.2') : `${path}/v1.2`,
    '/v1.2',
  ]
    .filter((p, i, all) => all.indexOf(p) === i && p !== path)
    .map((p) => {
      const u = new URL(base.href);
      u.pathname = p;
      return u;
    });
  const said = `the base URL ${shownUrl(base.href.replace(/\/+$/, ''))} looks wrong: the API is not there`;
  for (const u of candidates) {
    const answered = await probe(u).then(
      (r) => r.status !== 404,
      () => false,
    );
    if (!answered) continue;
    const url = shownUrl(u.href);
    const origin = settings.baseUrl.origin;
    const how =
      settings.baseUrl.source === 'flag'
        ? `--base-url ${url}`
        : settings.baseUrl.source === 'env'
          ? `SHIP_BASE_URL=${url}`
          : `ship config set ${origin ?? 'base_url'} ${url}`;
    return `${said}; it answers at ${url}: use ${how}`;
  }
  if (candidates.length === 0) return `${shownUrl(base.href)} does not look like the API's address (it has no /tokens): check the host, the port and the path`;
  return `${said}; its address ends in the API version, e.g. ${shownUrl(candidates[0].href)}`;
}

function configCheck(path: string, modeBefore: number | undefined, settings: Settings | undefined): Check {
  const mode = fileMode(path);
  if (mode === undefined) {
    const fromEnv = settings?.apiKey?.source === 'env' && settings?.token?.source === 'env';
    return {
      name: 'config file',
      status: fromEnv ? 'ok' : 'warn',
      detail: `${path} does not exist${fromEnv ? ' (credentials come from the environment)' : ': run `ship login`'}`,
    };
  }
  const octal = (m: number) => `0${(m & 0o777).toString(8)}`;
  if (modeBefore !== undefined && (modeBefore & PRIVATE_MODE_MASK) !== 0 && (mode & PRIVATE_MODE_MASK) === 0) {
    return { name: 'config file', status: 'warn', detail: `${path} was mode ${octal(modeBefore)} (readable by others); tightened to ${octal(mode)}` };
  }
  if ((mode & PRIVATE_MODE_MASK) !== 0 && platform() !== 'win32') {
    return { name: 'config file', status: 'warn', detail: `${path} has mode ${octal(mode)}, wider than 0600: run \`chmod 600 ${path}\`` };
  }
  const dirMode = fileMode(dirname(path));
  if (dirMode !== undefined && (dirMode & 0o022) !== 0 && platform() !== 'win32') {
    return { name: 'config file', status: 'warn', detail: `${path} (mode ${octal(mode)}), but its directory is writable by others (mode ${octal(dirMode)})` };
  }
  return { name: 'config file', status: 'ok', detail: platform() === 'win32' ? path : `${path} (mode ${octal(mode)})` };
}

interface PrinterTarget {
  name: string;
  url: string;
  host: string;
  port: number;
  /** The printers.NAME entry the address is set in, so a fix can name the `ship config set` for it. */
  entry?: string;
}

/** A printer check's detail for a zone that cannot be used: why, then the address that would do. */
function zoneDetail(p: PrinterTarget, why: string): string {
  return `${p.url}: ${why}; ${zoneHint(p.host, p.port, p.entry)}`;
}

/** The profile's default printer and every printers.NAME entry, each address once. */
async function printers(ctx: Ctx, settings: Settings): Promise<Array<PrinterTarget | { name: string; error: string }>> {
  const { parsePrinterUrl } = await import('../../config/validate.js');
  const store = await ctx.config();
  const profile = store.profile(settings.profile.value);
  const out: Array<PrinterTarget | { name: string; error: string }> = [];
  const seen = new Set<string>();
  const addOne = (name: string, resolveUrl: () => string, entry?: string) => {
    try {
      const url = resolveUrl();
      if (seen.has(url)) return;
      seen.add(url);
      out.push({ name, url, entry, ...parsePrinterUrl(url, name) });
    } catch (err) {
      out.push({ name, error: errText(err) });
    }
  };
  if (typeof profile.printer === 'string' && profile.printer) {
    const p = profile.printer;
    const entry = p.startsWith('tcp://') ? undefined : p;
    addOne(entry ? `${entry} (default)` : 'default', () => store.resolvePrinter(p, settings.profile.value), entry);
  }
  const named = profile.printers && typeof profile.printers === 'object' ? profile.printers : {};
  for (const [name, url] of Object.entries(named)) addOne(name, () => String(url), name);
  return out;
}

function finish(ctx: Ctx, checks: Check[], login = 'ship login', fromEnv?: string): void {
  const failed = checks.filter((c) => c.status === 'fail');
  const warned = checks.filter((c) => c.status === 'warn');
  const exitCode = failed.length === 0 ? ExitCode.Ok : failed.some((c) => c.credentials) ? ExitCode.Auth : ExitCode.Failure;
  if (ctx.mode.json) {
    ctx.out.json({ ok: failed.length === 0, exit_code: exitCode, checks });
  } else {
    const c = ctx.out.c;
    const summary =
      failed.length === 0
        ? c.green(`No problems found${warned.length ? ` (${warned.length} warning${warned.length === 1 ? '' : 's'})` : ''}`)
        : c.red(`${failed.length} check${failed.length === 1 ? '' : 's'} failed`);
    ctx.out.info(summary);
  }
  if (failed.length > 0) {
    const names = failed.map((f) => f.name).join(', ');
    // The environment's credentials are to be set anew when the service refused them; a credential missing
    // from the set in use (no token stored for test mode) is stored by the login.
    const refused = failed.some((f) => f.name === 'token valid');
    if (exitCode === ExitCode.Auth) throw new AuthError(`doctor: ${checksText(names)} failed`, {}, { hint: (refused ? fromEnv : undefined) ?? `run \`${login}\`, or set SHIP_API_KEY and SHIP_TOKEN` });
    throw new ShipError(`doctor: ${checksText(names)} failed`, ExitCode.Failure);
  }
}

function print(ctx: Ctx, check: Check): void {
  if (ctx.mode.json) return;
  // --quiet: only what needs attention (as smoke --quiet), so `ship doctor -q` in a script prints nothing when all is well.
  if (ctx.mode.quiet && (check.status === 'ok' || check.status === 'skip')) return;
  const c = ctx.out.c;
  const mark = { ok: c.green('✓'), warn: c.yellow('!'), fail: c.red('✗'), skip: c.dim('–') }[check.status];
  const extra = [check.source ? c.dim(`from ${check.source}`) : '', check.ms !== undefined ? c.dim(`${check.ms}ms`) : ''].filter(Boolean).join(' ');
  // The yellow ! marks a warning; its words stay in the terminal's own colour (yellow text is faint on white).
  const detail = check.status === 'fail' ? c.red(check.detail) : check.detail;
  ctx.out.line(`${mark} ${check.name.padEnd(14)} ${detail}${extra ? `  ${extra}` : ''}`);
}

function fileMode(path: string): number | undefined {
  try {
    return statSync(path).mode;
  } catch {
    return undefined;
  }
}

function formatDuration(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ${s % 60}s`;
  return `${Math.floor(m / 60)}h ${m % 60}m`;
}

function errText(err: unknown): string {
  if (err instanceof ApiError && err.http.status) return `${err.message} (HTTP ${err.http.status})`;
  return err instanceof Error ? err.message : String(err);
}

/** The failed checks by name, as a sentence reads them: "the check token valid", "the checks clock, token". */
function checksText(names: string): string {
  return `the check${names.includes(', ') ? 's' : ''} ${names}`;
}
