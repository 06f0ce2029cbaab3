/**
 * What the inbound ticket webhook's end-to-end files share (test/e2e/inbound-webhook*.test.ts):
 * the helpdesk samples of test/fixtures/helpdesks and their manifest, the auth secrets those files
 * configure, the answers expected, signing helpers, and a harness that posts, connects
 * integrations and puts requests in the states a post acts on.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { expect } from 'vitest';
import { OPERATOR_ACTOR } from '../../lambdas/core/model.ts';
import { toRequestView } from '../../lambdas/core/request-view.ts';
import { submit } from '../../lambdas/core/subject-flow.ts';
import {
  configureIntegration,
  connectIntegration,
  integrationActivity,
  type IntegrationChanges,
} from '../../lambdas/core/use-cases/integrations/manage-integration.ts';
import { expectCreationResult, materialItems, type RequestObject } from './shapes.ts';
import { scanTable, type ApiAnswer, type TestOrganisation, type TestService } from './test-service.ts';

export const FIXTURES = new URL('../fixtures/helpdesks/', import.meta.url);
export const fixtureText = (file: string) => readFileSync(new URL(file, FIXTURES), 'utf8');
/** The fixture signatures cover the file's bytes without its trailing newline. */
export const signedBytes = (file: string) => fixtureText(file).replace(/\n$/, '');

