/**
 * GET /events over real HTTP: the feed in the order things happened, since/next_cursor paging,
 * the types filter, query validation, client scope, the Event object field by field (and equal to
 * what toEventObject makes of the stored audit entry), credential.rotation_recommended on
 * completion when the policy asks for it, and the bounded read behind one call.
 */
import { BatchWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENT_TYPES, toEventObject } from '../../lambdas/core/events.ts';
import type { AuditEntry } from '../../lambdas/core/ports.ts';
import { auditEntries, expectCreationResult, expectError, forceRequestState, ULID, DATE_TIME, type RequestObject } from '../support/shapes.ts';
import { startTestService, type TestOrganisation, type TestService } from '../support/test-service.ts';

let service: TestService;

beforeAll(async () => {
  service = await startTestService();
});
afterAll(() => service?.stop());

interface Org extends TestOrganisation {
  writer: string;
  events: string;
}

const newOrg = async (name: string): Promise<Org> => {
  const org = await service.createOrganisation({ name });
  const writer = await service.createKey(org.orgId, { scopes: ['requests:write', 'requests:read'], name: `${name} writer` });
  const events = await service.createKey(org.orgId, { scopes: ['events:read'], name: `${name} events` });
  return { ...org, writer, events };
};

const createRequest = async (org: Org, extra: Record<string, unknown> = {}): Promise<RequestObject> => {
  const answer = await service.call('POST', '/requests', {
    key: org.writer,
    body: { subject_name: 'Jane Doe', justification: 'Need the router admin password', recipients: [org.owner.email], ...extra },
  });
  expect(answer.status, answer.text).toBe(201);
  return expectCreationResult(answer.body).request;
};

const complete = async (org: Org, requestId: string) => {
  await forceRequestState(service, org.orgId, requestId, 'submitted', { submittedAt: new Date().toISOString() });
  const answer = await service.call('POST', `/requests/${requestId}/complete`, { key: org.writer });
  expect(answer.status, answer.text).toBe(200);
  return answer.body as RequestObject;
};

interface EventList {
  object: 'list';
  data: Array<Record<string, any>>;
  has_more: boolean;
  next_cursor: string;
}

const feed = async (key: string, query = ''): Promise<EventList> => {
  const answer = await service.call('GET', `/events${query}`, { key });
  expect(answer.status, answer.text).toBe(200);
  expect(answer.headers.get('content-type')).toContain('application/json');
  const body = answer.body as EventList;
  expect(Object.keys(body).sort()).toEqual(['data', 'has_more', 'next_cursor', 'object']);
  expect(body.object).toBe('list');
  expect(body.next_cursor).toMatch(/^[0-9]+$/);
  return body;
};

/** Follows next_cursor until has_more is false. */
const allPages = async (key: string, query: string) => {
  const pages: EventList[] = [];
  let since = '0';
  for (;;) {
    const page = await feed(key, `?since=${since}${query}`);
    pages.push(page);
    expect(pages.length, 'paging terminates').toBeLessThan(100);
    if (!page.has_more) return pages;
    since = page.next_cursor;
  }
};

const types = (list: EventList) => list.data.map((event) => event.type);

/** The organisation's audit entries as the log wrote them (without storage attributes). */
const storedEntries = async (orgId: string): Promise<AuditEntry[]> =>
  (await auditEntries(service, orgId)).map(({ pk: _pk, sk: _sk, kind: _kind, ...entry }) => entry as unknown as AuditEntry);

