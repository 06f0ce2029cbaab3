/**
 * The endpoints a link opens (the subject's and a share recipient's) read input as every other
 * endpoint does: malformed JSON answers 400, a member sent to one that takes no body 422, a query
 * parameter 422, and nothing is counted or changed by a refused call.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemberBrowser } from '../support/member-browser.ts';
import { createRequestIn } from '../support/requests.ts';
import { expectError } from '../support/shapes.ts';
import { createShareAs } from '../support/shares.ts';
import { startTestService, type TestOrganisation, type TestService } from '../support/test-service.ts';

let service: TestService;
let org: TestOrganisation;
let owner: MemberBrowser;

beforeAll(async () => {
  service = await startTestService();
  org = await service.createOrganisation({ name: 'Link Input Org' });
  owner = await MemberBrowser.signIn(service, org.owner.email);
});
afterAll(() => service?.stop());

const JSON_HEADERS = { 'Content-Type': 'application/json' };

describe('a share recipient’s endpoints', () => {
  it('refuse malformed JSON, any member and any query parameter before a view is counted', async () => {
    const share = await createShareAs(owner, { view_limit: 1 });
    const headers = { 'X-Share-Token': share.token };
    expectError(await service.call('POST', '/share/open', { rawBody: '{', headers: { ...headers, ...JSON_HEADERS } }), 400, 'bad_request');
    expectError(await service.call('POST', '/share/open', { body: { view: 1 }, headers }), 422, 'validation_failed', ['view']);
    expectError(await service.call('POST', '/share/open?again=1', { headers }), 422, 'validation_failed', ['again']);
    expectError(await service.call('GET', '/share/describe?x=1', { headers }), 422, 'validation_failed', ['x']);
    // None of them counted the one view the share allows.
    const described = await service.call('GET', '/share/describe', { headers });
    expect(described.body).toMatchObject({ status: 'active', views_left: 1 });
    const opened = await service.call('POST', '/share/open', { headers });
    expect(opened.status, opened.text).toBe(200);
  });
});

describe('the subject’s endpoints', () => {
  it('refuse a member sent to open or to ask for a code, and any query parameter; the link stays pending', async () => {
    const created = await createRequestIn(service, org, { verification_mode: 'none' });
    const headers = { 'X-Link-Token': new URL(created.link).pathname.split('/').pop()! };
    expectError(await service.call('POST', '/subject/open', { body: { opened: true }, headers }), 422, 'validation_failed', ['opened']);
    expectError(await service.call('POST', '/subject/email-code', { body: [1], headers }), 422, 'validation_failed');
    expectError(await service.call('GET', '/subject/request?lang=en', { headers }), 422, 'validation_failed', ['lang']);
    expect((await service.call('GET', `/requests/${created.request.id}`, { key: org.key })).body.status).toBe('pending');
    expect((await service.call('POST', '/subject/open', { headers })).status).toBe(200);
  });
});
