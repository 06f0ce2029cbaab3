/**
 * The inbound ticket webhook on a DynamoDB Local and service of its own: posts per second and
 * p50/p99 of an integration's webhook URL (a status for a ticket no request quotes, the common
 * case, and one that records the status on a live request), beside raw DynamoDB Local calls of
 * the same run; then the time from a closing post to the credential's destruction, with no
 * grace period (the purge happens inside the post, so the answer is the destruction).
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { newId } from '../lambdas/core/ids.ts';
import { OPERATOR_ACTOR } from '../lambdas/core/model.ts';
import { toRequestView } from '../lambdas/core/request-view.ts';
import { submit } from '../lambdas/core/subject-flow.ts';
import { configureIntegration, connectIntegration } from '../lambdas/core/use-cases/integrations/manage-integration.ts';
import { newIdentityPublicKey } from '../lambdas/local/demo-identity.ts';
import { startLocalService } from '../lambdas/local/local-service.ts';
import { keys } from '../lambdas/store/keys.ts';
import { createClient } from './http-client.ts';
import { rawAuditedWrite } from './raw-calls.ts';
import { formatMs, latency, measure, percentile, type Measurement } from './stats.ts';

export interface InboundResult {
  unknownTicket: Measurement;
  recordedStatus: Measurement;
  rawGet: Measurement;
  rawTransact: Measurement;
  closeToPurge: { requests: number; p50: number; p99: number; max: number; destroyed: number };
}

export const measureInbound = async (options: { dynamoEndpoint: string; iterations: number; total: number; concurrency: number; purges: number }): Promise<InboundResult> => {
  const service = await startLocalService({ dynamoEndpoint: options.dynamoEndpoint, tableName: 'bench-inbound', announce: () => undefined, webhooks: false, timers: false });
  try {
    const { admin, deps } = service;
    const org = await admin.createOrganisation({ name: 'Bench Inbound Org', plan: 'team' });
    await admin.setRateLimits(org.id, { perKeyPerMinute: 10_000_000, perOrgPerMinute: 10_000_000 });
    await admin.setPolicy(org.id, { ticket: { trustUnverifiedWebhooks: true, gracePeriodMinutes: 0 } as never });
    const owner = await admin.addMember({ orgId: org.id, name: 'Bench Owner', email: 'owner@inbound.example', role: 'owner', identityKey: newIdentityPublicKey() });
    const { secret } = await admin.createApiKey({ orgId: org.id, name: 'bench', scopes: ['requests:write', 'requests:read'] });
    const connected = await connectIntegration(deps, OPERATOR_ACTOR, { orgId: org.id, name: 'Bench helpdesk' });
    // The bench posts faster than a helpdesk would: the integration's limit is raised, not skipped.
    await configureIntegration(deps, OPERATOR_ACTOR, org.id, connected.integration.id, { rateLimitPerMinute: 10_000 });
    const webhookPath = new URL(connected.webhook_url).pathname;
    const inbound = createClient(service.appUrl, 'not-used');
    const api = createClient(service.baseUrl, secret);

    const createRequest = async (ticketRef: string) =>
      JSON.parse((await api.call('POST', '/requests', { subject_name: 'Bench Subject', justification: 'Benchmarking the inbound path', recipients: [owner.email], ticket_ref: ticketRef })).body).request.id as string;
    const liveTicket = `LIVE-${newId()}`;
    await createRequest(liveTicket);

    const perMinute = { ...options, iterations: Math.min(options.iterations, 1000), total: Math.min(options.total, 2000) };
    // Each measurement stays under the integration's 10,000 posts a minute (the limiter is real).
    const unknownTicket = await measure('POST webhook URL, unknown ticket', () => inbound.call('POST', webhookPath, { ticket_id: `NONE-${newId()}`, status: 'closed' }), perMinute);
    await waitForNextMinute();
    const recordedStatus = await measure('POST webhook URL, status recorded', () => inbound.call('POST', webhookPath, { ticket_id: liveTicket, status: 'pending' }), perMinute);
    const { db, tableName } = deps;
    const rawGet = await measure('raw GetItem', () => db.send(new GetCommand({ TableName: tableName, Key: keys.inboundSecret('0'.repeat(64)) })), perMinute);
    const rawTransact = await measure('raw TransactWriteItems (3)', () => rawAuditedWrite(db, tableName, { kind: 'bench' }, 2), perMinute);

    // Close-to-purge: submitted requests, each closed by its own post; timed from sending the post
    // to its answer, and each request is then read back to check it was completed and its material gone.
    await waitForNextMinute();
    const samples: number[] = [];
    let destroyed = 0;
    for (let i = 0; i < options.purges; i++) {
      const ticket = `PURGE-${newId()}`;
      const id = await createRequest(ticket);
      const before = (await deps.requests.get(id))!;
      const after = submit(before, deps.clock.now(), 0);
      const actor = { type: 'subject' as const, label: 'Bench Subject' };
      await deps.requests.submit(before, after, { envelope: { v: 1, ciphertext: 'YmVuY2g' }, attachments: [] }, {
        orgId: org.id, type: 'request.submitted', actor, clientId: after.client.id, requestId: id, data: { request: toRequestView(after, deps.urls), actor, details: {} },
      });
      const { p50 } = await latency(() => inbound.call('POST', webhookPath, { ticket_id: ticket, status: 'closed' }), 1);
      samples.push(p50);
      const ended = await deps.requests.get(id);
      if (ended?.status === 'completed' && ended.purgeReason === 'ticket_closed' && !(await deps.requests.material(id))) destroyed += 1;
    }
    samples.sort((a, b) => a - b);
    inbound.close();
    api.close();
    return {
      unknownTicket,
      recordedStatus,
      rawGet,
      rawTransact,
      closeToPurge: { requests: options.purges, p50: percentile(samples, 50), p99: percentile(samples, 99), max: samples.at(-1) ?? NaN, destroyed },
    };
  } finally {
    await service.stop();
  }
};

/** The integration limit counts fixed one-minute windows: start the next measurement in a fresh one. */
const waitForNextMinute = () => new Promise((resolve) => setTimeout(resolve, 60_000 - (Date.now() % 60_000) + 50));

export const inboundReport = (result: InboundResult): string[] => {
  const row = (m: Measurement, raw: Measurement) =>
    `${m.name.padEnd(34)} p50 ${formatMs(m.p50).padStart(9)}  p99 ${formatMs(m.p99).padStart(9)}  ${m.throughput.toFixed(0).padStart(5)} posts/s   beside ${raw.name}: p50 ${formatMs(raw.p50)}, p99 ${formatMs(raw.p99)}, ${raw.throughput.toFixed(0)}/s (p50 ratio ${(m.p50 / raw.p50).toFixed(2)}x)`;
  const purge = result.closeToPurge;
  return [
    '\nInbound ticket webhook (one integration, over HTTP on loopback, its rate limit counted):',
    row(result.unknownTicket, result.rawGet),
    row(result.recordedStatus, result.rawTransact),
    `Closing post → credential destroyed (no grace period), ${purge.requests} submitted requests one at a time: p50 ${formatMs(purge.p50)}, p99 ${formatMs(purge.p99)}, max ${formatMs(purge.max)}; ${purge.destroyed} of ${purge.requests} completed with their material gone.`,
  ];
};
