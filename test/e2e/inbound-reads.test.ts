/**
 * The webhook URL's reads over real HTTP: once a function knows a URL, a status for a ticket
 * nothing quotes is one BatchGetItem (the integration, its organisation, the ticket index's entry)
 * beside the rate count; a recorded status queries only the ticket index that holds the ticket.
 * What the function remembers of its URLs decides nothing: a new mapping, a disablement, new
 * hardening, a lowered limit and a rotation each take effect at the next post. An organisation
 * the ticket index does not cover (records from before it was kept) is looked through as before.
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256Hex } from '../../lambdas/core/hashing.ts';
import { newId } from '../../lambdas/core/ids.ts';
import { OPERATOR_ACTOR } from '../../lambdas/core/model.ts';
import { configureIntegration, connectIntegration, rotateIntegrationSecrets, type IntegrationChanges } from '../../lambdas/core/use-cases/integrations/manage-integration.ts';
import { keys } from '../../lambdas/store/keys.ts';
import { expectCreationResult, expectError } from '../support/shapes.ts';
import { tableCallsDuring } from '../support/table-calls.ts';
import { startTestService, type TestOrganisation, type TestService } from '../support/test-service.ts';
import { movableClock } from '../support/webhooks.ts';

// A clock that stands still: every post of a test falls in one rate window.
const clock = movableClock();
let service: TestService;
let org: TestOrganisation;

beforeAll(async () => {
  service = await startTestService({ clock });
  org = await service.createOrganisation({ name: 'Inbound Reads Org' });
});
afterAll(() => service?.stop());

const connect = async (name: string, changes: IntegrationChanges = {}) => {
  const connected = await connectIntegration(service.deps, OPERATOR_ACTOR, { orgId: org.orgId, name });
  await configureIntegration(service.deps, OPERATOR_ACTOR, org.orgId, connected.integration.id, { rateLimitPerMinute: 1_000, ...changes });
  return { id: connected.integration.id, path: new URL(connected.webhook_url).pathname };
};
const configure = (integration: { id: string }, changes: IntegrationChanges) => configureIntegration(service.deps, OPERATOR_ACTOR, org.orgId, integration.id, changes);
const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  service.call('POST', path, { rawBody: JSON.stringify(body), headers: { 'Content-Type': 'application/json', ...headers } });
const createRequest = async (ticketRef: string) => {
  const answer = await service.call('POST', '/requests', {
    key: org.key,
    body: { subject_name: 'Jane Doe', justification: 'Need the VPN admin password', recipients: [org.owner.email], ticket_ref: ticketRef },
  });
  expect(answer.status, answer.text).toBe(201);
  return expectCreationResult(answer.body).request;
};
const ticketStatusOf = async (requestId: string) => (await service.deps.requests.get(requestId))!.ticket!.status;

describe("the webhook URL's table calls", () => {
  it('a status for a ticket nothing quotes: the look-up once, then one BatchGetItem beside the rate count', async () => {
    const integration = await connect('Unknown tickets');
    const first = await tableCallsDuring(service.deps.db, async () => expect((await post(integration.path, { ticket_id: `NONE-${newId()}`, status: 'closed' })).status).toBe(202));
    // The URL's look-up item, then the round: a function that has not seen the URL reads it first.
    expect(first.sort()).toEqual(['BatchGetItem', 'GetItem', 'UpdateItem']);
    for (let i = 0; i < 3; i++) {
      const calls = await tableCallsDuring(service.deps.db, async () => expect((await post(integration.path, { ticket_id: `NONE-${newId()}`, status: 'closed' })).status).toBe(202));
      expect(calls.sort()).toEqual(['BatchGetItem', 'UpdateItem']);
    }
  });

  it('a status recorded on a request: the same round, a query of the index that holds the ticket beside one of the ticket index’s own items, the chain head, the change', async () => {
    const integration = await connect('Live ticket');
    const ticket = `LIVE-${newId()}`;
    const request = await createRequest(ticket);
    await post(integration.path, { ticket_id: ticket, status: 'open' });
    const calls = await tableCallsDuring(service.deps.db, async () => expect((await post(integration.path, { ticket_id: ticket, status: 'pending' })).status).toBe(202));
    // The two queries go side by side: the GSI for requests made before the ticket index kept its own items, those items for requests it may not list yet.
    expect(calls.sort()).toEqual(['BatchGetItem', 'GetItem', 'Query', 'Query', 'TransactWriteItems', 'UpdateItem']);
    expect(await ticketStatusOf(request.id)).toBe('pending');
  });
});

describe('what the function remembers of its URLs decides nothing', () => {
  it('a new mapping: the ticket is read where the mapping now says, not where the last post had it', async () => {
    const integration = await connect('Remapped');
    const quoted = `NEW-${newId()}`;
    const request = await createRequest(quoted);
    expect((await post(integration.path, { ticket_id: `NONE-${newId()}`, status: 'open' })).status).toBe(202);
    await configure(integration, { ticketIdPaths: ['ticket.id'] });
    // Read ahead where the old mapping looks: a ticket nothing quotes. The post is about the quoted one.
    const answer = await post(integration.path, { ticket_id: `NONE-${newId()}`, ticket: { id: quoted }, status: 'pending' });
    expect(answer.status).toBe(202);
    expect(answer.body.ticket_id).toBe(quoted);
    expect(await ticketStatusOf(request.id)).toBe('pending');
  });

  it('a disablement, new hardening, a lowered limit and a rotation each take effect at the next post', async () => {
    const integration = await connect('Changing');
    const body = { ticket_id: `CHG-${newId()}`, status: 'open' };
    for (let i = 0; i < 2; i++) expect((await post(integration.path, body)).status).toBe(202);

    await configure(integration, { enabled: false });
    expectError(await post(integration.path, body), 409, 'conflict');
    await configure(integration, { enabled: true, auth: { mode: 'header', headerName: 'X-Helpdesk-Token', secret: `token-${newId()}` } });
    expectError(await post(integration.path, body), 401, 'unauthenticated');
    await configure(integration, { auth: { mode: 'none' }, rateLimitPerMinute: 1 });
    expectError(await post(integration.path, body), 429, 'rate_limited');
    await configure(integration, { rateLimitPerMinute: 1_000 });
    expect((await post(integration.path, body)).status).toBe(202);

    const rotated = await rotateIntegrationSecrets(service.deps, OPERATOR_ACTOR, org.orgId, integration.id);
    expectError(await post(integration.path, body), 404, 'not_found');
    expect((await post(new URL(rotated.webhook_url).pathname, body)).status).toBe(202);
  });
});

describe('an organisation the ticket index does not cover', () => {
  it('is looked through the ticket indexes as before: its older requests take the status', async () => {
    const older = await service.createOrganisation({ name: 'Older Org' });
    const ticket = `OLD-${newId()}`;
    const answer = await service.call('POST', '/requests', {
      key: older.key,
      body: { subject_name: 'Jane Doe', justification: 'Need the VPN admin password', recipients: [older.owner.email], ticket_ref: ticket },
    });
    const request = expectCreationResult(answer.body).request;
    // As an organisation made before the index was kept: not covered, and its request never noted.
    const { db, tableName } = service.deps;
    await db.send(new UpdateCommand({ TableName: tableName, Key: keys.organisation(older.orgId), UpdateExpression: 'REMOVE ticketIndexCovered' }));
    await db.send(new UpdateCommand({ TableName: tableName, Key: keys.ticketIndexEntry(older.orgId, sha256Hex(ticket)), UpdateExpression: 'REMOVE quoted' }));
    const connected = await connectIntegration(service.deps, OPERATOR_ACTOR, { orgId: older.orgId, name: 'Older helpdesk' });

    const calls = await tableCallsDuring(db, async () => expect((await post(new URL(connected.webhook_url).pathname, { ticket_id: ticket, status: 'pending' })).status).toBe(202));

    expect(await ticketStatusOf(request.id)).toBe('pending');
    // Both ticket GSIs of requests and the shares' were queried, and the ticket index's own items of each kind.
    expect(calls.filter((call) => call === 'Query')).toHaveLength(5);
  });
});
