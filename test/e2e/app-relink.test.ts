/**
 * The member application's revoke and relink endpoints over real HTTP (docs/web-api.md): who may
 * use them (a recipient, the requester, an owner or admin; anyone else 404), the same transitions
 * as the API's, audited as the member, and the relink's replay without its link and code.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemberBrowser } from '../support/member-browser.ts';
import { createRequestIn } from '../support/requests.ts';
import { auditEntriesOfRequest, expectError } from '../support/shapes.ts';
import { startTestService, type TestOrganisation, type TestService } from '../support/test-service.ts';

let service: TestService;
let org: TestOrganisation;
let owner: MemberBrowser;
let tom: MemberBrowser;

beforeAll(async () => {
  service = await startTestService();
  org = await service.createOrganisation({ name: 'App Relink Org' });
  owner = await MemberBrowser.signIn(service, org.owner.email);
  tom = await MemberBrowser.signIn(service, org.member.email);
});
afterAll(() => service?.stop());

/** A request only the owner receives: Tom, a plain member, is neither recipient nor requester. */
const createRequest = async () => (await createRequestIn(service, org)).request.id;

describe('POST /app/api/requests/{id}/revoke and /relink', () => {
  it('revokes as the member, audited with the member, then 409 on a second revoke', async () => {
    const id = await createRequest();
    const revoked = await owner.call('POST', `/app/api/requests/${id}/revoke`);
    expect(revoked.status, revoked.text).toBe(200);
    expect(revoked.body).toMatchObject({ id, status: 'revoked', revoked_reason: 'revoked_by_member' });
    expect(revoked.headers.get('cache-control')).toBe('no-store');
    expectError(await owner.call('POST', `/app/api/requests/${id}/revoke`), 409, 'illegal_transition');
    const entry = (await auditEntriesOfRequest(service, org.orgId, id)).find((e) => e.type === 'request.revoked');
    expect(entry?.actor).toMatchObject({ type: 'member', label: org.owner.name });
    expect(entry?.data.member).toMatchObject({ membership_id: org.owner.id });
  });

  it('relinks as the member; the same Idempotency-Key replays without the link and code', async () => {
    const id = await createRequest();
    const headers = { 'Idempotency-Key': `app-relink-${id}` };
    const first = await owner.call('POST', `/app/api/requests/${id}/relink`, { headers });
    expect(first.status, first.text).toBe(200);
    expect(first.body.link).toMatch(/\/r\/[A-Za-z0-9_-]{43}#/);
    // The new link's commitment is the service's, whoever made the request: the note says so, not "created through the API".
    expect(first.body.commitment).toEqual({ computed_by: 'server', note: expect.stringContaining('commitment of this new link was computed by the service') });
    const again = await owner.call('POST', `/app/api/requests/${id}/relink`, { headers });
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotency-replayed')).toBe('true');
    expect(again.body).toMatchObject({ link: null, link_without_fragment: null, challenge_code: null });
    const entries = (await auditEntriesOfRequest(service, org.orgId, id)).filter((e) => e.type === 'request.relinked');
    expect(entries).toHaveLength(1);
  });

  it('answers 404 to a member with no part in the request, and 403 without the CSRF header', async () => {
    const id = await createRequest();
    expectError(await tom.call('POST', `/app/api/requests/${id}/revoke`), 404, 'not_found');
    expectError(await tom.call('POST', `/app/api/requests/${id}/relink`), 404, 'not_found');
    expectError(await owner.call('POST', `/app/api/requests/${id}/revoke`, { csrf: false }), 403, 'forbidden');
    expect((await service.call('GET', `/requests/${id}`, { key: org.key })).body.status).toBe('pending');
  });
});
