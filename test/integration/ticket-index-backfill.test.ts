/**
 * `npm run admin -- index-tickets` against DynamoDB Local: an organisation made before the ticket
 * index was kept (not covered, its records never noted) gets every request and share noted by the
 * tickets they quote or are linked to, and is covered only then; a second run changes nothing.
 */
import { DeleteCommand, GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256Hex } from '../../lambdas/core/hashing.ts';
import { newId } from '../../lambdas/core/ids.ts';
import { keys } from '../../lambdas/store/keys.ts';
import { runAdminCli } from '../support/admin-cli.ts';
import { startTestService, type TestOrganisation, type TestService } from '../support/test-service.ts';

let service: TestService;
let org: TestOrganisation;

beforeAll(async () => {
  service = await startTestService();
  org = await service.createOrganisation({ name: 'Older Org' });
});
afterAll(() => service?.stop());

const entryOf = async (ref: string) =>
  (await service.deps.db.send(new GetCommand({ TableName: service.deps.tableName, Key: keys.ticketIndexEntry(org.orgId, sha256Hex(ref)), ConsistentRead: true }))).Item;
const coveredOf = async (orgId: string) =>
  (await service.deps.db.send(new GetCommand({ TableName: service.deps.tableName, Key: keys.organisation(orgId), ConsistentRead: true }))).Item?.ticketIndexCovered;

/** As an organisation from before the index was kept: not covered, and no record of it noted. */
const forgetTheIndex = async (orgId: string) => {
  const { db, tableName } = service.deps;
  await db.send(new UpdateCommand({ TableName: tableName, Key: keys.organisation(orgId), UpdateExpression: 'REMOVE ticketIndexCovered' }));
  const { Items } = await db.send(new QueryCommand({ TableName: tableName, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': `TICKETS#${orgId}` } }));
  for (const item of Items ?? []) await db.send(new DeleteCommand({ TableName: tableName, Key: { pk: item.pk, sk: item.sk } }));
};

describe('index-tickets', () => {
  it("notes an older organisation's requests and shares by their tickets, then covers it; again, the same", async () => {
    const [quoted, linked, shared] = [`REF-${newId()}`, `EXT-${newId()}`, `SHR-${newId()}`];
    const answer = await service.call('POST', '/requests', {
      key: org.key,
      body: { subject_name: 'Jane Doe', justification: 'Need the VPN admin password', recipients: [org.owner.email], ticket_ref: quoted },
    });
    expect(answer.status, answer.text).toBe(201);
    // A request linked by its integration's own ticket id, and a share quoting a ticket, as the stores list them.
    const { db, tableName } = service.deps;
    const linkedId = newId();
    await db.send(
      new PutCommand({
        TableName: tableName,
        Item: { ...keys.request(linkedId), kind: 'request', id: linkedId, orgId: org.orgId, gsi1pk: keys.requestsOfOrg(org.orgId), gsi1sk: linkedId, ticket: { ref: null, externalId: linked } },
      }),
    );
    const shareId = newId();
    await db.send(new PutCommand({ TableName: tableName, Item: { ...keys.share(shareId), kind: 'share', id: shareId, orgId: org.orgId, gsi1pk: keys.sharesOfOrg(org.orgId), gsi1sk: shareId, ticketRef: shared } }));
    await forgetTheIndex(org.orgId);
    expect(await coveredOf(org.orgId)).toBeUndefined();

    const run = await runAdminCli(tableName, 'index-tickets', ['--org', org.orgId]);
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({ organisations: [{ organisation_id: org.orgId, requests_read: 2, shares_read: 1, tickets_noted: 3 }] });
    expect(await coveredOf(org.orgId)).toBe(true);
    expect(await entryOf(quoted)).toMatchObject({ quoted: true });
    expect(await entryOf(linked)).toMatchObject({ linked: true });
    expect(await entryOf(shared)).toMatchObject({ shared: true });

    const again = await runAdminCli(tableName, 'index-tickets', ['--org', org.orgId]);
    expect(JSON.parse(again.stdout)).toEqual(JSON.parse(run.stdout));
  });

  it('without --org, covers every organisation of the table', async () => {
    const other = await service.createOrganisation({ name: 'Another Older Org' });
    await forgetTheIndex(other.orgId);
    const run = await runAdminCli(service.deps.tableName, 'index-tickets', []);
    expect(run.code, run.stderr).toBe(0);
    expect((JSON.parse(run.stdout) as { organisations: Array<{ organisation_id: string }> }).organisations.map((o) => o.organisation_id)).toEqual(
      expect.arrayContaining([org.orgId, other.orgId]),
    );
    expect(await coveredOf(other.orgId)).toBe(true);
  });
});
