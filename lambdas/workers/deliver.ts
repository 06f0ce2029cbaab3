import { isDeepStrictEqual } from 'node:util';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { epochSeconds, type Clock } from '#core/clock.ts';
import { toEventObject } from '#core/events.ts';
import { FAST_ANSWER_MS, FAST_LANE_BUDGET_MS, WebhookTimedOut, type DeliveryLane } from '#core/delivery-lanes.ts';
import type { DeliveryQueue, WebhookPoster } from '#core/ports.ts';
import type { SecretSealer } from '#core/sealing.ts';
import { signatureHeaders } from '#core/webhook-signature.ts';
import { openWebhookSecret, stillValid } from '#core/webhooks.ts';
import type { ReadBatching } from '#store/coalesced-reads.ts';
import type { Delivery, DeliveryStore, WebhookTarget } from '#store/deliveries.ts';
import type { AppDeps } from '../app-deps.ts';
import { DeliveredBatch, type BatchMember } from './delivered-batch.ts';
import { webhookWiring } from './webhook-wiring.ts';
import { kmsSealing } from '../deployed/kms-sealing.ts';

/** Delays after the 1st..7th failed attempt (SPEC.md, Events → Delivery): eight attempts in all. */
export const RETRY_DELAYS_SECONDS = [60, 300, 1_800, 7_200, 21_600, 43_200, 86_400] as const;
export const MAX_ATTEMPTS = RETRY_DELAYS_SECONDS.length + 1;
/**
 * From a delivery's first attempt to its last: each delay runs from the attempt before, so a
 * delivery is retried for their sum, 160,560 s (44 h 36 m), before it is marked failed. Delays past
 * SQS's 15 minutes are waited out in hops (below), so every delay of the schedule is reached.
 */
export const RETRY_SPAN_SECONDS = RETRY_DELAYS_SECONDS.reduce((sum, delay) => sum + delay, 0);
/** SQS's largest DelaySeconds; longer waits are re-enqueued in hops. */
export const MAX_QUEUE_DELAY_SECONDS = 900;
export const WEBHOOK_TIMEOUT_MS = 10_000;
export const USER_AGENT = 'CredentialHandoff-Webhooks/1';
/** After the last attempt is claimed: when the sweep may re-drive a worker that died mid-attempt. */
const LAST_ATTEMPT_LEASE_SECONDS = 600;

export interface DeliverDeps {
  clock: Clock;
  logger: Pick<AppDeps['logger'], 'info' | 'warn' | 'error'>;
  deliveries: DeliveryStore;
  queue: DeliveryQueue;
  http: WebhookPoster;
  /** Opens the subscription's sealed signing secrets (the only place they are opened). */
  sealer: Pick<SecretSealer, 'open'>;
  /** Batches the reads the deliveries of one SQS batch start together (store/coalesced-reads.ts); absent, each is its own call. */
  readBatching?: ReadBatching;
}

export type DeliveryOutcome = 'unknown' | 'finished' | 'hop' | 'busy' | 'delivered' | 'retry' | 'failed' | 'cancelled' | 'to_slow_lane';

/**
 * The secrets valid now (several while one is rotated out), opened, the newest first: every one
 * signs `webhook-signature`, and signatureHeaders signs the legacy header with the first.
 */
export const openValidSecrets = async (sealer: DeliverDeps['sealer'], subscription: Pick<WebhookTarget, 'orgId' | 'id' | 'secrets'>, now: Date) => {
  const valid = (subscription.secrets ?? []).filter((s) => stillValid(s, now));
  // The current secret has no expiry; while rotating, the old one carries its expiresAt.
  const newest = valid.find((s) => s.expiresAt === null) ?? valid[0];
  const ordered = newest ? [newest, ...valid.filter((s) => s !== newest)] : [];
  return Promise.all(ordered.map((s) => openWebhookSecret(sealer, subscription.orgId, subscription.id, s)));
};

/** The delivery's headers, exactly as SPEC.md lists them; `secrets` as openValidSecrets gives them. */
export const webhookHeaders = (delivery: Delivery, secrets: readonly string[], body: string, now: Date) => {
  if (secrets.length === 0) throw new Error('the subscription has no valid secret');
  return {
    'Content-Type': 'application/json',
    'User-Agent': USER_AGENT,
    ...signatureHeaders(secrets, delivery.webhookMessageId, epochSeconds(now), body),
    'X-Service-Event': delivery.eventType,
    'X-Service-Delivery': delivery.id,
  };
};

const describeFailure = (error: unknown) => {
  const name = (error as Error)?.name ?? 'Error';
  return name === 'Error' ? String((error as Error)?.message ?? 'error').slice(0, 200) : name;
};

