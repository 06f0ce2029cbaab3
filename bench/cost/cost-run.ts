/**
 * The measured part of the cost table: on a metered local service (metered-service.ts), a few
 * handoffs to warm every path up, then `handoffs` complete handoffs one after another, each
 * with its two webhook deliveries (two subscriptions to request.completed), then `reads` reads of
 * one request through an API key. Each stretch is counted from zero and waited out to the end of
 * its background work (deliveries received, read records stored, no function running).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { newIdentityPublicKey } from '../../lambdas/local/demo-identity.ts';
import { startReceiver } from '../../test/support/receiver.ts';
import { runHandoff, type HandoffParties } from './handoff.ts';
import { signIn } from './member-session.ts';
import { startMeteredService, type MeteredService } from './metered-service.ts';
import type { WindowCounts } from './usage.ts';

const WARM_UP_HANDOFFS = 3;
const DELIVERIES_PER_HANDOFF = 2;
/** How long no function may run before the background work counts as done. */
const QUIET_MS = 1_500;
const SETTLE_TIMEOUT_MS = 120_000;

export interface CostRunResult {
  handoff: WindowCounts;
  read: WindowCounts;
  /** Single-item transactions whose priced units differ from DynamoDB Local's (should be none). */
  transactionMismatches: string[];
}

/** Waits until `done` holds and then no invocation happens for QUIET_MS. */
const settle = async (metered: MeteredService, done: () => boolean = () => true) => {
  const deadline = Date.now() + SETTLE_TIMEOUT_MS;
  let seen = -1;
  while (Date.now() < deadline) {
    const now = metered.invocationsSoFar();
    if (done() && now === seen) return;
    seen = done() ? now : -1;
    await sleep(QUIET_MS);
  }
  throw new Error('the background work of the cost run did not finish in time');
};

const setUp = async (metered: MeteredService, receiverUrl: string): Promise<HandoffParties> => {
  const { admin } = metered.service;
  const org = await admin.createOrganisation({ name: 'Cost Org', plan: 'team' });
  await admin.setRateLimits(org.id, { perKeyPerMinute: 10_000_000, perOrgPerMinute: 10_000_000 });
  const memberEmail = 'recipient@cost.example';
  await admin.addMember({ orgId: org.id, name: 'Cost Recipient', email: memberEmail, role: 'owner', identityKey: newIdentityPublicKey() });
  const { secret: apiKey } = await admin.createApiKey({ orgId: org.id, name: 'cost', scopes: ['requests:read', 'requests:write', 'events:read', 'webhooks:write'] });
  for (const path of ['/crm', '/chat']) {
    await metered.http.call('POST', '/v1/webhooks', { headers: { Authorization: `Bearer ${apiKey}` }, json: { url: `${receiverUrl}${path}`, events: ['request.completed'] } });
  }
  const member = await signIn(metered.http, metered.outboxDir, memberEmail);
  return { http: metered.http, apiKey, member, memberEmail };
};

export const runCostMeasurement = async (options: { dynamoEndpoint: string; handoffs: number; reads: number }): Promise<CostRunResult> => {
  const metered = await startMeteredService(options.dynamoEndpoint);
  const receiver = await startReceiver();
  const received = () => receiver.receipts.length;
  const receivedBytes = (from: number) =>
    receiver.receipts.slice(from).reduce((sum, receipt) => sum + Buffer.byteLength(receipt.body) + Object.entries(receipt.headers).reduce((bytes, [name, value]) => bytes + name.length + value.length + 4, 0), 0);
  try {
    const parties = await setUp(metered, receiver.url);
    let serial = 0;
    for (let i = 0; i < WARM_UP_HANDOFFS; i++) await runHandoff(parties, serial++);
    await settle(metered, () => received() >= serial * DELIVERIES_PER_HANDOFF);

    metered.reset();
    const receivedBefore = received();
    let lastRequest = '';
    for (let i = 0; i < options.handoffs; i++) lastRequest = await runHandoff(parties, serial++);
    await settle(metered, () => received() >= serial * DELIVERIES_PER_HANDOFF);
    const handoff = metered.counts(options.handoffs, receivedBytes(receivedBefore));

    metered.reset();
    for (let i = 0; i < options.reads; i++) await metered.http.call('GET', `/v1/requests/${lastRequest}`, { headers: { Authorization: `Bearer ${parties.apiKey}` } });
    await metered.service.apiReadsSettled();
    await settle(metered);
    const read = metered.counts(options.reads, 0);
    return { handoff, read, transactionMismatches: [...metered.transactionMismatches] };
  } finally {
    await receiver.close();
    await metered.stop();
  }
};
