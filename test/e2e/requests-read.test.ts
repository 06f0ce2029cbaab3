/**
 * GET /requests (newest first, limit, cursor paging, filters alone and combined, query
 * validation) and GET /requests/{id} (the Request field by field, 404s) over real HTTP.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  expectCreationResult,
  expectError,
  expectRequest,
  expectRequestList,
  forceRequestState,
  type RequestList,
  type RequestObject,
} from '../support/shapes.ts';
import { startTestService, type TestOrganisation, type TestService } from '../support/test-service.ts';

let service: TestService;

beforeAll(async () => {
  service = await startTestService();
});
afterAll(() => service?.stop());

interface Org extends TestOrganisation {
  writer: string;
  reader: string;
}

const newOrg = async (name: string): Promise<Org> => {
  const org = await service.createOrganisation({ name });
  const writer = await service.createKey(org.orgId, { scopes: ['requests:write'], name: `${name} writer` });
  const reader = await service.createKey(org.orgId, { scopes: ['requests:read'], name: `${name} reader` });
  return { ...org, writer, reader };
};

const createRequest = async (org: Org, extra: Record<string, unknown> = {}): Promise<RequestObject> => {
  const answer = await service.call('POST', '/requests', {
    key: org.writer,
    body: { subject_name: 'Jane Doe', justification: 'Need the router admin password', recipients: [org.owner.email], ...extra },
  });
  expect(answer.status, answer.text).toBe(201);
  return expectCreationResult(answer.body).request;
};

const list = async (org: Org, query = ''): Promise<RequestList> => {
  const answer = await service.call('GET', `/requests${query}`, { key: org.reader });
  expect(answer.status, answer.text).toBe(200);
  expect(answer.headers.get('content-type')).toContain('application/json');
  return expectRequestList(answer.body);
};

const ids = (page: RequestList) => page.data.map((r) => r.id);

/** Follows next_cursor from the first page to the last. */
const allPages = async (org: Org, query: string, limit: number) => {
  const pages: RequestList[] = [];
  let cursor: string | null = null;
  do {
    const separator = query ? '&' : '?';
    const page = await list(org, `${query}${separator}limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`);
    pages.push(page);
    cursor = page.next_cursor;
    expect(pages.length, 'paging terminates').toBeLessThan(50);
  } while (cursor);
  return pages;
};

describe('GET /requests: order and paging', () => {
  let org: Org;
  /** Created oldest first. */
  const created: RequestObject[] = [];
  const newestFirst = () => [...created].reverse().map((r) => r.id);

  beforeAll(async () => {
    org = await newOrg('Paging Org');
    for (let i = 0; i < 7; i++) created.push(await createRequest(org, { subject_name: `Subject ${i}` }));
  });

  it('lists newest first with the default limit, each item equal to GET /requests/{id}', async () => {
    const page = await list(org);
    expect(page.object).toBe('list');
    expect(ids(page)).toEqual(newestFirst());
    expect(page.has_more).toBe(false);
    expect(page.next_cursor).toBeNull();
    for (const request of created) {
      const one = await service.call('GET', `/requests/${request.id}`, { key: org.reader });
      expect(page.data.find((r) => r.id === request.id)).toEqual(one.body);
      expect(one.body).toEqual(request);
    }
    // created_at never increases down the list.
    const times = page.data.map((r) => Date.parse(r.created_at));
    expect([...times].sort((a, b) => b - a)).toEqual(times);
  });

  it('pages with limit 3 and cursors, visiting every request exactly once', async () => {
    const pages = await allPages(org, '', 3);
    expect(pages.map((p) => p.data.length)).toEqual([3, 3, 1]);
    expect(pages.map((p) => p.has_more)).toEqual([true, true, false]);
    expect(pages[0].next_cursor).toBe(pages[0].data[2].id);
    expect(pages[1].next_cursor).toBe(pages[1].data[2].id);
    expect(pages[2].next_cursor).toBeNull();
    expect(pages.flatMap(ids)).toEqual(newestFirst());
  });

  it('never returns more than limit', async () => {
    for (const limit of [1, 2, 5, 6]) {
      const page = await list(org, `?limit=${limit}`);
      expect(page.data.length, `limit ${limit}`).toBe(limit);
      expect(ids(page)).toEqual(newestFirst().slice(0, limit));
      expect(page.has_more).toBe(true);
      expect(page.next_cursor).toBe(page.data[limit - 1].id);
    }
  });

  it('says has_more false and next_cursor null when the page ends exactly at the last request', async () => {
    const page = await list(org, '?limit=7');
    expect(ids(page)).toEqual(newestFirst());
    expect(page.has_more).toBe(false);
    expect(page.next_cursor).toBeNull();

    const first = await list(org, '?limit=4');
    const second = await list(org, `?limit=3&cursor=${first.next_cursor}`);
    expect(ids(second)).toEqual(newestFirst().slice(4));
    expect(second.has_more).toBe(false);
    expect(second.next_cursor).toBeNull();
  });

  it('pages with limit 1 through all seven', async () => {
    const pages = await allPages(org, '', 1);
    expect(pages.length).toBe(7);
    expect(pages.flatMap(ids)).toEqual(newestFirst());
  });

  it('accepts limit 100', async () => {
    expect(ids(await list(org, '?limit=100'))).toEqual(newestFirst());
  });

  it('lists only the organisation\'s own requests', async () => {
    const other = await newOrg('Neighbour Org');
    const theirs = await createRequest(other);
    expect(ids(await list(other))).toEqual([theirs.id]);
    expect(ids(await list(org))).not.toContain(theirs.id);
  });

  it('lists an organisation without requests as an empty page', async () => {
    const empty = await newOrg('Empty Org');
    const page = await list(empty);
    expect(page).toEqual({ object: 'list', data: [], has_more: false, next_cursor: null });
  });
});

