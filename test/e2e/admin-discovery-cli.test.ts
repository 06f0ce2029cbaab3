/**
 * The operator CLI finds its own way: a newcomer lists the organisations (list-orgs), looks inside
 * one (show-org, list-members, list-presets, list-integrations) as aligned text or, with --json,
 * snake_case JSON that holds no secret; every command's --help shows a worked example that the
 * command would accept; a value typed without its flag is answered with where it goes; and
 * switching an integration's --auth mode never carries the previous check's secret over.
 * As a process (the run's bundle of bin/admin.ts) on the test's table, with a DATA_DIR holding the
 * sealing key the service uses too.
 */
import { createHmac } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_COMMANDS } from '../../bin/admin/all-commands.ts';
import { commandHelp, flagsOf, repeatablesOf, switchesOf } from '../../bin/admin/command-help.ts';
import { OPERATOR_ACTOR } from '../../lambdas/core/model.ts';
import { configureIntegration, connectIntegration } from '../../lambdas/core/use-cases/integrations/manage-integration.ts';
import { KeyFileSealer } from '../../lambdas/local/key-file-sealer.ts';
import { SEALING_KEY_FILE } from '../../lambdas/local/local-service.ts';
import { keys } from '../../lambdas/store/keys.ts';
import { runAdminCli } from '../support/admin-cli.ts';
import { startFakeZendesk } from '../support/fake-zendesk.ts';
import { identityKey, startTestService, type TestOrganisation, type TestService } from '../support/test-service.ts';

let dataDir: string;
let service: TestService;
/** The organisation the listings look into: three members (one disabled, one with a key awaiting approval), a preset, two integrations. */
let acme: TestOrganisation;
let disabled: { id: string; email: string };
let replacementFingerprint: string;
let zendeskIntegration: string;
let hmacIntegration: string;
const HMAC_SECRET = 'discovery-hmac-secret-5c1e9a7b3d';
/** An organisation whose only owner is disabled: nobody can manage it from the application. */
let ownerless: TestOrganisation;
/** The service's web address on the loopback address, as the operator would give it. */
let appUrl: string;

const cli = (command: string, args: string[]) => runAdminCli(service.deps.tableName, command, args, { DATA_DIR: dataDir });
const integrationDeps = () => ({ ...service.deps, urls: { appUrl } });
const getItem = async (key: { pk: string; sk: string }) =>
  (await service.deps.db.send(new GetCommand({ TableName: service.deps.tableName, Key: key, ConsistentRead: true }))).Item as Record<string, any> | undefined;

/** The row of a table printed by the CLI that holds `text`, split into its cells (two or more spaces apart). */
const rowWith = (stdout: string, text: string) => {
  const line = stdout.split('\n').find((candidate) => candidate.includes(text));
  expect(line, `a row holding ${text} in:\n${stdout}`).toBeDefined();
  return line!.trim().split(/ {2,}/);
};
const headerOf = (stdout: string) => stdout.split('\n')[0]!.trim().split(/ {2,}/);

