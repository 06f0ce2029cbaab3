/**
 * The inbound ticket webhook on a DynamoDB Local and service of its own: posts per second and
 * p50/p99 of an integration's webhook URL (a status for a ticket no request quotes, the common
 * case, and one that records the status on a live request), each timed in turns with its raw
 * DynamoDB Local call, with the table calls per post; then the time from a closing post to the
 * credential's destruction, with no grace period (the purge happens inside the post, so the
 * answer is the destruction). Each measurement posts to an integration of its own: the limiter
 * counts every post, per integration, so none waits for a fresh window of another's.
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { newId } from '../lambdas/core/ids.ts';
import { MAX_INBOUND_RATE_LIMIT } from '../lambdas/core/integration.ts';
import { OPERATOR_ACTOR } from '../lambdas/core/model.ts';
import { toRequestView } from '../lambdas/core/request-view.ts';
import { submit } from '../lambdas/core/subject-flow.ts';
import { configureIntegration, connectIntegration } from '../lambdas/core/use-cases/integrations/manage-integration.ts';
import { newIdentityPublicKey } from '../lambdas/local/demo-identity.ts';
import { startLocalService } from '../lambdas/local/local-service.ts';
import { keys } from '../lambdas/store/keys.ts';
import { createClient } from './http-client.ts';
import { rawAuditedWrite } from './raw-calls.ts';
import { formatMs, latency, measurePair, percentile, type Measurement } from './stats.ts';
import { tableCallCounter } from './table-calls.ts';

/** Each post within this multiple of its raw call's p50 (the same run, timed in turns). */
export const INBOUND_RATIO_TARGET = 3;

export interface InboundResult {
  unknownTicket: Measurement;
  recordedStatus: Measurement;
  rawGet: Measurement;
  rawTransact: Measurement;
  /** Table calls per post (a batch or a transaction is one call), once the URL is known to the function. */
  calls: { unknownTicket: number; recordedStatus: number };
  closeToPurge: { requests: number; p50: number; p99: number; max: number; destroyed: number };
}

const INBOUND_FUNCTION = 'inboundTicketStatus';

