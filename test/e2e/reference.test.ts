// The built binary against the in-process sandbox: every reference command, with and without --json,
// and each exit code of the contract produced by the case it names.
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { ship } from '../helpers/bin.js';
import { useTestSandbox } from '../helpers/sandbox.js';

const { sb, env } = useTestSandbox();

const run = (args: string[], extra: Record<string, string> = {}) => ship(args, { env: { ...env, ...extra } });
const json = async (args: string[]) => {
  const r = await run([...args, '--json']);
  expect(r.exitCode, `${args.join(' ')}: ${String(r.stderr)}`).toBe(0);
  return JSON.parse(String(r.stdout));
};

describe('reference commands (binary)', () => {
  // Independent runs go in parallel: each binary start costs far more than the request.
  it('services: table with readable conditions, --json array, filter narrows the list', async () => {
    const [all, text, heavy] = await Promise.all([json(['services']), run(['services']), json(['services', '--weight', '30000'])]);
    expect(Array.isArray(all)).toBe(true);
    expect(all.length).toBeGreaterThanOrEqual(6);
    expect(text.exitCode).toBe(0);
    const lines = String(text.stdout).trim().split('\n');
    expect(lines).toHaveLength(all.length);
    expect(lines[0].split('\t')[0]).toBe(all[0].key);
    // Every condition shows up as "Field op value", joined with " and "; services without any say "none".
    const conditionText = (c: unknown) => (Array.isArray(c) ? c.slice(0, 3) : [(c as any).field, (c as any).operator, (c as any).value]).join(' ');
    for (const [i, s] of all.entries()) {
      const cell = lines[i].split('\t')[4];
      expect(cell).toBe(s.conditions.length ? s.conditions.map(conditionText).join(' and ') : 'none');
    }
    expect(lines.some((l) => l.split('\t')[4].includes(' and '))).toBe(true);
    expect(heavy.length).toBeLessThan(all.length);
  });

  it('locations and brands: list, one by reference, --json', async () => {
    const [locations, locText, brands, brandKeys] = await Promise.all([json(['locations']), run(['locations']), json(['brands']), run(['brands', '--quiet'])]);
    expect(locations.length).toBeGreaterThanOrEqual(2);
    expect(String(locText.stdout).trim().split('\n')).toHaveLength(locations.length);
    expect(brands.length).toBeGreaterThanOrEqual(2);
    expect(String(brandKeys.stdout).trim().split('\n')).toEqual(brands.map((b: { key: string }) => b.key));

    const code = locations[0].code as string;
    const [one, brand] = await Promise.all([run(['locations', code]), json(['brands', brands[0].key])]);
    expect(one.exitCode).toBe(0);
    expect(String(one.stdout)).toContain(`code\t${code}\n`);
    expect(String(one.stdout)).toMatch(/^address\t.+, .+$/m);
    expect(brand.id).toBe(brands[0].id);
  });

  it('users, packaging and custom fields: tables and --json', async () => {
    const [users, usersText, packaging, packText, fields, fieldsText] = await Promise.all([
      json(['users']),
      run(['users']),
      json(['packaging']),
      run(['packaging']),
      json(['custom-fields']),
      run(['custom-fields']),
    ]);
    expect(users.map((u: { email: string }) => u.email)).toContain('demo@example.com');
    expect(String(usersText.stdout)).toMatch(/demo@example\.com\tMERCHANT_ADMIN/);

    expect(typeof packaging.net_weight).toBe('boolean');
    const text = String(packText.stdout);
    // Off a terminal: only packaging types on stdout (one kind of row for cut/awk), the account flags on stderr.
    expect(text).not.toMatch(/net weight/);
    expect(String(packText.stderr)).toMatch(/net weight: (yes|no); allow override: (yes|no)/);
    const def = packaging.packaging_types.find((t: { default: boolean }) => t.default);
    expect(text).toContain(`${def.key}\t${def.name}\t*\t`);

    expect(fields.length).toBeGreaterThan(0);
    expect(String(fieldsText.stdout).trim().split('\n')).toHaveLength(fields.length);
    expect((await json(['custom-fields', fields[0].key])).key).toBe(fields[0].key);
  });

  it('custom-fields create posts every attribute, including validation rules', async () => {
    const created = await json(['custom-fields', 'create', '--name', 'Pallets', '--key', `pallets_${Date.now()}`, '--entity', 'SHIPMENT', '--data-type', 'NUMERIC', '--numeric-type', 'INT', '--min-value', '1', '--max-value', '40', '--required']);
    expect(created).toMatchObject({
      name: 'Pallets',
      entity: 'SHIPMENT',
      data_type: 'NUMERIC',
      data_validation_rules: { is_required: true, numeric_type: 'INT', min_value: 1, max_value: 40 },
    });
    expect(typeof created.id).toBe('string');
  });

  it('custom-fields create: the API refusing a field names the flag that supplies it (exit 2), --json keeps the field path', async () => {
    const args = ['custom-fields', 'create', '--name', 'Gift', '--key', 'gift_message', '--entity', 'SHIPMENT', '--data-type', 'TEXT'];
    const [text, asJson] = await Promise.all([run(args), run([...args, '--json'])]);
    expect(text.exitCode).toBe(2);
    expect(String(text.stderr)).toMatch(/^ {2}--key: The key has already been taken\./m);
    expect(String(text.stderr)).toContain('the custom field was not created');
    expect(asJson.exitCode).toBe(2);
    const err = JSON.parse(String(asJson.stderr).trim().split('\n').pop()!).error;
    expect(err.fields).toEqual({ key: ['The key has already been taken.'] });
    expect(err.problems).toEqual([{ column: '--key', message: 'The key has already been taken.' }]);
  });

  it('--verbose traces each request on stderr with no full token or API key', async () => {
    const r = await run(['users', '--verbose']);
    expect(r.exitCode).toBe(0);
    expect(String(r.stderr)).toMatch(/→ GET .*\/users/);
    expect(String(r.stderr)).toMatch(/← 200/);
    for (const secret of [env.SHIP_TOKEN, env.SHIP_API_KEY]) {
      expect(String(r.stderr)).not.toContain(secret);
      expect(String(r.stdout)).not.toContain(secret);
    }
  });
});

