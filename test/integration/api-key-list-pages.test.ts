/**
 * The organisation's key list follows the byOrg index past its first page. One Query answers at
 * most 1 MB: a few hundred keys with full allowlists (100 entries each) fill it, and the keys past
 * it (the newest, as key ids sort by time) were missing from the member app's and the operator
 * CLI's lists. Here each key is padded to about 40 KB, so thirty keys take more than one page.
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoApiKeys } from '../../lambdas/store/api-keys.ts';
import { keys } from '../../lambdas/store/keys.ts';
import { startTestService, type TestService } from '../support/test-service.ts';

let service: TestService;

beforeAll(async () => {
  service = await startTestService();
});
afterAll(() => service?.stop());

describe("the organisation's key list", () => {
  it('lists every key when they take more than one 1 MB page of the index', async () => {
    const org = await service.createOrganisation({ name: 'Many Keys Org' });
    const made: string[] = [];
    for (let i = 0; i < 30; i++) {
      const { apiKey } = await service.admin.createApiKey({ orgId: org.orgId, name: `Client key ${i}`, scopes: ['requests:read'] });
      made.push(apiKey.id);
      await service.deps.db.send(
        new UpdateCommand({
          TableName: service.deps.tableName,
          Key: keys.apiKey(apiKey.hash),
          UpdateExpression: 'SET padding = :padding',
          ExpressionAttributeValues: { ':padding': 'x'.repeat(40 * 1024) },
        }),
      );
    }
    const listed = await new DynamoApiKeys(service.deps.db, service.deps.tableName).listForOrganisation(org.orgId);
    const ids = new Set(listed.map((key) => key.id));
    expect(made.filter((id) => !ids.has(id))).toEqual([]);
  });
});
