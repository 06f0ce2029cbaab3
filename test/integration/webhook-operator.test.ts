/**
 * The operator's webhook actions (lambdas/workers/webhook-actions.ts, behind the CLI's
 * webhook-ping, redeliver-event and rotate-webhook-secret) against DynamoDB Local, a fake clock
 * and a loopback receiver reached through the real WebhookHttp: a ping is an event of its own in
 * GET /events delivered to one subscription; a redelivery has a new webhook-id and the same body;
 * a rotated secret signs beside the new one for the overlap, then drops out.
 */
import { createHmac } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { WebhookHttp } from '../../lambdas/adapters/webhook-http.ts';
import { WriteConflict } from '../../lambdas/core/errors.ts';
import { eventId } from '../../lambdas/core/events.ts';
import { newId } from '../../lambdas/core/ids.ts';
import type { AuditEntry } from '../../lambdas/core/ports.ts';
import type { SealedSecret } from '../../lambdas/core/sealing.ts';
import { webhookSecretContext } from '../../lambdas/core/webhooks.ts';
import type { DeliveryStore } from '../../lambdas/store/deliveries.ts';
import { OPERATOR_ACTOR } from '../../lambdas/core/model.ts';
import { deliverOne, type DeliverDeps } from '../../lambdas/workers/deliver.ts';
import { createHandler as createSweep } from '../../lambdas/workers/delivery-sweep.ts';
import { createHandler as createFanOut } from '../../lambdas/workers/fan-out.ts';
import { auditInsertRecord } from '../../lambdas/workers/stream-record.ts';
import { pingWebhook, redeliverEvent, rotateWebhookSecret, WebhookActionRefused, type WebhookActionDeps } from '../../lambdas/workers/webhook-actions.ts';
import { startReceiver, type Receipt } from '../support/receiver.ts';
import { auditEntries, DATE_TIME, ULID } from '../support/shapes.ts';
import { scanTable, startTestService, type TestOrganisation, type TestService } from '../support/test-service.ts';
import { deliveryStoreOf, fanOutEvent, movableClock, putSubscription, quietLogger, recordingQueue, storedAuditItems, type TestSubscription } from '../support/webhooks.ts';

const clock = movableClock();
let service: TestService;
let org: TestOrganisation;
let store: DeliveryStore;
type Received = Receipt;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let receiverUrl: string;
let received: Received[];
let queue: ReturnType<typeof recordingQueue>;
let deps: WebhookActionDeps;
let deliverDeps: DeliverDeps;

beforeAll(async () => {
  service = await startTestService({ clock, allowLoopbackWebhooks: true });
  org = await service.createOrganisation();
  store = deliveryStoreOf(service);
  // Answers 500 on /fail, 204 elsewhere; keeps every request as it came.
  receiver = await startReceiver({ answer: (receipt) => (receipt.path === '/fail' ? 500 : 204) });
  receiverUrl = receiver.url;
  received = receiver.receipts;
});
afterAll(async () => {
  await service?.stop();
  await receiver?.close();
});
beforeEach(() => {
  clock.set(Date.now());
  received.length = 0;
  queue = recordingQueue(clock);
  deliverDeps = { clock, logger: quietLogger, deliveries: store, queue: queue.queue, http: new WebhookHttp({ allowLoopback: true }), sealer: service.deps.sealer };
  deps = { clock, deliveries: store, webhooks: service.deps.webhooks, sealer: service.deps.sealer, attemptNow: (id) => deliverOne(deliverDeps, id) };
});

const deliveryItem = async (id: string) =>
  (await service.deps.db.send(new GetCommand({ TableName: service.deps.tableName, Key: { pk: `DELIVERY#${id}`, sk: 'DELIVERY' }, ConsistentRead: true }))).Item!;
const webhookItem = async (id: string) =>
  (await service.deps.db.send(new GetCommand({ TableName: service.deps.tableName, Key: { pk: `ORG#${org.orgId}`, sk: `WEBHOOK#${id}` }, ConsistentRead: true }))).Item!;
