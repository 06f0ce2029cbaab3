/**
 * Member POSTs with an Idempotency-Key when the table applied the change but every answer was lost
 * (DynamoDB Local behind a proxy that applies the transaction and never answers): the member gets
 * a 503, and the retry with the same key replays the change instead of making it again: no second
 * live API key, integration with live URLs, client, team or template, no 409 for a revoke (of a request or an API key) nor 404 for a
 * webhook deletion that happened. The answer is stored in the change's own transaction (store/idempotent-commit.ts), as
 * for requests, webhooks and shares (fault-injection.test.ts).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { FaultProxy } from '../support/dynamo-fault-proxy.ts';
import { expectReplayed, retryAfterLostAnswer, startLostAnswerWorld, type LostAnswerWorld } from '../support/lost-answer.ts';
import { auditEntries } from '../support/shapes.ts';
import type { TestOrganisation, TestService } from '../support/test-service.ts';

let world: LostAnswerWorld;
let proxy: FaultProxy;
let service: TestService;
let org: TestOrganisation;
const owner = () => world.owner();

beforeAll(async () => {
  world = await startLostAnswerWorld('Lost Answer Keys Org');
  ({ proxy, service, org } = world);
});
afterAll(() => world?.stop());

it('does not create a second API key when the first committed but every answer was lost; the retry replays it with the secret null', async () => {
  const browser = await owner();
  const key = `lost-key-${Date.now()}`;
  const create = () => browser.call('POST', '/app/api/keys', { body: { name: 'Deploy bot', scopes: ['requests:read'] }, headers: { 'Idempotency-Key': key } });
  const keys = async () => ((await browser.call('GET', '/app/api/keys')).body.data as Array<{ id: string }>).map((k) => k.id);
  const before = await keys();

  const retried = await retryAfterLostAnswer(proxy, create);
  expectReplayed(retried, 201);
  expect(retried.body.secret).toBeNull();
  const after = await keys();
  expect(after.filter((id) => !before.includes(id)), 'one API key created').toEqual([retried.body.api_key.id]);
});

it('does not connect a second integration when the first committed but every answer was lost; the retry replays it with both URLs null', async () => {
  const browser = await owner();
  const key = `lost-integration-${Date.now()}`;
  const connect = () => browser.call('POST', '/app/api/integrations', { body: { name: 'Lost answer helpdesk' }, headers: { 'Idempotency-Key': key } });
  const connected = async () =>
    (await auditEntries(service, org.orgId)).filter((entry: { type: string }) => entry.type === 'integration.connected').length;
  const before = await connected();

  const retried = await retryAfterLostAnswer(proxy, connect);
  expectReplayed(retried, 201);
  expect(retried.body).toMatchObject({ webhook_url: null, trigger_url: null });
  expect((await connected()) - before, 'one integration connected').toBe(1);
});

for (const action of ['revoke'] as const) {
  it(`replays a member's ${action} that committed but whose every answer was lost, instead of answering 409`, async () => {
    const browser = await owner();
    const created = await service.call('POST', '/requests', { key: org.key, body: { subject_name: 'Jane Doe', justification: 'The firewall admin password', recipients: [org.owner.email], verification_mode: 'none' } });
    expect(created.status, created.text).toBe(201);
    const id = created.body.request.id as string;
    const key = `lost-${action}-${Date.now()}`;
    const end = () => browser.call('POST', `/app/api/requests/${id}/${action}`, { headers: { 'Idempotency-Key': key } });

    const retried = await retryAfterLostAnswer(proxy, end);
    expectReplayed(retried, 200);
    expect(retried.body).toMatchObject({ id, status: 'revoked' });
  });
}

for (const [path, body, type] of [
  ['/app/api/clients', { name: 'Lost Answer Co' }, 'client.created'],
  ['/app/api/teams', { name: 'Lost Answer Team' }, 'team.created'],
  ['/app/api/templates', { name: 'Lost Answer Template', justification: 'We need the VPN password to finish the ticket.' }, 'template.created'],
] as const) {
  it(`POST ${path} does not create a second one when the first committed but every answer was lost; the retry replays it`, async () => {
    const browser = await owner();
    const key = `lost-${type}-${Date.now()}`;
    const create = () => browser.call('POST', path, { body, headers: { 'Idempotency-Key': key } });
    const made = async () => (await auditEntries(service, org.orgId)).filter((entry: { type: string }) => entry.type === type).length;
    const before = await made();

    const retried = await retryAfterLostAnswer(proxy, create);
    expectReplayed(retried, 201);
    expect((await made()) - before, `one ${type}`).toBe(1);
  });
}

it('POST /app/api/members replays an invitation that committed but whose every answer was lost, instead of answering 409 member_exists', async () => {
  const browser = await owner();
  const key = `lost-member-${Date.now()}`;
  const email = `lost-${Date.now()}@example.com`;
  const invite = () => browser.call('POST', '/app/api/members', { body: { name: 'Lou Lost', email }, headers: { 'Idempotency-Key': key } });

  const retried = await retryAfterLostAnswer(proxy, invite);
  expectReplayed(retried, 201);
  expect(retried.body).toMatchObject({ member: { email }, invitation_sent: false });
});

it("POST /app/api/keys/{id}/revoke replays a revocation that committed but whose every answer was lost, instead of answering 409", async () => {
  const browser = await owner();
  const made = await browser.call('POST', '/app/api/keys', { body: { name: 'Short-lived bot', scopes: ['requests:read'] } });
  expect(made.status, made.text).toBe(201);
  const id = made.body.api_key.id as string;
  const key = `lost-key-revoke-${Date.now()}`;
  const revoke = () => browser.call('POST', `/app/api/keys/${id}/revoke`, { headers: { 'Idempotency-Key': key } });

  const retried = await retryAfterLostAnswer(proxy, revoke);
  expectReplayed(retried, 200);
  expect(retried.body).toMatchObject({ id, state: 'revoked' });
});

it('POST /app/api/webhooks/{id}/delete replays a deletion that committed but whose every answer was lost, instead of answering 404', async () => {
  const browser = await owner();
  const made = await browser.call('POST', '/app/api/webhooks', { body: { url: 'https://receiver.example/hook', events: ['request.created'] } });
  expect(made.status, made.text).toBe(201);
  const key = `lost-webhook-delete-${Date.now()}`;
  const remove = () => browser.call('POST', `/app/api/webhooks/${made.body.id}/delete`, { headers: { 'Idempotency-Key': key } });

  const retried = await retryAfterLostAnswer(proxy, remove);
  expectReplayed(retried, 204);
});
