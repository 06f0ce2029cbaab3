/**
 * An integration's trigger URL over real HTTP (SPEC.md, Inbound generic ticket webhook, point 2):
 * a post creates a request linked to the ticket with the preset's delivery (email or SMS through
 * the outbox, nothing for a ticket reply), the preset resolved from the post, the integration,
 * the client, the organisation or the policy defaults, the requester from the ticket or the
 * preset's fallback, mapped field positions, no duplicate while the first request is open (even
 * for 20 concurrent posts), a client-scoped integration creating for its client, and every
 * failure answered 202 with the problem, a `ticket.trigger_failed` audit entry and an activity
 * entry.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256Hex } from '../../lambdas/core/hashing.ts';
import { OPERATOR_ACTOR, type PresetDefaults } from '../../lambdas/core/model.ts';
import {
  configureIntegration,
  connectIntegration,
  integrationActivity,
  type IntegrationChanges,
} from '../../lambdas/core/use-cases/integrations/manage-integration.ts';
import { auditEntries, expectRequest, expectRequestList, requestItem, requestItemsOf, type RequestObject } from '../support/shapes.ts';
import { startTestService, type TestOrganisation, type TestService } from '../support/test-service.ts';

let service: TestService;
let org: TestOrganisation;
let seq = 0;

beforeAll(async () => {
  service = await startTestService();
  org = await service.createOrganisation({ name: 'Trigger Org' });
});
afterAll(() => service?.stop());

const ticketId = (prefix = 'INC') => `${prefix}-${Date.now().toString(36)}-${++seq}`;

interface Connected {
  integrationId: string;
  name: string;
  path: string;
}

/** A generic integration of `on` (default: the test organisation), optionally for one client, optionally configured. */
const connect = async (options: { on?: TestOrganisation; name?: string; clientId?: string | null; configure?: IntegrationChanges } = {}): Promise<Connected> => {
  const on = options.on ?? org;
  const name = options.name ?? `Helpdesk ${++seq}`;
  const connected = await connectIntegration(service.deps, OPERATOR_ACTOR, { orgId: on.orgId, name, clientId: options.clientId ?? null });
  if (options.configure) await configureIntegration(service.deps, OPERATOR_ACTOR, on.orgId, connected.integration.id, options.configure);
  return { integrationId: connected.integration.id, name, path: new URL(connected.trigger_url).pathname };
};

const post = (integration: Connected, body: unknown) => service.call('POST', integration.path, { body });

/** A preset with its own slug; the ticket options default to "no requester from the ticket, no fallback". */
const preset = async (
  defaults: PresetDefaults,
  ticket: { requesterFromTicket?: boolean; fallbackRequester?: string | null } = {},
  on: TestOrganisation = org,
) => {
  const slug = `p-${Date.now().toString(36)}-${++seq}`;
  await service.admin.savePreset(on.orgId, slug, `Preset ${slug}`, defaults, {
    requesterFromTicket: ticket.requesterFromTicket ?? false,
    fallbackRequester: ticket.fallbackRequester ?? null,
  });
  return slug;
};

/** A preset that creates without sending (delivery none), with the owner as the fallback requester. */
const quietPreset = (justification: string, on: TestOrganisation = org) =>
  preset({ justification, ttl_minutes: 60, verification_mode: 'none', recipients: [on.owner.email], delivery: { method: 'none' } }, { fallbackRequester: on.owner.email }, on);

const requestsOfTicket = async (ticket: string, on: TestOrganisation = org): Promise<RequestObject[]> => {
  const answer = await service.call('GET', `/requests?ticket_ref=${encodeURIComponent(ticket)}`, { key: on.key });
  expect(answer.status, answer.text).toBe(200);
  return expectRequestList(answer.body).data;
};

const onlyRequestOf = async (ticket: string, on: TestOrganisation = org) => {
  const found = await requestsOfTicket(ticket, on);
  expect(found, `exactly one request for ticket ${ticket}`).toHaveLength(1);
  return expectRequest(found[0]);
};

const ack = (ticket: string | null, slug: string | null, problem: string | null = null) => ({
  accepted: true,
  url: 'trigger',
  ticket_id: ticket,
  preset: slug,
  problem,
});

const outboxFiles = () => readdirSync(service.outboxDir).filter((name) => name.endsWith('.json')).sort();
const readOutbox = (file: string) => JSON.parse(readFileSync(join(service.outboxDir, file), 'utf8')) as Record<string, any>;
/** The messages written to the outbox since `before` (a list of file names). */
const newMessages = (before: string[]) => outboxFiles().filter((file) => !before.includes(file)).map(readOutbox);

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

/** The request.created event of `requestId` in GET /events. */
const createdEventOf = async (requestId: string, on: TestOrganisation = org) => {
  const events: any[] = [];
  let since = '0';
  for (;;) {
    const answer = await service.call('GET', `/events?types=request.created&limit=200&since=${since}`, { key: on.key });
    expect(answer.status, answer.text).toBe(200);
    events.push(...answer.body.data);
    if (!answer.body.has_more) break;
    since = answer.body.next_cursor;
  }
  const matching = events.filter((event) => event.data.request?.id === requestId);
  expect(matching, `one request.created event for ${requestId}`).toHaveLength(1);
  return matching[0];
};

const recipient = (member: { id: string; name: string }) => ({ label: member.name, membership_id: member.id });

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
