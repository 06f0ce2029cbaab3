/**
 * Reads through an API key leave a trace (SPEC.md, Authentication 6): each read, served or
 * refused, leaves a read record naming the key, the route and the records read, which owners and
 * admins find in the app's audit log (`GET /app/api/audit?view=api_reads`). The records live beside
 * the organisation's hash chain, not on it: the chain, its head and the event feed are the same
 * before and after any number of reads.
 */
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_READ_RETENTION_DAYS } from '../../lambdas/core/api-reads.ts';
import { MemberBrowser } from '../support/member-browser.ts';
import { auditEntries, expectError, ULID } from '../support/shapes.ts';
import { startTestService, type TestOrganisation, type TestService } from '../support/test-service.ts';

let service: TestService;
let org: TestOrganisation;
let owner: MemberBrowser;
let reader: string;
let readerId: string;
let requestIds: string[] = [];
let webhookId = '';

interface ReadRow {
  id: string;
  occurred_at: string;
  key: { id: string; name: string };
  route: string;
  status: number;
  client_id: string | null;
  source_ip: string;
  records: { requests?: string[]; shares?: string[]; webhooks?: string[]; events?: { count: number; first?: string; last?: string }; omitted?: number };
}
type ReadPage = { data: ReadRow[]; has_more: boolean; next_before: string | null };

beforeAll(async () => {
  service = await startTestService();
  org = await service.createOrganisation({ name: 'Read Trace Org' });
  owner = await MemberBrowser.signIn(service, org.owner.email);
  reader = await service.createKey(org.orgId, { name: 'Leaked reader', scopes: ['requests:read', 'events:read', 'webhooks:write'] });
  readerId = (await owner.call('GET', '/app/api/keys')).body.data.find((key: { name: string }) => key.name === 'Leaked reader').id;
  for (const subject of ['Ann Read', 'Bo Read']) {
    const created = await service.call('POST', '/requests', { key: org.key, body: { subject_name: subject, justification: 'Read trace test request', recipients: [org.owner.email] } });
    requestIds.push(created.body.request.id);
  }
  const hook = await service.call('POST', '/webhooks', { key: org.key, body: { url: 'https://hooks.example.com/reads', events: ['request.created'] } });
  webhookId = hook.body.id;
});
afterAll(() => service?.stop());

const apiReads = async (query = '') => {
  // Records are stored after the answers, as the log subscription stores them deployed.
  await service.apiReadsSettled();
  const answer = await owner.call('GET', `/app/api/audit?view=api_reads${query}`);
  expect(answer.status, answer.text).toBe(200);
  return answer.body as ReadPage;
};
const read = (path: string, key = reader) => service.call('GET', path, { key });

describe('a read through an API key', () => {
  it('leaves a record the audit log shows: the key, the route, the records read, the outcome, the address', async () => {
    const before = (await apiReads()).data.length;
    const listed = await read('/requests');
    expect(listed.status).toBe(200);
    expect((await read(`/requests/${requestIds[0]}`)).status).toBe(200);
    const events = await read('/events');
    expect(events.body.data.length).toBeGreaterThanOrEqual(2);
    expect((await read('/webhooks')).status).toBe(200);
    expect((await read(`/requests/${requestIds[1]}/certificate`)).status).toBe(200);
    const unknown = '01hzzzzzzzzzzzzzzzzzzzzzzz';
    expectError(await read(`/requests/${unknown}`), 404, 'not_found');
    // Ping reads nothing of the organisation's records: not recorded.
    expect((await read('/ping')).status).toBe(200);

    const rows = (await apiReads()).data;
    expect(rows).toHaveLength(before + 6);
    const mine = rows.slice(0, 6);
    for (const row of mine) {
      expect(row).toMatchObject({ key: { id: readerId, name: 'Leaked reader' }, client_id: null, source_ip: '127.0.0.1' });
      expect(row.id).toMatch(ULID);
    }
    // Newest first.
    expect(mine.map((row) => [row.route, row.status, row.records])).toEqual([
      ['GET /v1/requests/{id}', 404, { requests: [unknown] }],
      ['GET /v1/requests/{id}/certificate', 200, { requests: [requestIds[1]] }],
      ['GET /v1/webhooks', 200, { webhooks: [webhookId] }],
      ['GET /v1/events', 200, { events: { count: events.body.data.length, first: events.body.data[0].id, last: events.body.data.at(-1).id } }],
      ['GET /v1/requests/{id}', 200, { requests: [requestIds[0]] }],
      ['GET /v1/requests', 200, { requests: listed.body.data.map((request: { id: string }) => request.id) }],
    ]);
    expect(mine[5]!.records.requests!.sort()).toEqual([...requestIds].sort());
  });

  it('leaves a record when refused for a scope or a client, with the key and route; none for a bad key or a bad query', async () => {
    const client = (await owner.call('POST', '/app/api/clients', { body: { name: 'Elsewhere Ltd' } })).body;
    const narrow = await service.createKey(org.orgId, { name: 'Client reader', scopes: ['requests:read'], clientId: client.id });
    const narrowId = (await owner.call('GET', '/app/api/keys')).body.data.find((key: { name: string }) => key.name === 'Client reader').id;
    expectError(await read('/events', narrow), 403, 'forbidden');
    // The request belongs to the default client: invisible to this key.
    expectError(await read(`/requests/${requestIds[0]}`, narrow), 404, 'not_found');
    expectError(await read('/requests', 'not-a-key'), 401, 'unauthenticated');
    expectError(await read('/requests?limit=0', narrow), 422, 'validation_failed');
    const rows = (await apiReads(`&key_id=${narrowId}`)).data;
    expect(rows.map((row) => [row.route, row.status, row.records, row.client_id])).toEqual([
      ['GET /v1/requests/{id}', 404, { requests: [requestIds[0]] }, client.id],
      ['GET /v1/events', 403, {}, client.id],
    ]);
  });
});