/** The stored secrets opened: every one is sealed for this subscription, none is in the item in plain text. */
const storedSecrets = async (id: string) => {
  const item = await webhookItem(id);
  const secrets = item.secrets as Array<{ sealed: SealedSecret; expiresAt: string | null }>;
  const opened = await Promise.all(secrets.map(async (s) => ({ secret: await service.deps.sealer.open(s.sealed, webhookSecretContext(org.orgId, id)), expiresAt: s.expiresAt })));
  for (const { secret } of opened) expect(JSON.stringify(item)).not.toContain(secret);
  return opened;
};
const deliveriesOfEvent = async (seq: number) => (await scanTable(service)).filter((item) => item.kind === 'webhook_delivery' && item.orgId === org.orgId && item.eventSeq === seq);
const entryOf = async (seq: number) => (await auditEntries(service, org.orgId)).find((entry) => entry.seq === seq)!;
const seqOf = (id: string) => Number(id.replace(/^evt_/, ''));
const signatures = (r: Received) => r.headers['webhook-signature']!.split(' ');
/**
 * The signature `standardwebhooks` itself makes for this delivery with `secret`: for deliveries
 * signed at a fake time that its verify() would refuse as too far from now.
 */
const librarySignature = (secret: string, r: Received) =>
  new Webhook(secret).sign(r.headers['webhook-id']!, new Date(Number(r.headers['webhook-timestamp']) * 1000), r.body);

/** A `request.created` of the default client, fanned out to `subscription` and delivered once. */
const deliveredEvent = async (subscription: TestSubscription) => {
  const { entry, deliveryId } = await fanOutEvent(service, org, subscription, { clock, deliveries: store, queue: queue.queue });
  expect(await deliverOne(deliverDeps, queue.sent.shift()!.deliveryId)).toBe('delivered');
  return { entry, deliveryId };
};

