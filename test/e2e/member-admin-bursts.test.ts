/**
 * Owners and admins acting on the same thing at the same moment in the member application:
 * approving (or refusing) the same replaced key, inviting the same person, creating API keys
 * under one Idempotency-Key. Each decision is made once: one answer says it was done, the others
 * are refused, and the audit chain records it once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../lambdas/core/ids.ts';
import { exportPublicKey, fingerprintOf, generateIdentityPair } from '../../web/crypto/identity.ts';
import { MemberBrowser, signInEmailsTo } from '../support/member-browser.ts';
import { auditEntries } from '../support/shapes.ts';
import { startTestService, type TestService } from '../support/test-service.ts';

let service: TestService;

beforeAll(async () => {
  service = await startTestService();
});
afterAll(() => service?.stop());

const newPublicKey = async () => {
  const pair = await generateIdentityPair();
  const publicKey = await exportPublicKey(pair.publicKey);
  return { publicKey, fingerprint: await fingerprintOf(publicKey) };
};

/** An organisation with its owner and an admin signed in, and a member whose replaced key awaits approval. */
const withPendingKey = async () => {
  const org = await service.createOrganisation({ name: `Bursts ${newId()}` });
  const admin = await service.admin.addMember({ orgId: org.orgId, name: 'Ada Admin', email: `admin-${newId()}@example.com`, role: 'admin' });
  const kim = await service.admin.addMember({ orgId: org.orgId, name: 'Kim Keyless', email: `kim-${newId()}@example.com`, role: 'member' });
  const kimBrowser = await MemberBrowser.signIn(service, kim.email);
  expect((await kimBrowser.call('POST', '/app/api/identity-key', { body: { public_key: (await newPublicKey()).publicKey } })).status).toBe(200);
  const second = await newPublicKey();
  const replaced = await kimBrowser.call('POST', '/app/api/identity-key', { body: { public_key: second.publicKey } });
  expect(replaced.body.state).toBe('replaced_pending_approval');
  const [owner, adminBrowser] = await Promise.all([MemberBrowser.signIn(service, org.owner.email), MemberBrowser.signIn(service, admin.email)]);
  return { org, kim, fingerprint: second.fingerprint, deciders: [owner, adminBrowser] };
};

const decisionsAbout = async (orgId: string, memberId: string) =>
  (await auditEntries(service, orgId)).filter((entry) => ['member.key_approved', 'member.key_refused'].includes(entry.type) && JSON.stringify(entry).includes(memberId));

describe('deciding on one replaced key at once', () => {
  it('an owner and an admin approving it together, twice each: one approval, one audit entry', async () => {
    for (let round = 0; round < 3; round++) {
      const { org, kim, fingerprint, deciders } = await withPendingKey();
      const answers = await Promise.all([...deciders, ...deciders].map((browser) => browser.call('POST', `/app/api/members/${kim.id}/approve-key`, { body: { fingerprint } })));
      const statuses = answers.map((answer) => answer.status).sort();
      expect(statuses, answers.map((answer) => answer.text).join(' | ')).toEqual([200, 409, 409, 409]);
      expect(answers.filter((answer) => answer.status === 409).every((answer) => answer.body.code === 'illegal_transition')).toBe(true);
      expect(await decisionsAbout(org.orgId, kim.id)).toHaveLength(1);
      expect((await service.admin.directory.getMember(org.orgId, kim.id))!.identityKey!.state).toBe('verified');
    }
  });

  it('one approving while the other refuses: one decision stands, the one the audit chain records', async () => {
    for (let round = 0; round < 3; round++) {
      const { org, kim, fingerprint, deciders } = await withPendingKey();
      const [approved, refused] = await Promise.all([
        deciders[round % 2].call('POST', `/app/api/members/${kim.id}/approve-key`, { body: { fingerprint } }),
        deciders[(round + 1) % 2].call('POST', `/app/api/members/${kim.id}/refuse-key`, { body: { fingerprint } }),
      ]);
      expect([approved.status, refused.status].sort(), `${approved.text} | ${refused.text}`).toEqual([200, 409]);
      const decisions = await decisionsAbout(org.orgId, kim.id);
      expect(decisions).toHaveLength(1);
      const state = (await service.admin.directory.getMember(org.orgId, kim.id))!.identityKey!.state;
      expect(state).toBe(decisions[0].type === 'member.key_approved' ? 'verified' : 'refused');
      expect(state).toBe(approved.status === 200 ? 'verified' : 'refused');
    }
  });
});

describe('inviting at once', () => {
  it('the same person invited five times at once (owner and admin): one member, one audit entry, one invitation email', async () => {
    const { org, deciders } = await withPendingKey();
    const email = `invitee-${newId()}@example.com`;
    const answers = await Promise.all([0, 1, 2, 3, 4].map((n) => deciders[n % 2].call('POST', '/app/api/members', { body: { name: 'Ivy Invitee', email } })));
    const statuses = answers.map((answer) => answer.status).sort();
    expect(statuses, answers.map((answer) => answer.text).join(' | ')).toEqual([201, 409, 409, 409, 409]);
    expect(answers.filter((answer) => answer.status === 409).every((answer) => answer.body.code === 'member_exists')).toBe(true);
    const members = (await service.admin.directory.listMembers(org.orgId)).filter((member) => member.email === email);
    expect(members).toHaveLength(1);
    const added = (await auditEntries(service, org.orgId)).filter((entry) => entry.type === 'member.added' && JSON.stringify(entry).includes(email));
    expect(added).toHaveLength(1);
    expect(signInEmailsTo(service, email)).toHaveLength(1);
  });
});

describe('creating API keys at once', () => {
  it("ten creations under one Idempotency-Key from one owner's page: one key made, its secret shown to one answer only", async () => {
    const { org, deciders } = await withPendingKey();
    const before = (await service.deps.apiKeys.listForOrganisation(org.orgId)).length;
    const idempotencyKey = `burst-${newId()}`;
    const answers = await Promise.all(
      Array.from({ length: 10 }, () =>
        deciders[0].call('POST', '/app/api/keys', { body: { name: 'Burst key', scopes: ['requests:read'] }, headers: { 'Idempotency-Key': idempotencyKey } }),
      ),
    );
    const made = (await service.deps.apiKeys.listForOrganisation(org.orgId)).length - before;
    const secrets = answers.map((answer) => answer.body?.secret).filter((secret) => typeof secret === 'string');
    expect(made, answers.map((answer) => `${answer.status} ${answer.text.slice(0, 120)}`).join('\n')).toBe(1);
    expect(secrets.length).toBeLessThanOrEqual(1);
    const created = (await auditEntries(service, org.orgId)).filter((entry) => entry.type === 'api_key.created' && JSON.stringify(entry).includes('Burst key'));
    expect(created).toHaveLength(1);
  });
});