describe('GET /requests: filters', () => {
  let org: Org;
  let clientId: string;
  const r: RequestObject[] = [];

  beforeAll(async () => {
    org = await newOrg('Filter Org');
    clientId = (await service.admin.createClient(org.orgId, 'Filter Client')).id;
    r[0] = await createRequest(org, { ticket_ref: 'T-1' });
    r[1] = await createRequest(org, { ticket_ref: 'T-1', client_id: clientId });
    r[2] = await createRequest(org, { client_id: clientId });
    r[3] = await createRequest(org, { ticket_ref: 'T-2' });
    r[4] = await createRequest(org, { ticket_ref: 'T-1', client_id: clientId });
    r[5] = await createRequest(org, { ticket_ref: 'T-1' });
    for (const i of [2, 3, 4]) {
      const answer = await service.call('POST', `/requests/${r[i].id}/revoke`, { key: org.writer });
      expect(answer.status, answer.text).toBe(200);
    }
    await forceRequestState(service, org.orgId, r[5].id, 'submitted', { submittedAt: new Date().toISOString() });
  });

  const expectIds = async (query: string, expected: number[]) => {
    const page = await list(org, query);
    expect(ids(page), query).toEqual(expected.map((i) => r[i].id));
    expect(page.has_more, query).toBe(false);
    expect(page.next_cursor, query).toBeNull();
    return page;
  };

  it('filters by status', async () => {
    const pending = await expectIds('?status=pending', [1, 0]);
    for (const request of pending.data) expect(request.status).toBe('pending');
    const revoked = await expectIds('?status=revoked', [4, 3, 2]);
    for (const request of revoked.data) expect(request.status).toBe('revoked');
    await expectIds('?status=submitted', [5]);
    await expectIds('?status=completed', []);
    await expectIds('?status=opened', []);
    await expectIds('?status=expired', []);
  });

  it('filters by client_id', async () => {
    const page = await expectIds(`?client_id=${clientId}`, [4, 2, 1]);
    for (const request of page.data) expect(request.client).toEqual({ id: clientId, name: 'Filter Client' });
    await expectIds(`?client_id=${org.defaultClientId}`, [5, 3, 0]);
    await expectIds('?client_id=01h00000000000000000000000', []);
  });

  it('filters by ticket_ref, exactly', async () => {
    const page = await expectIds('?ticket_ref=T-1', [5, 4, 1, 0]);
    for (const request of page.data) expect(request.ticket?.ref).toBe('T-1');
    await expectIds('?ticket_ref=T-2', [3]);
    await expectIds('?ticket_ref=t-1', []);
    await expectIds('?ticket_ref=T', []);
  });

  it('combines filters', async () => {
    await expectIds(`?status=revoked&client_id=${clientId}`, [4, 2]);
    await expectIds(`?status=pending&client_id=${clientId}`, [1]);
    await expectIds(`?ticket_ref=T-1&client_id=${clientId}`, [4, 1]);
    await expectIds('?ticket_ref=T-1&status=pending', [1, 0]);
    await expectIds('?ticket_ref=T-1&status=submitted', [5]);
    await expectIds(`?ticket_ref=T-1&status=revoked&client_id=${clientId}`, [4]);
    await expectIds(`?ticket_ref=T-2&status=revoked&client_id=${clientId}`, []);
  });

  it('pages through filtered results, visiting each match exactly once', async () => {
    const byTicket = await allPages(org, '?ticket_ref=T-1', 1);
    expect(byTicket.flatMap(ids)).toEqual([5, 4, 1, 0].map((i) => r[i].id));
    expect(byTicket.map((p) => p.has_more)).toEqual([true, true, true, false]);

    const byStatus = await allPages(org, '?status=revoked', 2);
    expect(byStatus.flatMap(ids)).toEqual([4, 3, 2].map((i) => r[i].id));
    expect(byStatus.map((p) => p.data.length)).toEqual([2, 1]);

    const byClient = await allPages(org, `?client_id=${clientId}`, 2);
    expect(byClient.flatMap(ids)).toEqual([4, 2, 1].map((i) => r[i].id));

    const combined = await allPages(org, `?ticket_ref=T-1&client_id=${clientId}`, 1);
    expect(combined.flatMap(ids)).toEqual([4, 1].map((i) => r[i].id));
    expect(combined.map((p) => p.has_more)).toEqual([true, false]);

    // A filter that skips most of the index still fills a page.
    const pending = await list(org, '?status=pending&ticket_ref=T-1&limit=1');
    expect(ids(pending)).toEqual([r[1].id]);
    expect(pending.has_more).toBe(true);
  });
});

