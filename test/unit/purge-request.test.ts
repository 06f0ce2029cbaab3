import { beforeEach, describe, expect, it } from 'vitest';
import { WriteConflict } from '../../lambdas/core/errors.ts';
import type { HandoffRequest, Organisation, RequestStatus } from '../../lambdas/core/model.ts';
import { DEFAULT_POLICY } from '../../lambdas/core/policy.ts';
import type { DuePaging, ExpiryScheduler } from '../../lambdas/core/ports.ts';
import { toRequestView } from '../../lambdas/core/request-view.ts';
import { sweepDueAt } from '../../lambdas/core/subject-flow.ts';
import { sweepDue } from '../../lambdas/core/use-cases/expire-request.ts';
import { PURGE_ACTOR, purgeRequest, settleDueRequest, type PurgeDeps } from '../../lambdas/core/use-cases/tickets/purge-request.ts';
import { CLIENT_ID, duePageOf, FakeDirectory, FakeRequestRepository, fixedClock, makeOrg, makeRequest, ORG_ID, URLS } from './support/fakes.ts';

const ID = '01hrequest0000000000000001';
const PURGE_AT = '2025-03-04T05:36:07.000Z';
const RECORD_EXPIRES = '2025-03-05T00:00:00.000Z';
const LINK_EXPIRES = '2025-03-06T00:00:00.000Z';

/** The fake repository plus the byDue index, projected as the store does (sweepDueAt). */
class FakeDueRequests extends FakeRequestRepository {
  async dueBy(now: Date, page?: DuePaging) {
    const due = [...this.items.values()].filter((request) => {
      const at = sweepDueAt(request);
      return at !== null && new Date(at) <= now;
    });
    return duePageOf(due.map((request) => request.id).sort(), page);
  }
}

/** A directory whose organisation has the rotation signal on or off; `null` for an unknown organisation. */
class PolicyDirectory extends FakeDirectory {
  constructor(private readonly org: Organisation | null) {
    super();
  }
  override async getOrganisation(orgId: string) {
    return this.org && orgId === this.org.id ? this.org : null;
  }
}
const withSignal = (rotationSignal: boolean) => makeOrg({ policy: { ...structuredClone(DEFAULT_POLICY), rotationSignal } });

let requests: FakeDueRequests;
let directory: FakeDirectory;
let calls: string[];
const scheduler: ExpiryScheduler = {
  schedule: async (requestId, atIso) => void calls.push(`schedule ${requestId} ${atIso}`),
  cancel: async (requestId) => void calls.push(`cancel ${requestId}`),
};
const at = (iso: string): PurgeDeps => ({ requests, directory, clock: fixedClock(new Date(iso)), urls: URLS, scheduler });

const seed = (status: RequestStatus, overrides: Partial<HandoffRequest> = {}) => {
  const request = makeRequest({
    id: ID,
    status,
    linkExpiresAt: LINK_EXPIRES,
    submittedAt: status === 'pending' || status === 'opened' ? null : '2025-03-01T00:00:00.000Z',
    recordExpiresAt: status === 'pending' || status === 'opened' ? null : RECORD_EXPIRES,
    purgeScheduledAt: status === 'submitted' ? PURGE_AT : null,
    purgeReason: null,
    completedAt: null,
    revokedAt: null,
    revokedReason: null,
    updatedAt: '2025-03-04T05:06:07.000Z',
    version: 6,
    ...overrides,
  });
  requests.items.set(request.id, request);
  return request;
};

beforeEach(() => {
  requests = new FakeDueRequests();
  directory = new FakeDirectory();
  calls = [];
});

