import { describe, expect, it } from 'vitest';
import { toRequestView } from '../../lambdas/core/request-view.ts';
import { makeRequest, URLS } from './support/fakes.ts';

/** Every field of SPEC.md's Request object, by its wire name. */
const SPEC_FIELDS = [
  'id', 'object', 'status', 'client', 'subject', 'ticket', 'justification', 'template', 'requester',
  'recipients', 'ttl_minutes', 'verification_mode', 'allow_attachments', 'attachments_count', 'needs_relink',
  'unrecoverable', 'reveal_count', 'purge_reason', 'revoked_reason', 'created_at', 'link_expires_at',
  'opened_at', 'submitted_at', 'record_expires_at', 'last_revealed_at', 'purge_scheduled_at', 'completed_at',
  'revoked_at', 'links',
];

const allKeys = (value: unknown, prefix = ''): string[] => {
  if (Array.isArray(value)) return value.flatMap((v, i) => allKeys(v, `${prefix}[${i}]`));
  if (value && typeof value === 'object') {
    return Object.entries(value).flatMap(([k, v]) => [`${prefix}${k}`, ...allKeys(v, `${prefix}${k}.`)]);
  }
  return [];
};

describe('toRequestView', () => {
  const request = makeRequest();
  const view = toRequestView(request, URLS);

  it('has exactly the SPEC fields, in snake_case', () => {
    expect(Object.keys(view).sort()).toEqual([...SPEC_FIELDS].sort());
    for (const key of allKeys(view)) {
      const leaf = key.split('.').pop()!.replace(/\[\d+\]/g, '');
      expect(leaf, key).toMatch(/^[a-z]+(_[a-z]+)*$/);
    }
  });

  it('maps every value', () => {
    expect(view).toEqual({
      id: '01hrequest0000000000000001',
      object: 'request',
      status: 'pending',
      client: { id: request.client.id, name: 'Default client' },
      subject: { name: 'Sam Subject', email: 'sam@customer.test', phone: '+447911123456' },
      ticket: {
        ref: 'INC-42',
        url: 'https://tickets.test/INC-42',
        external_id: 'ext-42',
        integration_id: '01hintegration000000000001',
        status: 'open',
      },
      justification: 'Need the router admin password',
      template: { id: '01htemplate000000000000001', name: 'Router' },
      requester: { membership_id: '01hmember00000000000000001', name: 'Tess Tech', email: 'tess@acme.test' },
      recipients: [{ label: 'Tess Tech', membership_id: '01hmember00000000000000001' }],
      ttl_minutes: 1440,
      verification_mode: 'challenge',
      allow_attachments: true,
      attachments_count: 2,
      needs_relink: false,
      unrecoverable: false,
      reveal_count: 3,
      purge_reason: 'purge-reason',
      revoked_reason: 'revoked-reason',
      created_at: '2025-01-01T00:00:00.000Z',
      link_expires_at: '2025-01-04T00:00:00.000Z',
      opened_at: '2025-01-01T01:00:00.000Z',
      submitted_at: '2025-01-01T02:00:00.000Z',
      record_expires_at: '2025-01-02T02:00:00.000Z',
      last_revealed_at: '2025-01-01T03:00:00.000Z',
      purge_scheduled_at: '2025-01-01T04:00:00.000Z',
      completed_at: '2025-01-01T05:00:00.000Z',
      revoked_at: '2025-01-01T06:00:00.000Z',
      links: {
        self: 'https://api.example.test/v1/requests/01hrequest0000000000000001',
        app: 'https://app.example.test/app/requests/01hrequest0000000000000001',
      },
    });
  });

  it('leaks no secret, key material, version or internal field', () => {
    const text = JSON.stringify(view);
    expect(text).not.toContain(request.challengeCodeHash!);
    expect(text).not.toContain(request.commit);
    expect(text).not.toContain(request.recipients[0].fingerprint);
    expect(text).not.toContain(request.orgId);
    const keys = allKeys(view).map((k) => k.split('.').pop()!.toLowerCase());
    for (const forbidden of ['challengecodehash', 'challenge_code_hash', 'challenge_code', 'commit', 'fingerprint', 'version', 'updatedat', 'updated_at', 'orgid', 'org_id', 'publickey', 'token', 'link']) {
      expect(keys).not.toContain(forbidden);
    }
  });

  it('gives null ticket and template when the request has none, and nulls for unset times', () => {
    const bare = toRequestView(
      makeRequest({
        ticket: null,
        template: null,
        openedAt: null,
        submittedAt: null,
        recordExpiresAt: null,
        lastRevealedAt: null,
        purgeScheduledAt: null,
        completedAt: null,
        revokedAt: null,
        purgeReason: null,
        revokedReason: null,
        subject: { name: 'S', email: null, phone: null },
      }),
      URLS,
    );
    expect(bare.ticket).toBeNull();
    expect(bare.template).toBeNull();
    expect(bare.subject).toEqual({ name: 'S', email: null, phone: null });
    for (const field of ['opened_at', 'submitted_at', 'record_expires_at', 'last_revealed_at', 'purge_scheduled_at', 'completed_at', 'revoked_at', 'purge_reason', 'revoked_reason'] as const) {
      expect(bare[field], field).toBeNull();
    }
  });

  it('says needs_relink only of a request still waiting for its credential', () => {
    expect(toRequestView(makeRequest({ status: 'pending', needsRelink: true }), URLS).needs_relink).toBe(true);
    expect(toRequestView(makeRequest({ status: 'opened', needsRelink: true }), URLS).needs_relink).toBe(true);
    // A submission that raced a recipient's key change, or a locked link revoked or expired: no link to fix any more.
    for (const status of ['submitted', 'completed', 'revoked', 'expired'] as const) {
      expect(toRequestView(makeRequest({ status, needsRelink: true }), URLS).needs_relink, status).toBe(false);
    }
  });

  it('says unrecoverable only of a credential still stored', () => {
    expect(toRequestView(makeRequest({ status: 'submitted', unrecoverable: true }), URLS).unrecoverable).toBe(true);
    // Completed or expired, the credential is destroyed, and no later member change judges the request again.
    for (const status of ['completed', 'expired'] as const) {
      expect(toRequestView(makeRequest({ status, unrecoverable: true }), URLS).unrecoverable, status).toBe(false);
    }
  });
});
