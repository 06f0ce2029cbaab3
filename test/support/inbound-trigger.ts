/**
 * The ground the trigger URL tests share (SPEC.md, Inbound generic ticket webhook, point 2): a
 * test service with one organisation, generic integrations connected (and configured) in it, the
 * post to an integration's trigger URL and the acknowledgement it answers, presets, the requests
 * of a ticket, the outbox's messages and the request.created event of a request. A file calls
 * useTriggerService() before its tests, which fills the bindings below.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';
import { OPERATOR_ACTOR, type PresetDefaults } from '../../lambdas/core/model.ts';
import { configureIntegration, connectIntegration, type IntegrationChanges } from '../../lambdas/core/use-cases/integrations/manage-integration.ts';
import { expectRequest, expectRequestList, type RequestObject } from './shapes.ts';
import { startTestService, type TestOrganisation, type TestService } from './test-service.ts';

export let service: TestService;
export let org: TestOrganisation;
let seq = 0;

/** The service and its organisation (Trigger Org), started before the file's tests and stopped after them. */
export const useTriggerService = () => {
  beforeAll(async () => {
    service = await startTestService();
    org = await service.createOrganisation({ name: 'Trigger Org' });
  });
  afterAll(() => service?.stop());
};

export const ticketId = (prefix = 'INC') => `${prefix}-${Date.now().toString(36)}-${++seq}`;

export interface Connected {
  integrationId: string;
  name: string;
  path: string;
}

/** A generic integration of `on` (default: the test organisation), optionally for one client, optionally configured. */
export const connect = async (options: { on?: TestOrganisation; name?: string; clientId?: string | null; configure?: IntegrationChanges } = {}): Promise<Connected> => {
  const on = options.on ?? org;
  const name = options.name ?? `Helpdesk ${++seq}`;
  const connected = await connectIntegration(service.deps, OPERATOR_ACTOR, { orgId: on.orgId, name, clientId: options.clientId ?? null });
  if (options.configure) await configureIntegration(service.deps, OPERATOR_ACTOR, on.orgId, connected.integration.id, options.configure);
  return { integrationId: connected.integration.id, name, path: new URL(connected.trigger_url).pathname };
};

export const post = (integration: Connected, body: unknown) => service.call('POST', integration.path, { body });

/** A preset with its own slug; the ticket options default to "no requester from the ticket, no fallback". */
export const preset = async (
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
export const quietPreset = (justification: string, on: TestOrganisation = org) =>
  preset({ justification, ttl_minutes: 60, verification_mode: 'none', recipients: [on.owner.email], delivery: { method: 'none' } }, { fallbackRequester: on.owner.email }, on);

export const requestsOfTicket = async (ticket: string, on: TestOrganisation = org): Promise<RequestObject[]> => {
  const answer = await service.call('GET', `/requests?ticket_ref=${encodeURIComponent(ticket)}`, { key: on.key });
  expect(answer.status, answer.text).toBe(200);
  return expectRequestList(answer.body).data;
};

export const onlyRequestOf = async (ticket: string, on: TestOrganisation = org) => {
  const found = await requestsOfTicket(ticket, on);
  expect(found, `exactly one request for ticket ${ticket}`).toHaveLength(1);
  return expectRequest(found[0]);
};

export const ack = (ticket: string | null, slug: string | null, problem: string | null = null) => ({
  accepted: true,
  url: 'trigger',
  ticket_id: ticket,
  preset: slug,
  problem,
});

export const outboxFiles = () => readdirSync(service.outboxDir).filter((name) => name.endsWith('.json')).sort();
const readOutbox = (file: string) => JSON.parse(readFileSync(join(service.outboxDir, file), 'utf8')) as Record<string, any>;
/** The messages written to the outbox since `before` (a list of file names). */
export const newMessages = (before: string[]) => outboxFiles().filter((file) => !before.includes(file)).map(readOutbox);

/** The request.created event of `requestId` in GET /events. */
export const createdEventOf = async (requestId: string, on: TestOrganisation = org) => {
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

export const recipient = (member: { id: string; name: string }) => ({ label: member.name, membership_id: member.id });