/** Every key of a JSON value at any depth, but inside the objects keyed by a helpdesk's words or paths. */
const keysOf = (value: unknown, skip = new Set(['status_map', 'fields'])): string[] => {
  if (Array.isArray(value)) return value.flatMap((item) => keysOf(item, skip));
  if (!value || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([key, inner]) => [key, ...(skip.has(key) ? [] : keysOf(inner, skip))]);
};
const SNAKE_CASE = /^[a-z][a-z0-9]*(_[a-z0-9]+)*$/;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'handoff-cli-data-'));
  service = await startTestService({ sealer: await KeyFileSealer.fromFile(join(dataDir, SEALING_KEY_FILE)) });
  appUrl = service.appUrl.replace('localhost', '127.0.0.1');

  acme = await service.createOrganisation({ name: 'Acme IT' });
  const dan = await service.admin.addMember({ orgId: acme.orgId, name: 'Dan Departed', email: 'dan@acme.example', role: 'member' });
  await service.admin.setMemberActive(acme.orgId, dan.id, false);
  disabled = { id: dan.id, email: dan.email };
  // The technician's replaced key waits for an owner's approval.
  const replacement = identityKey();
  await service.admin.setIdentityKey(acme.orgId, acme.member.id, replacement);
  replacementFingerprint = replacement.fingerprint;
  await service.admin.savePreset(
    acme.orgId,
    'vpn',
    'VPN password',
    { justification: 'Needed to set up your VPN', ttl_minutes: 1440, verification_mode: 'challenge', recipients: [acme.owner.email] },
    { requesterFromTicket: true, fallbackRequester: acme.owner.email },
  );
  zendeskIntegration = (await connectIntegration(integrationDeps(), OPERATOR_ACTOR, { orgId: acme.orgId, name: 'Zendesk', recipe: 'zendesk' })).integration.id;
  hmacIntegration = (await connectIntegration(integrationDeps(), OPERATOR_ACTOR, { orgId: acme.orgId, name: 'Customer desk', clientId: acme.defaultClientId })).integration.id;
  await configureIntegration(integrationDeps(), OPERATOR_ACTOR, acme.orgId, hmacIntegration, { auth: { mode: 'hmac', secret: HMAC_SECRET }, enabled: false });

  ownerless = await service.createOrganisation({ name: 'Beta Ltd', plan: 'free' });
  await service.admin.setMemberActive(ownerless.orgId, ownerless.owner.id, false);
});
afterAll(async () => {
  await service?.stop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

describe('--help on every command: its usage and a worked example', () => {
  /** The words of an example as a shell would split them (quotes group). */
  const words = (line: string) => [...line.matchAll(/'([^']*)'|"([^"]*)"|(\S+)/g)].map((match) => match[1] ?? match[2] ?? match[3]!);
  /** The flags a usage line requires: those outside brackets and alternatives, of its first form. */
  const requiredFlags = (usage: string) => {
    let line = usage.split('\n')[0]!;
    for (let previous = ''; previous !== line; ) [previous, line] = [line, line.replace(/\[[^[\]]*\]|\([^()]*\)/g, '')];
    return [...line.matchAll(/--([a-z-]+)/g)].map((match) => match[1]!);
  };

  it('every command has an example that names only its own flags, each with a value unless it is a switch, and every flag it requires', () => {
    for (const [name, command] of Object.entries(ALL_COMMANDS)) {
      expect(command.examples.length, `${name} has an example`).toBeGreaterThan(0);
      const switches = new Set(switchesOf(command));
      const repeatable = new Set(repeatablesOf(command));
      const options = Object.fromEntries(
        [...flagsOf(command), 'table', 'region', 'endpoint'].map((flag) => [flag, { type: switches.has(flag) ? ('boolean' as const) : ('string' as const), multiple: repeatable.has(flag) }]),
      );
      for (const example of command.examples) {
        let values: Record<string, unknown> = {};
        expect(() => ({ values } = parseArgs({ args: words(example), options, strict: true, allowPositionals: false })), `${name} ${example}`).not.toThrow();
        for (const flag of requiredFlags(command.usage)) expect(values, `${name} ${example} gives --${flag}`).toHaveProperty([flag]);
      }
      const help = commandHelp(name, command);
      for (const example of command.examples) expect(help).toContain(`npm run admin -- ${name} ${example}`.trimEnd());
    }
  });

  it('a switch (a flag without a value, `[--json]`) is one in every usage that names it', () => {
    const usages = Object.values(ALL_COMMANDS).map((command) => command.usage).join('\n');
    const switches = new Set(Object.values(ALL_COMMANDS).flatMap(switchesOf));
    expect([...switches].sort()).toEqual(['env', 'generate-secret', 'json']);
    for (const flag of switches) expect(usages.split(`--${flag}`).length - 1, `--${flag}`).toBe(usages.split(`[--${flag}]`).length - 1);
  });

  it('as a process: list-members --help and create-org --help print the usage, then the examples', async () => {
    const [members, createOrg] = await Promise.all([cli('list-members', ['--help']), cli('create-org', ['--help'])]);
    expect(members.code, members.stderr).toBe(0);
    expect(members.stdout).toMatch(/^Usage: npm run admin -- list-members --org ORG_ID \[--json\]\n/);
    expect(members.stdout).toMatch(/\nExamples:\n {2}npm run admin -- list-members --org [0-9a-z]{26}\n/);
    expect(createOrg.code, createOrg.stderr).toBe(0);
    expect(createOrg.stdout).toContain('\nExample:\n  npm run admin -- create-org --name "Acme IT" --plan team\n');
  });
});

describe('list-orgs', () => {
  it('lists every organisation as a table (id, name, plan, status, members), and as JSON with --json', async () => {
    const [text, json] = await Promise.all([cli('list-orgs', []), cli('list-orgs', ['--json'])]);
    expect(text.code, text.stderr).toBe(0);
    expect(headerOf(text.stdout)).toEqual(['ID', 'NAME', 'PLAN', 'STATUS', 'MEMBERS']);
    expect(rowWith(text.stdout, acme.orgId)).toEqual([acme.orgId, 'Acme IT', 'team', 'active', '3 (1 disabled)']);
    expect(rowWith(text.stdout, ownerless.orgId)).toEqual([ownerless.orgId, 'Beta Ltd', 'free', 'no active owner', '2 (1 disabled)']);
    expect(text.stdout).toContain('recover-org');

    expect(json.code, json.stderr).toBe(0);
    const listed = JSON.parse(json.stdout) as Array<Record<string, unknown>>;
    expect(listed.find((org) => org.id === acme.orgId)).toEqual({
      id: acme.orgId,
      name: 'Acme IT',
      plan: 'team',
      status: 'active',
      member_count: 3,
      active_member_count: 2,
      created_at: expect.any(String),
    });
    expect(listed.find((org) => org.id === ownerless.orgId)).toMatchObject({ status: 'no_active_owner', member_count: 2, active_member_count: 1 });
  });
});

describe('list-members', () => {
  it('shows each membership: role, active or disabled, the key, its fingerprint, a key awaiting approval; never a public key', async () => {
    const [text, json] = await Promise.all([cli('list-members', ['--org', acme.orgId]), cli('list-members', ['--org', acme.orgId, '--json'])]);
    expect(text.code, text.stderr).toBe(0);
    expect(headerOf(text.stdout)).toEqual(['MEMBERSHIP ID', 'NAME', 'EMAIL', 'ROLE', 'STATUS', 'IDENTITY KEY', 'FINGERPRINT']);
    const owner = (await service.admin.directory.getMember(acme.orgId, acme.owner.id))!;
    expect(rowWith(text.stdout, acme.owner.id)).toEqual([acme.owner.id, 'Olivia Owner', acme.owner.email, 'owner', 'active', 'verified', owner.identityKey!.fingerprint]);
    expect(rowWith(text.stdout, acme.member.id)).toEqual([acme.member.id, 'Tom Technician', acme.member.email, 'member', 'active', 'awaiting approval', replacementFingerprint]);
    expect(rowWith(text.stdout, disabled.id)).toEqual([disabled.id, 'Dan Departed', disabled.email, 'member', 'disabled', 'none', '-']);
    expect(text.stdout).toContain(`approve-key --org ${acme.orgId} --member ${acme.member.email}`);
    expect(text.stdout + json.stdout).not.toContain(owner.identityKey!.publicKey);

    expect(json.code, json.stderr).toBe(0);
    const members = JSON.parse(json.stdout) as Array<Record<string, any>>;
    expect(members.map((member) => member.name)).toEqual(['Dan Departed', 'Olivia Owner', 'Tom Technician']);
    expect(members.find((member) => member.membership_id === acme.member.id)).toMatchObject({
      email: acme.member.email,
      role: 'member',
      active: true,
      identity_key: { fingerprint: replacementFingerprint, state: 'replaced_pending_approval' },
    });
    expect(members.find((member) => member.membership_id === disabled.id)).toMatchObject({ active: false, identity_key: null });
    for (const key of keysOf(members)) expect(key).toMatch(SNAKE_CASE);
  });
});

describe('list-presets', () => {
  it('shows slug, name, the defaults in short and the requester a ticket trigger uses', async () => {
    const [text, json] = await Promise.all([cli('list-presets', ['--org', acme.orgId]), cli('list-presets', ['--org', acme.orgId, '--json'])]);
    expect(text.code, text.stderr).toBe(0);
    expect(headerOf(text.stdout)).toEqual(['SLUG', 'NAME', 'DEFAULTS', 'REQUESTER']);
    expect(rowWith(text.stdout, 'vpn')).toEqual([
      'vpn',
      'VPN password',
      `"Needed to set up your VPN"; to ${acme.owner.email}; verify: challenge; keep 1 day`,
      `from the ticket, else ${acme.owner.email}`,
    ]);
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual([
      {
        slug: 'vpn',
        name: 'VPN password',
        defaults: { justification: 'Needed to set up your VPN', ttl_minutes: 1440, verification_mode: 'challenge', recipients: [acme.owner.email] },
        requester_from_ticket: true,
        fallback_requester: acme.owner.email,
        created_at: expect.any(String),
      },
    ]);
  });
});

describe('list-integrations', () => {
  it('shows kind and recipe, client, enabled or disabled, hardening and the helpdesk; no secret, sealed value or hash', async () => {
    const clientSecret = 'zd-discovery-secret-8e2a4c6f1b3d';
    const zendesk = await startFakeZendesk({ clientId: 'handoff', clientSecret, now: () => Date.now() });
    try {
      const connected = await cli('set-integration', ['--org', acme.orgId, '--integration', zendeskIntegration, '--adapter', 'zendesk', '--helpdesk-url', zendesk.url, '--client-id', 'handoff', '--client-secret', clientSecret]);
      expect(connected.code, connected.stderr).toBe(0);
    } finally {
      await zendesk.close();
    }
    const [text, json] = await Promise.all([cli('list-integrations', ['--org', acme.orgId]), cli('list-integrations', ['--org', acme.orgId, '--json'])]);
    expect(text.code, text.stderr).toBe(0);
    expect(headerOf(text.stdout)).toEqual(['ID', 'NAME', 'KIND', 'CLIENT', 'STATUS', 'AUTH', 'HELPDESK']);
    expect(rowWith(text.stdout, zendeskIntegration)).toEqual([zendeskIntegration, 'Zendesk', 'generic (zendesk)', 'all clients', 'enabled', 'none', 'zendesk']);
    expect(rowWith(text.stdout, hmacIntegration)).toEqual([hmacIntegration, 'Customer desk', 'generic', 'Acme IT (internal)', 'disabled', 'hmac', 'not connected']);

    expect(json.code, json.stderr).toBe(0);
    const listed = JSON.parse(json.stdout) as Array<Record<string, any>>;
    expect(listed.map((integration) => integration.name)).toEqual(['Customer desk', 'Zendesk']);
    expect(listed[0]).toMatchObject({ id: hmacIntegration, enabled: false, client_id: acme.defaultClientId, auth: { mode: 'hmac', secret_set: true }, helpdesk: null });
    expect(listed[1]).toMatchObject({ id: zendeskIntegration, recipe: 'zendesk', helpdesk: { adapter: 'zendesk', credentials_set: true } });
    for (const key of keysOf(listed)) expect(key).toMatch(SNAKE_CASE);

    const items = [await getItem(keys.integration(acme.orgId, zendeskIntegration)), await getItem(keys.integration(acme.orgId, hmacIntegration))];
    const hidden = [HMAC_SECRET, clientSecret, 'A256GCM', ...items.flatMap((item) => Object.values(item!.secretHashes as Record<string, string>))];
    for (const value of hidden) expect(text.stdout + json.stdout, value).not.toContain(value);
  });
});

describe('show-org', () => {
  it('prints a summary in plain words, the policy and limits included, with the counts and the default client', async () => {
    const done = await cli('show-org', ['--org', acme.orgId]);
    expect(done.code, done.stderr).toBe(0);
    const lines = done.stdout.split('\n');
    expect(lines[0]).toBe('Acme IT');
    const facts = Object.fromEntries(lines.filter((line) => /^ {2}\S[^:]*: {2,}/.test(line)).map((line) => line.trim().split(/: {2,}/) as [string, string]));
    expect(facts).toMatchObject({
      ID: acme.orgId,
      Plan: 'team',
      Status: 'active',
      Members: '3 (1 disabled)',
      Presets: '1',
      Integrations: '2',
      'Default client': `Acme IT (internal) (${acme.defaultClientId})`,
      'Default preset': 'none',
      'Rate limits': '600 calls a minute per API key; 1200 for the whole organisation',
      'Credentials kept for': '1 hour, 1 day, 3 days or 7 days, as a request chooses; 1 day by default',
      'Subject verification': 'a code you give the subject by phone or in person (challenge) by default; no minimum',
      "Subject's link valid for": '3 days',
      'Ticket counts as closed': 'when its status is resolved or closed',
      'Unverified ticket statuses': 'not trusted: they are recorded and destroy nothing',
      'On a trusted close': 'a submitted credential is destroyed at once',
    });
    const clients = done.stdout.slice(done.stdout.indexOf('\nClients\n'));
    expect(headerOf(clients.slice('\nClients\n'.length))).toEqual(['ID', 'NAME', 'DEFAULT', 'DEFAULT PRESET']);
    expect(rowWith(clients, acme.defaultClientId)).toEqual([acme.defaultClientId, 'Acme IT (internal)', 'yes', '-']);
    expect(done.stdout).toContain(`list-members --org ${acme.orgId}`);
    // None of the stored records' own field names: the summary is no dump of them.
    for (const name of ['ttlOptionsMinutes', 'defaultClientId', 'rateLimits', 'perKeyPerMinute', 'createdAt', 'policy":']) expect(done.stdout).not.toContain(name);
  });

  it('--json gives the same in snake_case, as the API writes it', async () => {
    const done = await cli('show-org', ['--org', acme.orgId, '--json']);
    expect(done.code, done.stderr).toBe(0);
    const org = JSON.parse(done.stdout);
    expect(org).toMatchObject({
      id: acme.orgId,
      name: 'Acme IT',
      plan: 'team',
      status: 'active',
      policy: { ttl_options_minutes: [60, 1440, 4320, 10080], default_ttl_minutes: 1440, link_lifetime_minutes: 4320, ticket: { trust_unverified_webhooks: false } },
      rate_limits: { per_key_per_minute: 600, per_org_per_minute: 1200 },
      default_client_id: acme.defaultClientId,
      default_preset: null,
      member_count: 3,
      active_member_count: 2,
      preset_count: 1,
      integration_count: 2,
      clients: [{ id: acme.defaultClientId, name: 'Acme IT (internal)', default: true, default_preset: null }],
    });
    for (const key of keysOf(org)) expect(key).toMatch(SNAKE_CASE);
  });

  it('an organisation with no active owner says so, and names recover-org', async () => {
    const done = await cli('show-org', ['--org', ownerless.orgId]);
    expect(done.code, done.stderr).toBe(0);
    expect(done.stdout).toMatch(/\n {2}Status: +no active owner \(npm run admin -- recover-org gives it one\)\n/);
  });
});

describe('bad input is named, never a stack trace', () => {
  it('a missing, malformed or unknown --org, and a value without its flag', async () => {
    const unknownId = '0'.repeat(26);
    const [missing, malformed, unknown, bare, valued] = await Promise.all([
      cli('list-members', []),
      cli('list-presets', ['--org', 'Acme IT']),
      cli('show-org', ['--org', unknownId]),
      cli('list-integrations', [acme.orgId]),
      cli('list-orgs', ['--json', 'yes']),
    ]);
    expect(missing).toMatchObject({ code: 1, stdout: '' });
    expect(missing.stderr).toBe('--org is required\n');
    expect(malformed).toMatchObject({ code: 1, stdout: '' });
    expect(malformed.stderr).toMatch(/^--org takes an organisation's id .*not "Acme IT".*list-orgs/);
    expect(unknown).toMatchObject({ code: 1, stdout: '' });
    expect(unknown.stderr).toBe(`--org ${unknownId}: no such organisation (npm run admin -- list-orgs shows them)\n`);
    expect(bare).toMatchObject({ code: 2, stdout: '' });
    expect(bare.stderr).toContain(`Unexpected argument '${acme.orgId}' for list-integrations: each value follows its flag, as in\n  npm run admin -- list-integrations --org `);
    expect(valued).toMatchObject({ code: 2, stdout: '' });
    expect(valued.stderr).toBe("--json takes no value: leave out 'yes'.\n");
    for (const run of [missing, malformed, unknown, bare, valued]) expect(run.stderr).not.toMatch(/\n\s+at /);
  });
});

describe('set-integration --auth: a changed mode never keeps the secret of the one before', () => {
  const hubSignature = (secret: string, body: string) => `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
  const post = async (url: string, body: string, headers: Record<string, string>) =>
    (await fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json', ...headers }, body })).status;

  it('hmac to hub-sha256 without a secret is refused and changes nothing; --generate-secret prints one that the service then checks', async () => {
    const { integration, webhook_url } = await connectIntegration(integrationDeps(), OPERATOR_ACTOR, { orgId: acme.orgId, name: 'Jira', recipe: 'jira' });
    await configureIntegration(integrationDeps(), OPERATOR_ACTOR, acme.orgId, integration.id, { auth: { mode: 'hmac', secret: HMAC_SECRET } });
    const before = await getItem(keys.integration(acme.orgId, integration.id));
    const args = ['--org', acme.orgId, '--integration', integration.id, '--app-url', appUrl];

    const refused = await cli('set-integration', [...args, '--auth', 'hub-sha256']);
    expect(refused).toMatchObject({ code: 1, stdout: '' });
    expect(refused.stderr).toBe(
      '--auth hub-sha256 replaces the hmac check, whose secret is not carried over: give the secret the helpdesk signs with in --signing-secret, or --generate-secret to have one made and printed once\n',
    );
    expect(await getItem(keys.integration(acme.orgId, integration.id))).toEqual(before);

    const generated = await cli('set-integration', [...args, '--auth', 'hub-sha256', '--generate-secret']);
    expect(generated.code, generated.stderr).toBe(0);
    // The line for a person on stderr; stdout is the JSON alone, as `| jq` reads it.
    const [line, json] = [generated.stderr.split('\n')[0]!, JSON.parse(generated.stdout)];
    expect(line).toMatch(/^Signing secret: [A-Za-z0-9_-]{43}$/);
    const secret = line.slice('Signing secret: '.length);
    expect(json).toMatchObject({ secret, id: integration.id, auth: { mode: 'hub-sha256', secret_set: true } });
    expect(JSON.stringify(await getItem(keys.integration(acme.orgId, integration.id)))).not.toContain(secret);

    const body = JSON.stringify({ issue: { key: 'IT-42', fields: { status: { statusCategory: { key: 'indeterminate' } } } } });
    const url = webhook_url.replace('localhost', '127.0.0.1');
    expect(await post(url, body, { 'X-Hub-Signature': hubSignature(HMAC_SECRET, body) })).toBe(401);
    expect(await post(url, body, { 'X-Hub-Signature': hubSignature(secret, body) })).toBe(202);
  });

  it('the same mode again keeps its secret; a header value for a signature, a secret without --auth, or one generated for Zendesk is refused by name', async () => {
    const { integration } = await connectIntegration(integrationDeps(), OPERATOR_ACTOR, { orgId: acme.orgId, name: 'Header desk' });
    await configureIntegration(integrationDeps(), OPERATOR_ACTOR, acme.orgId, integration.id, { auth: { mode: 'header', headerName: 'X-Token', secret: 'header-value-0123456789abcdef' } });
    const args = ['--org', acme.orgId, '--integration', integration.id, '--app-url', appUrl];
    const before = await getItem(keys.integration(acme.orgId, integration.id));

    const [toHmac, wrongFlag, noMode, zendesk, typo] = await Promise.all([
      cli('set-integration', [...args, '--auth', 'hmac']),
      cli('set-integration', [...args, '--auth', 'hmac', '--header-value', 'header-value-0123456789abcdef']),
      cli('set-integration', [...args, '--signing-secret', 'a-signing-secret-0123456789']),
      cli('set-integration', [...args, '--auth', 'zendesk', '--generate-secret']),
      cli('set-integration', [...args, '--auth', 'hamc', '--signing-secret', 'a-signing-secret-0123456789']),
    ]);
    expect(toHmac.stderr).toBe(
      '--auth hmac replaces the header check, whose secret is not carried over: give the secret the helpdesk signs with in --signing-secret, or --generate-secret to have one made and printed once\n',
    );
    expect(wrongFlag.stderr).toBe('--auth hmac does not take --header-value; its secret goes in --signing-secret\n');
    expect(noMode.stderr).toMatch(/^--signing-secret goes with --auth MODE/);
    expect(zendesk.stderr).toMatch(/^--generate-secret does not go with --auth zendesk: Zendesk makes each webhook's signing secret/);
    expect(typo.stderr).toBe("--auth must be one of none, header, hmac, zendesk, hub-sha256, hub-sha1. Did you mean 'hmac'?\n");
    for (const run of [toHmac, wrongFlag, noMode, zendesk, typo]) expect(run).toMatchObject({ code: 1, stdout: '' });
    expect(await getItem(keys.integration(acme.orgId, integration.id))).toEqual(before);

    const renamed = await cli('set-integration', [...args, '--auth', 'header', '--header-name', 'X-Handoff-Secret']);
    expect(renamed.code, renamed.stderr).toBe(0);
    expect(JSON.parse(renamed.stdout).auth).toEqual({ mode: 'header', header_name: 'X-Handoff-Secret', secret_set: true });
    expect((await getItem(keys.integration(acme.orgId, integration.id)))!.auth.secret).toEqual(before!.auth.secret);
  });
});