describe('GET /events: order, paging and filters', () => {
  let org: Org;
  const requests: RequestObject[] = [];

  beforeAll(async () => {
    org = await newOrg('Feed Org');
    for (let i = 0; i < 4; i++) requests.push(await createRequest(org, { subject_name: `Subject ${i}` }));
    const revoked = await service.call('POST', `/requests/${requests[1].id}/revoke`, { key: org.writer });
    expect(revoked.status, revoked.text).toBe(200);
    await complete(org, requests[2].id);
    await service.admin.setMemberActive(org.orgId, org.member.id, false);
  });

  it('lists the events in the order they happened, and nothing that is not an event', async () => {
    const page = await feed(org.events);
    expect(types(page)).toEqual([
      'request.created',
      'request.created',
      'request.created',
      'request.created',
      'request.revoked',
      'request.completed',
      'member.disabled',
    ]);
    expect(page.has_more).toBe(false);
    const seqs = page.data.map((event) => event.seq);
    expect([...seqs].sort((a, b) => a - b)).toEqual(seqs);
    expect(new Set(seqs).size).toBe(seqs.length);
    expect(page.next_cursor).toBe(String(seqs[seqs.length - 1]));
    // The chain holds more than the events (organisation.created, member.added, api_key.created, ...).
    const stored = await storedEntries(org.orgId);
    expect(stored.length).toBeGreaterThan(page.data.length);
    expect(stored.filter((entry) => (EVENT_TYPES as readonly string[]).includes(entry.type)).map((entry) => entry.seq)).toEqual(seqs);
  });

  it('answers each event exactly as toEventObject makes it from the stored entry, byte for byte', async () => {
    const answer = await service.call('GET', '/events', { key: org.events });
    const stored = await storedEntries(org.orgId);
    const expected = stored.filter((entry) => (EVENT_TYPES as readonly string[]).includes(entry.type)).map(toEventObject);
    expect(answer.body.data).toEqual(expected);
    // The same bytes a webhook delivery of each event would carry.
    for (const event of expected) expect(answer.text).toContain(JSON.stringify(event));
  });

  it('shows the Event object field by field', async () => {
    const page = await feed(org.events);
    for (const event of page.data) {
      expect(Object.keys(event)).toEqual(['id', 'object', 'type', 'occurred_at', 'organisation_id', 'client_id', 'seq', 'data']);
      expect(event.id).toBe(`evt_${event.seq}`);
      expect(event.object).toBe('event');
      expect(event.occurred_at).toMatch(DATE_TIME);
      expect(event.organisation_id).toBe(org.orgId);
      expect(Number.isInteger(event.seq)).toBe(true);
      expect(typeof event.data.details).toBe('object');
      expect(['member', 'subject', 'system', 'api']).toContain(event.data.actor.type);
      expect(JSON.stringify(event)).not.toMatch(/whsec_|envelope|challenge_code|link_token|"hash"|prevHash/);
    }
    const created = page.data[0];
    expect(created.client_id).toBe(org.defaultClientId);
    expect(created.client_id).toMatch(ULID);
    expect(created.data.request).toEqual(requests[0]);
    expect(created.data.justification).toBe('Need the router admin password');
    expect(created.data.details).toEqual({});
    expect(created.data.actor).toEqual({ type: 'api', label: 'Feed Org writer' });

    const revoked = page.data[4];
    expect(revoked.data.request.id).toBe(requests[1].id);
    expect(revoked.data.request.status).toBe('revoked');
    expect(revoked.data.details).toEqual({ revoked_reason: 'revoked_via_api' });

    const completed = page.data[5];
    expect(completed.data.request.status).toBe('completed');
    expect(completed.data.details).toEqual({ purge_reason: 'completed_via_api' });

    const disabled = page.data[6];
    expect(disabled.client_id).toBeNull();
    expect(disabled.data.member).toMatchObject({ membership_id: org.member.id, email: org.member.email });
    expect(disabled.data.request).toBeUndefined();
  });

  it('pages with since and next_cursor, visiting each event exactly once', async () => {
    const all = (await feed(org.events)).data.map((event) => event.id);
    for (const limit of [1, 2, 3, 7]) {
      const pages = await allPages(org.events, `&limit=${limit}`);
      expect(pages.flatMap((page) => page.data.map((event) => event.id)), `limit ${limit}`).toEqual(all);
      for (const page of pages) {
        expect(page.data.length).toBeLessThanOrEqual(limit);
        if (page.has_more) expect(page.next_cursor).toBe(String(page.data[page.data.length - 1].seq));
      }
    }
  });

  it('answers an empty page with the since given once nothing is newer, and picks up what happens next', async () => {
    const last = await feed(org.events);
    const after = await feed(org.events, `?since=${last.next_cursor}`);
    expect(after).toEqual({ object: 'list', data: [], has_more: false, next_cursor: last.next_cursor });
    // A cursor past the newest event was never answered: refused by field, naming the newest, not an empty page that skips.
    const newest = Math.max(...(await storedEntries(org.orgId)).map((entry) => entry.seq));
    expect((await feed(org.events, `?since=${newest}`)).data).toEqual([]);
    for (const ahead of [String(newest + 1), '999999999999']) {
      const refused = await service.call('GET', `/events?since=${ahead}`, { key: org.events });
      expectError(refused, 422, 'validation_failed', ['since']);
      expect(refused.body.errors.since).toEqual([
        `No event has this cursor yet: the newest is ${newest}. Give a next_cursor this feed answered, or 0 to read from the start.`,
      ]);
    }

    const fresh = await createRequest(org);
    const next = await feed(org.events, `?since=${last.next_cursor}`);
    expect(types(next)).toEqual(['request.created']);
    expect(next.data[0].data.request.id).toBe(fresh.id);
    expect(Number(next.next_cursor)).toBe(next.data[0].seq);
  });

  it('filters by types', async () => {
    const page = await feed(org.events, '?types=request.revoked,request.completed');
    expect(types(page)).toEqual(['request.revoked', 'request.completed']);
    expect(types(await feed(org.events, '?types=member.disabled'))).toEqual(['member.disabled']);
    expect(types(await feed(org.events, '?types=request.expired'))).toEqual([]);
    const paged = await allPages(org.events, '&types=request.created&limit=2');
    expect(paged.flatMap(types).every((type) => type === 'request.created')).toBe(true);
    expect(paged.flatMap(types).length).toBeGreaterThanOrEqual(4);
  });

  it('lists only the organisation\'s own events', async () => {
    const other = await newOrg('Other Feed Org');
    const theirs = await createRequest(other);
    const page = await feed(other.events);
    expect(types(page)).toEqual(['request.created']);
    expect(page.data[0].data.request.id).toBe(theirs.id);
    expect((await feed(org.events)).data.some((event) => event.data.request?.id === theirs.id)).toBe(false);
  });
});

