import { describe, expect, it } from 'vitest';
import type { HandoffRequest, Member, RequestStatus } from '../../lambdas/core/model.ts';
import { checkRecipients, keyChangesNow, noRecipientCanOpen, unrecoverableDetails } from '../../lambdas/core/recipient-health.ts';
import { relink, relinkCause } from '../../lambdas/core/request-state.ts';
import { isLocked, MAX_EMAIL_CODES } from '../../lambdas/core/subject-flow.ts';
import { refreshRecipientHealth } from '../../lambdas/core/use-cases/recipient-health.ts';
import { FakeRequestRepository, fixedClock, makeMember, makeRequest, URLS } from './support/fakes.ts';

describe('relinkCause', () => {
  const at = (status: RequestStatus, submittedAt: string | null = null, needsRelink = false) => makeRequest({ status, submittedAt, needsRelink });

  it('names why a request waiting for its credential may be given a new link', () => {
    expect(relinkCause(at('pending'), false)).toBe('replaced');
    expect(relinkCause(at('opened'), true)).toBe('locked');
    expect(relinkCause(at('opened', null, true), false)).toBe('recipient_key_changed');
    expect(relinkCause(at('revoked'), false)).toBe('revoked');
    expect(relinkCause(at('expired'), false)).toBe('expired');
  });

  it('puts a link marked because its emailed codes are all used up down to that, not to a recipient\'s key', () => {
    const now = new Date('2025-01-01T03:00:00.000Z');
    const spent = { failedAttempts: 0, challengePassed: false, emailPassed: false, emailCodeHash: 'cc'.repeat(32), emailCodeExpiresAt: '2025-01-01T02:00:00.000Z', emailCodesSent: MAX_EMAIL_CODES };
    const usedUp = makeRequest({ status: 'opened', verificationMode: 'email_otp', needsRelink: true, verification: spent });
    expect(relinkCause(usedUp, false, now)).toBe('email_codes_used_up');
    // The last code still live: the mark came from elsewhere (a recipient's new key).
    const live = makeRequest({ status: 'opened', verificationMode: 'email_otp', needsRelink: true, verification: { ...spent, emailCodeExpiresAt: '2025-01-01T04:00:00.000Z' } });
    expect(relinkCause(live, false, now)).toBe('recipient_key_changed');
  });

  it('refuses once a credential was submitted', () => {
    for (const status of ['submitted', 'completed'] as RequestStatus[]) expect(relinkCause(at(status, '2025-01-01T02:00:00.000Z'), false)).toBeNull();
    expect(relinkCause(at('expired', '2025-01-01T02:00:00.000Z'), false)).toBeNull();
  });
});

describe('relink', () => {
  it('is pending again with the new token, code and recipients, its verification and ending forgotten', () => {
    const before = makeRequest({ status: 'revoked', needsRelink: true, verification: { failedAttempts: 5, challengePassed: false, emailPassed: false, emailCodeHash: null, emailCodeExpiresAt: null, emailCodesSent: 1 } });
    const at = new Date('2025-02-01T00:00:00.000Z');
    const recipients = [{ membershipId: '01hmember00000000000000009', label: 'New', fingerprint: 'ef'.repeat(32) }];
    const after = relink(before, { at, linkLifetimeMinutes: 60, tokenHash: 'aa'.repeat(32), challengeCodeHash: 'bb'.repeat(32), recipients, commit: 'x'.repeat(22), verificationMode: 'both' });
    expect(after).toMatchObject({
      status: 'pending',
      verificationMode: 'both',
      linkTokenHash: 'aa'.repeat(32),
      challengeCodeHash: 'bb'.repeat(32),
      recipients,
      commit: 'x'.repeat(22),
      needsRelink: false,
      verification: undefined,
      openedAt: null,
      revokedAt: null,
      revokedReason: null,
      purgeReason: null,
      linkExpiresAt: '2025-02-01T01:00:00.000Z',
    });
    expect(after.createdAt).toBe(before.createdAt);
  });
});

