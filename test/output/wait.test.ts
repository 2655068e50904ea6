// The spinner shown while a person waits: after a delay only, one for all open waits, never while suspended,
// gone when the waits end, and nothing at all when disabled.
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { WaitIndicator, type SpinnerFactory, type SpinnerLike } from '../../src/output/wait.js';
import { progressText } from '../../src/shipment-input/csv.js';

const DELAY = 30;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A WaitIndicator whose spinners are recorded instead of drawn. */
function recorded(enabled = true) {
  const events: string[] = [];
  let current: (SpinnerLike & { running: boolean }) | undefined;
  let loads = 0;
  const factory: SpinnerFactory = ({ text }) => {
    const s = {
      running: false,
      _text: text,
      get text() {
        return this._text;
      },
      set text(t: string) {
        this._text = t;
        events.push(`text ${t}`);
      },
      start() {
        this.running = true;
        events.push(`start ${this._text}`);
      },
      stop() {
        this.running = false;
        events.push('stop');
      },
    };
    current = s;
    return s;
  };
  const wait = new WaitIndicator({
    stream: new PassThrough(),
    enabled,
    delayMs: DELAY,
    load: async () => {
      loads++;
      return factory;
    },
  });
  return { wait, events, spinning: () => current?.running === true, loads: () => loads };
}

describe('WaitIndicator', () => {
  it('shows nothing for a wait shorter than the delay (and does not even load the spinner)', async () => {
    const { wait, events, loads } = recorded();
    const end = wait.begin('Waiting…');
    await sleep(DELAY / 3);
    end();
    await sleep(DELAY * 2);
    expect(events).toEqual([]);
    expect(loads()).toBe(0);
  });

  it('a likely long wait loads the spinner at once (the loop may be too busy to load it when due), shown only when due', async () => {
    const { wait, events, loads } = recorded();
    const end = wait.begin('Checking big.csv…', { likelyLong: true });
    expect(loads()).toBe(1);
    await sleep(DELAY / 3);
    expect(events).toEqual([]);
    await sleep(DELAY * 3);
    expect(events).toEqual(['start Checking big.csv…']);
    end();
    expect(loads()).toBe(1);
    // Disabled, nothing is loaded even so.
    const off = recorded(false);
    off.wait.begin('Checking…', { likelyLong: true })();
    expect(off.loads()).toBe(0);
  });

  it('shows the spinner once a wait outlasts the delay, and stops it when the wait ends', async () => {
    const { wait, events, spinning } = recorded();
    const end = wait.begin('Waiting for the shipping service…');
    await sleep(DELAY * 3);
    expect(spinning()).toBe(true);
    end();
    expect(spinning()).toBe(false);
    expect(events).toEqual(['start Waiting for the shipping service…', 'stop']);
  });

  it('one spinner for overlapping waits, stopped when the last one ends; ending twice counts once', async () => {
    const { wait, events, spinning } = recorded();
    const a = wait.begin('A');
    const b = wait.begin('B');
    await sleep(DELAY * 3);
    a();
    a();
    expect(spinning()).toBe(true);
    b();
    expect(spinning()).toBe(false);
    expect(events.filter((e) => e.startsWith('start'))).toEqual(['start B']);
  });

  it('update() changes the text of the wait in progress, shown or not yet', async () => {
    const { wait, events } = recorded();
    const end = wait.begin('Reading f.csv…');
    wait.update('Reading f.csv… 300 rows');
    await sleep(DELAY * 3);
    wait.update('Checking f.csv… 10 of 300 rows');
    end();
    wait.update('after the end: ignored');
    expect(events).toEqual(['start Reading f.csv… 300 rows', 'text Checking f.csv… 10 of 300 rows', 'stop']);
  });

  it('shows nothing while suspended (a progress bar, a prompt), and again after resuming if still waiting', async () => {
    const { wait, events, spinning } = recorded();
    const end = wait.begin('Waiting…');
    await sleep(DELAY * 3);
    expect(spinning()).toBe(true);
    const resume = wait.suspend();
    expect(spinning()).toBe(false);
    const other = wait.begin('during the prompt');
    await sleep(DELAY * 3);
    expect(spinning()).toBe(false);
    other();
    resume();
    resume();
    await sleep(DELAY * 3);
    expect(spinning()).toBe(true);
    end();
    expect(events).toEqual(['start Waiting…', 'stop', 'start during the prompt', 'stop']);
  });

  it('close() stops the spinner for good', async () => {
    const { wait, spinning } = recorded();
    wait.begin('Waiting…');
    await sleep(DELAY * 3);
    wait.close();
    expect(spinning()).toBe(false);
    wait.begin('after close');
    await sleep(DELAY * 3);
    expect(spinning()).toBe(false);
  });

  it('disabled (no terminal, --json, --quiet, CI): nothing, ever', async () => {
    const { wait, events, loads } = recorded(false);
    expect(wait.enabled).toBe(false);
    const end = wait.begin('Waiting…');
    await sleep(DELAY * 3);
    end();
    expect(events).toEqual([]);
    expect(loads()).toBe(0);
  });

  it('a spinner that cannot be loaded costs the command nothing', async () => {
    const wait = new WaitIndicator({ stream: new PassThrough(), enabled: true, delayMs: 5, load: () => Promise.reject(new Error('no ora')) });
    const end = wait.begin('Waiting…');
    await sleep(30);
    end();
  });
});

describe('the text while a CSV file is checked', () => {
  it('counts rows read, then rows checked out of the total', () => {
    expect(progressText('orders.csv', { phase: 'reading', rows: 1 })).toBe('Reading orders.csv… 1 row');
    expect(progressText('orders.csv', { phase: 'reading', rows: 12_500 })).toBe('Reading orders.csv… 12,500 rows');
    expect(progressText('orders.csv', { phase: 'checking', rows: 300, total: 50_000 })).toBe('Checking orders.csv… 300 of 50,000 rows');
    expect(progressText('stdin', { phase: 'checking', rows: 300 })).toBe('Checking stdin… 300 rows');
  });
});
