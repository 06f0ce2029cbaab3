/**
 * The routes deployed with DeleteSchedule alone (lib/route-rights.ts, SCHEDULE_CANCELLING_ROUTES)
 * only ever cancel an expiry schedule: each of them, called as a member or a key calls it, asks the
 * scheduler for nothing but cancellations. One that armed a schedule would be refused by IAM
 * deployed, and its request or share would wait for the sweep.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ExpiryScheduler } from '../../lambdas/core/ports.ts';
import { SCHEDULE_CANCELLING_ROUTES } from '../../lib/route-rights.ts';
import { MemberBrowser } from '../support/member-browser.ts';
import { createRequestIn } from '../support/requests.ts';
import { forceRequestState } from '../support/shapes.ts';
import { createShareAs } from '../support/shares.ts';
import { startTestService, type TestOrganisation, type TestService } from '../support/test-service.ts';

const calls: Array<{ op: 'schedule' | 'cancel'; id: string }> = [];
const recording: ExpiryScheduler = {
  schedule: async (id) => void calls.push({ op: 'schedule', id }),
  cancel: async (id) => void calls.push({ op: 'cancel', id }),
};

let service: TestService;
let org: TestOrganisation;
let owner: MemberBrowser;

beforeAll(async () => {
  service = await startTestService({ scheduler: recording });
  org = await service.createOrganisation({ name: 'Cancelling Routes Org' });
  owner = await MemberBrowser.signIn(service, org.owner.email);
});
afterAll(() => service?.stop());

const createRequest = async () => (await createRequestIn(service, org)).request.id;

/** What `action` asked of the scheduler, after it answered `status`. */
const scheduling = async (action: () => Promise<{ status: number; text: string }>, status: number) => {
  calls.length = 0;
  const answer = await action();
  expect(answer.status, answer.text).toBe(status);
  return calls.map((call) => call.op);
};

describe('the routes that may only cancel expiry schedules', () => {
  it('cancel, and never arm, whatever they end', async () => {
    const byRoute: Record<string, () => Promise<string[]>> = {
      revokeRequest: async () => {
        const id = await createRequest();
        return scheduling(() => service.call('POST', `/requests/${id}/revoke`, { key: org.key }), 200);
      },
      completeRequest: async () => {
        const id = await createRequest();
        await forceRequestState(service, org.orgId, id, 'submitted');
        return scheduling(() => service.call('POST', `/requests/${id}/complete`, { key: org.key }), 200);
      },
      appRevokeRequest: async () => {
        const id = await createRequest();
        return scheduling(() => owner.call('POST', `/app/api/requests/${id}/revoke`), 200);
      },
      appComplete: async () => {
        const id = await createRequest();
        await forceRequestState(service, org.orgId, id, 'submitted');
        return scheduling(() => owner.call('POST', `/app/api/requests/${id}/complete`), 200);
      },
      appPurgeShare: async () => {
        const share = await createShareAs(owner);
        return scheduling(() => owner.call('POST', `/app/api/shares/${share.id}/purge`), 200);
      },
      shareOpen: async () => {
        // A view that leaves views over, then the last one, which destroys the share.
        const share = await createShareAs(owner, { view_limit: 2 });
        const open = () => service.call('POST', '/share/open', { headers: { 'X-Share-Token': share.token } });
        return [...(await scheduling(open, 200)), ...(await scheduling(open, 200))];
      },
    };
    expect(Object.keys(byRoute).sort()).toEqual([...SCHEDULE_CANCELLING_ROUTES].sort());
    for (const [route, run] of Object.entries(byRoute)) {
      const ops = await run();
      expect(ops, route).toContain('cancel');
      expect(ops, route).not.toContain('schedule');
    }
  });
});