describe('GET /events: client scope', () => {
  it('shows a client-scoped key only its client\'s events', async () => {
    const org = await newOrg('Scoped Feed Org');
    const client = await service.admin.createClient(org.orgId, 'Scoped Client');
    const clientKey = await service.createKey(org.orgId, { scopes: ['events:read'], clientId: client.id, name: 'client events' });
    const mine = await createRequest(org, { client_id: client.id });
    const theirs = await createRequest(org);
    await service.admin.setMemberActive(org.orgId, org.member.id, false);

    const scoped = await feed(clientKey);
    expect(types(scoped)).toEqual(['request.created']);
    expect(scoped.data[0].data.request.id).toBe(mine.id);
    expect(scoped.data[0].client_id).toBe(client.id);

    const whole = await feed(org.events);
    expect(whole.data.map((event) => event.data.request?.id ?? event.type)).toEqual([mine.id, theirs.id, 'member.disabled']);
  });
});

describe('GET /events: credential.rotation_recommended', () => {
  it('follows a completion in the same transaction when the policy turns the signal on', async () => {
    const org = await newOrg('Rotation Org');
    const before = await createRequest(org);
    await complete(org, before.id);
    expect(types(await feed(org.events))).toEqual(['request.created', 'request.completed']);

    await service.admin.setPolicy(org.orgId, { rotationSignal: true });
    const request = await createRequest(org);
    const done = await complete(org, request.id);
    const revoked = await createRequest(org);
    await service.call('POST', `/requests/${revoked.id}/revoke`, { key: org.writer });

    const page = await feed(org.events);
    expect(types(page)).toEqual([
      'request.created',
      'request.completed',
      'request.created',
      'request.completed',
      'credential.rotation_recommended',
      'request.created',
      'request.revoked',
    ]);
    const [completed, rotation] = [page.data[3], page.data[4]];
    expect(rotation.seq).toBe(completed.seq + 1);
    expect(rotation.id).toBe(`evt_${completed.seq + 1}`);
    expect(rotation.client_id).toBe(completed.client_id);
    expect(rotation.occurred_at).toBe(completed.occurred_at);
    expect(rotation.data.request).toEqual(done);
    expect(rotation.data.actor).toEqual(completed.data.actor);
    expect(rotation.data.details).toMatchObject({ purge_reason: 'completed_via_api' });

    // The two entries are chained, and the head moved to the last one.
    const stored = await auditEntries(service, org.orgId);
    const first = stored.find((entry) => entry.seq === completed.seq)!;
    const second = stored.find((entry) => entry.seq === rotation.seq)!;
    expect(second.prevHash).toBe(first.hash);
    for (let i = 1; i < stored.length; i++) {
      expect(stored[i].seq).toBe(stored[i - 1].seq + 1);
      expect(stored[i].prevHash).toBe(stored[i - 1].hash);
    }
    const more = await createRequest(org);
    const last = await feed(org.events, `?since=${rotation.seq}`);
    expect(last.data.at(-1)!.data.request.id).toBe(more.id);
  });
});

