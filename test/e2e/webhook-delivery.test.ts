/**
 * Webhooks end to end through `npm start`'s runtime: the API writes audit entries, the stream
 * poller reads DynamoDB Local's real stream into the fan-out, the timer queue runs the delivery
 * worker, and a receiver on loopback verifies every delivery with the `standardwebhooks` library
 * and the legacy header. Also: connect-time refusal of a name resolving to loopback, and a 302
 * that is not followed.
 */
import { createHmac } from 'node:crypto';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebhookHttp } from '../../lambdas/adapters/webhook-http.ts';
import { deliverOne } from '../../lambdas/workers/deliver.ts';
import { createHandler as createFanOut } from '../../lambdas/workers/fan-out.ts';
import { auditInsertRecord } from '../../lambdas/workers/stream-record.ts';
import type { AuditEntry } from '../../lambdas/core/ports.ts';
import { waitFor } from '../support/local-process.ts';
import { startReceiver, type Receipt } from '../support/receiver.ts';
import { deliveryStoreOf, putSubscription } from '../support/webhooks.ts';
import { startTestService, type TestOrganisation, type TestService } from '../support/test-service.ts';

let service: TestService;
let org: TestOrganisation;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let receiverUrl: string;
let received: Receipt[];

beforeAll(async () => {
  service = await startTestService({ webhooks: true, allowLoopbackWebhooks: true });
  org = await service.createOrganisation();
  // Verification is checked by the test itself; /redirect answers with a redirect.
  receiver = await startReceiver({ answer: (receipt) => (receipt.path === '/redirect' ? { status: 302, headers: { Location: 'http://10.0.0.1/internal' } } : 204) });
  receiverUrl = receiver.url;
  received = receiver.receipts;
});

afterAll(async () => {
  await service?.stop();
  await receiver?.close();
});

const createRequest = async () => {
  const answer = await service.call('POST', '/requests', {
    key: org.key,
    body: { subject_name: 'Jane Doe', justification: 'Need the firewall admin password', recipients: [org.owner.email] },
  });
  expect(answer.status, answer.text).toBe(201);
  return answer.body;
};

describe('webhook delivery', () => {
  it('delivers each event to a loopback receiver, signed for standardwebhooks and the legacy header, body as GET /events has it', async () => {
    const subscription = await putSubscription(service, org.orgId, { url: `${receiverUrl}/hook`, events: ['request.created', 'request.revoked'] });
    const secret = subscription.secrets[0]!.secret;

    await createRequest();
    await createRequest();
    const deliveries = await waitFor(() => {
      const hooks = received.filter((r) => r.path === '/hook');
      return hooks.length >= 2 ? hooks : undefined;
    });

    const events = await service.call('GET', '/events', { key: org.key });
    expect(events.status, events.text).toBe(200);
    const ids = new Set<string>();
    for (const delivery of deliveries) {
      const headers = Object.fromEntries(Object.entries(delivery.headers).map(([k, v]) => [k, String(v)]));
      const payload = new Webhook(secret).verify(delivery.body, headers) as { id: string; type: string; organisation_id: string };
      expect(payload.type).toBe('request.created');
      expect(payload.organisation_id).toBe(org.orgId);
      expect(headers['content-type']).toBe('application/json');
      expect(headers['user-agent']).toMatch(/-Webhooks\/1$/);
      expect(headers['x-service-event']).toBe('request.created');
      expect(headers['webhook-id']).toMatch(/^[0-9a-z]{26}$/);
      expect(headers['x-service-delivery']).toMatch(/^[0-9a-z]{26}$/);
      const ts = headers['webhook-timestamp'];
      expect(headers['x-service-signature']).toBe(`t=${ts},v1=${createHmac('sha256', secret).update(`${ts}.${delivery.body}`).digest('hex')}`);
      // Byte-identical to the event as GET /events shows it.
      expect(events.text).toContain(delivery.body);
      ids.add(payload.id);
    }
    expect(ids.size).toBe(2);
    const after = await deliveryStoreOf(service).subscription(org.orgId, subscription.id);
    expect(after!.lastDeliveredAt).not.toBeNull();
    expect(after!.failingSince).toBeNull();
  });

  it('does not follow a 302 to a private address: one request, counted as a failure', async () => {
    const subscription = await putSubscription(service, org.orgId, { url: `${receiverUrl}/redirect`, events: ['request.created'] });
    const before = received.length;
    await createRequest();
    const store = deliveryStoreOf(service);
    await waitFor(async () => ((await store.subscription(org.orgId, subscription.id))?.failingSince ? true : undefined));
    expect(received.slice(before).filter((r) => r.path === '/redirect')).toHaveLength(1);
    expect(received.slice(before).filter((r) => r.path === '/internal')).toHaveLength(0);
  });

  it('refuses at delivery a host name that resolves to loopback when loopback is not allowed', async () => {
    const subscription = await putSubscription(service, org.orgId, { url: `https://hooks.example.com:${new URL(receiverUrl).port}/rebound`, events: ['member.disabled'] });
    const store = deliveryStoreOf(service);
    const sent: string[] = [];
    const queue = { send: async (id: string) => void sent.push(id) };
    const http = new WebhookHttp({ allowLoopback: false, resolve: async () => [{ address: '127.0.0.1', family: 4 }] });
    // An entry stored where the worker reads it, but not as kind 'audit': the running pipeline
    // (which would deliver it with loopback allowed) ignores it; this test plays the fan-out itself.
    const entry = {
      orgId: org.orgId,
      seq: 999_999,
      type: 'member.disabled',
      occurredAt: new Date().toISOString(),
      actor: { type: 'system' as const, label: null },
      clientId: null,
      requestId: null,
      data: { details: {} },
      prevHash: '0'.repeat(64),
      hash: '0'.repeat(64),
    };
    await service.deps.db.send(new PutCommand({ TableName: service.deps.tableName, Item: { pk: `AUDIT#${org.orgId}`, sk: `SEQ#${String(entry.seq).padStart(12, '0')}`, kind: 'audit_test_copy', ...entry } }));
    const logger = { info: () => undefined, warn: () => undefined, error: () => undefined, debug: () => undefined };
    // The fan-out reads the entry as an audit entry (the stored copy is not one, for the pipeline's sake).
    const auditItems = { get: async () => ({ kind: 'audit', ...entry }) };
    const fanOut = createFanOut({ clock: service.deps.clock, logger, deliveries: store, webhooks: { listForOrg: async () => [subscription] }, organisations: service.deps.directory, queue, auditItems });
    await fanOut({ Records: [auditInsertRecord(entry as AuditEntry)] });
    expect(sent).toHaveLength(1);
    expect(await deliverOne({ clock: service.deps.clock, logger, deliveries: store, queue, http, sealer: service.deps.sealer }, sent[0]!)).toBe('retry');
    expect((await store.get(sent[0]!))).toMatchObject({ attempts: 1, lastStatus: null, lastError: 'WebhookTargetRefused' });
    expect(received.filter((r) => r.path === '/rebound')).toEqual([]);
  });
});
