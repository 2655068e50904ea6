import { Chalk } from 'chalk';
import { describe, expect, it, vi } from 'vitest';
import { renderTimeline, sortEvents, stageLabel } from '../../../src/commands/track/render.js';
import { displayWidth } from '../../../src/output/width.js';

describe('tracking timeline', () => {
  it('names stages for people', () => {
    expect(stageLabel('LABEL_CREATED')).toBe('Label created');
    expect(stageLabel('IN_TRANSIT')).toBe('In transit');
    expect(stageLabel('DELIVERY_FAILED')).toBe('Delivery failed');
    expect(stageLabel('CUSTOMS_HELD')).toBe('Customs held');
    expect(stageLabel(undefined)).toBe('Unknown');
  });

  it('puts the latest event last, whatever order the API used', () => {
    const events = [
      { date: '2024-05-22 09:00:00', type: 'IN_TRANSIT' },
      { date: '2024-05-21 13:24:12', type: 'LABEL_CREATED' },
      { date: '2024-05-21 18:00:00', type: 'COLLECTED' },
    ];
    expect(sortEvents(events).map((e) => e.type)).toEqual(['LABEL_CREATED', 'COLLECTED', 'IN_TRANSIT']);
    const text = renderTimeline({ tracking_reference: 'TRK1', events: sortEvents(events) }, { color: new Chalk({ level: 0 }), tty: false });
    const lines = text.trim().split('\n');
    expect(lines[0]).toBe('Parcel TRK1');
    expect(lines[1]).toMatch(/^ {2}- 2024-05-21 13:24:12 {2}Label created/);
    expect(lines[3]).toMatch(/^ {2}> 2024-05-22 09:00:00 {2}In transit/);
  });

  it('in colour: times are not dim, and no blue or yellow (unreadable on dark and light themes)', () => {
    const events = ['LABEL_CREATED', 'MANIFESTED', 'COLLECTED', 'IN_TRANSIT', 'DELIVERED'].map((type, i) => ({ date: `2024-05-2${i} 10:00:00`, type }));
    const text = renderTimeline({ tracking_reference: 'TRK1', events }, { color: new Chalk({ level: 2 }), tty: true });
    expect(text).toContain('\x1b[32m'); // colour is on: Delivered is green
    expect(text).not.toContain('\x1b[2m');
    expect(text).not.toContain('\x1b[34m');
    expect(text).not.toContain('\x1b[33m');
    expect(text).toMatch(/• 2024-05-20 10:00:00 {2}Label created/);
  });

  it('sorts by date text without localeCompare (its first call loads ICU, ~17 ms of every `ship track`); ties keep API order', () => {
    const localeCompare = vi.spyOn(String.prototype, 'localeCompare');
    try {
      const events = [
        { date: '2024-05-22 09:00:00', type: 'IN_TRANSIT' },
        { type: 'UNDATED' },
        { date: '2024-05-21 18:00:00', type: 'COLLECTED' },
        { date: '2024-05-21 18:00:00', type: 'MANIFESTED' },
        { date: '2024-05-21 13:24:12', type: 'LABEL_CREATED' },
        { date: '2024-12-01 00:00:00', type: 'DELIVERED' },
      ];
      expect(sortEvents(events).map((e) => e.type)).toEqual(['UNDATED', 'LABEL_CREATED', 'COLLECTED', 'MANIFESTED', 'IN_TRANSIT', 'DELIVERED']);
      expect(localeCompare).not.toHaveBeenCalled();
    } finally {
      localeCompare.mockRestore();
    }
  });

  it('says when there are no events yet', () => {
    expect(renderTimeline({ tracking_reference: 'T', events: [] }, { color: new Chalk({ level: 0 }), tty: false })).toMatch(/no tracking events yet/);
  });
});

describe('tracking timeline at a terminal', () => {
  const events = [
    { date: '2024-05-21 13:24:12', type: 'LABEL_CREATED', description: 'The label has been created; the parcel has not been handed to the carrier yet.' },
    { date: '2024-05-22 09:00:00', type: 'IN_TRANSIT', description: 'The parcel is on its way to the delivery depot.' },
  ];
  const render = (columns: number | undefined) =>
    renderTimeline({ tracking_reference: 'TRK1', events }, { color: new Chalk({ level: 0 }), tty: true, indent: '  ', columns }).trimEnd().split('\n');

  it('wraps a long description between words, under itself, within the width', () => {
    const lines = render(100);
    for (const l of lines) expect(l.length, l).toBeLessThan(100);
    const lead = lines[1].indexOf('The label');
    expect(lines[2]).toBe(' '.repeat(lead) + 'handed to the carrier yet.');
    expect(lines[3]).toMatch(/In transit {5}The parcel is on its way to the delivery depot\.$/);
  });

  it('on a narrow terminal puts the description under the date, still between words', () => {
    const lines = render(60);
    for (const l of lines) expect(l.length, l).toBeLessThan(60);
    expect(lines[1]).toBe('    • 2024-05-21 13:24:12  Label created');
    expect(lines[2]).toBe('      The label has been created; the parcel has not been');
    expect(lines[3]).toBe('      handed to the carrier yet.');
    expect(lines[4]).toBe('    ▶ 2024-05-22 09:00:00  In transit   ');
  });

  it('measures wide characters as the terminal shows them (two cells each), so CJK descriptions fit too', () => {
    const wide = [{ date: '2024-05-21 13:24:12', type: 'IN_TRANSIT', description: '包裹 已到达 配送中心 正在 安排 派送 请 保持 电话 畅通 谢谢 您的 耐心 等待' }];
    for (const columns of [100, 60]) {
      const lines = renderTimeline({ tracking_reference: 'TRK1', events: wide }, { color: new Chalk({ level: 0 }), tty: true, indent: '  ', columns }).trimEnd().split('\n');
      expect(lines.length).toBeGreaterThan(2);
      for (const l of lines) expect(displayWidth(l), l).toBeLessThan(columns);
    }
  });

  it('leaves lines alone when the width is unknown', () => {
    expect(render(undefined)[1]).toMatch(/Label created {2}The label has been created; the parcel has not been handed to the carrier yet\.$/);
  });
});
