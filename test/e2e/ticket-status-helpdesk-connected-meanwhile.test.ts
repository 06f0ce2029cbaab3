/**
 * POST /v1/tickets/{ref}/status on a ticket linked through an integration: whether its close
 * destroys follows the integration as it stands (connected to its helpdesk, the close is only a
 * hint and the helpdesk's answer decides). A helpdesk connected between the post's read of the
 * integration and its write must not let the close destroy under the connection-less settings: the
 * close is judged again under the integration that now stands. A second gateway over the same table
 * stands for another Lambda container whose request store lets the connection commit between the
 * post's reads and its write.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { systemClock } from '../../lambdas/core/clock.ts';
import { OPERATOR_ACTOR } from '../../lambdas/core/model.ts';
import type { TicketCheck } from '../../lambdas/core/ticket-check.ts';
import { connectHelpdesk } from '../../lambdas/core/use-cases/integrations/connect-helpdesk.ts';
import { connectIntegration } from '../../lambdas/core/use-cases/integrations/manage-integration.ts';
import { auditEntries, expectCreationResult, requestItem } from '../support/shapes.ts';
import { submitAsSubject } from '../support/submission.ts';
import { closeRacedByChange, type GatewayWithChangeMeanwhile } from '../support/change-meanwhile.ts';
import type { TestOrganisation, TestService } from '../support/test-service.ts';

let service: TestService;
let org: TestOrganisation;
let changed: GatewayWithChangeMeanwhile;
/** The helpdesk reads the service asked for. */
const checks: TicketCheck[] = [];

// Unverified closes trusted: without a helpdesk connection, the close destroys at once.
beforeAll(async () => ({ service, org, changed } = await closeRacedByChange({ allowLoopbackWebhooks: true, ticketChecks: { enqueue: async (check) => void checks.push(check) } })));

afterAll(async () => {
  changed?.close();
  await service?.stop();
});

it('keeps the credential when the integration is connected to its helpdesk before the close is written', async () => {
  const { integration } = await connectIntegration(service.deps, OPERATOR_ACTOR, { orgId: org.orgId, name: 'Service desk' });
  const made = await service.call('POST', '/requests', {
    key: org.key,
    body: { subject_name: 'Jane Doe', justification: 'Needs the firewall admin password', recipients: [org.owner.email], ticket_integration_id: integration.id, ticket_external_id: '7002' },
  });
  expect(made.status, made.text).toBe(201);
  const id = expectCreationResult(made.body).request.id;
  await submitAsSubject(service, id, systemClock, { envelope: { v: 1, ciphertext: 'c2VhbGVk', recipients: [] }, attachments: [] });

  changed.before(() =>
    connectHelpdesk(service.deps, OPERATOR_ACTOR, org.orgId, integration.id, {
      adapter: 'zendesk',
      url: 'http://127.0.0.1:9',
      credentials: { client_id: 'client-id-0123456789', client_secret: 'client-secret-0123456789abcdef' },
    }),
  );
  const response = await fetch(`${changed.root}/v1/tickets/7002/status`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${org.key}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ status: 'closed' }),
  });
  expect(response.status).toBe(202);
  const body = await response.json();
  expect(body).toMatchObject({ accepted: true, matched: { requests: [id] } });

  // Still submitted with its credential: the close is a hint the helpdesk must confirm.
  expect(await requestItem(service, id)).toMatchObject({ status: 'submitted', ticket: { status: 'closed', statusVerified: false } });
  expect(await service.deps.requests.material(id)).not.toBeNull();
  const entries = await auditEntries(service, org.orgId);
  const types = entries.map((entry) => entry.type);
  expect(types.slice(-2)).toEqual(['integration.helpdesk_connected', 'ticket.status_received']);
  expect(types).not.toContain('request.completed');
  expect(entries.at(-1)!.data).toMatchObject({ details: { trusted: false, action: 'recorded' } });
  // The helpdesk is asked instead.
  expect(checks).toEqual([expect.objectContaining({ integrationId: integration.id, externalId: '7002' })]);
});
