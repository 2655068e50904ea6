// Errors are values with an exit code; src/main.ts is the one place that turns them into messages.

/** Exit codes of the contract (cli-contract.md, "Exit codes"). */
export const ExitCode = {
  Ok: 0,
  Failure: 1,
  Usage: 2,
  Partial: 3,
  Auth: 4,
  NotFound: 5,
  Interrupted: 130,
  /** Stopped by SIGTERM (kill, a cron or systemd timeout) after a clean stop: 128 + 15, as shells report it. */
  Terminated: 143,
  /** A bulk run stopped because its stdout was closed (`| head`): 128 + 13, SIGPIPE's, as shells report it. */
  BrokenPipe: 141,
} as const;
export type ExitCodeValue = (typeof ExitCode)[keyof typeof ExitCode];

/** Base class of every error `ship` expects; anything else is a bug and exits 1 with a stack in --verbose. */
export class ShipError extends Error {
  readonly exitCode: number;
  /** A next step for the user, printed after the message (e.g. "run `ship login`"). */
  hint?: string;
  constructor(message: string, exitCode: number, options?: { hint?: string; cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.exitCode = exitCode;
    this.hint = options?.hint;
  }
}

/** Bad flags, arguments or input files (exit 2). */
export class UsageError extends ShipError {
  constructor(message: string, options?: { hint?: string; cause?: unknown }) {
    super(message, ExitCode.Usage, options);
  }
}

/** One problem found in user input, located as precisely as we can (a CSV row and column, or a field path). */
export interface InputProblem {
  /** 1-based line number of the CSV data row (header is row 1), when the input is a CSV file. */
  row?: number;
  /** The user's own column or field name. */
  column?: string;
  message: string;
}

/** Where an input problem is, in the user's own terms: `row 4, column to_country`, `--to-postcode`, or `field parcels.0.weight`. */
export function problemLocation(p: { row?: number; column?: string }): string {
  if (p.row !== undefined) return p.column ? `row ${p.row}, column ${p.column}` : `row ${p.row}`;
  if (!p.column) return '';
  return p.column.startsWith('-') ? p.column : `field ${p.column}`;
}

/** An input problem as one line: "row 4, column to_postcode: is required". */
export function problemText(p: InputProblem): string {
  const where = problemLocation(p);
  return where ? `${where}: ${p.message}` : p.message;
}

/**
 * Warnings as lines, the same one of many rows said once: a file made for an earlier day has its past
 * despatch date in every row, and 2,000 identical lines would bury anything else. Rows are listed up to
 * `shown`, then counted.
 */
export function groupedProblemLines(problems: ReadonlyArray<InputProblem>, shown = 5): string[] {
  const groups = new Map<string, InputProblem[]>();
  for (const p of problems) {
    const key = p.row === undefined ? `\u0001${groups.size}` : `${p.column ?? ''}\u0000${p.message}`;
    const g = groups.get(key);
    if (g) g.push(p);
    else groups.set(key, [p]);
  }
  return [...groups.values()].map((g) => {
    if (g.length === 1) return problemText(g[0]);
    const rows = g.slice(0, shown).map((p) => p.row).join(', ');
    const more = g.length > shown ? ` and ${g.length - shown} more` : '';
    return `rows ${rows}${more}${g[0].column ? `, column ${g[0].column}` : ''}: ${g[0].message}`;
  });
}

/** Client-side validation of user input failed (exit 2); lists every problem, not just the first. */
export class InputError extends UsageError {
  readonly problems: InputProblem[];
  constructor(message: string, problems: InputProblem[], options?: { hint?: string }) {
    super(message, options);
    this.problems = problems;
  }
}

/** Fields of an HTTP exchange that errors carry for --verbose and for JSON error output. */
export interface HttpErrorInfo {
  status?: number;
  method?: string;
  path?: string;
  /** The API's `message` field, verbatim. */
  apiMessage?: string;
  retryAfterMs?: number;
  /** Attempts the API layer made, when it retried (a safe method after network trouble, 429 or 502/503/504). */
  attempts?: number;
}

/** The API or the network failed: 5xx, timeout, reset, refused, unparseable response (exit 1). */
export class ApiError extends ShipError {
  readonly http: HttpErrorInfo;
  constructor(message: string, http: HttpErrorInfo = {}, options?: { hint?: string; cause?: unknown; exitCode?: number }) {
    super(message, options?.exitCode ?? ExitCode.Failure, options);
    this.http = http;
  }
}

/** The request never got an answer (timeout, reset, refused, DNS); its outcome on the server is unknown. */
export class NetworkError extends ApiError {
  /** 'timeout' | 'reset' | 'refused' | 'dns' | 'other' */
  readonly kind: string;
  constructor(message: string, kind: string, http: HttpErrorInfo = {}, options?: { hint?: string; cause?: unknown }) {
    super(message, http, options);
    this.kind = kind;
  }
}

/** A 400 validation failure; `fields` maps dotted field paths to the API's messages (exit 2). */
export class ValidationError extends ApiError {
  readonly fields: Record<string, string[]>;
  /**
   * The same messages placed in the user's own input (a flag, a field of their JSON file, a CSV row and
   * column), when the command knows where each field came from; shown instead of the API's field paths.
   */
  located?: InputProblem[];
  constructor(message: string, fields: Record<string, string[]>, http: HttpErrorInfo = {}) {
    super(message, http, { exitCode: ExitCode.Usage });
    this.fields = fields;
  }
}

/** The hint of a 401 (main.ts names the env vars when they, not the profile, supplied the credentials). */
export const REJECTED_CREDENTIALS_HINT = 'the API key or token was rejected; run `ship login`';

/**
 * Which credential a 401 refused, when the service's message says: the API key ("The API key supplied is not
 * valid"), or the token (revoked by a logout elsewhere, expired). Undefined when it does not say.
 */
export function refusedCredential(apiMessage: string | undefined): 'apiKey' | 'token' | undefined {
  if (apiMessage === undefined) return undefined;
  if (/api[ _-]?key/i.test(apiMessage)) return 'apiKey';
  if (/token/i.test(apiMessage)) return 'token';
  return undefined;
}

/** No credentials, 401 or 403 (exit 4). */
export class AuthError extends ApiError {
  constructor(message: string, http: HttpErrorInfo = {}, options?: { hint?: string; cause?: unknown }) {
    super(message, http, { ...options, exitCode: ExitCode.Auth });
  }
}

/** 404 (exit 5). */
export class NotFoundError extends ApiError {
  constructor(message: string, http: HttpErrorInfo = {}, options?: { hint?: string }) {
    super(message, http, { ...options, exitCode: ExitCode.NotFound });
  }
}

/** A bulk command finished but some rows failed (exit 3); the per-row results were already printed. */
export class PartialFailure extends ShipError {
  readonly failed: number;
  readonly total: number;
  constructor(failed: number, total: number, message?: string, options?: { hint?: string; exitCode?: number }) {
    super(message ?? `${failed} of ${total} failed`, options?.exitCode ?? ExitCode.Partial, { hint: options?.hint });
    this.failed = failed;
    this.total = total;
  }
}

/**
 * A bulk command finished, and every one of its tasks failed for the service or the network (5xx or 429 after
 * the retries, timeouts, resets), none for its own data: the service is down, so exit 1 as for one request, not 3
 * ("some of your rows are bad"). Still a PartialFailure: the run finished, its summary and FILE.failed.csv written.
 */
export class ServiceFailure extends PartialFailure {
  constructor(failed: number, total: number, message: string, options?: { hint?: string }) {
    super(failed, total, message, { hint: options?.hint, exitCode: ExitCode.Failure });
  }
}

/** A wait the user bounded ran out before what it waited for happened (exit 1, a timeout): `track --watch --max-wait`. */
export class TimedOut extends ShipError {
  constructor(message: string, options?: { hint?: string }) {
    super(message, ExitCode.Failure, options);
  }
}

/** The user pressed Ctrl-C and the command stopped cleanly (exit 130). */
export class Interrupted extends ShipError {
  /** The signal that stopped the command, when one did (main.ts aborts ctx.signal with it). */
  readonly signal?: NodeJS.Signals;
  constructor(message = 'interrupted', signal?: NodeJS.Signals, options?: { hint?: string; exitCode?: number }) {
    super(message, options?.exitCode ?? (signal === 'SIGTERM' ? ExitCode.Terminated : ExitCode.Interrupted), options);
    this.signal = signal;
  }
}

/**
 * True when a long-running server (`ship sandbox`, `ship webhooks listen`) was stopped by SIGTERM: the usual way
 * to stop a service (kill, docker stop, systemd, a test harness), so a clean stop is a success (exit 0). Ctrl-C
 * (SIGINT) is an interruption: exit 130, as for every command (cli-contract, exit codes).
 */
export function stoppedAsService(signal: AbortSignal): boolean {
  return signal.reason instanceof Interrupted && signal.reason.signal === 'SIGTERM';
}

/** Exit code for any thrown value. */
export function exitCodeOf(err: unknown): number {
  return err instanceof ShipError ? err.exitCode : ExitCode.Failure;
}
