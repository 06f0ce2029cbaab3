/**
 * A share's end without its recipient, with a fake clock: expiry through its one-time schedule
 * (the expire worker a schedule or the local timer invokes) and through the sweep alone when the
 * schedule was lost; and ticket statuses: POST /v1/tickets/{ref}/status and an integration's
 * generic webhook URL destroy a live share quoting the ticket on a trusted close (at once, whatever
 * the grace period), list it in `matched.shares` either way, and never match it for
 * `integration_id` or a client-scoped key. Each end is in the audit chain and in the share's
 * certificate, and no item keeps the ciphertext.
 */
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Jwks, SignedCertificate } from '../../lambdas/core/custody/document.ts';
import { verifyCertificateText } from '../../lambdas/core/custody/verify.ts';
import { runVerifier } from '../support/verifier-cli.ts';
import { OPERATOR_ACTOR } from '../../lambdas/core/model.ts';
import type { ExpiryScheduler } from '../../lambdas/core/ports.ts';
import { connectIntegration } from '../../lambdas/core/use-cases/integrations/manage-integration.ts';
import { createHandler as createExpireWorker } from '../../lambdas/workers/expire.ts';
import { SHARE_EXPIRED } from '../../lambdas/core/use-cases/shares/share-lifecycle.ts';
import { createHandler as createSweepWorker } from '../../lambdas/workers/sweep.ts';
import { MemberBrowser } from '../support/member-browser.ts';
import { auditEntries, type AuditItem } from '../support/shapes.ts';
import { createShareAs, type CreatedShare } from '../support/shares.ts';
import { scanTable, startTestService, type TestOrganisation, type TestService } from '../support/test-service.ts';
import { movableClock } from '../support/webhooks.ts';

const MINUTE = 60_000;

type ShareAudit = AuditItem & { shareId?: string | null };
type ShareCertificate = SignedCertificate & { share: any };

/**
 * The expiry scheduler the handlers use: it records what is armed and cancelled, and can be made
 * to fail (a lost schedule), which share creation must survive.
 */
const switchableScheduler = () => {
  const calls: string[] = [];
  const state = { failing: false };
  const scheduler: ExpiryScheduler = {
    schedule: async (id, at) => {
      if (state.failing) throw new Error('scheduler unavailable');
      calls.push(`schedule ${id} ${at}`);
    },
    cancel: async (id) => {
      if (state.failing) throw new Error('scheduler unavailable');
      calls.push(`cancel ${id}`);
    },
  };
  return { calls, state, scheduler };
};

