/**
 * The member application's POSTs that take no body (docs/web-api.md) refuse any member with 422
 * "Unknown field." on it, as the API's revoke, complete and relink do, and change nothing: a
 * `reason` or `notify` the endpoint does not take is never silently ignored.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../lambdas/core/ids.ts';
import { MemberBrowser } from '../support/member-browser.ts';
import { createRequestIn } from '../support/requests.ts';
import { expectError } from '../support/shapes.ts';
import { startTestService, type TestOrganisation, type TestService } from '../support/test-service.ts';

let service: TestService;
let org: TestOrganisation;
let owner: MemberBrowser;

beforeAll(async () => {
  service = await startTestService();
  org = await service.createOrganisation({ name: 'App No Body Org' });
  owner = await MemberBrowser.signIn(service, org.owner.email);
});
afterAll(() => service?.stop());

const createRequest = async () => (await createRequestIn(service, org)).request.id;

const BODY = { reason: 'customer asked', notify: true };

describe('member application POSTs that take no body', () => {
  it('answer 422 Unknown field on every member sent, before anything else is read', async () => {
    const id = newId();
    const paths = [
      `/app/api/requests/${id}/revoke`,
      `/app/api/requests/${id}/relink`,
      `/app/api/requests/${id}/complete`,
      `/app/api/requests/${id}/reveal`,
      `/app/api/shares/${id}/purge`,
      `/app/api/members/${id}/disable`,
      `/app/api/members/${id}/enable`,
      `/app/api/webhooks/${id}/delete`,
      `/app/api/webhooks/${id}/ping`,
      `/app/api/webhooks/${id}/deliveries/${newId()}/redeliver`,
      `/app/api/keys/${id}/revoke`,
      `/app/api/integrations/${id}/rotate`,
      '/app/api/sign-out',
    ];
    for (const path of paths) {
      const body = expectError(await owner.call('POST', path, { body: BODY }), 422, 'validation_failed', ['reason', 'notify']);
      expect(body.errors, path).toEqual({ reason: ['Unknown field.'], notify: ['Unknown field.'] });
    }
    // The refused sign-out ended nothing: the session still works.
    expect((await owner.call('GET', '/app/api/me')).status).toBe(200);
  });

  it('change nothing when refused, and still take none or an empty object', async () => {
    const id = await createRequest();
    expectError(await owner.call('POST', `/app/api/requests/${id}/revoke`, { body: BODY }), 422, 'validation_failed', ['reason', 'notify']);
    expect((await owner.call('GET', `/app/api/requests/${id}`)).body.request.status).toBe('pending');

    const revoked = await owner.call('POST', `/app/api/requests/${id}/revoke`, { body: {} });
    expect(revoked.status, revoked.text).toBe(200);
    expect(revoked.body.status).toBe('revoked');
  });
});
