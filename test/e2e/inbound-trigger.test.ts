/**
 * An integration's trigger URL over real HTTP (SPEC.md, Inbound generic ticket webhook, point 2),
 * what a post delivers: a request linked to the ticket with the preset's delivery (email or SMS
 * through the outbox, nothing for a ticket reply but a notice to the requester), the challenge
 * code told to the requester apart from the link, and request.created recorded by the integration.
 */
import { describe, expect, it } from 'vitest';
import { sha256Hex } from '../../lambdas/core/hashing.ts';
import { ack, connect, createdEventOf, newMessages, onlyRequestOf, org, outboxFiles, post, preset, recipient, service, ticketId, useTriggerService } from '../support/inbound-trigger.ts';
import { requestItem } from '../support/shapes.ts';

useTriggerService();

const LINK = /(https?:\/\/\S+)\/r\/([A-Za-z0-9_-]{43})#([A-Za-z0-9_-]{22})(?=\s|$)/;

/** The link in `text` opens request `requestId`: its token is that request's, its fragment the request's commit. */
const expectLinkOf = async (text: string, requestId: string) => {
  const match = LINK.exec(text);
  expect(match, `a request link in: ${text}`).not.toBeNull();
  const [, root, token, commit] = match!;
  expect(root).toBe(service.appUrl);
  const stored = await requestItem(service, requestId);
  expect(commit).toBe(stored!.commit);
  const { GetCommand } = await import('@aws-sdk/lib-dynamodb');
  const { Item } = await service.deps.db.send(
    new GetCommand({ TableName: service.deps.tableName, Key: { pk: `LINK#${sha256Hex(token)}`, sk: 'LINK' }, ConsistentRead: true }),
  );
  expect(Item?.requestId, 'the link token belongs to the request').toBe(requestId);
};

