/**
 * Shares over real HTTP: the member endpoints (POST/GET /app/api/shares, GET /app/api/shares/{id},
 * POST /app/api/shares/{id}/purge: validation by field, CSRF, session, idempotent replay,
 * visibility), the recipient endpoints (GET /share/describe opens nothing; POST /share/open counts
 * views, the last allowed one destroys the ciphertext, racing opens of a one-view share let exactly
 * one through), expiry, the audit chain entries (share.created / revealed / purged / expired with
 * `shareId`), the share's custody certificate, and that shares never show in GET /v1/requests or
 * GET /v1/events.
 */
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Jwks, SignedCertificate } from '../../lambdas/core/custody/document.ts';
import { verifyCertificate } from '../../lambdas/core/custody/verify.ts';
import { sha256Hex } from '../../lambdas/core/hashing.ts';
import { createHandler as createSweepWorker } from '../../lambdas/workers/sweep.ts';
import { MemberBrowser } from '../support/member-browser.ts';
import { auditEntries, expectError, expectKeys, type AuditItem } from '../support/shapes.ts';
import { createShareAs, shareMaterial, SHARE_LINK, type CreatedShare } from '../support/shares.ts';
import { scanTable, startTestService, type TestOrganisation, type TestService } from '../support/test-service.ts';
import { movableClock } from '../support/webhooks.ts';

const MINUTE = 60_000;
const UNKNOWN_ID = '01hzzzzzzzzzzzzzzzzzzzzzzz';
const SHARE_VIEW_FIELDS = [
  'id',
  'object',
  'status',
  'label',
  'ticket_ref',
  'created_by',
  'sealed_to_fingerprint',
  'view_limit',
  'views',
  'expires_at',
  'created_at',
  'last_viewed_at',
  'ended_at',
  'end_reason',
  'purge_scheduled_at',
];

type ShareAudit = AuditItem & { shareId?: string | null };
type ShareCertificate = SignedCertificate & { share: any };

const clock = movableClock();
let service: TestService;
let org: TestOrganisation;
let other: TestOrganisation;
/** The share's creator, a plain member. */
let tom: MemberBrowser;
/** Another plain member of the same organisation. */
let mia: MemberBrowser;
let miaId: string;
/** An admin and the owner: managers, who see every share of the organisation. */
let ada: MemberBrowser;
let owner: MemberBrowser;
/** The owner of another organisation. */
let stranger: MemberBrowser;
/** Every share made here, with its secrets (link, token, envelope pieces). */
const made: CreatedShare[] = [];

beforeAll(async () => {
  service = await startTestService({ clock });
  org = await service.createOrganisation({ name: 'Share Org' });
  other = await service.createOrganisation({ name: 'Other Share Org' });
  const suffix = org.orgId.slice(-6);
  const miaMember = await service.admin.addMember({ orgId: org.orgId, name: 'Mia Member', email: `mia-${suffix}@example.com`, role: 'member' });
  miaId = miaMember.id;
  await service.admin.addMember({ orgId: org.orgId, name: 'Ada Admin', email: `ada-${suffix}@example.com`, role: 'admin' });
  // One at a time: a sign-in reads the outbox folder, where another sign-in's email may be half written.
  tom = await MemberBrowser.signIn(service, org.member.email);
  mia = await MemberBrowser.signIn(service, `mia-${suffix}@example.com`);
  ada = await MemberBrowser.signIn(service, `ada-${suffix}@example.com`);
  owner = await MemberBrowser.signIn(service, org.owner.email);
  stranger = await MemberBrowser.signIn(service, other.owner.email);
});
afterAll(() => service?.stop());

// --- helpers -------------------------------------------------------------------------------

const share = async (browser: MemberBrowser = tom, body: Record<string, unknown> = {}) => {
  const created = await createShareAs(browser, body);
  made.push(created);
  return created;
};

const describeShare = (token: string | null) =>
  service.call('GET', '/share/describe', { headers: token === null ? {} : { 'X-Share-Token': token } });
const openShare = (token: string | null) => service.call('POST', '/share/open', { headers: token === null ? {} : { 'X-Share-Token': token } });

