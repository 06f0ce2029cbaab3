/**
 * A live share quoting a ticket takes the ticket's status as a request does. A status post
 * admitted under one state of its integration, whose share change would be written after the
 * integration changed, is judged by the integration that stands: a close mapped by a status word
 * the owner has just mapped to open must not destroy the share. A second gateway over the same
 * table stands for another Lambda container whose share store lets the change commit first.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { OPERATOR_ACTOR } from '../../lambdas/core/model.ts';
import { configureIntegration, connectIntegration } from '../../lambdas/core/use-cases/integrations/manage-integration.ts';
import { gatewayWithChangeMeanwhile, type GatewayWithChangeMeanwhile } from '../support/change-meanwhile.ts';
import { MemberBrowser } from '../support/member-browser.ts';
import { auditEntries } from '../support/shapes.ts';
import { createShareAs } from '../support/shares.ts';
import { startTestService, type TestOrganisation, type TestService } from '../support/test-service.ts';

let service: TestService;
let org: TestOrganisation;
let tom: MemberBrowser;
/** A second gateway over the same table, whose share store lets a change commit just before its write. */
let changed: GatewayWithChangeMeanwhile;

beforeAll(async () => {
  service = await startTestService();
  org = await service.createOrganisation();
  await service.admin.setPolicy(org.orgId, { ticket: { trustUnverifiedWebhooks: true, gracePeriodMinutes: 0 } });
  tom = await MemberBrowser.signIn(service, org.member.email);
  changed = await gatewayWithChangeMeanwhile(service.deps, 'update', 'shares');
});

afterAll(async () => {
  changed?.close();
  await service?.stop();
});

/** The helpdesk's status post to the integration's webhook URL, through the second gateway. */
const postStatus = async (webhookUrl: string, ticket: string, status: string) => {
  const response = await fetch(`${changed.root}${new URL(webhookUrl).pathname}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ ticket_id: ticket, status }),
  });
  expect(response.status).toBe(202);
};

const expectShareKept = async (shareId: string) => {
  const read = await tom.call('GET', `/app/api/shares/${shareId}`);
  expect(read.status, read.text).toBe(200);
  expect(JSON.stringify(read.body)).not.toContain('"purged"');
};

it('keeps the share when the status word is mapped to open before the close is written', async () => {
  const ticket = `INC-${Date.now().toString(36)}`;
  const share = await createShareAs(tom, { ticket_ref: ticket });
  const connected = await connectIntegration(service.deps, OPERATOR_ACTOR, { orgId: org.orgId, name: 'Helpdesk' });
  const integrationId = connected.integration.id;
  await configureIntegration(service.deps, OPERATOR_ACTOR, org.orgId, integrationId, { statusMap: { '99': 'closed' } });

  changed.before(() => configureIntegration(service.deps, OPERATOR_ACTOR, org.orgId, integrationId, { statusMap: { '99': 'open' } }));
  await postStatus(connected.webhook_url, ticket, '99');

  await expectShareKept(share.id);
  const types = (await auditEntries(service, org.orgId)).map((entry) => entry.type);
  expect(types).not.toContain('share.purged');
  expect(types.slice(-2)).toEqual(['integration.updated', 'ticket.status_received']);
});

it('keeps the share when trust in unverified closes is turned off before the close is written', async () => {
  const ticket = `INC-${Date.now().toString(36)}-policy`;
  const share = await createShareAs(tom, { ticket_ref: ticket });
  const connected = await connectIntegration(service.deps, OPERATOR_ACTOR, { orgId: org.orgId, name: 'Helpdesk 2' });

  changed.before(() => service.admin.setPolicy(org.orgId, { ticket: { trustUnverifiedWebhooks: false } }));
  await postStatus(connected.webhook_url, ticket, 'closed');

  await expectShareKept(share.id);
  const types = (await auditEntries(service, org.orgId)).map((entry) => entry.type);
  expect(types.slice(-2)).toEqual(['organisation.policy_changed', 'ticket.status_received']);
  await service.admin.setPolicy(org.orgId, { ticket: { trustUnverifiedWebhooks: true } });
});

it('keeps every share quoting the ticket when trust in unverified closes is turned off before the first close is written', async () => {
  const ticket = `INC-${Date.now().toString(36)}-policy-two`;
  const first = await createShareAs(tom, { ticket_ref: ticket });
  const second = await createShareAs(tom, { ticket_ref: ticket });
  const connected = await connectIntegration(service.deps, OPERATOR_ACTOR, { orgId: org.orgId, name: 'Helpdesk 3' });

  changed.before(() => service.admin.setPolicy(org.orgId, { ticket: { trustUnverifiedWebhooks: false } }));
  await postStatus(connected.webhook_url, ticket, 'closed');

  // The policy that stands when each share's change is written decides for each of them, not only the first.
  for (const share of [first, second]) await expectShareKept(share.id);
  const types = (await auditEntries(service, org.orgId)).map((entry) => entry.type);
  expect(types.slice(-3)).toEqual(['organisation.policy_changed', 'ticket.status_received', 'ticket.status_received']);
  await service.admin.setPolicy(org.orgId, { ticket: { trustUnverifiedWebhooks: true } });
});
