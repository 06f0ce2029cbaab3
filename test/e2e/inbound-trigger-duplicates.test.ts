/**
 * An integration's trigger URL over real HTTP (SPEC.md, Inbound generic ticket webhook, point 2),
 * no duplicate request for a ticket: none while the first request is open (even for 20 concurrent
 * posts), another after a revoke or for another preset, and never two live requests when a trigger
 * races the relink of the request it replaces.
 */
import { describe, expect, it } from 'vitest';
import { ack, connect, newMessages, onlyRequestOf, org, outboxFiles, post, preset, quietPreset, requestsOfTicket, service, ticketId, useTriggerService } from '../support/inbound-trigger.ts';
import { auditEntries, requestItemsOf } from '../support/shapes.ts';

useTriggerService();

describe('trigger URL: duplicates', () => {
  it('creates no duplicate while the first request is open; again after a revoke; another for another preset', async () => {
    const slug = await preset(
      { justification: 'Duplicate guard for this ticket', ttl_minutes: 60, verification_mode: 'none', recipients: [org.owner.email], delivery: { method: 'email' } },
      { fallbackRequester: org.owner.email },
    );
    const other = await quietPreset('Another preset for the same ticket');
    const integration = await connect();
    const ticket = ticketId('DUP');
    const body = { ticket_id: ticket, preset: slug, subject: { name: 'Jane Doe', email: 'jane@example.com' } };

    const beforeFirst = outboxFiles();
    expect((await post(integration, body)).body).toEqual(ack(ticket, slug));
    expect(newMessages(beforeFirst)).toHaveLength(1);
    const first = await onlyRequestOf(ticket);

    const beforeSecond = outboxFiles();
    const second = await post(integration, body);
    expect(second.status, second.text).toBe(202);
    expect(second.body).toEqual(ack(ticket, slug));
    expect((await onlyRequestOf(ticket)).id, 'still the first request only').toBe(first.id);
    expect(outboxFiles(), 'the duplicate sends nothing').toEqual(beforeSecond);

    const revoked = await service.call('POST', `/requests/${first.id}/revoke`, { key: org.key });
    expect(revoked.status, revoked.text).toBe(200);
    expect(revoked.body.status).toBe('revoked');

    const third = await post(integration, body);
    expect(third.status, third.text).toBe(202);
    expect(third.body).toEqual(ack(ticket, slug));
    const afterRevoke = await requestsOfTicket(ticket);
    expect(afterRevoke.map((r) => r.status).sort()).toEqual(['pending', 'revoked']);
    const replacement = afterRevoke.find((r) => r.status === 'pending')!;
    expect(replacement.id).not.toBe(first.id);

    const fourth = await post(integration, { ...body, preset: other });
    expect(fourth.status, fourth.text).toBe(202);
    expect(fourth.body).toEqual(ack(ticket, other));
    const all = await requestsOfTicket(ticket);
    expect(all).toHaveLength(3);
    expect(all.filter((r) => r.justification === 'Another preset for the same ticket')).toHaveLength(1);
  });

  it('20 concurrent identical trigger posts create exactly one request', async () => {
    const slug = await quietPreset('Concurrent trigger posts for one ticket');
    const integration = await connect();
    const ticket = ticketId('RACE');
    const body = { ticket_id: ticket, preset: slug, subject: { name: 'Jane Doe' } };

    const answers = await Promise.all(Array.from({ length: 20 }, () => post(integration, body)));
    for (const answer of answers) {
      expect(answer.status, answer.text).toBe(202);
      expect(answer.body).toEqual(ack(ticket, slug));
    }
    const items = (await requestItemsOf(service, org.orgId)).filter((item) => item.ticket?.ref === ticket);
    expect(items, 'one request for the ticket in the table').toHaveLength(1);
    expect((await onlyRequestOf(ticket)).id).toBe(items[0].id);
    const audit = await auditEntries(service, org.orgId);
    expect(audit.filter((entry) => entry.type === 'request.created' && entry.data.request?.ticket?.ref === ticket)).toHaveLength(1);
    expect(audit.filter((entry) => entry.type === 'ticket.trigger_failed' && entry.data.details?.ticket_id === ticket)).toEqual([]);
  });
  it('a trigger racing the relink of the earlier request it replaces never leaves two live requests for the ticket', async () => {
    const slug = await quietPreset('A trigger against a relink');
    const integration = await connect();
    const ticket = ticketId('RELINK');
    const body = { ticket_id: ticket, preset: slug, subject: { name: 'Jane Doe' } };
    expect((await post(integration, body)).status).toBe(202);
    const earlier = await onlyRequestOf(ticket);
    expect((await service.call('POST', `/requests/${earlier.id}/revoke`, { key: org.key })).status).toBe(200);

    // The next trigger reads the earlier request as revoked; the requester relinks it before the trigger creates.
    const requests = service.deps.requests;
    const get = requests.get.bind(requests);
    let relinked = false;
    requests.get = async (id: string) => {
      const read = await get(id);
      if (id === earlier.id && !relinked) {
        relinked = true;
        const answer = await service.call('POST', `/requests/${earlier.id}/relink`, { key: org.key });
        expect(answer.status, answer.text).toBe(200);
      }
      return read;
    };
    try {
      const answer = await post(integration, body);
      expect(answer.status, answer.text).toBe(202);
    } finally {
      requests.get = get;
    }
    expect(relinked).toBe(true);
    const live = (await requestsOfTicket(ticket)).filter((request) => ['pending', 'opened', 'submitted'].includes(request.status));
    expect(live.map((request) => request.id)).toEqual([earlier.id]);
  });
});