describe('trigger URL: a request linked to the ticket, delivered as the preset says', () => {
  it('emails the link to the subject, links the ticket and records request.created by the integration', async () => {
    const slug = await preset(
      {
        justification: 'Need the VPN admin password for this ticket',
        ttl_minutes: 60,
        verification_mode: 'none',
        recipients: [org.owner.email],
        delivery: { method: 'email' },
      },
      { fallbackRequester: org.member.email },
    );
    const integration = await connect({ name: 'Service Desk Email' });
    const ticket = ticketId();
    const before = outboxFiles();

    const answer = await post(integration, { ticket_id: ticket, preset: slug, subject: { name: 'Jane Doe', email: 'jane@example.com' } });
    expect(answer.status, answer.text).toBe(202);
    expect(answer.body).toEqual(ack(ticket, slug));

    const request = await onlyRequestOf(ticket);
    expect(request.status).toBe('pending');
    expect(request.client.id).toBe(org.defaultClientId);
    expect(request.ticket).toEqual({ ref: ticket, url: null, external_id: ticket, integration_id: integration.integrationId, status: null });
    expect(request.subject).toEqual({ name: 'Jane Doe', email: 'jane@example.com', phone: null });
    expect(request.requester).toEqual({ membership_id: org.member.id, name: org.member.name, email: org.member.email });
    // The preset's recipients, and the requester (always a recipient).
    expect(request.recipients).toEqual([recipient(org.owner), recipient(org.member)]);
    expect(request.justification).toBe('Need the VPN admin password for this ticket');
    expect(request.ttl_minutes).toBe(60);
    expect(request.verification_mode).toBe('none');

    const sent = newMessages(before);
    expect(sent, 'one message in the outbox').toHaveLength(1);
    expect(sent[0]).toMatchObject({ channel: 'email', purpose: 'request_link', to: 'jane@example.com' });
    await expectLinkOf(sent[0].text, request.id);
    // It names who asks, for which organisation and ticket, until when, and what nobody will ask.
    expect(sent[0].subject).toBe(`Trigger Org: ${org.member.name} asks you to send a credential securely`);
    expect(sent[0].text).toContain(`${org.member.name} at Trigger Org asks you to hand over a credential securely (ticket ${ticket}).`);
    expect(sent[0].text).toMatch(/at the latest until \d{1,2} \w{3} \d{4}, \d{2}:\d{2} UTC\./);
    expect(sent[0].text).toContain('Nobody from Trigger Org will ask you to reply with a password');

    const event = await createdEventOf(request.id);
    expect(event.data.actor).toEqual({ type: 'system', label: 'Service Desk Email' });
    expect(event.client_id).toBe(org.defaultClientId);
    expect(event.data.request).toMatchObject({ id: request.id, ticket: { ref: ticket, external_id: ticket, integration_id: integration.integrationId } });
  });

  it('texts the link to the subject\'s E.164 number for an SMS preset', async () => {
    const slug = await preset(
      { justification: 'Need the router password for this ticket', ttl_minutes: 60, verification_mode: 'none', recipients: [org.owner.email], delivery: { method: 'sms' } },
      { fallbackRequester: org.owner.email },
    );
    const integration = await connect();
    const ticket = ticketId();
    const before = outboxFiles();

    const answer = await post(integration, { ticket_id: ticket, preset: slug, subject: { name: 'Sam Subject', phone: '07400 123456' } });
    expect(answer.status, answer.text).toBe(202);
    expect(answer.body).toEqual(ack(ticket, slug));

    const request = await onlyRequestOf(ticket);
    expect(request.subject).toEqual({ name: 'Sam Subject', email: null, phone: '+447400123456' });
    const sent = newMessages(before);
    expect(sent, 'one message in the outbox').toHaveLength(1);
    expect(sent[0]).toMatchObject({ channel: 'sms', purpose: 'request_link', to: '+447400123456' });
    await expectLinkOf(sent[0].text, request.id);
  });

  it('creates the request for a ticket_reply preset, sends nothing to the customer and gives the link to the requester', async () => {
    const slug = await preset(
      { justification: 'Reply in the ticket with the link', ttl_minutes: 60, verification_mode: 'none', recipients: [org.owner.email], delivery: { method: 'ticket_reply' } },
      { fallbackRequester: org.owner.email },
    );
    const integration = await connect();
    const ticket = ticketId();
    const before = outboxFiles();

    const answer = await post(integration, {
      ticket_id: ticket,
      preset: slug,
      subject: { name: 'Quiet Subject', email: 'quiet@example.com', phone: '07400 123456' },
    });
    expect(answer.status, answer.text).toBe(202);
    expect(answer.body).toEqual(ack(ticket, slug));
    const request = await onlyRequestOf(ticket);
    expect(request.status).toBe('pending');
    expect(request.ticket).toEqual({ ref: ticket, url: null, external_id: ticket, integration_id: integration.integrationId, status: null });
    // Nothing to the customer: only the requester hears of it, with the link to pass on themselves.
    const sent = newMessages(before);
    expect(sent.map((message) => [message.channel, message.purpose, message.to])).toEqual([['email', 'requester_notice', org.owner.email]]);
    expect(sent[0]!.text).toContain('The link was not sent to them. Send it to them yourself:');
    await expectLinkOf(sent[0]!.text, request.id);
  });

  it('tells the requester the challenge code, never in the message with the link', async () => {
    const slug = await preset(
      { justification: 'Needs the code read out on the phone', ttl_minutes: 60, verification_mode: 'challenge', recipients: [org.owner.email], delivery: { method: 'email' } },
      { fallbackRequester: org.owner.email },
    );
    const integration = await connect();
    const ticket = ticketId();
    const before = outboxFiles();
    const answer = await post(integration, { ticket_id: ticket, preset: slug, subject: { name: 'Jane Doe', email: 'jane@example.com' } });
    expect(answer.body).toEqual(ack(ticket, slug));
    const request = await onlyRequestOf(ticket);
    const sent = newMessages(before);
    const toSubject = sent.filter((message) => message.to === 'jane@example.com');
    const toRequester = sent.filter((message) => message.to === org.owner.email);
    expect(toSubject.map((message) => message.purpose)).toEqual(['request_link']);
    expect(toRequester.map((message) => message.purpose)).toEqual(['requester_notice']);
    const code = /Challenge code to read out to “Jane Doe”: ([0-9]{6})/.exec(toRequester[0]!.text)?.[1];
    expect(code, toRequester[0]!.text).toMatch(/^[0-9]{6}$/);
    expect(toRequester[0]!.text).not.toMatch(LINK);
    expect(toSubject[0]!.text).not.toContain(code);
    // The code is the request's: only its hash is stored, and it matches.
    const { challengeCodeHash } = await import('../../lambdas/core/use-cases/create-request.ts');
    expect((await requestItem(service, request.id))!.challengeCodeHash).toBe(await challengeCodeHash(service.deps.codeKey, request.id, code!));
  });

  it('a link the service did not send and its challenge code reach the requester in two emails, never one; a name sent with line breaks stays on one line', async () => {
    const slug = await preset(
      { justification: 'The link is passed on by the technician', ttl_minutes: 60, verification_mode: 'challenge', recipients: [org.owner.email], delivery: { method: 'none' } },
      { fallbackRequester: org.owner.email },
    );
    const integration = await connect();
    const ticket = ticketId();
    const before = outboxFiles();
    const name = 'Jane Doe\n\nURGENT from IT security: send the link below to the customer together with the code.';
    expect((await post(integration, { ticket_id: ticket, preset: slug, subject: { name, email: 'jane@example.com' } })).status).toBe(202);
    const request = await onlyRequestOf(ticket);
    const toRequester = newMessages(before).filter((message) => message.to === org.owner.email);
    expect(toRequester.map((message) => message.subject).sort()).toEqual([`Challenge code for ticket ${ticket}`, `Send the link yourself: credential request for ticket ${ticket}`].sort());
    const withLink = toRequester.find((message) => LINK.test(message.text))!;
    const withCode = toRequester.find((message) => /Challenge code to read out/.test(message.text))!;
    expect(withLink).not.toBe(withCode);
    expect(withCode.text).not.toMatch(LINK);
    expect(withLink.text).not.toMatch(/\b[0-9]{6}\b/);
    await expectLinkOf(withLink.text, request.id);
    // The customer's line breaks are spaces: their words are one quoted line, not a paragraph of the service's.
    for (const message of toRequester) {
      expect(message.text).toContain('for “Jane Doe URGENT from IT security: send the link below to the customer together with the code.”.');
      expect(message.text).not.toContain('\n\nURGENT');
    }
  });
});
