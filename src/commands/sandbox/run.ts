// `ship sandbox`: starts the emulator, prints its base URL first on stdout, and serves until interrupted.
import type { Ctx } from '../../context.js';
import { Interrupted, stoppedAsService } from '../../errors.js';

/** Options of `ship sandbox`, already checked by index.ts. */
export interface SandboxCommandOptions {
  port: number;
  host: string;
  apiKey: string;
  username: string;
  password: string;
  stateFile?: string;
  autoAdvanceSeconds?: number;
  logRequests: boolean;
}

function untilAborted(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
}

/**
 * Runs the sandbox until ctx.signal aborts, then closes it (requests in flight finish, --state is saved):
 * after SIGTERM it returns (exit 0), after Ctrl-C it throws Interrupted (exit 130).
 */
export async function run(ctx: Ctx, o: SandboxCommandOptions): Promise<void> {
  // We handle Ctrl-C ourselves: the first one stops the server cleanly instead of exiting at once.
  const release = ctx.holdInterrupts();
  try {
    const { startSandbox } = await import('../../sandbox/server.js');
    const stderr = ctx.io.stderr;
    const sb = await startSandbox({
      host: o.host,
      port: o.port,
      apiKey: o.apiKey,
      username: o.username,
      password: o.password,
      stateFile: o.stateFile,
      autoAdvanceSeconds: o.autoAdvanceSeconds,
      logRequests: o.logRequests || ctx.mode.verbose,
      log: (line) => stderr.write(line + '\n'),
    });
    // Listening on every interface (--host 0.0.0.0): the address to give ship on this machine is loopback
    // (ship refuses plain http to any other host without --insecure).
    const baseUrl = sb.baseUrl.replace('//0.0.0.0:', '//127.0.0.1:').replace('//[::]:', '//[::1]:');
    if (ctx.mode.json) {
      ctx.out.jsonLine({ base_url: baseUrl, url: sb.url, host: sb.host, port: sb.port, api_key: o.apiKey, username: o.username, state_file: o.stateFile ?? null, auto_advance_s: o.autoAdvanceSeconds ?? 0 });
    } else {
      ctx.out.line(baseUrl);
      ctx.out.line(`export SHIP_BASE_URL=${baseUrl}`);
      ctx.out.line(`export SHIP_API_KEY=${o.apiKey}`);
    }
    const seededPassword = o.password === 'demo-password' ? ` (password ${o.password})` : '';
    ctx.out.info(
      `Sandbox listening on ${sb.url} (API at ${baseUrl}${o.stateFile ? `, state in ${o.stateFile}` : ', state in memory'}).\n` +
        `Log in as ${o.username}${seededPassword}: ship login --username ${o.username} --password-stdin\n` +
        (o.autoAdvanceSeconds
          ? `Tracking moves one stage every ${o.autoAdvanceSeconds} s after a shipment's creation (--auto-advance 0 stops it).\n`
          : 'Tracking moves only through POST /__sandbox/tracking/advance (--auto-advance 0).\n') +
        `Control endpoints: ${sb.url}/__sandbox/… (reset, tracking/advance, webhooks, faults). Stop with Ctrl-C.`,
    );
    await untilAborted(ctx.signal);
    await sb.close();
    if (!stoppedAsService(ctx.signal)) throw new Interrupted('Sandbox stopped.');
    ctx.out.info('Sandbox stopped.');
  } finally {
    release();
  }
}