describe('GET /events: bounded work per call', () => {
  it('stops after reading 1,000 stored entries, says has_more, and its cursor moves past them', async () => {
    const org = await newOrg('Bounded Feed Org');
    const first = await createRequest(org);
    const stored = await auditEntries(service, org.orgId);
    const head = stored[stored.length - 1];
    // 1,500 entries that are not events, written straight into the chain (then one real event after them).
    const filler = Array.from({ length: 1500 }, (_, i) => {
      const seq = head.seq + 1 + i;
      return {
        pk: `AUDIT#${org.orgId}`,
        sk: `SEQ#${String(seq).padStart(12, '0')}`,
        kind: 'audit',
        orgId: org.orgId,
        seq,
        type: 'subject.verified',
        occurredAt: new Date().toISOString(),
        actor: { type: 'system', label: null },
        clientId: null,
        requestId: null,
        data: { details: {} },
        prevHash: '0'.repeat(64),
        hash: `${String(seq).padStart(64, '0')}`,
      };
    });
    for (let i = 0; i < filler.length; i += 25) {
      await service.deps.db.send(
        new BatchWriteCommand({ RequestItems: { [service.deps.tableName]: filler.slice(i, i + 25).map((Item) => ({ PutRequest: { Item } })) } }),
      );
    }
    const top = filler[filler.length - 1];
    await service.deps.db.send(
      new UpdateCommand({
        TableName: service.deps.tableName,
        Key: { pk: `AUDIT#${org.orgId}`, sk: 'HEAD' },
        UpdateExpression: 'SET n = :n, #hash = :hash',
        ExpressionAttributeNames: { '#hash': 'hash' },
        ExpressionAttributeValues: { ':n': top.seq, ':hash': top.hash },
      }),
    );
    const second = await createRequest(org);

    const start = await feed(org.events, `?since=${head.seq - 1}`);
    expect(start.data.map((event) => event.data.request.id)).toEqual([first.id]);
    expect(start.has_more).toBe(true);
    const cursor = Number(start.next_cursor);
    expect(cursor).toBeGreaterThan(head.seq);
    expect(cursor).toBeLessThanOrEqual(head.seq + 1000);

    const pages = await allPages(org.events, '');
    const ids = pages.flatMap((page) => page.data.map((event) => event.data.request.id));
    expect(ids).toEqual([first.id, second.id]);
    expect(pages.length).toBeGreaterThanOrEqual(2);
  });
});

describe('GET /events: validation and access', () => {
  let org: Org;
  beforeAll(async () => {
    org = await newOrg('Feed Query Org');
  });

  const invalid: Array<[string, string]> = [
    ['?limit=0', 'limit'],
    ['?limit=201', 'limit'],
    ['?limit=abc', 'limit'],
    ['?limit=-1', 'limit'],
    ['?limit=', 'limit'],
    ['?since=abc', 'since'],
    ['?since=-1', 'since'],
    ['?since=1.5', 'since'],
    ['?since=', 'since'],
    ['?types=bogus', 'types'],
    ['?types=request.created,subject.verified', 'types'],
    ['?types=api_key.created', 'types'],
    ['?types=', 'types'],
    ['?types=request.created,', 'types'],
    ['?cursor=1', 'cursor'],
  ];

  it.concurrent.each(invalid)('answers 422 validation_failed for %s, naming %s', async (query, field) => {
    const answer = await service.call('GET', `/events${query}`, { key: org.events });
    expectError(answer, 422, 'validation_failed', [field]);
  });

  it('says how long a cursor may be: a string of 16 digits is digits, but longer than any cursor', async () => {
    const answer = await service.call('GET', '/events?since=9999999999999999', { key: org.events });
    expectError(answer, 422, 'validation_failed', ['since']);
    expect(answer.body.errors.since).toEqual(['Must be a string of 1 to 15 digits (a previous next_cursor).']);
  });

  it('accepts limit 1 and 200, and several types', async () => {
    await feed(org.events, '?limit=1');
    await feed(org.events, '?limit=200&since=0&types=request.created,request.completed,ping');
  });

  it('answers 403 without events:read and 401 without a key', async () => {
    expectError(await service.call('GET', '/events', { key: org.writer }), 403, 'forbidden');
    expectError(await service.call('GET', '/events', { key: null }), 401, 'unauthenticated');
  });
});
