import { beforeEach, describe, expect, it } from 'vitest';
import { ApiError, WriteConflict } from '../../lambdas/core/errors.ts';
import type { HandoffRequest, RequestStatus } from '../../lambdas/core/model.ts';
import { completeRequest, revokeRequest } from '../../lambdas/core/use-cases/end-request.ts';
import { CLIENT_ID, FakeRequestRepository, FIXED_NOW, fixedClock, KEY_ID, makeCaller, makeRequest, ORG_ID, OTHER_CLIENT_ID, URLS } from './support/fakes.ts';

const ID = '01hrequest0000000000000001';
let requests: FakeRequestRepository;
const deps = () => ({ requests, clock: fixedClock(), urls: URLS });

const seed = (status: RequestStatus, overrides: Partial<HandoffRequest> = {}) => {
  const request = makeRequest({
    id: ID,
    status,
    revokedAt: null,
    revokedReason: null,
    completedAt: null,
    purgeReason: null,
    purgeScheduledAt: null,
    // Deadlines still ahead of the fixed clock (a request past them is expired: see below).
    linkExpiresAt: '2025-03-05T00:00:00.000Z',
    recordExpiresAt: '2025-03-05T00:00:00.000Z',
    version: 7,
    ...overrides,
  });
  requests.items.set(ID, request);
  return request;
};

const rejection = async (promise: Promise<unknown>) =>
  promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (e: unknown) => e,
  );

beforeEach(() => {
  requests = new FakeRequestRepository();
});

describe('revokeRequest', () => {
  it.each(['pending', 'opened'] as RequestStatus[])('revokes a %s request with its audit entry', async (status) => {
    seed(status);
    const view = await revokeRequest(deps(), makeCaller(), ID);
    expect(view.status).toBe('revoked');
    expect(view.revoked_at).toBe(FIXED_NOW.toISOString());
    expect(view.revoked_reason).toBe('revoked_via_api');
    expect(requests.updates).toHaveLength(1);
    const [update] = requests.updates;
    expect(update.before.status).toBe(status);
    expect(update.after.status).toBe('revoked');
    expect(update.purgeMaterial).toBe(false);
    expect(update.audit).toEqual({
      orgId: ORG_ID,
      type: 'request.revoked',
      actor: { type: 'api', label: 'Helpdesk integration', id: KEY_ID },
      clientId: CLIENT_ID,
      requestId: ID,
      data: { request: view, actor: { type: 'api', label: 'Helpdesk integration' }, details: { revoked_reason: 'revoked_via_api' } },
    });
    expect(requests.items.get(ID)!.status).toBe('revoked');
    expect(requests.items.get(ID)!.version).toBe(8);
  });

  it.each(['submitted', 'completed', 'revoked', 'expired'] as RequestStatus[])('answers 409 illegal_transition for a %s request', async (status) => {
    seed(status);
    const error = await rejection(revokeRequest(deps(), makeCaller(), ID));
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 409, code: 'illegal_transition' });
    expect(requests.updates).toEqual([]);
  });
});

describe('completeRequest', () => {
  it('completes a submitted request and purges its material', async () => {
    seed('submitted');
    const view = await completeRequest(deps(), makeCaller(), ID);
    expect(view.status).toBe('completed');
    expect(view.completed_at).toBe(FIXED_NOW.toISOString());
    expect(view.purge_reason).toBe('completed_via_api');
    const [update] = requests.updates;
    expect(update.purgeMaterial).toBe(true);
    expect(update.audit.type).toBe('request.completed');
    expect(update.audit.data.details).toEqual({ purge_reason: 'completed_via_api' });
  });

  it.each(['pending', 'opened', 'completed', 'revoked', 'expired'] as RequestStatus[])('answers 409 illegal_transition for a %s request', async (status) => {
    seed(status);
    const error = await rejection(completeRequest(deps(), makeCaller(), ID));
    expect(error).toMatchObject({ status: 409, code: 'illegal_transition' });
    expect(requests.updates).toEqual([]);
  });
});

describe('a request whose deadline passed before the expiry worker ran', () => {
  const PAST = '2025-03-04T05:06:06.999Z';

  it.each(['pending', 'opened'] as RequestStatus[])('a %s one past link_expires_at is recorded expired, and the revoke refused', async (status) => {
    seed(status, { linkExpiresAt: PAST });
    const error = await rejection(revokeRequest(deps(), makeCaller(), ID));
    expect(error).toMatchObject({ status: 409, code: 'illegal_transition' });
    expect(requests.updates).toHaveLength(1);
    const [update] = requests.updates;
    expect(update.after).toMatchObject({ status: 'expired', purgeReason: 'expired' });
    expect(update.audit.type).toBe('request.expired');
    expect(update.audit.data.details).toEqual({ purge_reason: 'expired', previous_status: status });
    expect(requests.items.get(ID)!.revokedAt).toBeNull();
  });

  it('a submitted one past record_expires_at is recorded expired and purged, and the completion refused', async () => {
    seed('submitted', { recordExpiresAt: PAST });
    const error = await rejection(completeRequest(deps(), makeCaller(), ID));
    expect(error).toMatchObject({ status: 409, code: 'illegal_transition' });
    const [update] = requests.updates;
    expect(update.after.status).toBe('expired');
    expect(update.purgeMaterial).toBe(true);
    expect(update.audit.type).toBe('request.expired');
    expect(requests.items.get(ID)!.completedAt).toBeNull();
  });

  it('one a millisecond before its deadline is still revoked', async () => {
    seed('pending', { linkExpiresAt: '2025-03-04T05:06:07.001Z' });
    await expect(revokeRequest(deps(), makeCaller(), ID)).resolves.toMatchObject({ status: 'revoked' });
  });
});

