/**
 * The operator CLI as a platform engineer scripts it, mistakes included: another command's flag, a
 * flag given twice or empty, a true/false flag given another word, a key file that already exists
 * or holds a private key, a key another member holds. Each is refused with exit code 1 or 2 and a
 * line that names the flag, and nothing is written; and what a script reads (`| jq`) is JSON alone.
 */
import { createPublicKey, generateKeyPairSync } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAdminCli } from '../support/admin-cli.ts';
import { auditEntries } from '../support/shapes.ts';
import { startTestService, type TestOrganisation, type TestService } from '../support/test-service.ts';

let dataDir: string;
let service: TestService;
let org: TestOrganisation;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'cli-mistakes-'));
  service = await startTestService();
  org = await service.createOrganisation({ name: 'CLI Mistakes Org' });
});
afterAll(async () => {
  await service?.stop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

/** As against a deployed table: the commands that change what recipients can open name the stack's address. */
const NAMES_ADDRESS = new Set(['recover-org', 'disable-member', 'enable-member', 'set-identity-key']);
const cli = (command: string, args: string[]) =>
  runAdminCli(service.deps.tableName, command, NAMES_ADDRESS.has(command) ? [...args, '--app-url', service.appUrl] : args, { DATA_DIR: dataDir });
const entries = async () => (await auditEntries(service, org.orgId)).length;

describe('refused before anything is written', () => {
  it.each([
    ['another command\'s flag', 'create-key', ['--name', 'Portal', '--scopes', 'requests:read', '--client-id', 'x'], 2, "Unknown option '--client-id' for create-key. Did you mean '--client'?"],
    ['a flag given twice', 'create-key', ['--name', 'Portal', '--scopes', 'requests:read', '--scopes', 'events:read'], 2, '--scopes is given twice'],
    ['an empty value', 'create-key', ['--name', 'Portal', '--scopes', 'requests:read', '--client', ''], 2, '--client has an empty value'],
    ['a true/false flag given another word', 'set-policy', ['--rotation-signal', 'True'], 1, '--rotation-signal must be true or false'],
    ['a rate limit of 0', 'set-rate-limits', ['--per-key', '0', '--per-org', '0'], 1, '--per-key must be at least 1 call a minute'],
    ['an organisation that does not exist', 'index-tickets', [], 1, 'no such organisation'],
  ])('%s', async (what, command, args, code, message) => {
    const before = await entries();
    const run = await cli(command, ['--org', what.includes('does not exist') ? '01hzzzzzzzzzzzzzzzzzzzzzzz' : org.orgId, ...args]);
    expect(run.code, run.stderr).toBe(code);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain(message);
    expect(await entries()).toBe(before);
  });

  it("refuses a helpdesk connection's flag without --adapter, and a setting's flag with it, naming the flag", async () => {
    const integration = JSON.parse((await cli('connect-integration', ['--org', org.orgId, '--name', 'Rotating Desk', '--app-url', service.appUrl, '--json'])).stdout).integration.id as string;
    const before = await entries();
    const rotated = await cli('set-integration', ['--org', org.orgId, '--integration', integration, '--client-secret', 'a-new-oauth-secret', '--app-url', service.appUrl]);
    expect(rotated.code, rotated.stderr).toBe(1);
    expect(rotated.stdout).toBe('');
    expect(rotated.stderr).toContain(
      '--client-secret is a setting of the helpdesk connection: give it with --adapter and every other setting of the connection (the connection is made again whole)',
    );
    const mixed = await cli('set-integration', [
      '--org', org.orgId, '--integration', integration, '--adapter', 'zendesk', '--helpdesk-url', 'https://acme.zendesk.com',
      '--client-id', 'handoff', '--client-secret', 'a-new-oauth-secret', '--status-map', 'Solved=closed', '--app-url', service.appUrl,
    ]);
    expect(mixed.code, mixed.stderr).toBe(1);
    expect(mixed.stderr).toContain("--status-map changes the integration's settings, not its helpdesk connection: run set-integration again without --adapter for it");
    // A secret that begins with a dash is the flag's value, not an option parseArgs calls ambiguous.
    const dashed = await cli('set-integration', ['--org', org.orgId, '--integration', integration, '--client-secret', '-oDl0DNAMFZX3KV4XQVvm8q', '--app-url', service.appUrl]);
    expect(dashed.code, dashed.stderr).toBe(1);
    expect(dashed.stderr).not.toContain('ambiguous');
    expect(dashed.stderr).toContain('--client-secret is a setting of the helpdesk connection');
    expect(await entries()).toBe(before);
  });

  it('never overwrites a key file, and deletes the pair it made for a command then refused', async () => {
    const file = join(dataDir, 'keys', 'ann.pem');
    const added = await cli('add-member', ['--org', org.orgId, '--name', 'Ann Admin', '--email', 'ann@cli.example', '--generate-key', file]);
    expect(added.code, added.stderr).toBe(0);
    const kept = readFileSync(file, 'utf8');
    const again = await cli('add-member', ['--org', org.orgId, '--name', 'Ann Again', '--email', 'ann2@cli.example', '--generate-key', file]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(`--generate-key: ${file} already exists, and a key file is never overwritten`);
    expect(readFileSync(file, 'utf8')).toBe(kept);

    const refusedFile = join(dataDir, 'keys', 'nobody.pem');
    const refused = await cli('set-identity-key', ['--org', org.orgId, '--member', org.member.email, '--generate-key', refusedFile, '--public-key', file]);
    expect(refused.code).toBe(1);
    const unknown = await cli('recover-org', ['--org', org.orgId, '--email', 'new-owner@cli.example', '--reason', 'short', '--generate-key', refusedFile]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('the reason must be at least');
    expect(existsSync(refusedFile)).toBe(false);
  });

  it('takes a public key only, and never one another member holds', async () => {
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
    const privateFile = join(dataDir, 'private.pem');
    writeFileSync(privateFile, privateKey.export({ format: 'pem', type: 'pkcs8' }));
    const fromPrivate = await cli('add-member', ['--org', org.orgId, '--name', 'Pat Private', '--email', 'pat@cli.example', '--public-key', privateFile]);
    expect(fromPrivate.code).toBe(1);
    expect(fromPrivate.stderr).toContain('holds a private key; give the public key only');
    const missing = await cli('add-member', ['--org', org.orgId, '--name', 'Pat Missing', '--email', 'pat@cli.example', '--public-key', join(dataDir, 'nope.pem')]);
    expect(missing.stderr).toContain('does not exist');

    const publicFile = join(dataDir, 'public.pem');
    writeFileSync(publicFile, createPublicKey(privateKey).export({ format: 'pem', type: 'spki' }));
    expect(publicKey).toBeDefined();
    expect((await cli('add-member', ['--org', org.orgId, '--name', 'Kim Key', '--email', 'kim@cli.example', '--public-key', publicFile])).code).toBe(0);
    const copy = await cli('add-member', ['--org', org.orgId, '--name', 'Copy Cat', '--email', 'copycat@cli.example', '--public-key', publicFile]);
    expect(copy.code).toBe(1);
    expect(copy.stderr).toContain("another member's key");
    const recovered = await cli('recover-org', ['--org', org.orgId, '--email', 'dee@cli.example', '--reason', 'Testing a duplicate key on recovery', '--public-key', publicFile]);
    expect(recovered.code).toBe(1);
    expect(recovered.stderr).toContain("this key is another member's");
    const members = await service.admin.directory.listMembers(org.orgId);
    expect(members.map((member) => member.email)).not.toContain('copycat@cli.example');
    expect(members.map((member) => member.email)).not.toContain('dee@cli.example');
  });
});

describe('what a script reads', () => {
  it('lists keys newest first, as the application does, and names an organisation that does not exist', async () => {
    for (const name of ['First key', 'Second key']) expect((await cli('create-key', ['--org', org.orgId, '--name', name, '--scopes', 'requests:read'])).code).toBe(0);
    const listed = JSON.parse((await cli('list-keys', ['--org', org.orgId])).stdout) as Array<{ name: string }>;
    expect(listed.map((key) => key.name).slice(0, 2)).toEqual(['Second key', 'First key']);
    const unknown = await cli('list-keys', ['--org', '01hzzzzzzzzzzzzzzzzzzzzzzz']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('no such organisation');
  });

  it('prints the member a member command changed, as the application lists it', async () => {
    const disabled = await cli('disable-member', ['--org', org.orgId, '--member', org.member.email]);
    expect(JSON.parse(disabled.stdout)).toMatchObject({ membership_id: org.member.id, email: org.member.email, active: false });
    const enabled = await cli('enable-member', ['--org', org.orgId, '--member', org.member.email]);
    expect(JSON.parse(enabled.stdout)).toMatchObject({ membership_id: org.member.id, active: true });
  });
});

describe('a command run again', () => {
  it('writes nothing when what it sets is already so: the plan, the rate limits, the default preset, an integration', async () => {
    const integration = JSON.parse((await cli('connect-integration', ['--org', org.orgId, '--name', 'Desk', '--app-url', service.appUrl, '--json'])).stdout).integration.id as string;
    const commands: Array<[string, string[]]> = [
      ['set-plan', ['--plan', 'business']],
      ['set-rate-limits', ['--per-key', '500', '--per-org', '1000']],
      ['set-default-preset', ['--preset', 'none']],
      ['set-integration', ['--integration', integration, '--name', 'Desk', '--app-url', service.appUrl]],
    ];
    for (const [command, args] of commands) {
      const first = await cli(command, ['--org', org.orgId, ...args]);
      expect(first.code, `${command}: ${first.stderr}`).toBe(0);
      const before = await entries();
      const again = await cli(command, ['--org', org.orgId, ...args]);
      expect(again.code, `${command}: ${again.stderr}`).toBe(0);
      expect(again.stdout, command).toBe(first.stdout);
      expect(await entries(), `${command} run again wrote an audit entry`).toBe(before);
    }
  });
});