describe('purgeRequest', () => {
  it('purged: at the deadline it completes the request (ticket_closed), deletes the material and writes request.completed', async () => {
    const before = seed('submitted');
    expect(await purgeRequest(at(PURGE_AT), ID)).toBe('purged');
    expect(requests.updates).toHaveLength(1);
    const [update] = requests.updates;
    expect(update.purgeMaterial).toBe(true);
    expect(update.after).toEqual({
      ...before,
      status: 'completed',
      completedAt: PURGE_AT,
      purgeReason: 'ticket_closed',
      purgeScheduledAt: null,
      updatedAt: PURGE_AT,
    });
    const view = toRequestView(update.after, URLS);
    expect(update.audit).toEqual({
      orgId: ORG_ID,
      type: 'request.completed',
      actor: { type: 'system', label: 'ticket grace period' },
      clientId: CLIENT_ID,
      requestId: ID,
      data: {
        request: view,
        actor: { type: 'system', label: 'ticket grace period' },
        details: { purge_reason: 'ticket_closed', grace_period_ended: true },
      },
    });
    expect(PURGE_ACTOR).toEqual({ type: 'system', label: 'ticket grace period' });
    expect(update.followUps).toBeUndefined(); // FakeDirectory's organisation keeps the default policy: no rotation signal
    expect(requests.items.get(ID)).toMatchObject({ status: 'completed', version: 7 });
    // The expiry schedule is no longer needed.
    expect(calls).toEqual([`cancel ${ID}`]);
  });

  it('purged: late triggers purge too', async () => {
    seed('submitted');
    expect(await purgeRequest(at('2025-03-04T09:00:00.000Z'), ID)).toBe('purged');
    expect(requests.updates[0].after.completedAt).toBe('2025-03-04T09:00:00.000Z');
  });

  it('the rotation signal follows when the organisation\'s policy turns it on', async () => {
    directory = new PolicyDirectory(withSignal(true));
    seed('submitted');
    expect(await purgeRequest(at(PURGE_AT), ID)).toBe('purged');
    const [update] = requests.updates;
    expect(update.followUps).toEqual([
      {
        orgId: ORG_ID,
        type: 'credential.rotation_recommended',
        actor: PURGE_ACTOR,
        clientId: CLIENT_ID,
        requestId: ID,
        data: {
          request: toRequestView(update.after, URLS),
          actor: { type: 'system', label: 'ticket grace period' },
          details: { reason: 'credential_handed_over', purge_reason: 'ticket_closed', grace_period_ended: true },
        },
      },
    ]);
  });

  it('no rotation signal when the policy leaves it off, or the organisation is not found', async () => {
    directory = new PolicyDirectory(withSignal(false));
    seed('submitted');
    expect(await purgeRequest(at(PURGE_AT), ID)).toBe('purged');
    expect(requests.updates[0].followUps).toBeUndefined();

    directory = new PolicyDirectory(null);
    seed('submitted', { version: 1 });
    expect(await purgeRequest(at(PURGE_AT), ID)).toBe('purged');
    expect(requests.updates[1].followUps).toBeUndefined();
  });

  it('not_due: a millisecond before the deadline nothing happens', async () => {
    seed('submitted');
    expect(await purgeRequest(at('2025-03-04T05:36:06.999Z'), ID)).toBe('not_due');
    expect(requests.updates).toEqual([]);
    expect(calls).toEqual([]);
    expect(requests.items.get(ID)).toMatchObject({ status: 'submitted', purgeScheduledAt: PURGE_AT, version: 6 });
  });

  it('not_scheduled: a reopen cancelled the purge', async () => {
    seed('submitted', { purgeScheduledAt: null });
    expect(await purgeRequest(at('2025-03-04T09:00:00.000Z'), ID)).toBe('not_scheduled');
    expect(requests.updates).toEqual([]);
  });

  it.each(['completed', 'revoked', 'expired'] as RequestStatus[])('ended: a %s request is left alone', async (status) => {
    seed(status, { purgeScheduledAt: PURGE_AT });
    expect(await purgeRequest(at('2025-03-04T09:00:00.000Z'), ID)).toBe('ended');
    expect(requests.updates).toEqual([]);
  });

  it('missing: no such request', async () => {
    expect(await purgeRequest(at(PURGE_AT), ID)).toBe('missing');
  });

  it('is idempotent: a second trigger finds the request ended', async () => {
    seed('submitted');
    expect(await purgeRequest(at(PURGE_AT), ID)).toBe('purged');
    expect(await purgeRequest(at(PURGE_AT), ID)).toBe('ended');
    expect(requests.updates).toHaveLength(1);
  });

  it('a race: a reopen that won cancels the purge (not_scheduled)', async () => {
    seed('submitted');
    requests.beforeUpdate = (_call, attempt) => {
      if (attempt === 1) {
        const stored = requests.items.get(ID)!;
        requests.items.set(ID, { ...stored, purgeScheduledAt: null, version: stored.version + 1 });
      }
    };
    expect(await purgeRequest(at(PURGE_AT), ID)).toBe('not_scheduled');
    expect(requests.updates).toEqual([]);
    expect(requests.items.get(ID)).toMatchObject({ status: 'submitted', purgeScheduledAt: null });
  });

  it('a race: a completion that won leaves nothing to purge (ended)', async () => {
    seed('submitted');
    requests.beforeUpdate = (_call, attempt) => {
      if (attempt === 1) {
        const stored = requests.items.get(ID)!;
        requests.items.set(ID, { ...stored, status: 'completed', purgeReason: 'completed_via_api', version: stored.version + 1 });
      }
    };
    expect(await purgeRequest(at(PURGE_AT), ID)).toBe('ended');
    expect(requests.items.get(ID)!.purgeReason).toBe('completed_via_api');
  });

  it('a race: another change that keeps the purge due is retried and purged', async () => {
    seed('submitted');
    requests.beforeUpdate = (_call, attempt) => {
      if (attempt === 1) {
        const stored = requests.items.get(ID)!;
        requests.items.set(ID, { ...stored, revealCount: 9, version: stored.version + 1 });
      }
    };
    expect(await purgeRequest(at(PURGE_AT), ID)).toBe('purged');
    expect(requests.updates).toHaveLength(1);
    expect(requests.updates[0].before).toMatchObject({ version: 7, revealCount: 9 });
  });

  it('gives up after repeated lost races with the WriteConflict', async () => {
    seed('submitted');
    requests.beforeUpdate = () => {
      throw new WriteConflict('always losing');
    };
    await expect(purgeRequest(at(PURGE_AT), ID)).rejects.toBeInstanceOf(WriteConflict);
  });
});

