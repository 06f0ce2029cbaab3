/**
 * Member POSTs that change what exists (a request's completion or new link, a share's purge, a key's
 * approval or refusal, a preset, the policy, a ping or redelivery, an integration's settings or
 * helpdesk) with an Idempotency-Key, when the table applied
 * the change but every answer was lost: the retry replays the first answer instead of answering 409
 * for a change that was made, or making it again. As app-lost-answers.test.ts for creations.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { exportPublicKey, fingerprintOf, generateIdentityPair } from '../../web/crypto/identity.ts';
import { MemberBrowser } from '../support/member-browser.ts';
import { expectReplayed, retryAfterLostAnswer, startLostAnswerWorld, type LostAnswerWorld } from '../support/lost-answer.ts';
import { auditEntries, auditEntriesOfRequest, forceRequestState } from '../support/shapes.ts';
import { createShareAs } from '../support/shares.ts';

let world: LostAnswerWorld;
beforeAll(async () => {
  world = await startLostAnswerWorld('Lost Answer Changes Org');
});
afterAll(() => world?.stop());

/** POST `path` as the owner, each call with the same Idempotency-Key. */
const keyedPost = (path: string, body?: unknown) => {
  const key = `lost-${path}-${Date.now()}`;
  return async () => (await world.owner()).call('POST', path, { body, headers: { 'Idempotency-Key': key } });
};

const pendingRequest = async (verification_mode = 'none') => {
  const created = await world.service.call('POST', '/requests', {
    key: world.org.key,
    body: { subject_name: 'Jane Doe', justification: 'The firewall admin password', recipients: [world.org.owner.email], verification_mode },
  });
  expect(created.status, created.text).toBe(201);
  return created.body.request.id as string;
};

it('POST /app/api/requests/{id}/complete replays a completion whose every answer was lost, instead of answering 409', async () => {
  const id = await pendingRequest();
  await forceRequestState(world.service, world.org.orgId, id, 'submitted');
  const retried = await retryAfterLostAnswer(world.proxy, keyedPost(`/app/api/requests/${id}/complete`));
  expectReplayed(retried, 200);
  expect(retried.body).toMatchObject({ id, status: 'completed' });
});

it('POST /app/api/requests/{id}/relink replays a new link whose every answer was lost (link and code null), instead of making another', async () => {
  // With a spoken code, so that the replay's null code is one the first answer had.
  const id = await pendingRequest('challenge');
  const retried = await retryAfterLostAnswer(world.proxy, keyedPost(`/app/api/requests/${id}/relink`));
  expectReplayed(retried, 200);
  expect(retried.body).toMatchObject({ request: { id }, link: null, link_without_fragment: null, challenge_code: null });
  const relinks = (await auditEntriesOfRequest(world.service, world.org.orgId, id)).filter((entry) => entry.type === 'request.relinked');
  expect(relinks, 'one new link').toHaveLength(1);
});

it('POST /app/api/shares/{id}/purge replays a purge whose every answer was lost, instead of answering 409', async () => {
  const share = await createShareAs(await world.owner());
  const retried = await retryAfterLostAnswer(world.proxy, keyedPost(`/app/api/shares/${share.id}/purge`));
  expectReplayed(retried, 200);
  expect(retried.body).toMatchObject({ id: share.id, status: 'purged', end_reason: 'purged_by_member' });
});

/** A member of the organisation whose own key was replaced by another, awaiting approval. */
const memberWithReplacedKey = async () => {
  const email = `replacing-${Math.random().toString(36).slice(2, 10)}@example.com`;
  const member = await world.service.admin.addMember({ orgId: world.org.orgId, name: 'Pat Replacing', email, role: 'member' });
  const browser = await MemberBrowser.signIn(world.service, email);
  let fingerprint = '';
  for (const state of ['verified', 'replaced_pending_approval']) {
    const publicKey = await exportPublicKey((await generateIdentityPair()).publicKey);
    const set = await browser.call('POST', '/app/api/identity-key', { body: { public_key: publicKey } });
    expect(set.body.state, set.text).toBe(state);
    fingerprint = await fingerprintOf(publicKey);
  }
  return { id: member.id, fingerprint };
};

for (const [decision, state] of [['approve', 'verified'], ['refuse', 'refused']] as const) {
  it(`POST /app/api/members/{id}/${decision}-key replays a decision whose every answer was lost, instead of answering 409`, async () => {
    const member = await memberWithReplacedKey();
    const retried = await retryAfterLostAnswer(world.proxy, keyedPost(`/app/api/members/${member.id}/${decision}-key`, { fingerprint: member.fingerprint }));
    expectReplayed(retried, 200);
    expect(retried.body).toMatchObject({ membership_id: member.id, identity_key: { fingerprint: member.fingerprint, state } });
  });
}

