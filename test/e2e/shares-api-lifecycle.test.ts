/**
 * Shares over real HTTP after they are made: the recipient endpoints (GET /share/describe opens
 * nothing; POST /share/open counts views, the last allowed one destroys the ciphertext, racing
 * opens of a one-view share let exactly one through), POST /app/api/shares/{id}/purge, expiry, the
 * audit chain entries (share.created / revealed / purged / expired with `shareId`), the share's
 * custody certificate, and that shares never show in GET /v1/requests or GET /v1/events.
 */
import { describe, expect, it } from 'vitest';
import type { Jwks, SignedCertificate } from '../../lambdas/core/custody/document.ts';
import { verifyCertificate } from '../../lambdas/core/custody/verify.ts';
import { createHandler as createSweepWorker } from '../../lambdas/workers/sweep.ts';
import { auditEntries, expectError, expectKeys } from '../support/shapes.ts';
import { clock, envelopeItem, made, mia, MINUTE, org, owner, read, service, share, SHARE_VIEW_FIELDS, shareEntries, stranger, tom, UNKNOWN_ID, useShareService, type ShareAudit } from '../support/shares-api.ts';
import { scanTable } from '../support/test-service.ts';

type ShareCertificate = SignedCertificate & { share: any };

useShareService();

const describeShare = (token: string | null) =>
  service.call('GET', '/share/describe', { headers: token === null ? {} : { 'X-Share-Token': token } });
const openShare = (token: string | null) => service.call('POST', '/share/open', { headers: token === null ? {} : { 'X-Share-Token': token } });

const jwks = async () => (await service.call('GET', '/.well-known/jwks.json')).body as Jwks;

const shareCertificate = async (id: string): Promise<ShareCertificate> => {
  const answer = await service.call('GET', `/shares/${id}/certificate`, { key: org.key });
  expect(answer.status, answer.text).toBe(200);
  const outcome = await verifyCertificate(answer.body, await jwks());
  expect(outcome.ok ? 'ok' : outcome.reason).toBe('ok');
  return answer.body as ShareCertificate;
};

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
      ['share.revealed', { type: 'subject', label: 'share link holder' }, { views: 1, view_limit: 1 }],
      ['share.purged', { type: 'subject', label: 'share link holder' }, { reason: 'view_limit_reached' }],
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
