/**
 * One rule for query strings, in `/v1` and the member application alike (docs/api.md, Errors;
 * docs/web-api.md): a parameter the endpoint does not define answers 422 naming it; one given twice
 * answers 422 on it (the gateway would join the values with a comma); one whose escapes are not
 * UTF-8 answers 422 on it (it would be read as U+FFFD). Never a silent misreading.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemberBrowser } from '../support/member-browser.ts';
import { createRequestIn } from '../support/requests.ts';
import { expectError } from '../support/shapes.ts';
import { startTestService, type TestOrganisation, type TestService } from '../support/test-service.ts';

let service: TestService;
let org: TestOrganisation;
let owner: MemberBrowser;

beforeAll(async () => {
  service = await startTestService();
  org = await service.createOrganisation({ name: 'Query Strings Org' });
  owner = await MemberBrowser.signIn(service, org.owner.email);
});
afterAll(() => service?.stop());

describe('query strings', () => {
  it('a parameter given twice is refused on it, never joined into one value', async () => {
    const created = await createRequestIn(service, org, { ticket_ref: 'JA,JB' });
    const body = expectError(await service.call('GET', '/requests?ticket_ref=JA&ticket_ref=JB', { key: org.key }), 422, 'validation_failed', ['ticket_ref']);
    expect(body.errors.ticket_ref).toEqual(['Give this parameter once.']);
    expectError(await owner.call('GET', '/app/api/audit?type=request.created&type=request.revoked'), 422, 'validation_failed', ['type']);
    // Given once, the comma is the reference's own.
    const listed = await service.call('GET', '/requests?ticket_ref=JA%2CJB', { key: org.key });
    expect(listed.body.data.map((request: { id: string }) => request.id)).toEqual([created.request.id]);
  });

  it('escapes that are not UTF-8 are refused on their parameter', async () => {
    for (const value of ['%ff', '%ed%a0%80', 'ok%c3']) {
      const body = expectError(await service.call('GET', `/requests?ticket_ref=${value}`, { key: org.key }), 422, 'validation_failed', ['ticket_ref']);
      expect(body.errors.ticket_ref[0], value).toMatch(/UTF-8/);
      expectError(await owner.call('GET', `/app/api/audit?type=${value}`), 422, 'validation_failed', ['type']);
    }
    // Well-formed escapes of any script are read as sent.
    expect((await service.call('GET', '/requests?ticket_ref=%C3%A9t%C3%A9', { key: org.key })).status).toBe(200);
  });

  it('the member application refuses parameters an endpoint does not define, as /v1 does', async () => {
    for (const path of ['/app/api/me', '/app/api/requests', '/app/api/shares', '/app/api/members', '/app/api/organisation/policy']) {
      const body = expectError(await owner.call('GET', `${path}?limt=5`), 422, 'validation_failed', ['limt']);
      expect(body.errors.limt, path).toEqual(['Unknown query parameter.']);
    }
    // The endpoints that take parameters still take theirs, and name an unknown one as /v1 does.
    expect((await owner.call('GET', '/app/api/audit?limit=5')).status).toBe(200);
    expect(expectError(await owner.call('GET', '/app/api/audit?limt=5'), 422, 'validation_failed', ['limt']).errors.limt).toEqual(['Unknown query parameter.']);
    // So do sign-in and session, which anyone may call.
    expectError(await service.call('POST', '/app/api/sign-in?next=/app', { body: { email: 'someone@example.com' } }), 422, 'validation_failed', ['next']);
  });

  it('a refused query is judged before the Idempotency-Key is claimed: the corrected call is made, not answered the refusal', async () => {
    const headers = { 'Idempotency-Key': `query-then-fixed-${Date.now()}` };
    const body = { name: 'Query Client' };
    expectError(await owner.call('POST', '/app/api/clients?dry_run=1', { body, headers }), 422, 'validation_failed', ['dry_run']);
    const made = await owner.call('POST', '/app/api/clients', { body, headers });
    expect(made.status, made.text).toBe(201);
    expect(made.headers.get('idempotency-replayed')).toBeNull();
  });

  it('a parameter named __proto__ is named like any other', async () => {
    const body = expectError(await owner.call('GET', '/app/api/audit?__proto__=a&__proto__=b'), 422, 'validation_failed', ['__proto__']);
    expect(body.errors.__proto__).toEqual(['Give this parameter once.']);
  });
});