export interface ManifestEntry {
  file: string;
  vendor: string;
  recipe: string;
  ticket_id: string;
  status: string;
  signature?: { scheme: string; secret: string; headers: Record<string, string> };
}
export const MANIFEST = JSON.parse(fixtureText('manifest.json')) as ManifestEntry[];
export const FIXTURE_SECRET = 'fixture-signing-secret-0123456789';
/** The recipe's native signature mode, for the samples that sign. */
export const NATIVE_AUTH: Record<string, string> = { zendesk: 'zendesk', jira: 'hub-sha256', zammad: 'hub-sha1' };
/** What each sample's status field holds, as the service echoes it back (trimmed, lower case). */
export const STATUS_RECEIVED: Record<string, string> = {
  'zendesk-event.json': 'solved',
  'zendesk-trigger.json': 'solved',
  'jira-issue-updated.json': 'done',
  'zammad-trigger.json': 'closed',
  'freshdesk-automation.json': '4',
  'connectwise-callback.json': 'true',
  'autotask-ticket.json': '5',
  'servicenow-business-rule.json': '6',
  'halopsa-webhook.json': '9',
};
/** The manifest's status starts with the status it must be read as. */
export const expectedStatusOf = (entry: ManifestEntry) => {
  const first = entry.status.split(/[ (]/)[0];
  expect(['resolved', 'closed']).toContain(first);
  return first;
};

// Every auth secret configured anywhere in this file: none may be stored in plain text or answered.
export const HEADER_SECRET = 'header-value-9f3c1e7a5b2d4f60';
export const HMAC_SECRET = 'hmac-signing-secret-7d1e2f3a4b5c';
export const HUB256_SECRET = 'hub256-signing-secret-1a2b3c4d5e';
export const HUB1_SECRET = 'hub1-signing-secret-6f7e8d9c0b1a';
export const ZENDESK_SECRET = 'zendesk-signing-secret-a1b2c3d4e5';
export const AUTH_SECRETS = [HEADER_SECRET, HMAC_SECRET, HUB256_SECRET, HUB1_SECRET, ZENDESK_SECRET, FIXTURE_SECRET];

export const REASON = {
  missing: 'The signature or shared header is missing.',
  mismatch: 'The signature or shared header does not match.',
  stale: 'The signature timestamp is more than five minutes away.',
};
export const NOT_UNDERSTOOD = (word: string) => `Status "${word}" is not understood; map it in the integration's status map.`;

export const ack = (ticketId: string | null, status: string, statusReceived: string | null, problem: string | null = null) => ({
  accepted: true,
  url: 'webhook',
  ticket_id: ticketId,
  status,
  status_received: statusReceived,
  problem,
});

export const hmacHex = (algorithm: 'sha256' | 'sha1', secret: string, text: string) => createHmac(algorithm, secret).update(text).digest('hex');
export const serviceSignature = (secret: string, body: string, at: Date) => {
  const t = Math.floor(at.getTime() / 1000);
  return `t=${t},v1=${hmacHex('sha256', secret, `${t}.${body}`)}`;
};
export const zendeskHeaders = (secret: string, body: string, timestamp: string) => ({
  'X-Zendesk-Webhook-Signature-Timestamp': timestamp,
  'X-Zendesk-Webhook-Signature': createHmac('sha256', secret).update(`${timestamp}${body}`).digest('base64'),
});
/** The body with one byte changed (a digit or letter bumped), same length. */
export const oneByteChanged = (body: string) => {
  const at = body.search(/[0-8]/);
  return `${body.slice(0, at)}${String(Number(body[at]) + 1)}${body.slice(at + 1)}`;
};
export const randomUrlSecret = () => randomBytes(32).toString('base64url');

/** Everything shared by the two services' describes: posting, connecting, requests in states. */
export const harness = (getService: () => TestService, answers: string[]) => {
  const post = async (path: string, rawBody: string, headers: Record<string, string> = {}): Promise<ApiAnswer> => {
    const answer = await getService().call('POST', path, { rawBody, headers });
    answers.push(answer.text, JSON.stringify([...answer.headers]));
    return answer;
  };
  const postJson = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    post(path, JSON.stringify(body), { 'Content-Type': 'application/json', ...headers });

  const connect = async (orgId: string, name: string, recipe?: string) => {
    const connected = await connectIntegration(getService().deps, OPERATOR_ACTOR, { orgId, name, recipe: recipe ?? null });
    answers.push(JSON.stringify(connected));
    return {
      id: connected.integration.id,
      orgId,
      path: new URL(connected.webhook_url).pathname,
      triggerPath: new URL(connected.trigger_url).pathname,
      recommendedAuth: connected.recommended_auth,
    };
  };
  const configure = async (integration: { orgId: string; id: string }, changes: IntegrationChanges) => {
    const view = await configureIntegration(getService().deps, OPERATOR_ACTOR, integration.orgId, integration.id, changes);
    answers.push(JSON.stringify(view));
    return view;
  };
  const activity = async (integration: { orgId: string; id: string }) => {
    const entries = await integrationActivity(getService().deps, integration.orgId, integration.id);
    answers.push(JSON.stringify(entries));
    return entries;
  };

  const create = async (org: TestOrganisation, ticketRef: string, extra: Record<string, unknown> = {}): Promise<RequestObject> => {
    const answer = await getService().call('POST', '/requests', {
      key: org.key,
      body: { subject_name: 'Jane Doe', justification: 'Need the VPN admin password', recipients: [org.owner.email], ticket_ref: ticketRef, ...extra },
    });
    expect(answer.status, answer.text).toBe(201);
    return expectCreationResult(answer.body).request;
  };
  /** Submitted as the subject's browser would: the request and its stand-in ciphertext in one transaction. */
  const submitted = async (org: TestOrganisation, ticketRef: string, extra: Record<string, unknown> = {}) => {
    const service = getService();
    const created = await create(org, ticketRef, extra);
    const before = (await service.deps.requests.get(created.id))!;
    const after = submit(before, service.deps.clock.now(), 1);
    const actor = { type: 'subject' as const, label: before.subject.name };
    await service.deps.requests.submit(
      before,
      after,
      { envelope: { v: 1, ciphertext: `sealed-${created.id}`, recipients: [] }, attachments: [{ iv: 'aXY', ciphertext: `sealed-${created.id}` }] },
      { orgId: org.orgId, type: 'request.submitted', actor, clientId: after.client.id, requestId: after.id, data: { request: toRequestView(after, service.deps.urls), actor, details: {} } },
    );
    expect(await materialItems(service, created.id)).toHaveLength(2);
    return created;
  };
  const read = async (org: TestOrganisation, id: string) => {
    const answer = await getService().call('GET', `/requests/${id}`, { key: org.key });
    expect(answer.status, answer.text).toBe(200);
    return answer.body as RequestObject;
  };
  const trustPolicy = (org: TestOrganisation, trust: boolean) =>
    getService().admin.setPolicy(org.orgId, {
      ticket: { trustUnverifiedWebhooks: trust, gracePeriodMinutes: 0, closeStatuses: ['resolved', 'closed'], revokeUnsubmittedOnClose: false } as never,
    });

  /** No item of the table holds any of the secrets in plain text. */
  const expectNoSecretInTable = async (secrets: string[]) => {
    const dump = (await scanTable(getService())).map((item) => JSON.stringify(item));
    for (const secret of secrets) expect(dump.filter((item) => item.includes(secret)), `items holding ${secret}`).toEqual([]);
  };
  return { post, postJson, connect, configure, activity, create, submitted, read, trustPolicy, expectNoSecretInTable };
};