const itemsUnderShare = async (id: string) =>
  ((
    await service.deps.db.send(
      new QueryCommand({
        TableName: service.deps.tableName,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': `SHARE#${id}` },
        ConsistentRead: true,
      }),
    )
  ).Items ?? []) as Array<Record<string, any>>;

const envelopeItem = async (id: string) => (await itemsUnderShare(id)).find((item) => item.sk === 'MATERIAL#envelope');
const shareItem = async (id: string) => (await itemsUnderShare(id)).find((item) => item.sk === 'SHARE');
const shareItemsOf = async (orgId: string) => (await scanTable(service)).filter((item) => item.kind === 'share' && item.orgId === orgId);

const shareEntries = async (id: string) => ((await auditEntries(service, org.orgId)) as ShareAudit[]).filter((entry) => entry.shareId === id);

const read = async (id: string, browser: MemberBrowser = tom) => {
  const answer = await browser.call('GET', `/app/api/shares/${id}`);
  expect(answer.status, answer.text).toBe(200);
  return answer.body;
};

const jwks = async () => (await service.call('GET', '/.well-known/jwks.json')).body as Jwks;

const shareCertificate = async (id: string): Promise<ShareCertificate> => {
  const answer = await service.call('GET', `/shares/${id}/certificate`, { key: org.key });
  expect(answer.status, answer.text).toBe(200);
  const outcome = await verifyCertificate(answer.body, await jwks());
  expect(outcome.ok ? 'ok' : outcome.reason).toBe('ok');
  return answer.body as ShareCertificate;
};

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

// --- recipient: describe and open -------------------------------------------------------------

