/**
 * A request made in the member application (docs/web-api.md, New request): the browser fetches
 * the recipients' public keys, computes the recipient commitment itself and sends it; the service
 * refuses a commitment that does not match the recipients it resolves, and says the browser
 * computed it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commitmentOf, exportPublicKey, fingerprintOf, generateIdentityPair } from '../../web/crypto/identity.ts';
import { MemberBrowser } from '../support/member-browser.ts';
import { expectError } from '../support/shapes.ts';
import { scanTable, startTestService, type TestOrganisation, type TestService } from '../support/test-service.ts';

let service: TestService;
let org: TestOrganisation;
let tech: MemberBrowser;
let techEmail: string;
let colleagueEmail: string;
let keyless: MemberBrowser;

const keyedMember = async (name: string, role: 'member' | 'admin' = 'member') => {
  const email = `${name.toLowerCase().replace(/\W+/g, '.')}-${org.orgId.slice(-6)}@example.com`;
  await service.admin.addMember({ orgId: org.orgId, name, email, role });
  const browser = await MemberBrowser.signIn(service, email);
  const publicKey = await exportPublicKey((await generateIdentityPair()).publicKey);
  expect((await browser.call('POST', '/app/api/identity-key', { body: { public_key: publicKey } })).status).toBe(200);
  return { email, browser };
};

beforeAll(async () => {
  service = await startTestService();
  org = await service.createOrganisation({ name: 'New Request Org' });
  ({ email: techEmail, browser: tech } = await keyedMember('Tess Technician'));
  ({ email: colleagueEmail } = await keyedMember('Cole Colleague'));
  const keylessEmail = `kim.keyless-${org.orgId.slice(-6)}@example.com`;
  await service.admin.addMember({ orgId: org.orgId, name: 'Kim Keyless', email: keylessEmail, role: 'member' });
  keyless = await MemberBrowser.signIn(service, keylessEmail);
});
afterAll(() => service?.stop());

const body = (extra: Record<string, unknown> = {}) => ({
  subject_name: 'Jane Doe',
  justification: 'The new firewall admin password',
  recipients: [colleagueEmail],
  verification_mode: 'challenge',
  ...extra,
});

/** What the page does: the keys, their fingerprints recomputed here, the commitment over them. */
const browserCommit = async (member: MemberBrowser, recipients: string[]) => {
  const keys = await member.call('GET', `/app/api/recipient-keys?recipients=${recipients.map(encodeURIComponent).join(',')}`);
  expect(keys.status, keys.text).toBe(200);
  const listed = keys.body.recipients as Array<{ membership_id: string; public_key: string; label: string; email: string }>;
  return { listed, commit: await commitmentOf(listed.map((r) => ({ membershipId: r.membership_id, publicKey: r.public_key }))) };
};

const requestCount = async () => (await scanTable(service)).filter((item) => String(item.pk).startsWith('REQ#') && item.sk === 'REQ').length;

describe('GET /app/api/recipient-keys', () => {
  it('lists the recipients with their public keys, the signed-in member among them as the requester', async () => {
    const { listed } = await browserCommit(tech, [colleagueEmail]);
    expect(listed.map((r) => r.email).sort()).toEqual([colleagueEmail, techEmail].sort());
    for (const recipient of listed) {
      expect(recipient).toEqual({ membership_id: expect.any(String), label: expect.any(String), email: expect.any(String), public_key: expect.any(String) });
      expect(await fingerprintOf(recipient.public_key)).toMatch(/^[0-9a-f]{64}$/);
    }
  });

  it('answers 422 by field for an unknown recipient, and 401 without a session', async () => {
    const unknown = await tech.call('GET', '/app/api/recipient-keys?recipients=nobody@example.com');
    expectError(unknown, 422, 'validation_failed');
    expect(unknown.body.errors['recipients.0'][0]).toContain('nobody@example.com');
    // More than a request can take is refused as creating refuses it.
    const many = Array.from({ length: 65 }, (_, i) => `r${i}@example.com`).join(',');
    const tooMany = await tech.call('GET', `/app/api/recipient-keys?recipients=${many}`);
    expectError(tooMany, 422, 'validation_failed', ['recipients']);
    expect(tooMany.body.errors.recipients).toEqual(['Must list 1 to 64 recipients.']);
    expectError(await service.call('GET', '/app/api/recipient-keys?recipients=a@example.com'), 401, 'unauthenticated');
  });
});

