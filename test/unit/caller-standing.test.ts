/**
 * A change that writes the caller's own item carries the caller's check in that write's condition;
 * when the write fails, the item the failure returns (as the table holds it) tells whether the
 * caller no longer stands (401) or the write met an ordinary conflict (read again and retried).
 */
import { describe, expect, it } from 'vitest';
import { apiKeyStanding, itemFoundAt, joinedWithCheck, memberStanding } from '../../lambdas/store/caller-standing.ts';

const refusal = () => new Error('refused');
const member = memberStanding('table', { orgId: 'o1', memberId: 'm1', sessionCreatedAt: '2026-11-01T10:00:00.000Z' }, refusal);
const key = apiKeyStanding('table', 'hash', refusal);

/** A cancelled transaction whose second write returned `item`, as the SDK reports it. */
const cancelled = (item: Record<string, unknown>) => ({ name: 'TransactionCanceledException', CancellationReasons: [{ Code: 'None' }, { Code: 'ConditionalCheckFailed', Item: item }] });

describe('the item a failed write returns', () => {
  it('is read from the attribute values the table returns', () => {
    expect(itemFoundAt(cancelled({ active: { BOOL: true }, sessionsValidFrom: { S: '2026-10-01T00:00:00.000Z' }, version: { N: '3' }, revokedAt: { NULL: true } }), 1)).toEqual({
      active: true,
      sessionsValidFrom: '2026-10-01T00:00:00.000Z',
      version: 3,
      revokedAt: null,
    });
    expect(itemFoundAt(cancelled({ active: { BOOL: true } }), 0)).toBeUndefined();
  });

  it('lets a member who is still active and not disabled since the session began stand: the failure was a conflict', () => {
    expect(member.standsIn(itemFoundAt(cancelled({ active: { BOOL: true } }), 1))).toBe(true);
    expect(member.standsIn(itemFoundAt(cancelled({ active: { BOOL: true }, sessionsValidFrom: { S: '2026-11-01T09:00:00.000Z' } }), 1))).toBe(true);
  });

  it('refuses a member disabled, or disabled and enabled again since the session began, or gone', () => {
    expect(member.standsIn(itemFoundAt(cancelled({ active: { BOOL: false } }), 1))).toBe(false);
    expect(member.standsIn(itemFoundAt(cancelled({ active: { BOOL: true }, sessionsValidFrom: { S: '2026-11-01T11:00:00.000Z' } }), 1))).toBe(false);
    expect(member.standsIn(undefined)).toBe(false);
  });

  it('with a role, refuses a member whose role changed since the call was let in, with its own answer', () => {
    const roleChanged = () => new Error('role changed');
    const admin = memberStanding('table', { orgId: 'o1', memberId: 'm1', sessionCreatedAt: '2026-11-01T10:00:00.000Z', role: 'admin' }, refusal, roleChanged);
    expect(admin.check.ConditionCheck!.ConditionExpression).toContain('#callerRole = :callerRole');
    expect(admin.check.ConditionCheck!.ExpressionAttributeValues).toMatchObject({ ':callerRole': 'admin' });
    expect(admin.standsIn(itemFoundAt(cancelled({ active: { BOOL: true }, role: { S: 'admin' } }), 1))).toBe(true);
    const demoted = itemFoundAt(cancelled({ active: { BOOL: true }, role: { S: 'member' } }), 1);
    expect(admin.standsIn(demoted)).toBe(false);
    expect(admin.refusal(demoted).message).toBe('role changed');
    // Disabled (whatever the role) or not returned: the session's refusal.
    expect(admin.refusal(itemFoundAt(cancelled({ active: { BOOL: false }, role: { S: 'member' } }), 1)).message).toBe('refused');
    expect(admin.refusal(undefined).message).toBe('refused');
  });

  it('lets a key stand only while it is not revoked', () => {
    expect(key.standsIn(itemFoundAt(cancelled({ revokedAt: { NULL: true } }), 1))).toBe(true);
    expect(key.standsIn(itemFoundAt(cancelled({ revokedAt: { S: '2026-11-01T11:00:00.000Z' } }), 1))).toBe(false);
  });
});

describe('the check joined to a write of the caller\'s item', () => {
  it('keeps the write\'s own condition and values beside the check\'s, and asks for the old item on failure', () => {
    const write = { Update: { TableName: 'table', Key: { pk: 'ORG#o1', sk: 'MEMBER#m1' }, UpdateExpression: 'SET #k = :k', ConditionExpression: '#active = :active', ExpressionAttributeNames: { '#k': 'key', '#active': 'active' }, ExpressionAttributeValues: { ':k': 'x', ':active': true } } };
    const joined = joinedWithCheck(write, member).Update!;
    expect(joined.ConditionExpression).toBe(`(#active = :active) AND (${member.check.ConditionCheck!.ConditionExpression})`);
    expect(joined.ExpressionAttributeValues).toMatchObject({ ':k': 'x', ':active': true, ':callerActive': true });
    expect(joined.ExpressionAttributeNames).toMatchObject({ '#k': 'key', '#callerActive': 'active' });
    expect(joined.ReturnValuesOnConditionCheckFailure).toBe('ALL_OLD');
  });
});
