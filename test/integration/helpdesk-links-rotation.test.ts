import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import { ulid } from 'ulid';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoHelpdeskLinks } from '../../lambdas/store/helpdesk-links.ts';
import { keys } from '../../lambdas/store/keys.ts';
import { startTestService, type TestService } from '../support/test-service.ts';

/**
 * The reconciliation reads at most so many requests of a status per run. With more linked tickets
 * than that, each run starts at a point picked among the requests' ids and wraps around to the
 * oldest, so successive runs reach every linked ticket, not only the oldest requests'.
 */
let service: TestService;
const ORG = 'org0000000000000000rotation';
const INTEGRATION = '01j00000000000000000000int';
/** 30 submitted requests, one a minute, each linked to ticket T-<n>; ids in creation order. */
const ids = Array.from({ length: 30 }, (_, n) => ulid(Date.UTC(2026, 10, 1, 9, n)).toLowerCase());

beforeAll(async () => {
  service = await startTestService();
  const items = ids.map((id, n) => ({
    ...keys.request(id),
    kind: 'request',
    id,
    gsi2pk: keys.requestsInStatus(ORG, 'submitted'),
    gsi2sk: id,
    ticket: { integrationId: INTEGRATION, externalId: `T-${n}` },
  }));
  for (let at = 0; at < items.length; at += 25) {
    await service.deps.db.send(new BatchWriteCommand({ RequestItems: { [service.deps.tableName]: items.slice(at, at + 25).map((Item) => ({ PutRequest: { Item } })) } }));
  }
});
afterAll(() => service?.stop());

const links = () => new DynamoHelpdeskLinks(service.deps.db, service.deps.tableName);

describe('the linked tickets the reconciliation reads', () => {
  it('reads from the chosen point onward, then from the oldest, at most the limit', async () => {
    const read = await links().linkedTickets(ORG, INTEGRATION, ['submitted'], 10, () => ids[25]!);
    expect(read).toEqual(['T-25', 'T-26', 'T-27', 'T-28', 'T-29', 'T-0', 'T-1', 'T-2', 'T-3', 'T-4']);
  });

  it('reaches every linked ticket over successive runs, where the oldest 10 alone were read before', async () => {
    const seen = new Set<string>();
    for (let run = 0; run < 40 && seen.size < ids.length; run++) for (const ticket of await links().linkedTickets(ORG, INTEGRATION, ['submitted'], 10)) seen.add(ticket);
    expect(seen.size).toBe(ids.length);
  });

  it('reads everything once when the limit is not reached', async () => {
    expect((await links().linkedTickets(ORG, INTEGRATION, ['submitted'], 1_000)).sort()).toEqual(ids.map((_, n) => `T-${n}`).sort());
  });
});
