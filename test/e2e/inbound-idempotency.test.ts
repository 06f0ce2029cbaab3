/**
 * An Idempotency-Key on an integration's inbound URLs (SPEC.md, Inbound generic ticket webhook, and
 * the idempotency rules), over real HTTP: honoured when a sender sends one, at most 200
 * characters; the same key and body replays the 202; another body answers 422
 * `idempotency_key_reused`; the key is the URL's own (another integration's post, or the other URL
 * of the same integration, is never replayed its answer); only a post the URL, the hardening and
 * the integration's state let in may claim a key; without a key, nothing changes.
 */
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../lambdas/core/ids.ts';
import { OPERATOR_ACTOR } from '../../lambdas/core/model.ts';
import { configureIntegration, connectIntegration, type IntegrationChanges } from '../../lambdas/core/use-cases/integrations/manage-integration.ts';
import { expectError, requestItemsOf } from '../support/shapes.ts';
import { startTestService, type ApiAnswer, type TestOrganisation, type TestService } from '../support/test-service.ts';

let service: TestService;
let org: TestOrganisation;
let preset = '';

beforeAll(async () => {
  service = await startTestService();
  org = await service.createOrganisation({ name: 'Inbound Replay Org' });
  preset = `quiet-${newId().slice(-6)}`;
  await service.admin.savePreset(org.orgId, preset, 'Quiet', { justification: 'Needed for the ticket at hand', ttl_minutes: 60, recipients: [org.owner.email], delivery: { method: 'none' } }, {
    fallbackRequester: org.owner.email,
  });
});
afterAll(() => service?.stop());

const ticketId = () => `INC-${newId().slice(-10)}`;
const uniqueKey = (label: string) => `${label}-${newId()}`;
const replayed = (answer: ApiAnswer) => answer.headers.get('idempotency-replayed');

/** A generic integration of the organisation: its two URLs' paths. */
const connect = async (configure?: IntegrationChanges) => {
  const connected = await connectIntegration(service.deps, OPERATOR_ACTOR, { orgId: org.orgId, name: `Desk ${newId()}` });
  if (configure) await configureIntegration(service.deps, OPERATOR_ACTOR, org.orgId, connected.integration.id, configure);
  return { status: new URL(connected.webhook_url).pathname, trigger: new URL(connected.trigger_url).pathname };
};

const post = (path: string, body: unknown, headers: Record<string, string> = {}) => service.call('POST', path, { body, headers });
const withKey = (key: string) => ({ 'Idempotency-Key': key });

describe.each([
  { url: 'webhook URL', pathOf: (urls: { status: string }) => urls.status, body: () => ({ ticket_id: ticketId(), status: 'open' }) },
  { url: 'trigger URL', pathOf: (urls: { trigger: string }) => urls.trigger, body: () => ({ ticket_id: ticketId(), preset, subject: { name: 'Jane Doe' } }) },
])('the $url', ({ pathOf, body }) => {
  it('refuses a key of 300 characters with 422 on the header, and takes one of 200', async () => {
    const path = pathOf(await connect());
    expectError(await post(path, body(), withKey('k'.repeat(300))), 422, 'validation_failed', ['Idempotency-Key']);
    expectError(await post(path, body(), withKey('')), 422, 'validation_failed', ['Idempotency-Key']);
    const taken = await post(path, body(), withKey('k'.repeat(200)));
    expect(taken.status, taken.text).toBe(202);
  });

  it('replays the 202 for the same key and body, and answers 422 idempotency_key_reused for another body', async () => {
    const path = pathOf(await connect());
    const key = uniqueKey('inbound');
    const sent = body();
    const first = await post(path, sent, withKey(key));
    expect(first.status, first.text).toBe(202);
    expect(replayed(first)).toBeNull();
    const again = await post(path, sent, withKey(key));
    expect(again.status, again.text).toBe(202);
    expect(replayed(again)).toBe('true');
    expect(again.headers.get('cache-control')).toBe('no-store');
    expect(again.body).toEqual(first.body);
    expectError(await post(path, body(), withKey(key)), 422, 'idempotency_key_reused');
    // The same body as a form is another body: it would be read another way.
    const form = await service.call('POST', path, { rawBody: new URLSearchParams({ ticket_id: sent.ticket_id, status: 'open' }).toString(), headers: { ...withKey(key), 'Content-Type': 'application/x-www-form-urlencoded' } });
    expectError(form, 422, 'idempotency_key_reused');
  });

  it("keeps a key to its own URL: another integration's post with the same key and body runs", async () => {
    const key = uniqueKey('scoped');
    const sent = body();
    for (const path of [pathOf(await connect()), pathOf(await connect())]) {
      const answer = await post(path, sent, withKey(key));
      expect(answer.status, answer.text).toBe(202);
      expect(replayed(answer)).toBeNull();
    }
  });

  it('without a key, a repeated post runs again, as before', async () => {
    const path = pathOf(await connect());
    const sent = body();
    for (let attempt = 0; attempt < 2; attempt++) {
      const answer = await post(path, sent);
      expect(answer.status, answer.text).toBe(202);
      expect(replayed(answer)).toBeNull();
    }
  });
});

