/**
 * A status post admitted under one state of its integration, whose request change would be
 * written after the integration changed: the change must be judged by the integration that stands
 * when it is written. A close mapped by a status word the owner has just mapped elsewhere must
 * not destroy; a post admitted before a disable that answered must change nothing, as a post
 * arriving disabled (409). A second gateway over the same table stands for another Lambda
 * container whose request store lets the integration change commit between the post's reads and
 * its write.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { systemClock } from '../../lambdas/core/clock.ts';
import { OPERATOR_ACTOR } from '../../lambdas/core/model.ts';
import { configureIntegration, connectIntegration, rotateIntegrationSecrets } from '../../lambdas/core/use-cases/integrations/manage-integration.ts';
import { auditEntries, requestItem } from '../support/shapes.ts';
import { submittedForFreshTicket } from '../support/submission.ts';
import { closeRacedByChange, type GatewayWithChangeMeanwhile } from '../support/change-meanwhile.ts';
import type { TestOrganisation, TestService } from '../support/test-service.ts';

let service: TestService;
let org: TestOrganisation;
let changed: GatewayWithChangeMeanwhile;
let seq = 0;

beforeAll(async () => ({ service, org, changed } = await closeRacedByChange()));

afterAll(async () => {
  changed?.close();
  await service?.stop();
});

/** A submitted request quoting a fresh ticket reference, and a generic integration mapping "99" to closed. */
const submittedWithIntegration = async () => {
  const { ticket, id } = await submittedForFreshTicket(service, org, systemClock);
  const connected = await connectIntegration(service.deps, OPERATOR_ACTOR, { orgId: org.orgId, name: `Helpdesk ${++seq}` });
  const integrationId = connected.integration.id;
  await configureIntegration(service.deps, OPERATOR_ACTOR, org.orgId, integrationId, { statusMap: { '99': 'closed' } });
  return { ticket, id, integrationId, path: new URL(connected.webhook_url).pathname };
};

const postStatus = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${changed.root}${path}`, { method: 'POST', headers: { 'Content-Type': 'application/json', ...headers }, body: JSON.stringify(body) });

/** The post was refused: the request is still submitted with its credential, and the integration's change is the last entry. */
const expectNothingChangedAfter = async (id: string, change: string) => {
  expect((await requestItem(service, id))?.status).toBe('submitted');
  expect(await service.deps.requests.material(id)).not.toBeNull();
  const types = (await auditEntries(service, org.orgId)).map((entry) => entry.type);
  expect(types.at(-1)).toBe(change);
  expect(types).not.toContain('request.completed');
};

it('keeps the credential when the status word is mapped to open before the close is written', async () => {
  const { ticket, id, integrationId, path } = await submittedWithIntegration();
  changed.before(() => configureIntegration(service.deps, OPERATOR_ACTOR, org.orgId, integrationId, { statusMap: { '99': 'open' } }));
  const response = await postStatus(path, { ticket_id: ticket, status: '99' });
  expect(response.status).toBe(202);

  // The word now means open: the request stays submitted with its credential.
  const item = await requestItem(service, id);
  expect(item?.status).toBe('submitted');
  expect(await service.deps.requests.material(id)).not.toBeNull();
  const entries = await auditEntries(service, org.orgId);
  const types = entries.map((entry) => entry.type);
  expect(types).not.toContain('request.completed');
  expect(types.slice(-2)).toEqual(['integration.updated', 'ticket.status_received']);
  expect(entries.at(-1)!.data).toMatchObject({ details: { status: 'open' } });
});

it('changes nothing when the integration is disabled before the close is written', async () => {
  const { ticket, id, integrationId, path } = await submittedWithIntegration();
  changed.before(() => configureIntegration(service.deps, OPERATOR_ACTOR, org.orgId, integrationId, { enabled: false }));
  const response = await postStatus(path, { ticket_id: ticket, status: 'closed' });
  expect(response.status).toBe(409);
  await expectNothingChangedAfter(id, 'integration.disabled');
});

it('answers 404 and changes nothing when the URL is rotated before the close is written', async () => {
  const { ticket, id, integrationId, path } = await submittedWithIntegration();
  changed.before(() => rotateIntegrationSecrets(service.deps, OPERATOR_ACTOR, org.orgId, integrationId));
  const response = await postStatus(path, { ticket_id: ticket, status: 'closed' });
  expect(response.status).toBe(404);
  await expectNothingChangedAfter(id, 'integration.secret_rotated');
});

it('answers 401 and changes nothing when a shared header is required before the close is written', async () => {
  const { ticket, id, integrationId, path } = await submittedWithIntegration();
  changed.before(() =>
    configureIntegration(service.deps, OPERATOR_ACTOR, org.orgId, integrationId, { auth: { mode: 'header', headerName: 'X-Helpdesk-Token', secret: 'header-value-0123456789abcdef' } }),
  );
  const response = await postStatus(path, { ticket_id: ticket, status: 'closed' });
  expect(response.status).toBe(401);
  await expectNothingChangedAfter(id, 'integration.updated');
});

it('does not keep the 409 under the Idempotency-Key: the retry once enabled again is used', async () => {
  const { ticket, id, integrationId, path } = await submittedWithIntegration();
  const key = { 'Idempotency-Key': `delivery-${ticket}` };
  changed.before(() => configureIntegration(service.deps, OPERATOR_ACTOR, org.orgId, integrationId, { enabled: false }));
  const first = await postStatus(path, { ticket_id: ticket, status: 'closed' }, key);
  expect(first.status).toBe(409);

  await configureIntegration(service.deps, OPERATOR_ACTOR, org.orgId, integrationId, { enabled: true });
  const retry = await postStatus(path, { ticket_id: ticket, status: 'closed' }, key);
  expect(retry.status).toBe(202);
  expect(retry.headers.get('idempotency-replayed')).toBeNull();
  expect((await requestItem(service, id))?.status).toBe('completed');
});
