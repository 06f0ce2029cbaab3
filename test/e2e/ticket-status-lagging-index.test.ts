/**
 * A ticket status arriving while the ticket GSIs do not list a record yet, as happens deployed in
 * the moments after the record was made (DynamoDB Local updates them at once; the lag is made
 * here with test/support/lagging-indexes.ts). The ticket index's own items, written in the
 * record's creating transaction and read consistently, still find it: through the API's
 * POST /v1/tickets/{ref}/status and through an integration's webhook URL, for requests quoting
 * the ticket, requests linked to it by external id, and shares quoting it.
 */
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keys } from '../../lambdas/store/keys.ts';
import { INDEXES } from '../../lambdas/store/table.ts';
import { harness } from '../support/inbound-webhook-harness.ts';
import { withLaggingIndexes } from '../support/lagging-indexes.ts';
import { MemberBrowser } from '../support/member-browser.ts';
import { createShareAs } from '../support/shares.ts';
import { startTestService, type TestOrganisation, type TestService } from '../support/test-service.ts';

let service: TestService;
let org: TestOrganisation;
let ticketsKey: string;
let member: MemberBrowser;
const answers: string[] = [];
const h = harness(() => service, answers);
let seq = 0;
const ref = () => `LAG-${Date.now()}-${++seq}`;

beforeAll(async () => {
  service = await startTestService();
  org = await service.createOrganisation({ name: 'Lagging Index Org' });
  ticketsKey = await service.createKey(org.orgId, { scopes: ['tickets:write'], name: 'Helpdesk sync' });
  member = await MemberBrowser.signIn(service, org.member.email);
  // A trusted close revokes a request still waiting for its credential.
  await service.admin.setPolicy(org.orgId, {
    ticket: { trustUnverifiedWebhooks: true, gracePeriodMinutes: 0, closeStatuses: ['resolved', 'closed'], revokeUnsubmittedOnClose: true } as never,
  });
});
afterAll(() => service?.stop());

const markStatus = (ticket: string, status: string) =>
  service.call('POST', `/tickets/${encodeURIComponent(ticket)}/status`, { key: ticketsKey, body: { status } });

/** Every ticket GSI query made while `during` runs leaves `ids` out, as a lagging index would. */
const unlisted = <T>(ids: string[], during: () => Promise<T>) => withLaggingIndexes(service.deps.db, ids, during);

describe('the lagging helper itself', () => {
  it('hides the record from the ticket GSI, as the old reads through it alone would have missed it', async () => {
    const ticket = ref();
    const request = await h.create(org, ticket);
    const byIndex = () =>
      service.deps.db.send(
        new QueryCommand({
          TableName: service.deps.tableName,
          IndexName: INDEXES.byTicket.indexName,
          KeyConditionExpression: `${INDEXES.byTicket.partitionKey} = :pk`,
          ExpressionAttributeValues: { ':pk': keys.requestsOfTicket(org.orgId, ticket) },
        }),
      );
    const listed = (await byIndex()).Items?.map((item) => item.id);
    const hidden = (await unlisted([request.id], byIndex)).Items?.map((item) => item.id);
    expect(listed).toEqual([request.id]);
    expect(hidden).toEqual([]);
  });
});

describe('a status for a record the ticket GSIs do not list yet', () => {
  it('POST /v1/tickets/{ref}/status: a trusted close revokes the new pending request quoting the ticket', async () => {
    const ticket = ref();
    const request = await h.create(org, ticket);
    const answer = await unlisted([request.id], () => markStatus(ticket, 'closed'));
    expect(answer.status, answer.text).toBe(202);
    expect(answer.body.matched).toEqual({ ticket_links: 1, requests: [request.id], shares: [] });
    expect(await h.read(org, request.id)).toMatchObject({ status: 'revoked', ticket: { status: 'closed' } });
  });

  it('POST /v1/tickets/{ref}/status: a trusted close destroys the new share quoting the ticket', async () => {
    const ticket = ref();
    const share = await createShareAs(member, { ticket_ref: ticket });
    const answer = await unlisted([share.id], () => markStatus(ticket, 'closed'));
    expect(answer.status, answer.text).toBe(202);
    expect(answer.body.matched).toEqual({ ticket_links: 0, requests: [], shares: [share.id] });
    const read = await member.call('GET', `/app/api/shares/${share.id}`);
    expect(read.body, read.text).toMatchObject({ status: 'purged', end_reason: 'ticket_closed' });
  });

  it('an integration’s webhook URL: a close finds the new request quoting the ticket and the new one linked by external id', async () => {
    const integration = await h.connect(org.orgId, 'Lagging helpdesk');
    const ticket = ref();
    const quoting = await h.create(org, ticket);
    const linked = await h.create(org, `Other words ${seq}`, { ticket_integration_id: integration.id, ticket_external_id: ticket });
    const answer = await unlisted([quoting.id, linked.id], () => h.postJson(integration.path, { ticket_id: ticket, status: 'closed' }));
    expect(answer.status, answer.text).toBe(202);
    for (const request of [quoting, linked]) {
      expect(await h.read(org, request.id), request.id).toMatchObject({ status: 'revoked', ticket: { status: 'closed' } });
    }
  });

  it('keeps finding records the GSIs list, once each', async () => {
    const ticket = ref();
    const older = await h.create(org, ticket);
    const newer = await h.create(org, ticket);
    const answer = await unlisted([newer.id], () => markStatus(ticket, 'pending'));
    expect(answer.body.matched).toEqual({ ticket_links: 2, requests: [older.id, newer.id].sort(), shares: [] });
  });
});