/**
 * One delivery, on receipt of its message in `lane`: nothing if it is finished; a hop if its next
 * attempt is still in the future; to the slow lane if its subscription is slow; else claims the
 * next attempt, POSTs, and records the outcome. In the fast lane the POST may take
 * FAST_LANE_BUDGET_MS: a receiver that has not answered by then is moved to the slow lane with
 * this delivery, its attempt given back (core/delivery-lanes.ts). After a failure with attempts
 * left, the message for the next attempt is enqueued in the subscription's lane (at most 15
 * minutes ahead: the rest is done in hops); after the eighth, the delivery is failed and audited.
 */
export const deliverOne = async (
  deps: DeliverDeps,
  deliveryId: string,
  lane: DeliveryLane = 'fast',
  /** Where a 2xx is recorded: the delivery's batch (written together), else the store at once. */
  outcomes: Pick<BatchMember, 'delivered'> = deps.deliveries,
): Promise<DeliveryOutcome> => {
  const delivery = await deps.deliveries.get(deliveryId);
  if (!delivery) return 'unknown';
  if (delivery.status !== 'pending') return 'finished';
  const now = deps.clock.now();
  // Every message for this delivery is grouped by its subscription (core/delivery-lanes.ts).
  const routeIn = (to: DeliveryLane) => ({ lane: to, group: delivery.webhookId });
  const waitSeconds = Math.ceil((Date.parse(delivery.nextAttemptAt) - now.getTime()) / 1000);
  if (waitSeconds > 0) {
    await deps.queue.send(delivery.id, Math.min(waitSeconds, MAX_QUEUE_DELAY_SECONDS), routeIn(lane));
    return 'hop';
  }
  // The event is read beside the subscription (it never changes): a batch of deliveries reads
  // both for all of them in one call, and the receiver waits one round trip less than after the claim.
  const entryRead = deps.deliveries.auditEntry(delivery.orgId, delivery.eventSeq);
  entryRead.catch(() => undefined); // a failed read counts as the attempt's failure, below, once the attempt is ours
  const subscription = await deps.deliveries.subscription(delivery.orgId, delivery.webhookId);
  if (!subscription || !subscription.isActive) {
    await deps.deliveries.cancel(delivery);
    return 'cancelled';
  }
  if (delivery.attempts >= MAX_ATTEMPTS) {
    // A worker died after claiming the last attempt: it counts as failed.
    const failed = await deps.deliveries.failed(delivery, delivery.attempts, { status: delivery.lastStatus, error: delivery.lastError ?? 'no answer recorded' }, now.toISOString());
    return failed ? 'failed' : 'finished';
  }
  // A slow subscription's delivery, or one moved to the slow lane before (its attempt is given back
  // once only, so a receiver never gets more than eight attempts' worth of POSTs plus one).
  if (lane === 'fast' && (subscription.slowSince || delivery.movedToSlowLane)) {
    await deps.queue.send(delivery.id, 0, routeIn('slow'));
    return 'to_slow_lane';
  }

  // Opened before the attempt is claimed: if KMS cannot open them now, the message is redelivered
  // (and reaches the DLQ and its alarm if that lasts) without using up one of the receiver's attempts.
  let secrets = await openValidSecrets(deps.sealer, subscription, now);

  const attempt = delivery.attempts + 1;
  const retryDelay = RETRY_DELAYS_SECONDS[attempt - 1] ?? LAST_ATTEMPT_LEASE_SECONDS;
  const retryAt = new Date(now.getTime() + retryDelay * 1000).toISOString();
  if (!(await deps.deliveries.claim(delivery, now.toISOString(), retryAt))) return 'busy';
  // Read again once the attempt is ours: a delete or a rotation that answered while the secrets were
  // opened and the attempt claimed must hold for this POST (no delivery to a subscription already
  // deleted; none signed without the secret a rotation just showed).
  const current = await deps.deliveries.subscription(delivery.orgId, delivery.webhookId);
  if (!current || !current.isActive) {
    await deps.deliveries.cancel(delivery);
    return 'cancelled';
  }
  if (!isDeepStrictEqual(current.secrets, subscription.secrets)) secrets = await openValidSecrets(deps.sealer, current, now);

  let outcome: { status: number | null; error: string };
  let timedOut = false;
  const startedAt = Date.now();
  try {
    const entry = await entryRead;
    if (!entry) throw new Error('the event is missing');
    const body = JSON.stringify(toEventObject(entry));
    const response = await deps.http.post({
      url: subscription.url,
      headers: webhookHeaders(delivery, secrets, body, now),
      body,
      timeoutMs: lane === 'fast' ? FAST_LANE_BUDGET_MS : WEBHOOK_TIMEOUT_MS,
    });
    outcome = { status: response.status, error: `HTTP ${response.status}` };
  } catch (error) {
    timedOut = error instanceof WebhookTimedOut;
    outcome = { status: null, error: describeFailure(error) };
  }
  // Only an answer from the receiver says it is quick again (a failure of our own says nothing).
  const answeredQuickly = outcome.status !== null && Date.now() - startedAt < FAST_ANSWER_MS;

  const doneAt = deps.clock.now().toISOString();
  const claimed = { ...delivery, attempts: attempt };
  if (lane === 'fast' && timedOut) {
    if (!(await deps.deliveries.toSlowLane(claimed, doneAt))) return 'busy';
    await deps.queue.send(delivery.id, 0, routeIn('slow'));
    deps.logger.info('webhook receiver slow; moved to the slow lane', { deliveryId: delivery.id, webhookId: delivery.webhookId });
    return 'to_slow_lane';
  }
  if (outcome.status !== null && outcome.status >= 200 && outcome.status < 300) {
    await outcomes.delivered(claimed, outcome.status, doneAt, answeredQuickly);
    deps.logger.info('webhook delivered', { deliveryId: delivery.id, webhookId: delivery.webhookId, attempt, status: outcome.status });
    return 'delivered';
  }
  // Recorded after the outcome, and never at its expense: the lane is advice, the outcome is not.
  const backToFastLane = async () => {
    if (answeredQuickly && subscription.slowSince) await deps.deliveries.answeredQuickly(delivery.orgId, delivery.webhookId).catch(() => undefined);
  };
  if (attempt >= MAX_ATTEMPTS) {
    await deps.deliveries.failed(claimed, attempt, outcome, doneAt);
    await backToFastLane();
    deps.logger.warn('webhook delivery failed for good', { deliveryId: delivery.id, webhookId: delivery.webhookId, attempt, status: outcome.status });
    return 'failed';
  }
  await deps.deliveries.retrying(claimed, outcome, doneAt);
  await backToFastLane();
  const retryLane = answeredQuickly && !delivery.movedToSlowLane ? 'fast' : lane;
  // The delay runs from the attempt's start, as its claim recorded (retryAt), not from its end: an
  // attempt that waited out the receiver's timeout does not push every later one back by it.
  const untilRetry = Math.max(0, Math.ceil((Date.parse(retryAt) - Date.parse(doneAt)) / 1000));
  await deps.queue.send(delivery.id, Math.min(untilRetry, MAX_QUEUE_DELAY_SECONDS), routeIn(retryLane));
  deps.logger.info('webhook attempt failed; retry scheduled', { deliveryId: delivery.id, attempt, status: outcome.status, retryAt });
  return 'retry';
};

