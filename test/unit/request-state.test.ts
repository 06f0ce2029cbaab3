import { describe, expect, it } from 'vitest';
import { ApiError } from '../../lambdas/core/errors.ts';
import { REQUEST_STATUSES, type RequestStatus } from '../../lambdas/core/model.ts';
import { complete, revoke } from '../../lambdas/core/request-state.ts';
import { makeRequest } from './support/fakes.ts';

const AT = '2025-06-01T12:00:00.000Z';

const expectIllegal = (fn: () => unknown) => {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(409);
    expect((error as ApiError).code).toBe('illegal_transition');
    return;
  }
  throw new Error('expected an illegal_transition error');
};

const fresh = (status: RequestStatus) =>
  makeRequest({ status, revokedAt: null, revokedReason: null, completedAt: null, purgeReason: null, purgeScheduledAt: null });

describe('revoke', () => {
  it.each(['pending', 'opened'] as RequestStatus[])('revokes a %s request', (status) => {
    const before = fresh(status);
    const after = revoke(before, AT, 'revoked_by_member');
    expect(after.status).toBe('revoked');
    expect(after.revokedAt).toBe(AT);
    expect(after.revokedReason).toBe('revoked_by_member');
    expect(after.updatedAt).toBe(AT);
    expect(after.completedAt).toBeNull();
    expect(before.status).toBe(status); // the input is not mutated
  });

  it.each(REQUEST_STATUSES.filter((s) => s !== 'pending' && s !== 'opened'))('refuses a %s request with 409', (status) => {
    expectIllegal(() => revoke(fresh(status), AT, null));
  });
});

describe('the refusals\u2019 words', () => {
  it('say "an" before a status that starts with a vowel', () => {
    expect(() => revoke(fresh('expired'), AT, null)).toThrow('An expired request cannot be revoked; only pending or opened ones can.');
    expect(() => complete(fresh('opened'), AT, 'completed_by_member')).toThrow('An opened request cannot be completed; only submitted ones can.');
    expect(() => complete(fresh('revoked'), AT, 'completed_by_member')).toThrow('A revoked request cannot be completed; only submitted ones can.');
  });
});

describe('complete', () => {
  it('completes a submitted request and clears a scheduled purge', () => {
    const before = fresh('submitted');
    before.purgeScheduledAt = '2025-06-02T00:00:00.000Z';
    const after = complete(before, AT, 'completed_via_api');
    expect(after.status).toBe('completed');
    expect(after.completedAt).toBe(AT);
    expect(after.purgeReason).toBe('completed_via_api');
    expect(after.purgeScheduledAt).toBeNull();
    expect(after.updatedAt).toBe(AT);
    expect(before.status).toBe('submitted');
  });

  it.each(REQUEST_STATUSES.filter((s) => s !== 'submitted'))('refuses a %s request with 409', (status) => {
    expectIllegal(() => complete(fresh(status), AT, 'completed_by_member'));
  });
});