describe('share lifecycle', () => {
  const clock = movableClock();
  const schedules = switchableScheduler();
  let service: TestService;
  let org: TestOrganisation;
  let neighbour: TestOrganisation;
  let tom: MemberBrowser;
  let neighbourOwner: MemberBrowser;
  let ticketsKey: string;
  let clientTicketsKey: string;
  let seq = 0;

  beforeAll(async () => {
    service = await startTestService({ clock, scheduler: schedules.scheduler });
    org = await service.createOrganisation({ name: 'Share Lifecycle Org' });
    neighbour = await service.createOrganisation({ name: 'Neighbour Org' });
    ticketsKey = await service.createKey(org.orgId, { scopes: ['tickets:write'], name: 'Helpdesk sync' });
    clientTicketsKey = await service.createKey(org.orgId, { scopes: ['tickets:write'], clientId: org.defaultClientId, name: 'Client helpdesk' });
    tom = await MemberBrowser.signIn(service, org.member.email);
    neighbourOwner = await MemberBrowser.signIn(service, neighbour.owner.email);
  });
  afterAll(() => service?.stop());

  const setPolicy = (ticket: Record<string, unknown>, orgId = org.orgId) => service.admin.setPolicy(orgId, { ticket: ticket as never });
  const ref = () => `INC-${Date.now()}-${++seq}`;
  const markStatus = (ticketRef: string, status: string, options: { key?: string; body?: Record<string, unknown> } = {}) =>
    service.call('POST', `/tickets/${encodeURIComponent(ticketRef)}/status`, { key: options.key ?? ticketsKey, body: { status, ...options.body } });

  const read = async (id: string) => {
    const answer = await tom.call('GET', `/app/api/shares/${id}`);
    expect(answer.status, answer.text).toBe(200);
    return answer.body;
  };
  const envelopeOf = async (id: string) =>
    (
      await service.deps.db.send(
        new QueryCommand({
          TableName: service.deps.tableName,
          KeyConditionExpression: 'pk = :pk AND sk = :sk',
          ExpressionAttributeValues: { ':pk': `SHARE#${id}`, ':sk': 'MATERIAL#envelope' },
          ConsistentRead: true,
        }),
      )
    ).Items?.[0];
  const entriesOf = async (id: string, orgId = org.orgId) => ((await auditEntries(service, orgId)) as ShareAudit[]).filter((entry) => entry.shareId === id);
  const types = async (id: string) => (await entriesOf(id)).map((entry) => entry.type);

  /** No item of the table holds any piece of the share's envelope. */
  const expectCiphertextGone = async (created: CreatedShare) => {
    expect(await envelopeOf(created.id)).toBeUndefined();
    const items = (await scanTable(service)).map((item) => JSON.stringify(item));
    for (const secret of created.material.secrets) expect(items.filter((item) => item.includes(secret))).toEqual([]);
  };

  /** Each share's last certificate text as served, with the key set it was checked against. */
  const served = new Map<string, { text: string; jwks: Jwks }>();

  const certificateOf = async (id: string, key = org.key): Promise<ShareCertificate> => {
    const answer = await service.call('GET', `/shares/${id}/certificate`, { key });
    expect(answer.status, answer.text).toBe(200);
    const jwks = (await service.call('GET', '/.well-known/jwks.json')).body as Jwks;
    // As the published command checks it: the served text, canonical and signed.
    const outcome = await verifyCertificateText(answer.text, jwks);
    expect(outcome.ok ? 'ok' : outcome.reason).toBe('ok');
    served.set(id, { text: answer.text, jwks });
    return answer.body as ShareCertificate;
  };

  describe('expiry', () => {
    it('the schedule armed at creation fires the expire worker: nothing early, then the ciphertext destroyed with share.expired', async () => {
      const created = await createShareAs(tom, { expires_in_minutes: 5 });
      const expiresAt = created.answer.body.share.expires_at;
      expect(expiresAt).toBe(new Date(clock.now().getTime() + 5 * MINUTE).toISOString());
      expect(schedules.calls.at(-1)).toBe(`schedule ${created.id} ${expiresAt}`);
      const expire = service.asWorker('expire', createExpireWorker(service.deps));

      // An early trigger does nothing.
      clock.set(Date.parse(expiresAt) - 1_000);
      expect(await expire({ requestId: created.id })).toEqual({ requestId: created.id, outcome: 'share_unchanged' });
      expect(await envelopeOf(created.id)).toBeDefined();
      expect(await types(created.id)).toEqual(['share.created']);

      // The schedule fires at its time, as EventBridge Scheduler (locally, the timer) would.
      clock.set(Date.parse(expiresAt) + 1_000);
      expect(await expire({ requestId: created.id })).toEqual({ requestId: created.id, outcome: 'share_expired' });
      await expectCiphertextGone(created);
      expect(await read(created.id)).toMatchObject({ status: 'expired', end_reason: 'expired', ended_at: clock.now().toISOString() });
      const entries = await entriesOf(created.id);
      expect(entries.map((entry) => entry.type)).toEqual(['share.created', 'share.expired']);
      expect(entries[1]).toMatchObject({
        shareId: created.id,
        requestId: null,
        clientId: null,
        occurredAt: clock.now().toISOString(),
        actor: { type: 'system', label: 'expiry' },
        data: { share: { id: created.id, status: 'expired', end_reason: 'expired' }, details: { reason: 'expired' } },
      });
      // A repeated trigger changes nothing; the link is gone for the recipient.
      expect((await expire({ requestId: created.id })).outcome).toBe('share_unchanged');
      expect(await types(created.id)).toEqual(['share.created', 'share.expired']);
      // Told it expired, not "already opened": that would alarm the recipient that someone else had.
      const late = await service.call('POST', '/share/open', { headers: { 'X-Share-Token': created.token } });
      expect([late.status, late.body.code, late.body.message]).toEqual([410, 'gone', SHARE_EXPIRED]);

      const certificate = await certificateOf(created.id);
      expect(certificate).toMatchObject({ final: true, share: { status: 'expired' }, destruction: { destroyed: true, reason: 'expired', seq: entries[1].seq } });
    });

    it('the sweep alone expires a share whose schedule was lost', async () => {
      schedules.state.failing = true;
      const before = schedules.calls.length;
      const created = await createShareAs(tom, { expires_in_minutes: 10 });
      schedules.state.failing = false;
      expect(schedules.calls).toHaveLength(before);
      const sweep = service.asWorker('sweep', createSweepWorker(service.deps));

      clock.advance(9 * MINUTE);
      expect(await sweep()).toMatchObject({ sharesExpired: 0, failed: 0 });
      expect(await envelopeOf(created.id)).toBeDefined();
      clock.advance(MINUTE + 1_000);
      expect((await service.deps.shares.dueBy(clock.now())).ids).toContain(created.id);
      expect(await sweep()).toMatchObject({ sharesExpired: 1, failed: 0 });
      await expectCiphertextGone(created);
      expect(await read(created.id)).toMatchObject({ status: 'expired', end_reason: 'expired' });
      expect(await types(created.id)).toEqual(['share.created', 'share.expired']);
      // Ended shares leave the index: the next sweep finds nothing.
      expect((await service.deps.shares.dueBy(clock.now())).ids).not.toContain(created.id);
      expect(await sweep()).toMatchObject({ sharesExpired: 0 });
    });

    it('purging a share cancels its schedule; an opened-up share is ended, so its late trigger does nothing', async () => {
      const purged = await createShareAs(tom);
      expect((await tom.call('POST', `/app/api/shares/${purged.id}/purge`)).status).toBe(200);
      expect(schedules.calls.at(-1)).toBe(`cancel ${purged.id}`);

      const opened = await createShareAs(tom, { expires_in_minutes: 5 });
      expect((await service.call('POST', '/share/open', { headers: { 'X-Share-Token': opened.token } })).status).toBe(200);
      clock.advance(5 * MINUTE + 1_000);
      expect((await service.asWorker('expire', createExpireWorker(service.deps))({ requestId: opened.id })).outcome).toBe('share_unchanged');
      expect(await types(opened.id)).toEqual(['share.created', 'share.revealed', 'share.purged']);
    });
  });

  describe('POST /v1/tickets/{ref}/status', () => {
    it('a trusted close destroys a live share quoting the ticket, lists it in matched.shares, and its certificate is final with ticket_closed', async () => {
      await setPolicy({ trustUnverifiedWebhooks: true, gracePeriodMinutes: 0, closeStatuses: ['resolved', 'closed'] });
      const ticket = ref();
      const created = await createShareAs(tom, { ticket_ref: ticket });
      const answer = await markStatus(ticket, 'closed');
      expect(answer.status, answer.text).toBe(202);
      expect(answer.body).toMatchObject({
        accepted: true,
        ticket_ref: ticket,
        status: 'closed',
        matched: { ticket_links: 0, requests: [], shares: [created.id] },
        verified: false,
      });
      await expectCiphertextGone(created);
      expect(await read(created.id)).toMatchObject({ status: 'purged', end_reason: 'ticket_closed', ended_at: clock.now().toISOString() });
      const entries = await entriesOf(created.id);
      expect(entries.map((entry) => entry.type)).toEqual(['share.created', 'share.purged']);
      expect(entries[1]).toMatchObject({
        shareId: created.id,
        requestId: null,
        actor: { type: 'api', label: 'Helpdesk sync' },
        data: {
          share: { status: 'purged', end_reason: 'ticket_closed' },
          details: { reason: 'ticket_closed', ticket_ref: ticket, status: 'closed', channel: 'api_key', channel_name: 'Helpdesk sync' },
        },
      });
      const certificate = await certificateOf(created.id);
      expect(certificate).toMatchObject({
        final: true,
        share: { id: created.id, status: 'purged' },
        destruction: { destroyed: true, at: entries[1].occurredAt, reason: 'ticket_closed', seq: entries[1].seq },
      });
      expect(certificate.timeline.map((fact) => [fact.type, fact.reason])).toEqual([
        ['share.created', null],
        ['share.purged', 'ticket_closed'],
      ]);
      expect(certificate.ticket).toMatchObject({ ref: ticket });
      expectNoSecretIn(JSON.stringify(certificate), created);
      // The published verify-custody-certificate command accepts it.
      const run = await runVerifier([served.get(created.id)!.text], served.get(created.id)!.jwks);
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toMatch(new RegExp(`^valid: share ${created.id} .*\\(final\\)`));
      // The share has ended: a later status matches nothing.
      const again = await markStatus(ticket, 'closed');
      expect(again.body.matched).toEqual({ ticket_links: 0, requests: [], shares: [] });
      expect(await types(created.id)).toEqual(['share.created', 'share.purged']);
    });

    it('a trusted close destroys at once whatever the grace period, beside the request it schedules; resolved counts as the policy says', async () => {
      await setPolicy({ trustUnverifiedWebhooks: true, gracePeriodMinutes: 30, closeStatuses: ['resolved', 'closed'] });
      const ticket = ref();
      const created = await createShareAs(tom, { ticket_ref: ticket });
      const request = await service.call('POST', '/requests', {
        key: org.key,
        body: { subject_name: 'Jane Doe', justification: 'Need the VPN admin password', recipients: [org.owner.email], ticket_ref: ticket },
      });
      expect(request.status, request.text).toBe(201);
      const answer = await markStatus(ticket, 'resolved');
      expect(answer.status, answer.text).toBe(202);
      expect(answer.body.matched).toEqual({ ticket_links: 1, requests: [request.body.request.id], shares: [created.id] });
      await expectCiphertextGone(created);
      expect(await read(created.id)).toMatchObject({ status: 'purged', end_reason: 'ticket_closed', purge_scheduled_at: null });

      await setPolicy({ closeStatuses: ['closed'] });
      const kept = await createShareAs(tom, { ticket_ref: ticket });
      const resolved = await markStatus(ticket, 'resolved');
      expect(resolved.body.matched.shares).toEqual([kept.id]);
      expect(await envelopeOf(kept.id)).toBeDefined();
      expect(await read(kept.id)).toMatchObject({ status: 'active' });
      // Open and pending never destroy; the share is listed.
      for (const status of ['open', 'pending']) {
        const answer = await markStatus(ticket, status);
        expect(answer.body.matched.shares).toEqual([kept.id]);
      }
      // Each status it took is on its trail, as on a request's.
      expect(await types(kept.id)).toEqual(['share.created', 'ticket.status_received', 'ticket.status_received', 'ticket.status_received']);
      expect((await entriesOf(kept.id)).slice(1).map((entry) => (entry.data.details as { status: string }).status)).toEqual(['resolved', 'open', 'pending']);
      await setPolicy({ closeStatuses: ['resolved', 'closed'], gracePeriodMinutes: 0 });
    });

    it('a burst of statuses for a ticket a share quotes is recorded on it, each one, as a burst on a request is', async () => {
      const ticket = ref();
      const created = await createShareAs(tom, { ticket_ref: ticket });
      const answers = await Promise.all(Array.from({ length: 8 }, () => markStatus(ticket, 'open')));
      for (const answer of answers) expect(answer.status, answer.text).toBe(202);
      expect((await types(created.id)).filter((type) => type === 'ticket.status_received')).toHaveLength(8);
      expect(await read(created.id)).toMatchObject({ status: 'active' });
    });

    it('with trust-unverified off a close destroys nothing but still lists the share', async () => {
      await setPolicy({ trustUnverifiedWebhooks: false, gracePeriodMinutes: 0 });
      const ticket = ref();
      const created = await createShareAs(tom, { ticket_ref: ticket });
      const answer = await markStatus(ticket, 'closed');
      expect(answer.status, answer.text).toBe(202);
      expect(answer.body.matched).toEqual({ ticket_links: 0, requests: [], shares: [created.id] });
      expect(await envelopeOf(created.id)).toBeDefined();
      expect(await read(created.id)).toMatchObject({ status: 'active', end_reason: null });
      // The untrusted close is on the share's trail, and so on its certificate, which is not final.
      expect(await types(created.id)).toEqual(['share.created', 'ticket.status_received']);
      expect((await entriesOf(created.id)).at(-1)).toMatchObject({
        shareId: created.id,
        actor: { type: 'api' },
        data: { details: { ticket_ref: ticket, status: 'closed', channel: 'api_key', channel_name: 'Helpdesk sync', verified: false, trusted: false, action: 'recorded' } },
      });
      const certificate = await certificateOf(created.id);
      expect(certificate.final).toBe(false);
      expect(JSON.stringify(certificate)).toContain('ticket.status_received');
    });

    it('integration_id or a client-scoped key matches no share, and destroys none', async () => {
      await setPolicy({ trustUnverifiedWebhooks: true, gracePeriodMinutes: 0 });
      const ticket = ref();
      const created = await createShareAs(tom, { ticket_ref: ticket });
      const connected = await connectIntegration(service.deps, OPERATOR_ACTOR, { orgId: org.orgId, name: 'Scoped helpdesk', recipe: null });
      const narrowed = await markStatus(ticket, 'closed', { body: { integration_id: connected.integration.id } });
      expect(narrowed.status, narrowed.text).toBe(202);
      expect(narrowed.body.matched).toEqual({ ticket_links: 0, requests: [], shares: [] });
      const scoped = await markStatus(ticket, 'closed', { key: clientTicketsKey });
      expect(scoped.status, scoped.text).toBe(202);
      expect(scoped.body.matched).toEqual({ ticket_links: 0, requests: [], shares: [] });
      expect(await envelopeOf(created.id)).toBeDefined();
      expect(await types(created.id)).toEqual(['share.created']);
      // integration_id null is no narrowing: the share is matched and destroyed.
      const unnarrowed = await markStatus(ticket, 'closed', { body: { integration_id: null } });
      expect(unnarrowed.body.matched.shares).toEqual([created.id]);
      await expectCiphertextGone(created);
    });

    it("another organisation's share quoting the same reference is never matched", async () => {
      await setPolicy({ trustUnverifiedWebhooks: true, gracePeriodMinutes: 0 });
      await setPolicy({ trustUnverifiedWebhooks: true, gracePeriodMinutes: 0 }, neighbour.orgId);
      const ticket = ref();
      const theirs = await createShareAs(neighbourOwner, { ticket_ref: ticket });
      const ours = await createShareAs(tom, { ticket_ref: ticket });
      const answer = await markStatus(ticket, 'closed');
      expect(answer.body.matched.shares).toEqual([ours.id]);
      expect(await envelopeOf(theirs.id)).toBeDefined();
      expect((await entriesOf(theirs.id, neighbour.orgId)).map((entry) => entry.type)).toEqual(['share.created']);
    });

    it('two live shares quoting one ticket are both destroyed, listed oldest first', async () => {
      await setPolicy({ trustUnverifiedWebhooks: true, gracePeriodMinutes: 0 });
      const ticket = ref();
      const first = await createShareAs(tom, { ticket_ref: ticket });
      const second = await createShareAs(tom, { ticket_ref: ticket, view_limit: 3 });
      const answer = await markStatus(ticket, 'closed');
      expect(answer.body.matched.shares).toEqual([first.id, second.id]);
      await expectCiphertextGone(first);
      await expectCiphertextGone(second);
    });
  });

  describe('the generic inbound webhook URL', () => {
    it('a trusted close posted to the webhook URL destroys a share quoting the ticket id; untrusted it does not', async () => {
      const connected = await connectIntegration(service.deps, OPERATOR_ACTOR, { orgId: org.orgId, name: 'Generic helpdesk', recipe: null });
      const path = new URL(connected.webhook_url).pathname;
      const post = (ticketId: string, status: string) =>
        service.call('POST', path, { rawBody: JSON.stringify({ ticket_id: ticketId, status }), headers: { 'Content-Type': 'application/json' } });

      await setPolicy({ trustUnverifiedWebhooks: false, gracePeriodMinutes: 0 });
      const untrustedTicket = `T-${Date.now()}-${++seq}`;
      const kept = await createShareAs(tom, { ticket_ref: untrustedTicket });
      const ignored = await post(untrustedTicket, 'Closed');
      expect(ignored.status, ignored.text).toBe(202);
      expect(await envelopeOf(kept.id)).toBeDefined();
      expect(await types(kept.id)).toEqual(['share.created', 'ticket.status_received']);
      expect((await entriesOf(kept.id)).at(-1)?.data.details).toMatchObject({ status: 'closed', status_word: 'closed', channel: 'integration', trusted: false, action: 'recorded' });

      await setPolicy({ trustUnverifiedWebhooks: true, gracePeriodMinutes: 0 });
      const ticket = `T-${Date.now()}-${++seq}`;
      const created = await createShareAs(tom, { ticket_ref: ticket });
      const answer = await post(ticket, 'Closed');
      expect(answer.status, answer.text).toBe(202);
      expect(answer.body).toMatchObject({ accepted: true, url: 'webhook', ticket_id: ticket, status: 'closed', problem: null });
      await expectCiphertextGone(created);
      expect(await read(created.id)).toMatchObject({ status: 'purged', end_reason: 'ticket_closed' });
      const entries = await entriesOf(created.id);
      expect(entries.map((entry) => entry.type)).toEqual(['share.created', 'share.purged']);
      expect(entries[1]).toMatchObject({
        actor: { type: 'system', label: 'Generic helpdesk' },
        data: { details: { reason: 'ticket_closed', ticket_ref: ticket, status: 'closed', channel: 'integration', channel_name: 'Generic helpdesk' } },
      });
      expect(await certificateOf(created.id)).toMatchObject({ final: true, destruction: { destroyed: true, reason: 'ticket_closed' } });
      // The untrusted one is still live, and a differently spelled id matches nothing.
      expect(await envelopeOf(kept.id)).toBeDefined();
      const other = await createShareAs(tom, { ticket_ref: `${ticket}-b` });
      expect((await post(ticket.toLowerCase(), 'closed')).status).toBe(202);
      expect(await envelopeOf(other.id)).toBeDefined();
    });
  });

  const expectNoSecretIn = (text: string, created: CreatedShare) => {
    for (const secret of [created.token, created.link, ...created.material.secrets]) expect(text).not.toContain(secret);
  };
});
