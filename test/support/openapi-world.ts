import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { inject } from 'vitest';
import { sha256Hex } from '../../lambdas/core/hashing.ts';
import { OPERATOR_ACTOR, SCOPES } from '../../lambdas/core/model.ts';
import { configureIntegration, connectIntegration, type IntegrationChanges } from '../../lambdas/core/use-cases/integrations/manage-integration.ts';
import { keys } from '../../lambdas/store/keys.ts';
import { send as sendExactly, type HeaderList } from './bad-input.ts';
import { startFaultProxy, type FaultProxy } from './dynamo-fault-proxy.ts';
import { MemberBrowser } from './member-browser.ts';
import type { Answer } from './openapi-answers.ts';
import { startReceiver } from './receiver.ts';
import { createShareAs } from './shares.ts';
import { submitAsSubject } from './submission.ts';
import { startTestService, type TestOrganisation, type TestService } from './test-service.ts';

/**
 * What the calls of test/e2e/openapi-every-operation.test.ts work with: the local service (its
 * webhook pipeline on, its table behind a proxy that can fail every call), an organisation with an
 * all-scope key, keys the service refuses for their plan and their rate, records in every state an
 * operation needs, the inbound URLs of integrations set up to refuse, a share, and a receiver
 * subscribed to `request.created`.
 */
export interface Call {
  path: string;
  /** The bearer key: the world's all-scope key when left out on an operation that takes one; null for none. */
  key?: string | null;
  headers?: HeaderList;
  /** JSON (sent as application/json), or bytes as they are. */
  body?: unknown;
  /** Made first, unchecked: what puts the service in the state the call needs. */
  prepare?: () => Promise<unknown>;
}

export interface Integration {
  statusPath: string;
  triggerPath: string;
}

export interface World {
  service: TestService;
  proxy: FaultProxy;
  org: TestOrganisation;
  /** The all-scope key of `org`, and its id (whose Idempotency-Keys `inProgress` can reopen). */
  key: string;
  keyId: string;
  /** A key of an organisation on the Free plan: every keyed call is 403 `plan_required`. */
  freeKey: string;
  /** A key allowed one call a minute: past it, every keyed call is 429. */
  limitedKey: string;
  /** A fresh pending request of `org`. */
  request(): Promise<string>;
  /** A fresh request of `org`, submitted as the subject's browser submits. */
  submittedRequest(): Promise<string>;
  /** A fresh webhook subscription of `org` (to a host that never hears from it). */
  webhook(): Promise<string>;
  shareId: string;
  inbound: Record<'open' | 'guarded' | 'disabled' | 'limited', Integration>;
  /** The loopback receiver subscribed to `request.created`, with what it received. */
  receiver: Awaited<ReturnType<typeof startReceiver>>;
  /** Marks the Idempotency-Key's finished call of `key` as still running, as a concurrent duplicate would find it. */
  inProgress(idempotencyKey: string): Promise<void>;
  /** Sends `call` as `method`, with exactly its headers and bytes. */
  send(method: string, call: Call, keyed: boolean): Promise<Answer>;
  stop(): Promise<void>;
}

const connected = async (service: TestService, orgId: string, name: string, changes: IntegrationChanges | null): Promise<Integration> => {
  const made = await connectIntegration(service.deps, OPERATOR_ACTOR, { orgId, name });
  if (changes) await configureIntegration(service.deps, OPERATOR_ACTOR, orgId, made.integration.id, changes);
  return { statusPath: new URL(made.webhook_url).pathname, triggerPath: new URL(made.trigger_url).pathname };
};

const expectStatus = <A extends { status: number; text: string }>(answer: A, status: number, what: string) => {
  if (answer.status !== status) throw new Error(`${what}: ${answer.status} ${answer.text}`);
  return answer;
};

export const startWorld = async (): Promise<World> => {
  const proxy = await startFaultProxy(inject('dynamoEndpoint'));
  // One SDK retry, and a short wait for an answer: a failing table is a 503 within seconds.
  const service = await startTestService({ dynamo: { endpoint: proxy.endpoint, requestTimeoutMs: 5000, maxAttempts: 2 }, webhooks: true, allowLoopbackWebhooks: true });
  const origin = new URL(service.appUrl).origin;
  const org = await service.createOrganisation({ name: 'Every Operation' });
  await service.admin.setRateLimits(org.orgId, { perKeyPerMinute: 100_000, perOrgPerMinute: 100_000 });
  const { apiKey, secret: key } = await service.admin.createApiKey({ orgId: org.orgId, name: 'Every operation', scopes: [...SCOPES] });
  const free = await service.createOrganisation({ name: 'Free Org', plan: 'free' });
  const limited = await service.createOrganisation({ name: 'Limited Org' });
  await service.admin.setRateLimits(limited.orgId, { perKeyPerMinute: 1, perOrgPerMinute: 1 });

  const request = async () => {
    const answer = await service.call('POST', '/requests', { key, body: { subject_name: 'Jane Doe', justification: 'The VPN admin password', recipients: [org.owner.email] } });
    return expectStatus(answer, 201, 'a request').body.request.id as string;
  };
  const receiver = await startReceiver();
  expectStatus(await service.call('POST', '/webhooks', { key, body: { url: `${receiver.url}/hook`, events: ['request.created'] } }), 201, 'the receiver');
  const share = await createShareAs(await MemberBrowser.signIn(service, org.owner.email));

  const send: World['send'] = (method, call, keyed) => {
    const headers: HeaderList = [...(call.headers ?? [])];
    const bearer = call.key === undefined ? (keyed ? key : null) : call.key;
    if (bearer) headers.push(['Authorization', `Bearer ${bearer}`]);
    let body: Buffer | null = null;
    if (Buffer.isBuffer(call.body) || typeof call.body === 'string') body = Buffer.from(call.body);
    else if (call.body !== undefined) {
      body = Buffer.from(JSON.stringify(call.body));
      headers.push(['Content-Type', 'application/json']);
    }
    return sendExactly(origin, method, call.path, headers, body);
  };

  return {
    service,
    proxy,
    org,
    key,
    keyId: apiKey.id,
    freeKey: free.key,
    limitedKey: limited.key,
    request,
    submittedRequest: async () => {
      const id = await request();
      await submitAsSubject(service, id, service.deps.clock, { envelope: { sealed: 'ciphertext' }, attachments: [] });
      return id;
    },
    webhook: async () => {
      const answer = await service.call('POST', '/webhooks', { key, body: { url: 'https://hooks.example.com/handoff', events: ['member.disabled'] } });
      return expectStatus(answer, 201, 'a webhook').body.id as string;
    },
    shareId: share.id,
    inbound: {
      open: await connected(service, org.orgId, 'Open', null),
      guarded: await connected(service, org.orgId, 'Guarded', { auth: { mode: 'header', headerName: 'X-Handoff-Secret', secret: 'a-shared-secret-of-24-chars' } }),
      disabled: await connected(service, org.orgId, 'Disabled', { enabled: false }),
      limited: await connected(service, org.orgId, 'Limited', { rateLimitPerMinute: 1 }),
    },
    receiver,
    inProgress: async (idempotencyKey) => {
      await service.deps.db.send(
        new UpdateCommand({
          TableName: service.deps.tableName,
          Key: keys.idempotency(apiKey.id, sha256Hex(idempotencyKey)),
          UpdateExpression: 'SET #status = :running, lockedUntil = :until',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':running': 'in_progress', ':until': Date.now() + 30_000 },
        }),
      );
    },
    send,
    stop: async () => {
      await receiver.close();
      await service.stop();
      await proxy.stop();
    },
  };
};
