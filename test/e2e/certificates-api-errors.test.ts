/**
 * GET /v1/requests/{id}/certificate and GET /v1/shares/{id}/certificate over real HTTP, the errors
 * of both (SPEC.md, "GET /requests/{id}/certificate and GET /shares/{id}/certificate", "Errors"):
 * 401 / 403 / 404 / 422, the client scope on shares, and the share certificate itself (its JSON
 * and PDF, the creator, the sealed-to fingerprint, a quoted ticket).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { verifyCertificate } from '../../lambdas/core/custody/verify.ts';
import { newId } from '../../lambdas/core/ids.ts';
import {
  alice,
  aliceBrowser,
  certificate,
  clientKey,
  eventsKey,
  expectNoSecret,
  fetchPdf,
  getCertificate,
  jwks,
  noEventsKey,
  org,
  other,
  requestCertificatePath,
  secrets,
  served,
  service,
  shareCertificatePath,
  signInAlice,
  createRequest,
  useCustodyOrganisation,
  type Certificate,
} from '../support/certificates-api.ts';
import { MemberBrowser } from '../support/member-browser.ts';
import { extractEmbeddedCertificate } from '../support/pdf-attachment-oracle.ts';
import { expectError } from '../support/shapes.ts';
import { createShareAs, type CreatedShare } from '../support/shares.ts';

const UNKNOWN_ID = '01hzzzzzzzzzzzzzzzzzzzzzzz';
const MALFORMED_IDS = ['not-an-id', '01HZZZZZZZZZZZZZZZZZZZZZZZ', '01hzzzzzzzzzzzzzzzzzzzzzz', `${UNKNOWN_ID}0`];

useCustodyOrganisation();

describe('errors of both endpoints', () => {
  let requestId: string;
  let share: CreatedShare;

  beforeAll(async () => {
    requestId = (await createRequest()).request.id;
    await signInAlice();
    share = await createShareAs(aliceBrowser);
    secrets.push(share.link, share.token, ...share.material.secrets);
  });

  const paths = () => [requestCertificatePath(requestId), shareCertificatePath(share.id)];

  it('422 validation_failed with errors.format for format=xml (and any other format)', async () => {
    for (const path of paths()) {
      for (const format of ['xml', 'PDF', 'html', '']) {
        expectError(await getCertificate(`${path}?format=${format}`), 422, 'validation_failed', ['format']);
      }
    }
  });

  it('401 unauthenticated without a key or with a wrong one', async () => {
    const wrong = `${eventsKey.slice(0, -4)}${eventsKey.slice(-4) === 'AAAA' ? 'BBBB' : 'AAAA'}`;
    for (const path of [...paths(), requestCertificatePath(UNKNOWN_ID), shareCertificatePath(UNKNOWN_ID)]) {
      expectError(await getCertificate(path, null), 401, 'unauthenticated');
      expectError(await getCertificate(path, wrong), 401, 'unauthenticated');
      expectError(await getCertificate(path, 'chs_live_not-a-key'), 401, 'unauthenticated');
    }
  });

  it('403 forbidden for a key without events:read', async () => {
    for (const path of [...paths(), requestCertificatePath(UNKNOWN_ID)]) {
      expectError(await getCertificate(path, noEventsKey), 403, 'forbidden');
      expectError(await getCertificate(`${path}?format=pdf`, noEventsKey), 403, 'forbidden');
    }
  });

  it('404 not_found for an unknown id, a malformed id, and another organisation\'s request or share', async () => {
    for (const kind of ['requests', 'shares']) {
      expectError(await getCertificate(`/${kind}/${UNKNOWN_ID}/certificate`), 404, 'not_found');
      expectError(await getCertificate(`/${kind}/${newId()}/certificate?format=pdf`), 404, 'not_found');
      for (const id of MALFORMED_IDS) expectError(await getCertificate(`/${kind}/${id}/certificate`), 404, 'not_found');
    }
    // The neighbour's own key reads them; this organisation's keys get 404.
    const theirs = await service.call('POST', '/requests', {
      key: other.key,
      body: { subject_name: 'Jane Doe', justification: 'Another organisation entirely', recipients: [other.owner.email] },
    });
    expect(theirs.status).toBe(201);
    secrets.push(theirs.body.link);
    const neighbour = await MemberBrowser.signIn(service, other.owner.email);
    const theirShare = await createShareAs(neighbour);
    secrets.push(theirShare.link, theirShare.token, ...theirShare.material.secrets);
    expect((await certificate(requestCertificatePath(theirs.body.request.id), other.key)).organisation.id).toBe(other.orgId);
    expect((await certificate(shareCertificatePath(theirShare.id), other.key)).organisation.id).toBe(other.orgId);
    for (const key of [org.key, eventsKey]) {
      expectError(await getCertificate(requestCertificatePath(theirs.body.request.id), key), 404, 'not_found');
      expectError(await getCertificate(shareCertificatePath(theirShare.id), key), 404, 'not_found');
    }
    expectError(await getCertificate(shareCertificatePath(share.id), other.key), 404, 'not_found');
    expectError(await getCertificate(requestCertificatePath(requestId), other.key), 404, 'not_found');
  });

  it('a client-scoped key gets 404 for every share, even one of its organisation', async () => {
    expectError(await getCertificate(shareCertificatePath(share.id), clientKey), 404, 'not_found');
    expectError(await getCertificate(shareCertificatePath(share.id, '?format=pdf'), clientKey), 404, 'not_found');
    expectError(await getCertificate(shareCertificatePath(UNKNOWN_ID), clientKey), 404, 'not_found');
  });

  it('the share certificate: 200 JSON and PDF, sealed-to fingerprint, creator, not final while live', async () => {
    const document = await certificate(shareCertificatePath(share.id));
    expect(document).toMatchObject({
      subject_kind: 'share',
      final: false,
      client: null,
      organisation: { id: org.orgId },
      destruction: { destroyed: false, at: null, reason: null, seq: null, scope: 'live_table', ciphertext_stored: true, backups: { point_in_time_recovery_days: 0, ciphertext_restorable_until: null } },
      share: {
        id: share.id,
        status: 'active',
        created_by: { membership_id: alice.id, name: alice.name, email: alice.email },
        sealed_to: { fingerprint: share.material.fingerprint },
        view_limit: 1,
        views: 0,
      },
    });
    expect(document.timeline.map((fact) => [fact.type, fact.event, fact.actor])).toEqual([['share.created', 'created', { type: 'member', label: alice.name }]]);
    const pdf = await fetchPdf(shareCertificatePath(share.id, '?format=pdf'));
    expect(pdf.status).toBe(200);
    expect(pdf.headers.get('content-type')).toBe('application/pdf');
    expect(pdf.headers.get('cache-control')).toBe('no-store');
    expect(Buffer.from(pdf.bytes.subarray(0, 5)).toString('latin1')).toBe('%PDF-');
    const text = extractEmbeddedCertificate(pdf.bytes);
    const embedded = JSON.parse(text) as Certificate;
    const outcome = await verifyCertificate(embedded, await jwks());
    expect(outcome.ok ? 'ok' : outcome.reason).toBe('ok');
    expect(embedded).toMatchObject({ subject_kind: 'share', share: { id: share.id } });
    served.push(text);
    expectNoSecret(text, 'the share PDF certificate');
  });

  it('a share quoting a ticket names it in the certificate', async () => {
    const quoting = await createShareAs(aliceBrowser, { ticket_ref: 'INC-SHARE-1' });
    secrets.push(quoting.link, quoting.token, ...quoting.material.secrets);
    const document = await certificate(shareCertificatePath(quoting.id));
    expect(document.ticket).toEqual({ ref: 'INC-SHARE-1', external_id: null, integration_id: null, url: null });
  });
});
