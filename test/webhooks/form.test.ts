import { describe, expect, it } from 'vitest';
import { WEBHOOK_EVENTS, examplePayload, formEncode } from '../../src/sandbox/webhooks.js';
import { parseForm, splitFormKey } from '../../src/webhooks/form.js';

/** What a payload looks like after a trip through a form: scalars as strings, empty containers gone. */
function asForm(v: unknown): unknown {
  if (v === null) return '';
  if (typeof v === 'boolean') return v ? '1' : '0';
  if (Array.isArray(v)) {
    const items = v.map(asForm).filter((x) => x !== undefined);
    return items.length ? items : undefined;
  }
  if (typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v as object)) {
      const y = asForm(x);
      if (y !== undefined) out[k] = y;
    }
    return Object.keys(out).length ? out : undefined;
  }
  return String(v);
}

describe('parseForm', () => {
  it.each(WEBHOOK_EVENTS)('round-trips the sandbox payload of %s', (event) => {
    const payload = examplePayload(event, { auth_token: 'tok&en=with spaces+plus', shipment_reference: 'REF [1] ü/€' });
    const parsed = parseForm(formEncode(payload));
    expect(parsed).toEqual(asForm(payload));
    expect(parsed.event).toBe(event);
    expect(parsed.auth_token).toBe('tok&en=with spaces+plus');
    expect((parsed.recipient as Record<string, string>).recipient_email).toBe('jane.smith@example.com');
  });

  it('round-trips a created payload with PNG labels and custom fields as arrays', () => {
    const payload = examplePayload('SHIPMENT_CREATED', { labels: { format: 'PNG', content: ['iVBORw0KGgo=', 'iVBORw0KGgp='] } });
    const parsed = parseForm(formEncode(payload));
    expect(parsed.labels).toEqual(['iVBORw0KGgo=', 'iVBORw0KGgp=']);
    expect(parsed.custom_fields).toEqual([{ key: 'gift_message', value: 'Happy birthday' }]);
    expect(parsed.parcel_references).toEqual(['EXAMPLE-1001-1']);
    expect(parsed).toEqual(asForm(payload));
  });

  it('reads literal brackets, pushes, + as space and explicit indices in order', () => {
    expect(parseForm('a[]=x&a[]=y&b[2]=two&b[0]=zero&c=hello+world&d[e][f]=1')).toEqual({
      a: ['x', 'y'],
      b: ['zero', 'two'],
      c: 'hello world',
      d: { e: { f: '1' } },
    });
    expect(parseForm('a%5B0%5D%5Bkey%5D=k&a%5B0%5D%5Bvalue%5D=v')).toEqual({ a: [{ key: 'k', value: 'v' }] });
    expect(parseForm('a[0]=x&a[]=y')).toEqual({ a: ['x', 'y'] });
  });

  it('keeps mixed and huge keys as object keys, not sparse arrays', () => {
    expect(parseForm('a[0]=x&a[name]=y')).toEqual({ a: { 0: 'x', name: 'y' } });
    const big = parseForm('a[99999999]=x');
    expect(Array.isArray(big.a)).toBe(false);
    expect(big.a).toEqual({ 99999999: 'x' });
  });

  it('ignores prototype keys', () => {
    const parsed = parseForm('__proto__[polluted]=1&a[__proto__][x]=1&a[constructor][prototype][y]=2&event=X');
    expect(parsed).toEqual({ event: 'X' });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.getPrototypeOf(parsed)).toBe(Object.prototype);
  });

  it('treats unbalanced or trailing-text keys literally', () => {
    expect(splitFormKey('a[b')).toEqual(['a[b']);
    expect(splitFormKey('a[b]c')).toEqual(['a[b]c']);
    expect(splitFormKey('[a]')).toEqual(['[a]']);
    expect(splitFormKey('a[b][]')).toEqual(['a', 'b', '']);
    expect(parseForm('a[b=1')).toEqual({ 'a[b': '1' });
  });

  it('bounds the work: too many fields is an error, deep nesting is cut off', () => {
    expect(() => parseForm(Array.from({ length: 10_001 }, (_, i) => `k${i}=1`).join('&'))).toThrow(/more than/);
    const deep = parseForm(`a${'[x]'.repeat(50)}=1`);
    let node: unknown = deep.a;
    let depth = 0;
    while (node && typeof node === 'object') {
      node = Object.values(node)[0];
      depth++;
    }
    expect(depth).toBeLessThanOrEqual(22);
    expect(node).toBe('1');
  });
});
