// The API layer: one typed function per endpoint of API v1.2. Commands call these and never build URLs.
// Errors are the typed errors of src/errors.ts (ValidationError, AuthError, NotFoundError, ApiError, NetworkError).
import type { Dispatcher } from 'undici';
import type {
  Brand,
  Container,
  ContainerRequest,
  ContainerShipment,
  CustomField,
  CustomFieldRequest,
  DeliveryService,
  Label,
  LabelFormat,
  Location,
  PackagingOptions,
  ShipmentEvents,
  ShipmentRequest,
  ShipmentResponse,
  ServiceQuotes,
  Sku,
  SkuPage,
  SkuPatch,
  SkuRequest,
  TokenResult,
  TrackingEvent,
  User,
} from './schemas.js';
import type { DocumentResult } from './documents.js';
import { buildApi } from './resources.js';

export * from './schemas.js';
export {
  validateShipmentRequest,
  validateCustomFieldRequest,
  validateSkuRequest,
  validateSkuPatch,
  validateContainerRequest,
  validateRequest,
  findBannedText,
  type RequestIssue,
  type ValidationResult,
} from './validate.js';
export { documentBytes, toDocumentResult, type DocumentResult, type DocumentFormat } from './documents.js';

/** How to reach the API and what to report while doing so. */
export interface ApiOptions {
  /** Full base URL including the version segment, e.g. `http://127.0.0.1:4010/v1.2`; its path is kept. */
  baseUrl: string;
  /** Sent as X-SERVICE-API-KEY on every request. */
  apiKey?: string;
  /** Sent as X-SERVICE-TOKEN on every request except POST /tokens. */
  token?: string;
  /** Per-attempt time limit (default 30 000 ms). */
  timeoutMs?: number;
  /**
   * Retries of safe requests (GET, PUT, DELETE, HEAD) on network errors, 429, 502, 503, 504, and of a POST on
   * 429, which the service refused without acting on it (default 3).
   */
  maxRetries?: number;
  /** --verbose: one line per request and per response, secrets redacted. */
  trace?: (line: string) => void;
  /**
   * Other secrets to keep out of traces and errors besides apiKey and token (a login's password); read when
   * needed, so a live set may be passed.
   */
  secrets?: Iterable<string>;
  /** Lenient-parse warnings: a response that did not match its schema (the data is used as received). */
  onWarning?: (message: string) => void;
  /**
   * Called when a request starts (before its first attempt); the function it returns is called once the
   * request is settled, retries included. The CLI shows a spinner meanwhile; the API layer draws nothing.
   */
  onWait?: () => () => void;
  /** Tests inject a MockAgent; otherwise one keep-alive Agent is created per Api. Injected dispatchers are not closed by close(). */
  dispatcher?: Dispatcher;
  /** Default `ship/<version> (node <v>; <platform>)`. */
  userAgent?: string;
  /** Internal (tests): replaces the back-off sleep between retries. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Internal (tests): replaces Math.random in the full-jitter back-off. */
  random?: () => number;
}

/** Per-call options. */
export interface CallOptions {
  /** Aborts the request (and any wait between retries); the call rejects with the signal's reason. */
  signal?: AbortSignal;
  /**
   * The caller retries failures itself (a bulk run's runner, which also tells a wait cut short by Ctrl-C from a
   * failure): a POST refused with 429 is then not retried here.
   */
  callerRetries?: boolean;
}

/** Options of shipments.create. */
export interface CreateShipmentOptions extends CallOptions {
  /**
   * The body is the output of validateShipmentRequest (the caller validated it already, as `create --csv`
   * does for a whole file before the first request): it is sent as it is, without a second validation.
   * Anything else must leave this unset.
   */
  prevalidated?: boolean;
}

/** Body of PUT /shipments/:ref/print. */
export interface PrintOptions {
  print_to_user?: string;
  printer_key?: string;
}

/** Query of GET /services: only services valid for such a parcel are listed. */
export interface ServiceFilter {
  /** grams */
  weight?: number;
  /** cm */
  length?: number;
  /** cm */
  width?: number;
  /** cm */
  depth?: number;
}

/** What GET /tokens says about the token in use. */
export interface TokenSession {
  active: boolean;
  /** Not active: the 401's own message (it may say the API key, not the token, is what it refused). */
  refusal?: string;
  /** The token's user as the server names it, unparsed; absent when the answer names none. */
  user?: Record<string, unknown>;
}

