/**
 * A reveal racing its member's disable: the member's session was good when the call began, and
 * the disable commits before the reveal is written. The disable wins: the reveal answers 401 as
 * the member's next call would, hands out nothing, counts nothing and audits nothing.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { auditEntriesOfRequest, materialItems, requestItem } from '../support/shapes.ts';
import { startTestService, type TestOrganisation, type TestService } from '../support/test-service.ts';
import { createRequestIn } from '../support/requests.ts';
import { submitAsSubject } from '../support/submission.ts';
import { MemberBrowser } from '../support/member-browser.ts';

let service: TestService;
let org: TestOrganisation;

beforeAll(async () => {
  service = await startTestService();
  org = await service.createOrganisation({ name: 'Disable Race Org' });
});
afterAll(() => service?.stop());
afterEach(() => vi.restoreAllMocks());

const clock = { now: () => new Date() };

describe('a reveal racing its member being disabled', () => {
  it('loses when the disable commits first: 401, no envelope, no reveal counted or audited', async () => {
    const { request } = await createRequestIn(service, org, { recipients: [org.member.email, org.owner.email], verification_mode: 'none' });
    await submitAsSubject(service, request.id, clock, { envelope: { v: 1, ciphertext: `sealed-${request.id}` }, attachments: [] });
    const tech = await MemberBrowser.signIn(service, org.member.email);

    // The reveal has resolved the session and read the request; the disable lands now, from
    // outside the reveal's call, before the reveal writes.
    let reached!: () => void;
    const atMaterial = new Promise<void>((resolve) => (reached = resolve));
    let go!: () => void;
    const disabled = new Promise<void>((resolve) => (go = resolve));
    const material = service.deps.requests.material.bind(service.deps.requests);
    vi.spyOn(service.deps.requests, 'material').mockImplementation(async (id) => {
      reached();
      await disabled;
      return material(id);
    });

    const revealing = tech.call('POST', `/app/api/requests/${request.id}/reveal`);
    await atMaterial;
    await service.admin.setMemberActive(org.orgId, org.member.id, false);
    go();
    const answer = await revealing;

    expect([answer.status, answer.body?.code]).toEqual([401, 'unauthenticated']);
    expect(answer.text).not.toContain(`sealed-${request.id}`);
    const item = (await requestItem(service, request.id))!;
    expect([item.status, item.revealCount, item.lastRevealedAt ?? null]).toEqual(['submitted', 0, null]);
    expect(await materialItems(service, request.id)).toHaveLength(1);
    const types = (await auditEntriesOfRequest(service, org.orgId, request.id)).map((entry) => entry.type);
    expect(types).not.toContain('request.revealed');

    // Enabled again and signed in anew, the member reveals as before.
    vi.restoreAllMocks();
    await service.admin.setMemberActive(org.orgId, org.member.id, true);
    const again = await MemberBrowser.signIn(service, org.member.email);
    const revealed = await again.call('POST', `/app/api/requests/${request.id}/reveal`);
    expect(revealed.status, revealed.text).toBe(200);
    expect((await requestItem(service, request.id))!.revealCount).toBe(1);
  });
});
