import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemberBrowser } from '../support/member-browser.ts';
import { shareMaterial } from '../support/shares.ts';
import { scanTable, startTestService, type TestOrganisation, type TestService } from '../support/test-service.ts';

/**
 * Text with a lone UTF-16 surrogate (which JSON's `\ud800` escape can carry and no real text can)
 * is a field error, never a 500: it could be neither canonicalised for the audit chain nor for an
 * idempotency fingerprint. The class is refused where every body is parsed.
 */
let service: TestService;
let org: TestOrganisation;
let key: string;
let member: MemberBrowser;

beforeAll(async () => {
  service = await startTestService();
  org = await service.createOrganisation();
  key = await service.createKey(org.orgId, { name: 'Integrator', scopes: ['requests:write'] });
  member = await MemberBrowser.signIn(service, org.owner.email);
});
afterAll(() => service?.stop());

const LONE = '\ud800';

describe('bytes that are not UTF-8 in a body', () => {
  it('POST /v1/requests with a Latin-1 name over real HTTP: 422 on the field, no request made', async () => {
    const body = Buffer.concat([
      Buffer.from(`{"subject_name":"Ren`),
      Buffer.from([0xe9]), // Latin-1 é: not UTF-8
      Buffer.from(`e Doe","justification":"Not UTF-8 test body","recipients":["${org.owner.email}"]}`),
    ]);
    const response = await fetch(`${service.baseUrl.replace('localhost', '127.0.0.1')}/requests`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
      body,
    });
    expect(response.status).toBe(422);
    expect(await response.json()).toMatchObject({ code: 'validation_failed', errors: { subject_name: ['Must be UTF-8 text (it holds bytes that are not UTF-8).'] } });
    // Read in the table, not through the API, whose read record would land during the next test.
    const made = (await scanTable(service)).filter((item) => item.kind === 'request' && String((item.subject as { name?: string } | undefined)?.name ?? '').startsWith('Ren'));
    expect(made).toEqual([]);
  });
});

describe('a lone surrogate in a body', () => {
  it.each([
    ['without an Idempotency-Key', {}],
    ['with an Idempotency-Key', { 'Idempotency-Key': 'lone-surrogate-1' }],
  ])('POST /v1/requests %s: 422 on the field, nothing written', async (_, headers) => {
    const stored = async () => (await scanTable(service)).filter((item) => !String(item.pk).startsWith('RATE#')).length;
    const before = await stored();
    const answer = await service.call('POST', '/requests', {
      key,
      headers,
      body: { subject_name: `Dana ${LONE}`, justification: 'Lone surrogate test body', recipients: [org.owner.email] },
    });
    expect(answer.status).toBe(422);
    expect(answer.body).toMatchObject({ code: 'validation_failed', errors: { subject_name: [expect.stringMatching(/well-formed/)] } });
    // Nothing but the rate-limit counters: no request, no audit entry, no idempotency record.
    expect(await stored()).toBe(before);
  });

  it('names the path of a nested value and of a member name', async () => {
    const nested = await service.call('POST', '/requests', { key, body: { subject_name: 'Dana', justification: 'Lone surrogate test body', recipients: [`a${LONE}@example.com`] } });
    expect(nested.body.errors).toEqual({ 'recipients.0': [expect.any(String)] });
    const named = await service.call('POST', '/requests', { key, body: { [`x${LONE}`]: 1 } });
    expect(named.status).toBe(422);
    expect(Object.keys(named.body.errors)).toEqual([`x${LONE}`]);
  });

  it.each([
    ['label', { label: `VPN ${LONE}` }],
    ['ticket_ref', { ticket_ref: `T-${LONE}` }],
  ])('POST /app/api/shares with a lone surrogate in %s: 422 on the field, with or without an Idempotency-Key', async (field, extra) => {
    const material = shareMaterial();
    for (const headers of [{}, { 'Idempotency-Key': `share-${field}` }] as Array<Record<string, string>>) {
      const answer = await member.call('POST', '/app/api/shares', { body: { envelope: material.envelope, sealed_to_fingerprint: material.fingerprint, ...extra }, headers });
      expect(answer.status, answer.text).toBe(422);
      expect(answer.body.errors).toEqual({ [field]: [expect.stringMatching(/well-formed/)] });
    }
  });

  it('a well-formed pair (an emoji) is text like any other', async () => {
    const answer = await service.call('POST', '/requests', { key, body: { subject_name: 'Dana \ud83d\ude00', justification: 'Lone surrogate test body', recipients: [org.owner.email] } });
    expect(answer.status, answer.text).toBe(201);
    expect(answer.body.request.subject.name).toBe('Dana 😀');
  });
});
