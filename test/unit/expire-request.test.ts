import { beforeEach, describe, expect, it } from 'vitest';
import type { Clock } from '../../lambdas/core/clock.ts';
import { WriteConflict } from '../../lambdas/core/errors.ts';
import { syncExpirySchedule } from '../../lambdas/core/expiry-schedule.ts';
import type { HandoffRequest, RequestStatus } from '../../lambdas/core/model.ts';
import type { DuePaging, DueRequests, ExpiryScheduler } from '../../lambdas/core/ports.ts';
import { toRequestView } from '../../lambdas/core/request-view.ts';
import { dueAt } from '../../lambdas/core/subject-flow.ts';
import { createRequest } from '../../lambdas/core/use-cases/create-request.ts';
import { completeRequest, revokeRequest } from '../../lambdas/core/use-cases/end-request.ts';
import { expireRequest, sweepDue, type ExpiryDeps } from '../../lambdas/core/use-cases/expire-request.ts';
import { createHandler as createExpireWorker } from '../../lambdas/workers/expire.ts';
import { createHandler as createSweepWorker } from '../../lambdas/workers/sweep.ts';
import { KeyFileCodeKey } from '../../lambdas/local/key-file-code-key.ts';
import {
  CLIENT_ID,
  duePageOf,
  FakeDirectory,
  FakeNotifier,
  FakeRequestRepository,
  makeCaller,
  makeMember,
  makeRequest,
  ORG_ID,
  URLS,
} from './support/fakes.ts';

const ID = '01hrequest0000000000000001';
const LINK_EXPIRES = '2025-03-10T12:00:00.000Z';
const RECORD_EXPIRES = '2025-03-11T12:00:00.000Z';

/** A clock the test moves by hand. */
const fakeClock = (start: string) => {
  let now = new Date(start).getTime();
  return {
    now: () => new Date(now),
    set: (iso: string) => {
      now = new Date(iso).getTime();
    },
    advance: (ms: number) => {
      now += ms;
    },
  } satisfies Clock & Record<string, unknown>;
};

/**
 * The fake repository plus the byDue index, computed as the store projects it; `lagging` are ids
 * the index still lists, as a lagging GSI does for requests that ended a moment ago.
 */
class FakeHandoffRequests extends FakeRequestRepository {
  dueByCalls = 0;
  readonly lagging = new Set<string>();
  async dueBy(now: Date, page?: DuePaging) {
    this.dueByCalls += 1;
    const due = [...this.items.values()].filter((request) => {
      const at = dueAt(request);
      return at !== null && new Date(at) <= now;
    });
    return duePageOf([...new Set([...this.lagging, ...due.map((request) => request.id)])].sort(), page);
  }
}

let requests: FakeHandoffRequests;
let clock: ReturnType<typeof fakeClock>;
const deps = (): ExpiryDeps & { dueRequests: DueRequests } => ({ requests, dueRequests: requests, clock, urls: URLS });

const live = (status: RequestStatus, overrides: Partial<HandoffRequest> = {}) =>
  makeRequest({
    id: ID,
    status,
    linkExpiresAt: LINK_EXPIRES,
    submittedAt: status === 'submitted' ? '2025-03-05T00:00:00.000Z' : null,
    recordExpiresAt: status === 'submitted' ? RECORD_EXPIRES : null,
    revealCount: 0,
    lastRevealedAt: null,
    purgeReason: null,
    purgeScheduledAt: null,
    completedAt: null,
    revokedAt: null,
    revokedReason: null,
    version: 4,
    ...overrides,
  });

const seed = (request: HandoffRequest) => {
  requests.items.set(request.id, structuredClone(request));
  return request;
};

beforeEach(() => {
  requests = new FakeHandoffRequests();
  clock = fakeClock('2025-03-05T00:00:00.000Z');
});

