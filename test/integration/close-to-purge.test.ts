/**
 * Close-to-purge over real HTTP with a fake clock: POST /v1/tickets/{ref}/status and an
 * integration's webhook URL drive submitted requests to completion (at once, or when the grace
 * period ends, through the purge worker and the sweep), a reopen inside the window cancels, an
 * untrusted status never destroys, unsubmitted requests are revoked only under the policy; all
 * of it in the audit chain and the event feed, and no item holds the credential afterwards.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectIntegration } from '../../lambdas/core/use-cases/integrations/manage-integration.ts';
import { OPERATOR_ACTOR } from '../../lambdas/core/model.ts';
import { createHandler as createPurgeWorker } from '../../lambdas/workers/purge.ts';
import { createHandler as createSweepWorker } from '../../lambdas/workers/sweep.ts';
import { auditEntriesOfRequest, expectCreationResult, materialItems, requestItem, type RequestObject } from '../support/shapes.ts';
import { scanTable, startTestService, type TestOrganisation, type TestService } from '../support/test-service.ts';
import { recordingScheduler } from '../support/schedulers.ts';
import { submitAsSubject } from '../support/submission.ts';
import { movableClock } from '../support/webhooks.ts';

const MINUTE = 60_000;
/** Each request's stand-in ciphertext names it, so a leftover can be traced to its request. */
const sealedOf = (requestId: string) => `sealed-credential-of-${requestId}`;

