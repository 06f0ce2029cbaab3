/**
 * An integration's trigger URL over real HTTP (SPEC.md, Inbound generic ticket webhook, point 2),
 * which preset and which requester a post creates with: the preset resolved from the post, the
 * integration, the client, the organisation or the policy defaults; the requester from the ticket
 * or the preset's fallback; mapped field positions; and a client-scoped integration creating for
 * its client.
 */
import { describe, expect, it } from 'vitest';
import { OPERATOR_ACTOR, type PresetDefaults } from '../../lambdas/core/model.ts';
import { configureIntegration } from '../../lambdas/core/use-cases/integrations/manage-integration.ts';
import {
  ack,
  connect,
  createdEventOf,
  onlyRequestOf,
  org,
  post,
  preset,
  quietPreset,
  recipient,
  requestsOfTicket,
  service,
  ticketId,
  useTriggerService,
} from '../support/inbound-trigger.ts';

useTriggerService();

describe('trigger URL: the preset and the requester', () => {
  it('resolves the preset: the post\'s, then the integration\'s, the client\'s, the organisation\'s, then policy defaults', async () => {
    const client = await service.admin.createClient(org.orgId, 'Resolution Client');
    const fromPost = await quietPreset('Preset named by the post');
    const fromIntegration = await quietPreset('Preset of the integration');
    const fromClient = await quietPreset('Preset of the client');
    const fromOrg = await quietPreset('Preset of the organisation');
    const integration = await connect({ clientId: client.id, configure: { defaultPreset: fromIntegration } });
    await service.admin.setDefaultPreset(org.orgId, client.id, fromClient);
    await service.admin.setDefaultPreset(org.orgId, null, fromOrg);
    try {
      const check = async (body: Record<string, unknown>, slug: string | null, justification?: string) => {
        const ticket = ticketId();
        const answer = await post(integration, { ticket_id: ticket, subject: { name: 'Jane Doe' }, ...body });
        expect(answer.status, answer.text).toBe(202);
        expect(answer.body).toEqual(ack(ticket, slug));
        const request = await onlyRequestOf(ticket);
        if (justification !== undefined) expect(request.justification, `the preset used for ${slug}`).toBe(justification);
        return { request, ticket };
      };

      await check({ preset: fromPost }, fromPost, 'Preset named by the post');
      await check({}, fromIntegration, 'Preset of the integration');

      await configureIntegration(service.deps, OPERATOR_ACTOR, org.orgId, integration.integrationId, { defaultPreset: null });
      await check({}, fromClient, 'Preset of the client');

      await service.admin.setDefaultPreset(org.orgId, client.id, null);
      await check({}, fromOrg, 'Preset of the organisation');

      await service.admin.setDefaultPreset(org.orgId, null, null);
      const { request, ticket } = await check({ requester_email: org.member.email }, null);
      // Policy defaults: the requester is the only recipient, the justification names the ticket.
      expect(request.requester).toEqual({ membership_id: org.member.id, name: org.member.name, email: org.member.email });
      expect(request.recipients).toEqual([recipient(org.member)]);
      expect(request.justification).toContain(ticket);
      expect(request.ttl_minutes).toBe(1440);
      expect(request.verification_mode).toBe('challenge');
      expect(request.template).toBeNull();
    } finally {
      await service.admin.setDefaultPreset(org.orgId, null, null);
    }
  });

  it('takes the requester from the ticket only when the preset says so, else the fallback', async () => {
    const defaults: PresetDefaults = { justification: 'Requester rules for this ticket', ttl_minutes: 60, verification_mode: 'none', recipients: [org.owner.email], delivery: { method: 'none' } };
    const fromTicket = await preset(defaults, { requesterFromTicket: true, fallbackRequester: org.owner.email });
    const fixed = await preset(defaults, { requesterFromTicket: false, fallbackRequester: org.owner.email });
    const integration = await connect();
    const owner = { membership_id: org.owner.id, name: org.owner.name, email: org.owner.email };
    const member = { membership_id: org.member.id, name: org.member.name, email: org.member.email };

    const created = async (body: Record<string, unknown>) => {
      const ticket = ticketId();
      const answer = await post(integration, { ticket_id: ticket, subject: { name: 'Jane Doe' }, ...body });
      expect(answer.status, answer.text).toBe(202);
      expect(answer.body).toEqual(ack(ticket, body.preset as string));
      return onlyRequestOf(ticket);
    };

    const fromTheTicket = await created({ preset: fromTicket, requester_email: org.member.email });
    expect(fromTheTicket.requester).toEqual(member);
    expect(fromTheTicket.recipients).toEqual([recipient(org.owner), recipient(org.member)]);

    const ticketNamesNone = await created({ preset: fromTicket });
    expect(ticketNamesNone.requester).toEqual(owner);
    expect(ticketNamesNone.recipients).toEqual([recipient(org.owner)]);

    const ignored = await created({ preset: fixed, requester_email: org.member.email });
    expect(ignored.requester, 'requester_email is ignored when the preset does not take it from the ticket').toEqual(owner);
    expect(ignored.recipients).toEqual([recipient(org.owner)]);

    const notAMember = await created({ preset: fromTicket, requester_email: 'agent-without-membership@example.com' });
    expect(notAMember.requester, 'a ticket requester who is not a member falls back').toEqual(owner);
    expect(notAMember.recipients).toEqual([recipient(org.owner)]);
  });

  it('reads mapped field positions', async () => {
    const slug = await quietPreset('Preset for mapped fields');
    const integration = await connect({
      configure: {
        fields: { 'subject.name': ['ticket.requester.name'], 'subject.email': ['ticket.requester.email'] },
        ticketIdPaths: ['ticket.id'],
      },
    });
    const ticket = ticketId('MAP');
    const answer = await post(integration, {
      ticket: { id: ticket, requester: { name: 'Mapped Person', email: 'mapped@example.com' } },
      preset: slug,
      // The default positions are no longer read once mapped.
      ticket_id: 'IGNORED-1',
      subject: { name: 'Not This One', email: 'not-this@example.com' },
    });
    expect(answer.status, answer.text).toBe(202);
    expect(answer.body).toEqual(ack(ticket, slug));
    const request = await onlyRequestOf(ticket);
    expect(request.subject).toEqual({ name: 'Mapped Person', email: 'mapped@example.com', phone: null });
    expect(request.ticket).toEqual({ ref: ticket, url: null, external_id: ticket, integration_id: integration.integrationId, status: null });
    expect(await requestsOfTicket('IGNORED-1')).toEqual([]);
  });

  it('creates the request for the client of a client-scoped integration', async () => {
    const client = await service.admin.createClient(org.orgId, 'Acme Ltd');
    const slug = await quietPreset('Preset for a client integration');
    const integration = await connect({ clientId: client.id, name: 'Acme Helpdesk' });
    const ticket = ticketId('ACME');
    const answer = await post(integration, { ticket_id: ticket, preset: slug, subject: { name: 'Acme Admin' } });
    expect(answer.status, answer.text).toBe(202);
    expect(answer.body).toEqual(ack(ticket, slug));
    const request = await onlyRequestOf(ticket);
    expect(request.client).toEqual({ id: client.id, name: 'Acme Ltd' });
    expect(request.ticket?.integration_id).toBe(integration.integrationId);
    const event = await createdEventOf(request.id);
    expect(event.client_id).toBe(client.id);
    expect(event.data.actor).toEqual({ type: 'system', label: 'Acme Helpdesk' });
  });
});