export const measureInbound = async (options: { dynamoEndpoint: string; iterations: number; total: number; concurrency: number; purges: number }): Promise<InboundResult> => {
  const calls = tableCallCounter();
  const service = await startLocalService({ dynamoEndpoint: options.dynamoEndpoint, tableName: 'bench-inbound', announce: () => undefined, webhooks: false, timers: false, tableAccess: calls.tableAccess });
  try {
    const { admin, deps } = service;
    const org = await admin.createOrganisation({ name: 'Bench Inbound Org', plan: 'team' });
    await admin.setRateLimits(org.id, { perKeyPerMinute: 10_000_000, perOrgPerMinute: 10_000_000 });
    await admin.setPolicy(org.id, { ticket: { trustUnverifiedWebhooks: true, gracePeriodMinutes: 0 } as never });
    const owner = await admin.addMember({ orgId: org.id, name: 'Bench Owner', email: 'owner@inbound.example', role: 'owner', identityKey: newIdentityPublicKey() });
    const { secret } = await admin.createApiKey({ orgId: org.id, name: 'bench', scopes: ['requests:write', 'requests:read'] });
    const webhookPath = async (name: string) => {
      const connected = await connectIntegration(deps, OPERATOR_ACTOR, { orgId: org.id, name });
      // The bench posts faster than a helpdesk would: the integration's limit is raised, not skipped.
      await configureIntegration(deps, OPERATOR_ACTOR, org.id, connected.integration.id, { rateLimitPerMinute: MAX_INBOUND_RATE_LIMIT });
      return new URL(connected.webhook_url).pathname;
    };
    const inbound = createClient(service.appUrl, 'not-used');
    const api = createClient(service.baseUrl, secret);

    const createRequest = async (ticketRef: string) =>
      JSON.parse((await api.call('POST', '/requests', { subject_name: 'Bench Subject', justification: 'Benchmarking the inbound path', recipients: [owner.email], ticket_ref: ticketRef })).body).request.id as string;
    const liveTicket = `LIVE-${newId()}`;
    await createRequest(liveTicket);

    // Each measurement (warm-up and throughput included) stays under its integration's limit of posts a minute.
    const perMinute = { ...options, iterations: Math.min(options.iterations, 1000), total: Math.min(options.total, 2000) };
    const { db, tableName } = deps;
    const rawGet = { name: 'raw GetItem', call: () => db.send(new GetCommand({ TableName: tableName, Key: keys.inboundSecret('0'.repeat(64)) })) };
    const rawTransact = { name: 'raw TransactWriteItems (3)', call: () => rawAuditedWrite(db, tableName, { kind: 'bench' }, 2) };
    const unknownPath = await webhookPath('Bench helpdesk, unknown tickets');
    const unknownPost = () => inbound.call('POST', unknownPath, { ticket_id: `NONE-${newId()}`, status: 'closed' });
    const recordedPath = await webhookPath('Bench helpdesk, live ticket');
    const recordedPost = () => inbound.call('POST', recordedPath, { ticket_id: liveTicket, status: 'pending' });
    const [unknownTicket, rawGetMeasured] = await measurePair({ name: 'POST webhook URL, unknown ticket', call: unknownPost }, rawGet, perMinute);
    const [recordedStatus, rawTransactMeasured] = await measurePair({ name: 'POST webhook URL, status recorded', call: recordedPost }, rawTransact, {
      ...perMinute,
      iterations: Math.min(perMinute.iterations, 500),
      total: Math.min(perMinute.total, 1000),
    });
    const callsPerPost = async (post: () => Promise<unknown>) => {
      calls.reset();
      for (let i = 0; i < 20; i++) await post();
      return calls.of(INBOUND_FUNCTION) / 20;
    };
    const perPost = { unknownTicket: await callsPerPost(unknownPost), recordedStatus: await callsPerPost(recordedPost) };

    // Close-to-purge: submitted requests, each closed by its own post; timed from sending the post
    // to its answer, and each request is then read back to check it was completed and its material gone.
    const closingPath = await webhookPath('Bench helpdesk, closes');
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
      const { p50 } = await latency(() => inbound.call('POST', closingPath, { ticket_id: ticket, status: 'closed' }), 1);
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
      rawGet: rawGetMeasured,
      rawTransact: rawTransactMeasured,
      calls: perPost,
      closeToPurge: { requests: options.purges, p50: percentile(samples, 50), p99: percentile(samples, 99), max: samples.at(-1) ?? NaN, destroyed },
    };
  } finally {
    await service.stop();
  }
};

export const inboundReport = (result: InboundResult): string[] => {
  const row = (m: Measurement, raw: Measurement, calls: number) =>
    `${m.name.padEnd(34)} p50 ${formatMs(m.p50).padStart(9)}  p99 ${formatMs(m.p99).padStart(9)}  ${m.throughput.toFixed(0).padStart(5)} posts/s  ${calls.toFixed(1)} table calls   beside ${raw.name}: p50 ${formatMs(raw.p50)}, p99 ${formatMs(raw.p99)}, ${raw.throughput.toFixed(0)}/s (p50 ratio ${(m.p50 / raw.p50).toFixed(2)}x)`;
  const target = (label: string, m: Measurement, raw: Measurement) => {
    const ratio = m.p50 / raw.p50;
    return `Inbound webhook, ${label}: p50 is ${ratio.toFixed(2)}x ${raw.name.replace(/^raw /, 'the raw ')} p50 (target: within ${INBOUND_RATIO_TARGET}x) ${ratio <= INBOUND_RATIO_TARGET ? 'ok' : 'MISS'}.`;
  };
  const purge = result.closeToPurge;
  return [
    '\nInbound ticket webhook (over HTTP on loopback, its rate limit counted; each post timed in turns with its raw call):',
    row(result.unknownTicket, result.rawGet, result.calls.unknownTicket),
    row(result.recordedStatus, result.rawTransact, result.calls.recordedStatus),
    `Closing post → credential destroyed (no grace period), ${purge.requests} submitted requests one at a time: p50 ${formatMs(purge.p50)}, p99 ${formatMs(purge.p99)}, max ${formatMs(purge.max)}; ${purge.destroyed} of ${purge.requests} completed with their material gone.`,
    target('unknown ticket', result.unknownTicket, result.rawGet),
    target('status recorded', result.recordedStatus, result.rawTransact),
  ];
};
