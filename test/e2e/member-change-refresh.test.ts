/**
 * A member change is stored before the requests it affects are marked (needs_relink,
 * unrecoverable). When that marking fails (its requests busy with other changes), the answer must
 * not say that nothing was changed: it says the change stands and that the same call again
 * finishes the marking, which it then does.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WriteConflict } from '../../lambdas/core/errors.ts';
import { REFRESH_UNFINISHED } from '../../lambdas/core/use-cases/recipient-health.ts';
import { MemberBrowser } from '../support/member-browser.ts';
import { expectError } from '../support/shapes.ts';
import { submitAsSubject } from '../support/submission.ts';
import { startTestService, type TestOrganisation, type TestService } from '../support/test-service.ts';

let service: TestService;
let org: TestOrganisation;

beforeAll(async () => {
  service = await startTestService();
  org = await service.createOrganisation({ name: 'Refresh Org' });
});
afterAll(() => service?.stop());

describe('disabling the only recipient of a stored credential while its request is busy', () => {
  it('answers 503 saying the change stands; the same call again marks the request unrecoverable', async () => {
    const created = await service.call('POST', '/requests', { key: org.key, body: { subject_name: 'Sam Subject', justification: 'VPN password', recipients: [org.member.email] } });
    expect(created.status, created.text).toBe(201);
    const id = created.body.request.id as string;
    await submitAsSubject(service, id, service.deps.clock, { envelope: { v: 1, ciphertext: 'sealed', recipients: [] }, attachments: [] });
    const owner = await MemberBrowser.signIn(service, org.owner.email);

    const requests = service.deps.requests;
    const update = requests.update.bind(requests);
    requests.update = async () => {
      throw new WriteConflict('another change took the request');
    };
    let busy;
    try {
      busy = await owner.call('POST', `/app/api/members/${org.member.id}/disable`);
    } finally {
      requests.update = update;
    }
    expect(expectError(busy, 503, 'service_unavailable').message).toBe(REFRESH_UNFINISHED);
    expect(busy.headers.get('retry-after')).toBe('1');
    expect((await service.admin.directory.getMember(org.orgId, org.member.id))!.active).toBe(false);
    expect((await service.call('GET', `/requests/${id}`, { key: org.key })).body.unrecoverable).toBe(false);

    const again = await owner.call('POST', `/app/api/members/${org.member.id}/disable`);
    expect(again.status, again.text).toBe(200);
    expect((await service.call('GET', `/requests/${id}`, { key: org.key })).body.unrecoverable).toBe(true);
  });
});
