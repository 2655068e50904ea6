// The built binary at a real terminal: prompts (login, bulk-create confirmation, container close) driven through tmux,
// and the spinner shown while the service is slow to answer.
// Prompts only appear when stdin and stderr are TTYs and CI is unset, which execa cannot give; a detached tmux
// session can. Each test gets its own session on a private tmux socket, killed in afterEach even when a test fails.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer, type AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BIN } from '../helpers/bin.js';
import { apiCall, useTestSandbox } from '../helpers/sandbox.js';

const hasTmux = spawnSync('tmux', ['-V'], { stdio: 'ignore' }).status === 0;
// A private server on a socket in this file's temp dir, so the tests never touch (or depend on) anyone's own tmux
// sessions and leave nothing behind in /tmp/tmux-UID.
const tmux = (...args: string[]): string => execFileSync('tmux', ['-S', socket, ...args], { encoding: 'utf8' });
const shq = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

let work: string;
let socket: string;
let sessions: string[] = [];
let counter = 0;

/**
 * Starts `node bin/ship.js ARGS` in a detached 120x40 tmux session with exactly the given environment
 * (env -i: in particular no CI, which the test runner sets), and "EXIT=<code>" printed when it ends.
 */
function start(args: string[], env: Record<string, string | undefined>, opts: { before?: string } = {}): string {
  const name = `ship-tty-${process.pid}-${++counter}`;
  // A variable given as undefined is left out (NO_COLOR: undefined for a run in colour).
  const vars = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? tmpdir(), TERM: 'xterm-256color', NO_COLOR: '1', ...env };
  const cmd = [
    'env -i',
    ...Object.entries(vars).flatMap(([k, v]) => (v === undefined ? [] : [shq(`${k}=${v}`)])),
    shq(process.execPath),
    shq(BIN),
    ...args.map(shq),
  ].join(' ');
  sessions.push(name);
  tmux('new-session', '-d', '-s', name, '-x', '120', '-y', '40', `${opts.before ? `${opts.before}; ` : ''}env -u CI ${cmd}; echo EXIT=$?; sleep 30`);
  return name;
}

const pane = (name: string): string => tmux('capture-pane', '-p', '-J', '-S', '-200', '-t', name);

/**
 * Polls the pane (up to 10 s, 100 ms steps) until it matches; fails with the pane's text if it never does,
 * or at once if the command ended (EXIT=) without it matching.
 */
async function waitFor(name: string, re: RegExp, timeoutMs = 10_000): Promise<string> {
  const until = Date.now() + timeoutMs;
  let text = '';
  while (Date.now() < until) {
    text = pane(name);
    if (re.test(text)) return text;
    if (/EXIT=\d+/.test(text)) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`no ${re} in tmux pane ${name} (timed out or the command ended); pane was:\n${text}`);
}

/** Types literal text (no key-name lookup), then optionally Enter. */
function type(name: string, text: string, enter = true): void {
  tmux('send-keys', '-t', name, '-l', text);
  if (enter) tmux('send-keys', '-t', name, 'Enter');
}

const exitCode = (text: string): number => Number(/EXIT=(\d+)/.exec(text)?.[1]);

const title = hasTmux
  ? 'prompts and spinners at a real terminal (built binary in tmux)'
  : 'prompts and spinners at a real terminal: SKIPPED, tmux is not installed (.ci/run installs it; locally: apt-get install -y tmux)';