describe('GET /app/api/audit?view=api_reads', () => {
  it('filters by key, by a request named, by days, and pages newest first with next_before', async () => {
    const byRequest = (await apiReads(`&request_id=${requestIds[1]}`)).data;
    expect(byRequest.length).toBeGreaterThanOrEqual(2);
    for (const row of byRequest) expect(row.records.requests).toContain(requestIds[1]);
    expect((await apiReads(`&key_id=${readerId}`)).data.every((row) => row.key.id === readerId)).toBe(true);
    expect((await apiReads('&from=2000-01-01&to=2000-01-02')).data).toEqual([]);
    const today = new Date().toISOString().slice(0, 10);
    const all = (await apiReads(`&from=${today}&to=${today}&limit=200`)).data;
    expect(all.length).toBeGreaterThanOrEqual(8);
    const first = await apiReads('&limit=3');
    expect(first.has_more).toBe(true);
    const second = await apiReads(`&limit=3&before=${first.next_before}`);
    expect([...first.data, ...second.data].map((row) => row.id)).toEqual(all.slice(0, 6).map((row) => row.id));
  });

  it('answers 422 by field for a bad view or filter, 403 to a plain member', async () => {
    expectError(await owner.call('GET', '/app/api/audit?view=reads'), 422, 'validation_failed', ['view']);
    expectError(await owner.call('GET', '/app/api/audit?view=api_reads&key_id=nope&type=request.created'), 422, 'validation_failed', ['key_id', 'type']);
    const member = await MemberBrowser.signIn(service, org.member.email);
    expectError(await member.call('GET', '/app/api/audit?view=api_reads'), 403, 'forbidden');
  });
});

describe('read records and the hash chain', () => {
  it('are kept in their own partition with a TTL; the chain, its head and the event feed are unchanged by reads', async () => {
    const chainBefore = await auditEntries(service, org.orgId);
    const feedBefore = await read('/events?limit=200', org.key);
    const recordsBefore = (await apiReads('&limit=200')).data.length;
    for (const path of ['/requests', `/requests/${requestIds[0]}`, '/events', '/webhooks', `/requests/${requestIds[0]}/certificate`]) expect((await read(path)).status).toBe(200);
    expect(await auditEntries(service, org.orgId)).toEqual(chainBefore);
    const feedAfter = await read('/events?limit=200', org.key);
    expect(feedAfter.text).toBe(feedBefore.text);
    expect(chainBefore.some((entry) => JSON.stringify(entry).includes('api_read'))).toBe(false);
    // The five reads and the second feed read by the all-scope key (the first is counted before).
    expect((await apiReads('&limit=200')).data.length).toBe(recordsBefore + 6);

    const stored = await service.deps.db.send(
      new QueryCommand({ TableName: service.deps.tableName, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': `APIREAD#${org.orgId}` }, ConsistentRead: true }),
    );
    const items = stored.Items ?? [];
    expect(items.length).toBe(recordsBefore + 6);
    const now = Date.now() / 1000;
    for (const item of items) {
      expect(item.kind).toBe('api_read');
      expect(item.sk).toMatch(/^READ#[0-9a-z]{26}$/);
      expect(item.ttlEpoch).toBeGreaterThan(now + (API_READ_RETENTION_DAYS - 1) * 86_400);
      expect(item.ttlEpoch).toBeLessThan(now + (API_READ_RETENTION_DAYS + 1) * 86_400);
      expect(JSON.stringify(item)).not.toMatch(/Bearer|chs_live_|whsec_/);
    }
  });
});
