/**
 * GET/POST/DELETE /webhooks over real HTTP: the creation result with its secret shown once (null
 * on an idempotent replay), every refused address form answering 422 `url`, event type rules,
 * list and delete, client scope, 404s and 403 without webhooks:write.
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SUBSCRIBABLE_EVENT_TYPES } from '../../lambdas/core/events.ts';
import { webhookSecretContext } from '../../lambdas/core/webhooks.ts';
import { auditEntries, DATE_TIME, expectError, ULID } from '../support/shapes.ts';
import { startTestService, type TestOrganisation, type TestService } from '../support/test-service.ts';
import { REFUSED_WEBHOOK_URLS } from '../support/refused-webhook-urls.ts';

let service: TestService;

beforeAll(async () => {
  service = await startTestService();
});
afterAll(() => service?.stop());

/** Another subscription's id, for a context the secret was not sealed for. */
const ULID_OTHER = '01hzzzzzzzzzzzzzzzzzzzzwh9';
const WEBHOOK_FIELDS = ['id', 'object', 'url', 'description', 'events', 'is_active', 'client_id', 'created_via', 'failing_since', 'last_delivered_at', 'created_at'];

interface Org extends TestOrganisation {
  hooks: string;
}

const newOrg = async (name: string): Promise<Org> => {
  const org = await service.createOrganisation({ name });
  const hooks = await service.createKey(org.orgId, { scopes: ['webhooks:write'], name: `${name} hooks` });
  return { ...org, hooks };
};

const subscribe = (key: string, body: unknown, headers: Record<string, string> = {}) =>
  service.call('POST', '/webhooks', { key, body, headers });

const expectWebhook = (value: any) => {
  expect(Object.keys(value)).toEqual(WEBHOOK_FIELDS);
  expect(value.id).toMatch(ULID);
  expect(value.object).toBe('webhook');
  expect(value.created_at).toMatch(DATE_TIME);
  expect(typeof value.is_active).toBe('boolean');
  expect(JSON.stringify(value)).not.toContain('whsec_');
  return value;
};

