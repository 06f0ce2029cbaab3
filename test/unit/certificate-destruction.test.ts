/**
 * What a certificate says a destruction covers (document.ts, `destruction`): the ciphertext is
 * deleted from the service's table, and the table's point-in-time backups still hold it for the
 * recovery period the service runs with. Built from audit entries as the service stores them,
 * signed independently (custody-fixtures.ts) and verified as any reader would; and where the
 * certificate function learns the period (lambdas/table-backups.ts).
 */
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../lambdas/core/custody/canonical.ts';
import { buildRequestCertificate, buildShareCertificate, type CertificateContext } from '../../lambdas/core/custody/build-certificate.ts';
import { GENESIS_HASH } from '../../lambdas/core/custody/document.ts';
import { verifyCertificate } from '../../lambdas/core/custody/verify.ts';
import type { AuditEntry } from '../../lambdas/core/ports.ts';
import { LOCAL_TABLE_BACKUPS } from '../../lambdas/local/local-service.ts';
import { RECOVERY_DAYS_VARIABLE, tableBackupsOf } from '../../lambdas/table-backups.ts';
import { jwksOf, makeKey, sha256Hex, signCertificate } from '../support/custody-fixtures.ts';

const ORG = { id: 'org_01JTESTDESTRUCTION', name: 'Destruction Ltd' };
const REQUEST_ID = 'req_01JTESTDESTRUCTION';
const SHARE_ID = 'shr_01JTESTDESTRUCTION';
const DAY = 86_400_000;

/** Linked, hashed entries as the audit chain stores them, one minute apart from 09:00. */
const chainOf = (types: string[], about: { requestId?: string; shareId?: string }): AuditEntry[] => {
  const entries: AuditEntry[] = [];
  types.forEach((type, i) => {
    const content = {
      orgId: ORG.id,
      seq: i + 1,
      type,
      occurredAt: new Date(Date.UTC(2026, 2, 9, 9, i)).toISOString(),
      prevHash: i === 0 ? GENESIS_HASH : entries[i - 1].hash,
      actor: { type: 'member' as const, label: 'Ada Lovelace', id: 'mem_ada' },
      clientId: null,
      requestId: about.requestId ?? null,
      ...(about.shareId && { shareId: about.shareId }),
      data: {},
    };
    entries.push({ ...content, hash: sha256Hex(canonicalJson(content)) });
  });
  return entries;
};

const contextOf = (entries: AuditEntry[], pointInTimeRecoveryDays: number): CertificateContext => ({
  certificateId: 'cert_01JTESTDESTRUCTION',
  issuedAt: '2026-03-09T12:00:00.000Z',
  issuer: { name: 'Credential Handoff', app_url: 'https://handoff.example.com', jwks_url: 'https://handoff.example.com/.well-known/jwks.json' },
  organisation: ORG,
  head: { seq: entries.at(-1)!.seq, hash: entries.at(-1)!.hash },
  entries,
  backups: { pointInTimeRecoveryDays },
});

const SEALING = { recipients: [], commitment: { value: 'c0mm1tment', computed_by: 'server' as const } };
const requestCertificate = (types: string[], days: number) =>
  buildRequestCertificate(contextOf(chainOf(types, { requestId: REQUEST_ID }), days), REQUEST_ID, SEALING);
const shareCertificate = (types: string[], days: number) => buildShareCertificate(contextOf(chainOf(types, { shareId: SHARE_ID }), days), SHARE_ID);

const plusDays = (iso: string, days: number) => new Date(Date.parse(iso) + days * DAY).toISOString();

