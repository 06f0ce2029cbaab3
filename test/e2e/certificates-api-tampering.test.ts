/**
 * GET /v1/requests/{id}/certificate over real HTTP when the audit chain in the table has been
 * rewritten, as someone with table access would: a rewritten entry fails verification naming it,
 * a rehashed one no longer links to the next, and one that still verifies alone disagrees with
 * certificates fetched before and with its successor's.
 */
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { canonicalJson } from '../../lambdas/core/custody/canonical.ts';
import { verifyAgreement, verifyCertificate } from '../../lambdas/core/custody/verify.ts';
import { auditSortKey } from '../../lambdas/store/keys.ts';
import { clock, contentOf, getCertificate, jwks, requestCertificatePath, service, useCertificateService, type Certificate } from '../support/certificates-api.ts';
import { sha256Hex } from '../support/custody-fixtures.ts';
import { auditEntriesOfRequest, type AuditItem } from '../support/shapes.ts';
import { submitAsSubject } from '../support/submission.ts';
import type { TestOrganisation } from '../support/test-service.ts';

useCertificateService();

describe('a rewritten audit chain', () => {
  let tamper: TestOrganisation;
  let key: string;

  beforeAll(async () => {
    tamper = await service.createOrganisation({ name: 'Tamper Org' });
    key = tamper.key;
  });

  const create = async () => {
    const answer = await service.call('POST', '/requests', {
      key,
      body: { subject_name: 'Jane Doe', justification: 'Need the firewall admin password', recipients: [tamper.owner.email] },
    });
    expect(answer.status, answer.text).toBe(201);
    return answer.body.request.id as string;
  };

  const auditKey = (seq: number) => ({ pk: `AUDIT#${tamper.orgId}`, sk: auditSortKey(seq) });

  /** Rewrites one stored entry's actor label, as someone with table access would. */
  const rewriteLabel = (seq: number, label: string) =>
    service.deps.db.send(
      new UpdateCommand({
        TableName: service.deps.tableName,
        Key: auditKey(seq),
        UpdateExpression: 'SET #actor.#label = :label, #data.#actor.#label = :label',
        ExpressionAttributeNames: { '#actor': 'actor', '#label': 'label', '#data': 'data' },
        ExpressionAttributeValues: { ':label': label },
        ConditionExpression: 'attribute_exists(pk)',
      }),
    );

  const rewriteDetails = (seq: number, details: Record<string, unknown>) =>
    service.deps.db.send(
      new UpdateCommand({
        TableName: service.deps.tableName,
        Key: auditKey(seq),
        UpdateExpression: 'SET #data.#details = :details',
        ExpressionAttributeNames: { '#data': 'data', '#details': 'details' },
        ExpressionAttributeValues: { ':details': details },
        ConditionExpression: 'attribute_exists(pk)',
      }),
    );

  /** Recomputes the stored entry's hash over its rewritten content, as a careful forger would. */
  const rehash = async (seq: number) => {
    const { Item } = await service.deps.db.send(new GetCommand({ TableName: service.deps.tableName, Key: auditKey(seq), ConsistentRead: true }));
    const hash = sha256Hex(canonicalJson(contentOf(Item as AuditItem)));
    await service.deps.db.send(
      new UpdateCommand({
        TableName: service.deps.tableName,
        Key: auditKey(seq),
        UpdateExpression: 'SET #hash = :hash',
        ExpressionAttributeNames: { '#hash': 'hash' },
        ExpressionAttributeValues: { ':hash': hash },
      }),
    );
    return hash;
  };

  const fetched = async (id: string) => {
    const answer = await getCertificate(requestCertificatePath(id), key);
    expect(answer.status, answer.text).toBe(200);
    return answer.body as Certificate;
  };

  it('a rewritten entry fails verification naming the entry; rehashed, the next entry no longer links', async () => {
    const id = await create();
    await submitAsSubject(service, id, clock, { envelope: { v: 1, ciphertext: 'c2VhbGVk', recipients: [] }, attachments: [] });
    expect((await service.call('POST', `/requests/${id}/complete`, { key })).status).toBe(200);
    const stored = await auditEntriesOfRequest(service, tamper.orgId, id);
    expect(stored.map((item) => item.type)).toEqual(['request.created', 'request.submitted', 'request.completed']);
    // Consecutive entries of the organisation: each certificate entry links to the one before.
    expect(stored.map((item) => item.seq)).toEqual([stored[0].seq, stored[0].seq + 1, stored[0].seq + 2]);
    const before = await fetched(id);
    expect((await verifyCertificate(before, await jwks())).ok).toBe(true);
    const submitted = stored[1].seq;

    await rewriteLabel(submitted, 'Someone Else');
    const rewritten = await fetched(id);
    expect(rewritten.chain.entries[1].content.actor.label).toBe('Someone Else');
    const outcome = await verifyCertificate(rewritten, await jwks());
    expect(outcome.ok).toBe(false);
    expect(!outcome.ok && outcome.reason).toBe(`entry ${submitted}: hash does not match its content`);

    await rehash(submitted);
    const rehashed = await fetched(id);
    const relinked = await verifyCertificate(rehashed, await jwks());
    expect(relinked.ok).toBe(false);
    expect(!relinked.ok && relinked.reason).toContain(`entry ${submitted + 1}: prev_hash does not match entry ${submitted}'s hash`);
    const agreement = verifyAgreement([before, rehashed]);
    expect(agreement.ok).toBe(false);
    expect(!agreement.ok && agreement.reason).toContain(`seq ${submitted}`);
  });

  it("a rehashed entry whose successor belongs to another record verifies alone but disagrees with certificates fetched before and with the successor's", async () => {
    const first = await create();
    const second = await create();
    const [firstCreated] = await auditEntriesOfRequest(service, tamper.orgId, first);
    const [secondCreated] = await auditEntriesOfRequest(service, tamper.orgId, second);
    expect(secondCreated.seq).toBe(firstCreated.seq + 1);
    const before = await fetched(first);

    await rewriteDetails(firstCreated.seq, { note: 'rewritten later' });
    const rewritten = await fetched(first);
    const outcome = await verifyCertificate(rewritten, await jwks());
    expect(!outcome.ok && outcome.reason).toBe(`entry ${firstCreated.seq}: hash does not match its content`);

    await rehash(firstCreated.seq);
    const rehashed = await fetched(first);
    // Alone it holds together (its only entry hashes right, the head is a later entry)...
    expect((await verifyCertificate(rehashed, await jwks())).ok).toBe(true);
    // ...but it contradicts the certificate fetched before the rewrite, and the next record's certificate.
    const withBefore = verifyAgreement([before, rehashed]);
    expect(!withBefore.ok && withBefore.reason).toContain(`seq ${firstCreated.seq}`);
    const successor = await fetched(second);
    expect((await verifyCertificate(successor, await jwks())).ok).toBe(true);
    const withSuccessor = verifyAgreement([rehashed, successor]);
    expect(withSuccessor.ok).toBe(false);
    expect(!withSuccessor.ok && withSuccessor.reason).toMatch(/do not link|disagree/);
  });
});