describe('webhook-ping', () => {
  it('delivers one verified ping whose id is the evt_<seq> GET /events lists, written with its audit entry and delivery', async () => {
    const subscription = await putSubscription(service, org.orgId, { url: `${receiverUrl}/hook`, clientId: org.defaultClientId });
    const result = await pingWebhook(deps, OPERATOR_ACTOR, org.orgId, subscription.id);

    expect(result).toMatchObject({ event_type: 'ping', webhook_id: subscription.id, outcome: 'delivered', receiver_status: 204, error: null, next_attempt_at: null });
    expect(result.event_id).toMatch(/^evt_[0-9]+$/);
    expect(result.delivery_id).toMatch(ULID);
    expect(result.message_id).toMatch(ULID);
    expect(received).toHaveLength(1);
    const [delivery] = received;
    const payload = new Webhook(subscription.secrets[0]!.secret).verify(delivery!.body, delivery!.headers);
    expect(payload).toEqual({
      id: result.event_id,
      object: 'event',
      type: 'ping',
      occurred_at: new Date(clock.now()).toISOString(),
      organisation_id: org.orgId,
      client_id: org.defaultClientId,
      seq: seqOf(result.event_id),
      data: { details: { webhook_id: subscription.id, delivery_id: result.delivery_id }, actor: { type: 'system', label: 'operator' } },
    });
    expect(delivery!.headers).toMatchObject({ 'webhook-id': result.message_id, 'x-service-delivery': result.delivery_id, 'x-service-event': 'ping' });

    const events = await service.call('GET', '/events?types=ping', { key: org.key });
    expect(events.status, events.text).toBe(200);
    expect(events.body.data.map((e: { id: string }) => e.id)).toContain(result.event_id);
    expect(events.text).toContain(delivery!.body); // byte for byte as the feed has it

    const entry = await entryOf(seqOf(result.event_id));
    expect(entry).toMatchObject({ type: 'ping', clientId: org.defaultClientId, actor: { type: 'system', label: 'operator' }, data: { details: { webhook_id: subscription.id } } });
    const stored = await deliveriesOfEvent(entry.seq);
    expect(stored).toHaveLength(1);
    expect(stored[0]).toMatchObject({
      id: result.delivery_id,
      webhookId: subscription.id,
      eventType: 'ping',
      webhookMessageId: result.message_id,
      status: 'delivered',
      attempts: 1,
      lastStatus: 204,
      clientId: org.defaultClientId,
    });
    expect(stored[0]!.gsi6pk).toBeUndefined();

    // The fan-out makes no second delivery of a ping, even for a subscription that names the type:
    // it only sends the ping's own delivery to the worker (which finds it delivered already).
    const fanOut = createFanOut({ clock, logger: quietLogger, deliveries: store, webhooks: { listForOrg: async () => [{ ...subscription, events: ['ping'] }] }, organisations: service.deps.directory, queue: queue.queue, ...storedAuditItems(service) });
    await fanOut({ Records: [auditInsertRecord(entry as AuditEntry)] });
    expect(queue.sent).toEqual([expect.objectContaining({ deliveryId: result.delivery_id, delaySeconds: 0 })]);
    expect(await deliveriesOfEvent(entry.seq)).toHaveLength(1);
  });

  it('leaves a failed ping pending, due 1 minute on, for the delivery sweep', async () => {
    const subscription = await putSubscription(service, org.orgId, { url: `${receiverUrl}/fail` });
    const result = await pingWebhook(deps, OPERATOR_ACTOR, org.orgId, subscription.id);
    const due = new Date(clock.now().getTime() + 60_000).toISOString();
    expect(result).toMatchObject({ outcome: 'retry', receiver_status: 500, error: 'HTTP 500', next_attempt_at: due });
    expect(received).toHaveLength(1);
    const item = await deliveryItem(result.delivery_id);
    expect(item).toMatchObject({ status: 'pending', attempts: 1, nextAttemptAt: due, lastStatus: 500, gsi6sk: `${due}#${result.delivery_id}` });
    expect((await store.subscription(org.orgId, subscription.id))!.failingSince).toBe(clock.now().toISOString());

    queue.sent.length = 0; // the CLI's queue sends nothing: the sweep finds the delivery once past due
    const sweep = createSweep({ clock, logger: quietLogger, deliveries: store, queue: queue.queue });
    clock.advance(2 * 60_000 + 1_000);
    await sweep();
    expect(queue.sent.map((m) => m.deliveryId)).toContain(result.delivery_id);
  });

  it('refuses an unknown or inactive webhook and writes nothing', async () => {
    const inactive = await putSubscription(service, org.orgId, { url: `${receiverUrl}/hook`, isActive: false });
    const before = (await auditEntries(service, org.orgId)).length;
    await expect(pingWebhook(deps, OPERATOR_ACTOR, org.orgId, newId())).rejects.toThrow(/has no webhook/);
    await expect(pingWebhook(deps, OPERATOR_ACTOR, org.orgId, inactive.id)).rejects.toThrow(WebhookActionRefused);
    await expect(pingWebhook(deps, OPERATOR_ACTOR, org.orgId, inactive.id)).rejects.toThrow(/not active/);
    expect((await auditEntries(service, org.orgId)).length).toBe(before);
    expect(received).toEqual([]);
  });
});

