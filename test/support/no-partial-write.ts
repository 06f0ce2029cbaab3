/**
 * The table after a storm of bad input: nothing half-written. The organisation's audit chain is
 * whole (sequence numbers 1..N, each entry chained to the one before and hashed over its canonical
 * JSON, the head at N), every request and share has its creation entry, and every link token
 * names a request or share that exists.
 */
import canonicalize from 'canonicalize';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { expect } from 'vitest';
import { sha256Hex } from '../../lambdas/core/hashing.ts';
import { auditEntries } from './shapes.ts';
import { scanTable, type TestService } from './test-service.ts';

const GENESIS = '0'.repeat(64);

export const expectNoPartialWrite = async (service: TestService, orgId: string) => {
  const entries = (await auditEntries(service, orgId)) as Array<Record<string, any>>;
  expect(entries.length).toBeGreaterThan(0);
  entries.forEach((entry, index) => {
    expect(entry.seq, `entry ${index + 1} of the chain`).toBe(index + 1);
    expect(entry.prevHash, `prevHash of entry ${entry.seq}`).toBe(index === 0 ? GENESIS : entries[index - 1].hash);
    const { pk: _pk, sk: _sk, kind: _kind, hash, ...unsigned } = entry;
    expect(sha256Hex(canonicalize(unsigned)!), `hash of entry ${entry.seq}`).toBe(hash);
  });
  const { Item: head } = await service.deps.db.send(
    new GetCommand({ TableName: service.deps.tableName, Key: { pk: `AUDIT#${orgId}`, sk: 'HEAD' }, ConsistentRead: true }),
  );
  expect(head).toMatchObject({ n: entries.length, hash: entries[entries.length - 1].hash });

  const items = await scanTable(service);
  const created = new Set(entries.filter((entry) => entry.type === 'request.created').map((entry) => entry.requestId));
  const sharesCreated = new Set(entries.filter((entry) => entry.type === 'share.created').map((entry) => entry.shareId));
  const requests = items.filter((item) => item.kind === 'request' && item.orgId === orgId);
  const shares = items.filter((item) => item.kind === 'share' && item.orgId === orgId);
  for (const request of requests) expect(created.has(request.id), `request ${request.id} has its request.created entry`).toBe(true);
  for (const share of shares) expect(sharesCreated.has(share.id), `share ${share.id} has its share.created entry`).toBe(true);

  const requestIds = new Set(requests.map((request) => request.id));
  const shareIds = new Set(shares.map((share) => share.id));
  for (const link of items.filter((item) => item.kind === 'link_token' && item.orgId === orgId)) {
    expect(requestIds.has(link.requestId), `link token of ${link.requestId} names a stored request`).toBe(true);
  }
  for (const link of items.filter((item) => item.kind === 'share_link' && item.orgId === orgId)) {
    expect(shareIds.has(link.shareId), `share link of ${link.shareId} names a stored share`).toBe(true);
  }
  return { entries: entries.length, requests: requests.length, shares: shares.length };
};
