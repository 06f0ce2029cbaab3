/**
 * The service under soak (bench/soak.ts), in a process of its own as `npm start` runs it, so that
 * the memory the soak reports is the service's alone: the load, its records of every call and the
 * receivers live in the parent. Started with `fork`; it sets up the organisation, its two API keys
 * and the two subscriptions, says `ready`, and then answers the parent's questions over IPC.
 */
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { OPERATOR_ACTOR } from '../lambdas/core/model.ts';
import { createWebhook } from '../lambdas/core/use-cases/webhooks.ts';
import { newIdentityPublicKey } from '../lambdas/local/demo-identity.ts';
import { startLocalService, type LocalService } from '../lambdas/local/local-service.ts';
import { INDEXES } from '../lambdas/store/table.ts';
import { SOAK_CONFIG_ENV, type HangingDeliveries, type SoakAnswer, type SoakQuestion, type SoakServiceConfig, type SoakServiceReady } from './soak-protocol.ts';

/** Subscribes `url` to request.created as POST /v1/webhooks does (the URL checked, the secret sealed), without spending an API call. */
const subscribe = async (service: LocalService, orgId: string, url: string, description: string) => {
  const manager = { orgId, clientId: null, actor: OPERATOR_ACTOR, createdVia: 'api' as const };
  return createWebhook(service.deps, manager, { url, events: ['request.created'], description });
};

/** The subscription's deliveries by status, and their attempts, read from the table. */
const deliveriesOf = async (service: LocalService, orgId: string, webhookId: string): Promise<HangingDeliveries> => {
  const byStatus: Record<string, number> = {};
  let attempts = 0;
  let start: Record<string, unknown> | undefined;
  do {
    const page = await service.deps.db.send(
      new QueryCommand({
        TableName: service.deps.tableName,
        IndexName: INDEXES.byOrg.indexName,
        KeyConditionExpression: 'gsi1pk = :pk',
        // lambdas/store/deliveries.ts's index key of a subscription's deliveries.
        ExpressionAttributeValues: { ':pk': `ORG#${orgId}#WEBHOOK#${webhookId}#DELIVERIES` },
        ExclusiveStartKey: start,
      }),
    );
    for (const item of page.Items ?? []) {
      byStatus[item.status as string] = (byStatus[item.status as string] ?? 0) + 1;
      attempts += (item.attempts as number) ?? 0;
    }
    start = page.LastEvaluatedKey;
  } while (start);
  return { byStatus, attempts };
};

const main = async () => {
  const config = JSON.parse(process.env[SOAK_CONFIG_ENV] ?? '{}') as SoakServiceConfig;
  const service = await startLocalService({ dynamoEndpoint: config.dynamoEndpoint, tableName: 'soak', announce: () => undefined, allowLoopbackWebhooks: true, outboxDir: config.outboxDir });
  const { admin } = service;
  // The organisation keeps the default rate limits: holding them is what is measured.
  const org = await admin.createOrganisation({ name: 'Soak Org', plan: 'team' });
  const owner = await admin.addMember({ orgId: org.id, name: 'Soak Owner', email: 'owner@soak.example', role: 'owner', identityKey: newIdentityPublicKey() });
  const keys = [
    await admin.createApiKey({ orgId: org.id, name: 'soak one', scopes: ['requests:read', 'requests:write'] }),
    await admin.createApiKey({ orgId: org.id, name: 'soak two', scopes: ['requests:read', 'requests:write'] }),
  ];
  await subscribe(service, org.id, config.healthyUrl, 'soak: answers at once');
  const hanging = await subscribe(service, org.id, config.hangingUrl, 'soak: never answers');

  process.on('message', (question: SoakQuestion) => {
    const answer = async (): Promise<SoakAnswer> => {
      if (question.ask === 'memory') {
        const { rss, heapUsed, heapTotal, external } = process.memoryUsage();
        return { id: question.id, memory: { rss, heapUsed, heapTotal, external } };
      }
      if (question.ask === 'hangingDeliveries') return { id: question.id, hangingDeliveries: await deliveriesOf(service, org.id, hanging.id) };
      await service.stop();
      return { id: question.id, stopped: true };
    };
    void answer().then((reply) => {
      process.send!(reply);
      if ('stopped' in reply) process.disconnect();
    });
  });
  const ready: SoakServiceReady = { type: 'ready', baseUrl: service.baseUrl, orgId: org.id, ownerEmail: owner.email, keys: keys.map((k) => k.secret) };
  process.send!(ready);
};

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