describe('recipient health', () => {
  const sealedTo = (members: Member[]) =>
    makeRequest({ recipients: members.map((m) => ({ membershipId: m.id, label: m.name, fingerprint: m.identityKey!.fingerprint })) });
  const now = (...members: Member[]) => new Map(members.map((m) => [m.id, m]));

  it('finds a replaced key and a disabled member, and says nobody can open only when every recipient has one', () => {
    const ann = makeMember('Ann');
    const bob = makeMember('Bob');
    const request = sealedTo([ann, bob]);
    expect(noRecipientCanOpen(checkRecipients(request, now(ann, bob)))).toBe(false);

    const annReplaced = { ...ann, identityKey: { ...makeMember('x').identityKey!, state: 'replaced_pending_approval' as const } };
    const checks = checkRecipients(request, now(annReplaced, bob));
    expect(keyChangesNow(request, now(annReplaced, bob))).toEqual([{ membershipId: ann.id, fingerprint: annReplaced.identityKey.fingerprint }]);
    expect(noRecipientCanOpen(checks)).toBe(false);

    const bobDisabled = { ...bob, active: false };
    const lost = checkRecipients(request, now(annReplaced, bobDisabled));
    expect(noRecipientCanOpen(lost)).toBe(true);
    expect(unrecoverableDetails(lost)).toEqual({
      reason: 'recipients_keys_replaced_or_disabled',
      recipients: [
        { membership_id: ann.id, label: 'Ann', problem: 'key_replaced' },
        { membership_id: bob.id, label: 'Bob', problem: 'disabled' },
      ],
    });
    // A disabled member alone never makes a link unusable: the subject's page still finds the key it was committed to.
    expect(keyChangesNow(request, now(ann, bobDisabled))).toEqual([]);
  });

  it('counts a member who is gone as a replaced key', () => {
    const ann = makeMember('Ann');
    expect(checkRecipients(sealedTo([ann]), now())[0].problem).toBe('key_replaced');
  });
});

describe('refreshing recipient health while the members change again', () => {
  it('a member disabled and enabled again at once: the refresh of the disable ends by the members as they are now, the credential recoverable', async () => {
    const ann = makeMember('Ann');
    const request = makeRequest({
      status: 'submitted',
      submittedAt: '2025-03-01T00:00:00.000Z',
      recipients: [{ membershipId: ann.id, label: 'Ann', fingerprint: ann.identityKey!.fingerprint }],
    });
    const requests = new FakeRequestRepository();
    requests.items.set(request.id, structuredClone(request));
    let members: Member[] = [{ ...ann, active: false }];
    const readings: boolean[] = [];
    const directory = {
      listMembers: async () => {
        const listed = structuredClone(members);
        readings.push(listed[0]!.active);
        // The member is enabled again as soon as the disable's refresh has read them (its refresh finds nothing to do yet).
        members = [{ ...ann, active: true }];
        return listed;
      },
    };
    const actor = { type: 'system' as const, label: 'Recipient check' };
    // The fake has no submit; a refresh never submits.
    await refreshRecipientHealth({ requests: requests as never, directory, clock: fixedClock(), urls: URLS }, request.orgId, ann.id, actor);
    expect(readings).toEqual([false, true, true]);
    expect(requests.items.get(request.id)!.unrecoverable ?? false).toBe(false);
  });
});

describe('refreshing recipient health of many requests', () => {
  it('reads several requests at once, eight at most, and flags every one', async () => {
    const ann = makeMember('Ann');
    const requests = new FakeRequestRepository();
    for (let i = 0; i < 30; i++) {
      const request = makeRequest({
        id: `01hrequest000000000000000${String(i).padStart(2, '0')}`.slice(-26),
        status: 'submitted',
        submittedAt: '2025-03-01T00:00:00.000Z',
        recipients: [{ membershipId: ann.id, label: 'Ann', fingerprint: ann.identityKey!.fingerprint }],
      });
      requests.items.set(request.id, structuredClone(request));
    }
    let inFlight = 0;
    let most = 0;
    const read = requests.get.bind(requests);
    requests.get = async (requestId: string) => {
      most = Math.max(most, ++inFlight);
      await new Promise((resolve) => setTimeout(resolve, 5));
      inFlight -= 1;
      return read(requestId);
    };
    const directory = { listMembers: async () => [{ ...ann, active: false }] };
    const actor = { type: 'system' as const, label: 'Recipient check' };
    expect(await refreshRecipientHealth({ requests: requests as never, directory, clock: fixedClock(), urls: URLS }, ann.orgId, ann.id, actor)).toBe(30);
    expect(most).toBe(8);
    expect([...requests.items.values()].every((request) => request.unrecoverable === true)).toBe(true);
  });
});