describe('the destruction a certificate states', () => {
  it('a completed request: its ciphertext deleted from the table, restorable from backups until the deletion plus the recovery days', () => {
    const certificate = requestCertificate(['request.created', 'request.submitted', 'request.revealed', 'request.completed'], 7);
    const completedAt = certificate.timeline.at(-1)!.at;
    expect(certificate.destruction).toEqual({
      destroyed: true,
      at: completedAt,
      reason: 'completed',
      seq: 4,
      scope: 'live_table',
      ciphertext_stored: true,
      backups: { point_in_time_recovery_days: 7, ciphertext_restorable_until: plusDays(completedAt, 7) },
    });
    expect(certificate.destruction.backups!.ciphertext_restorable_until).toBe('2026-03-16T09:03:00.000Z');
  });

  it('the period is the one the service runs with', () => {
    const certificate = requestCertificate(['request.created', 'request.submitted', 'request.expired'], 35);
    expect(certificate.destruction.backups).toEqual({ point_in_time_recovery_days: 35, ciphertext_restorable_until: '2026-04-13T09:02:00.000Z' });
  });

  it('a request revoked before anything was submitted: the service never held a ciphertext, so no backup holds one', () => {
    const certificate = requestCertificate(['request.created', 'request.opened', 'request.revoked'], 7);
    expect(certificate.destruction).toMatchObject({ destroyed: true, ciphertext_stored: false, backups: { point_in_time_recovery_days: 7, ciphertext_restorable_until: null } });
  });

  it('a request still waiting: nothing destroyed yet, the recovery period stated ahead', () => {
    const pending = requestCertificate(['request.created'], 7);
    expect(pending.destruction).toEqual({
      destroyed: false,
      at: null,
      reason: null,
      seq: null,
      scope: 'live_table',
      ciphertext_stored: false,
      backups: { point_in_time_recovery_days: 7, ciphertext_restorable_until: null },
    });
    const submitted = requestCertificate(['request.created', 'request.submitted'], 7);
    expect(submitted.destruction).toMatchObject({ destroyed: false, ciphertext_stored: true, backups: { ciphertext_restorable_until: null } });
  });

  it('without point-in-time recovery (the local runtime) no backup holds the ciphertext', () => {
    const certificate = requestCertificate(['request.created', 'request.submitted', 'request.completed'], 0);
    expect(certificate.destruction).toMatchObject({ destroyed: true, ciphertext_stored: true, backups: { point_in_time_recovery_days: 0, ciphertext_restorable_until: null } });
  });

  it('a share holds ciphertext from its creation, and is purged the same way', () => {
    const certificate = shareCertificate(['share.created', 'share.revealed', 'share.purged'], 7);
    const purgedAt = certificate.timeline.at(-1)!.at;
    expect(certificate.destruction).toMatchObject({
      destroyed: true,
      at: purgedAt,
      scope: 'live_table',
      ciphertext_stored: true,
      backups: { point_in_time_recovery_days: 7, ciphertext_restorable_until: plusDays(purgedAt, 7) },
    });
    expect(shareCertificate(['share.created'], 7).destruction).toMatchObject({ destroyed: false, ciphertext_stored: true });
  });

  it('is signed with the rest: the certificate verifies, and a changed period or date does not', async () => {
    const key = await makeKey();
    const jwks = jwksOf(key);
    const certificate = requestCertificate(['request.created', 'request.submitted', 'request.completed'], 7);
    const signed = signCertificate(certificate, key);
    const outcome = await verifyCertificate(signed, jwks);
    expect(outcome.ok ? 'ok' : outcome.reason).toBe('ok');

    const tampered = structuredClone(signed);
    tampered.destruction.backups!.point_in_time_recovery_days = 1;
    expect(await verifyCertificate(tampered, jwks)).toMatchObject({ ok: false, reason: expect.stringMatching(/^signature does not verify/) });
  });
});

describe('the period the certificate function states', () => {
  it("is the local runtime's own (no point-in-time recovery), or deployed the stack's setting", () => {
    expect(tableBackupsOf({ tableBackups: LOCAL_TABLE_BACKUPS }, {})).toEqual({ pointInTimeRecoveryDays: 0 });
    expect(tableBackupsOf({}, { [RECOVERY_DAYS_VARIABLE]: '7' })).toEqual({ pointInTimeRecoveryDays: 7 });
    expect(tableBackupsOf({}, { [RECOVERY_DAYS_VARIABLE]: '35' })).toEqual({ pointInTimeRecoveryDays: 35 });
  });

  it('fails rather than state a period the table may not have', () => {
    for (const value of [undefined, '', '0', '36', '7.5', 'seven', ' 7']) {
      expect(() => tableBackupsOf({}, { [RECOVERY_DAYS_VARIABLE]: value }), String(value)).toThrow(/^POINT_IN_TIME_RECOVERY_DAYS must be a whole number of days from 1 to 35/);
    }
  });
});
