/**
 * Owners changing each other at the same moment, in the member application: however the calls
 * interleave, the organisation keeps an active owner (409 `last_owner` for the change that would
 * leave none), and a change by someone who stopped being an owner while their call was under way
 * does not commit: only an owner makes an owner, judged when the change commits.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { newId } from '../../lambdas/core/ids.ts';
import { MemberBrowser } from '../support/member-browser.ts';
import { startTestService, type TestService } from '../support/test-service.ts';
import { changeAfterRead } from '../support/change-meanwhile.ts';

let service: TestService;

beforeAll(async () => {
  service = await startTestService();
});
afterAll(() => service?.stop());
afterEach(() => vi.restoreAllMocks());

/** An organisation with `count` owners (the first the test organisation's own), each signed in. */
const ownersOf = async (count: number) => {
  const org = await service.createOrganisation({ name: `Owners race ${newId()}` });
  const ids = [org.owner.id];
  const emails = [org.owner.email];
  for (let n = 1; n < count; n++) {
    const added = await service.admin.addMember({ orgId: org.orgId, name: `Owner ${n}`, email: `owner${n}-${newId()}@example.com`, role: 'owner' });
    ids.push(added.id);
    emails.push(added.email);
  }
  const browsers = await Promise.all(emails.map((email) => MemberBrowser.signIn(service, email)));
  return { org, ids, browsers };
};

const activeOwners = async (orgId: string) =>
  (await service.admin.directory.listMembers(orgId)).filter((member) => member.role === 'owner' && member.active);

describe('owners changing each other at once', () => {
  it('two owners demoting or disabling each other, or themselves, in bursts: an active owner always stays', async () => {
    for (let round = 0; round < 6; round++) {
      const { org, ids, browsers } = await ownersOf(2);
      const path = (kind: number, target: string) => (kind === 0 ? `/app/api/members/${target}/role` : `/app/api/members/${target}/disable`);
      const body = (kind: number) => (kind === 0 ? { role: 'member' } : undefined);
      // Round by round: each demotes or disables the other; in odd rounds, each demotes themselves.
      const self = round % 2 === 1;
      const answers = await Promise.all(
        browsers.map((browser, n) => {
          const kind = self ? 0 : round % 4 < 2 ? n % 2 : (n + 1) % 2;
          const target = self ? ids[n] : ids[1 - n];
          return browser.call('POST', path(kind, target), { body: body(kind) });
        }),
      );
      // One change commits; the other is refused: 409 last_owner, 401 for an owner disabled while
      // their own call was under way (their session ended), 403 for one demoted meanwhile.
      const statuses = answers.map((answer) => answer.status).sort();
      expect(statuses.length === 2 && statuses[0] === 200 && [401, 403, 409].includes(statuses[1]), answers.map((answer) => answer.text).join(' | ')).toBe(true);
      const refused = answers.find((answer) => answer.status !== 200)!;
      expect(refused.body.code).toBe({ 401: 'unauthenticated', 403: 'forbidden', 409: 'last_owner' }[refused.status]);
      expect(await activeOwners(org.orgId), `round ${round}`).toHaveLength(1);
    }
  });

  it('three owners each demoting the next at once: one stays', async () => {
    for (let round = 0; round < 4; round++) {
      const { org, ids, browsers } = await ownersOf(3);
      const answers = await Promise.all(browsers.map((browser, n) => browser.call('POST', `/app/api/members/${ids[(n + 1) % 3]}/role`, { body: { role: 'admin' } })));
      expect(await activeOwners(org.orgId), answers.map((answer) => answer.status).join(',')).not.toHaveLength(0);
    }
  });
});

describe('an owner demoted while their call is under way', () => {
  it('their call making another member an owner does not commit', async () => {
    const { org, ids, browsers } = await ownersOf(2);
    const [first, second] = browsers;
    const directory = service.deps.directory;
    const getMember = directory.getMember.bind(directory);
    let reached!: () => void;
    const paused = new Promise<void>((resolve) => (reached = resolve));
    let go!: () => void;
    const demoted = new Promise<void>((resolve) => (go = resolve));
    let held = false;
    vi.spyOn(directory, 'getMember').mockImplementation(async (orgId, memberId) => {
      const read = await getMember(orgId, memberId);
      if (memberId === org.member.id && !held) {
        held = true;
        reached();
        await demoted;
      }
      return read;
    });
    // The second owner makes the technician an owner; the first demotes the second meanwhile.
    const answering = second.call('POST', `/app/api/members/${org.member.id}/role`, { body: { role: 'owner' } });
    await paused;
    const demotion = await first.call('POST', `/app/api/members/${ids[1]}/role`, { body: { role: 'member' } });
    expect(demotion.status, demotion.text).toBe(200);
    go();
    const answer = await answering;
    expect([answer.status, answer.body?.code], answer.text).toEqual([403, 'forbidden']);
    const technician = await service.admin.directory.getMember(org.orgId, org.member.id);
    expect(technician!.role).toBe('member');
  });
});

describe('an admin demoted while their call is under way', () => {
  it('their call creating an API key: 403, no key made', async () => {
    const { org, browsers } = await ownersOf(1);
    const admin = await service.admin.addMember({ orgId: org.orgId, name: 'Ada Admin', email: `admin-${newId()}@example.com`, role: 'admin' });
    const adminBrowser = await MemberBrowser.signIn(service, admin.email);
    const keysBefore = (await service.deps.apiKeys.listForOrganisation(org.orgId)).length;
    const answer = await changeAfterRead(
      service.deps.directory,
      'getClient',
      () => adminBrowser.call('POST', '/app/api/keys', { body: { name: 'Made as the role changed', scopes: ['requests:read'], client_id: org.defaultClientId } }),
      async () => {
        const demotion = await browsers[0].call('POST', `/app/api/members/${admin.id}/role`, { body: { role: 'member' } });
        expect(demotion.status, demotion.text).toBe(200);
      },
    );
    expect([answer.status, answer.body?.code], answer.text).toEqual([403, 'forbidden']);
    expect(answer.body.secret).toBeUndefined();
    expect(await service.deps.apiKeys.listForOrganisation(org.orgId)).toHaveLength(keysBefore);
  });
});
