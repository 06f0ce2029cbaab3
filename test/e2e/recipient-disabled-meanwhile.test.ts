/**
 * A recipient disabled while a request naming them is being created: the request read the
 * members (the recipient still active), an owner's disable commits before the request is written.
 * Disabled members are left out of new requests (docs/application.md), so the disable should win
 * as it does over the disabled member's own calls: the request is judged again (422 naming the
 * recipient) or made without them, never made with a recipient disabled before it was written.
 */
import { afterAll, afterEach, beforeAll, expect, it, vi } from 'vitest';
import { MemberBrowser } from '../support/member-browser.ts';
import { auditEntries, requestItemsOf } from '../support/shapes.ts';
import { startTestService, type TestOrganisation, type TestService } from '../support/test-service.ts';

let service: TestService;
let org: TestOrganisation;

beforeAll(async () => {
  service = await startTestService();
  org = await service.createOrganisation({ name: 'Recipient Disabled Meanwhile Org' });
});
afterAll(() => service?.stop());
afterEach(() => vi.restoreAllMocks());

it.fails('a request through the API naming a member an owner disables meanwhile is not made with them as a recipient', async () => {
  const owner = await MemberBrowser.signIn(service, org.owner.email);
  const directory = service.deps.directory;
  const listMembers = directory.listMembers.bind(directory);
  let reached!: () => void;
  const paused = new Promise<void>((resolve) => (reached = resolve));
  let go!: () => void;
  const disabled = new Promise<void>((resolve) => (go = resolve));
  vi.spyOn(directory, 'listMembers').mockImplementationOnce(async (orgId) => {
    const read = await listMembers(orgId);
    reached();
    await disabled;
    return read;
  });
  const answering = service.call('POST', '/requests', {
    key: org.key,
    body: { subject_name: 'Sam Subject', justification: 'Needed for the ticket', recipients: [org.owner.email, org.member.email], verification_mode: 'none' },
  });
  await paused;
  const disable = await owner.call('POST', `/app/api/members/${org.member.id}/disable`);
  expect(disable.status, disable.text).toBe(200);
  go();
  const answer = await answering;
  const types = (await auditEntries(service, org.orgId)).map((entry) => entry.type);
  const made = (await requestItemsOf(service, org.orgId)).filter((item) => item.id === answer.body?.request?.id);
  const recipients = made.flatMap((item) => (item.recipients as Array<{ membershipId: string }>).map((recipient) => recipient.membershipId));
  // Made after the disable (the audit chain says so) with the disabled member among its recipients.
  expect(types.indexOf('member.disabled')).toBeLessThan(types.lastIndexOf('request.created'));
  expect(recipients).not.toContain(org.member.id);
});