/** The API, grouped by resource. Every method rejects with a src/errors.ts error. */
export interface Api {
  tokens: {
    /** POST /tokens (API key only). The response may lack `user`. */
    create(body: { username: string; password: string }, o?: CallOptions): Promise<TokenResult>;
    /** GET /tokens: true when 200, false when 401; other failures throw. */
    check(o?: CallOptions): Promise<boolean>;
    /**
     * GET /tokens: whether the token is active (200) or not (401), with the user it belongs to when the answer
     * names one (`data.user`: the sandbox's does; the API document shows no body). Other failures throw.
     */
    session(o?: CallOptions): Promise<TokenSession>;
    /** DELETE /tokens: invalidates the token. */
    revoke(o?: CallOptions): Promise<void>;
  };
  shipments: {
    /** POST /shipments (never retried). One element per parcel. Body is validated first (ValidationError with dotted paths). */
    create(body: ShipmentRequest, o?: CreateShipmentOptions): Promise<ShipmentResponse[]>;
    /**
     * POST /shipments with a body given as JSON text that is validateShipmentRequest's output (as
     * `prevalidated`): sent byte for byte, neither validated nor serialised again. For bulk runs, which
     * validate a whole file first and hold the bodies as text.
     */
    createPrevalidated(json: string, o?: CallOptions): Promise<ShipmentResponse[]>;
    /** POST /shipments/get-services: quotes, cheapest first, plus the recommended one. */
    getServices(body: ShipmentRequest, o?: CallOptions): Promise<ServiceQuotes>;
    /** DELETE /shipments/:ref. */
    cancel(ref: string, o?: CallOptions): Promise<{ message: string }>;
    /** GET /shipments/:ref/events: keyed by carrier tracking reference. */
    events(ref: string, o?: CallOptions): Promise<ShipmentEvents>;
    /** PUT /shipments/:ref/print: to the desktop printing application. */
    print(ref: string, body?: PrintOptions, o?: CallOptions): Promise<{ message: string }>;
    /** GET /shipments/:ref/commercial-invoice: base64 PDF. */
    commercialInvoice(ref: string, o?: CallOptions): Promise<DocumentResult>;
  };
  parcels: {
    /** GET /parcels/:ref/events (carrier tracking reference). */
    events(trackingRef: string, o?: CallOptions): Promise<TrackingEvent[]>;
    /** GET /parcels/:ref/label?format=… */
    label(trackingRef: string, q?: { format?: LabelFormat }, o?: CallOptions): Promise<Label[]>;
  };
  users: {
    /** GET /users. */
    list(o?: CallOptions): Promise<User[]>;
  };
  locations: {
    /** GET /locations (data.data, or a plain data array). */
    list(o?: CallOptions): Promise<Location[]>;
    /** GET /locations/:ref (code or id). */
    get(ref: string, o?: CallOptions): Promise<Location>;
  };
  brands: {
    /** GET /brands. */
    list(o?: CallOptions): Promise<Brand[]>;
    /** GET /brands/:ref (key or id). */
    get(ref: string, o?: CallOptions): Promise<Brand>;
  };
  services: {
    /** GET /services[?weight&length&width&depth]. */
    list(filter?: ServiceFilter, o?: CallOptions): Promise<DeliveryService[]>;
  };
  customFields: {
    /** GET /custom-fields. */
    list(o?: CallOptions): Promise<CustomField[]>;
    /** GET /custom-fields/:ref (key or id); the API wraps it in a one-element array, unwrapped here. */
    get(ref: string, o?: CallOptions): Promise<CustomField>;
    /** POST /custom-fields (validated first). */
    create(body: CustomFieldRequest, o?: CallOptions): Promise<CustomField>;
  };
  packaging: {
    /** GET /packaging-options. */
    get(o?: CallOptions): Promise<PackagingOptions>;
  };
  skus: {
    /** POST /skus (never retried); response shape not documented: a Sku when it looks like one, else the raw data. */
    create(body: SkuRequest, o?: CallOptions): Promise<Sku | unknown>;
    /** PUT /skus/:ref with every mandatory attribute. */
    replace(ref: string, body: SkuRequest, o?: CallOptions): Promise<Sku | unknown>;
    /** PATCH /skus/:ref with only the attributes to change (not retried). */
    update(ref: string, body: SkuPatch, o?: CallOptions): Promise<Sku | unknown>;
    /** GET /skus[?page=N]: one page of 30 with links and meta. */
    list(q?: { page?: number }, o?: CallOptions): Promise<SkuPage>;
    /** Follows a `links.next` (or any page) URL; refuses URLs on another origin than baseUrl. */
    page(url: string, o?: CallOptions): Promise<SkuPage>;
    /** Every SKU, page by page: follows links.next (a link to another origin is not followed; its page number is fetched from the base URL instead); stops on a repeated or missing link. */
    all(o?: CallOptions): AsyncIterable<Sku>;
    /** GET /skus/:ref (SKU number or id). */
    get(ref: string, o?: CallOptions): Promise<Sku>;
  };
  containers: {
    /** POST /containers (never retried; validated first). */
    create(body: ContainerRequest, o?: CallOptions): Promise<Container>;
    /** GET /containers/:ref. */
    get(ref: string, o?: CallOptions): Promise<Container>;
    /** GET /containers/:ref/label?format=ZPL|PDF. */
    label(ref: string, q?: { format?: 'ZPL' | 'PDF' }, o?: CallOptions): Promise<DocumentResult>;
    /** GET /containers/:ref/documents: carrier documents (base64 PDF). */
    documents(ref: string, o?: CallOptions): Promise<DocumentResult>;
    /** GET /containers/:ref/commercial-invoice. */
    commercialInvoice(ref: string, o?: CallOptions): Promise<DocumentResult>;
    /** GET /containers/:ref/shipments (data.shipments). */
    shipments(ref: string, o?: CallOptions): Promise<ContainerShipment[]>;
    /** PATCH /containers/:ref/close (not retried). */
    close(ref: string, o?: CallOptions): Promise<{ message: string; data: unknown }>;
    /** DELETE /containers/:ref. */
    delete(ref: string, o?: CallOptions): Promise<{ message: string }>;
  };
  /** Closes the shared agent (keep-alive connections). */
  close(): Promise<void>;
}

/** Creates the API client for one base URL and set of credentials. */
export function createApi(opts: ApiOptions): Api {
  // Implementation lives in resources.ts so this file stays the readable contract.
  return buildApi(opts);
}
