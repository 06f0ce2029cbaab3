/**
 * POST /requests over real HTTP, the creation result: every field of it and of the request as
 * SPEC.md names them, the Location header, the stored request, only hashes of the link token and
 * the code, the audit entry naming the key, and a link and code of its own for each request.
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { recipientCommitment } from '../../lambdas/core/commitment.ts';
import { codeHash } from '../../lambdas/core/codes.ts';
import { sha256Hex } from '../../lambdas/core/hashing.ts';
import { base, create, created, fingerprintOf, JUSTIFICATION, ORG_NAME, org, reader, service, useCreationService, WRITER_NAME } from '../support/requests-create.ts';
import { auditEntriesOfRequest, expectCreationResult, requestItem } from '../support/shapes.ts';

useCreationService();

describe('POST /requests: the creation result', () => {
  it('answers 201 with every field of the result and the request as SPEC.md names them', async () => {
    const before = Date.now();
    const answer = await create(base());
    const after = Date.now();
    expect(answer.status, answer.text).toBe(201);
    expect(answer.headers.get('content-type')).toContain('application/json');
    const result = expectCreationResult(answer.body);
    const r = result.request;

    expect(answer.headers.get('location')).toBe(`${service.baseUrl}/requests/${r.id}`);
    expect(r.links).toEqual({ self: `${service.baseUrl}/requests/${r.id}`, app: `${service.appUrl}/app/requests/${r.id}` });

    expect(r.object).toBe('request');
    expect(r.status).toBe('pending');
    expect(r.client).toEqual({ id: org.defaultClientId, name: `${ORG_NAME} (internal)` });
    expect(r.subject).toEqual({ name: 'Jane Doe', email: null, phone: null });
    expect(r.ticket).toBeNull();
    expect(r.justification).toBe(JUSTIFICATION);
    expect(r.template).toBeNull();
    expect(r.requester).toEqual({ membership_id: org.owner.id, name: org.owner.name, email: org.owner.email });
    expect(r.recipients).toEqual([{ label: org.owner.name, membership_id: org.owner.id }]);
    expect(r.ttl_minutes).toBe(1440);
    expect(r.verification_mode).toBe('challenge');
    expect(r.allow_attachments).toBe(false);
    expect(r.attachments_count).toBe(0);
    expect(r.needs_relink).toBe(false);
    expect(r.unrecoverable).toBe(false);
    expect(r.reveal_count).toBe(0);
    expect(r.purge_reason).toBeNull();
    expect(r.revoked_reason).toBeNull();
    const createdAt = Date.parse(r.created_at);
    expect(createdAt).toBeGreaterThanOrEqual(before - 1000);
    expect(createdAt).toBeLessThanOrEqual(after + 1000);
    // The default policy's link lifetime is three days.
    expect(Date.parse(r.link_expires_at!) - createdAt).toBe(4320 * 60_000);
    for (const field of ['opened_at', 'submitted_at', 'record_expires_at', 'last_revealed_at', 'purge_scheduled_at', 'completed_at', 'revoked_at'] as const) {
      expect(r[field], field).toBeNull();
    }

    // link = {app_url}/r/<token>#<commit>; the fragment is the commitment.
    const match = new RegExp(`^${service.appUrl}/r/([A-Za-z0-9_-]{20,})#([A-Za-z0-9_-]{22})$`).exec(result.link!);
    expect(match, result.link!).not.toBeNull();
    const [, token, fragment] = match!;
    expect(fragment).toBe(result.commit);
    expect(result.link_without_fragment).toBe(`${service.appUrl}/r/${token}`);
    expect(result.link).toBe(`${result.link_without_fragment}#${result.commit}`);
    expect(result.commit).toBe(
      recipientCommitment([{ membershipId: org.owner.id, fingerprint: await fingerprintOf(org.orgId, org.owner.id) }]),
    );
    expect(result.challenge_code).toMatch(/^[0-9]{6}$/);
    expect(result.delivery).toBeNull();
    expect(result.excluded_recipients).toEqual([]);
    expect(result.commitment.computed_by).toBe('server');

    // The Request object never carries the link token, the code or the commitment.
    const requestText = JSON.stringify(r);
    expect(requestText).not.toContain(token);
    expect(requestText).not.toContain(result.commit);

    // Reading it back gives the very same object.
    const read = await service.call('GET', `/requests/${r.id}`, { key: reader });
    expect(read.status).toBe(200);
    expect(read.body).toEqual(r);
  });

  it('stores the request, only a hash of the link token and of the code, and one audit entry naming the key', async () => {
    const result = await created(base());
    const r = result.request;
    const token = result.link_without_fragment!.split('/r/')[1];
    const code = result.challenge_code!;

    const item = await requestItem(service, r.id);
    expect(item).toBeDefined();
    expect(item!.status).toBe('pending');
    expect(item!.orgId).toBe(org.orgId);
    expect(item!.commit).toBe(result.commit);
    expect(item!.version).toBe(1);
    const itemText = JSON.stringify(item);
    expect(itemText).not.toContain(token);
    // A keyed hash (HMAC under the code key, core/codes.ts): reading the table is not enough to try the 10^6 codes.
    expect(item!.challengeCodeHash).toBe(await codeHash(service.deps.codeKey, r.id, 'challenge', code));
    expect(item!.challengeCodeHash).toMatch(/^hmac-sha256:[0-9a-f]{64}$/);
    expect(item!.challengeCodeHash).not.toContain(sha256Hex(`${r.id}:${code}`));

    const link = await service.deps.db.send(
      new GetCommand({ TableName: service.deps.tableName, Key: { pk: `LINK#${sha256Hex(token)}`, sk: 'LINK' }, ConsistentRead: true }),
    );
    expect(link.Item).toMatchObject({ requestId: r.id, orgId: org.orgId });
    expect(JSON.stringify(link.Item)).not.toContain(token);

    const entries = await auditEntriesOfRequest(service, org.orgId, r.id);
    expect(entries.map((e) => e.type)).toEqual(['request.created']);
    const [entry] = entries;
    expect(entry.sk).toMatch(/^SEQ#\d+$/);
    expect(entry.actor.type).toBe('api');
    expect(entry.actor.label).toBe(WRITER_NAME);
    expect(entry.clientId).toBe(org.defaultClientId);
    expect(entry.data.request).toEqual(r);
    expect(entry.data.actor).toEqual({ type: 'api', label: WRITER_NAME });
    const entryText = JSON.stringify(entry);
    expect(entryText).not.toContain(token);
    expect(entryText).not.toContain(result.link);
  });

  it('gives each request its own link and code', async () => {
    const first = await created(base());
    const second = await created(base());
    expect(second.request.id).not.toBe(first.request.id);
    expect(second.link_without_fragment).not.toBe(first.link_without_fragment);
    // Same recipients, same commitment.
    expect(second.commit).toBe(first.commit);
  });
});
