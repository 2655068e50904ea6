// The setup both smoke suites (in-process and built binary) share: one sandbox behind the recording proxy, and a
// receiver of the sandbox's own SHIPMENT_CREATED / SHIPMENT_CANCELLED webhooks, which tells what a run left behind.
import { afterAll, beforeEach, expect } from 'vitest';
import { startReceiver, type Receiver } from '../../../src/webhooks/receiver.js';
import { sandboxForFile, type TestSandbox } from '../../helpers/sandbox.js';
import { startProxy, type TestProxy } from './proxy.js';

/** The smoke suite's sandbox, proxy and webhook record. */
export interface SmokeHarness {
  sb: TestSandbox;
  proxy: TestProxy;
  /** Waits for the sandbox's webhooks to settle, then returns the references created but never cancelled. */
  leftBehind(expectCreated: number, expectLeft?: number): Promise<string[]>;
}

/**
 * Starts the harness for the calling test file (await it at the top level). Before each test the sandbox is reset
 * and subscribed to the receiver, the record is cleared and the proxy passes everything on. `authToken`, when
 * given, is the subscription's auth token and the receiver requires it.
 */
export async function smokeHarness(authToken?: string): Promise<SmokeHarness> {
  const started = sandboxForFile();
  const lifecycle: Array<{ event: string; ref: string }> = [];
  let proxy: TestProxy | undefined;
  let hooks: Receiver | undefined;
  // Registered before any await, after the sandbox's own hooks: these run after its reset and before its close.
  afterAll(async () => {
    await hooks?.close();
    await proxy?.close();
  });
  beforeEach(async () => {
    const sb = await started;
    await sb.control('webhooks', { url: hooks!.url, ...(authToken === undefined ? {} : { auth_token: authToken }), format: 'json', events: ['SHIPMENT_CREATED', 'SHIPMENT_CANCELLED'], retries: 0 });
    lifecycle.length = 0;
    proxy!.log.length = 0;
    proxy!.rule = () => undefined;
  });

  const sb = await started;
  proxy = await startProxy(sb.baseUrl);
  hooks = await startReceiver({
    host: '127.0.0.1',
    port: 0,
    authToken,
    onEvent: (e) => lifecycle.push({ event: e.event, ref: String(e.payload.shipment_reference) }),
  });

  async function leftBehind(expectCreated: number, expectLeft = 0): Promise<string[]> {
    const end = Date.now() + 5000;
    const created = () => lifecycle.filter((l) => l.event === 'SHIPMENT_CREATED').map((l) => l.ref);
    const cancelled = () => new Set(lifecycle.filter((l) => l.event === 'SHIPMENT_CANCELLED').map((l) => l.ref));
    const left = () => created().filter((r) => !cancelled().has(r));
    while (Date.now() < end && (created().length < expectCreated || left().length !== expectLeft)) {
      await new Promise((r) => setTimeout(r, 20));
    }
    // Events that would arrive late (a cancel after all) get a moment to show up.
    await new Promise((r) => setTimeout(r, 50));
    expect(created()).toHaveLength(expectCreated);
    return created().filter((r) => !cancelled().has(r));
  }

  return { sb, proxy, leftBehind };
}