describe('redeliver-event', () => {
  it('sends the same body again with a new webhook-id and delivery id, audited with its delivery', async () => {
    const subscription = await putSubscription(service, org.orgId, { url: `${receiverUrl}/hook`, events: ['request.created'], clientId: org.defaultClientId });
    const { entry, deliveryId } = await deliveredEvent(subscription);
    const result = await redeliverEvent(deps, OPERATOR_ACTOR, org.orgId, eventId(entry.seq), subscription.id);

    expect(result).toMatchObject({ event_id: eventId(entry.seq), event_type: 'request.created', outcome: 'delivered', receiver_status: 204 });
    expect(received).toHaveLength(2);
    const [first, again] = received;
    expect(again!.headers['webhook-id']).toBe(result.message_id);
    expect(again!.headers['webhook-id']).not.toBe(first!.headers['webhook-id']);
    expect(again!.headers['x-service-delivery']).toBe(result.delivery_id);
    expect(again!.headers['x-service-delivery']).not.toBe(deliveryId);
    expect(again!.body).toBe(first!.body);
    const secret = subscription.secrets[0]!.secret;
    for (const r of [first!, again!]) expect((new Webhook(secret).verify(r.body, r.headers) as { id: string }).id).toBe(eventId(entry.seq));

    const stored = await deliveriesOfEvent(entry.seq);
    expect(stored.map((d) => d.id).sort()).toEqual([deliveryId, result.delivery_id].sort());
    expect(await deliveryItem(result.delivery_id)).toMatchObject({ eventSeq: entry.seq, eventType: 'request.created', webhookMessageId: result.message_id, status: 'delivered', attempts: 1 });
    const audited = (await auditEntries(service, org.orgId)).filter((e) => e.type === 'webhook.redelivered');
    expect(audited).toHaveLength(1);
    expect(audited[0]).toMatchObject({ actor: { type: 'system', label: 'operator' }, data: { details: { webhook_id: subscription.id, event_id: eventId(entry.seq), delivery_id: result.delivery_id } } });
    expect(JSON.stringify(audited[0])).not.toContain('whsec_');
  });

  it('refuses a malformed or unknown event id, a non-event entry, an unknown or inactive webhook, a type it does not take and another client, writing nothing', async () => {
    const other = await service.admin.createClient(org.orgId, 'Other client');
    const scopedElsewhere = await putSubscription(service, org.orgId, { url: `${receiverUrl}/hook`, clientId: other.id });
    const inactive = await putSubscription(service, org.orgId, { url: `${receiverUrl}/hook`, isActive: false });
    const open = await putSubscription(service, org.orgId, { url: `${receiverUrl}/hook` });
    const otherTypes = await putSubscription(service, org.orgId, { url: `${receiverUrl}/hook`, events: ['member.disabled'] });
    const { entry } = await deliveredEvent(open);
    // A test ping of `open`: it names the webhook it tests, and goes to no other.
    const ping = await pingWebhook(deps, OPERATOR_ACTOR, org.orgId, open.id);
    received.length = 0;
    const nonEvent = (await auditEntries(service, org.orgId)).find((e) => e.type === 'organisation.created')!;
    const before = (await auditEntries(service, org.orgId)).length;
    const deliveries = (await scanTable(service)).filter((item) => item.kind === 'webhook_delivery').length;

    const cases: Array<[string, string, RegExp]> = [
      ['evt_x1', open.id, /not an event id/],
      [eventId(999_999), open.id, /has no event evt_999999/],
      [eventId(nonEvent.seq), open.id, /organisation\.created audit entry, not an event/],
      [eventId(entry.seq), newId(), /has no webhook/],
      [eventId(entry.seq), inactive.id, /not active/],
      [eventId(entry.seq), scopedElsewhere.id, new RegExp(`not an event of client ${other.id}`)],
      [eventId(entry.seq), otherTypes.id, /does not take request\.created events/],
      [ping.event_id, otherTypes.id, /a test ping of another webhook/],
    ];
    for (const [event, webhook, message] of cases) {
      await expect(redeliverEvent(deps, OPERATOR_ACTOR, org.orgId, event, webhook), `${event} to ${webhook}`).rejects.toThrow(message);
    }
    expect((await auditEntries(service, org.orgId)).length).toBe(before);
    expect((await scanTable(service)).filter((item) => item.kind === 'webhook_delivery').length).toBe(deliveries);
    expect(received).toEqual([]);
  });
});

