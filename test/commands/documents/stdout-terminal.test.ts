// `-o -` writes a document's bytes to stdout: PDF and PNG are refused when stdout is a terminal (they garble it),
// before anything is fetched; ZPL is text and goes through.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runShip } from '../../helpers/run.js';

// No service at this address: a refusal before any request is the only way to exit 2 here.
const env = { SHIP_CONFIG_DIR: mkdtempSync(join(tmpdir(), 'ship-cfg-docs-')), SHIP_BASE_URL: 'http://127.0.0.1:9/v1.2', SHIP_API_KEY: 'k-1234', SHIP_TOKEN: 't-1234' };

describe('-o - on a terminal', () => {
  it('refuses a PDF or PNG label and the invoice, naming the redirect to use', async () => {
    for (const format of ['PDF', 'PNG']) {
      const r = await runShip(['label', 'TRK1', '--format', format, '-o', '-'], { env, tty: true });
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toContain(`-o - would write the ${format} label's bytes to the terminal`);
      expect(r.stderr).toContain(`> label.${format.toLowerCase()}`);
    }
    const inv = await runShip(['invoice', 'ORD-1', '-o', '-'], { env, tty: true });
    expect(inv.code).toBe(2);
    expect(inv.stderr).toContain("-o - would write the invoice's PDF bytes to the terminal");
  });

  it('lets ZPL through to the terminal, and PDF through to a pipe (both then fail only at the absent service)', async () => {
    expect((await runShip(['label', 'TRK1', '--format', 'ZPL', '-o', '-'], { env, tty: true })).code).toBe(1);
    expect((await runShip(['label', 'TRK1', '--format', 'PDF', '-o', '-'], { env })).code).toBe(1);
  });
});