describe('POST /app/api/requests', () => {
  it('makes the request with the commitment the browser computed, says so, and shows the link and code once', async () => {
    const { commit } = await browserCommit(tech, [colleagueEmail]);
    const created = await tech.call('POST', '/app/api/requests', { body: body({ commit }), headers: { 'Idempotency-Key': 'new-request-1' } });
    expect(created.status, created.text).toBe(201);
    expect(created.body.commit).toBe(commit);
    expect(created.body.commitment).toEqual({ computed_by: 'browser', note: expect.stringContaining('browser') });
    expect(new URL(created.body.link).hash).toBe(`#${commit}`);
    expect(created.body.challenge_code).toMatch(/^[0-9]{6}$/);
    expect(created.body.request.requester.email).toBe(techEmail);
    expect(created.headers.get('location')).toContain(`/app/api/requests/${created.body.request.id}`);

    // The custody certificate states who computed the commitment.
    const certificate = await tech.call('GET', `/app/api/requests/${created.body.request.id}/certificate?format=json`);
    expect(certificate.status, certificate.text).toBe(200);
    expect(JSON.stringify(certificate.body)).toContain('"computed_by":"browser"');

    // A replay with the same key: the same request, the secrets null.
    const replay = await tech.call('POST', '/app/api/requests', { body: body({ commit }), headers: { 'Idempotency-Key': 'new-request-1' } });
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotency-replayed')).toBe('true');
    expect(replay.body).toMatchObject({ request: { id: created.body.request.id }, link: null, link_without_fragment: null, challenge_code: null });
  });

  it('refuses a commitment that does not match the recipient set it resolves with 422 on commit, and writes nothing', async () => {
    const before = await requestCount();
    // Computed for a recipient set without the colleague: the service resolves another set.
    const { commit: forOtherSet } = await browserCommit(tech, []);
    const refused = await tech.call('POST', '/app/api/requests', { body: body({ commit: forOtherSet }) });
    expectError(refused, 422, 'validation_failed');
    expect(Object.keys(refused.body.errors)).toEqual(['commit']);
    const malformed = await tech.call('POST', '/app/api/requests', { body: body({ commit: 'not-a-commitment' }) });
    expectError(malformed, 422, 'validation_failed');
    expect(Object.keys(malformed.body.errors)).toEqual(['commit']);
    const missing = await tech.call('POST', '/app/api/requests', { body: body() });
    expect(Object.keys(missing.body.errors)).toEqual(['commit']);
    // A body that is no object is named as every endpoint names it, not as a missing commitment.
    for (const notAnObject of [[], 'x', 1, true]) {
      const refusedBody = await tech.call('POST', '/app/api/requests', { body: notAnObject });
      expectError(refusedBody, 422, 'validation_failed', ['body']);
      expect(refusedBody.body.errors.body).toEqual(['Must be an object.']);
    }
    const requester = await tech.call('POST', '/app/api/requests', { body: body({ commit: forOtherSet, requester: colleagueEmail }) });
    expect(requester.body.errors.requester).toEqual([expect.stringContaining('signed-in member')]);
    expect(await requestCount()).toBe(before);
  });

  it('refuses a member without an identity key as the requester, and a call without the CSRF header', async () => {
    const { commit } = await browserCommit(tech, [colleagueEmail]);
    const noKey = await keyless.call('POST', '/app/api/requests', { body: body({ commit }) });
    expectError(noKey, 422, 'validation_failed');
    expect(noKey.body.errors.requester, noKey.text).toEqual([expect.stringContaining('identity key')]);
    expectError(await tech.call('POST', '/app/api/requests', { body: body({ commit }), csrf: false }), 403, 'forbidden');
  });
});

describe('GET /app/api/request-options', () => {
  it("offers the organisation's clients, members and the verification modes its policy allows", async () => {
    const options = await tech.call('GET', '/app/api/request-options');
    expect(options.status, options.text).toBe(200);
    expect(options.body.policy).toMatchObject({ ttl_options_minutes: expect.any(Array), default_ttl_minutes: expect.any(Number), verification_modes: expect.any(Array) });
    expect(options.body.policy.verification_modes).toContain(options.body.policy.default_verification);
    expect(options.body.clients.map((c: { id: string }) => c.id)).toContain(options.body.default_client_id);
    const emails = options.body.members.map((m: { email: string }) => m.email);
    expect(emails).toEqual(expect.arrayContaining([techEmail, colleagueEmail]));
    expect(options.body.members.find((m: { email: string }) => m.email === techEmail).key_state).toBe('verified');
    expect(options.body).toMatchObject({ teams: expect.any(Array), templates: expect.any(Array), presets: expect.any(Array) });
  });
});
