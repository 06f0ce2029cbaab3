/**
 * The trigger URL with a preset that takes the requester from the ticket: a helpdesk sends the
 * requester's address as its agent typed it, the domain often in Unicode, while members are kept
 * with the domain in punycode. The member must be found, not passed over for the fallback.
 */
import { describe, expect, it } from 'vitest';
import { connect, onlyRequestOf, org, post, preset, service, ticketId, useTriggerService } from '../support/inbound-trigger.ts';
import { identityKey } from '../support/test-service.ts';

useTriggerService();

describe('trigger URL: a requester at an internationalised domain', () => {
  it('is the member kept in punycode, not the preset\'s fallback', async () => {
    const nina = await service.admin.addMember({ orgId: org.orgId, name: 'Nina Müller', email: 'nina@müller.de', role: 'member', identityKey: identityKey() });
    const slug = await preset(
      { justification: 'Need the VPN admin password for this ticket', ttl_minutes: 60, verification_mode: 'none', recipients: [org.owner.email], delivery: { method: 'none' } },
      { requesterFromTicket: true, fallbackRequester: org.owner.email },
    );
    const integration = await connect();
    const ticket = ticketId();
    const answer = await post(integration, { ticket_id: ticket, preset: slug, subject: { name: 'Jane Doe' }, requester_email: 'Nina@Müller.de' });
    expect(answer.status, answer.text).toBe(202);
    expect(answer.body.problem).toBeNull();
    expect((await onlyRequestOf(ticket)).requester).toEqual({ membership_id: nina.id, name: 'Nina Müller', email: 'nina@xn--mller-kva.de' });
  });
});