describe('GET /share/describe and POST /share/open', () => {
  it('describe shows the share and opens nothing', async () => {
    const created = await share(tom, { view_limit: 2 });
    for (let i = 0; i < 3; i++) {
      const answer = await describeShare(created.token);
      expect(answer.status, answer.text).toBe(200);
      expect(answer.headers.get('cache-control')).toBe('no-store');
      expect(answer.headers.get('referrer-policy')).toBe('no-referrer');
      expect(answer.body).toEqual({
        status: 'active',
        sealed_to_fingerprint: created.material.fingerprint,
        expires_at: created.answer.body.share.expires_at,
        views_left: 2,
        from: org.member.name,
      });
      for (const secret of created.material.secrets) expect(answer.text).not.toContain(secret);
    }
    expect((await read(created.id)).views).toBe(0);
    expect((await shareEntries(created.id)).map((entry) => entry.type)).toEqual(['share.created']);
    expect(await envelopeItem(created.id)).toBeDefined();
  });

  it('404 for a missing, malformed or unknown token', async () => {
    const unknown = 'A'.repeat(43);
    for (const token of [null, '', 'short', unknown, `${unknown}B`]) {
      expectError(await describeShare(token), 404, 'not_found');
      expectError(await openShare(token), 404, 'not_found');
    }
  });

  it('a one-view share: the open hands over the envelope and destroys it; the second open is 410', async () => {
    const created = await share();
    const opened = await openShare(created.token);
    expect(opened.status, opened.text).toBe(200);
    expect(opened.headers.get('cache-control')).toBe('no-store');
    expect(opened.body).toEqual({
      envelope: created.material.envelope,
      share: { sealed_to_fingerprint: created.material.fingerprint, views_left: 0, destroyed: true },
    });
    expect(await envelopeItem(created.id)).toBeUndefined();
    expect(await read(created.id)).toMatchObject({ status: 'purged', views: 1, end_reason: 'view_limit_reached', ended_at: clock.now().toISOString(), last_viewed_at: clock.now().toISOString() });
    expectError(await openShare(created.token), 410, 'gone');
    expect((await describeShare(created.token)).body).toMatchObject({ status: 'purged', views_left: 0 });
    const entries = await shareEntries(created.id);
    expect(entries.map((entry) => [entry.type, entry.actor, entry.data.details])).toEqual([
      ['share.created', { type: 'member', label: org.member.name, id: org.member.id }, { view_limit: 1, expires_at: created.answer.body.share.expires_at }],
      ['share.revealed', { type: 'subject', label: 'share recipient' }, { views: 1, view_limit: 1 }],
      ['share.purged', { type: 'subject', label: 'share recipient' }, { reason: 'view_limit_reached' }],
    ]);
    // The reveal and the destruction are one transaction: consecutive entries, one time.
    expect(entries[2].seq).toBe(entries[1].seq + 1);
    expect(entries[2].occurredAt).toBe(entries[1].occurredAt);
    const all = await scanTable(service);
    for (const secret of created.material.secrets) expect(all.filter((item) => JSON.stringify(item).includes(secret))).toEqual([]);
  });

  it('a two-view share needs two opens; the third is 410', async () => {
    const created = await share(tom, { view_limit: 2 });
    const first = await openShare(created.token);
    expect(first.status, first.text).toBe(200);
    expect(first.body.share).toEqual({ sealed_to_fingerprint: created.material.fingerprint, views_left: 1, destroyed: false });
    expect(await envelopeItem(created.id)).toBeDefined();
    expect(await read(created.id)).toMatchObject({ status: 'active', views: 1, end_reason: null });
    expect((await describeShare(created.token)).body).toMatchObject({ status: 'active', views_left: 1 });
    const second = await openShare(created.token);
    expect(second.status, second.text).toBe(200);
    expect(second.body.envelope).toEqual(created.material.envelope);
    expect(second.body.share).toEqual({ sealed_to_fingerprint: created.material.fingerprint, views_left: 0, destroyed: true });
    expect(await envelopeItem(created.id)).toBeUndefined();
    expect(await read(created.id)).toMatchObject({ status: 'purged', views: 2, end_reason: 'view_limit_reached' });
    expectError(await openShare(created.token), 410, 'gone');
    expect((await shareEntries(created.id)).map((entry) => entry.type)).toEqual(['share.created', 'share.revealed', 'share.revealed', 'share.purged']);
  });

  it('concurrent opens of a one-view share: exactly one 200, the rest 410, one reveal in the chain', async () => {
    const created = await share();
    const answers = await Promise.all(Array.from({ length: 8 }, () => openShare(created.token)));
    const statuses = answers.map((answer) => answer.status).sort();
    expect(statuses).toEqual([200, 410, 410, 410, 410, 410, 410, 410]);
    for (const answer of answers.filter((a) => a.status === 410)) expectError(answer, 410, 'gone');
    expect(answers.find((answer) => answer.status === 200)!.body.envelope).toEqual(created.material.envelope);
    expect((await shareEntries(created.id)).map((entry) => entry.type)).toEqual(['share.created', 'share.revealed', 'share.purged']);
    expect(await read(created.id)).toMatchObject({ status: 'purged', views: 1 });
  });

  it('concurrent opens of a two-view share: exactly two 200', async () => {
    const created = await share(tom, { view_limit: 2 });
    const answers = await Promise.all(Array.from({ length: 6 }, () => openShare(created.token)));
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 200, 410, 410, 410, 410]);
    expect((await shareEntries(created.id)).map((entry) => entry.type)).toEqual(['share.created', 'share.revealed', 'share.revealed', 'share.purged']);
    expect(await envelopeItem(created.id)).toBeUndefined();
  });
});

// --- purge and expiry ----------------------------------------------------------------------------