describe('expireRequest: a link that passed link_expires_at', () => {
  it.each(['pending', 'opened'] as RequestStatus[])('expires a %s request, purging its material, with the request.expired entry', async (status) => {
    seed(live(status));
    clock.set('2025-03-10T12:00:00.001Z');
    expect(await expireRequest(deps(), ID)).toBe('expired');

    expect(requests.updates).toHaveLength(1);
    const [update] = requests.updates;
    expect(update.before.status).toBe(status);
    expect(update.after).toMatchObject({ status: 'expired', purgeReason: 'expired', purgeScheduledAt: null, updatedAt: '2025-03-10T12:00:00.001Z' });
    expect(update.purgeMaterial).toBe(true);
    const view = toRequestView(update.after, URLS);
    expect(update.audit).toEqual({
      orgId: ORG_ID,
      type: 'request.expired',
      actor: { type: 'system', label: 'expiry' },
      clientId: CLIENT_ID,
      requestId: ID,
      data: {
        request: view,
        actor: { type: 'system', label: 'expiry' },
        details: { purge_reason: 'expired', previous_status: status },
      },
    });
    expect(view.status).toBe('expired');
    expect(view.purge_reason).toBe('expired');
    expect(requests.items.get(ID)).toMatchObject({ status: 'expired', version: 5 });
  });

  it('expires exactly at link_expires_at', async () => {
    seed(live('pending'));
    clock.set(LINK_EXPIRES);
    expect(await expireRequest(deps(), ID)).toBe('expired');
  });

  it('does nothing a millisecond before', async () => {
    seed(live('pending'));
    clock.set('2025-03-10T11:59:59.999Z');
    expect(await expireRequest(deps(), ID)).toBe('not_due');
    expect(requests.updates).toEqual([]);
    expect(requests.items.get(ID)).toMatchObject({ status: 'pending', version: 4 });
  });
});

describe('expireRequest: a record that passed record_expires_at', () => {
  it('expires a submitted request and purges the envelope and attachments', async () => {
    seed(live('submitted'));
    clock.set('2025-03-11T12:00:01.000Z');
    expect(await expireRequest(deps(), ID)).toBe('expired');
    const [update] = requests.updates;
    expect(update.purgeMaterial).toBe(true);
    expect(update.after.status).toBe('expired');
    expect(update.audit.data).toMatchObject({ details: { purge_reason: 'expired', previous_status: 'submitted' } });
  });

  it('keeps a submitted request whose link has expired but whose record has not', async () => {
    seed(live('submitted'));
    clock.set('2025-03-10T18:00:00.000Z'); // after LINK_EXPIRES, before RECORD_EXPIRES
    expect(await expireRequest(deps(), ID)).toBe('not_due');
    expect(requests.updates).toEqual([]);
  });
});

describe('expireRequest: nothing to do', () => {
  it.each(['completed', 'revoked', 'expired'] as RequestStatus[])('leaves an already %s request alone, however late', async (status) => {
    seed(live(status, { recordExpiresAt: RECORD_EXPIRES }));
    clock.set('2030-01-01T00:00:00.000Z');
    expect(await expireRequest(deps(), ID)).toBe('ended');
    expect(requests.updates).toEqual([]);
  });

  it('answers missing for an unknown id', async () => {
    expect(await expireRequest(deps(), ID)).toBe('missing');
  });

  it('is idempotent: a second trigger finds the request ended', async () => {
    seed(live('pending'));
    clock.set('2025-03-11T00:00:00.000Z');
    expect(await expireRequest(deps(), ID)).toBe('expired');
    expect(await expireRequest(deps(), ID)).toBe('ended');
    expect(requests.updates).toHaveLength(1);
  });
});

