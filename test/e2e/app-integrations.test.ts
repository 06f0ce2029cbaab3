/**
 * The member app's ticketing integrations (docs/web-api.md, Integrations): owners and admins
 * connect, configure, rotate and read the activity of the organisation's integrations through the
 * use cases the operator CLI calls, audited with the member as actor. The URLs the app shows are
 * posted to on the local service as a helpdesk would.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keys } from '../../lambdas/store/keys.ts';
import { MemberBrowser } from '../support/member-browser.ts';
import { auditEntries, DATE_TIME, expectError, ULID } from '../support/shapes.ts';
import { scanTable, startTestService, type TestOrganisation, type TestService } from '../support/test-service.ts';

let service: TestService;
let org: TestOrganisation;
let admin: MemberBrowser;
let plain: MemberBrowser;
let adminId: string;

const signedIn = async (name: string, role: 'member' | 'admin') => {
  const email = `${name.toLowerCase().replace(/\W+/g, '.')}-${org.orgId.slice(-6)}@example.com`;
  await service.admin.addMember({ orgId: org.orgId, name, email, role });
  return MemberBrowser.signIn(service, email);
};

beforeAll(async () => {
  service = await startTestService();
  org = await service.createOrganisation({ name: 'Integration Org' });
  admin = await signedIn('Ada Admin', 'admin');
  adminId = admin.session!.body.member.membership_id;
  plain = await signedIn('Pat Plain', 'member');
  await service.admin.savePreset(org.orgId, 'vpn-reset', 'VPN reset', {});
});
afterAll(async () => {
  await service?.stop();
});

const VIEW_KEYS = [
  'id', 'object', 'name', 'kind', 'enabled', 'client_id', 'recipe', 'mapping', 'status_map', 'auth', 'default_preset',
  'rate_limit_per_minute', 'helpdesk', 'created_at', 'updated_at', 'deep_link_template',
];
const URL_SECRET = /^[A-Za-z0-9_-]{43}$/;
const MEMBER_ACTOR = () => ({ type: 'member', id: adminId, label: 'Ada Admin' });

const connect = (key: string, body: Record<string, unknown> = {}) =>
  admin.call('POST', '/app/api/integrations', { body: { name: 'Support desk', ...body }, headers: { 'Idempotency-Key': key } });
const configure = (id: string, body: unknown) => admin.call('POST', `/app/api/integrations/${id}`, { body });
const auditOf = async (id: string, type: string) =>
  (await auditEntries(service, org.orgId)).filter((e) => e.type === type && e.data.details.integration_id === id);

/** POSTs JSON to an inbound URL as a helpdesk would (on the loopback address the service listens on). */
const postTo = async (url: string, body: unknown, headers: Record<string, string> = {}) => {
  const response = await fetch(url.replace('localhost', '127.0.0.1'), { method: 'POST', headers: { 'Content-Type': 'application/json', ...headers }, body: JSON.stringify(body) });
  await response.text();
  return response.status;
};

