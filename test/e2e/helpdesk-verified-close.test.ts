/**
 * The verified close over real HTTP, for each helpdesk against its fake on loopback: an
 * integration connected to the helpdesk (credentials sealed), requests linked to its tickets, and
 * closing hints (a signed post to the integration's webhook URL, POST /v1/tickets/{ref}/status)
 * that destroy nothing until the helpdesk itself says the ticket is closed; a failed read
 * (503, 429) destroys nothing and is retried after the helpdesk's Retry-After; the reconciliation
 * closes without any hint; the end of a grace period reads again and sees a reopen. The verified
 * close shows in the audit entry, the event and the custody certificate. Every request the service
 * sent a helpdesk, and every answer its fake gave, fits the vendor's OpenAPI document (for ServiceNow,
 * Zammad, Freshdesk, Freshservice, ConnectWise PSA and Autotask, whose documents are not copied here, the calls as their API
 * documentation describes them: test/support/contract-<vendor>.ts).
 */
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATOR_ACTOR } from '../../lambdas/core/model.ts';
import type { TicketCheck, TicketCheckQueue } from '../../lambdas/core/ticket-check.ts';
import { checkHelpdeskTicket, connectHelpdesk } from '../../lambdas/core/use-cases/integrations/connect-helpdesk.ts';
import { configureIntegration, connectIntegration, integrationActivity } from '../../lambdas/core/use-cases/integrations/manage-integration.ts';
import { reconcileTickets } from '../../lambdas/core/use-cases/tickets/reconcile-tickets.ts';
import { runTicketCheck } from '../../lambdas/core/use-cases/tickets/verify-ticket.ts';
import { withHelpdeskLinks } from '../../lambdas/workers/reconcile.ts';
import { purgeRequest } from '../../lambdas/core/use-cases/tickets/purge-request.ts';
import { auditEntriesOfRequest, expectCreationResult, materialItems, requestItem, type RequestObject } from '../support/shapes.ts';
import { submitAsSubject } from '../support/submission.ts';
import { scanTable, startTestService, type TestOrganisation, type TestService } from '../support/test-service.ts';
import { VERIFIED_CLOSE_HELPDESKS, type CheckedCall, type Helpdesk } from '../support/verified-close-helpdesks.ts';
import { movableClock } from '../support/webhooks.ts';

const MINUTE = 60_000;
const SIGNING_SECRET = 'helpdesk-webhook-signing-secret-0123';

const clock = movableClock();

/** The checks the service asked for, run by the test (as the queue's worker would), each with the delay it asked for. */
const recordingChecks = () => {
  const queued: Array<{ check: TicketCheck; delaySeconds: number }> = [];
  const queue: TicketCheckQueue = { enqueue: async (check, delaySeconds) => void queued.push({ check, delaySeconds }) };
  return { queue, queued, take: () => queued.splice(0) };
};

