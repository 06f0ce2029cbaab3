/**
 * A filtered list of requests reads at most its budget of requests per call: a filter few match
 * (a client's revoked requests over years of history) no longer reads the whole partition in one
 * call. The page ends where the read stopped, shorter or empty, and the next page goes on from
 * there, so following `next_cursor` still finds every match, newest first, each once.
 */
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HandoffRequest } from '../../lambdas/core/model.ts';
import type { Documents } from '../../lambdas/store/dynamo.ts';
import { DynamoRequests } from '../../lambdas/store/requests.ts';
import { expectCreationResult } from '../support/shapes.ts';
import { startTestService, type TestOrganisation, type TestService } from '../support/test-service.ts';

let service: TestService;
let org: TestOrganisation;
const made: string[] = [];

beforeAll(async () => {
  service = await startTestService();
  org = await service.createOrganisation({ name: 'Long History Org' });
  for (let i = 0; i < 12; i++) {
    const answer = await service.call('POST', '/requests', {
      key: org.key,
      body: { subject_name: `Subject ${i}`, justification: 'Need the VPN admin password', recipients: [org.owner.email] },
    });
    expect(answer.status, answer.text).toBe(201);
    made.push(expectCreationResult(answer.body).request.id);
  }
  // The oldest and a middle one revoked: the filter matches 2 of 12.
  for (const id of [made[0]!, made[6]!]) expect((await service.call('POST', `/requests/${id}/revoke`, { key: org.key })).status).toBe(200);
});
afterAll(() => service?.stop());

describe('a filtered list of requests', () => {
  it('reads at most its budget per call and still finds every match across pages', async () => {
    const budget = 5;
    const requests = new DynamoRequests(service.deps.db, service.deps.tableName, service.deps.audit, budget);
    const pages: Array<{ items: HandoffRequest[]; nextCursor: string | null }> = [];
    let cursor: string | undefined;
    do {
      const page = await requests.list({ orgId: org.orgId, clientId: org.defaultClientId, status: 'revoked', limit: 50, cursor });
      pages.push(page);
      cursor = page.nextCursor ?? undefined;
    } while (cursor && pages.length < 10);
    // 12 requests at 5 a call: three calls, the first of which matched nothing.
    expect(pages.map((page) => page.items.length)).toEqual([0, 1, 1]);
    expect(pages[0]!.nextCursor).toBe(made[7]);
    expect(pages.flatMap((page) => page.items.map((request) => request.id))).toEqual([made[6], made[0]]);
    expect(pages.at(-1)!.nextCursor).toBeNull();
  });

  it('reads little more than the page when most requests match', async () => {
    let scanned = 0;
    const counting = {
      send: async (command: unknown) => {
        const answer = await service.deps.db.send(command as never);
        if (command instanceof QueryCommand) scanned += (answer as { ScannedCount?: number }).ScannedCount ?? 0;
        return answer;
      },
    } as unknown as Documents;
    const page = await new DynamoRequests(counting, service.deps.tableName, service.deps.audit).list({ orgId: org.orgId, clientId: org.defaultClientId, status: 'pending', limit: 3 });
    expect(page.items.map((request) => request.id)).toEqual([made[11], made[10], made[9]]);
    expect(page.nextCursor).toBe(made[9]);
    expect(scanned).toBe(4);
  });

  it('with the default budget answers the same matches in one page', async () => {
    const page = await new DynamoRequests(service.deps.db, service.deps.tableName, service.deps.audit).list({ orgId: org.orgId, clientId: org.defaultClientId, status: 'revoked', limit: 50 });
    expect(page.items.map((request) => request.id)).toEqual([made[6], made[0]]);
    expect(page.nextCursor).toBeNull();
  });
});
