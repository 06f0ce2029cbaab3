/**
 * A recipient disabled while a request naming them is being created: the request read the
 * members (the recipient still active), an owner's disable commits before the request is written.
 * Disabled members are left out of new requests (docs/application.md), so the disable wins as it
 * does over the disabled member's own calls: the request is judged again with the members as they
 * now are (422 naming the recipient), never made with a recipient disabled before it was written.
 */
import { afterAll, afterEach, beforeAll, expect, it, vi } from 'vitest';
import { changeAfterRead } from '../support/change-meanwhile.ts';
import { MemberBrowser } from '../support/member-browser.ts';
import { auditEntries, requestItemsOf } from '../support/shapes.ts';
import { identityKey, startTestService, type TestOrganisation, type TestService } from '../support/test-service.ts';

let service: TestService;
let org: TestOrganisation;

beforeAll(async () => {
  service = await startTestService();
  org = await service.createOrganisation({ name: 'Recipient Disabled Meanwhile Org' });
});
afterAll(() => service?.stop());
afterEach(() => vi.restoreAllMocks());

it('a request through the API naming a member an owner disables meanwhile: judged again, 422 on that recipient, nothing made', async () => {
  const owner = await MemberBrowser.signIn(service, org.owner.email);
  const answer = await changeAfterRead(
    service.deps.directory,
    'listMembers',
    () =>
      service.call('POST', '/requests', {
        key: org.key,
        body: { subject_name: 'Sam Subject', justification: 'Needed for the ticket', recipients: [org.owner.email, org.member.email], verification_mode: 'none' },
      }),
    async () => {
      const disable = await owner.call('POST', `/app/api/members/${org.member.id}/disable`);
      expect(disable.status, disable.text).toBe(200);
    },
  );
  // Judged again with the members as they now are: the disabled member is no recipient any more.
  expect(answer.status, answer.text).toBe(422);
  expect(Object.keys(answer.body.errors)).toEqual(['recipients.1']);
  expect(await requestItemsOf(service, org.orgId)).toEqual([]);
  const types = (await auditEntries(service, org.orgId)).map((entry) => entry.type);
  expect(types.slice(types.lastIndexOf('member.disabled'))).toEqual(['member.disabled']);
});

it('a request of the most recipients (64), with its ticket and an Idempotency-Key, still commits in one transaction', async () => {
  const big = await service.createOrganisation({ name: 'Most Recipients Org' });
  const emails = [big.owner.email, big.member.email];
  for (let n = emails.length; n < 64; n++) {
    const added = await service.admin.addMember({ orgId: big.orgId, name: `Member ${n}`, email: `m${n}-${big.orgId.slice(-6)}@example.com`, role: 'member', identityKey: identityKey() });
    emails.push(added.email);
  }
  const answer = await service.call('POST', '/requests', {
    key: big.key,
    headers: { 'Idempotency-Key': `most-recipients-${big.orgId}` },
    body: { subject_name: 'Sam Subject', justification: 'Needed for the ticket', recipients: emails, verification_mode: 'none', ticket_ref: 'INC-64', ticket_external_id: 'ext-64' },
  });
  expect(answer.status, answer.text).toBe(201);
  expect(answer.body.request.recipients).toHaveLength(64);
});