describe.each(VERIFIED_CLOSE_HELPDESKS)('a verified close with %s', (label, startHelpdesk) => {
  const checks = recordingChecks();
  let helpdesk: Helpdesk;
  let service: TestService;
  let org: TestOrganisation;
  let integrationId: string;
  let webhookUrl: string;
  let ticketsKey: string;
  let seq = 0;

  beforeAll(async () => {
    helpdesk = await startHelpdesk(() => clock.now().getTime());
    service = await startTestService({ clock, ticketChecks: checks.queue, allowLoopbackWebhooks: true });
    org = await service.createOrganisation({ name: `${helpdesk.name} org` });
    ticketsKey = await service.createKey(org.orgId, { scopes: ['tickets:write'], name: 'Helpdesk sync' });
    const connected = await connectIntegration(service.deps, OPERATOR_ACTOR, { orgId: org.orgId, name: `${helpdesk.name} desk` });
    integrationId = connected.integration.id;
    webhookUrl = connected.webhook_url;
    await configureIntegration(service.deps, OPERATOR_ACTOR, org.orgId, integrationId, { auth: { mode: 'hmac', secret: SIGNING_SECRET } });
    const view = await connectHelpdesk(service.deps, OPERATOR_ACTOR, org.orgId, integrationId, { adapter: helpdesk.name, url: helpdesk.url, ...helpdesk.connect });
    expect(view.helpdesk).toMatchObject({ adapter: helpdesk.name, url: helpdesk.url, credentials_set: true });
    // The default: unverified statuses are not trusted, so only the helpdesk's answer can destroy.
    await service.admin.setPolicy(org.orgId, { ticket: { trustUnverifiedWebhooks: false, gracePeriodMinutes: 0 } as never });
  });
  afterAll(async () => {
    await service?.stop();
    await helpdesk?.stop();
  });

  const submittedFor = async (ticket: string): Promise<RequestObject> => {
    const answer = await service.call('POST', '/requests', {
      key: org.key,
      body: { subject_name: 'Jane Doe', justification: 'Need the VPN admin password', recipients: [org.owner.email], ticket_integration_id: integrationId, ticket_external_id: ticket },
    });
    expect(answer.status, answer.text).toBe(201);
    const request = expectCreationResult(answer.body).request;
    await submitAsSubject(service, request.id, clock, { envelope: { v: 1, ciphertext: `sealed-${request.id}`, recipients: [] }, attachments: [] });
    return request;
  };
  const read = async (id: string) => (await service.call('GET', `/requests/${id}`, { key: org.key })).body as RequestObject;
  const signedPost = async (ticket: string, status: string) => {
    const body = JSON.stringify({ ticket_id: ticket, status });
    const t = Math.floor(clock.now().getTime() / 1000);
    const signature = createHmac('sha256', SIGNING_SECRET).update(`${t}.${body}`).digest('hex');
    const answer = await fetch(webhookUrl, { method: 'POST', body, headers: { 'Content-Type': 'application/json', 'X-Service-Signature': `t=${t},v1=${signature}` } });
    expect(answer.status).toBe(202);
  };
  /** Runs the queued checks, each once its delay has passed (the helpdesk's Retry-After holds for every read until then). */
  const runQueued = async () => {
    const results = [];
    for (const { check, delaySeconds } of checks.take()) {
      clock.advance(delaySeconds * 1000);
      results.push(await service.asWorker('ticketCheck', (c: TicketCheck) => runTicketCheck(service.deps, c))(check));
    }
    return results;
  };
  const ticket = () => helpdesk.ticket(++seq);

  it('a signed closing post while the helpdesk says open destroys nothing; once it says closed, the next hint destroys, verified', async () => {
    const id = ticket();
    helpdesk.open(id);
    const request = await submittedFor(id);

    await signedPost(id, 'closed');
    // The post asked for a read at once, and did not wait for it.
    expect(checks.queued).toEqual([{ check: { orgId: org.orgId, integrationId, externalId: id, attempt: 0 }, delaySeconds: 0 }]);
    expect(helpdesk.readsOf(id)).toBe(0);
    expect((await read(request.id)).status).toBe('submitted');
    expect(await runQueued()).toEqual([expect.objectContaining({ kind: 'applied' })]);
    expect(helpdesk.readsOf(id)).toBe(1);
    const afterOpenRead = await read(request.id);
    expect(afterOpenRead.status).toBe('submitted');
    expect(await materialItems(service, request.id)).toHaveLength(1);

    helpdesk.close(id);
    const answer = await service.call('POST', `/tickets/${id}/status`, { key: ticketsKey, body: { status: 'closed' } });
    expect(answer.status, answer.text).toBe(202);
    expect(answer.body).toMatchObject({ verified: false, matched: { requests: [request.id] } });
    expect(answer.body.note).toMatch(/helpdesk/);
    expect((await read(request.id)).status).toBe('submitted');
    await runQueued();

    const completed = await read(request.id);
    expect(completed).toMatchObject({ status: 'completed', purge_reason: 'ticket_closed' });
    expect(await materialItems(service, request.id)).toEqual([]);
    const entries = await auditEntriesOfRequest(service, org.orgId, request.id);
    const completion = entries.find((entry) => entry.type === 'request.completed')!;
    expect(completion.data.details).toMatchObject({ purge_reason: 'ticket_closed', verified: true, helpdesk: helpdesk.name, channel: 'helpdesk' });
    expect(Date.parse(completion.data.details.read_at)).not.toBeNaN();
    // The hints themselves stay unverified in the trail; the read is the verified one.
    const received = entries.filter((entry) => entry.type === 'ticket.status_received').map((entry) => [entry.data.details.channel, entry.data.details.verified, entry.data.details.action]);
    expect(received).toEqual([
      ['integration', false, 'recorded'],
      ['helpdesk', true, 'recorded'],
      ['api_key', false, 'recorded'],
      ['helpdesk', true, 'completed'],
    ]);

    const events = (await service.call('GET', `/events?types=request.completed`, { key: org.key })).body.data;
    const event = events.find((candidate: { data: { request: { id: string } } }) => candidate.data.request.id === request.id);
    expect(event.data.details).toMatchObject({ verified: true, helpdesk: helpdesk.name });

    const certificate = await service.call('GET', `/requests/${request.id}/certificate`, { key: org.key });
    expect(certificate.status, certificate.text).toBe(200);
    expect(JSON.stringify(certificate.body)).toContain(`"verified_by":{"helpdesk":"${helpdesk.name}"`);
  });

  it('a read answered 503 or 429 destroys nothing, is in the activity view, and is retried after Retry-After until a read confirms', async () => {
    const id = ticket();
    helpdesk.close(id);
    const request = await submittedFor(id);
    helpdesk.failNextRead(503, 7);
    await signedPost(id, 'closed');
    expect(await runQueued()).toEqual([expect.objectContaining({ kind: 'failed', reason: 'unavailable' })]);
    expect((await read(request.id)).status).toBe('submitted');
    // The retry waits for the helpdesk's Retry-After (longer than the first backoff of 2 s).
    expect(checks.queued).toEqual([{ check: { orgId: org.orgId, integrationId, externalId: id, attempt: 1 }, delaySeconds: 7 }]);

    helpdesk.failNextRead(429, 40);
    expect(await runQueued()).toEqual([expect.objectContaining({ kind: 'failed', reason: 'rate_limited', retryAfterSeconds: 40 })]);
    expect(checks.queued).toEqual([{ check: expect.objectContaining({ attempt: 2 }), delaySeconds: 40 }]);
    expect((await read(request.id)).status).toBe('submitted');

    const activity = await integrationActivity(service.deps, org.orgId, integrationId);
    expect(activity.slice(0, 2).map((entry) => [entry.url, entry.ticket_id])).toEqual([
      ['helpdesk', id],
      ['helpdesk', id],
    ]);
    expect(activity[0]!.reason).toMatch(/rate limit/);
    expect(activity[1]!.reason).toMatch(/unavailable/);

    await runQueued();
    expect(await read(request.id)).toMatchObject({ status: 'completed', purge_reason: 'ticket_closed' });
  });

  it('the reconciliation destroys a closed ticket\'s credential with no hint at all, and leaves open ones alone', async () => {
    const closedTicket = ticket();
    const openTicket = ticket();
    helpdesk.close(closedTicket);
    helpdesk.open(openTicket);
    const closing = await submittedFor(closedTicket);
    const staying = await submittedFor(openTicket);
    const summary = await service.asWorker('reconcile', () => reconcileTickets(withHelpdeskLinks(service.deps)))();
    expect(summary.read).toBeGreaterThanOrEqual(2);
    expect(await read(closing.id)).toMatchObject({ status: 'completed', purge_reason: 'ticket_closed' });
    expect((await read(staying.id)).status).toBe('submitted');
    // A second run reads the open ticket again but records nothing new: the trail does not grow,
    // and the request is not changed, only the time of the read it holds is later (so a read made
    // before this one and answered after it is known to be older).
    const before = (await auditEntriesOfRequest(service, org.orgId, staying.id)).length;
    const held = (await requestItem(service, staying.id))!;
    clock.advance(MINUTE);
    await service.asWorker('reconcile', () => reconcileTickets(withHelpdeskLinks(service.deps)))();
    expect(await auditEntriesOfRequest(service, org.orgId, staying.id)).toHaveLength(before);
    const after = (await requestItem(service, staying.id))!;
    expect(after.version).toBe(held.version);
    expect(after.ticket).toEqual({ ...held.ticket, statusReadAt: clock.now().toISOString() });
    expect(after.ticket.statusReadAt > held.ticket.statusReadAt).toBe(true);
  });

  it('with a grace period, the ticket is read again when the window ends: a reopen inside it is seen and the credential kept', async () => {
    await service.admin.setPolicy(org.orgId, { ticket: { trustUnverifiedWebhooks: false, gracePeriodMinutes: 30 } as never });
    try {
      const id = ticket();
      helpdesk.close(id);
      const request = await submittedFor(id);
      await signedPost(id, 'closed');
      await runQueued();
      const scheduled = await read(request.id);
      expect(scheduled.status).toBe('submitted');
      expect(scheduled.purge_scheduled_at).not.toBeNull();

      // Reopened in the helpdesk with no webhook at all; the window ends.
      helpdesk.open(id);
      clock.advance(31 * MINUTE);
      expect(await service.asWorker('purge', () => purgeRequest(service.deps, request.id))()).toBe('verifying');
      expect((await read(request.id)).status).toBe('submitted');
      await runQueued();
      const kept = await read(request.id);
      expect(kept).toMatchObject({ status: 'submitted', purge_scheduled_at: null });
      expect(await materialItems(service, request.id)).toHaveLength(1);
    } finally {
      await service.admin.setPolicy(org.orgId, { ticket: { trustUnverifiedWebhooks: false, gracePeriodMinutes: 0 } as never });
    }
  });

  it('the helpdesk wins over the hint even when the organisation trusts unverified statuses', async () => {
    await service.admin.setPolicy(org.orgId, { ticket: { trustUnverifiedWebhooks: true, gracePeriodMinutes: 0 } as never });
    try {
      const id = ticket();
      helpdesk.open(id);
      const request = await submittedFor(id);
      await signedPost(id, 'closed');
      expect((await service.call('POST', `/tickets/${id}/status`, { key: ticketsKey, body: { status: 'closed' } })).status).toBe(202);
      // Trusted, the hints would have destroyed a quoted ticket's credential; this one is linked, so they only asked.
      expect((await read(request.id)).status).toBe('submitted');
      await runQueued();
      expect(await read(request.id)).toMatchObject({ status: 'submitted', ticket: { status: 'open' } });
      expect(await materialItems(service, request.id)).toHaveLength(1);
    } finally {
      await service.admin.setPolicy(org.orgId, { ticket: { trustUnverifiedWebhooks: false, gracePeriodMinutes: 0 } as never });
    }
  });

  const createWithReply = async (ticket: string) => {
    const answer = await service.call('POST', '/requests', {
      key: org.key,
      body: {
        subject_name: 'Jane Doe',
        justification: 'Need the VPN admin password',
        recipients: [org.owner.email],
        verification_mode: 'challenge',
        ticket_integration_id: integrationId,
        ticket_external_id: ticket,
        delivery: { method: 'ticket_reply' },
      },
    });
    expect(answer.status, answer.text).toBe(201);
    return expectCreationResult(answer.body);
  };

  it('ticket_reply puts exactly one public comment in the ticket, holding the link with its fragment and never the code', async () => {
    const id = ticket();
    helpdesk.open(id);
    const created = await createWithReply(id);
    expect(created.delivery).toEqual({ id: expect.any(String), method: 'ticket_reply', status: 'sent' });
    const comments = helpdesk.comments(id);
    expect(comments).toHaveLength(1);
    expect(comments[0]!.public).toBe(true);
    expect(comments[0]!.text).toContain(created.link);
    expect(created.link).toContain('#');
    expect(created.challenge_code).toMatch(/^[0-9]{6}$/);
    expect(comments[0]!.text).not.toContain(created.challenge_code);
    const types = (await auditEntriesOfRequest(service, org.orgId, created.request.id)).map((entry) => entry.type);
    expect(types).toEqual(['request.created', 'request.link_posted']);
  });

  it('ticket_reply repeats a post the helpdesk refused with 503 once, and answers failed (audited, nothing posted) when it refuses again', async () => {
    // The first helpdesk asks for a second's wait, which the repeat sleeps through; the others for
    // none (Retry-After: 0): the repeat is the same use case's for all, and a real wait would cost
    // every helpdesk two seconds.
    const wait = label === VERIFIED_CLOSE_HELPDESKS[0]![0] ? 1 : 0;
    const retried = ticket();
    helpdesk.open(retried);
    helpdesk.failNextReply(503, wait);
    expect((await createWithReply(retried)).delivery).toMatchObject({ status: 'sent' });
    expect(helpdesk.comments(retried)).toHaveLength(1);

    const refused = ticket();
    helpdesk.open(refused);
    helpdesk.failNextReply(503, wait);
    helpdesk.failNextReply(503, wait);
    const created = await createWithReply(refused);
    expect(created.delivery).toEqual({ id: expect.any(String), method: 'ticket_reply', status: 'failed', reason: expect.stringMatching(/unavailable/) });
    expect(created.link).toBeTruthy();
    expect(helpdesk.comments(refused)).toEqual([]);
    const failed = (await auditEntriesOfRequest(service, org.orgId, created.request.id)).find((entry) => entry.type === 'request.link_post_failed');
    expect(failed?.data.details).toMatchObject({ helpdesk: helpdesk.name, failure: 'unavailable', attempts: 2 });
    // Shown in the integration's activity view too, beside the failed reads.
    const [latest] = await integrationActivity(service.deps, org.orgId, integrationId);
    expect(latest).toMatchObject({ url: 'helpdesk', ticket_id: refused });
    expect(latest!.reason).toMatch(/^Posting the request link in the ticket failed/);
    // The refusal's Retry-After holds every call to the helpdesk (helpdesk-wait.test.ts) until it has passed.
    clock.advance(wait * 1000);
  });

  it('ticket_reply answered 200 with a web page, not the API\'s JSON (a sign-in page, a proxy), answers failed with the link, never sent', async () => {
    const id = ticket();
    helpdesk.open(id);
    helpdesk.answerNextReply({ status: 200, raw: '<!doctype html><title>Sign in</title><form action="/login"></form>' });
    const created = await createWithReply(id);
    expect(created.delivery).toEqual({ id: expect.any(String), method: 'ticket_reply', status: 'failed', reason: expect.stringMatching(/not as its API does/) });
    expect(created.link).toBeTruthy();
    expect(helpdesk.comments(id)).toEqual([]);
    const failed = (await auditEntriesOfRequest(service, org.orgId, created.request.id)).find((entry) => entry.type === 'request.link_post_failed');
    expect(failed?.data.details).toMatchObject({ helpdesk: helpdesk.name, failure: 'unexpected_answer', attempts: 1 });
  });

  it('checks a ticket for the operator, and keeps the connection\'s credentials out of every answer and table item', async () => {
    const id = ticket();
    helpdesk.close(id);
    const checked = await checkHelpdeskTicket(service.deps, org.orgId, integrationId, id);
    expect(checked).toMatchObject({ ok: true, helpdesk: helpdesk.name, ticket_id: id, status: 'closed', counts_as_closed: true });
    const items = JSON.stringify(await scanTable(service));
    const answers = JSON.stringify([checked, (await service.call('GET', '/requests', { key: org.key })).body]);
    for (const secret of helpdesk.secrets) {
      expect(items).not.toContain(secret);
      expect(answers).not.toContain(secret);
    }
  });

  // Last, so that it holds every call the tests above made: the contract the adapter tests check, on
  // the requests the service itself sent through its connected adapter.
  it('sent the helpdesk only requests its API contract describes, and the fake answered as the vendor would', () => {
    expect(helpdesk.contractProblems()).toEqual([]);
    const calls = helpdesk.checkedCalls();
    // Jira, ServiceNow, Zammad, Freshdesk, Freshservice, ConnectWise and Autotask send their credentials on every call; Zendesk and Halo first ask for an OAuth token.
    const kinds = helpdesk.fetchesTokens ? ['read', 'reply', 'token'] : ['read', 'reply'];
    const kindsOf = (some: CheckedCall[]) => [...new Set(some.map((call) => call.kind))].sort();
    expect(kindsOf(calls)).toEqual(kinds);
    expect(kindsOf(calls.filter((call) => call.ownSuccess))).toEqual(kinds);
  });
});
