// Request and response shapes of the sandbox's handlers, and the error that becomes an enveloped answer.

/** An error answered as `{message, data}` with the given status. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly data: unknown = null,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

/** A parsed API request as handlers see it. */
export interface ApiRequest {
  method: string;
  /** Path below the version segment, e.g. `/shipments/ABC/events`. */
  path: string;
  /** Decoded path parameters by name. */
  params: Record<string, string>;
  query: URLSearchParams;
  /** Parsed JSON body (undefined when there was none). */
  body: unknown;
  headers: Record<string, string | string[] | undefined>;
  /** The authenticated user's id (set for every route but POST /tokens). */
  userId?: string;
  /** The raw token of the request, when one was sent and valid. */
  token?: string;
  /** `http://host:port` as the client addressed us, for absolute links. */
  origin: string;
}

/** What a handler answers: status and JSON body. */
export interface ApiResponse {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

/** `{message, data}` with status 200 (or the given status). */
export function ok(message: string, data: unknown, status = 200): ApiResponse {
  return { status, body: { message, data } };
}

/** 404 with the envelope. */
export function notFound(message: string): HttpError {
  return new HttpError(404, message, null);
}
