/**
 * An unverified ticket close destroys a credential only while the organisation trusts unverified
 * webhooks. A close judged under that policy, whose write commits after the owner turned trust
 * off, must not destroy: it is decided again under the policy that now stands. A second gateway
 * over the same table stands for another Lambda container whose request store lets the policy
 * change commit between the close's read and its write.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { systemClock } from '../../lambdas/core/clock.ts';
import { auditEntries, requestItem } from '../support/shapes.ts';
import { submitAsSubject } from '../support/submission.ts';
import { gatewayWithChangeMeanwhile, type GatewayWithChangeMeanwhile } from '../support/change-meanwhile.ts';
import { startTestService, type TestOrganisation, type TestService } from '../support/test-service.ts';

let service: TestService;
let org: TestOrganisation;
/** A second gateway over the same table, whose request store lets a change commit just before its write. */
let changed: GatewayWithChangeMeanwhile;
let base: string;

beforeAll(async () => {
  service = await startTestService();
  org = await service.createOrganisation();
  changed = await gatewayWithChangeMeanwhile(service.deps, 'update');
  base = `${changed.root}/v1`;
});

afterAll(async () => {
  changed?.close();
  await service?.stop();
});

it('keeps the credential when trust in unverified closes is turned off before the close is written', async () => {
  await service.admin.setPolicy(org.orgId, { ticket: { trustUnverifiedWebhooks: true, gracePeriodMinutes: 0 } });
  const made = await service.call('POST', '/requests', {
    key: org.key,
    body: { subject_name: 'Jane Doe', justification: 'Needs the firewall admin password', recipients: [org.owner.email], ticket_ref: 'INC-7001' },
  });
  expect(made.status, made.text).toBe(201);
  const id = made.body.request.id as string;
  await submitAsSubject(service, id, systemClock, { envelope: { v: 1, ciphertext: 'c2VhbGVk', recipients: [] }, attachments: [] });

  changed.before(() => service.admin.setPolicy(org.orgId, { ticket: { trustUnverifiedWebhooks: false } }));
  const response = await fetch(`${base}/tickets/INC-7001/status`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${org.key}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ status: 'closed' }),
  });
  expect(response.status).toBe(202);

  // Still submitted with its credential: the close arrived as an unverified status only.
  const item = await requestItem(service, id);
  expect(item).toMatchObject({ status: 'submitted', ticket: { status: 'closed', statusVerified: false } });
  expect(await service.deps.requests.material(id)).not.toBeNull();
  const entries = await auditEntries(service, org.orgId);
  const types = entries.map((entry) => entry.type);
  expect(types.slice(-2)).toEqual(['organisation.policy_changed', 'ticket.status_received']);
  expect(types).not.toContain('request.completed');
  expect(entries.at(-1)!.data).toMatchObject({ details: { trusted: false } });
});
