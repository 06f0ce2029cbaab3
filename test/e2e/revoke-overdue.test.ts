/**
 * A revoke that reaches a request whose deadline has passed before its expiry timer ran (the
 * scheduler fires late, or not at all until the sweep): the request is expired on the way, as
 * the timer would have, and the revoke answers 409 illegal_transition, through the API and the
 * member application alike. The revoke functions may destroy what expiring destroys.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditEntriesOfRequest, expectError, materialItems, putMaterial, requestItem } from '../support/shapes.ts';
import { startTestService, type TestOrganisation, type TestService } from '../support/test-service.ts';
import { assertNoTableAccessDenials } from '../support/table-access.ts';
import { createRequestIn } from '../support/requests.ts';
import { forceRequestState } from '../support/shapes.ts';
import { MemberBrowser } from '../support/member-browser.ts';
import { movableClock } from '../support/webhooks.ts';

const clock = movableClock();
let service: TestService;
let org: TestOrganisation;

beforeAll(async () => {
  service = await startTestService({ clock });
  org = await service.createOrganisation({ name: 'Overdue Org' });
});
afterAll(() => service?.stop());

/** Past the link's expiry, the request still pending in the table. */
const overduePending = async () => {
  clock.set(Date.now());
  const { request } = await createRequestIn(service, org, { verification_mode: 'none' });
  const item = (await requestItem(service, request.id))!;
  clock.set(Date.parse(item.linkExpiresAt) + 1_000);
  return request.id;
};

const expectExpiredOnce = async (requestId: string) => {
  const item = (await requestItem(service, requestId))!;
  expect([item.status, item.revokedAt ?? null, item.purgeReason]).toEqual(['expired', null, 'expired']);
  expect(await materialItems(service, requestId)).toEqual([]);
  const types = (await auditEntriesOfRequest(service, org.orgId, requestId)).map((entry) => entry.type);
  expect(types.filter((type) => type !== 'request.created' && type !== 'request.submitted')).toEqual(['request.expired']);
  assertNoTableAccessDenials(service.tableAccess);
};

describe('revoking an overdue request', () => {
  it('through the API, a pending request past its link expiry: 409, and expired in the table', async () => {
    const id = await overduePending();
    const answer = await service.call('POST', `/requests/${id}/revoke`, { key: org.key });
    expectError(answer, 409, 'illegal_transition');
    await expectExpiredOnce(id);
  });

  it('through the API, a submitted request past its record expiry: 409, expired, its material destroyed', async () => {
    clock.set(Date.now());
    const { request } = await createRequestIn(service, org, { verification_mode: 'none' });
    const at = clock.now().toISOString();
    const recordExpiresAt = new Date(clock.now().getTime() + 60 * 60_000).toISOString();
    await forceRequestState(service, org.orgId, request.id, 'submitted', { openedAt: at, submittedAt: at, recordExpiresAt });
    await putMaterial(service, request.id, 'MATERIAL#envelope', 'envelope');
    clock.set(Date.parse(recordExpiresAt) + 1_000);
    const answer = await service.call('POST', `/requests/${request.id}/revoke`, { key: org.key });
    expectError(answer, 409, 'illegal_transition');
    await expectExpiredOnce(request.id);
  });

  it('in the member application: 409, and expired in the table', async () => {
    const id = await overduePending();
    const owner = await MemberBrowser.signIn(service, org.owner.email);
    const answer = await owner.call('POST', `/app/api/requests/${id}/revoke`);
    expect(answer.status, answer.text).toBe(409);
    expect(answer.body.code).toBe('illegal_transition');
    await expectExpiredOnce(id);
  });
});
