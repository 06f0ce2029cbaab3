/**
 * A member disabled while one of their calls is under way: their session was good when the call
 * began, and the disable commits before the call's change. The disable wins, whatever the change:
 * the call answers 401 as their next call would, and nothing of theirs follows member.disabled.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { auditEntries, requestItem } from '../support/shapes.ts';
import { startTestService, type TestOrganisation, type TestService } from '../support/test-service.ts';
import { createRequestIn } from '../support/requests.ts';
import { submitAsSubject } from '../support/submission.ts';
import { MemberBrowser } from '../support/member-browser.ts';
import { exportPublicKey, fingerprintOf, generateIdentityPair } from '../../web/crypto/identity.ts';
import { changeAfterRead } from '../support/change-meanwhile.ts';

let service: TestService;
let org: TestOrganisation;

beforeAll(async () => {
  service = await startTestService();
  org = await service.createOrganisation({ name: 'Disabled Mid-call Org' });
});
afterAll(() => service?.stop());
afterEach(async () => {
  vi.restoreAllMocks();
  await service.admin.setMemberActive(org.orgId, org.member.id, true);
});

/** Calls `path` as the member, disabling them (from outside the call) once it has read the request. */
const disabledMidCall = async (path: string, headers: Record<string, string> = {}) => {
  const tech = await MemberBrowser.signIn(service, org.member.email);
  return changeAfterRead(service.deps.requests, 'get', () => tech.call('POST', path, { headers }), () => service.admin.setMemberActive(org.orgId, org.member.id, false));
};

const typesSinceDisable = async () => {
  const types = (await auditEntries(service, org.orgId)).map((entry) => entry.type);
  return types.slice(types.lastIndexOf('member.disabled'));
};

describe('a member disabled while their call is under way', () => {
  it('complete: 401, the credential kept, nothing audited after the disable', async () => {
    const { request } = await createRequestIn(service, org, { recipients: [org.member.email, org.owner.email], verification_mode: 'none' });
    await submitAsSubject(service, request.id, { now: () => new Date() }, { envelope: { v: 1, ciphertext: 'sealed' }, attachments: [] });
    const answer = await disabledMidCall(`/app/api/requests/${request.id}/complete`);
    expect([answer.status, answer.body?.code]).toEqual([401, 'unauthenticated']);
    expect((await requestItem(service, request.id))!.status).toBe('submitted');
    expect(await typesSinceDisable()).toEqual(['member.disabled']);
  });

  it('relink: 401, no new link handed out, the request as it was', async () => {
    const { request } = await createRequestIn(service, org, { recipients: [org.member.email, org.owner.email], verification_mode: 'none' });
    const before = (await requestItem(service, request.id))!;
    const answer = await disabledMidCall(`/app/api/requests/${request.id}/relink`);
    expect([answer.status, answer.body?.code, answer.body?.link]).toEqual([401, 'unauthenticated', undefined]);
    const after = (await requestItem(service, request.id))!;
    expect([after.version, after.linkTokenHash]).toEqual([before.version, before.linkTokenHash]);
    expect(await typesSinceDisable()).toEqual(['member.disabled']);
  });

  it('a key of their own: 401, no key registered, nothing audited after the disable', async () => {
    const member = await service.admin.addMember({ orgId: org.orgId, name: 'Kai Keyless', email: `kai-${Date.now()}@example.com`, role: 'member' });
    const browser = await MemberBrowser.signIn(service, member.email);
    const pair = await generateIdentityPair();
    const publicKey = await exportPublicKey(pair.publicKey);
    // The member's own item is the one the registration writes: it is paused once the other
    // members were read (no one else holds the key), before the write.
    const answer = await changeAfterRead(
      service.deps.directory,
      'listMembers',
      () => browser.call('POST', '/app/api/identity-key', { body: { public_key: publicKey } }),
      () => service.admin.setMemberActive(org.orgId, member.id, false),
    );

    expect([answer.status, answer.body?.code]).toEqual([401, 'unauthenticated']);
    const stored = (await service.deps.directory.getMember(org.orgId, member.id))!;
    expect(stored.identityKey ?? null, `not ${await fingerprintOf(publicKey)}`).toBeNull();
    expect(await typesSinceDisable()).toEqual(['member.disabled']);
  });

  it('keeps no 401 as the Idempotency-Key answer: enabled again and signed in anew, the same key makes the change', async () => {
    const { request } = await createRequestIn(service, org, { recipients: [org.member.email, org.owner.email], verification_mode: 'none' });
    await submitAsSubject(service, request.id, { now: () => new Date() }, { envelope: { v: 1, ciphertext: 'sealed' }, attachments: [] });
    const headers = { 'Idempotency-Key': `complete-${request.id}` };
    const refused = await disabledMidCall(`/app/api/requests/${request.id}/complete`, headers);
    expect([refused.status, refused.body?.code]).toEqual([401, 'unauthenticated']);

    vi.restoreAllMocks();
    await service.admin.setMemberActive(org.orgId, org.member.id, true);
    const again = await MemberBrowser.signIn(service, org.member.email);
    const retried = await again.call('POST', `/app/api/requests/${request.id}/complete`, { headers });
    expect([retried.status, retried.headers.get('idempotency-replayed')], retried.text).toEqual([200, null]);
    expect((await requestItem(service, request.id))!.status).toBe('completed');
  });
});