describe('visibility', () => {
  it('answers 404 for an unknown id, another organisation, or another client of a scoped key', async () => {
    await expect(revokeRequest(deps(), makeCaller(), ID)).rejects.toMatchObject({ status: 404, code: 'not_found' });
    seed('pending', { orgId: '01hzzzzzzzzzzzzzzzzzzzzor9' });
    await expect(revokeRequest(deps(), makeCaller(), ID)).rejects.toMatchObject({ status: 404, code: 'not_found' });
    seed('pending');
    await expect(revokeRequest(deps(), makeCaller({}, { clientId: OTHER_CLIENT_ID }), ID)).rejects.toMatchObject({ status: 404 });
    expect(requests.updates).toEqual([]);
    // The key scoped to the request's own client may.
    await expect(revokeRequest(deps(), makeCaller({}, { clientId: CLIENT_ID }), ID)).resolves.toMatchObject({ status: 'revoked' });
  });
});

describe('races (WriteConflict)', () => {
  it('retries after a WriteConflict and succeeds on the second attempt', async () => {
    seed('pending');
    requests.beforeUpdate = (_, attempt) => {
      if (attempt === 1) throw new WriteConflict('lost a race');
    };
    const view = await revokeRequest(deps(), makeCaller(), ID);
    expect(view.status).toBe('revoked');
    expect(requests.getCalls).toBe(2);
    expect(requests.updates).toHaveLength(1);
  });

  it('decides afresh on the re-read: a request revoked meanwhile cannot be completed', async () => {
    seed('submitted');
    requests.beforeUpdate = (_, attempt) => {
      if (attempt === 1) {
        // Someone else revokes... impossible for submitted, so someone completes it through the ticket path.
        const current = requests.items.get(ID)!;
        requests.items.set(ID, { ...current, status: 'completed', purgeReason: 'ticket_closed', version: current.version + 1 });
      }
    };
    const error = await rejection(completeRequest(deps(), makeCaller(), ID));
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 409, code: 'illegal_transition' });
    expect(requests.getCalls).toBe(2);
    expect(requests.updates).toEqual([]);
    expect(requests.items.get(ID)!.purgeReason).toBe('ticket_closed');
  });

  it('a racing revoke makes the losing revoke answer illegal_transition', async () => {
    seed('opened');
    requests.beforeUpdate = (_, attempt) => {
      if (attempt === 1) {
        const current = requests.items.get(ID)!;
        requests.items.set(ID, { ...current, status: 'revoked', version: current.version + 1 });
      }
    };
    await expect(revokeRequest(deps(), makeCaller(), ID)).rejects.toMatchObject({ status: 409, code: 'illegal_transition' });
  });

  it('revokes the re-read state when the request was opened meanwhile', async () => {
    seed('pending');
    requests.beforeUpdate = (_, attempt) => {
      if (attempt === 1) {
        const current = requests.items.get(ID)!;
        requests.items.set(ID, { ...current, status: 'opened', openedAt: '2025-03-04T05:00:00.000Z', version: current.version + 1 });
      }
    };
    const view = await revokeRequest(deps(), makeCaller(), ID);
    expect(view.status).toBe('revoked');
    expect(requests.updates[0].before.status).toBe('opened');
    expect(view.opened_at).toBe('2025-03-04T05:00:00.000Z');
  });

  it('gives up after five lost races and rethrows the WriteConflict', async () => {
    seed('pending');
    requests.beforeUpdate = () => {
      throw new WriteConflict('always losing');
    };
    const error = await rejection(revokeRequest(deps(), makeCaller(), ID));
    expect(error).toBeInstanceOf(WriteConflict);
    expect(requests.getCalls).toBe(5);
  });

  it('does not retry other errors', async () => {
    seed('pending');
    requests.beforeUpdate = () => {
      throw new Error('DynamoDB unavailable');
    };
    await expect(revokeRequest(deps(), makeCaller(), ID)).rejects.toThrow('DynamoDB unavailable');
    expect(requests.getCalls).toBe(1);
  });
});
