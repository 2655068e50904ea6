import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runShip } from '../../helpers/run.js';
import { startStub, type StubServer } from '../stub-server.js';

const KEY = 'ref-api-key-SECRET-4242';
const TOKEN = 'ref-token-SECRET-abcd9876';
const GB = { code: 'GB', name: 'United Kingdom' };

const SERVICES = [
  { id: 's1', carrier: 'Royal Parcels', name: 'Tracked 48', description: 'Two days', key: 'RP48', price: '3.10', conditions: [['Weight', '<=', '2000'], ['Length', '<', '60']] },
  { id: 's2', carrier: 'FastFreight', name: 'Next day', description: 'By noon', key: 'FF24', price: '7.90', conditions: [] },
];
const LOCATIONS = [
  { id: 'l1', code: 'WH1', name: 'Leeds warehouse', type: 'OTHER', address_name: 'Acme', address_line_1: '1 Dock Rd', address_line_2: '', address_line_3: null, address_town_city: 'Leeds', address_county: null, address_country: GB, address_post_zip_code: 'LS1 1AA', default: true },
  { id: 'l2', code: 'SHOP', name: 'Shop', type: 'STORE', address_line_1: '2 High St', address_town_city: 'York', address_country: GB, default: false },
];
const BRANDS = [{ id: 'b1', key: 'MAIN', name: 'Acme', return_address_line_1: '1 Dock Rd', return_address_town_city: 'Leeds', return_address_postcode: 'LS1 1AA', return_address_country: GB, return_email: 'returns@acme.test', default: true }];
const USERS = [{ id: 'u1', title: 'Ms', first_name: 'Dana', last_name: 'Demo', email: 'dana@example.com', access_level: 'MERCHANT_ADMIN', location: LOCATIONS[0], printer_online: true }];
const PACKAGING = {
  net_weight: false,
  allow_override: true,
  packaging_types: [
    { name: 'Small box', key: 'BOX_S', default: true, internal_width: 300, internal_height: 200, internal_depth: 100, external_width: 310, external_height: 210, external_depth: 110, max_weight: 5000, default_weight: 250, packaging_weight: 120 },
    { name: 'Mailer', key: 'MAILER', default: false, internal_width: 250, internal_height: 350, internal_depth: 30, max_weight: 1000, default_weight: 50, packaging_weight: 20 },
  ],
};
const FIELDS = [{ id: 'c1', name: 'Gift message', key: 'gift_message', entity: 'SHIPMENT', data_type: 'TEXT', source: 'DIRECT', default_value: null, mapped_to: null, data_validation_rules: { is_required: false, max_length: 200 } }];

let stub: StubServer;
let env: Record<string, string>;
const authed = (data: unknown, wrap = true) => (r: { headers: Record<string, unknown> }) =>
  r.headers['x-service-token'] === TOKEN && r.headers['x-service-api-key'] === KEY
    ? { body: wrap ? { message: 'OK', data } : { data } }
    : { status: 401, body: { message: 'Unauthenticated', data: null } };

beforeAll(async () => {
  stub = await startStub();
  env = { SHIP_CONFIG_DIR: mkdtempSync(join(tmpdir(), 'ship-ref-')), SHIP_BASE_URL: stub.baseUrl, SHIP_API_KEY: KEY, SHIP_TOKEN: TOKEN };
});
afterAll(() => stub.close());
beforeEach(() => {
  stub.requests.length = 0;
  stub.on('GET /services', authed(SERVICES));
  stub.on('GET /locations', authed({ data: LOCATIONS, current_page: 1 }));
  stub.on('GET /locations/WH1', authed(LOCATIONS[0]));
  stub.on('GET /locations/NOPE', { status: 404, body: { message: 'Location not found', data: null } });
  stub.on('GET /brands', authed(BRANDS));
  stub.on('GET /brands/MAIN', authed(BRANDS[0]));
  stub.on('GET /users', authed(USERS, false));
  stub.on('GET /packaging-options', authed(PACKAGING));
  stub.on('GET /custom-fields', authed(FIELDS));
  stub.on('GET /custom-fields/gift_message', authed([FIELDS[0]]));
});