describe('integrations in the member app', () => {
  it('lists none at first, with what the connect form offers', async () => {
    const listed = await admin.call('GET', '/app/api/integrations');
    expect(listed.status, listed.text).toBe(200);
    expect(listed.headers.get('cache-control')).toBe('no-store');
    expect(Object.keys(listed.body).sort()).toEqual(['clients', 'data', 'helpdesks', 'object', 'preset_access', 'presets', 'recipes', 'trigger_fields']);
    expect(listed.body.preset_access).toBe(true);
    expect(listed.body.helpdesks.map((h: { name: string }) => h.name)).toEqual(['zendesk', 'jira', 'halopsa', 'servicenow', 'zammad', 'freshdesk', 'freshservice', 'connectwise', 'autotask']);
    expect(listed.body.helpdesks[1]).toEqual({ name: 'jira', label: 'Jira Service Management', example: 'https://acme.atlassian.net', credentials: ['email', 'api_token'], settings: ['closed_status_names'] });
    expect(listed.body.data).toEqual([]);
    expect(listed.body.clients.map((c: { id: string }) => c.id)).toContain(org.defaultClientId);
    expect(listed.body.presets).toEqual([{ slug: 'vpn-reset', name: 'VPN reset' }]);
    expect(listed.body.recipes.map((r: { name: string }) => r.name)).toEqual(['zendesk', 'jira', 'freshdesk', 'servicenow', 'zammad', 'halopsa', 'connectwise', 'autotask']);
    expect(listed.body.trigger_fields).toEqual(['subject.name', 'subject.email', 'subject.phone', 'preset', 'requester_email']);
  });

  it('connects: both URLs shown once (null in a replay), audited with the member, only hashes kept', async () => {
    const connected = await connect('integration-connect-1', { recipe: 'zendesk', client_id: org.defaultClientId });
    expect(connected.status, connected.text).toBe(201);
    expect(Object.keys(connected.body).sort()).toEqual(['integration', 'recommended_auth', 'trigger_url', 'webhook_url']);
    const integration = connected.body.integration;
    expect(Object.keys(integration).sort()).toEqual([...VIEW_KEYS].sort());
    expect(integration).toMatchObject({ object: 'integration', name: 'Support desk', kind: 'generic', enabled: true, client_id: org.defaultClientId, recipe: 'zendesk', default_preset: null, rate_limit_per_minute: 120 });
    expect(integration.id).toMatch(ULID);
    expect(integration.created_at).toMatch(DATE_TIME);
    expect(integration.auth).toEqual({ mode: 'none', header_name: null, secret_set: false });
    expect(integration.helpdesk).toBeNull();
    expect(integration.mapping.ticket_id).toEqual(['detail.id', 'ticket.id']);
    expect(connected.body.recommended_auth).toBe('zendesk');
    const webhookSecret = new URL(connected.body.webhook_url).pathname.split('/').pop()!;
    const triggerSecret = new URL(connected.body.trigger_url).pathname.split('/').pop()!;
    expect(connected.body.webhook_url).toBe(`${service.appUrl}/inbound/ticket-status/${webhookSecret}`);
    expect(connected.body.trigger_url).toBe(`${service.appUrl}/inbound/ticket-trigger/${triggerSecret}`);
    expect(webhookSecret).toMatch(URL_SECRET);
    expect(triggerSecret).toMatch(URL_SECRET);
    expect(webhookSecret).not.toBe(triggerSecret);
    expect(integration.deep_link_template).toBe(`${service.appUrl}/app/requests/new?ticket={{ticket.id}}`);
    expect(connected.headers.get('location')).toBe(`${service.appUrl}/app/api/integrations/${integration.id}`);
    expect(connected.headers.get('cache-control')).toBe('no-store');

    const replay = await connect('integration-connect-1', { recipe: 'zendesk', client_id: org.defaultClientId });
    expect(replay.status).toBe(201);
    expect(replay.body).toEqual({ ...connected.body, webhook_url: null, trigger_url: null });

    const audited = await auditOf(integration.id, 'integration.connected');
    expect(audited.map((e) => e.actor)).toEqual([MEMBER_ACTOR()]);
    expect(audited[0]!.data.details).toMatchObject({ recipe: 'zendesk', client_id: org.defaultClientId });
    const table = JSON.stringify(await scanTable(service));
    expect(table).not.toContain(webhookSecret);
    expect(table).not.toContain(triggerSecret);
    const items = await scanTable(service);
    expect(items.filter((item) => item.pk === keys.integration(org.orgId, integration.id).pk && item.sk === keys.integration(org.orgId, integration.id).sk)).toHaveLength(1);
    expect(items.filter((item) => item.kind === 'inbound_secret' && item.integrationId === integration.id).map((item) => item.purpose).sort()).toEqual(['status', 'trigger']);

    const listed = await admin.call('GET', '/app/api/integrations');
    expect(listed.body.data).toEqual([integration]);
    const one = await admin.call('GET', `/app/api/integrations/${integration.id}`);
    expect(one.status, one.text).toBe(200);
    expect(Object.keys(one.body).sort()).toEqual(['clients', 'helpdesks', 'integration', 'preset_access', 'presets', 'recipes', 'trigger_fields']);
    expect(one.body.integration).toEqual(integration);
  });

  it('answers 422 by field for a bad connect, writing nothing', async () => {
    const bad = await connect('integration-connect-2', { name: ' ', recipe: 'nodesk' });
    expectError(bad, 422, 'validation_failed', ['name', 'recipe']);
    expectError(await connect('integration-connect-3', { client_id: '0'.repeat(26) }), 422, 'validation_failed', ['client_id']);
    expectError(await connect('integration-connect-4', { extra: true }), 422, 'validation_failed', ['extra']);
    // Blank is no recipe: null connects the generic mapping.
    expectError(await connect('integration-connect-4b', { recipe: '' }), 422, 'validation_failed', ['recipe']);
    expect((await admin.call('GET', '/app/api/integrations')).body.data).toHaveLength(1);
  });

  it('configures the mapping, status words, default preset, rate limit and check; the secret is never shown back', async () => {
    const { body } = await connect('integration-connect-5', { name: 'Generic desk' });
    const id = body.integration.id as string;
    const changed = await configure(id, {
      ticket_id_paths: ['payload.ticket', 'ticket_id'],
      status_paths: ['payload.state'],
      fields: { 'subject.name': ['payload.contact.name'] },
      status_map: 'Waiting on customer=pending\nDone=closed, 4=resolved',
      default_preset: 'vpn-reset',
      rate_limit_per_minute: 30,
      auth: { mode: 'header', header_name: 'X-Desk-Secret', secret: 'a-shared-value-of-some-length' },
    });
    expect(changed.status, changed.text).toBe(200);
    expect(Object.keys(changed.body).sort()).toEqual([...VIEW_KEYS].sort());
    expect(changed.body).toMatchObject({
      mapping: { ticket_id: ['payload.ticket', 'ticket_id'], status: ['payload.state'], fields: { 'subject.name': ['payload.contact.name'] } },
      status_map: { 'waiting on customer': 'pending', done: 'closed', '4': 'resolved' },
      default_preset: 'vpn-reset',
      rate_limit_per_minute: 30,
      auth: { mode: 'header', header_name: 'X-Desk-Secret', secret_set: true },
      deep_link_template: `${service.appUrl}/app/requests/new?ticket={{ticket.id}}&preset=vpn-reset`,
    });
    expect(changed.text).not.toContain('a-shared-value-of-some-length');
    expect(JSON.stringify(await scanTable(service))).not.toContain('a-shared-value-of-some-length');
    expect((await auditOf(id, 'integration.updated')).map((e) => e.actor)).toEqual([MEMBER_ACTOR()]);

    // The sealed header value checks posts; the status words map a post's status.
    expect(await postTo(body.webhook_url, { payload: { ticket: 'T-1', state: 'Done' } })).toBe(401);
    expect(await postTo(body.webhook_url, { payload: { ticket: 'T-1', state: 'Done' } }, { 'X-Desk-Secret': 'a-shared-value-of-some-length' })).toBe(202);

    // More words merge; an empty field list puts the field back at its own name; the mode alone keeps the secret.
    const again = await configure(id, { status_map: 'done=resolved', fields: { 'subject.name': [] }, auth: { mode: 'header' }, default_preset: null });
    expect(again.status, again.text).toBe(200);
    expect(again.body.status_map).toMatchObject({ done: 'resolved', 'waiting on customer': 'pending' });
    expect(again.body.mapping.fields).toEqual({});
    expect(again.body.auth).toEqual({ mode: 'header', header_name: 'X-Desk-Secret', secret_set: true });
    expect(again.body.default_preset).toBeNull();
  });

  it('refuses bad settings with 422 by field, changing nothing', async () => {
    const { body } = await connect('integration-connect-6', { name: 'Strict desk' });
    const id = body.integration.id as string;
    expectError(await configure(id, { status_map: 'Done=finished' }), 422, 'validation_failed', ['status_map']);
    expectError(await configure(id, { rate_limit_per_minute: 0, default_preset: 'no-such' }), 422, 'validation_failed', ['default_preset', 'rate_limit_per_minute']);
    expectError(await configure(id, { auth: { mode: 'hmac' } }), 422, 'validation_failed', ['signing_secret']);
    expectError(await configure(id, { auth: { mode: 'header', header_name: 'X-Desk', secret: 'short' } }), 422, 'validation_failed', ['header_value']);
    expectError(await configure(id, { auth: { mode: 'telepathy' } }), 422, 'validation_failed', ['auth']);
    expectError(await configure(id, { ticket_id_paths: [] }), 422, 'validation_failed', ['ticket_id_paths']);
    expectError(await configure(id, { fields: { 'subject.age': ['x'] } }), 422, 'validation_failed', ['fields.subject.age']);
    expectError(await configure(id, { name: 7 }), 422, 'validation_failed', ['name']);
    // A word named like a built-in property of every object could read or replace it wherever the map is looked up.
    for (const word of ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'valueOf', 'ToString']) {
      expectError(await configure(id, { status_map: `${word}=closed` }), 422, 'validation_failed', ['status_map']);
    }
    expectError(await configure(id, { status_map: 'done=closed\n__proto__=open' }), 422, 'validation_failed', ['status_map']);
    const unchanged = await admin.call('GET', `/app/api/integrations/${id}`);
    expect(unchanged.body.integration).toEqual(body.integration);
    expect(await auditOf(id, 'integration.updated')).toEqual([]);
  });

  it("removes status words (a recipe's too): posts with them are then unknown, and the audit names the words", async () => {
    const { body } = await connect('integration-connect-10', { name: 'Halo desk', recipe: 'halopsa' });
    const id = body.integration.id as string;
    expect(body.integration.status_map).toMatchObject({ '9': 'closed' });
    await configure(id, { status_map: 'Parked=pending\nDone=closed' });

    const removed = await configure(id, { remove_status_words: ['9', ' DONE '] });
    expect(removed.status, removed.text).toBe(200);
    expect(Object.keys(removed.body).sort()).toEqual([...VIEW_KEYS].sort());
    expect(removed.body.status_map).toEqual({ '1': 'open', '2': 'open', '4': 'pending', '8': 'resolved', parked: 'pending' });
    const audited = await auditOf(id, 'integration.updated');
    expect(audited.map((e) => [e.actor, e.data.details.status_words_removed])).toEqual([
      [MEMBER_ACTOR(), undefined],
      [MEMBER_ACTOR(), ['9', 'done']],
    ]);

    // The helpdesk's closed status (9) is no longer understood: the post is unusable, and listed so.
    expect(await postTo(body.webhook_url, { ticket: { id: 77, status_id: 9 } })).toBe(202);
    const activity = await admin.call('GET', `/app/api/integrations/${id}/activity`);
    expect(activity.body.data[0]).toMatchObject({ url: 'webhook', ticket_id: '77', status: '9' });

    // A word the map does not hold (any more), a standard word, or a bad shape: 422 on the field, nothing changed.
    expectError(await configure(id, { remove_status_words: ['9'] }), 422, 'validation_failed', ['remove_status_words']);
    expectError(await configure(id, { remove_status_words: ['closed'] }), 422, 'validation_failed', ['remove_status_words']);
    expectError(await configure(id, { remove_status_words: ['__proto__'] }), 422, 'validation_failed', ['remove_status_words']);
    expectError(await configure(id, { remove_status_words: [] }), 422, 'validation_failed', ['remove_status_words']);
    expectError(await configure(id, { status_map: 'parked=closed', remove_status_words: ['Parked'] }), 422, 'validation_failed', ['remove_status_words']);
    expectError(await configure(id, { remove_status_words: 'parked' }), 422, 'validation_failed', ['remove_status_words']);
    const refused = await configure(id, { remove_status_words: ['parked', 'parkd'] });
    expectError(refused, 422, 'validation_failed', ['remove_status_words']);
    expect(refused.body.errors.remove_status_words).toEqual(['"parkd" is not one of this integration\'s status words.']);
    expect((await admin.call('GET', `/app/api/integrations/${id}`)).body.integration.status_map).toEqual(removed.body.status_map);
    expect(await auditOf(id, 'integration.updated')).toHaveLength(2);
  });

  it('disables and enables: a disabled integration answers 409 to posts', async () => {
    const { body } = await connect('integration-connect-7', { name: 'Paused desk' });
    const id = body.integration.id as string;
    const disabled = await configure(id, { enabled: false });
    expect(disabled.status, disabled.text).toBe(200);
    expect(disabled.body.enabled).toBe(false);
    expect(await postTo(body.webhook_url, { ticket_id: 'T-2', status: 'closed' })).toBe(409);
    expect((await configure(id, { enabled: true })).body.enabled).toBe(true);
    expect(await postTo(body.webhook_url, { ticket_id: 'T-2', status: 'closed' })).toBe(202);
    expect((await auditEntries(service, org.orgId)).filter((e) => e.data.details?.integration_id === id).map((e) => [e.type, e.actor])).toEqual([
      ['integration.connected', MEMBER_ACTOR()],
      ['integration.disabled', MEMBER_ACTOR()],
      ['integration.enabled', MEMBER_ACTOR()],
    ]);
  });

  it('rotates both URL secrets: the old URLs answer 404 at once, the new ones work', async () => {
    const { body } = await connect('integration-connect-8', { name: 'Rotated desk' });
    const id = body.integration.id as string;
    const rotated = await admin.call('POST', `/app/api/integrations/${id}/rotate`);
    expect(rotated.status, rotated.text).toBe(200);
    expect(Object.keys(rotated.body).sort()).toEqual(['integration', 'trigger_url', 'webhook_url']);
    expect(rotated.body.integration.id).toBe(id);
    expect(rotated.body.webhook_url).not.toBe(body.webhook_url);
    expect(rotated.body.trigger_url).not.toBe(body.trigger_url);
    expect(await postTo(body.webhook_url, { ticket_id: 'T-3', status: 'closed' })).toBe(404);
    expect(await postTo(body.trigger_url, { ticket_id: 'T-3' })).toBe(404);
    expect(await postTo(rotated.body.webhook_url, { ticket_id: 'T-3', status: 'closed' })).toBe(202);
    const audited = await auditOf(id, 'integration.secret_rotated');
    expect(audited.map((e) => e.actor)).toEqual([MEMBER_ACTOR()]);
    expect(JSON.stringify(audited)).not.toContain(new URL(rotated.body.webhook_url).pathname.split('/').pop()!);
  });

  it('lists the unusable posts, newest first, with their reasons', async () => {
    const { body } = await connect('integration-connect-9', { name: 'Noisy desk' });
    const id = body.integration.id as string;
    const empty = await admin.call('GET', `/app/api/integrations/${id}/activity`);
    expect(empty.status, empty.text).toBe(200);
    expect(empty.body).toEqual({ object: 'list', data: [] });
    expect(await postTo(body.webhook_url, { status: 'closed' })).toBe(202);
    expect(await postTo(body.webhook_url, { ticket_id: 'T-4', status: 'Parked' })).toBe(202);
    const activity = await admin.call('GET', `/app/api/integrations/${id}/activity`);
    expect(activity.status, activity.text).toBe(200);
    expect(activity.body.data).toEqual([
      { at: expect.stringMatching(DATE_TIME), url: 'webhook', reason: 'Status "parked" is not understood; map it in the integration\'s status map.', ticket_id: 'T-4', status: 'parked' },
      { at: expect.stringMatching(DATE_TIME), url: 'webhook', reason: 'No ticket id at ticket_id.', ticket_id: null, status: 'closed' },
    ]);
  });

  it('answers 404 for an integration that is not one of the organisation', async () => {
    for (const path of ['/app/api/integrations/0000000000000000000000000a', '/app/api/integrations/not-an-id', '/app/api/integrations/0000000000000000000000000a/activity']) {
      expectError(await admin.call('GET', path), 404, 'not_found');
    }
    expectError(await admin.call('POST', '/app/api/integrations/0000000000000000000000000a/rotate'), 404, 'not_found');
    expectError(await configure('0000000000000000000000000a', { enabled: false }), 404, 'not_found');
  });

  it('refuses a plain member (403) on every endpoint, a POST without the CSRF header, and anyone signed out', async () => {
    const someId = (await admin.call('GET', '/app/api/integrations')).body.data[0].id;
    const calls: Array<[string, string, unknown?]> = [
      ['GET', '/app/api/integrations'],
      ['POST', '/app/api/integrations', { name: 'Mine' }],
      ['GET', `/app/api/integrations/${someId}`],
      ['POST', `/app/api/integrations/${someId}`, { enabled: false }],
      ['POST', `/app/api/integrations/${someId}/rotate`],
      ['GET', `/app/api/integrations/${someId}/activity`],
    ];
    for (const [method, path, body] of calls) {
      expectError(await plain.call(method, path, { body, headers: { 'Idempotency-Key': `plain-${path}` } }), 403, 'forbidden');
    }
    expectError(await admin.call('POST', `/app/api/integrations/${someId}/rotate`, { csrf: false }), 403, 'forbidden');
    expectError(await admin.call('POST', '/app/api/integrations', { body: { name: 'No CSRF' }, csrf: false, headers: { 'Idempotency-Key': 'no-csrf' } }), 403, 'forbidden');
    expectError(await service.call('GET', '/app/api/integrations'), 401, 'unauthenticated');
    expect((await admin.call('GET', `/app/api/integrations/${someId}`)).body.integration.enabled).toBe(true);
    expect((await auditEntries(service, org.orgId)).filter((e) => e.actor?.type === 'member' && e.actor.id !== adminId && String(e.type).startsWith('integration.'))).toEqual([]);
  });
});