describe('expireRequest: a race with another change', () => {
  it('re-reads and decides again: a submission that won makes the request not due', async () => {
    seed(live('opened'));
    clock.set('2025-03-10T12:00:00.000Z');
    requests.beforeUpdate = (_call, attempt) => {
      // The subject submitted between the worker's read and its write.
      if (attempt === 1) {
        const stored = requests.items.get(ID)!;
        requests.items.set(ID, { ...stored, status: 'submitted', submittedAt: '2025-03-10T11:59:59.000Z', recordExpiresAt: RECORD_EXPIRES, version: stored.version + 1 });
      }
    };
    const getsBefore = requests.getCalls;
    expect(await expireRequest(deps(), ID)).toBe('not_due');
    expect(requests.getCalls - getsBefore).toBe(2);
    expect(requests.updates).toEqual([]);
    expect(requests.items.get(ID)!.status).toBe('submitted');
  });

  it('re-reads and decides again: a revoke that won leaves nothing to expire', async () => {
    seed(live('pending'));
    clock.set('2025-03-12T00:00:00.000Z');
    requests.beforeUpdate = (_call, attempt) => {
      if (attempt === 1) {
        const stored = requests.items.get(ID)!;
        requests.items.set(ID, { ...stored, status: 'revoked', revokedAt: '2025-03-11T00:00:00.000Z', version: stored.version + 1 });
      }
    };
    expect(await expireRequest(deps(), ID)).toBe('ended');
    expect(requests.items.get(ID)!.status).toBe('revoked');
  });

  it('re-reads and expires the fresh version when the request is still due', async () => {
    seed(live('pending'));
    clock.set('2025-03-12T00:00:00.000Z');
    requests.beforeUpdate = (_call, attempt) => {
      // The subject opened the link meanwhile: still due, a newer version.
      if (attempt === 1) {
        const stored = requests.items.get(ID)!;
        requests.items.set(ID, { ...stored, status: 'opened', openedAt: '2025-03-10T00:00:00.000Z', version: stored.version + 1 });
      }
    };
    expect(await expireRequest(deps(), ID)).toBe('expired');
    expect(requests.updates).toHaveLength(1);
    expect(requests.updates[0].before).toMatchObject({ status: 'opened', version: 5 });
    expect(requests.updates[0].audit.data).toMatchObject({ details: { previous_status: 'opened' } });
    expect(requests.items.get(ID)).toMatchObject({ status: 'expired', version: 6 });
  });

  it('gives up after repeated lost races, with the WriteConflict', async () => {
    seed(live('pending'));
    clock.set('2025-03-12T00:00:00.000Z');
    requests.beforeUpdate = () => {
      const stored = requests.items.get(ID)!;
      requests.items.set(ID, { ...stored, version: stored.version + 1 });
    };
    await expect(expireRequest(deps(), ID)).rejects.toBeInstanceOf(WriteConflict);
    expect(requests.updates).toEqual([]);
  });

  it('passes any other storage error on at once', async () => {
    seed(live('pending'));
    clock.set('2025-03-12T00:00:00.000Z');
    let attempts = 0;
    requests.beforeUpdate = () => {
      attempts += 1;
      throw new Error('throttled');
    };
    await expect(expireRequest(deps(), ID)).rejects.toThrow('throttled');
    expect(attempts).toBe(1);
  });
});

describe('sweepDue', () => {
  const id = (n: number) => `01hrequest00000000000000${String(n).padStart(2, '0')}`;

  it('expires every due request of both kinds and nothing else, counting them', async () => {
    seed(live('pending', { id: id(1) }));
    seed(live('opened', { id: id(2) }));
    seed(live('submitted', { id: id(3) }));
    seed(live('pending', { id: id(4), linkExpiresAt: '2025-03-20T00:00:00.000Z' }));
    seed(live('completed', { id: id(5) }));
    clock.set('2025-03-12T00:00:00.000Z');
    expect(await sweepDue(deps())).toEqual({ expired: 3, purged: 0, failed: [] });
    expect([1, 2, 3, 4, 5].map((n) => requests.items.get(id(n))!.status)).toEqual(['expired', 'expired', 'expired', 'pending', 'completed']);
    expect(await sweepDue(deps())).toEqual({ expired: 0, purged: 0, failed: [] });
  });

  it('finds nothing before anything is due', async () => {
    seed(live('pending', { id: id(1) }));
    expect(await sweepDue(deps())).toEqual({ expired: 0, purged: 0, failed: [] });
    expect(requests.updates).toEqual([]);
  });

  it('goes on past a request it cannot expire, and reports it', async () => {
    for (const n of [1, 2, 3]) seed(live('pending', { id: id(n) }));
    clock.set('2025-03-12T00:00:00.000Z');
    requests.beforeUpdate = (call) => {
      if (call.before.id === id(2)) throw new Error('boom');
    };
    const reported: string[] = [];
    const result = await sweepDue(deps(), { onFailure: (_error, requestId) => reported.push(requestId) });
    expect(result).toEqual({ expired: 2, purged: 0, failed: [id(2)] });
    expect(reported).toEqual([id(2)]);
  });

  it('works off a backlog larger than one index page in one sweep', async () => {
    for (let n = 1; n <= 25; n++) seed(live('pending', { id: id(n) }));
    clock.set('2025-03-12T00:00:00.000Z');
    expect(await sweepDue(deps(), { concurrency: 3, pageSize: 10 })).toEqual({ expired: 25, purged: 0, failed: [] });
    expect(requests.dueByCalls).toBe(3); // 10 + 10 + 5
  });

  it('reads on past a page of ids the lagging index still lists after their requests ended', async () => {
    for (let n = 1; n <= 6; n++) {
      seed(live('revoked', { id: id(n) }));
      requests.lagging.add(id(n));
    }
    for (let n = 7; n <= 10; n++) seed(live('pending', { id: id(n) }));
    clock.set('2025-03-12T00:00:00.000Z');
    expect(await sweepDue(deps(), { pageSize: 3 })).toEqual({ expired: 4, purged: 0, failed: [] });
    expect(requests.dueByCalls).toBe(4); // 3 ended, 3 ended, 3 due, 1 due
  });

  it('stops after maxRounds pages, leaving the rest for the next sweep', async () => {
    for (let n = 1; n <= 10; n++) seed(live('pending', { id: id(n) }));
    clock.set('2025-03-12T00:00:00.000Z');
    expect(await sweepDue(deps(), { pageSize: 3, maxRounds: 2 })).toEqual({ expired: 6, purged: 0, failed: [] });
    expect(await sweepDue(deps(), { pageSize: 3 })).toEqual({ expired: 4, purged: 0, failed: [] });
  });
});

