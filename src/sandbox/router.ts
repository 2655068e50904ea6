// A small path router: static segments and `:param` segments, matched segment by segment. A static segment wins
// over a `:param` one in the same place (`/shipments/get-services` is never `/shipments/:ref`), whatever the order
// the routes were added in.
import { HttpError, type ApiRequest, type ApiResponse } from './http.js';

/** A route handler: answers synchronously on the hot path, or with a promise when it renders documents. */
export type Handler<C> = (app: C, req: ApiRequest) => ApiResponse | Promise<ApiResponse>;

interface Route<C> {
  method: string;
  segments: string[];
  handler: Handler<C>;
  /** One bit per segment, the first segment highest, set where the segment is static: more static sorts first. */
  specificity: number;
}

/** Result of matching: the handler and its params, or which methods the path allows. */
export type Match<C> = { handler: Handler<C>; params: Record<string, string> } | { allowed: string[] } | null;

/** Routes by method and path. */
export class Router<C> {
  private readonly routes: Route<C>[] = [];
  // Routes grouped by segment count, so a match only scans candidates of the right length.
  private readonly byLength = new Map<number, Route<C>[]>();

  /** Adds a route; `pattern` is like `/shipments/:ref/events`. */
  add(method: string, pattern: string, handler: Handler<C>): this {
    const segments = pattern.split('/').filter(Boolean);
    let specificity = 0;
    for (const seg of segments) specificity = specificity * 2 + (seg.charCodeAt(0) === 58 /* : */ ? 0 : 1);
    const r = { method, segments, handler, specificity };
    this.routes.push(r);
    const list = this.byLength.get(segments.length) ?? [];
    list.push(r);
    // Most specific first (sort is stable: routes of one path keep the order they were added in, as Allow shows).
    list.sort((a, b) => b.specificity - a.specificity);
    this.byLength.set(segments.length, list);
    return this;
  }

  /**
   * Finds the route for a method and a path (already stripped of the version prefix). Only the most specific
   * routes the path matches count: a path that matches a static route and a `:param` one (DELETE
   * /shipments/get-services) gets the static route's 405, not the other route's handler.
   */
  match(method: string, path: string): Match<C> {
    const parts = path.split('/').filter(Boolean);
    const candidates = this.byLength.get(parts.length);
    if (!candidates) return null;
    const allowed: string[] = [];
    let best = -1;
    for (const r of candidates) {
      // Candidates run most specific first: once a path has matched, less specific routes are not its routes.
      if (r.specificity < best) break;
      let params: Record<string, string> | null = {};
      for (let i = 0; i < parts.length; i++) {
        const seg = r.segments[i];
        if (seg.charCodeAt(0) === 58 /* : */) {
          let v: string;
          try {
            v = decodeURIComponent(parts[i]);
          } catch {
            v = parts[i];
          }
          params[seg.slice(1)] = v;
        } else if (seg !== parts[i]) {
          params = null;
          break;
        }
      }
      if (!params) continue;
      if (r.method === method) return { handler: r.handler, params };
      best = r.specificity;
      allowed.push(r.method);
    }
    return allowed.length > 0 ? { allowed } : null;
  }
}

/**
 * The Allow header of a path whose routes have these methods: HEAD wherever GET is (answered as GET without
 * the body), and OPTIONS, which every known path answers.
 */
export function allowHeader(methods: readonly string[]): string {
  const out = [...methods];
  if (out.includes('GET') && !out.includes('HEAD')) out.splice(out.indexOf('GET') + 1, 0, 'HEAD');
  if (!out.includes('OPTIONS')) out.push('OPTIONS');
  return out.join(', ');
}

/**
 * The answer to a method a known path has no route for: OPTIONS gets 200 with the envelope and Allow (no
 * credentials needed, as for a CORS preflight); any other method a 405 error with Allow.
 */
export function unroutedMethod(method: string, shownPath: string, allowed: readonly string[]): HttpError | ApiResponse {
  const allow = allowHeader(allowed);
  if (method === 'OPTIONS') return { status: 200, body: { message: `Allowed methods: ${allow}.`, data: null }, headers: { allow } };
  return new HttpError(405, `Method ${method} is not allowed on ${shownPath} (allowed: ${allow}).`, null, { allow });
}
