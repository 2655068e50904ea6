// Label, document and invoice endpoints whose response shape the API document leaves open.
// Real clients read `data[0]`; we accept a string, an object, or a one-element array of either.
import { ApiError } from '../errors.js';

/** Lenient view of a label/document/invoice response. */
export interface DocumentResult {
  /** The envelope's message, when there was one. */
  message?: string;
  /** The response's `data` as received. */
  raw: unknown;
  /** A base64 document whose format was not named (e.g. `document`, `invoice`, or a bare string). */
  base64?: string;
  /** ZPL printer code, byte for byte as received. */
  zpl?: string;
  /** Base64 PDF. */
  pdf?: string;
  /** Base64 PNG. */
  png?: string;
}

export type DocumentFormat = 'ZPL' | 'PDF' | 'PNG';

/** Whether a string is ZPL printer code rather than base64 (ZPL has carets and tildes, base64 never does). */
function looksLikeZpl(s: string): boolean {
  return /\^XA|\^xa|~DG|CT~~/.test(s);
}

/** Fields that may carry a document in an object, in the order we trust them. */
const NAMED_FIELDS = ['pdf', 'zpl', 'png'] as const;
const GENERIC_FIELDS = ['document', 'invoice', 'commercial_invoice', 'label', 'labels', 'content', 'file', 'base64', 'data'] as const;

function fillFromString(out: DocumentResult, s: string): void {
  if (s === '') return;
  if (looksLikeZpl(s)) out.zpl ??= s;
  else out.base64 ??= s;
}

/** Builds a DocumentResult from the `data` of a document endpoint (string, object, or one-element array). */
export function toDocumentResult(data: unknown, message?: string): DocumentResult {
  const out: DocumentResult = { raw: data };
  if (message !== undefined) out.message = message;
  let v: unknown = data;
  if (Array.isArray(v)) v = v.length > 0 ? v[0] : undefined;
  if (typeof v === 'string') {
    fillFromString(out, v);
  } else if (v !== null && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    for (const f of NAMED_FIELDS) {
      let x = o[f];
      if (Array.isArray(x) && typeof x[0] === 'string') x = x[0];
      if (typeof x === 'string' && x !== '') out[f] = x;
    }
    for (const f of GENERIC_FIELDS) {
      let x = o[f];
      if (Array.isArray(x) && typeof x[0] === 'string') x = x[0];
      if (typeof x === 'string') fillFromString(out, x);
    }
  }
  return out;
}

/** Whether a base64 string decodes to something starting with these bytes. */
function base64StartsWith(b64: string, magic: string): boolean {
  return Buffer.from(b64.slice(0, 16), 'base64').toString('latin1').startsWith(magic);
}

/** The bytes of a document in the wanted format: ZPL as its text (UTF-8), PDF and PNG decoded from base64. Throws when absent. */
export function documentBytes(result: DocumentResult, format: DocumentFormat): Buffer {
  if (format === 'ZPL') {
    const zpl = result.zpl ?? (result.base64 && looksLikeZpl(result.base64) ? result.base64 : undefined);
    if (zpl !== undefined) return Buffer.from(zpl, 'utf8');
    throw new ApiError('the response holds no ZPL label');
  }
  const magic = format === 'PDF' ? '%PDF' : '\x89PNG';
  const named = format === 'PDF' ? result.pdf : result.png;
  const b64 = named ?? result.base64;
  if (b64 === undefined || b64 === '') throw new ApiError(`the response holds no ${format} document`);
  // Some servers send the file itself rather than base64; keep it byte for byte.
  if (b64.startsWith(magic)) return Buffer.from(b64, 'latin1');
  if (named === undefined && !base64StartsWith(b64, magic)) {
    throw new ApiError(`the response's document is not a ${format}`);
  }
  return Buffer.from(b64, 'base64');
}
