/**
 * An integration's trigger URL over real HTTP (SPEC.md, Inbound generic ticket webhook, point 2),
 * its failures: each answered 202 with the problem, nothing created, a `ticket.trigger_failed`
 * audit entry with the reason and an activity entry (no subject name, an unknown or overlong
 * preset, no requester, a request the create use case refuses, no ticket id, the Free plan).
 */
import { describe, expect, it } from 'vitest';
import { integrationActivity } from '../../lambdas/core/use-cases/integrations/manage-integration.ts';
import { ack, connect, org, outboxFiles, post, preset, quietPreset, service, ticketId, useTriggerService, type Connected } from '../support/inbound-trigger.ts';
import { auditEntries, requestItemsOf } from '../support/shapes.ts';
import type { TestOrganisation } from '../support/test-service.ts';

useTriggerService();

describe('trigger URL: failures', () => {
  /** 202 with a problem, nothing created, a ticket.trigger_failed entry with the reason and an activity entry. */
  const expectFailure = async (
    on: TestOrganisation,
    integration: Connected,
    body: Record<string, unknown>,
    slug: string | null,
    reason: (problem: string) => void,
  ) => {
    const ticket = body.ticket_id as string;
    const answer = await post(integration, body);
    expect(answer.status, answer.text).toBe(202);
    expect(answer.body).toEqual(ack(ticket, slug, expect.any(String) as unknown as string));
    const problem = answer.body.problem as string;
    reason(problem);

    const created = (await requestItemsOf(service, on.orgId)).filter((item) => item.ticket?.ref === ticket);
    expect(created, 'nothing created').toEqual([]);
    const failures = (await auditEntries(service, on.orgId)).filter(
      (entry) => entry.type === 'ticket.trigger_failed' && entry.data.details?.ticket_id === ticket,
    );
    expect(failures).toHaveLength(1);
    expect(failures[0]).toMatchObject({ actor: { type: 'system', label: integration.name }, requestId: null });
    expect(failures[0].data).toEqual({
      actor: { type: 'system', label: integration.name },
      details: { integration_id: integration.integrationId, ticket_id: ticket, preset: slug, reason: problem },
    });

    const activity = await integrationActivity(service.deps, on.orgId, integration.integrationId);
    expect(activity.filter((entry) => entry.ticket_id === ticket)).toEqual([
      { at: expect.any(String), url: 'trigger', reason: problem, ticket_id: ticket, status: null },
    ]);
    return problem;
  };

  it('no subject name', async () => {
    const slug = await quietPreset('Preset for a post without subject');
    const integration = await connect({ name: 'No Name Desk' });
    await expectFailure(org, integration, { ticket_id: ticketId('F'), preset: slug, subject: { email: 'jane@example.com' } }, slug, (problem) =>
      expect(problem).toContain('subject.name'),
    );
  });

  it('an unknown preset slug', async () => {
    const integration = await connect({ name: 'Unknown Preset Desk' });
    await expectFailure(org, integration, { ticket_id: ticketId('F'), preset: 'no-such-preset', subject: { name: 'Jane Doe' } }, 'no-such-preset', (problem) =>
      expect(problem).toContain('no-such-preset'),
    );
  });

  it('no requester: a preset without one, and policy defaults without requester_email', async () => {
    const noRequester = await preset(
      { justification: 'A preset that names no requester', ttl_minutes: 60, verification_mode: 'none', recipients: [org.owner.email], delivery: { method: 'none' } },
      { requesterFromTicket: false, fallbackRequester: null },
    );
    const integration = await connect({ name: 'No Requester Desk' });
    // The requester_email sent is named, and why this preset did not use it.
    await expectFailure(org, integration, { ticket_id: ticketId('F'), preset: noRequester, subject: { name: 'Jane Doe' }, requester_email: org.member.email }, noRequester, (problem) =>
      expect(problem).toBe(
        `No requester: preset ${noRequester} has no fallback requester. requester_email (${org.member.email}) was not used: the preset does not take the requester from the ticket.`,
      ),
    );
    const fromTicket = await preset(
      { justification: 'A preset that takes the requester from the ticket', ttl_minutes: 60, verification_mode: 'none', recipients: [org.owner.email], delivery: { method: 'none' } },
      { requesterFromTicket: true, fallbackRequester: null },
    );
    await expectFailure(org, integration, { ticket_id: ticketId('F'), preset: fromTicket, subject: { name: 'Jane Doe' } }, fromTicket, (problem) =>
      expect(problem).toContain('requester_email'),
    );
    // Policy defaults (no preset anywhere) need requester_email.
    await expectFailure(org, integration, { ticket_id: ticketId('F'), subject: { name: 'Jane Doe' } }, null, (problem) =>
      expect(problem).toContain('requester_email'),
    );
  });

  it('a request the create use case refuses names the field', async () => {
    const slug = await preset(
      { justification: 'Emails the link to the subject', ttl_minutes: 60, verification_mode: 'none', recipients: [org.owner.email], delivery: { method: 'email' } },
      { fallbackRequester: org.owner.email },
    );
    const integration = await connect({ name: 'Refused Desk' });
    const before = outboxFiles();
    await expectFailure(org, integration, { ticket_id: ticketId('F'), preset: slug, subject: { name: 'Jane Doe' } }, slug, (problem) =>
      expect(problem).toContain('subject_email'),
    );
    const sms = await preset(
      { justification: 'Texts the link to the subject', ttl_minutes: 60, verification_mode: 'none', recipients: [org.owner.email], delivery: { method: 'sms' } },
      { fallbackRequester: org.owner.email },
    );
    await expectFailure(org, integration, { ticket_id: ticketId('F'), preset: sms, subject: { name: 'Jane Doe', email: 'jane@example.com' } }, sms, (problem) =>
      expect(problem).toContain('subject_phone'),
    );
    expect(outboxFiles()).toEqual(before);
  });

  it('a post with no ticket id is a failed trigger too: audited with the reason', async () => {
    const integration = await connect({ name: 'No Ticket Desk' });
    const answer = await post(integration, { subject: { name: 'Jane Doe' } });
    expect(answer.status, answer.text).toBe(202);
    expect(answer.body).toEqual(ack(null, null, 'No ticket id at ticket_id.'));
    const failures = (await auditEntries(service, org.orgId)).filter(
      (entry) => entry.type === 'ticket.trigger_failed' && entry.data.details?.integration_id === integration.integrationId,
    );
    expect(failures.map((entry) => entry.data.details)).toEqual([
      { integration_id: integration.integrationId, ticket_id: null, preset: null, reason: 'No ticket id at ticket_id.' },
    ]);
  });

  it('a preset slug longer than 40 characters creates nothing (and never reaches the table as a key)', async () => {
    const integration = await connect({ name: 'Long Preset Desk' });
    const ticket = ticketId('F');
    const answer = await post(integration, { ticket_id: ticket, preset: 'p'.repeat(1100), subject: { name: 'Jane Doe' } });
    expect(answer.status, answer.text).toBe(202);
    expect(answer.body).toMatchObject({ ticket_id: ticket, preset: null, problem: 'The preset is longer than 40 characters.' });
    expect((await requestItemsOf(service, org.orgId)).filter((item) => item.ticket?.ref === ticket)).toEqual([]);
  });

  it('the Free plan creates nothing and says why', async () => {
    const free = await service.createOrganisation({ name: 'Free Org' });
    const slug = await quietPreset('A preset on the Free plan', free);
    const integration = await connect({ on: free, name: 'Free Desk' });
    await service.admin.setPlan(free.orgId, 'free');
    await expectFailure(free, integration, { ticket_id: ticketId('F'), preset: slug, subject: { name: 'Jane Doe' } }, slug, (problem) =>
      expect(problem.toLowerCase()).toContain('plan'),
    );
    expect((await requestItemsOf(service, free.orgId)).length).toBe(0);
  });
});