describe('POST /webhooks', () => {
  let org: Org;
  beforeAll(async () => {
    org = await newOrg('Hook Org');
  });

  it('answers 201 with the Webhook, its secret shown once, and a Location', async () => {
    const answer = await subscribe(org.hooks, {
      url: 'https://hooks.example.com/handoff',
      events: ['request.created', 'request.completed'],
      description: 'Ticketing sync',
    });
    expect(answer.status, answer.text).toBe(201);
    const { secret, ...webhook } = answer.body;
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    expectWebhook(webhook);
    expect(webhook).toMatchObject({
      url: 'https://hooks.example.com/handoff',
      description: 'Ticketing sync',
      events: ['request.created', 'request.completed'],
      is_active: true,
      client_id: null,
      created_via: 'api',
      failing_since: null,
      last_delivered_at: null,
    });
    expect(answer.headers.get('location')).toBe(`${service.baseUrl}/webhooks/${webhook.id}`);

    // Listed without the secret; the secret is stored sealed for this subscription (to sign with), and the audit entry never holds it.
    const listed = await service.call('GET', '/webhooks', { key: org.hooks });
    expect(listed.body.data).toContainEqual(webhook);
    expect(listed.text).not.toContain(secret);
    const stored = await service.deps.db.send(
      new GetCommand({ TableName: service.deps.tableName, Key: { pk: `ORG#${org.orgId}`, sk: `WEBHOOK#${webhook.id}` }, ConsistentRead: true }),
    );
    expect(stored.Item?.secrets).toEqual([{ sealed: expect.objectContaining({ v: 1, alg: 'A256GCM' }), expiresAt: null }]);
    expect(JSON.stringify(stored.Item)).not.toContain(secret);
    expect(JSON.stringify(stored.Item)).not.toContain(secret.slice('whsec_'.length));
    expect(await service.deps.sealer.open(stored.Item!.secrets[0].sealed, webhookSecretContext(org.orgId, webhook.id))).toBe(secret);
    // Bound to its subscription: it does not open as another's.
    await expect(service.deps.sealer.open(stored.Item!.secrets[0].sealed, webhookSecretContext(org.orgId, ULID_OTHER))).rejects.toThrow();
    const audit = (await auditEntries(service, org.orgId)).filter((entry) => entry.type === 'webhook.created');
    expect(audit.map((entry) => entry.data.details.webhook_id)).toContain(webhook.id);
    expect(JSON.stringify(audit)).not.toContain(secret);
  });

  it('audits the address without its query string or fragment, which may carry a token', async () => {
    const answer = await subscribe(org.hooks, { url: 'https://hooks.example.com/in?token=s3cr3t-in-query#frag', events: ['request.created'] });
    expect(answer.status, answer.text).toBe(201);
    expect(answer.body.url).toBe('https://hooks.example.com/in?token=s3cr3t-in-query#frag');
    const audit = (await auditEntries(service, org.orgId)).find((entry) => entry.type === 'webhook.created' && entry.data.details.webhook_id === answer.body.id);
    expect(audit!.data.details.url).toBe('https://hooks.example.com/in');
    expect(JSON.stringify(audit)).not.toContain('s3cr3t-in-query');
  });

  it('accepts every subscribable type, with a null description by default, and a new secret each time', async () => {
    const one = await subscribe(org.hooks, { url: 'https://example.com/a', events: [...SUBSCRIBABLE_EVENT_TYPES] });
    const two = await subscribe(org.hooks, { url: 'https://example.com/a', events: ['member.disabled'] });
    expect(one.status, one.text).toBe(201);
    expect(two.status, two.text).toBe(201);
    expect(one.body.events).toEqual([...SUBSCRIBABLE_EVENT_TYPES]);
    expect(one.body.description).toBeNull();
    expect(one.body.secret).not.toBe(two.body.secret);
    expect(one.body.id).not.toBe(two.body.id);
  });

  it('replays an Idempotency-Key with the same status and Location, and the secret null', async () => {
    const headers = { 'Idempotency-Key': `hook-${Date.now()}` };
    const body = { url: 'https://example.com/replayed', events: ['request.revoked'] };
    const first = await subscribe(org.hooks, body, headers);
    expect(first.status, first.text).toBe(201);
    expect(first.body.secret).toMatch(/^whsec_/);
    const replay = await subscribe(org.hooks, body, headers);
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotency-replayed')).toBe('true');
    expect(replay.headers.get('location')).toBe(first.headers.get('location'));
    expect(replay.body).toEqual({ ...first.body, secret: null });
    const listed = await service.call('GET', '/webhooks', { key: org.hooks });
    expect(listed.body.data.filter((hook: any) => hook.url === 'https://example.com/replayed')).toHaveLength(1);
  });

  // Every refused form, and loopback over plain http (this service has no local opt-in).
  const refusedUrls = [...REFUSED_WEBHOOK_URLS, 'http://127.0.0.1:4000/hook'];

  it.concurrent.each(refusedUrls)('answers 422 naming url for %s', async (url) => {
    const answer = await subscribe(org.hooks, { url, events: ['request.created'] });
    const body = expectError(answer, 422, 'validation_failed', ['url']);
    expect(body.errors.url[0].length).toBeGreaterThan(0);
  });

  const invalidBodies: Array<[string, unknown, string[]]> = [
    ['no url', { events: ['request.created'] }, ['url']],
    ['url not a string', { url: 5, events: ['request.created'] }, ['url']],
    ['no events', { url: 'https://example.com/h' }, ['events']],
    ['empty events', { url: 'https://example.com/h', events: [] }, ['events']],
    ['ping', { url: 'https://example.com/h', events: ['ping'] }, ['events']],
    ['unknown type', { url: 'https://example.com/h', events: ['request.created', 'subject.verified'] }, ['events']],
    ['events not an array', { url: 'https://example.com/h', events: 'request.created' }, ['events']],
    ['long description', { url: 'https://example.com/h', events: ['request.created'], description: 'd'.repeat(201) }, ['description']],
    ['unknown field', { url: 'https://example.com/h', events: ['request.created'], secret: 'x' }, ['secret']],
    ['url and events both wrong', { url: 'https://10.0.0.1/', events: ['ping'] }, ['url', 'events']],
    ['no body', undefined, ['url', 'events']],
  ];

  it.concurrent.each(invalidBodies)('answers 422 for %s', async (_name, body, fields) => {
    const answer = await subscribe(org.hooks, body);
    expectError(answer, 422, 'validation_failed', fields);
  });

  it('accepts a description of 200 characters', async () => {
    const answer = await subscribe(org.hooks, { url: 'https://example.com/h', events: ['request.created'], description: 'd'.repeat(200) });
    expect(answer.status, answer.text).toBe(201);
  });

  it('accepts a loopback receiver only when the local opt-in is on', async () => {
    const body = { url: 'http://127.0.0.1:4000/hook', events: ['request.created'] };
    expectError(await subscribe(org.hooks, body), 422, 'validation_failed', ['url']);
    service.deps.webhookPolicy.allowLoopback = true;
    try {
      const answer = await subscribe(org.hooks, body);
      expect(answer.status, answer.text).toBe(201);
      expect(answer.body.url).toBe('http://127.0.0.1:4000/hook');
      expectError(await subscribe(org.hooks, { ...body, url: 'http://10.0.0.1:4000/hook' }), 422, 'validation_failed', ['url']);
    } finally {
      service.deps.webhookPolicy.allowLoopback = false;
    }
  });
});

