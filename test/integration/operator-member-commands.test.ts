/**
 * The operator CLI's member commands beside the application's: `refuse-key` refuses a replaced key
 * as the Members page does (and only the key checked, given --fingerprint), and `enable-member`
 * brings back a member `disable-member` took out, their requests' flags following.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Member } from '../../lambdas/core/model.ts';
import { runAdminCommand } from '../support/admin-command.ts';
import { expectError } from '../support/shapes.ts';
import { submitAsSubject } from '../support/submission.ts';
import { identityKey, startTestService, type TestOrganisation, type TestService } from '../support/test-service.ts';

let service: TestService;
let org: TestOrganisation;

beforeAll(async () => {
  service = await startTestService();
  org = await service.createOrganisation({ name: 'Operator Member Commands Org' });
});
afterAll(() => service?.stop());

const memberNow = async () => (await service.admin.directory.getMember(org.orgId, org.member.id)) as Member;

describe('refuse-key', () => {
  it('refuses only the key checked with the member; their next key waits for approval', async () => {
    const checked = await service.admin.setIdentityKey(org.orgId, org.member.id, identityKey());
    const other = await service.admin.setIdentityKey(org.orgId, org.member.id, identityKey());
    await expect(runAdminCommand(service, 'refuse-key', { org: org.orgId, member: org.member.email, fingerprint: checked.fingerprint })).rejects.toThrow(
      `the key awaiting approval has the fingerprint ${other.fingerprint}, not the one given`,
    );
    expect((await memberNow()).identityKey).toMatchObject({ fingerprint: other.fingerprint, state: 'replaced_pending_approval' });

    expect(await runAdminCommand(service, 'refuse-key', { org: org.orgId, member: org.member.email, fingerprint: other.fingerprint })).toMatchObject({ membership_id: org.member.id, identity_key: { fingerprint: other.fingerprint, state: 'refused' } });
    expect((await memberNow()).identityKey).toMatchObject({ fingerprint: other.fingerprint, state: 'refused' });
    await expect(runAdminCommand(service, 'approve-key', { org: org.orgId, member: org.member.email })).rejects.toThrow('this member has no key awaiting approval');

    const created = await service.call('POST', '/requests', { key: org.key, body: { subject_name: 'Sam Subject', justification: 'VPN password', recipients: [org.member.email] } });
    // Listed by email, and so the requester too: named in both fields, not left out unsaid.
    const refusal = `${org.member.email}'s new key was refused; they must set up another.`;
    expect(expectError(created, 422, 'validation_failed', ['recipients.0', 'requester']).errors['recipients.0']).toEqual([refusal]);

    const next = await service.admin.setIdentityKey(org.orgId, org.member.id, identityKey());
    expect(next.state).toBe('replaced_pending_approval');
    // The refused key is not taken again, behind another one or not.
    await expect(service.admin.setIdentityKey(org.orgId, org.member.id, { publicKey: other.publicKey, fingerprint: other.fingerprint })).rejects.toThrow(
      'an owner or admin refused this key for this member: make a new one',
    );
    expect(await runAdminCommand(service, 'approve-key', { org: org.orgId, member: org.member.email, fingerprint: next.fingerprint })).toMatchObject({ membership_id: org.member.id, identity_key: { fingerprint: next.fingerprint, state: 'verified' } });
  });
});

describe('set-identity-key', () => {
  it("refuses a key another member of the organisation holds", async () => {
    const owner = (await service.admin.directory.getMember(org.orgId, org.owner.id)) as Member;
    const before = (await memberNow()).identityKey;
    const { publicKey, fingerprint } = owner.identityKey!;
    await expect(service.admin.setIdentityKey(org.orgId, org.member.id, { publicKey, fingerprint })).rejects.toThrow("this key is another member's: each member needs a key of their own");
    expect((await memberNow()).identityKey).toEqual(before);
  });
});

describe('enable-member', () => {
  it('enables a disabled member again: they receive requests, and a credential sealed to them is no longer unrecoverable', async () => {
    const created = await service.call('POST', '/requests', { key: org.key, body: { subject_name: 'Sam Subject', justification: 'Router password', recipients: [org.member.email] } });
    expect(created.status, created.text).toBe(201);
    await submitAsSubject(service, created.body.request.id, service.deps.clock, { envelope: { v: 1, ciphertext: 'sealed', recipients: [] }, attachments: [] });
    const unrecoverable = async () => (await service.call('GET', `/requests/${created.body.request.id}`, { key: org.key })).body.unrecoverable;

    expect(await runAdminCommand(service, 'disable-member', { org: org.orgId, member: org.member.email })).toMatchObject({ membership_id: org.member.id, active: false });
    expect(await unrecoverable()).toBe(true);
    expect((await memberNow()).active).toBe(false);

    expect(await runAdminCommand(service, 'enable-member', { org: org.orgId, member: org.member.email })).toMatchObject({ membership_id: org.member.id, active: true });
    expect((await memberNow()).active).toBe(true);
    expect(await unrecoverable()).toBe(false);
    const again = await service.call('POST', '/requests', { key: org.key, body: { subject_name: 'Sam Subject', justification: 'Router password', recipients: [org.member.email] } });
    expect(again.status, again.text).toBe(201);
  });
});
