import { beforeEach, describe, expect, it } from 'vitest';
import type { MemberCaller } from '../../lambdas/core/member-access.ts';
import type { HandoffRequest } from '../../lambdas/core/model.ts';
import { DEFAULT_POLICY } from '../../lambdas/core/policy.ts';
import type { HandoffRepository } from '../../lambdas/core/ports.ts';
import { completeRequest, revokeRequest } from '../../lambdas/core/use-cases/end-request.ts';
import { completeAsMember } from '../../lambdas/core/use-cases/member-requests.ts';
import { CLIENT_ID, FakeRequestRepository, fixedClock, makeCaller, makeMember, makeOrg, makeRequest, ORG_ID, URLS } from './support/fakes.ts';

const ID = '01hrequest0000000000000001';
let requests: FakeRequestRepository;
const deps = () => ({ requests, clock: fixedClock(), urls: URLS });
const withSignal = (rotationSignal: boolean) => ({ policy: { ...structuredClone(DEFAULT_POLICY), rotationSignal } });

// Deadlines ahead of the fixed clock: a request past them is expired instead (end-request.test.ts).
const LIVE = { linkExpiresAt: '2099-01-01T00:00:00.000Z', recordExpiresAt: '2099-01-01T00:00:00.000Z' };

const seed = (status: HandoffRequest['status'], overrides: Partial<HandoffRequest> = {}) => {
  const request = makeRequest({ id: ID, status, completedAt: null, purgeReason: null, revokedAt: null, revokedReason: null, version: 3, ...LIVE, ...overrides });
  requests.items.set(ID, request);
  return request;
};

beforeEach(() => {
  requests = new FakeRequestRepository();
});

describe('credential.rotation_recommended', () => {
  it('follows an API completion in the same update when the policy turns the signal on', async () => {
    seed('submitted');
    const view = await completeRequest(deps(), makeCaller(withSignal(true)), ID);
    const [update] = requests.updates;
    expect(update.audit.type).toBe('request.completed');
    expect(update.followUps).toEqual([
      {
        orgId: ORG_ID,
        type: 'credential.rotation_recommended',
        actor: update.audit.actor,
        clientId: CLIENT_ID,
        requestId: ID,
        data: {
          request: view,
          actor: { type: 'api', label: 'Helpdesk integration' },
          details: { reason: 'credential_handed_over', purge_reason: 'completed_via_api' },
        },
      },
    ]);
  });

  it('is not written when the policy leaves the signal off (the default)', async () => {
    seed('submitted');
    await completeRequest(deps(), makeCaller(), ID);
    expect(requests.updates[0].followUps).toBeUndefined();
  });

  it('never follows a revoke', async () => {
    seed('pending');
    await revokeRequest(deps(), makeCaller(withSignal(true)), ID);
    expect(requests.updates[0].followUps).toBeUndefined();
  });

  it('follows a member\'s completion too, naming the member', async () => {
    const member = makeMember('Tom Technician');
    seed('submitted', { recipients: [{ membershipId: member.id, label: member.name, fingerprint: 'fp' }] });
    const caller = { org: makeOrg(withSignal(true)), member, session: {}, csrfToken: 'x' } as unknown as MemberCaller;
    await completeAsMember({ ...deps(), requests: requests as unknown as HandoffRepository }, caller, ID);
    const [update] = requests.updates;
    expect(update.followUps).toHaveLength(1);
    expect(update.followUps![0]).toMatchObject({
      type: 'credential.rotation_recommended',
      actor: { type: 'member' },
      data: { member: { membership_id: member.id }, details: { purge_reason: 'completed_by_member' } },
    });
  });
});
