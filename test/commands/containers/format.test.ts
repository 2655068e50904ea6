import { describe, expect, it } from 'vitest';
import { formatGrams, formatMinor, limitPair, mapFieldsToFlags } from '../../../src/commands/containers/format.js';
import { CONTAINER_FLAGS } from '../../../src/commands/containers/run.js';

describe('container formatting', () => {
  it('shows counts beside limits, unlimited for null', () => {
    expect(limitPair(12, 50, String)).toBe('12 / 50');
    expect(limitPair(12, null, String)).toBe('12 / unlimited');
    expect(limitPair(undefined, undefined, String)).toBe('0 / unlimited');
    expect(limitPair(8200, 30000, formatGrams)).toBe('8.2 kg / 30 kg');
    expect(limitPair(12345, 50000, (v) => formatMinor(v, 'GBP'))).toBe('123.45 GBP / 500.00 GBP');
  });

  it('formats grammes and minor units exactly', () => {
    expect(formatGrams(0)).toBe('0 kg');
    expect(formatGrams(123)).toBe('0.123 kg');
    expect(formatGrams(1050)).toBe('1.05 kg');
    expect(formatMinor(5, 'EUR')).toBe('0.05 EUR');
    expect(formatMinor(100, '')).toBe('1.00');
    expect(formatMinor(-250, 'USD')).toBe('-2.50 USD');
  });

  it('renames API field paths to the flags that supply them, keeping the messages', () => {
    expect(
      mapFieldsToFlags(
        { delivery_service_key: ['The delivery service key must be a consolidation service.'], clearance_country: ['The clearance country field is required.'], other: ['x'] },
        CONTAINER_FLAGS,
      ),
    ).toEqual({
      '--service': ['The delivery service key must be a consolidation service.'],
      '--clearance-country': ['The clearance country field is required.'],
      other: ['x'],
    });
  });
});
