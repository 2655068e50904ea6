// Form-encoded webhook payloads: bracket notation (`recipient[recipient_email]=…`, `parcel_references[0]=…`)
// as PHP-style services send it, parsed into the same nested shape a JSON payload has.

/** Keys that would reach an object's prototype; such pairs are ignored. */
const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);
/** Deeper brackets than this are kept as one literal key segment (bounded work per pair). */
const MAX_DEPTH = 20;
/** Numeric keys up to this become array indices; larger ones stay object keys (no huge sparse arrays). */
const MAX_ARRAY_INDEX = 1000;
/** More pairs than this make the body malformed (bounded work per request). */
const MAX_PAIRS = 10_000;

type FormNode = { [key: string]: FormNode | string };

/** A form body that cannot be a webhook payload (too many fields). */
export class FormError extends Error {}

/** Splits `a[b][]` into ['a', 'b', '']; a key with unbalanced brackets is one literal segment. */
export function splitFormKey(key: string): string[] {
  const open = key.indexOf('[');
  if (open <= 0) return [key];
  const segments = [key.slice(0, open)];
  let rest = key.slice(open);
  while (rest.startsWith('[')) {
    const close = rest.indexOf(']');
    if (close < 0) return [key];
    if (segments.length > MAX_DEPTH) {
      segments.push(rest);
      return segments;
    }
    segments.push(rest.slice(1, close));
    rest = rest.slice(close + 1);
  }
  // Text after the last bracket (`a[b]c`) is not bracket notation: keep the whole key literal.
  return rest === '' ? segments : [key];
}

/** Parses an `application/x-www-form-urlencoded` body with bracket notation into nested objects and arrays. */
export function parseForm(body: string): Record<string, unknown> {
  const root: FormNode = Object.create(null) as FormNode;
  const pushCounters = new WeakMap<FormNode, number>();
  let pairs = 0;
  for (const [rawKey, value] of new URLSearchParams(body)) {
    if (++pairs > MAX_PAIRS) throw new FormError(`more than ${MAX_PAIRS} fields`);
    if (rawKey === '') continue;
    const path = splitFormKey(rawKey);
    if (path.some((seg) => FORBIDDEN_KEYS.has(seg))) continue;
    let node = root;
    for (let i = 0; i < path.length; i++) {
      let seg = path[i];
      if (seg === '' && i > 0) {
        // `a[]=x`: append, counting past any explicit indices already used.
        const next = Math.max(pushCounters.get(node) ?? 0, nextIndex(node));
        seg = String(next);
        pushCounters.set(node, next + 1);
      }
      if (i === path.length - 1) {
        node[seg] = value;
      } else {
        const child = node[seg];
        if (typeof child === 'object') {
          node = child;
        } else {
          // A later nested value replaces an earlier plain one (`a=1&a[b]=2`), as PHP does.
          const fresh = Object.create(null) as FormNode;
          node[seg] = fresh;
          node = fresh;
        }
      }
    }
  }
  return finish(root) as Record<string, unknown>;
}

function nextIndex(node: FormNode): number {
  let n = 0;
  for (const k of Object.keys(node)) if (isIndex(k)) n = Math.max(n, Number(k) + 1);
  return n;
}

function isIndex(key: string): boolean {
  return /^(0|[1-9]\d*)$/.test(key) && Number(key) <= MAX_ARRAY_INDEX;
}

/** Turns nodes whose keys are all small indices into arrays (in index order) and the rest into plain objects. */
function finish(node: FormNode | string): unknown {
  if (typeof node === 'string') return node;
  const keys = Object.keys(node);
  if (keys.length > 0 && keys.every(isIndex)) {
    return keys
      .map(Number)
      .sort((a, b) => a - b)
      .map((k) => finish(node[String(k)]));
  }
  const out: Record<string, unknown> = {};
  for (const k of keys) out[k] = finish(node[k]);
  return out;
}