describe('settleDueRequest', () => {
  it('purges a due purge first', async () => {
    seed('submitted');
    expect(await settleDueRequest(at(PURGE_AT), ID)).toBe('purged');
    expect(requests.updates[0].audit.type).toBe('request.completed');
  });

  it('a purge due after the record expiry: at the record expiry, falls through to expiry', async () => {
    seed('submitted', { purgeScheduledAt: '2025-03-05T06:00:00.000Z' });
    expect(await settleDueRequest(at(RECORD_EXPIRES), ID)).toBe('expired');
    const [update] = requests.updates;
    expect(update.audit.type).toBe('request.expired');
    expect(update.after).toMatchObject({ status: 'expired', purgeReason: 'expired', purgeScheduledAt: null });
    expect(update.purgeMaterial).toBe(true);
  });

  it('no purge scheduled: expires a submitted request past its record expiry', async () => {
    seed('submitted', { purgeScheduledAt: null });
    expect(await settleDueRequest(at(RECORD_EXPIRES), ID)).toBe('expired');
  });

  it.each(['pending', 'opened'] as RequestStatus[])('a %s request past its link expiry expires', async (status) => {
    seed(status);
    expect(await settleDueRequest(at(LINK_EXPIRES), ID)).toBe('expired');
  });

  it('nothing due: not_due from expiry', async () => {
    seed('submitted', { purgeScheduledAt: null });
    expect(await settleDueRequest(at(PURGE_AT), ID)).toBe('not_due');
    expect(requests.updates).toEqual([]);
  });

  it('ended and missing answer as expiry does', async () => {
    expect(await settleDueRequest(at(PURGE_AT), ID)).toBe('missing');
    seed('completed');
    expect(await settleDueRequest(at(PURGE_AT), ID)).toBe('ended');
  });

  it('the sweep with settleDueRequest purges a due purge and expires a due expiry, counting each', async () => {
    seed('submitted'); // purge due at PURGE_AT
    seed('pending', { id: '01hrequest0000000000000002', linkExpiresAt: '2025-03-04T06:00:00.000Z' });
    seed('submitted', { id: '01hrequest0000000000000003', purgeScheduledAt: '2025-03-04T08:00:00.000Z' }); // not yet due
    const deps = at('2025-03-04T07:00:00.000Z');
    expect(await sweepDue({ ...deps, dueRequests: requests }, { settle: (requestId) => settleDueRequest(deps, requestId) })).toEqual({ expired: 1, purged: 1, failed: [] });
    expect([ID, '01hrequest0000000000000002', '01hrequest0000000000000003'].map((id) => requests.items.get(id)!.status)).toEqual(['completed', 'expired', 'submitted']);
  });
});