describe('exit codes of the contract (binary)', () => {
  it('2: unknown flag, and a bad flag value', async () => {
    expect((await run(['services', '--no-such-flag'])).exitCode).toBe(2);
    const bad = await run(['services', '--weight', 'heavy']);
    expect(bad.exitCode).toBe(2);
    expect(String(bad.stderr)).toMatch(/--weight/);
  });

  it('4: no credentials, and a key the server rejects (401)', async () => {
    const none = await run(['services'], { SHIP_API_KEY: '', SHIP_TOKEN: '' });
    expect(none.exitCode).toBe(4);
    const rejected = await run(['services'], { SHIP_API_KEY: 'wrong-api-key-123' });
    expect(rejected.exitCode).toBe(4);
    expect(String(rejected.stderr)).not.toContain('wrong-api-key-123');
  });

  it('5: not found (ship locations NOPE)', async () => {
    const r = await run(['locations', 'NOPE']);
    expect(r.exitCode).toBe(5);
    expect(String(r.stdout)).toBe('');
  });

  it('1: server unreachable (a closed loopback port)', async () => {
    const port = await new Promise<number>((resolve) => {
      const s = createServer();
      s.listen(0, '127.0.0.1', () => {
        const p = (s.address() as { port: number }).port;
        s.close(() => resolve(p));
      });
    });
    const r = await run(['--base-url', `http://127.0.0.1:${port}/v1.2`, 'brands', '--json']);
    expect(r.exitCode).toBe(1);
    expect(String(r.stdout)).toBe('');
    expect(JSON.parse(String(r.stderr).trim().split('\n').at(-1)!).error.exit_code).toBe(1);
  });
});