describe('keeping the schedule in step', () => {
  const recorder = () => {
    const calls: string[] = [];
    const scheduler: ExpiryScheduler = {
      schedule: async (requestId, atIso) => void calls.push(`schedule ${requestId} ${atIso}`),
      cancel: async (requestId) => void calls.push(`cancel ${requestId}`),
    };
    return { calls, scheduler };
  };
  const failing: ExpiryScheduler = {
    schedule: async () => {
      throw new Error('scheduler down');
    },
    cancel: async () => {
      throw new Error('scheduler down');
    },
  };

  it('arms at the link expiry while pending or opened, at the record expiry once submitted, and cancels once ended', async () => {
    const { calls, scheduler } = recorder();
    await syncExpirySchedule({ scheduler }, live('pending'));
    await syncExpirySchedule({ scheduler }, live('opened'));
    await syncExpirySchedule({ scheduler }, live('submitted'));
    for (const status of ['completed', 'revoked', 'expired'] as RequestStatus[]) await syncExpirySchedule({ scheduler }, live(status));
    expect(calls).toEqual([
      `schedule ${ID} ${LINK_EXPIRES}`,
      `schedule ${ID} ${LINK_EXPIRES}`,
      `schedule ${ID} ${RECORD_EXPIRES}`,
      `cancel ${ID}`,
      `cancel ${ID}`,
      `cancel ${ID}`,
    ]);
  });

  it('never throws: a failure is reported, and a failing reporter is ignored', async () => {
    const reported: string[] = [];
    await syncExpirySchedule({ scheduler: failing, onScheduleFailure: (_e, requestId) => reported.push(requestId) }, live('pending'));
    await syncExpirySchedule({ scheduler: failing, onScheduleFailure: () => { throw new Error('reporter broken'); } }, live('revoked'));
    await syncExpirySchedule({}, live('pending'));
    expect(reported).toEqual([ID]);
  });

  const createDeps = (scheduler: ExpiryScheduler, reported: string[] = []) => {
    const directory = new FakeDirectory();
    directory.members = [makeMember('Tess Tech', { id: '01hmember0000000000000000t3' })];
    return {
      deps: {
        directory,
        requests,
        notifier: new FakeNotifier(),
        clock,
        urls: URLS,
        codeKey: KeyFileCodeKey.inMemory(),
        scheduler,
        onDeliveryFailure: () => undefined,
        onScheduleFailure: (_error: unknown, requestId: string) => void reported.push(requestId),
      },
      body: { subject_name: 'Sam Subject', justification: 'Need the router admin password', recipients: [directory.members[0].email] },
    };
  };

  it('createRequest arms the expiry at link_expires_at after storing the request', async () => {
    const { calls, scheduler } = recorder();
    const { deps: d, body } = createDeps(scheduler);
    const result = await createRequest(d, makeCaller(), body);
    expect(requests.created).toHaveLength(1);
    expect(calls).toEqual([`schedule ${result.request.id} ${result.request.link_expires_at}`]);
  });

  it('createRequest succeeds when the scheduler fails, and reports the failure', async () => {
    const reported: string[] = [];
    const { deps: d, body } = createDeps(failing, reported);
    const result = await createRequest(d, makeCaller(), body);
    expect(result.link).toMatch(/\/r\//);
    expect(requests.items.get(result.request.id)!.status).toBe('pending');
    expect(reported).toEqual([result.request.id]);
  });

  it('revoke and complete cancel the schedule after the change, and succeed when cancelling fails', async () => {
    const { calls, scheduler } = recorder();
    seed(live('pending'));
    await revokeRequest({ requests, clock, urls: URLS, scheduler }, makeCaller(), ID);
    seed(live('submitted', { id: '01hrequest0000000000000002' }));
    await completeRequest({ requests, clock, urls: URLS, scheduler }, makeCaller(), '01hrequest0000000000000002');
    expect(calls).toEqual([`cancel ${ID}`, 'cancel 01hrequest0000000000000002']);

    seed(live('opened', { id: '01hrequest0000000000000003' }));
    const reported: string[] = [];
    const view = await revokeRequest(
      { requests, clock, urls: URLS, scheduler: failing, onScheduleFailure: (_e, requestId) => reported.push(requestId) },
      makeCaller(),
      '01hrequest0000000000000003',
    );
    expect(view.status).toBe('revoked');
    expect(reported).toEqual(['01hrequest0000000000000003']);
  });

  it('a refused revoke touches no schedule', async () => {
    const { calls, scheduler } = recorder();
    seed(live('submitted'));
    await expect(revokeRequest({ requests, clock, urls: URLS, scheduler }, makeCaller(), ID)).rejects.toMatchObject({ status: 409 });
    expect(calls).toEqual([]);
  });
});

describe('workers', () => {
  const logged: Array<{ level: string; message: string; extra?: unknown }> = [];
  const logger = {
    info: (message: string, extra?: unknown) => void logged.push({ level: 'info', message, extra }),
    error: (message: string, extra?: unknown) => void logged.push({ level: 'error', message, extra }),
    debug: (message: string, extra?: unknown) => void logged.push({ level: 'debug', message, extra }),
  } as never;
  beforeEach(() => {
    logged.length = 0;
  });

  it('the expiry worker expires the request its schedule names, logging the id and outcome only', async () => {
    seed(live('pending'));
    clock.set('2025-03-12T00:00:00.000Z');
    const worker = createExpireWorker({ requests, clock, urls: URLS, logger });
    expect(await worker({ requestId: ID })).toEqual({ requestId: ID, outcome: 'expired' });
    expect(await worker({ requestId: ID })).toEqual({ requestId: ID, outcome: 'ended' });
    expect(logged).toEqual([
      { level: 'info', message: 'expiry trigger handled', extra: { requestId: ID, outcome: 'expired' } },
      { level: 'info', message: 'expiry trigger handled', extra: { requestId: ID, outcome: 'ended' } },
    ]);
  });

  it.each([{}, { requestId: 42 }, { requestId: 'REQ#x' }, null])('the expiry worker drops a malformed event %j without retrying', async (event) => {
    const worker = createExpireWorker({ requests, clock, urls: URLS, logger });
    expect(await worker(event as never)).toEqual({ requestId: null, outcome: 'invalid' });
    expect(requests.updates).toEqual([]);
  });

  it('the expiry worker throws on a storage error, so that Scheduler retries', async () => {
    seed(live('pending'));
    clock.set('2025-03-12T00:00:00.000Z');
    requests.beforeUpdate = () => {
      throw new Error('ProvisionedThroughputExceeded');
    };
    const worker = createExpireWorker({ requests, clock, urls: URLS, logger });
    await expect(worker({ requestId: ID })).rejects.toThrow('ProvisionedThroughputExceeded');
  });

  it('the sweep worker returns and logs counts', async () => {
    seed(live('pending'));
    seed(live('submitted', { id: '01hrequest0000000000000002' }));
    clock.set('2025-03-12T00:00:00.000Z');
    const sweep = createSweepWorker({ requests, dueRequests: requests, clock, urls: URLS, logger, directory: { getOrganisation: async () => null } });
    expect(await sweep()).toEqual({ expired: 2, purged: 0, failed: 0, sharesExpired: 0 });
    expect(logged).toEqual([{ level: 'info', message: 'expiry sweep', extra: { expired: 2, purged: 0, failed: 0, sharesExpired: 0 } }]);
  });
});