describe('GET /requests: query validation', () => {
  let org: Org;
  beforeAll(async () => {
    org = await newOrg('Query Org');
  });

  const invalid: Array<[string, string]> = [
    ['?limit=0', 'limit'],
    ['?limit=101', 'limit'],
    ['?limit=abc', 'limit'],
    ['?limit=-1', 'limit'],
    ['?limit=1.5', 'limit'],
    ['?limit=', 'limit'],
    ['?cursor=not-a-cursor', 'cursor'],
    ['?cursor=01H00000000000000000000000', 'cursor'],
    ['?status=lost', 'status'],
    ['?client_id=acme', 'client_id'],
    [`?ticket_ref=${'T'.repeat(121)}`, 'ticket_ref'],
  ];

  it.concurrent.each(invalid)('answers 422 validation_failed for %s, naming %s', async (query, field) => {
    const answer = await service.call('GET', `/requests${query}`, { key: org.reader });
    expectError(answer, 422, 'validation_failed', [field]);
  });

  it('accepts a ticket_ref of 120 characters', async () => {
    expect(ids(await list(org, `?ticket_ref=${'T'.repeat(120)}`))).toEqual([]);
  });
});

describe('GET /requests/{id}', () => {
  let org: Org;
  let other: Org;
  let request: RequestObject;

  beforeAll(async () => {
    org = await newOrg('Reader Org');
    other = await newOrg('Stranger Org');
    request = await createRequest(org, {
      subject_email: 'jane@example.com',
      subject_phone: '07400 123456',
      ticket_ref: 'INC-7',
      ticket_url: 'https://tickets.example.com/INC-7',
      ttl_minutes: 60,
      verification_mode: 'email_otp',
      allow_attachments: true,
    });
  });

  it('answers 200 with the Request, field by field', async () => {
    const answer = await service.call('GET', `/requests/${request.id}`, { key: org.reader });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toContain('application/json');
    const r = expectRequest(answer.body);
    expect(r).toEqual(request);
    expect(r.id).toBe(request.id);
    expect(r.status).toBe('pending');
    expect(r.client).toEqual({ id: org.defaultClientId, name: 'Reader Org (internal)' });
    expect(r.subject).toEqual({ name: 'Jane Doe', email: 'jane@example.com', phone: '+447400123456' });
    expect(r.ticket).toEqual({ ref: 'INC-7', url: 'https://tickets.example.com/INC-7', external_id: null, integration_id: null, status: null });
    expect(r.justification).toBe('Need the router admin password');
    expect(r.requester).toEqual({ membership_id: org.owner.id, name: org.owner.name, email: org.owner.email });
    expect(r.recipients).toEqual([{ label: org.owner.name, membership_id: org.owner.id }]);
    expect(r.ttl_minutes).toBe(60);
    expect(r.verification_mode).toBe('email_otp');
    expect(r.allow_attachments).toBe(true);
    expect(r.links).toEqual({ self: `${service.baseUrl}/requests/${r.id}`, app: `${service.appUrl}/app/requests/${r.id}` });
  });

  it('reflects a change of state', async () => {
    const fresh = await createRequest(org);
    const revoked = await service.call('POST', `/requests/${fresh.id}/revoke`, { key: org.writer });
    const read = await service.call('GET', `/requests/${fresh.id}`, { key: org.reader });
    expect(read.status).toBe(200);
    expect(expectRequest(read.body).status).toBe('revoked');
    expect(read.body).toEqual(revoked.body);
  });

  it.concurrent.each([
    ['a malformed id', 'not-an-id'],
    ['an upper-case ULID', '01H00000000000000000000000'],
    ['an id of 27 characters', '01h000000000000000000000000'],
    ['an id of 25 characters', '01h0000000000000000000000'],
    ['an unknown well-formed id', '01h00000000000000000000000'],
  ])('answers 404 not_found for %s', async (_, id) => {
    const answer = await service.call('GET', `/requests/${id}`, { key: org.reader });
    expectError(answer, 404, 'not_found');
  });

  it('answers 404 for the upper-case form of an existing id', async () => {
    expectError(await service.call('GET', `/requests/${request.id.toUpperCase()}`, { key: org.reader }), 404, 'not_found');
  });

  it('answers 404 for a request of another organisation', async () => {
    const answer = await service.call('GET', `/requests/${request.id}`, { key: other.reader });
    const body = expectError(answer, 404, 'not_found');
    expect(JSON.stringify(body)).not.toContain('Jane');
    // And the same in the other direction.
    const theirs = await createRequest(other);
    expectError(await service.call('GET', `/requests/${theirs.id}`, { key: org.reader }), 404, 'not_found');
  });
});