describe('GET and DELETE /webhooks', () => {
  it('lists the organisation\'s subscriptions and deletes one with 204, then 404', async () => {
    const org = await newOrg('List Hook Org');
    const other = await newOrg('Other Hook Org');
    expect((await service.call('GET', '/webhooks', { key: org.hooks })).body).toEqual({ object: 'list', data: [] });

    const a = (await subscribe(org.hooks, { url: 'https://example.com/a', events: ['request.created'] })).body;
    const b = (await subscribe(org.hooks, { url: 'https://example.com/b', events: ['request.completed'] })).body;
    await subscribe(other.hooks, { url: 'https://example.com/c', events: ['request.created'] });

    const listed = await service.call('GET', '/webhooks', { key: org.hooks });
    expect(listed.status, listed.text).toBe(200);
    expect(Object.keys(listed.body)).toEqual(['object', 'data']);
    expect(listed.body.object).toBe('list');
    listed.body.data.forEach(expectWebhook);
    expect(listed.body.data.map((hook: any) => hook.id)).toEqual([a.id, b.id]);

    // Another organisation's key cannot see or delete it.
    expectError(await service.call('DELETE', `/webhooks/${a.id}`, { key: other.hooks }), 404, 'not_found');

    const deleted = await service.call('DELETE', `/webhooks/${a.id}`, { key: org.hooks });
    expect(deleted.status, deleted.text).toBe(204);
    expect(deleted.text).toBe('');
    expect((await service.call('GET', '/webhooks', { key: org.hooks })).body.data.map((hook: any) => hook.id)).toEqual([b.id]);
    expectError(await service.call('DELETE', `/webhooks/${a.id}`, { key: org.hooks }), 404, 'not_found');
    expectError(await service.call('DELETE', '/webhooks/not-an-id', { key: org.hooks }), 404, 'not_found');
    expectError(await service.call('DELETE', '/webhooks/01h00000000000000000000000', { key: org.hooks }), 404, 'not_found');

    const audit = await auditEntries(service, org.orgId);
    expect(audit.filter((entry) => entry.type === 'webhook.deleted').map((entry) => entry.data.details.webhook_id)).toEqual([a.id]);
    // Subscription changes are audited, but they are not events.
    const feed = await service.call('GET', '/events', { key: org.key });
    expect(feed.body.data.map((event: any) => event.type)).not.toContain('webhook.created');
  });

  it('keeps a client-scoped key to its client\'s subscriptions', async () => {
    const org = await newOrg('Client Hook Org');
    const client = await service.admin.createClient(org.orgId, 'Hooked Client');
    const other = await service.admin.createClient(org.orgId, 'Other Client');
    const clientKey = await service.createKey(org.orgId, { scopes: ['webhooks:write'], clientId: client.id, name: 'client hooks' });
    const otherKey = await service.createKey(org.orgId, { scopes: ['webhooks:write'], clientId: other.id, name: 'other hooks' });

    const orgWide = (await subscribe(org.hooks, { url: 'https://example.com/org', events: ['request.created'] })).body;
    const scoped = await subscribe(clientKey, { url: 'https://example.com/client', events: ['request.created'] });
    expect(scoped.status, scoped.text).toBe(201);
    expect(scoped.body.client_id).toBe(client.id);

    const seenByClient = await service.call('GET', '/webhooks', { key: clientKey });
    expect(seenByClient.body.data.map((hook: any) => hook.id)).toEqual([scoped.body.id]);
    expect((await service.call('GET', '/webhooks', { key: otherKey })).body.data).toEqual([]);
    const seenByOrg = await service.call('GET', '/webhooks', { key: org.hooks });
    expect(seenByOrg.body.data.map((hook: any) => hook.id)).toEqual([orgWide.id, scoped.body.id]);

    expectError(await service.call('DELETE', `/webhooks/${orgWide.id}`, { key: clientKey }), 404, 'not_found');
    expectError(await service.call('DELETE', `/webhooks/${scoped.body.id}`, { key: otherKey }), 404, 'not_found');
    expect((await service.call('DELETE', `/webhooks/${scoped.body.id}`, { key: clientKey })).status).toBe(204);
    expect((await service.call('DELETE', `/webhooks/${orgWide.id}`, { key: org.hooks })).status).toBe(204);

    // The organisation's own events carry no client: a client's subscription to one would never fire.
    const silent = await subscribe(clientKey, { url: 'https://example.com/client', events: ['request.created', 'member.disabled', 'org_recovery.used'] });
    expectError(silent, 422, 'validation_failed', ['events']);
    expect(silent.body.errors.events).toEqual([
      `"member.disabled" is about the organisation, not a client: a client-scoped key's subscription would never receive it.`,
      `"org_recovery.used" is about the organisation, not a client: a client-scoped key's subscription would never receive it.`,
    ]);
    expect((await subscribe(org.hooks, { url: 'https://example.com/org', events: ['member.disabled'] })).status).toBe(201);
  });

  it('answers 403 without webhooks:write, on every webhook endpoint, and 401 without a key', async () => {
    const org = await newOrg('Scope Hook Org');
    const hook = (await subscribe(org.hooks, { url: 'https://example.com/h', events: ['request.created'] })).body;
    const reader = await service.createKey(org.orgId, { scopes: ['requests:read', 'requests:write', 'events:read', 'tickets:write'], name: 'no hooks' });
    expectError(await service.call('GET', '/webhooks', { key: reader }), 403, 'forbidden');
    expectError(await subscribe(reader, { url: 'https://example.com/h', events: ['request.created'] }), 403, 'forbidden');
    expectError(await service.call('DELETE', `/webhooks/${hook.id}`, { key: reader }), 403, 'forbidden');
    expectError(await service.call('GET', '/webhooks', { key: null }), 401, 'unauthenticated');
    expect((await service.call('GET', '/webhooks', { key: org.hooks })).body.data).toHaveLength(1);
  });
});
