// `ship track --watch` on a terminal redraws the timeline in place (in-process, against the sandbox).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../../src/main.js';
import { bufferIO } from '../../helpers/run.js';
import { startTestSandbox, type TestSandbox } from '../../helpers/sandbox.js';

let sb: TestSandbox;
let env: Record<string, string>;
beforeAll(async () => {
  sb = await startTestSandbox();
  env = { ...(await sb.authEnv()), SHIP_CONFIG_DIR: mkdtempSync(join(tmpdir(), 'ship-watch-')) };
});
afterAll(async () => {
  await sb?.close();
});

describe('track --watch on a TTY', () => {
  it('redraws in place until the parcel is delivered, latest stage last', async () => {
    const res = await fetch(`${sb.baseUrl}/shipments`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-service-api-key': env.SHIP_API_KEY, 'x-service-token': env.SHIP_TOKEN },
      body: JSON.stringify({
        shipment_reference: 'WATCH-TTY',
        to_address: { name: 'A', line_1: '1 St', city: 'London', postcode: 'SW1A 1AA', country: 'GB' },
        parcels: [{ weight: 1000, length: 10, width: 10, depth: 10 }],
      }),
    });
    expect(res.status).toBeLessThan(300);
    const io = bufferIO({ tty: true });
    const running = main(['track', 'WATCH-TTY', '--watch', '--interval', '0.1'], { io, env: { NO_COLOR: '1', ...env }, handleSignals: false });
    // Move the parcel on only after each frame was drawn, so every stage is seen (however slow the machine).
    let frames = 0;
    for (let i = 0; i < 4; i++) {
      const until = Date.now() + 10_000;
      while (io.out().split('watching').length - 1 <= frames && Date.now() < until) await new Promise((r) => setTimeout(r, 10));
      frames = io.out().split('watching').length - 1;
      await sb.control('tracking/advance', { shipment_reference: 'WATCH-TTY' });
    }
    const code = await running;
    const r = { code, stdout: io.out(), stderr: io.err() };
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/\x1b\[\d+A\x1b\[J/); // moved up and cleared: redrawn, not appended
    const lastFrame = r.stdout.split('\x1b[J').pop()!;
    const stages = ['Label created', 'Manifested', 'Collected', 'In transit', 'Delivered'].map((s) => lastFrame.indexOf(s));
    expect(stages.every((i, k) => i >= 0 && (k === 0 || i > stages[k - 1]))).toBe(true);
    expect(lastFrame).toMatch(/▶ .*Delivered/);
    // Finished: the last drawing no longer says it is watching.
    expect(lastFrame).not.toContain('watching');
    expect(lastFrame).not.toContain('Ctrl-C');
  });
});

describe('screenRows', () => {
  it('counts the rows a wrapped line takes, so a redraw moves up over all of the old drawing', async () => {
    const { screenRows } = await import('../../../src/commands/track/run.js');
    expect(screenRows('a\nb\n', 60)).toBe(2);
    expect(screenRows(`${'x'.repeat(110)}\nshort\n`, 60)).toBe(3);
    expect(screenRows(`\x1b[1m${'x'.repeat(60)}\x1b[22m\n\n`, 60)).toBe(2); // escapes take no cells; a blank line one row
    expect(screenRows(`${'東'.repeat(40)}\n`, 60)).toBe(2); // wide characters take two cells
    expect(screenRows('abc\n', 0)).toBe(1);
  });
});
