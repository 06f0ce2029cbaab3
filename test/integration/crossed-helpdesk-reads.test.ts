/**
 * Two reads of one ticket's helpdesk whose answers cross, in two processes: the newer read (open)
 * finds the status the request holds and only notes its time; the older one (closed), which took
 * its copy of the request before that note, must lose its write (the read time it replaces is no
 * longer the one held), be read again, and be dropped as older, on the real table.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATOR_ACTOR } from '../../lambdas/core/model.ts';
import { connectIntegration } from '../../lambdas/core/use-cases/integrations/manage-integration.ts';
import { applyTicketStatus, type TicketStatusDeps, type TicketStatusInput } from '../../lambdas/core/use-cases/tickets/apply-ticket-status.ts';
import { expectCreationResult, requestItem } from '../support/shapes.ts';
import { startTestService, type TestOrganisation, type TestService } from '../support/test-service.ts';

let service: TestService;
let org: TestOrganisation;
let integrationId: string;

beforeAll(async () => {
  service = await startTestService();
  org = await service.createOrganisation({ name: 'Crossed Reads Org' });
  integrationId = (await connectIntegration(service.deps, OPERATOR_ACTOR, { orgId: org.orgId, name: 'Desk' })).integration.id;
});
afterAll(() => service?.stop());

describe('crossed helpdesk reads of one ticket', () => {
  it('an older close read that took its copy before a newer open read noted its time changes nothing', async () => {
    const created = await service.call('POST', '/requests', {
      key: org.key,
      body: { subject_name: 'Jane Doe', justification: 'Need the VPN admin password', recipients: [org.owner.email], ticket_integration_id: integrationId, ticket_external_id: 'T-1' },
    });
    expect(created.status, created.text).toBe(201);
    const id = expectCreationResult(created.body).request.id;
    const organisation = (await service.deps.directory.getOrganisation(org.orgId))!;
    const now = Date.now();
    const at = (seconds: number) => new Date(now + seconds * 1000).toISOString();
    const read = (status: 'open' | 'closed', readAt: string): TicketStatusInput => ({
      org: organisation,
      ref: 'T-1',
      status,
      verified: true,
      verification: { helpdesk: 'zendesk', readAt, vendorStatus: status },
      channel: { kind: 'helpdesk', name: 'Desk', actor: { type: 'system', label: 'Desk' }, integrationId },
      onlyIntegration: integrationId,
      clientId: null,
    });
    const deps = (requests: TicketStatusDeps['requests'] = service.deps.requests): TicketStatusDeps => ({
      requests,
      clock: service.deps.clock,
      urls: service.deps.urls,
      scheduler: { schedule: async () => undefined, cancel: async () => undefined },
    });

    await applyTicketStatus(deps(), read('open', at(0)));
    // The close read's process takes its copy now, and answers late.
    const staleCopy = (await service.deps.requests.get(id))!;
    await applyTicketStatus(deps(), read('open', at(2)));
    expect((await requestItem(service, id))!.ticket).toMatchObject({ status: 'open', statusReadAt: at(2) });

    let handedStale = false;
    const stale: TicketStatusDeps['requests'] = {
      get: (requestId) => service.deps.requests.get(requestId),
      update: (...args) => service.deps.requests.update(...args),
      noteTicketRead: (...args) => service.deps.requests.noteTicketRead(...args),
      findByTicket: async (orgId, ref) => (handedStale ? service.deps.requests.findByTicket(orgId, ref) : ((handedStale = true), [staleCopy])),
    };
    const outcome = await applyTicketStatus(deps(stale), read('closed', at(1)));
    expect(outcome.changed).toEqual([]);
    const item = (await requestItem(service, id))!;
    expect(item.ticket).toMatchObject({ status: 'open', statusVerified: true, statusReadAt: at(2) });
    expect(item.version).toBe(staleCopy.version);
  });
});
