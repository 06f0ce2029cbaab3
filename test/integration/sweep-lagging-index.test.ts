/**
 * The sweep against DynamoDB Local when the byDue index lags the table, as deployed: requests and
 * shares that ended a moment ago are still listed at the top of every shard, a page deep. The
 * sweep must read on past them, not start each round at the top again, and settle the due
 * records behind them in the same sweep.
 */
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keys } from '../../lambdas/store/keys.ts';
import { createHandler as createSweepWorker } from '../../lambdas/workers/sweep.ts';
import { MemberBrowser } from '../support/member-browser.ts';
import { createShareAs } from '../support/shares.ts';
import { startTestService, type TestOrganisation, type TestService } from '../support/test-service.ts';
import { movableClock } from '../support/webhooks.ts';

const MINUTE = 60_000;
/** Ids read per shard per round: small, so a page of ended records is cheap to stage. */
const PAGE = 2;
const SHARDS = 4;
const DUE = 5;

describe('the sweep behind a lagging byDue index', () => {
  const clock = movableClock();
  let service: TestService;
  let org: TestOrganisation;
  let sweep: () => Promise<{ expired: number; purged: number; failed: number; sharesExpired: number }>;

  beforeAll(async () => {
    service = await startTestService({ clock });
    org = await service.createOrganisation({ name: 'Lagging Index Org' });
    sweep = service.asWorker('sweep', createSweepWorker(service.deps, { pageSize: PAGE, maxRounds: 50 }));
  });
  afterAll(() => service?.stop());

  const itemOf = async (key: { pk: string; sk: string }) =>
    (await service.deps.db.send(new GetCommand({ TableName: service.deps.tableName, Key: key, ConsistentRead: true }))).Item!;

  /**
   * Makes and ends records until every shard's first page lists only ended ones: after each end,
   * the byDue attributes the item had while live are written back, so the index goes on listing
   * it exactly as a GSI that has not caught up with the end would.
   */
  const endedButStillIndexed = async (make: () => Promise<{ pk: string; sk: string }>, end: (key: { pk: string; sk: string }) => Promise<void>) => {
    const perShard = new Map<string, number>();
    for (let made = 0; perShard.size < SHARDS || [...perShard.values()].some((count) => count < PAGE); made++) {
      expect(made, 'ids spread over the shards').toBeLessThan(80);
      const key = await make();
      const { gsi5pk, gsi5sk } = await itemOf(key);
      await end(key);
      expect((await itemOf(key)).gsi5pk, 'an ended record leaves the index').toBeUndefined();
      await service.deps.db.send(
        new UpdateCommand({
          TableName: service.deps.tableName,
          Key: key,
          UpdateExpression: 'SET gsi5pk = :pk, gsi5sk = :sk',
          ExpressionAttributeValues: { ':pk': gsi5pk, ':sk': gsi5sk },
        }),
      );
      perShard.set(gsi5pk, (perShard.get(gsi5pk) ?? 0) + 1);
    }
  };

  const createRequest = async () => {
    const answer = await service.call('POST', '/requests', {
      key: org.key,
      body: { subject_name: 'Jane Doe', justification: 'Need the firewall admin password', recipients: [org.owner.email] },
    });
    expect(answer.status, answer.text).toBe(201);
    return answer.body.request as { id: string; link_expires_at: string };
  };

  it('expires the due requests listed behind a page of ended ones in every shard, in one sweep', async () => {
    await endedButStillIndexed(
      async () => keys.request((await createRequest()).id),
      async (key) => {
        const revoked = await service.call('POST', `/requests/${key.pk.slice('REQ#'.length)}/revoke`, { key: org.key });
        expect(revoked.status, revoked.text).toBe(200);
      },
    );
    // Made later, so due later: the index lists them after the ended ones of their shard.
    clock.advance(MINUTE);
    const due = [];
    for (let n = 0; n < DUE; n++) due.push(await createRequest());
    clock.set(Math.max(...due.map((request) => Date.parse(request.link_expires_at))) + MINUTE);

    expect(await sweep()).toEqual({ expired: DUE, purged: 0, failed: 0, sharesExpired: 0 });
    for (const request of due) expect((await itemOf(keys.request(request.id))).status).toBe('expired');
  });

  it('expires the due shares listed behind a page of ended ones in every shard, in one sweep', async () => {
    // Signed in now: the requests' sweep moved the clock past any earlier session.
    const tom = await MemberBrowser.signIn(service, org.member.email);
    await endedButStillIndexed(
      async () => keys.share((await createShareAs(tom, { expires_in_minutes: 10 })).id),
      async (key) => {
        const purged = await tom.call('POST', `/app/api/shares/${key.pk.slice('SHARE#'.length)}/purge`);
        expect(purged.status, purged.text).toBe(200);
      },
    );
    clock.advance(MINUTE);
    const due = [];
    for (let n = 0; n < DUE; n++) due.push(await createShareAs(tom, { expires_in_minutes: 10 }));
    clock.advance(11 * MINUTE);

    expect(await sweep()).toMatchObject({ sharesExpired: DUE, failed: 0 });
    for (const share of due) expect((await itemOf(keys.share(share.id))).status).toBe('expired');
  });
});
