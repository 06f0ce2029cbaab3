import { describe, expect, it } from 'vitest';
import type { HandoffRequest, RequestStatus } from '../../lambdas/core/model.ts';
import { sweepDueAt } from '../../lambdas/core/subject-flow.ts';
import { makeRequest } from './support/fakes.ts';

const LINK = '2025-03-10T00:00:00.000Z';
const RECORD = '2025-03-11T00:00:00.000Z';
const EARLY_PURGE = '2025-03-10T12:00:00.000Z';
const LATE_PURGE = '2025-03-12T00:00:00.000Z';

const request = (status: RequestStatus, overrides: Partial<HandoffRequest> = {}) =>
  makeRequest({ status, linkExpiresAt: LINK, recordExpiresAt: RECORD, purgeScheduledAt: null, ...overrides });

describe('sweepDueAt', () => {
  it.each(['pending', 'opened'] as RequestStatus[])('a %s request is due at its link expiry, a stray purge ignored', (status) => {
    expect(sweepDueAt(request(status))).toBe(LINK);
    expect(sweepDueAt(request(status, { purgeScheduledAt: '2025-03-01T00:00:00.000Z' }))).toBe(LINK);
  });

  it('a submitted request with no purge is due at its record expiry', () => {
    expect(sweepDueAt(request('submitted'))).toBe(RECORD);
  });

  it('a submitted request with a purge before its record expiry is due at the purge', () => {
    expect(sweepDueAt(request('submitted', { purgeScheduledAt: EARLY_PURGE }))).toBe(EARLY_PURGE);
  });

  it('a submitted request with a purge after its record expiry is due at the record expiry', () => {
    expect(sweepDueAt(request('submitted', { purgeScheduledAt: LATE_PURGE }))).toBe(RECORD);
  });

  it('a purge at the record expiry gives that time', () => {
    expect(sweepDueAt(request('submitted', { purgeScheduledAt: RECORD }))).toBe(RECORD);
  });

  it('a submitted request with no record expiry is due at its purge, or never', () => {
    expect(sweepDueAt(request('submitted', { recordExpiresAt: null, purgeScheduledAt: LATE_PURGE }))).toBe(LATE_PURGE);
    expect(sweepDueAt(request('submitted', { recordExpiresAt: null }))).toBeNull();
  });

  it.each(['completed', 'revoked', 'expired'] as RequestStatus[])('an %s request is never due, even with a purge left over', (status) => {
    expect(sweepDueAt(request(status))).toBeNull();
    expect(sweepDueAt(request(status, { purgeScheduledAt: EARLY_PURGE }))).toBeNull();
  });
});
