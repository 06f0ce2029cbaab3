/**
 * POST /app/api/keys with an Idempotency-Key when the table applied the key's creation but every
 * answer was lost (DynamoDB Local behind a proxy that applies the transaction and never answers):
 * the member gets a 503, and the retry with the same key replays the creation (secret null) instead
 * of minting a second live API key. The answer is stored in the creation's own transaction
 * (store/idempotent-commit.ts), as for requests, webhooks and shares (fault-injection.test.ts).
 */
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { startFaultProxy, type FaultProxy } from '../support/dynamo-fault-proxy.ts';
import { MemberBrowser } from '../support/member-browser.ts';
import { expectError } from '../support/shapes.ts';
import { startTestService, type TestOrganisation, type TestService } from '../support/test-service.ts';

const SDK = { requestTimeoutMs: 2000, maxAttempts: 2 };

let proxy: FaultProxy;
let service: TestService;
let org: TestOrganisation;

beforeAll(async () => {
  proxy = await startFaultProxy(inject('dynamoEndpoint'));
  service = await startTestService({ dynamo: { endpoint: proxy.endpoint, ...SDK } });
  org = await service.createOrganisation({ name: 'Lost Answer Keys Org' });
});
afterAll(async () => {
  await service?.stop();
  await proxy?.stop();
});

it('does not create a second API key when the first committed but every answer was lost; the retry replays it with the secret null', async () => {
  const owner = await MemberBrowser.signIn(service, org.owner.email);
  const key = `lost-key-${Date.now()}`;
  const create = () => owner.call('POST', '/app/api/keys', { body: { name: 'Deploy bot', scopes: ['requests:read'] }, headers: { 'Idempotency-Key': key } });
  const keys = async () => ((await owner.call('GET', '/app/api/keys')).body.data as Array<{ id: string }>).map((k) => k.id);
  const before = await keys();

  proxy.inject({ operation: 'TransactWriteItems', fault: 'hang-after-apply' });
  const lost = await create();
  proxy.clear();
  expectError(lost, 503, 'service_unavailable');

  const retried = await create();
  expect(retried.status, retried.text).toBe(201);
  expect(retried.headers.get('idempotency-replayed')).toBe('true');
  expect(retried.body.secret).toBeNull();
  const after = await keys();
  expect(after.filter((id) => !before.includes(id)), 'one API key created').toEqual([retried.body.api_key.id]);
});
