/**
 * The operator CLI's identity key changes (AdminStore.setIdentityKey / decideIdentityKey) are
 * written on condition that the member's key is still the one read, as the web application's are:
 * an approval decided on a key the member has since replaced never verifies the newer key, and a
 * replacement decided on a stale read never overwrites a key registered meanwhile.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Member } from '../../lambdas/core/model.ts';
import { identityKey, startTestService, type TestOrganisation, type TestService } from '../support/test-service.ts';

const CHANGED_MEANWHILE = "the member's identity key changed meanwhile: nothing was written; run the command again";

let service: TestService;
let org: TestOrganisation;

beforeAll(async () => {
  service = await startTestService();
  org = await service.createOrganisation({ name: 'Operator Keys Org' });
});
afterAll(() => service?.stop());

const memberNow = async () => (await service.admin.directory.getMember(org.orgId, org.member.id)) as Member;

/** The next read of the member answers `stale`, as a read that lost a race would. */
const nextReadAnswers = (stale: Member) => {
  const directory = service.admin.directory;
  const read = directory.getMember.bind(directory);
  directory.getMember = async (orgId: string, memberId: string) => {
    directory.getMember = read;
    return memberId === stale.id ? stale : read(orgId, memberId);
  };
};

describe('operator identity key changes, conditioned on the key read', () => {
  it('an approval decided on a replaced key does not verify the key the member registered since', async () => {
    await service.admin.setIdentityKey(org.orgId, org.member.id, identityKey());
    const approvalRead = await memberNow();
    expect(approvalRead.identityKey?.state).toBe('replaced_pending_approval');
    // The member registers yet another key before the approval lands.
    const newer = await service.admin.setIdentityKey(org.orgId, org.member.id, identityKey());

    nextReadAnswers(approvalRead);
    await expect(service.admin.decideIdentityKey(org.orgId, org.member.id, 'approve')).rejects.toThrow(CHANGED_MEANWHILE);
    expect((await memberNow()).identityKey).toMatchObject({ fingerprint: newer.fingerprint, state: 'replaced_pending_approval' });

    // Read afresh, the approval applies to the key that is there.
    await service.admin.decideIdentityKey(org.orgId, org.member.id, 'approve');
    expect((await memberNow()).identityKey).toMatchObject({ fingerprint: newer.fingerprint, state: 'verified' });
  });

  it('a replacement decided on a stale read does not overwrite a key set meanwhile', async () => {
    const staleRead = await memberNow();
    const meanwhile = await service.admin.setIdentityKey(org.orgId, org.member.id, identityKey());

    nextReadAnswers(staleRead);
    await expect(service.admin.setIdentityKey(org.orgId, org.member.id, identityKey())).rejects.toThrow(CHANGED_MEANWHILE);
    expect((await memberNow()).identityKey?.fingerprint).toBe(meanwhile.fingerprint);
  });

  it('given the fingerprint checked with the member, approves only that key', async () => {
    const checked = await service.admin.setIdentityKey(org.orgId, org.member.id, identityKey());
    const other = await service.admin.setIdentityKey(org.orgId, org.member.id, identityKey());
    await expect(service.admin.decideIdentityKey(org.orgId, org.member.id, 'approve', checked.fingerprint)).rejects.toThrow(
      `the key awaiting approval has the fingerprint ${other.fingerprint}, not the one given: check it with the member again`,
    );
    expect((await memberNow()).identityKey).toMatchObject({ fingerprint: other.fingerprint, state: 'replaced_pending_approval' });
    // As a person reads it out: in groups, in capitals.
    const spoken = other.fingerprint.toUpperCase().match(/.{4}/g)!.join(' ');
    await service.admin.decideIdentityKey(org.orgId, org.member.id, 'approve', spoken);
    expect((await memberNow()).identityKey).toMatchObject({ fingerprint: other.fingerprint, state: 'verified' });
  });
});