it('POST /app/api/presets replays a new preset whose every answer was lost (201, not replaced), instead of replacing it', async () => {
  const slug = `lost-${Date.now()}`;
  const saves = async () => (await auditEntries(world.service, world.org.orgId)).filter((entry) => entry.type === 'preset.saved').length;
  const before = await saves();
  const retried = await retryAfterLostAnswer(world.proxy, keyedPost('/app/api/presets', { slug, name: 'Lost answer preset' }));
  expectReplayed(retried, 201);
  expect(retried.body).toMatchObject({ preset: { slug }, replaced: false });
  expect((await saves()) - before, 'saved once').toBe(1);
});

it("POST /app/api/webhooks/{id}/ping and a delivery's redeliver replay what they queued when every answer was lost, instead of queuing another", async () => {
  const browser = await world.owner();
  const made = await browser.call('POST', '/app/api/webhooks', { body: { url: 'https://receiver.example/hook', events: ['request.created'] } });
  expect(made.status, made.text).toBe(201);
  const base = `/app/api/webhooks/${made.body.id}`;
  const deliveries = async () => (await browser.call('GET', `${base}/deliveries`)).body.data as Array<{ id: string }>;

  const pinged = await retryAfterLostAnswer(world.proxy, keyedPost(`${base}/ping`));
  expectReplayed(pinged, 202);
  expect((await deliveries()).map((delivery) => delivery.id), 'one ping delivery').toEqual([pinged.body.delivery_id]);

  const redelivered = await retryAfterLostAnswer(world.proxy, keyedPost(`${base}/deliveries/${pinged.body.delivery_id}/redeliver`));
  expectReplayed(redelivered, 202);
  expect(redelivered.body).toMatchObject({ event_id: pinged.body.event_id, outcome: 'queued' });
  expect((await deliveries()).map((delivery) => delivery.id), 'one redelivery').toEqual([redelivered.body.delivery_id, pinged.body.delivery_id]);
});

it('POST /app/api/organisation/policy replays a change whose every answer was lost, instead of answering that nothing changed', async () => {
  const minutes = 60 + (Date.now() % 600);
  const retried = await retryAfterLostAnswer(world.proxy, keyedPost('/app/api/organisation/policy', { ticket: { grace_period_minutes: minutes } }));
  expectReplayed(retried, 200);
  expect(retried.body.changed).toEqual([{ field: 'ticket.grace_period_minutes', from: expect.any(Number), to: minutes }]);
});

it("POST /app/api/integrations/{id}/helpdesk replays a connection whose every answer was lost, instead of connecting again", async () => {
  const browser = await world.owner();
  const made = await browser.call('POST', '/app/api/integrations', { body: { name: 'Lost answer helpdesk link' } });
  expect(made.status, made.text).toBe(201);
  const connections = async () => (await auditEntries(world.service, world.org.orgId)).filter((entry) => entry.type === 'integration.helpdesk_connected').length;
  const before = await connections();
  const body = { adapter: 'zendesk', helpdesk_url: 'https://acme.zendesk.com', client_id: 'lost-answer-client', client_secret: 'lost-answer-client-secret' };
  const retried = await retryAfterLostAnswer(world.proxy, keyedPost(`/app/api/integrations/${made.body.integration.id}/helpdesk`, body));
  expectReplayed(retried, 200);
  expect(retried.body).toMatchObject({ id: made.body.integration.id });
  expect((await connections()) - before, 'connected once').toBe(1);
});

for (const [change, body, setUp] of [
  ['a shared secret', { auth: { mode: 'header', header_name: 'X-Token', secret: 'lost-answer-shared-secret' } }, null],
  ['a status word removed', { remove_status_words: ['fixed'] }, { status_map: 'fixed=resolved' }],
] as const) {
  it(`POST /app/api/integrations/{id} replays ${change} whose every answer was lost, instead of changing it again or refusing it`, async () => {
    const browser = await world.owner();
    const made = await browser.call('POST', '/app/api/integrations', { body: { name: `Lost answer ${change}` } });
    expect(made.status, made.text).toBe(201);
    const path = `/app/api/integrations/${made.body.integration.id}`;
    if (setUp) expect((await browser.call('POST', path, { body: setUp })).status).toBe(200);
    const updates = async () => (await auditEntries(world.service, world.org.orgId)).filter((entry) => entry.type === 'integration.updated').length;
    const before = await updates();
    const retried = await retryAfterLostAnswer(world.proxy, keyedPost(path, body));
    expectReplayed(retried, 200);
    expect((await updates()) - before, 'changed once').toBe(1);
  });
}