describe('one integration, both URLs', () => {
  it("the webhook URL's keys are apart from the trigger URL's", async () => {
    const urls = await connect();
    const key = uniqueKey('both');
    const status = await post(urls.status, { ticket_id: ticketId(), status: 'open' }, withKey(key));
    const trigger = await post(urls.trigger, { ticket_id: ticketId(), preset, subject: { name: 'Jane Doe' } }, withKey(key));
    expect([status.status, trigger.status]).toEqual([202, 202]);
    expect([replayed(status), replayed(trigger)]).toEqual([null, null]);
    expect(trigger.body.url).toBe('trigger');
  });
});

describe('the trigger URL', () => {
  it('a replayed trigger creates nothing more: one request for the ticket', async () => {
    const { trigger } = await connect();
    const key = uniqueKey('trigger');
    const ticket = ticketId();
    const sent = { ticket_id: ticket, preset, subject: { name: 'Jane Doe' } };
    const first = await post(trigger, sent, withKey(key));
    expect(first.body).toMatchObject({ accepted: true, url: 'trigger', ticket_id: ticket, preset, problem: null });
    expect(replayed(await post(trigger, sent, withKey(key)))).toBe('true');
    expect((await requestItemsOf(service, org.orgId)).filter((item) => item.ticket?.ref === ticket)).toHaveLength(1);
  });
});

describe('only an admitted post claims a key', () => {
  it('a wrong URL answers 404 and a missing signature 401 before the key is looked at; the key is free afterwards', async () => {
    const signingSecret = 'inbound-replay-signing-secret-0123';
    const urls = await connect({ auth: { mode: 'hmac', secret: signingSecret } });
    const key = uniqueKey('admitted');
    const raw = JSON.stringify({ ticket_id: ticketId(), status: 'open' });
    const send = (path: string, headers: Record<string, string>) =>
      service.call('POST', path, { rawBody: raw, headers: { 'Content-Type': 'application/json', ...withKey(key), ...headers } });

    expectError(await send(`/inbound/ticket-status/${'x'.repeat(43)}`, {}), 404, 'not_found');
    expectError(await send(urls.status, {}), 401, 'unauthenticated');
    // A refused post kept nothing: the signed one with the same key runs, and its retry replays.
    const timestamp = Math.floor(Date.now() / 1000);
    const signature = { 'X-Service-Signature': `t=${timestamp},v1=${createHmac('sha256', signingSecret).update(`${timestamp}.${raw}`).digest('hex')}` };
    const first = await send(urls.status, signature);
    expect(first.status, first.text).toBe(202);
    expect(replayed(first)).toBeNull();
    expect(replayed(await send(urls.status, signature))).toBe('true');
    // A retry without the signature is still refused, never handed the answer.
    expectError(await send(urls.status, {}), 401, 'unauthenticated');
  });

  it("a signed post's retry with another query string replays: a signed integration never reads its query", async () => {
    const signingSecret = 'inbound-replay-signing-secret-4567';
    const urls = await connect({ auth: { mode: 'hmac', secret: signingSecret } });
    const key = uniqueKey('signed-query');
    const raw = JSON.stringify({ ticket_id: ticketId(), status: 'open' });
    const timestamp = Math.floor(Date.now() / 1000);
    const headers = {
      'Content-Type': 'application/json',
      ...withKey(key),
      'X-Service-Signature': `t=${timestamp},v1=${createHmac('sha256', signingSecret).update(`${timestamp}.${raw}`).digest('hex')}`,
    };
    const first = await service.call('POST', urls.status, { rawBody: raw, headers });
    expect(first.status, first.text).toBe(202);
    const retried = await service.call('POST', `${urls.status}?status=closed&delivery=2`, { rawBody: raw, headers });
    expect(retried.status, retried.text).toBe(202);
    expect(replayed(retried)).toBe('true');
    expect(retried.body).toEqual(first.body);
  });
});
