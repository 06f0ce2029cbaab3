/**
 * Shares over real HTTP, the member endpoints that make and show them: POST /app/api/shares
 * (the link shown once, the ciphertext stored apart and the token only as a hash, defaults,
 * validation by field, CSRF, session, idempotent replay) and GET /app/api/shares,
 * GET /app/api/shares/{id} (who sees which share).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { sha256Hex } from '../../lambdas/core/hashing.ts';
import { expectError, expectKeys } from '../support/shapes.ts';
import { shareMaterial, SHARE_LINK, type CreatedShare } from '../support/shares.ts';
import { ada, clock, envelopeItem, itemsUnderShare, made, mia, miaId, MINUTE, org, owner, read, service, share, SHARE_VIEW_FIELDS, shareEntries, stranger, tom, UNKNOWN_ID, useShareService } from '../support/shares-api.ts';
import { scanTable } from '../support/test-service.ts';
import type { MemberBrowser } from '../support/member-browser.ts';

useShareService();

const shareItem = async (id: string) => (await itemsUnderShare(id)).find((item) => item.sk === 'SHARE');
const shareItemsOf = async (orgId: string) => (await scanTable(service)).filter((item) => item.kind === 'share' && item.orgId === orgId);

// --- POST /app/api/shares ---------------------------------------------------------------------

describe('POST /app/api/shares', () => {
  it('201 with the share and its link shown once; the ciphertext stored apart, the token only as a hash, a share.created entry', async () => {
    const material = shareMaterial();
    const answer = await tom.call('POST', '/app/api/shares', {
      body: { envelope: material.envelope, sealed_to_fingerprint: material.fingerprint, label: 'VPN for Dana', ticket_ref: 'INC-77', view_limit: 3, expires_in_minutes: 60 },
    });
    expect(answer.status, answer.text).toBe(201);
    expect(answer.headers.get('cache-control')).toBe('no-store');
    expect(answer.headers.get('content-type')).toContain('application/json');
    expectKeys(answer.body, ['share', 'link'], 'creation result');
    const view = answer.body.share;
    expectKeys(view, SHARE_VIEW_FIELDS, 'share');
    const now = clock.now();
    expect(view).toEqual({
      id: expect.stringMatching(/^[0-9a-z]{26}$/),
      object: 'share',
      status: 'active',
      label: 'VPN for Dana',
      ticket_ref: 'INC-77',
      created_by: { membership_id: org.member.id, name: org.member.name, email: org.member.email },
      sealed_to_fingerprint: material.fingerprint,
      view_limit: 3,
      views: 0,
      expires_at: new Date(now.getTime() + 60 * MINUTE).toISOString(),
      created_at: now.toISOString(),
      last_viewed_at: null,
      ended_at: null,
      end_reason: null,
      purge_scheduled_at: null,
    });
    const link = SHARE_LINK.exec(answer.body.link);
    expect(link, answer.body.link).not.toBeNull();
    expect(link![1]).toBe(service.appUrl);
    expect(answer.headers.get('location')).toBe(`${service.appUrl}/app/api/shares/${view.id}`);
    made.push({ id: view.id, link: answer.body.link, token: link![2], material, answer });

    // The share, its ciphertext beside it, the token's hash naming it; nothing else holds the envelope or the token.
    const items = await itemsUnderShare(view.id);
    expect(items.map((item) => item.sk).sort()).toEqual(['MATERIAL#envelope', 'SHARE', expect.stringMatching(/^TRAIL#/)].sort());
    expect((await envelopeItem(view.id))!.body).toEqual(material.envelope);
    expect(await shareItem(view.id)).toMatchObject({ kind: 'share', status: 'active', orgId: org.orgId, sealedToFingerprint: material.fingerprint, views: 0 });
    const all = await scanTable(service);
    const linkItem = all.find((item) => item.pk === `SHARELINK#${sha256Hex(link![2])}`);
    expect(linkItem).toMatchObject({ shareId: view.id, orgId: org.orgId });
    expect(all.filter((item) => JSON.stringify(item).includes(link![2]))).toEqual([]);
    for (const secret of material.secrets) {
      expect(all.filter((item) => JSON.stringify(item).includes(secret)).map((item) => `${item.pk} ${item.sk}`)).toEqual([`SHARE#${view.id} MATERIAL#envelope`]);
    }

    const [entry] = await shareEntries(view.id);
    expect(entry).toMatchObject({
      type: 'share.created',
      shareId: view.id,
      requestId: null,
      clientId: null,
      actor: { type: 'member', label: org.member.name },
      data: { share: view, actor: { type: 'member', label: org.member.name }, details: { view_limit: 3, expires_at: view.expires_at, ticket_ref: 'INC-77' } },
    });
  });

  it('stores a ticket reference trimmed, as a status for the ticket names it', async () => {
    const created = await share(undefined, { ticket_ref: ' SH-9 ' });
    expect(created.answer.body.share.ticket_ref).toBe('SH-9');
  });

  it('defaults: one view, 24 hours, no label or ticket', async () => {
    const created = await share();
    expect(created.answer.body.share).toMatchObject({
      view_limit: 1,
      label: null,
      ticket_ref: null,
      expires_at: new Date(clock.now().getTime() + 1_440 * MINUTE).toISOString(),
    });
  });

  it('422 validation_failed by field, storing nothing', async () => {
    const { envelope, fingerprint } = shareMaterial();
    const base = { envelope, sealed_to_fingerprint: fingerprint };
    const before = (await shareItemsOf(org.orgId)).length;
    const cases: Array<[unknown, string[]]> = [
      [{}, ['envelope', 'sealed_to_fingerprint']],
      [{ sealed_to_fingerprint: fingerprint }, ['envelope']],
      [{ ...base, sealed_to_fingerprint: 'ab'.repeat(32) }, ['sealed_to_fingerprint']],
      [{ ...base, view_limit: 0 }, ['view_limit']],
      [{ ...base, view_limit: 11 }, ['view_limit']],
      [{ ...base, view_limit: 1.5 }, ['view_limit']],
      [{ ...base, view_limit: '2' }, ['view_limit']],
      [{ ...base, expires_in_minutes: 4 }, ['expires_in_minutes']],
      [{ ...base, expires_in_minutes: 43_201 }, ['expires_in_minutes']],
      [{ ...base, label: 'x'.repeat(121) }, ['label']],
      [{ ...base, ticket_ref: 'x'.repeat(121) }, ['ticket_ref']],
      [{ ...base, ticket_ref: '' }, ['ticket_ref']],
      [{ ...base, ticket_ref: '   ' }, ['ticket_ref']],
      [{ ...base, colour: 'red' }, ['colour']],
      [{ ...base, envelope: { ...envelope, ciphertext: 'not base64!' } }, ['envelope.ciphertext']],
      [{ ...base, envelope: { ...envelope, recipients: [envelope.recipients[0], envelope.recipients[0]] } }, ['envelope.recipients']],
      [{ ...base, envelope: { ...envelope, recipients: [] } }, ['envelope.recipients']],
      [{ ...base, envelope: { ...envelope, recipients: [{ ...envelope.recipients[0], membership_id: 'someone' }] } }, ['envelope.recipients.0.membership_id']],
      [{ ...base, sealed_to_fingerprint: fingerprint.toUpperCase() }, ['sealed_to_fingerprint']],
      // Every bad field at once, the mismatched fingerprint among them.
      [{ ...base, sealed_to_fingerprint: 'ab'.repeat(32), view_limit: 0, expires_in_minutes: 1 }, ['sealed_to_fingerprint', 'view_limit', 'expires_in_minutes']],
    ];
    for (const [body, fields] of cases) {
      expectError(await tom.call('POST', '/app/api/shares', { body }), 422, 'validation_failed', fields);
    }
    expect(await shareItemsOf(org.orgId)).toHaveLength(before);
  });

  it('403 without or with a wrong CSRF header, or from another origin; 401 without a session; nothing stored', async () => {
    const { envelope, fingerprint } = shareMaterial();
    const body = { envelope, sealed_to_fingerprint: fingerprint };
    const before = (await shareItemsOf(org.orgId)).length;
    expectError(await tom.call('POST', '/app/api/shares', { body, csrf: false }), 403, 'forbidden');
    expectError(await tom.call('POST', '/app/api/shares', { body, csrf: 'not-the-token' }), 403, 'forbidden');
    expectError(await tom.call('POST', '/app/api/shares', { body, headers: { Origin: 'https://evil.example' } }), 403, 'forbidden');
    expectError(await service.call('POST', '/app/api/shares', { body }), 401, 'unauthenticated');
    expectError(await service.call('POST', '/app/api/shares', { body, headers: { Cookie: 'handoff_session=not-a-session' } }), 401, 'unauthenticated');
    // An API key is not a session.
    expectError(await service.call('POST', '/app/api/shares', { body, key: org.key }), 401, 'unauthenticated');
    expect(await shareItemsOf(org.orgId)).toHaveLength(before);
  });

  it('an idempotent replay answers the same status, link null and Idempotency-Replayed: true, and stores one share', async () => {
    const { envelope, fingerprint } = shareMaterial();
    const body = { envelope, sealed_to_fingerprint: fingerprint, label: 'Replayed share' };
    const headers = { 'Idempotency-Key': `share-${Date.now()}` };
    const first = await tom.call('POST', '/app/api/shares', { body, headers });
    expect(first.status, first.text).toBe(201);
    expect(first.body.link).toMatch(SHARE_LINK);
    expect(first.headers.get('idempotency-replayed')).toBeNull();
    const second = await tom.call('POST', '/app/api/shares', { body, headers });
    expect(second.status, second.text).toBe(201);
    expect(second.headers.get('idempotency-replayed')).toBe('true');
    expect(second.headers.get('location')).toBe(first.headers.get('location'));
    expect(second.body).toEqual({ ...first.body, link: null });
    const stored = (await shareItemsOf(org.orgId)).filter((item) => item.label === 'Replayed share');
    expect(stored.map((item) => item.id)).toEqual([first.body.share.id]);
    expect((await shareEntries(first.body.share.id)).map((entry) => entry.type)).toEqual(['share.created']);
    // The same key with another body is refused; another member's same key is theirs alone.
    expectError(await tom.call('POST', '/app/api/shares', { body: { ...body, label: 'Another' }, headers }), 422, 'idempotency_key_reused');
    const mias = await mia.call('POST', '/app/api/shares', { body, headers });
    expect(mias.status).toBe(201);
    expect(mias.headers.get('idempotency-replayed')).toBeNull();
    expect(mias.body.share.id).not.toBe(first.body.share.id);
    expect(mias.body.link).toMatch(SHARE_LINK);
  });
});

// --- GET /app/api/shares, GET /app/api/shares/{id} -----------------------------------------

describe('listing and reading shares', () => {
  let toms: CreatedShare;
  let mias: CreatedShare;
  let theirs: CreatedShare;

  beforeAll(async () => {
    toms = await share(tom, { label: "Tom's share" });
    mias = await share(mia, { label: "Mia's share" });
    theirs = await share(stranger, { label: "Another organisation's share" });
  });

  const listed = async (browser: MemberBrowser) => {
    const answer = await browser.call('GET', '/app/api/shares');
    expect(answer.status, answer.text).toBe(200);
    expect(answer.headers.get('cache-control')).toBe('no-store');
    expectKeys(answer.body, ['object', 'data'], 'share list');
    expect(answer.body.object).toBe('list');
    answer.body.data.forEach((view: unknown, i: number) => expectKeys(view, SHARE_VIEW_FIELDS, `data[${i}]`));
    return answer.body.data.map((view: { id: string }) => view.id) as string[];
  };

  it('a member lists their own shares, newest first; owners and admins list every share of the organisation', async () => {
    const tomsList = await listed(tom);
    expect(tomsList).toContain(toms.id);
    expect(tomsList).not.toContain(mias.id);
    expect([...tomsList].sort().reverse()).toEqual(tomsList);
    const miasList = await listed(mia);
    expect(miasList).toContain(mias.id);
    expect(miasList).not.toContain(toms.id);
    for (const manager of [owner, ada]) {
      const all = await listed(manager);
      expect(all).toEqual(expect.arrayContaining([toms.id, mias.id]));
      expect(all).not.toContain(theirs.id);
      expect([...all].sort().reverse()).toEqual(all);
    }
    expect(await listed(stranger)).toEqual([theirs.id]);
  });

  it('GET /app/api/shares/{id}: the creator, owners and admins; 404 for another member, another organisation, unknown and malformed ids', async () => {
    const view = await read(toms.id, tom);
    expect(view).toEqual(toms.answer.body.share);
    expect(await read(toms.id, owner)).toEqual(view);
    expect(await read(toms.id, ada)).toEqual(view);
    expect((await read(mias.id, mia)).created_by.membership_id).toBe(miaId);
    expectError(await mia.call('GET', `/app/api/shares/${toms.id}`), 404, 'not_found');
    expectError(await tom.call('GET', `/app/api/shares/${mias.id}`), 404, 'not_found');
    expectError(await stranger.call('GET', `/app/api/shares/${toms.id}`), 404, 'not_found');
    expectError(await owner.call('GET', `/app/api/shares/${theirs.id}`), 404, 'not_found');
    expectError(await owner.call('GET', `/app/api/shares/${UNKNOWN_ID}`), 404, 'not_found');
    expectError(await owner.call('GET', '/app/api/shares/not-an-id'), 404, 'not_found');
    expectError(await service.call('GET', `/app/api/shares/${toms.id}`), 401, 'unauthenticated');
    expectError(await service.call('GET', '/app/api/shares'), 401, 'unauthenticated');
  });
});
