/**
 * POST /app/api/shares/{id}/purge racing the share's last allowed view: the purge read the share
 * live, the view ended it before the purge wrote. The view won, so the purge answers 409 as for
 * any share already ended, and the share keeps the end the view gave it, with one share.purged.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { auditEntries, expectError, itemsUnder } from '../support/shapes.ts';
import { startTestService, type TestOrganisation, type TestService } from '../support/test-service.ts';
import { MemberBrowser } from '../support/member-browser.ts';
import { createShareAs } from '../support/shares.ts';
import { changeAfterRead } from '../support/change-meanwhile.ts';

let service: TestService;
let org: TestOrganisation;
let owner: MemberBrowser;

beforeAll(async () => {
  service = await startTestService();
  org = await service.createOrganisation({ name: 'Share Race Org' });
  owner = await MemberBrowser.signIn(service, org.owner.email);
});
afterAll(() => service?.stop());
afterEach(() => vi.restoreAllMocks());

describe('a share purge racing its last view', () => {
  it('answers 409 illegal_transition and leaves the end the view made', async () => {
    const share = await createShareAs(owner, { view_limit: 1 });

    // The purge has read the share, still live; the last view lands now, from outside the purge's call.
    const purged = await changeAfterRead(
      service.deps.shares,
      'get',
      () => owner.call('POST', `/app/api/shares/${share.id}/purge`),
      async () => {
        const opened = await service.call('POST', '/share/open', { headers: { 'X-Share-Token': share.token } });
        expect(opened.status, opened.text).toBe(200);
      },
    );

    expectError(purged, 409, 'illegal_transition');
    expect(purged.body.message).toBe('This share has already ended.');
    const [item] = (await itemsUnder(service, `SHARE#${share.id}`)).filter((entry) => entry.sk === 'SHARE');
    expect([item.status, item.endReason, item.views]).toEqual(['purged', 'view_limit_reached', 1]);
    const entries = (await auditEntries(service, org.orgId)).filter((entry) => (entry as { shareId?: string }).shareId === share.id);
    expect(entries.map((entry) => [entry.type, (entry.data as { details?: { reason?: string } }).details?.reason ?? null])).toEqual([
      ['share.created', null],
      ['share.revealed', null],
      ['share.purged', 'view_limit_reached'],
    ]);
  });
});
