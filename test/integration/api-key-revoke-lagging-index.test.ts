/**
 * Revoking an API key the moment after it was made, as deployed: the byOrg index lags the table,
 * so the organisation's key list may not hold the new key yet. The revocation must still find it
 * (by id or by display prefix, through the operator CLI's path and the member app's route), and
 * the key must be refused from the next call on. DynamoDB Local updates its indexes at once:
 * withLaggingIndexes hides the new key from them as a lagging GSI would.
 */
import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keys } from '../../lambdas/store/keys.ts';
import { MemberBrowser } from '../support/member-browser.ts';
import { withLaggingIndexes } from '../support/lagging-indexes.ts';
import { expectError } from '../support/shapes.ts';
import { startTestService, type TestOrganisation, type TestService } from '../support/test-service.ts';

let service: TestService;
let org: TestOrganisation;
let owner: MemberBrowser;

beforeAll(async () => {
  service = await startTestService();
  org = await service.createOrganisation({ name: 'Lagging Keys Org' });
  owner = await MemberBrowser.signIn(service, org.owner.email);
});
afterAll(() => service?.stop());

const ping = (key: string) => service.call('GET', '/ping', { key });

/** A new key made by the operator, with its id and display prefix. */
const operatorKey = async (name: string) => {
  const { apiKey, secret } = await service.admin.createApiKey({ orgId: org.orgId, name, scopes: ['requests:read'] });
  expect((await ping(secret)).status).toBe(200);
  return { id: apiKey.id, prefix: apiKey.prefix, secret };
};

/** While it runs, no index lists the key: as just after its creation, deployed. */
const notYetIndexed = <T>(keyId: string, during: () => Promise<T>) => withLaggingIndexes(service.deps.db, [keyId], during);

describe('revoking a key the index does not list yet', () => {
  it('through the operator CLI path, by id: revoked, and refused from the next call on', async () => {
    const key = await operatorKey('Revoked by id at once');
    const revoked = await notYetIndexed(key.id, () => service.admin.revokeApiKey(org.orgId, key.id));
    expect(revoked).toMatchObject({ id: key.id, revokedAt: expect.any(String) });
    expectError(await ping(key.secret), 401, 'unauthenticated');
    // The organisation's other keys go on working.
    expect((await ping(org.key)).status).toBe(200);
  });

  it('through the operator CLI path, by display prefix: revoked, and refused from the next call on', async () => {
    const key = await operatorKey('Revoked by prefix at once');
    const revoked = await notYetIndexed(key.id, () => service.admin.revokeApiKey(org.orgId, key.prefix));
    expect(revoked).toMatchObject({ id: key.id, prefix: key.prefix, revokedAt: expect.any(String) });
    expectError(await ping(key.secret), 401, 'unauthenticated');
  });

  it("through the member app's route: 200 revoked, refused from the next call on; a second revocation 409", async () => {
    const created = await owner.call('POST', '/app/api/keys', {
      body: { name: 'Made and revoked in the app', scopes: ['requests:read'] },
      headers: { 'Idempotency-Key': `lagging-${org.orgId}` },
    });
    expect(created.status, created.text).toBe(201);
    const { api_key: key, secret } = created.body as { api_key: { id: string }; secret: string };
    expect((await ping(secret)).status).toBe(200);

    await notYetIndexed(key.id, async () => {
      const revoked = await owner.call('POST', `/app/api/keys/${key.id}/revoke`);
      expect(revoked.status, revoked.text).toBe(200);
      expect(revoked.body).toMatchObject({ id: key.id, state: 'revoked' });
      expectError(await owner.call('POST', `/app/api/keys/${key.id}/revoke`), 409, 'illegal_transition');
    });
    expectError(await ping(secret), 401, 'unauthenticated');
  });

  it('finds a key made before its pointers were kept through the index, by id and by prefix', async () => {
    for (const by of ['id', 'prefix'] as const) {
      const key = await operatorKey(`Older key, revoked by ${by}`);
      for (const ref of [keys.apiKeyIdRef(org.orgId, key.id), keys.apiKeyPrefixRef(org.orgId, key.prefix, key.id)]) {
        await service.deps.db.send(new DeleteCommand({ TableName: service.deps.tableName, Key: ref }));
      }
      expect((await service.admin.revokeApiKey(org.orgId, key[by])).id).toBe(key.id);
      expectError(await ping(key.secret), 401, 'unauthenticated');
    }
  });

  it("answers 404 for another organisation's key, by id or prefix, and leaves it working", async () => {
    const other = await service.createOrganisation({ name: 'Other Lagging Keys Org' });
    const { apiKey: theirs, secret } = await service.admin.createApiKey({ orgId: other.orgId, name: 'Not yours', scopes: ['requests:read'] });
    await notYetIndexed(theirs.id, async () => {
      await expect(service.admin.revokeApiKey(org.orgId, theirs.id)).rejects.toMatchObject({ status: 404, code: 'not_found' });
      await expect(service.admin.revokeApiKey(org.orgId, theirs.prefix)).rejects.toMatchObject({ status: 404, code: 'not_found' });
      expectError(await owner.call('POST', `/app/api/keys/${theirs.id}/revoke`), 404, 'not_found');
    });
    expect((await ping(secret)).status).toBe(200);
  });
});
