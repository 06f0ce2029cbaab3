import { describe, expect, it } from 'vitest';
import type { AuditEntry } from '../../lambdas/core/ports.ts';
import { keys } from '../../lambdas/store/keys.ts';
import { createHandler as createFanOut } from '../../lambdas/workers/fan-out.ts';
import { auditInsertRecord } from '../../lambdas/workers/stream-record.ts';
import { quietLogger, recordingQueue } from '../support/webhooks.ts';

/**
 * A test ping and a manual redelivery come with the one delivery written beside their entry
 * (workers/webhook-actions.ts): the fan-out only enqueues it, and must group it by its
 * subscription as every other delivery is, or the deployed fair queue would not weigh it with
 * that subscription's other deliveries.
 */

const ORG = '01horg0000000000000000000a';
const WEBHOOK = '01hwebhook0000000000000000';
const DELIVERY = '01hdelivery000000000000001';
const clock = { now: () => new Date('2026-01-01T00:00:00.000Z') };

const entryOf = (type: string, details: Record<string, unknown>) =>
  ({
    orgId: ORG,
    seq: 7,
    type,
    occurredAt: clock.now().toISOString(),
    clientId: null,
    requestId: null,
    actor: { type: 'system', label: 'operator' },
    data: { details, actor: { type: 'system', label: 'operator' } },
  }) as unknown as AuditEntry;

const fanOutOf = (entry: AuditEntry) => {
  const { sent, queue } = recordingQueue(clock);
  const stored = { ...keys.auditEntry(entry.orgId, entry.seq), kind: 'audit', ...entry };
  const fanOut = createFanOut({
    clock,
    logger: quietLogger,
    deliveries: { createAll: async () => ({ created: [], failed: [] }) },
    webhooks: {
      listForOrg: async () => {
        throw new Error('an entry with its own delivery reads no subscriptions');
      },
    },
    organisations: { getOrganisation: async () => ({ plan: 'team' }) as never },
    queue,
    auditItems: { get: async () => stored },
  });
  return { sent, run: () => fanOut({ Records: [auditInsertRecord(entry)] }) };
};

describe('fan-out of an entry with its own delivery', () => {
  it.each([
    ['ping', { webhook_id: WEBHOOK, delivery_id: DELIVERY }],
    ['webhook.redelivered', { webhook_id: WEBHOOK, event_id: 'evt_3', delivery_id: DELIVERY }],
  ])('enqueues a %s in its subscription’s group, in the fast lane', async (type, details) => {
    const { sent, run } = fanOutOf(entryOf(type, details));
    expect(await run()).toEqual({ batchItemFailures: [] });
    expect(sent).toEqual([expect.objectContaining({ deliveryId: DELIVERY, delaySeconds: 0, route: { lane: 'fast', group: WEBHOOK } })]);
  });
});
