import { describe, expect, it } from 'vitest';
import { INDEX_PARTITIONS, matchesPrefix, PARTITIONS } from '../../lambdas/access/table-access-types.ts';
import { keys, type ItemKey } from '../../lambdas/store/keys.ts';

/**
 * The declarations name partitions by prefix: every key the store builds must fall under one of
 * the known prefixes, or a new item kind could never be declared (and would be refused locally
 * and deployed alike).
 */
const isItemKey = (value: unknown): value is ItemKey => typeof value === 'object' && value !== null && 'pk' in value && 'sk' in value;

describe('the partition prefixes', () => {
  it('cover the partition key of every item key builder', () => {
    const built: string[] = [];
    for (const [name, builder] of Object.entries(keys)) {
      if (typeof builder !== 'function') continue;
      if (name === 'rateWindow') {
        for (const scope of ['org', 'integration'] as const) built.push(keys.rateWindow(scope, '01J0000000000000000000000X', 1_700_000_000).pk);
        continue;
      }
      const value: unknown = (builder as (...args: unknown[]) => unknown)('01J0000000000000000000000X', '01J0000000000000000000000Y', 'slug', 'ticket');
      if (isItemKey(value)) built.push(value.pk);
    }
    expect(built.length).toBeGreaterThan(20);
    for (const pk of built) expect(matchesPrefix(pk, PARTITIONS), pk).toBe(true);
  });

  it('cover the partition key of every index partition the store queries', () => {
    const orgId = '01J0000000000000000000000X';
    const indexPartitions = [
      keys.apiKeysOfOrg(orgId),
      keys.requestsOfOrg(orgId),
      keys.requestsInStatus(orgId, 'pending'),
      keys.requestsOfClient(orgId, 'client'),
      keys.requestsOfTicket(orgId, 'T-1'),
      keys.requestsOfExternalTicket(orgId, '42'),
      keys.sharesOfOrg(orgId),
      keys.sharesOfTicket(orgId, 'T-1'),
      ...keys.dueShards(),
      'SHAREDUE#0',
      'DELIVERY_DUE#0',
    ];
    for (const pk of indexPartitions) expect(matchesPrefix(pk, INDEX_PARTITIONS), pk).toBe(true);
  });

  it('match as IAM patterns do: a prefix ending in # covers what follows it, a whole key only itself', () => {
    expect(matchesPrefix('SIGNING_KEYS', ['SIGNING_KEYS'])).toBe(true);
    expect(matchesPrefix('SIGNING_KEYS_OTHER', ['SIGNING_KEYS'])).toBe(false);
    expect(matchesPrefix('SHARELINK#abc', ['SHARE#', 'LINK#'])).toBe(false);
    expect(matchesPrefix('RATE#org#01J', ['RATE#integration#'])).toBe(false);
  });
});