describe('a recipient key change on a link already marked needs_relink', () => {
  const actor = { type: 'system' as const, label: 'Recipient check' };
  /** A request to Ann and Bob as `overrides` leave it, and a refresh of it by the members `members()` lists. */
  const setUp = (ann: Member, bob: Member, overrides: Partial<HandoffRequest> = {}) => {
    const request = makeRequest({
      status: 'opened',
      recipients: [ann, bob].map((m) => ({ membershipId: m.id, label: m.name, fingerprint: m.identityKey!.fingerprint })),
      ...overrides,
    });
    const requests = new FakeRequestRepository();
    requests.items.set(request.id, structuredClone(request));
    let members: Member[] = [ann, bob];
    const refresh = async (...now: Member[]) => {
      members = now;
      await refreshRecipientHealth({ requests: requests as never, directory: { listMembers: async () => members }, clock: fixedClock(), urls: URLS }, request.orgId, now[0].id, actor);
    };
    const entries = () => requests.updates.map((call) => [call.audit.type, call.audit.data?.details]);
    return { requests, refresh, entries, stored: () => requests.items.get(request.id)! };
  };
  const newKey = (member: Member) => ({ ...member, identityKey: { ...makeMember('x').identityKey!, state: 'replaced_pending_approval' as const } });

  it('a link locked by wrong codes: each key change is recorded once, the link stays locked and marked, the cause of a new link still the lock', async () => {
    const [ann, bob] = [makeMember('Ann'), makeMember('Bob')];
    const locked = { failedAttempts: 5, challengePassed: false, emailPassed: false, emailCodeHash: null, emailCodeExpiresAt: null, emailCodesSent: 0 };
    const { refresh, entries, stored } = setUp(ann, bob, { needsRelink: true, verification: locked });

    const annAgain = newKey(ann);
    await refresh(annAgain, bob);
    expect(entries()).toEqual([['request.recipient_key_changed', { reason: 'recipient_key_changed', recipients: ['Ann'] }]]);
    // The same members again (another round, a retried call, a later change of someone else): nothing more.
    await refresh(annAgain, bob);
    await refresh(annAgain, { ...bob, active: false });
    expect(entries()).toHaveLength(1);
    expect(stored().needsRelink).toBe(true);
    expect(isLocked(stored())).toBe(true);
    expect(relinkCause(stored(), isLocked(stored()))).toBe('locked');
  });

  it('a link marked for one recipient\'s key: a second recipient\'s change, then the first\'s again, each get an entry of their own', async () => {
    const [ann, bob] = [makeMember('Ann'), makeMember('Bob')];
    const { refresh, entries, stored } = setUp(ann, bob);

    const annAgain = newKey(ann);
    await refresh(annAgain, bob);
    const bobAgain = newKey(bob);
    await refresh(annAgain, bobAgain);
    await refresh(annAgain, bobAgain);
    const annThird = newKey(ann);
    await refresh(annThird, bobAgain);
    expect(entries()).toEqual([
      ['request.needs_relink', { reason: 'recipient_key_changed', recipients: ['Ann'] }],
      ['request.recipient_key_changed', { reason: 'recipient_key_changed', recipients: ['Bob'] }],
      ['request.recipient_key_changed', { reason: 'recipient_key_changed', recipients: ['Ann'] }],
    ]);
    expect(stored().needsRelink).toBe(true);
    expect(relinkCause(stored(), false)).toBe('recipient_key_changed');

    // A new link is committed to the keys as they are now: nothing is recorded against them yet.
    const relinked = relink(stored(), { at: new Date('2025-02-01T00:00:00.000Z'), linkLifetimeMinutes: 60, tokenHash: 'aa'.repeat(32), challengeCodeHash: null, recipients: stored().recipients, commit: 'x'.repeat(22), verificationMode: 'challenge' });
    expect(relinked.keyChangesRecorded).toBeUndefined();
  });
});