describe('POST /app/api/shares/{id}/purge', () => {
  it('the creator purges a live share (200), then 409; the link then answers 410', async () => {
    const created = await share();
    const purged = await tom.call('POST', `/app/api/shares/${created.id}/purge`);
    expect(purged.status, purged.text).toBe(200);
    expect(purged.headers.get('cache-control')).toBe('no-store');
    expectKeys(purged.body, SHARE_VIEW_FIELDS, 'purged share');
    expect(purged.body).toMatchObject({ id: created.id, status: 'purged', end_reason: 'purged_by_member', ended_at: clock.now().toISOString(), views: 0 });
    expect(await envelopeItem(created.id)).toBeUndefined();
    expectError(await tom.call('POST', `/app/api/shares/${created.id}/purge`), 409, 'illegal_transition');
    expectError(await openShare(created.token), 410, 'gone');
    const entries = await shareEntries(created.id);
    expect(entries.map((entry) => entry.type)).toEqual(['share.created', 'share.purged']);
    expect(entries[1]).toMatchObject({
      shareId: created.id,
      requestId: null,
      actor: { type: 'member', label: org.member.name },
      data: { share: { status: 'purged' }, details: { reason: 'purged_by_member' } },
    });
  });

  it('an owner may purge a member\'s share; another member, another organisation, no CSRF or no session may not', async () => {
    const created = await share();
    expectError(await mia.call('POST', `/app/api/shares/${created.id}/purge`), 404, 'not_found');
    expectError(await stranger.call('POST', `/app/api/shares/${created.id}/purge`), 404, 'not_found');
    expectError(await tom.call('POST', `/app/api/shares/${created.id}/purge`, { csrf: false }), 403, 'forbidden');
    expectError(await service.call('POST', `/app/api/shares/${created.id}/purge`), 401, 'unauthenticated');
    expectError(await owner.call('POST', `/app/api/shares/${UNKNOWN_ID}/purge`), 404, 'not_found');
    expect(await envelopeItem(created.id)).toBeDefined();
    const purged = await owner.call('POST', `/app/api/shares/${created.id}/purge`);
    expect(purged.status, purged.text).toBe(200);
    expect((await shareEntries(created.id)).at(-1)).toMatchObject({ type: 'share.purged', actor: { type: 'member', label: org.owner.name } });
  });

  it('a share opened to its limit is already ended: purge answers 409', async () => {
    const created = await share();
    expect((await openShare(created.token)).status).toBe(200);
    expectError(await tom.call('POST', `/app/api/shares/${created.id}/purge`), 409, 'illegal_transition');
  });
});

describe('expiry', () => {
  it('an expired share opens no more (410) and the sweep destroys its ciphertext with share.expired', async () => {
    const created = await share(tom, { expires_in_minutes: 5 });
    const sweep = service.asWorker('sweep', createSweepWorker(service.deps));
    expect((await sweep()).sharesExpired).toBe(0);
    clock.advance(5 * MINUTE + 1_000);
    expect((await describeShare(created.token)).body).toMatchObject({ status: 'expired', views_left: 0 });
    expectError(await openShare(created.token), 410, 'gone');
    // Before the sweep has run, the member already sees it expired; the ciphertext is still there.
    expect(await read(created.id)).toMatchObject({ status: 'expired', end_reason: null });
    expect(await envelopeItem(created.id)).toBeDefined();
    expect(await sweep()).toMatchObject({ sharesExpired: 1, failed: 0 });
    expect(await envelopeItem(created.id)).toBeUndefined();
    expect(await read(created.id)).toMatchObject({ status: 'expired', end_reason: 'expired', views: 0 });
    expect((await shareEntries(created.id)).at(-1)).toMatchObject({
      type: 'share.expired',
      shareId: created.id,
      actor: { type: 'system', label: 'expiry' },
      data: { share: { status: 'expired' }, details: { reason: 'expired' } },
    });
    expectError(await tom.call('POST', `/app/api/shares/${created.id}/purge`), 409, 'illegal_transition');
  });

  it('a member destroying a share past its expiry (before the sweep) ends it as expired', async () => {
    const created = await share(tom, { expires_in_minutes: 5 });
    clock.advance(5 * MINUTE + 1_000);
    const purged = await tom.call('POST', `/app/api/shares/${created.id}/purge`);
    expect(purged.status, purged.text).toBe(200);
    expect(purged.body).toMatchObject({ status: 'expired', end_reason: 'expired' });
    expect(await envelopeItem(created.id)).toBeUndefined();
    expect((await shareEntries(created.id)).at(-1)).toMatchObject({
      type: 'share.expired',
      actor: { type: 'member', label: org.member.name },
      data: { details: { reason: 'expired' } },
    });
    expect((await service.asWorker('sweep', createSweepWorker(service.deps))()).sharesExpired).toBe(0);
  });
});

// --- the audit chain, the certificate, the API ------------------------------------------------------