const ship = (args: string[], extra: Record<string, string> = {}, tty = false) => runShip(args, { env: { ...env, ...extra }, tty });

describe('ship services', () => {
  it('prints a TSV table with readable conditions off a terminal', async () => {
    const r = await ship(['services']);
    expect(r.code).toBe(0);
    expect(r.stdout.split('\n')).toEqual([
      'RP48\tRoyal Parcels\tTracked 48\t3.10\tWeight <= 2000 and Length < 60\tTwo days',
      'FF24\tFastFreight\tNext day\t7.90\tnone\tBy noon',
      '',
    ]);
    expect(stub.requests[0].headers['x-service-token']).toBe(TOKEN);
  });

  it('prints a boxed table with headers on a terminal', async () => {
    const r = await ship(['services'], {}, true);
    expect(r.stdout).toMatch(/KEY.*CARRIER.*NAME.*PRICE.*CONDITIONS/);
    expect(r.stdout).toMatch(/┌/);
  });

  it('sends the parcel filter as query parameters', async () => {
    const r = await ship(['services', '--weight', '1500', '--length', '40', '--width', '30', '--depth', '10', '--quiet']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('RP48\nFF24\n');
    expect(Object.fromEntries(stub.requests[0].query)).toEqual({ weight: '1500', length: '40', width: '30', depth: '10' });
  });

  it('refuses a bad filter with exit 2 before any request', async () => {
    const r = await ship(['services', '--weight', '1.5kg']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--weight/);
    expect(stub.requests).toHaveLength(0);
  });

  it('--json prints the API array as one document', async () => {
    const r = await ship(['services', '--json']);
    expect(JSON.parse(r.stdout)).toEqual(SERVICES.map((s) => expect.objectContaining({ key: s.key, price: s.price })));
  });

  it('an empty list is not an error', async () => {
    stub.on('GET /services', authed([]));
    const r = await ship(['services', '--weight', '99999']);
    expect(r).toMatchObject({ code: 0, stdout: '' });
    expect(r.stderr).toMatch(/No delivery service/);
    expect(JSON.parse((await ship(['services', '--json'])).stdout)).toEqual([]);
  });
});

describe('ship locations / brands', () => {
  it('lists locations from the paginator wrapper, with joined addresses', async () => {
    const r = await ship(['locations']);
    expect(r.code).toBe(0);
    expect(r.stdout.split('\n')[0]).toBe('WH1\tLeeds warehouse\tOTHER\tyes\tAcme, 1 Dock Rd, Leeds, LS1 1AA, GB');
    expect((await ship(['locations', '-q'])).stdout).toBe('WH1\nSHOP\n');
    expect(JSON.parse((await ship(['locations', '--json'])).stdout)).toHaveLength(2);
  });

  it('shows one location as key/values', async () => {
    const r = await ship(['locations', 'WH1']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('code\tWH1\n');
    expect(r.stdout).toContain('address\tAcme, 1 Dock Rd, Leeds, LS1 1AA, GB\n');
    expect(r.stdout).toContain('default\tyes\n');
    expect(JSON.parse((await ship(['locations', 'WH1', '--json'])).stdout)).toMatchObject({ id: 'l1', code: 'WH1' });
  });

  it('a missing location exits 5', async () => {
    const r = await ship(['locations', 'NOPE']);
    expect(r.code).toBe(5);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/not found/i);
  });

  it('lists brands and shows one', async () => {
    expect((await ship(['brands'])).stdout).toBe('MAIN\tAcme\tyes\t1 Dock Rd, Leeds, LS1 1AA, GB\treturns@acme.test\n');
    const one = await ship(['brands', 'MAIN']);
    expect(one.stdout).toContain('return address\t1 Dock Rd, Leeds, LS1 1AA, GB\n');
    expect(JSON.parse((await ship(['brands', 'MAIN', '--json'])).stdout)).toMatchObject({ key: 'MAIN' });
    expect((await ship(['brands', '--quiet'])).stdout).toBe('MAIN\n');
  });
});

describe('ship users / packaging / custom-fields', () => {
  it('lists users with name, email, access level, location and printer status', async () => {
    const r = await ship(['users']);
    expect(r.stdout).toBe('Ms Dana Demo\tdana@example.com\tMERCHANT_ADMIN\tWH1\tyes\tu1\n');
    expect((await ship(['users', '-q'])).stdout).toBe('u1\n');
    expect(JSON.parse((await ship(['users', '--json'])).stdout)[0]).toMatchObject({ email: 'dana@example.com' });
  });

  it('shows packaging flags then types in mm and g, default marked; off a terminal the flags go to stderr', async () => {
    const r = await ship(['packaging']);
    expect(r.stderr).toContain('net weight: no; allow override: yes');
    expect(r.stdout.split('\n')).toEqual([
      'BOX_S\tSmall box\t*\t300 × 200 × 100\t310 × 210 × 110\t5000\t250\t120',
      'MAILER\tMailer\t\t250 × 350 × 30\t\t1000\t50\t20',
      '',
    ]);
    const onTerminal = await ship(['packaging'], {}, true);
    expect(onTerminal.stdout).toMatch(/net weight\s+no/);
    expect(onTerminal.stdout).toMatch(/BOX_S/);
    expect((await ship(['packaging', '--quiet'])).stdout).toBe('BOX_S\nMAILER\n');
    expect(JSON.parse((await ship(['packaging', '--json'])).stdout)).toMatchObject({ net_weight: false, allow_override: true });
  });

  it('lists custom fields with rules, and shows one', async () => {
    expect((await ship(['custom-fields'])).stdout).toBe('gift_message\tGift message\tSHIPMENT\tTEXT\tDIRECT\t\t\tmax length 200\n');
    const one = await ship(['custom-fields', 'gift_message', '--json']);
    expect(JSON.parse(one.stdout)).toMatchObject({ key: 'gift_message', data_type: 'TEXT' });
    // A typo of the subcommand is taken for a key: not found, and the hint names the subcommand.
    stub.on('GET /custom-fields/creat', { status: 404, body: { message: 'Not found', data: null } });
    const typo = await ship(['custom-fields', 'creat']);
    expect(typo.code).toBe(5);
    expect(typo.stderr).toContain('did you mean `ship custom-fields create`?');
  });

  it('creates a custom field with validation rules, posting the built body', async () => {
    stub.on('POST /custom-fields', (r) => ({ status: 201, body: { message: 'Created', data: { id: 'c9', ...(r.body as object) } } }));
    const r = await ship(['custom-fields', 'create', '--name', 'Colour', '--key', 'colour', '--entity', 'parcel', '--data-type', 'LIST', '--options', 'Red,Green', '--default-value', 'Red', '--required', '--json']);
    expect(r.code).toBe(0);
    const post = stub.requests.find((q) => q.method === 'POST')!;
    expect(post.body).toEqual({
      name: 'Colour',
      key: 'colour',
      entity: 'PARCEL',
      data_type: 'LIST',
      default_value: 'Red',
      data_validation_rules: { is_required: true, options: '"Red","Green"' },
    });
    expect(JSON.parse(r.stdout)).toMatchObject({ id: 'c9', key: 'colour' });
  });

  it('refuses a rule for the wrong data type with exit 2, naming the flag, before sending', async () => {
    const r = await ship(['custom-fields', 'create', '--name', 'N', '--key', 'k', '--entity', 'SHIPMENT', '--data-type', 'BOOLEAN', '--max-length', '3']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--max-length applies only to --data-type TEXT/);
    expect(stub.requests).toHaveLength(0);
    const missing = await ship(['custom-fields', 'create', '--name', 'N', '--key', 'k', '--entity', 'SHIPMENT']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/--data-type/);
  });

  it('shows the API field messages of a 400 and exits 2', async () => {
    stub.on('POST /custom-fields', { status: 400, body: { message: 'The given data failed to pass validation.', data: { key: ['The key has already been taken.'] } } });
    const r = await ship(['custom-fields', 'create', '--name', 'N', '--key', 'gift_message', '--entity', 'SHIPMENT', '--data-type', 'TEXT']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/key: The key has already been taken\./);
  });
});

describe('output conventions', () => {
  it('--json stdout is exactly one JSON document for every reference command', async () => {
    for (const args of [['services'], ['locations'], ['locations', 'WH1'], ['brands'], ['brands', 'MAIN'], ['users'], ['packaging'], ['custom-fields'], ['custom-fields', 'gift_message']]) {
      const r = await ship([...args, '--json']);
      expect(r.code, args.join(' ')).toBe(0);
      expect(() => JSON.parse(r.stdout), args.join(' ')).not.toThrow();
      expect(r.stdout.trim().startsWith('[') || r.stdout.trim().startsWith('{')).toBe(true);
    }
  });

  it('--verbose traces requests on stderr without the full token or API key', async () => {
    const r = await ship(['users', '--verbose']);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/GET .*\/users/);
    expect(r.stderr).not.toContain(TOKEN);
    expect(r.stderr).not.toContain(KEY);
    expect(r.stdout).not.toMatch(/GET/);
  });

  it('exit 4 without credentials or on 401, and the message never holds a secret', async () => {
    const none = await ship(['services'], { SHIP_API_KEY: '', SHIP_TOKEN: '' });
    expect(none.code).toBe(4);
    expect(none.stderr).toMatch(/no API key/);
    const noToken = await ship(['services'], { SHIP_TOKEN: '' });
    expect(noToken.code).toBe(4);
    expect(noToken.stderr).toMatch(/ship login/);
    const rejected = await ship(['services'], { SHIP_TOKEN: 'wrong-token-00001' });
    expect(rejected.code).toBe(4);
    expect(rejected.stderr).not.toContain('wrong-token-00001');
  });

  it('exit 4 on 403 (not allowed), naming it', async () => {
    stub.on('GET /users', { status: 403, body: { message: 'Insufficient privileges', data: null } });
    const r = await ship(['users']);
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/not allowed: Insufficient privileges/);
  });

  it('exit 2 for settings that cannot be used, before any request', async () => {
    const insecure = await ship(['services'], { SHIP_BASE_URL: 'http://api.example.com/v1.2' });
    expect(insecure.code).toBe(2);
    expect(insecure.stderr).toMatch(/SHIP_BASE_URL: refusing plain http:\/\/ to api\.example\.com/);
    const testMode = await ship(['--test', 'services'], { SHIP_BASE_URL: '' });
    expect(testMode.code).toBe(2);
    expect(testMode.stderr).toMatch(/ship config set test_base_url URL/);
    const timeout = await ship(['--timeout', 'soon', 'services']);
    expect(timeout.code).toBe(2);
    expect(timeout.stderr).toMatch(/--timeout/);
    expect(stub.requests).toHaveLength(0);
  });

  it('colour: off by NO_COLOR even when forced, on with FORCE_COLOR', async () => {
    const plain = await ship(['locations', 'NOPE'], { NO_COLOR: '1', FORCE_COLOR: '1' });
    expect(plain.stderr).not.toMatch(/\x1b\[/);
    const forced = await runShip(['locations', 'NOPE'], { env: { ...env, FORCE_COLOR: '1', NO_COLOR: '' } });
    expect(forced.stderr).toMatch(/\x1b\[/);
    const flag = await runShip(['--no-color', 'locations', 'NOPE'], { env: { ...env, FORCE_COLOR: '1', NO_COLOR: '' } });
    expect(flag.stderr).not.toMatch(/\x1b\[/);
    // On a terminal: colour, unless --no-input (a script is driving; FORCE_COLOR still wins).
    const { CI: _ci, ...local } = env;
    const tty = await runShip(['locations', 'NOPE'], { env: { ...local, NO_COLOR: '' }, tty: true });
    expect(tty.stderr).toMatch(/\x1b\[/);
    const noInput = await runShip(['--no-input', 'locations', 'NOPE'], { env: { ...local, NO_COLOR: '' }, tty: true });
    expect(noInput.stderr).not.toMatch(/\x1b\[/);
    const noInputForced = await runShip(['--no-input', 'locations', 'NOPE'], { env: { ...local, NO_COLOR: '', FORCE_COLOR: '1' }, tty: true });
    expect(noInputForced.stderr).toMatch(/\x1b\[/);
  });

  it('an unknown flag is exit 2', async () => {
    expect((await ship(['services', '--colour'])).code).toBe(2);
  });
});
