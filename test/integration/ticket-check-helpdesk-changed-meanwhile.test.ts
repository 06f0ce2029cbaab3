/**
 * A ticket check reads a linked ticket through the integration's helpdesk and applies the answer
 * as verified. A helpdesk connection changed while the read was under way (disconnected, or
 * connected to another helpdesk, whose ticket of that id is another ticket) must not have the old
 * connection's answer destroy a credential after the change: the read is judged by the
 * connection that stands when it is written.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { OPERATOR_ACTOR } from '../../lambdas/core/model.ts';
import type { HelpdeskConnector } from '../../lambdas/core/helpdesk.ts';
import { connectHelpdesk } from '../../lambdas/core/use-cases/integrations/connect-helpdesk.ts';
import { connectIntegration } from '../../lambdas/core/use-cases/integrations/manage-integration.ts';
import { verifyTicket } from '../../lambdas/core/use-cases/tickets/verify-ticket.ts';
import { auditEntries, expectCreationResult, requestItem } from '../support/shapes.ts';
import { submitAsSubject } from '../support/submission.ts';
import { systemClock } from '../../lambdas/core/clock.ts';
import { startTestService, type TestOrganisation, type TestService } from '../support/test-service.ts';

let service: TestService;
let org: TestOrganisation;

beforeAll(async () => {
  service = await startTestService({ allowLoopbackWebhooks: true });
  org = await service.createOrganisation();
  await service.admin.setPolicy(org.orgId, { ticket: { gracePeriodMinutes: 0 } });
});
afterAll(() => service?.stop());

const connectTo = (integrationId: string, url: string) =>
  connectHelpdesk(service.deps, OPERATOR_ACTOR, org.orgId, integrationId, { adapter: 'zendesk', url, credentials: { client_id: 'client-id-0123456789', client_secret: 'client-secret-0123456789abcdef' } });

/** Helpdesks by address: the first one's tickets are solved, any other's open; `meanwhile` runs while a ticket is read. */
const helpdesksWith = (meanwhile: () => Promise<unknown>): HelpdeskConnector => ({
  adapterFor: async (integration) => ({
    readTicket: async (externalId) => {
      await meanwhile();
      const solved = integration.helpdesk?.url === 'http://127.0.0.1:9';
      return { externalId, vendorStatus: solved ? 'solved' : 'open', state: solved ? 'closed' : 'open', readAt: new Date().toISOString() };
    },
    replyPublicly: async () => ({}),
  }),
});

for (const change of ['disconnected', 'connected to another helpdesk'] as const) {
  it(`keeps the credential when the helpdesk is ${change} while the ticket is read`, async () => {
    const integrationId = (await connectIntegration(service.deps, OPERATOR_ACTOR, { orgId: org.orgId, name: `Desk ${change}` })).integration.id;
    await connectTo(integrationId, 'http://127.0.0.1:9');
    const created = await service.call('POST', '/requests', {
      key: org.key,
      body: { subject_name: 'Jane Doe', justification: 'Need the VPN admin password', recipients: [org.owner.email], ticket_integration_id: integrationId, ticket_external_id: 'T-1' },
    });
    expect(created.status, created.text).toBe(201);
    const id = expectCreationResult(created.body).request.id;
    await submitAsSubject(service, id, systemClock, { envelope: { v: 1, ciphertext: 'c2VhbGVk', recipients: [] }, attachments: [] });

    const meanwhile = () =>
      change === 'disconnected' ? connectHelpdesk(service.deps, OPERATOR_ACTOR, org.orgId, integrationId, { adapter: 'none' }) : connectTo(integrationId, 'http://127.0.0.1:10');
    let once = false;
    const helpdesks = helpdesksWith(async () => {
      if (!once) {
        once = true;
        await meanwhile();
      }
    });
    await verifyTicket({ ...service.deps, helpdesks, ticketChecks: undefined }, { orgId: org.orgId, integrationId, externalId: 'T-1', attempt: 0 });

    const types = (await auditEntries(service, org.orgId)).map((entry) => entry.type);
    const changedAt = types.lastIndexOf(change === 'disconnected' ? 'integration.helpdesk_disconnected' : 'integration.helpdesk_connected');
    expect(types.slice(changedAt + 1)).not.toContain('request.completed');
    expect((await requestItem(service, id))?.status).toBe('submitted');
  });
}