/** The message's delivery id and lane (messages from before lanes name none: the fast lane). */
const parseMessage = (body: string): { deliveryId: string; lane: DeliveryLane } | null => {
  try {
    const parsed = JSON.parse(body) as { deliveryId?: unknown; lane?: unknown };
    if (typeof parsed?.deliveryId !== 'string' || !/^[0-9a-z]{26}$/.test(parsed.deliveryId)) return null;
    return { deliveryId: parsed.deliveryId, lane: parsed.lane === 'slow' ? 'slow' : 'fast' };
  } catch {
    return null;
  }
};

/**
 * The delivery worker, fed by the delivery queue (SQS deployed, the timer queue locally), a batch
 * of messages at a time. Every record is handled, all at once: the deliveries' reads that start
 * together go as one BatchGetItem (each delivery, then the subscriptions and the events), each
 * delivery then claims its attempt and posts, and the batch's 2xx outcomes are written in one
 * transaction (delivered-batch.ts): a batch of ten costs about thirteen table calls. A record
 * whose handling threw (storage or queue trouble) is reported as a batch item failure so SQS
 * redelivers it alone. A malformed message is logged and dropped.
 */
export const createHandler = (deps: DeliverDeps) => {
  const handle = async (event: SQSEvent): Promise<SQSBatchResponse> => {
    const batchItemFailures: SQSBatchResponse['batchItemFailures'] = [];
    const messages = (event.Records ?? []).flatMap((record) => {
      const message = parseMessage(record.body);
      if (!message) deps.logger.error('delivery message without a delivery id; dropped', { messageId: record.messageId });
      return message ? [{ record, ...message }] : [];
    });
    const batch = new DeliveredBatch(deps.deliveries, messages.length);
    await Promise.all(
      messages.map(async ({ record, deliveryId, lane }) => {
        const member = batch.member();
        try {
          await deliverOne(deps, deliveryId, lane, member);
        } catch (error) {
          deps.logger.error('delivery failed to run; SQS will redeliver', { deliveryId, errorName: (error as Error)?.name });
          batchItemFailures.push({ itemIdentifier: record.messageId });
        } finally {
          member.done();
        }
      }),
    );
    return { batchItemFailures };
  };
  const reads = deps.readBatching;
  return (event: SQSEvent) => (reads ? reads.scope(() => handle(event)) : handle(event));
};

let built: ReturnType<typeof createHandler> | undefined;
/** The deployed handler, wired on first use. */
export const handler = (event: SQSEvent) => (built ??= createHandler(webhookWiring(kmsSealing())))(event);