describe.skipIf(!hasTmux)(title, () => {
  const { sb, env: auth } = useTestSandbox();
  afterAll(async () => {
    // Our private server, with its keep-alive session and any session that outlived afterEach.
    if (socket) spawnSync('tmux', ['-S', socket, 'kill-server'], { stdio: 'ignore' });
    if (work) rmSync(work, { recursive: true, force: true });
  });
  afterEach(() => {
    for (const s of sessions) spawnSync('tmux', ['-S', socket, 'kill-session', '-t', s], { stdio: 'ignore' });
    sessions = [];
  });
  beforeAll(() => {
    work = mkdtempSync(join(tmpdir(), 'ship-e2e-tty-'));
    socket = join(work, 'tmux.sock');
    // One server for the whole file, kept alive by an idle session: a server exits with its last session, and a
    // test's new-session racing the previous server's exit failed with "server exited unexpectedly".
    tmux('new-session', '-d', '-s', 'keep-alive', 'sleep 3600');
  });

  it('ship login asks for the API key, username and password (masked) and stores a 0600 config', async () => {
    const configDir = mkdtempSync(join(work, 'config-'));
    const password = 'demo-password';
    const s = start(['login'], { SHIP_CONFIG_DIR: configDir, SHIP_BASE_URL: sb.baseUrl });

    await waitFor(s, /^\? API key/m);
    type(s, sb.apiKey);
    await waitFor(s, /^\? Username \(email\)/m);
    type(s, 'demo@example.com');
    await waitFor(s, /^\? Password/m);
    type(s, password);
    const text = await waitFor(s, /EXIT=\d+/);

    expect(exitCode(text), text).toBe(0);
    expect(text).toMatch(/Logged in as .* profile default/);
    // Secrets typed at the prompts are masked on screen.
    expect(text).not.toContain(password);
    expect(text).not.toContain(sb.apiKey);
    expect(text).toMatch(/Password.*\*{4,}/);

    const file = join(configDir, 'config.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const stored = JSON.parse(readFileSync(file, 'utf8'));
    const token: unknown = stored.profiles?.default?.token;
    expect(typeof token).toBe('string');
    expect((token as string).length).toBeGreaterThan(0);
    // The stored token is a real one: the API accepts it.
    const me = await apiCall({ ...auth, SHIP_TOKEN: token as string }, 'GET', '/users');
    expect(me.status).toBe(200);
  });

  it('ship login says where it logs in, and fails before any question when nothing answers there', async () => {
    const configDir = mkdtempSync(join(work, 'config-'));
    const s = start(['login'], { SHIP_CONFIG_DIR: configDir, SHIP_BASE_URL: sb.baseUrl });
    const asked = await waitFor(s, /^\? API key/m);
    expect(asked).toContain(`Logging in to ${sb.baseUrl} (profile default)`);
    tmux('send-keys', '-t', s, 'C-c');
    await waitFor(s, /EXIT=\d+/);

    // A port nothing listens on (a server started and stopped to find one).
    const closed = await new Promise<number>((res) => {
      const srv = createServer().listen(0, '127.0.0.1', () => {
        const { port } = srv.address() as AddressInfo;
        srv.close(() => res(port));
      });
    });
    const t = start(['login'], { SHIP_CONFIG_DIR: configDir, SHIP_BASE_URL: `http://127.0.0.1:${closed}/v1.2` });
    const text = await waitFor(t, /EXIT=\d+/);
    expect(exitCode(text), text).toBe(1);
    expect(text).toMatch(new RegExp(`cannot reach 127\\.0\\.0\\.1:${closed}: .*refused`));
    expect(text).not.toMatch(/\? API key/);
  });

  it('Ctrl-C at a prompt is an interrupt: exit 130, nothing stored', async () => {
    const configDir = mkdtempSync(join(work, 'config-'));
    const s = start(['login'], { SHIP_CONFIG_DIR: configDir, SHIP_BASE_URL: sb.baseUrl });
    await waitFor(s, /^\? API key/m);
    tmux('send-keys', '-t', s, 'C-c');
    const text = await waitFor(s, /EXIT=\d+/);
    expect(exitCode(text), text).toBe(130);
    expect(existsSync(join(configDir, 'config.json'))).toBe(false);
  });

  it('ship create --csv asks once; "n" sends nothing, "y" creates them with a summary', async () => {
    const tag = `TTY${Date.now().toString(36).toUpperCase()}`;
    const refs = [1, 2, 3].map((i) => `${tag}-${i}`);
    const csv = join(work, `${tag}.csv`);
    writeFileSync(
      csv,
      [
        'shipment_reference,delivery_service_key,to_name,to_line_1,to_city,to_postcode,to_country,weight',
        ...refs.map((r, i) => `${r},RM_TRACKED_48,Ada Lovelace ${i},12 St James's Square,London,SW1Y 4JH,GB,650`),
      ].join('\n') + '\n',
    );
    const env = { ...auth, SHIP_CONFIG_DIR: mkdtempSync(join(work, 'config-')) };
    const args = ['create', '--csv', csv, '--output-dir', join(work, `${tag}-labels`)];
    const events = async () => Promise.all(refs.map(async (r) => (await apiCall(auth, 'GET', `/shipments/${encodeURIComponent(r)}/events`)).status));

    const no = start(args, env);
    const asked = await waitFor(no, /^\? Create 3 shipments \(3 parcels\) on .*\? \(y\/N\)/m);
    expect(asked.match(/Create 3 shipments/g)).toHaveLength(1);
    type(no, 'n');
    const refused = await waitFor(no, /EXIT=\d+/);
    expect(exitCode(refused), refused).toBe(0);
    expect(refused).toContain('Nothing sent.');
    expect(await events()).toEqual([404, 404, 404]);

    const yes = start(args, env);
    await waitFor(yes, /^\? Create 3 shipments \(3 parcels\) on .*\? \(y\/N\)/m);
    type(yes, 'y');
    const done = await waitFor(yes, /EXIT=\d+/, 20_000);
    expect(exitCode(done), done).toBe(0);
    expect(done.match(/Create 3 shipments/g)).toHaveLength(1);
    // The summary after the run: every one of the three created, none skipped or failed.
    expect(done).toMatch(/Done: 3 shipments/);
    expect(done).toMatch(/created\s+3\b/);
    expect(done).toMatch(/failed\s+0\b/);
    for (const r of refs) expect(done).toContain(r);
    // Label files by name in the table (the summary says where they are), not paths the terminal would break.
    for (const r of refs) expect(done).toContain(`${r}_1.zpl`);
    expect(done).not.toContain(`${tag}-labels/${refs[0]}_1.zpl`);
    expect(done).toMatch(new RegExp(`Labels in .*${tag}-labels`));
    expect(await events()).toEqual([200, 200, 200]);

    // A rerun with one more row asks about that one, saying the earlier run's three are skipped.
    writeFileSync(csv, `${readFileSync(csv, 'utf8')}${tag}-4,RM_TRACKED_48,Ada Lovelace 4,12 St James's Square,London,SW1Y 4JH,GB,650\n`);
    const more = start(args, env);
    await waitFor(more, /^\? Create 1 shipment \(1 parcel\) on .*\? \(3 created by an earlier run are skipped\) \(y\/N\)/m);
    type(more, 'y');
    const moreDone = await waitFor(more, /EXIT=\d+/, 20_000);
    expect(exitCode(moreDone), moreDone).toBe(0);
    expect(moreDone).toMatch(/created\s+1\b/);
    expect(moreDone).toMatch(/skipped\s+3\b/);
    // Nothing left to create: no question at all.
    const again = start(args, env);
    const skipped = await waitFor(again, /EXIT=\d+/, 20_000);
    expect(exitCode(skipped), skipped).toBe(0);
    expect(skipped).not.toMatch(/Create \d+ shipment/);
    expect(skipped).toMatch(/skipped\s+4\b/);
  });

  it('ship create from flags asks, at a terminal, for what the shipment needs and no flag gave (a blank answer is asked again)', async () => {
    const ref = `TTYF${Date.now().toString(36).toUpperCase()}`;
    const env = { ...auth, SHIP_CONFIG_DIR: mkdtempSync(join(work, 'config-')) };
    const s = start(['create', '--to-name', 'Ada Lovelace', '--weight', '650', '--service', 'RM_TRACKED_48', '--output-dir', join(work, `${ref}-labels`)], env);
    await waitFor(s, /^\? Shipment reference/m);
    type(s, ref);
    await waitFor(s, /^\? Address line 1/m);
    type(s, "12 St James's Square");
    await waitFor(s, /^\? Town or city/m);
    tmux('send-keys', '-t', s, 'Enter');
    await waitFor(s, /required/);
    type(s, 'London');
    await waitFor(s, /^\? Postcode/m);
    type(s, 'SW1Y 4JH');
    await waitFor(s, /^\? Country/m);
    type(s, 'United Kingdom');
    const done = await waitFor(s, /EXIT=\d+/, 20_000);
    expect(exitCode(done), done).toBe(0);
    // Given by a flag: not asked.
    expect(done).not.toMatch(/Recipient name/);
    expect((await apiCall(auth, 'GET', `/shipments/${ref}/events`)).status).toBe(200);
  });

  it('ship create from flags refuses a caret at the prompt itself, and a shipment still refused after the questions says the answers as flags', async () => {
    const ref = `TTYI${Date.now().toString(36).toUpperCase()}`;
    const env = { ...auth, SHIP_CONFIG_DIR: mkdtempSync(join(work, 'config-')) };
    const s = start(['create', '--weight', '650', '--service', 'DPD_CLASSIC_EU', '--to-name', 'Marie Curie', '--output-dir', join(work, `${ref}-labels`)], env);
    await waitFor(s, /^\? Shipment reference/m);
    type(s, `${ref}^2`);
    await waitFor(s, /must not contain a backslash \(\\\) or caret \(\^\)/);
    tmux('send-keys', '-t', s, 'C-u');
    type(s, ref);
    await waitFor(s, /^\? Address line 1/m);
    type(s, "1 Rue d'Ulm");
    await waitFor(s, /^\? Town or city/m);
    type(s, 'Paris');
    await waitFor(s, /^\? Postcode/m);
    type(s, '75005');
    await waitFor(s, /^\? Country/m);
    type(s, 'FR');
    // Outside mainland UK the shipment needs items, which no question asks for: refused, with what was typed.
    const done = await waitFor(s, /EXIT=\d+/, 20_000);
    expect(exitCode(done), done).toBe(2);
    expect(done).toMatch(/outside mainland UK/);
    expect(done.replace(/\s*\n\s*/g, ' ')).toContain(`your answers, to give as flags with the rest: --reference ${ref} --to-line1 '1 Rue d'\\''Ulm' --to-city Paris --to-postcode 75005 --to-country FR`);
  });

  it('--no-color reaches the prompts too (inquirer coloured them, knowing only NO_COLOR)', async () => {
    const tag = `TTYC${Date.now().toString(36).toUpperCase()}`;
    const csv = join(work, `${tag}.csv`);
    writeFileSync(csv, `shipment_reference,to_name,to_line_1,to_city,to_postcode,to_country,weight\n${tag}-1,Ada,1 High St,London,SW1Y 4JH,GB,650\n`);
    const env = { ...auth, SHIP_CONFIG_DIR: mkdtempSync(join(work, 'config-')), NO_COLOR: undefined };
    const args = ['create', '--csv', csv, '--output-dir', join(work, `${tag}-labels`)];
    // With escapes (-e): what the terminal was told about colours and attributes.
    const styled = (name: string): string => tmux('capture-pane', '-p', '-e', '-t', name);
    const asked = /\? .*Create 1 shipment \(1 parcel\) on .*\(y\/N\)/;

    const coloured = start(args, env);
    await waitFor(coloured, asked);
    expect(styled(coloured)).toMatch(/\x1b\[[\d;]*m/);
    type(coloured, 'n');
    await waitFor(coloured, /EXIT=\d+/);

    const plain = start(['--no-color', ...args], env);
    await waitFor(plain, asked);
    expect(styled(plain)).not.toMatch(/\x1b\[[\d;]*m/);
    type(plain, 'n');
    expect(exitCode(await waitFor(plain, /EXIT=\d+/))).toBe(0);
  });

  it('Ctrl-C during a bulk run leaves no stale progress line: the summary, exit 130', async () => {
    const tag = `TTYI${Date.now().toString(36).toUpperCase()}`;
    const csv = join(work, `${tag}.csv`);
    const lines = ['shipment_reference,to_name,to_line_1,to_city,to_postcode,to_country,weight'];
    for (let i = 1; i <= 300; i++) lines.push(`${tag}-${i},Ada,1 High St,London,SW1Y 4JH,GB,650`);
    writeFileSync(csv, lines.join('\n') + '\n');
    const env = { ...auth, SHIP_CONFIG_DIR: mkdtempSync(join(work, 'config-')) };
    await sb.control('faults', { latency_ms: 100 });
    try {
      const name = start(['create', '--csv', csv, '--yes', '--no-labels', '--concurrency', '2'], env);
      await waitFor(name, /\d+\/300 shipments · .*\/s/);
      tmux('send-keys', '-t', name, 'C-c');
      const done = await waitFor(name, /EXIT=\d+/, 20_000);
      expect(exitCode(done), done).toBe(130);
      expect(done).toMatch(/Stopped: \d+ shipments/);
      expect(done).toContain('Interrupted: finishing requests in flight');
      // The progress line was cleared where it stood (it stayed, with stale counts and ^C, above the message).
      expect(done, done).not.toMatch(/\/300 shipments/);
    } finally {
      await sb.control('faults', {});
    }
  });

  it('Ctrl-C in track --watch ends the watch: the timeline stays, without its "watching" line, and says it stopped', async () => {
    const ref = `TTYW${Date.now().toString(36).toUpperCase()}`;
    const made = await apiCall(auth, 'POST', '/shipments', {
      shipment_reference: ref,
      to_address: { name: 'Ada', line_1: '1 High St', city: 'London', postcode: 'SW1Y 4JH', country: 'GB' },
      parcels: [{ weight: 650, length: 20, width: 15, depth: 10 }],
    });
    expect(made.status).toBe(201);
    const name = start(['track', ref, '--watch', '--interval', '1'], { ...auth, SHIP_CONFIG_DIR: mkdtempSync(join(work, 'config-')) });
    await waitFor(name, /watching · every 1s/);
    tmux('send-keys', '-t', name, 'C-c');
    const done = await waitFor(name, /EXIT=\d+/);
    expect(exitCode(done), done).toBe(130);
    expect(done).toMatch(/Label created/);
    expect(done, done).not.toMatch(/watching · every/);
    expect(done).toMatch(/stopped watching/);
    expect(done).not.toMatch(/finishing requests in flight/);
  });

  it('ship containers close REF answered "n" leaves the container open', async () => {
    const made = await apiCall(auth, 'POST', '/containers', {
      delivery_service_key: 'DPD_CONSOLIDATED_EU',
      clearance_country: 'DE',
      clearance_location: 'FRA',
    });
    expect(made.status, JSON.stringify(made.body)).toBeLessThan(300);
    const ref: string = made.body.data?.reference ?? made.body.reference;
    expect(ref).toBeTruthy();

    const s = start(['containers', 'close', ref], { ...auth, SHIP_CONFIG_DIR: mkdtempSync(join(work, 'config-')) });
    await waitFor(s, new RegExp(`^\\? Close container ${ref}\\?.*\\(y/N\\)`, 'm'));
    type(s, 'n');
    const text = await waitFor(s, /EXIT=\d+/);
    expect(exitCode(text), text).toBe(0);
    expect(text).toContain(`Container ${ref} left open.`);
    expect(text).not.toContain(`Container ${ref} closed`);

    const shown = await apiCall(auth, 'GET', `/containers/${ref}`);
    expect(shown.status).toBe(200);
    expect(shown.body.data?.status ?? shown.body.status).toBe('Open');

    // Closed meanwhile: closing it again asks nothing (it would change nothing), and deleting it is refused at once.
    expect((await apiCall(auth, 'PATCH', `/containers/${ref}/close`)).status).toBeLessThan(300);
    const again = start(['containers', 'close', ref], { ...auth, SHIP_CONFIG_DIR: mkdtempSync(join(work, 'config-')) });
    const againText = await waitFor(again, /EXIT=\d+/);
    expect(exitCode(againText), againText).toBe(0);
    expect(againText).toContain(`Container ${ref} was already closed`);
    expect(againText).not.toContain('(y/N)');
    const del = start(['containers', 'delete', ref], { ...auth, SHIP_CONFIG_DIR: mkdtempSync(join(work, 'config-')) });
    const delText = await waitFor(del, /EXIT=\d+/);
    expect(exitCode(delText), delText).toBe(2);
    expect(delText).toContain('the container is closed (handed to the carrier), so it cannot be deleted');
    expect(delText).not.toContain('(y/N)');
  });

  it('ship cancel asks once at a terminal: "n" cancels nothing, "y" cancels them; --yes is not asked', async () => {
    const tag = `TTYC${Date.now().toString(36).toUpperCase()}`;
    const refs = [1, 2].map((i) => `${tag}-${i}`);
    for (const r of refs) {
      const made = await apiCall(auth, 'POST', '/shipments', {
        shipment_reference: r,
        to_address: { name: 'Ada', line_1: '1 High St', city: 'London', postcode: 'SW1Y 4JH', country: 'GB' },
        parcels: [{ weight: 650, length: 10, width: 10, depth: 10 }],
      });
      expect(made.status, JSON.stringify(made.body)).toBeLessThan(300);
    }
    const env = { ...auth, SHIP_CONFIG_DIR: mkdtempSync(join(work, 'config-')) };
    const no = start(['cancel', ...refs], env);
    await waitFor(no, new RegExp(`^\\? Cancel 2 shipments ${refs[0]}, ${refs[1]} on .*\\? \\(y/N\\)`, 'm'));
    type(no, 'n');
    const kept = await waitFor(no, /EXIT=\d+/);
    expect(exitCode(kept), kept).toBe(0);
    expect(kept).toContain('Nothing cancelled.');
    const yes = start(['cancel', ...refs], env);
    await waitFor(yes, /^\? Cancel 2 shipments/m);
    type(yes, 'y');
    const done = await waitFor(yes, /EXIT=\d+/);
    expect(exitCode(done), done).toBe(0);
    for (const r of refs) expect(done).toContain(`Cancelled ${r}`);
    // Again with --yes: no question (both are reported as cancelled already).
    const again = await waitFor(start(['cancel', ...refs, '--yes'], env), /EXIT=\d+/);
    expect(exitCode(again), again).toBe(0);
    expect(again).not.toMatch(/Cancel 2 shipments/);
    expect(again).toMatch(/already cancelled/);
  });

  it('a large CSV file shows how far its check got (rows checked of the total) before the confirmation', async () => {
    const csv = join(work, 'large.csv');
    // Enough rows that checking them outlasts the spinner's delay (300 ms) on a fast machine too.
    const rows = 30_000;
    const lines = ['shipment_reference,delivery_service_key,to_name,to_line_1,to_city,to_postcode,to_country,weight'];
    for (let i = 1; i <= rows; i++) lines.push(`LARGE-${i},RM_TRACKED_48,Customer ${i},${i} Long Road,Derby,DE1 1AA,GB,${500 + (i % 900)}`);
    writeFileSync(csv, lines.join('\n') + '\n');
    const s = start(['create', '--csv', csv, '--output-dir', join(work, 'large-labels')], { ...auth, SHIP_CONFIG_DIR: mkdtempSync(join(work, 'config-')) });
    // Everything the terminal receives, also what is drawn and erased between two looks at the pane (on a busy
    // machine a look can come too late to see the spinner that was there).
    const stream = join(work, 'large-stream.txt');
    tmux('pipe-pane', '-t', s, `cat >> ${shq(stream)}`);
    const asked = await waitFor(s, new RegExp(`^\\? Create ${rows} shipments`, 'm'), 30_000);
    // The spinner's line is gone once the question is asked…
    expect(asked).not.toMatch(/(Reading|Checking) \S*large\.csv/);
    // …and it was there before it, counting rows.
    const drawn = readFileSync(stream, 'utf8');
    const progress = drawn.search(/(Reading|Checking) \S*large\.csv… [\d,]+ (of 30,000 )?rows/);
    expect(progress, drawn.slice(0, 2000)).toBeGreaterThanOrEqual(0);
    expect(progress).toBeLessThan(drawn.search(/\? Create/));
    type(s, 'n');
    const text = await waitFor(s, /EXIT=\d+/);
    expect(exitCode(text), text).toBe(0);
    expect(text).toContain('Nothing sent.');
  });

  it('a slow answer shows a spinner while ship waits, gone once the answer is printed; --json shows none', async () => {
    await sb.control('faults', { latency_ms: 1500 });
    try {
      const env = { ...auth, SHIP_CONFIG_DIR: mkdtempSync(join(work, 'config-')) };
      const s = start(['services'], env);
      await waitFor(s, /Waiting for the shipping service…/);
      const text = await waitFor(s, /EXIT=\d+/);
      expect(exitCode(text), text).toBe(0);
      expect(text).toContain('RM_TRACKED_48');
      expect(text).not.toContain('Waiting for the shipping service');

      const j = start(['services', '--json'], env);
      const json = await waitFor(j, /EXIT=\d+/);
      expect(exitCode(json), json).toBe(0);
      expect(json).toContain('"RM_TRACKED_48"');
      expect(json).not.toContain('Waiting');
    } finally {
      await sb.control('faults', {});
    }
  });

  it('a terminal that reports 0 columns (script, docker -t before a resize) still ends: no spinner rather than one clearing lines forever', async () => {
    await sb.control('faults', { latency_ms: 1000 });
    try {
      const env = { ...auth, SHIP_CONFIG_DIR: mkdtempSync(join(work, 'config-')) };
      const s = start(['services'], env, { before: 'stty cols 0' });
      const text = await waitFor(s, /EXIT=\d+/);
      expect(exitCode(text), text).toBe(0);
      expect(text).toContain('RM_TRACKED_48');
    } finally {
      await sb.control('faults', {});
    }
  });
});
