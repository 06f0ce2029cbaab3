import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { recipientCommitment } from '../../lambdas/core/commitment.ts';

const A = { membershipId: '01haaaaaaaaaaaaaaaaaaaaaaa', fingerprint: '1'.repeat(64) };
const B = { membershipId: '01hbbbbbbbbbbbbbbbbbbbbbbb', fingerprint: '2'.repeat(64) };
const C = { membershipId: '01hccccccccccccccccccccccc', fingerprint: 'ab'.repeat(32) };

describe('recipientCommitment', () => {
  it('is 22 base64url characters', () => {
    const commit = recipientCommitment([A, B, C]);
    expect(commit).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(Buffer.from(commit, 'base64url')).toHaveLength(16);
  });

  it('matches a vector computed independently from RFC 8785 canonical JSON', () => {
    // Written by hand: entries sorted by membership_id, keys in code-point order
    // ("fingerprint" < "membership_id"), no whitespace.
    const canonical =
      `[{"fingerprint":"${'1'.repeat(64)}","membership_id":"01haaaaaaaaaaaaaaaaaaaaaaa"},` +
      `{"fingerprint":"${'2'.repeat(64)}","membership_id":"01hbbbbbbbbbbbbbbbbbbbbbbb"}]`;
    const expected = createHash('sha256').update(canonical, 'utf8').digest().subarray(0, 16).toString('base64url');
    expect(recipientCommitment([B, A])).toBe(expected);
    expect(recipientCommitment([A, B])).toBe(expected);
  });

  it('matches a pinned literal for one recipient', () => {
    // sha256('[{"fingerprint":"11…11","membership_id":"01haaaaaaaaaaaaaaaaaaaaaaa"}]'), first 16 bytes, base64url.
    expect(recipientCommitment([A])).toBe('XVlCchi813agpNtmKZ7UxA');
  });

  it('does not depend on the order of the recipient list', () => {
    const expected = recipientCommitment([A, B, C]);
    for (const order of [[A, C, B], [B, A, C], [B, C, A], [C, A, B], [C, B, A]]) {
      expect(recipientCommitment(order)).toBe(expected);
    }
  });

  it('sorts by membership id, not by fingerprint', () => {
    // Fingerprint order is the reverse of membership order here.
    const x = { membershipId: '01h00000000000000000000001', fingerprint: 'f'.repeat(64) };
    const y = { membershipId: '01h00000000000000000000002', fingerprint: '0'.repeat(64) };
    const canonical =
      `[{"fingerprint":"${'f'.repeat(64)}","membership_id":"01h00000000000000000000001"},` +
      `{"fingerprint":"${'0'.repeat(64)}","membership_id":"01h00000000000000000000002"}]`;
    const expected = createHash('sha256').update(canonical).digest().subarray(0, 16).toString('base64url');
    expect(recipientCommitment([y, x])).toBe(expected);
  });

  it('changes when any fingerprint changes', () => {
    const base = recipientCommitment([A, B, C]);
    expect(recipientCommitment([{ ...A, fingerprint: '3'.repeat(64) }, B, C])).not.toBe(base);
    expect(recipientCommitment([A, { ...B, fingerprint: '3'.repeat(64) }, C])).not.toBe(base);
    expect(recipientCommitment([A, B, { ...C, fingerprint: 'ab'.repeat(31) + 'ac' }])).not.toBe(base);
  });

  it('changes when any membership id changes, or membership changes', () => {
    const base = recipientCommitment([A, B, C]);
    expect(recipientCommitment([{ ...A, membershipId: '01haaaaaaaaaaaaaaaaaaaaaab' }, B, C])).not.toBe(base);
    expect(recipientCommitment([A, B])).not.toBe(base);
    expect(recipientCommitment([A, B, C, { membershipId: '01hdddddddddddddddddddddd0', fingerprint: '4'.repeat(64) }])).not.toBe(base);
  });

  it('binds fingerprint to member: swapping two fingerprints changes it', () => {
    const base = recipientCommitment([A, B]);
    expect(recipientCommitment([{ ...A, fingerprint: B.fingerprint }, { ...B, fingerprint: A.fingerprint }])).not.toBe(base);
  });
});
