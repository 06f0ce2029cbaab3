/**
 * The operator CLI's commands that make or change a record print it as the member application and
 * the API show it: snake_case JSON (the views the application uses), never the stored item with
 * its own field names, so a script reads `.id`, `.default_client_id` or `.members[].email` from any
 * command. As a process on the test's table; the rate limits' audit entry is read from the table.
 */
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAdminCli } from '../support/admin-cli.ts';
import { startTestService, type TestOrganisation, type TestService } from '../support/test-service.ts';

let service: TestService;
let acme: TestOrganisation;

const SNAKE_CASE = /^[a-z][a-z0-9]*(_[a-z0-9]+)*$/;
const keysOf = (value: unknown): string[] => {
  if (Array.isArray(value)) return value.flatMap(keysOf);
  if (!value || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([key, inner]) => [key, ...keysOf(inner)]);
};
/** Runs a command that must succeed and answers its JSON, every key of which is snake_case. */
const printed = async (command: string, args: string[]) => {
  const run = await runAdminCli(service.deps.tableName, command, args);
  expect(run.code, run.stderr).toBe(0);
  const json = JSON.parse(run.stdout.slice(run.stdout.search(/[[{]/)));
  for (const key of keysOf(json)) expect(key, `${command} prints ${key}`).toMatch(SNAKE_CASE);
  return json;
};

beforeAll(async () => {
  service = await startTestService();
  acme = await service.createOrganisation({ name: 'Acme IT' });
});
afterAll(async () => service?.stop());

describe('a made or changed record is printed as the application shows it', () => {
  it('create-org: the new organisation with its default client, policy and rate limits', async () => {
    const org = await printed('create-org', ['--name', 'Output Ltd', '--plan', 'business']);
    expect(org).toMatchObject({
      name: 'Output Ltd',
      plan: 'business',
      default_client_id: expect.stringMatching(/^[0-9a-z]{26}$/),
      rate_limits: { per_key_per_minute: 600, per_org_per_minute: 1200 },
      policy: { default_ttl_minutes: 1440, ticket: { trust_unverified_webhooks: false } },
    });
    const stored = await service.admin.directory.getOrganisation(org.id);
    expect(stored).toMatchObject({ name: 'Output Ltd', defaultClientId: org.default_client_id, createdAt: org.created_at });
  });

  it('add-member: the member as the members page lists them, with their key', async () => {
    const member = await printed('add-member', ['--org', acme.orgId, '--name', 'Cat Clerk', '--email', 'cat@acme.example', '--role', 'admin']);
    expect(member).toEqual({ membership_id: expect.any(String), name: 'Cat Clerk', email: 'cat@acme.example', role: 'admin', active: true, identity_key: null });
  });

  it('create-client: the client, not the organisation default', async () => {
    const client = await printed('create-client', ['--org', acme.orgId, '--name', 'Customer Ltd']);
    expect(client).toEqual({ id: expect.any(String), name: 'Customer Ltd', default: false, created_at: expect.any(String) });
  });

  it('create-team and rename-team: the team with its members by name and email', async () => {
    const team = await printed('create-team', ['--org', acme.orgId, '--name', 'Service desk', '--members', acme.owner.email]);
    const members = [{ membership_id: acme.owner.id, name: expect.any(String), email: acme.owner.email, active: true }];
    expect(team).toEqual({ id: expect.any(String), name: 'Service desk', members, created_at: expect.any(String) });
    const renamed = await printed('rename-team', ['--org', acme.orgId, '--team', 'Service desk', '--name', 'Night shift']);
    expect(renamed).toEqual({ ...team, name: 'Night shift' });
  });

  it('create-template: the template', async () => {
    const template = await printed('create-template', ['--org', acme.orgId, '--name', 'VPN reset', '--justification', 'Needed for your VPN']);
    expect(template).toEqual({ id: expect.any(String), name: 'VPN reset', justification: 'Needed for your VPN', created_at: expect.any(String) });
  });

  it('set-policy: the whole policy after the change', async () => {
    const policy = await printed('set-policy', ['--org', acme.orgId, '--ttl-options', '60,1440', '--default-ttl', '60']);
    expect(policy).toMatchObject({ ttl_options_minutes: [60, 1440], default_ttl_minutes: 60, ticket: { close_statuses: expect.any(Array) } });
  });

  it('set-rate-limits: the limits, and its audit entry records them in the same words', async () => {
    expect(await printed('set-rate-limits', ['--org', acme.orgId, '--per-key', '300', '--per-org', '900'])).toEqual({ per_key_per_minute: 300, per_org_per_minute: 900 });
    const { Items = [] } = await service.deps.db.send(
      new QueryCommand({ TableName: service.deps.tableName, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': `AUDIT#${acme.orgId}` }, ConsistentRead: true }),
    );
    const entry = Items.find((item) => item.type === 'organisation.rate_limits_changed');
    expect(entry, 'the audit entry').toBeDefined();
    expect(entry!.data.details).toEqual({ per_key_per_minute: 300, per_org_per_minute: 900 });
  });

  it('revoke-key: the revoked key as the API keys page shows it, never its hash', async () => {
    const created = await printed('create-key', ['--org', acme.orgId, '--name', 'Old key', '--scopes', 'requests:read']);
    const revoked = await printed('revoke-key', ['--org', acme.orgId, '--key', created.id]);
    const { key: _shownOnce, note: _note, ...view } = created;
    expect(revoked).toEqual({ ...view, revoked: true, state: 'revoked', revoked_at: expect.any(String) });
    expect(Object.keys(revoked)).not.toContain('hash');
    expect(JSON.stringify(revoked)).not.toContain(created.key);
  });
});
