import { describe, expect, it } from 'vitest';
import { API_READ_MAX_IDS, API_READ_RETENTION_DAYS, apiReadOf, boundedRecords, eventsRead, idsOf } from '../../lambdas/core/api-reads.ts';
import type { Caller } from '../../lambdas/core/caller.ts';
import { newId } from '../../lambdas/core/ids.ts';

/** The read record (core/api-reads.ts): who read, what, when and from where, bounded so it stays small. */
const caller = {
  org: { id: '01j00000000000000000000org' },
  apiKey: { id: '01j00000000000000000000key', name: 'Reporting', clientId: '01j00000000000000000client', hash: 'h'.repeat(64) },
  sourceIp: '203.0.113.9',
} as unknown as Caller;
const at = new Date('2030-05-01T12:00:00.000Z');
const ids = (n: number) => Array.from({ length: n }, () => newId());

describe('a read record', () => {
  it('names the key, its client scope, the route, the outcome, the records, the time, the address, and when it expires', () => {
    const record = apiReadOf(caller, { route: 'GET /v1/requests/{id}', status: 200, records: { requests: ['01j0000000000000000000req1'] } }, at);
    expect(record).toEqual({
      id: expect.stringMatching(/^[0-9a-z]{26}$/),
      orgId: caller.org.id,
      occurredAt: '2030-05-01T12:00:00.000Z',
      key: { id: caller.apiKey.id, name: 'Reporting' },
      clientId: caller.apiKey.clientId,
      route: 'GET /v1/requests/{id}',
      status: 200,
      sourceIp: '203.0.113.9',
      records: { requests: ['01j0000000000000000000req1'] },
      expiresAtEpoch: at.getTime() / 1000 + API_READ_RETENTION_DAYS * 86_400,
    });
    // Never the key's hash, nor anything else of the key.
    expect(JSON.stringify(record)).not.toContain('hhhh');
  });

  it('has an id that sorts by its time, so the records of an organisation read newest first', () => {
    const earlier = apiReadOf(caller, { route: 'GET /v1/events', status: 200, records: {} }, new Date(at.getTime() - 1));
    const later = apiReadOf(caller, { route: 'GET /v1/events', status: 200, records: {} }, at);
    expect(earlier.id < later.id).toBe(true);
  });

  it('names at most API_READ_MAX_IDS ids over all its lists, in the order read, and counts the ones left out', () => {
    const requests = ids(API_READ_MAX_IDS - 10);
    const webhooks = ids(25);
    const bounded = boundedRecords({ requests, webhooks });
    expect(bounded.requests).toEqual(requests);
    expect(bounded.webhooks).toEqual(webhooks.slice(0, 10));
    expect(bounded.omitted).toBe(15);
    expect(boundedRecords({ requests: ids(API_READ_MAX_IDS) }).omitted).toBeUndefined();
    const flood = boundedRecords({ requests: ids(5000), shares: ids(3) });
    expect(flood.requests).toHaveLength(API_READ_MAX_IDS);
    expect(flood.shares).toEqual([]);
    expect(flood.omitted).toBe(4903);
    // About 3 KB at most, whatever was read.
    expect(JSON.stringify(apiReadOf(caller, { route: 'GET /v1/requests', status: 200, records: { requests: ids(5000) } }, at)).length).toBeLessThan(3_300);
  });

  it('names an id once however often it was read', () => {
    const [one] = ids(1);
    expect(boundedRecords({ requests: [one!, one!] })).toEqual({ requests: [one] });
  });

  it('bounds the text it takes from the call', () => {
    const record = apiReadOf({ ...caller, sourceIp: '1'.repeat(500) }, { route: `GET /v1/${'x'.repeat(500)}`, status: 404, records: {} }, at);
    expect(record.sourceIp.length).toBeLessThanOrEqual(100);
    expect(record.route.length).toBeLessThanOrEqual(100);
  });

  it('names a page of events by its count and first and last ids, and a page of records by its ids', () => {
    expect(eventsRead([{ id: 'evt_3' }, { id: 'evt_5' }, { id: 'evt_9' }])).toEqual({ events: { count: 3, first: 'evt_3', last: 'evt_9' } });
    expect(eventsRead([])).toEqual({ events: { count: 0 } });
    expect(idsOf([{ id: 'b' }, { id: 'a' }])).toEqual(['b', 'a']);
  });
});
