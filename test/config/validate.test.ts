import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import {
  credentialProblem,
  isLoopbackHost,
  normalizeBaseUrl,
  parseLabelFormat,
  parsePrinterUrl,
  parseTimeoutSeconds,
  validateName,
} from '../../src/config/validate.js';

describe('isLoopbackHost', () => {
  it.each(['localhost', 'LOCALHOST', '127.0.0.1', '127.1.2.3', '[::1]', '::1', '[::ffff:7f00:1]'])('%s is loopback', (h) => {
    expect(isLoopbackHost(h)).toBe(true);
  });
  // *.localhost: the system's resolver may ask DNS for it, so plain http could take the credentials anywhere.
  it.each(['10.0.0.1', '128.0.0.1', 'example.com', 'localhost.example.com', '127.0.0.256', '[::2]', '0.0.0.0', 'api.localhost'])('%s is not', (h) => {
    expect(isLoopbackHost(h)).toBe(false);
  });
});

describe('normalizeBaseUrl', () => {
  it('strips trailing slashes and keeps the path', () => {
    expect(normalizeBaseUrl('https://api.example.com/v1.2/', { what: 'x' })).toBe('https://api.example.com/v1.2');
    expect(normalizeBaseUrl('  http://127.0.0.1:4010/v1.2//', { what: 'x' })).toBe('http://127.0.0.1:4010/v1.2');
    expect(normalizeBaseUrl('http://[::1]:9/v1.2', { what: 'x' })).toBe('http://[::1]:9/v1.2');
  });

  it('refuses plain http to a non-loopback host unless insecure, naming the setting', () => {
    expect(() => normalizeBaseUrl('http://api.example.com/v1.2', { what: 'SHIP_BASE_URL' })).toThrow(/SHIP_BASE_URL.*plain http/);
    const err = (() => {
      try {
        normalizeBaseUrl('http://10.1.1.1/v1.2', { what: '--base-url' });
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(UsageError);
    expect((err as UsageError).hint).toMatch(/--insecure/);
    expect(normalizeBaseUrl('http://api.example.com/v1.2', { what: 'x', insecure: true })).toBe('http://api.example.com/v1.2');
  });

  it.each(['ftp://example.com/v1.2', 'example.com/v1.2', 'https://', 'https://u:p@example.com/v1.2', 'https://example.com/v1.2?x=1', 'https://example.com/#a', ''])(
    'refuses %j',
    (raw) => {
      expect(() => normalizeBaseUrl(raw, { what: 'base_url' })).toThrow(UsageError);
    },
  );

  it('never echoes credentials embedded in a URL', () => {
    try {
      normalizeBaseUrl('https://user:hunter2secret@example.com/v1.2', { what: 'base_url' });
      expect.unreachable();
    } catch (e) {
      expect(String((e as Error).message)).not.toContain('hunter2secret');
    }
  });
});

describe('parsePrinterUrl', () => {
  it('parses host and port', () => {
    expect(parsePrinterUrl('tcp://10.0.0.50:9100')).toEqual({ host: '10.0.0.50', port: 9100 });
    expect(parsePrinterUrl('tcp://printer-1.lan:9100/')).toEqual({ host: 'printer-1.lan', port: 9100 });
    expect(parsePrinterUrl('tcp://[fe80::1]:9100')).toEqual({ host: 'fe80::1', port: 9100 });
  });
  it('takes an IPv6 zone (link-local address), as RFC 6874 writes it (%25) or as ip and ping do (%), in the form net.connect takes', () => {
    expect(parsePrinterUrl('tcp://[fe80::1%eth0]:9100')).toEqual({ host: 'fe80::1%eth0', port: 9100 });
    expect(parsePrinterUrl('tcp://[fe80::1%25eth0]:9100')).toEqual({ host: 'fe80::1%eth0', port: 9100 });
    expect(parsePrinterUrl('tcp://[FE80::A:B%25enp0s31f6]:9101/')).toEqual({ host: 'FE80::A:B%enp0s31f6', port: 9101 });
    expect(parsePrinterUrl('tcp://[fe80::1%eth0.100]:9100')).toEqual({ host: 'fe80::1%eth0.100', port: 9100 });
    // Windows numbers its interfaces: %2512 is zone 12 written as RFC 6874 does, %25 alone is zone 25.
    expect(parsePrinterUrl('tcp://[fe80::1%2512]:9100')).toEqual({ host: 'fe80::1%12', port: 9100 });
    expect(parsePrinterUrl('tcp://[fe80::1%25]:9100')).toEqual({ host: 'fe80::1%25', port: 9100 });
  });
  it('a zoned address without a port is named as such, with the address in the hint', () => {
    const err = (() => {
      try {
        parsePrinterUrl('tcp://[fe80::1%eth0]');
      } catch (e) {
        return e as UsageError;
      }
    })();
    expect(err?.message).toMatch(/has no port/);
    expect(err?.hint).toContain('tcp://[fe80::1%eth0]:9100');
  });
  it.each([
    '10.0.0.50:9100', 'tcp://10.0.0.50', 'tcp://10.0.0.50:0', 'tcp://10.0.0.50:70000', 'http://x:9100', 'tcp://:9100',
    // A zone needs brackets, a name, and one %; it belongs to an IPv6 address, not a host name.
    'tcp://fe80::1%eth0:9100', 'tcp://[fe80::1%]:9100', 'tcp://[fe80::1%eth 0]:9100', 'tcp://[fe80::1%eth0%1]:9100', 'tcp://[fe80::1]%eth0:9100', 'tcp://printer%eth0:9100',
  ])('refuses %s', (raw) => {
    expect(() => parsePrinterUrl(raw)).toThrow(UsageError);
  });
});

describe('small parsers', () => {
  it('label formats are case-insensitive and listed on error', () => {
    expect(parseLabelFormat('pdf')).toBe('PDF');
    expect(() => parseLabelFormat('GIF')).toThrow(/ZPL, PDF, PNG/);
  });
  it('timeouts are positive seconds, returned in ms', () => {
    expect(parseTimeoutSeconds('2.5')).toBe(2500);
    expect(parseTimeoutSeconds(30)).toBe(30_000);
    for (const bad of ['0', '-1', 'abc', '', 'Infinity', '1e9', '0x10', '1e3', '+5', '30s']) expect(() => parseTimeoutSeconds(bad)).toThrow(UsageError);
    expect(parseTimeoutSeconds(' 45 ')).toBe(45_000);
    expect(parseTimeoutSeconds('.5')).toBe(500);
    expect(parseTimeoutSeconds('5.')).toBe(5000);
    // Less than a millisecond is a millisecond, not 0 (which would read as "not set": the 30 s default).
    expect(parseTimeoutSeconds('0.0001')).toBe(1);
  });
  it('names are safe as config keys', () => {
    expect(validateName('work-2_b', 'profile')).toBe('work-2_b');
    for (const bad of ['a.b', '', '-x', 'a b', 'x'.repeat(65)]) expect(() => validateName(bad, 'profile')).toThrow(UsageError);
  });
});

describe('credentialProblem', () => {
  it('accepts visible ASCII and names the first other character by position and code point, never quoting the value', () => {
    expect(credentialProblem('0cdf5f75e426440b-_.~!$')).toBeUndefined();
    expect(credentialProblem('abc def')).toBe('has a space at position 4; only visible ASCII characters can be sent in an HTTP header');
    expect(credentialProblem('abc\r\n')).toMatch(/^has a line break at position 4;/);
    expect(credentialProblem('ab\tc')).toMatch(/^has a tab at position 3;/);
    expect(credentialProblem('key\u200b')).toMatch(/^has the character U\+200B at position 4;/);
    expect(credentialProblem('k\u{1F511}ey')).toMatch(/^has the character U\+1F511 at position 2;/);
    expect(credentialProblem('clé')).not.toContain('cl');
  });
});