describe('shares in the audit chain, the certificate and the API', () => {
  it('every share entry names its share, no request and no client; the chain links through them', async () => {
    const all = (await auditEntries(service, org.orgId)) as ShareAudit[];
    const ours = all.filter((entry) => entry.type.startsWith('share.'));
    expect(new Set(ours.map((entry) => entry.type))).toEqual(new Set(['share.created', 'share.revealed', 'share.purged', 'share.expired']));
    for (const entry of ours) {
      expect(entry.shareId, `${entry.type} ${entry.seq}`).toMatch(/^[0-9a-z]{26}$/);
      expect(entry.requestId).toBeNull();
      expect(entry.clientId).toBeNull();
      expect(entry.data.share.id).toBe(entry.shareId);
    }
    for (let i = 1; i < all.length; i++) expect(all[i].prevHash).toBe(all[i - 1].hash);
  });

  it('the certificate of a share opened to its limit lists created, revealed, purged (view_limit_reached)', async () => {
    const created = await share();
    expect((await openShare(created.token)).status).toBe(200);
    const certificate = await shareCertificate(created.id);
    const entries = await shareEntries(created.id);
    expect(certificate).toMatchObject({
      subject_kind: 'share',
      final: true,
      share: { id: created.id, status: 'purged', views: 1, view_limit: 1, sealed_to: { fingerprint: created.material.fingerprint }, created_by: { membership_id: org.member.id } },
      destruction: {
        destroyed: true,
        at: entries[2].occurredAt,
        reason: 'view_limit_reached',
        seq: entries[2].seq,
        scope: 'live_table',
        ciphertext_stored: true,
        // The local runtime keeps no point-in-time backups of its table.
        backups: { point_in_time_recovery_days: 0, ciphertext_restorable_until: null },
      },
    });
    expect(certificate.timeline.map((fact) => [fact.type, fact.event, fact.reason, fact.seq])).toEqual([
      ['share.created', 'created', null, entries[0].seq],
      ['share.revealed', 'revealed', null, entries[1].seq],
      ['share.purged', 'purged', 'view_limit_reached', entries[2].seq],
    ]);
    expect(certificate.chain.entries.map((entry) => entry.hash)).toEqual(entries.map((entry) => entry.hash));
    const text = JSON.stringify(certificate);
    for (const secret of [created.token, created.link, ...created.material.secrets]) expect(text).not.toContain(secret);
  });

  it('the certificates of a purged and an expired share name their reasons', async () => {
    const purged = await share();
    expect((await tom.call('POST', `/app/api/shares/${purged.id}/purge`)).status).toBe(200);
    const byMember = await shareCertificate(purged.id);
    expect(byMember).toMatchObject({ final: true, share: { status: 'purged' }, destruction: { destroyed: true, reason: 'purged_by_member' } });
    expect(byMember.timeline.map((fact) => fact.type)).toEqual(['share.created', 'share.purged']);

    const expiring = await share(tom, { expires_in_minutes: 5 });
    clock.advance(5 * MINUTE + 1_000);
    expect((await service.asWorker('sweep', createSweepWorker(service.deps))()).sharesExpired).toBe(1);
    const expired = await shareCertificate(expiring.id);
    expect(expired).toMatchObject({ final: true, share: { status: 'expired' }, destruction: { destroyed: true, reason: 'expired' } });
    expect(expired.timeline.map((fact) => [fact.type, fact.event, fact.actor.type])).toEqual([
      ['share.created', 'created', 'member'],
      ['share.expired', 'expired', 'system'],
    ]);
  });

  it('shares never appear in GET /v1/requests or GET /v1/events', async () => {
    expect(made.length).toBeGreaterThan(10);
    const ids = made.map((m) => m.id);
    const requests = await service.call('GET', '/requests?limit=100', { key: org.key });
    expect(requests.status, requests.text).toBe(200);
    expect(requests.body.data).toEqual([]);
    const seen: Array<Record<string, any>> = [];
    let since = '0';
    for (let page = 0; page < 20; page++) {
      const answer = await service.call('GET', `/events?since=${since}&limit=200`, { key: org.key });
      expect(answer.status, answer.text).toBe(200);
      seen.push(...answer.body.data);
      if (!answer.body.has_more) break;
      since = answer.body.next_cursor;
    }
    expect(seen.filter((event) => event.type.startsWith('share.'))).toEqual([]);
    const text = JSON.stringify(seen);
    for (const id of ids) expect(text).not.toContain(id);
    expectError(await service.call('GET', '/events?types=share.created', { key: org.key }), 422, 'validation_failed', ['types']);
  });
});