describe('close-to-purge', () => {
  const clock = movableClock();
  const purges = recordingScheduler();
  let service: TestService;
  let org: TestOrganisation;
  let ticketsKey: string;
  let seq = 0;

  beforeAll(async () => {
    service = await startTestService({ clock, purgeScheduler: purges.scheduler });
    org = await service.createOrganisation({ name: 'Ticket Org' });
    ticketsKey = await service.createKey(org.orgId, { scopes: ['tickets:write'], name: 'Helpdesk sync' });
  });
  afterAll(() => service?.stop());

  const setPolicy = (ticket: Record<string, unknown>) => service.admin.setPolicy(org.orgId, { ticket: ticket as never });

  const create = async (ticketRef: string, extra: Record<string, unknown> = {}): Promise<RequestObject> => {
    const answer = await service.call('POST', '/requests', {
      key: org.key,
      body: { subject_name: 'Jane Doe', justification: 'Need the VPN admin password', recipients: [org.owner.email], ticket_ref: ticketRef, ...extra },
    });
    expect(answer.status, answer.text).toBe(201);
    return expectCreationResult(answer.body).request;
  };

  /** Submitted as the subject's browser would: the request and its ciphertext in one transaction. */
  const submitted = async (ticketRef: string, extra: Record<string, unknown> = {}) => {
    const created = await create(ticketRef, extra);
    await submitAsSubject(service, created.id, clock, {
      envelope: { v: 1, ciphertext: sealedOf(created.id), recipients: [] },
      attachments: [{ iv: 'aXY', ciphertext: sealedOf(created.id) }],
    });
    expect(await materialItems(service, created.id)).toHaveLength(2);
    return created;
  };

  const ref = () => `INC-${Date.now()}-${++seq}`;
  const markStatus = (ticketRef: string, status: string, body: Record<string, unknown> = {}) =>
    service.call('POST', `/tickets/${encodeURIComponent(ticketRef)}/status`, { key: ticketsKey, body: { status, ...body } });
  const read = async (id: string) => (await service.call('GET', `/requests/${id}`, { key: org.key })).body as RequestObject;
  const types = async (id: string) => (await auditEntriesOfRequest(service, org.orgId, id)).map((entry) => entry.type);

  /** No item anywhere in the table carries the request's sealed credential. */
  const expectNoCredentialLeft = async (requestId: string) => {
    const items = await scanTable(service);
    expect(items.filter((item) => JSON.stringify(item).includes(sealedOf(requestId)))).toEqual([]);
  };

  it('an untrusted close (the default policy) records the status and destroys nothing', async () => {
    await setPolicy({ trustUnverifiedWebhooks: false, gracePeriodMinutes: 0 });
    const ticket = ref();
    const request = await submitted(ticket);
    const answer = await markStatus(ticket, 'closed');
    expect(answer.status, answer.text).toBe(202);
    expect(answer.body).toEqual({
      accepted: true,
      ticket_ref: ticket,
      status: 'closed',
      matched: { ticket_links: 1, requests: [request.id], shares: [] },
      verified: false,
      note: 'Recorded the status on 1 request; nothing was destroyed because the organisation does not trust unverified ticket statuses (the ticket policy\u2019s trust_unverified_webhooks, \u201cTrust unverified ticket webhooks\u201d in the application, is off).',
    });
    const shown = await read(request.id);
    expect(shown).toMatchObject({ status: 'submitted', purge_reason: null, ticket: { ref: ticket, status: 'closed' } });
    expect(await materialItems(service, request.id)).toHaveLength(2);
    const entries = await auditEntriesOfRequest(service, org.orgId, request.id);
    expect(entries.at(-1)).toMatchObject({
      type: 'ticket.status_received',
      actor: { type: 'api', label: 'Helpdesk sync' },
      data: { details: { ticket_ref: ticket, status: 'closed', channel: 'api_key', channel_name: 'Helpdesk sync', verified: false, trusted: false, action: 'recorded' } },
    });
  });

  it('a trusted close with no grace period purges at once: completed, ticket_closed, material gone, in the chain and the feed', async () => {
    await setPolicy({ trustUnverifiedWebhooks: true, gracePeriodMinutes: 0 });
    const ticket = ref();
    const request = await submitted(ticket);
    const answer = await markStatus(ticket, 'resolved');
    expect(answer.status, answer.text).toBe(202);
    expect(answer.body.matched).toEqual({ ticket_links: 1, requests: [request.id], shares: [] });
    expect(answer.body.note).toBe('Destroyed the stored credential of 1 request and completed it.');
    const shown = await read(request.id);
    expect(shown).toMatchObject({ status: 'completed', purge_reason: 'ticket_closed', purge_scheduled_at: null, ticket: { status: 'resolved' } });
    expect(shown.completed_at).toBe(clock.now().toISOString());
    expect(await materialItems(service, request.id)).toEqual([]);
    expect(await types(request.id)).toEqual(['request.created', 'request.submitted', 'ticket.status_received', 'request.completed']);
    const feed = await service.call('GET', '/events?types=request.completed', { key: org.key });
    const event = feed.body.data.find((e: { data: { request: { id: string } } }) => e.data.request.id === request.id);
    expect(event).toMatchObject({ type: 'request.completed', data: { details: { purge_reason: 'ticket_closed', channel: 'api_key' }, request: { status: 'completed' } } });
    await expectNoCredentialLeft(request.id);
    // Completed requests are left alone by later statuses.
    const again = await markStatus(ticket, 'open');
    expect(again.body.matched).toEqual({ ticket_links: 1, requests: [], shares: [] });
    expect(again.body.note).toBe('Every request linked to this ticket has already ended, so nothing changed.');
  });

  it('with a grace period the purge is scheduled, a reopen inside the window cancels it, and the purge fires at the end', async () => {
    await setPolicy({ trustUnverifiedWebhooks: true, gracePeriodMinutes: 30 });
    const ticket = ref();
    const request = await submitted(ticket);
    const closedAt = clock.now().getTime();
    const first = await markStatus(ticket, 'closed');
    const purgeAt = new Date(closedAt + 30 * MINUTE).toISOString();
    expect(first.body.note).toBe(`Scheduled the destruction of 1 request at ${purgeAt} (the grace period).`);
    expect((await read(request.id)).purge_scheduled_at).toBe(purgeAt);
    expect(purges.calls.at(-1)).toBe(`schedule ${request.id} ${purgeAt}`);
    expect((await requestItem(service, request.id))!.gsi5sk).toBe(`${purgeAt}#${request.id}`);

    clock.advance(10 * MINUTE);
    const reopened = await markStatus(ticket, 'open');
    expect(reopened.body.note).toBe('Cancelled the scheduled destruction of 1 request.');
    expect((await read(request.id))).toMatchObject({ status: 'submitted', purge_scheduled_at: null, ticket: { status: 'open' } });
    expect(purges.calls.at(-1)).toBe(`cancel ${request.id}`);
    // A stale trigger of the cancelled schedule does nothing.
    clock.advance(25 * MINUTE);
    const purge = service.asWorker('purge', createPurgeWorker(service.deps));
    expect(await purge({ requestId: request.id })).toEqual({ requestId: request.id, outcome: 'not_scheduled' });

    // Closed again: a new window from now; the worker does nothing early and purges at the end.
    const secondClose = clock.now().getTime();
    await markStatus(ticket, 'closed');
    const secondAt = new Date(secondClose + 30 * MINUTE).toISOString();
    expect((await read(request.id)).purge_scheduled_at).toBe(secondAt);
    clock.set(secondClose + 30 * MINUTE - 1_000);
    expect(await purge({ requestId: request.id })).toEqual({ requestId: request.id, outcome: 'not_due' });
    expect(await materialItems(service, request.id)).toHaveLength(2);
    clock.set(secondClose + 30 * MINUTE + 1_000);
    expect(await purge({ requestId: request.id })).toEqual({ requestId: request.id, outcome: 'purged' });
    expect(await read(request.id)).toMatchObject({ status: 'completed', purge_reason: 'ticket_closed', purge_scheduled_at: null });
    expect(await materialItems(service, request.id)).toEqual([]);
    expect(await types(request.id)).toEqual([
      'request.created',
      'request.submitted',
      'ticket.status_received',
      'request.purge_scheduled',
      'ticket.status_received',
      'request.purge_cancelled',
      'ticket.status_received',
      'request.purge_scheduled',
      'request.completed',
    ]);
    const completed = (await auditEntriesOfRequest(service, org.orgId, request.id)).at(-1)!;
    expect(completed.actor).toEqual({ type: 'system', label: 'ticket grace period' });
    expect(completed.data.details).toEqual({ purge_reason: 'ticket_closed', grace_period_ended: true });
    expect(await purge({ requestId: request.id })).toEqual({ requestId: request.id, outcome: 'ended' });
    await expectNoCredentialLeft(request.id);
  });

  it('the sweep purges a request whose purge schedule was lost', async () => {
    await setPolicy({ trustUnverifiedWebhooks: true, gracePeriodMinutes: 15 });
    const ticket = ref();
    const request = await submitted(ticket);
    await markStatus(ticket, 'closed');
    const sweep = service.asWorker('sweep', createSweepWorker(service.deps));
    expect((await sweep()).purged).toBe(0);
    clock.advance(16 * MINUTE);
    expect(await sweep()).toMatchObject({ purged: 1, failed: 0 });
    expect(await read(request.id)).toMatchObject({ status: 'completed', purge_reason: 'ticket_closed' });
    expect(await materialItems(service, request.id)).toEqual([]);
  });

  it('a pending request is revoked on a trusted close only when the policy says so', async () => {
    await setPolicy({ trustUnverifiedWebhooks: true, gracePeriodMinutes: 0, revokeUnsubmittedOnClose: false });
    const kept = ref();
    const pending = await create(kept);
    expect((await markStatus(kept, 'closed')).body.note).toBe('Recorded the status on 1 request.');
    expect(await read(pending.id)).toMatchObject({ status: 'pending', ticket: { status: 'closed' } });

    await setPolicy({ revokeUnsubmittedOnClose: true });
    const revokedTicket = ref();
    const other = await create(revokedTicket);
    const answer = await markStatus(revokedTicket, 'closed');
    expect(answer.body.note).toBe('Revoked 1 request not yet submitted.');
    expect(await read(other.id)).toMatchObject({ status: 'revoked', revoked_reason: 'ticket_closed' });
    expect(await types(other.id)).toEqual(['request.created', 'ticket.status_received', 'request.revoked']);
    await setPolicy({ revokeUnsubmittedOnClose: false });
  });

  it('a burst of 16 concurrent statuses for one ticket all answer 202, each audited once', async () => {
    await setPolicy({ trustUnverifiedWebhooks: false });
    const ticket = ref();
    const request = await create(ticket);
    const answers = await Promise.all(Array.from({ length: 16 }, (_, i) => markStatus(ticket, i % 2 ? 'pending' : 'open')));
    expect(answers.map((answer) => answer.status)).toEqual(Array(16).fill(202));
    const received = (await types(request.id)).filter((type) => type === 'ticket.status_received');
    expect(received).toHaveLength(16);
  });

  it('resolved does not close when the policy counts only closed', async () => {
    await setPolicy({ trustUnverifiedWebhooks: true, gracePeriodMinutes: 0, closeStatuses: ['closed'] });
    const ticket = ref();
    const request = await submitted(ticket);
    const answer = await markStatus(ticket, 'resolved');
    expect(answer.body.note).toBe("Recorded the status on 1 request; the organisation's policy does not count resolved as closed, so nothing was destroyed.");
    expect((await read(request.id)).status).toBe('submitted');
    await setPolicy({ closeStatuses: ['resolved', 'closed'] });
  });

  it("an integration's webhook URL closes its tickets: a trusted close purges, with the integration as the channel", async () => {
    await setPolicy({ trustUnverifiedWebhooks: true, gracePeriodMinutes: 0 });
    const connected = await connectIntegration(service.deps, OPERATOR_ACTOR, { orgId: org.orgId, name: 'Zendesk', recipe: 'zendesk' });
    const ticket = `${Date.now()}`;
    const request = await submitted(ticket, { ticket_integration_id: connected.integration.id, ticket_external_id: ticket });
    const path = new URL(connected.webhook_url).pathname;
    const answer = await service.call('POST', path, { rawBody: JSON.stringify({ ticket: { id: ticket, status: 'Solved' } }), headers: { 'Content-Type': 'application/json' } });
    expect(answer.status, answer.text).toBe(202);
    expect(answer.body).toEqual({ accepted: true, url: 'webhook', ticket_id: ticket, status: 'resolved', status_received: 'solved', problem: null });
    expect(await read(request.id)).toMatchObject({ status: 'completed', purge_reason: 'ticket_closed', ticket: { status: 'resolved', integration_id: connected.integration.id } });
    const entries = await auditEntriesOfRequest(service, org.orgId, request.id);
    expect(entries.at(-2)).toMatchObject({
      type: 'ticket.status_received',
      actor: { type: 'system', label: 'Zendesk' },
      data: { details: { channel: 'integration', channel_name: 'Zendesk', trusted: true, status_word: 'solved' } },
    });
    await expectNoCredentialLeft(request.id);
  });
});