describe('rotate-webhook-secret', () => {
  it('signs with the old and the new secret for the overlap, then with the new one alone', async () => {
    const created = await service.call('POST', '/webhooks', { key: org.key, body: { url: `${receiverUrl}/hook`, events: ['request.created'] } });
    expect(created.status, created.text).toBe(201);
    const { id, secret: oldSecret } = created.body as { id: string; secret: string };

    const rotated = await rotateWebhookSecret(deps, OPERATOR_ACTOR, org.orgId, id, 24);
    const until = new Date(clock.now().getTime() + 24 * 3_600_000).toISOString();
    expect(rotated.secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    expect(rotated.secret).not.toBe(oldSecret);
    expect(rotated.oldSecretExpiresAt).toBe(until);
    expect(await storedSecrets(id)).toEqual([
      { secret: rotated.secret, expiresAt: null },
      { secret: oldSecret, expiresAt: until },
    ]);
    const audited = (await auditEntries(service, org.orgId)).filter((e) => e.type === 'webhook.secret_rotated');
    expect(audited).toHaveLength(1);
    expect(audited[0]).toMatchObject({ actor: { type: 'system', label: 'operator' }, data: { details: { webhook_id: id, old_secret_expires_at: until } } });
    expect(JSON.stringify(audited[0])).not.toContain('whsec_');

    // During the overlap: two signatures; a receiver holding either secret accepts.
    await pingWebhook(deps, OPERATOR_ACTOR, org.orgId, id);
    const during = received.at(-1)!;
    expect(signatures(during)).toHaveLength(2);
    expect(signatures(during).every((s) => s.startsWith('v1,'))).toBe(true);
    for (const secret of [oldSecret, rotated.secret]) expect(() => new Webhook(secret).verify(during.body, during.headers), secret).not.toThrow();
    const ts = during.headers['webhook-timestamp'];
    expect(during.headers['x-service-signature']).toBe(`t=${ts},v1=${createHmac('sha256', rotated.secret).update(`${ts}.${during.body}`).digest('hex')}`);

    // After it (the clock is a day ahead, so the signatures are compared with the library's own sign()).
    clock.advance(24 * 3_600_000 + 1_000);
    await pingWebhook(deps, OPERATOR_ACTOR, org.orgId, id);
    const after = received.at(-1)!;
    expect(signatures(after)).toEqual([librarySignature(rotated.secret, after)]);
    expect(signatures(after)).not.toContain(librarySignature(oldSecret, after));
  });

  it('with an overlap of 0 drops every old secret at once; drops expired ones; refuses an unknown webhook', async () => {
    const subscription = await putSubscription(service, org.orgId, { url: `${receiverUrl}/hook` });
    const first = await rotateWebhookSecret(deps, OPERATOR_ACTOR, org.orgId, subscription.id, 1);
    clock.advance(3_600_000 + 1_000);
    const second = await rotateWebhookSecret(deps, OPERATOR_ACTOR, org.orgId, subscription.id, 2);
    // The original expired an hour in: gone; the first rotation's secret is the old one now.
    expect(await storedSecrets(subscription.id)).toEqual([
      { secret: second.secret, expiresAt: null },
      { secret: first.secret, expiresAt: new Date(clock.now().getTime() + 2 * 3_600_000).toISOString() },
    ]);

    const third = await rotateWebhookSecret(deps, OPERATOR_ACTOR, org.orgId, subscription.id, 0);
    expect(third.oldSecretExpiresAt).toBeNull();
    expect(await storedSecrets(subscription.id)).toEqual([{ secret: third.secret, expiresAt: null }]);
    const ping = await pingWebhook(deps, OPERATOR_ACTOR, org.orgId, subscription.id);
    expect(ping.outcome).toBe('delivered');
    const sent = received.at(-1)!;
    expect(signatures(sent)).toEqual([librarySignature(third.secret, sent)]);
    expect((await auditEntries(service, org.orgId)).filter((e) => e.type === 'webhook.secret_rotated' && e.data.details.webhook_id === subscription.id).map((e) => e.data.details.old_secret_expires_at)).toEqual([
      expect.stringMatching(DATE_TIME),
      expect.stringMatching(DATE_TIME),
      null,
    ]);

    await expect(rotateWebhookSecret(deps, OPERATOR_ACTOR, org.orgId, newId(), 24)).rejects.toThrow(/has no webhook/);
  });

  it('does not overwrite a rotation that came in between (the store writes on condition of the secrets it read)', async () => {
    const subscription = await putSubscription(service, org.orgId, { url: `${receiverUrl}/hook` });
    const stale = (await service.deps.webhooks.get(org.orgId, subscription.id))!;
    const rotated = await rotateWebhookSecret(deps, OPERATOR_ACTOR, org.orgId, subscription.id, 24);
    await expect(
      service.deps.webhooks.rotateSecret(stale, [{ sealed: await service.deps.sealer.seal('whsec_c3RhbGU=', webhookSecretContext(org.orgId, subscription.id)), expiresAt: null }], null, { type: 'system', label: 'operator' }),
    ).rejects.toThrow(WriteConflict);
    expect((await storedSecrets(subscription.id))[0]).toEqual({ secret: rotated.secret, expiresAt: null });
  });
});
