/**
 * A verified close end to end beside an unverified one, on a DynamoDB Local and service of their
 * own, with a fake Zendesk on loopback: for each closing POST /v1/tickets/{ref}/status, the time
 * from sending it to the credential's destruction, and the table calls and helpdesk calls it took.
 *
 * - unverified: a ticket only quoted by the request, the organisation trusting unverified statuses
 *   (the post itself destroys);
 * - verified: a ticket linked through an integration connected to the fake Zendesk (the post
 *   queues a check; the check reads the ticket and destroys). The check runs in this process as
 *   soon as it is queued, as the local timer queue and the deployed SQS worker run it.
 */
import { OPERATOR_ACTOR } from '../lambdas/core/model.ts';
import { newId } from '../lambdas/core/ids.ts';
import { toRequestView } from '../lambdas/core/request-view.ts';
import { submit } from '../lambdas/core/subject-flow.ts';
import type { TicketCheck, TicketCheckQueue } from '../lambdas/core/ticket-check.ts';
import { connectHelpdesk } from '../lambdas/core/use-cases/integrations/connect-helpdesk.ts';
import { connectIntegration } from '../lambdas/core/use-cases/integrations/manage-integration.ts';
import { newIdentityPublicKey } from '../lambdas/local/demo-identity.ts';
import { startLocalService, type LocalService } from '../lambdas/local/local-service.ts';
import { startFakeZendesk } from '../test/support/fake-zendesk.ts';
import { createClient } from './http-client.ts';
import { formatMs, percentile } from './stats.ts';

export interface CloseFigures {
  closes: number;
  p50: number;
  p99: number;
  /** Table calls per close, every function's (the API function's and the check worker's). */
  tableCalls: number;
  helpdeskCalls: number;
  destroyed: number;
}

export interface HelpdeskCloseResult {
  unverified: CloseFigures;
  verified: CloseFigures;
}

/**
 * Holds each queued check until the bench asks for it: `done(externalId)` runs that ticket's check
 * then, from the bench's own flow (as a queue's consumer would, after the post has answered), as
 * the ticket-check worker with its table rights, never inside the function that queued it.
 */
const inProcessChecks = () => {
  const queued = new Map<string, TicketCheck>();
  let run: ((ticket: TicketCheck) => Promise<unknown>) | null = null;
  const queue: TicketCheckQueue = {
    enqueue: async (ticket: TicketCheck) => {
      queued.set(ticket.externalId, ticket);
    },
  };
  const done = async (externalId: string) => {
    const ticket = queued.get(externalId);
    queued.delete(externalId);
    if (ticket) await run!(ticket);
  };
  return { queue, attach: (service: LocalService) => (run = (ticket) => service.runTicketCheck(ticket)), done };
};

export const measureHelpdeskClose = async (options: { dynamoEndpoint: string; closes: number; tableName?: string }): Promise<HelpdeskCloseResult> => {
  const checks = inProcessChecks();
  let tableCalls = 0;
  const zendesk = await startFakeZendesk({ clientId: 'bench', clientSecret: 'bench-secret-0123456789abcdef', now: () => Date.now() });
  const service = await startLocalService({
    dynamoEndpoint: options.dynamoEndpoint,
    tableName: options.tableName ?? 'bench-helpdesk',
    announce: () => undefined,
    webhooks: false,
    timers: false,
    ticketChecks: checks.queue,
    allowLoopbackWebhooks: true,
    // The guard reports every call a function makes: the table calls per close.
    tableAccess: { onUse: () => void (tableCalls += 1) },
  });
  checks.attach(service);
  try {
    const { admin, deps } = service;
    const org = await admin.createOrganisation({ name: 'Bench Helpdesk Org', plan: 'team' });
    await admin.setRateLimits(org.id, { perKeyPerMinute: 10_000_000, perOrgPerMinute: 10_000_000 });
    await admin.setPolicy(org.id, { ticket: { trustUnverifiedWebhooks: true, gracePeriodMinutes: 0 } as never });
    const owner = await admin.addMember({ orgId: org.id, name: 'Bench Owner', email: 'owner@helpdesk.example', role: 'owner', identityKey: newIdentityPublicKey() });
    const { secret } = await admin.createApiKey({ orgId: org.id, name: 'bench', scopes: ['requests:write', 'requests:read', 'tickets:write'] });
    const integrationId = (await connectIntegration(deps, OPERATOR_ACTOR, { orgId: org.id, name: 'Bench Zendesk' })).integration.id;
    await connectHelpdesk(deps, OPERATOR_ACTOR, org.id, integrationId, { adapter: 'zendesk', url: zendesk.url, credentials: { client_id: 'bench', client_secret: 'bench-secret-0123456789abcdef' } });
    const api = createClient(service.baseUrl, secret);

    const submitted = async (link: Record<string, string>) => {
      const id = JSON.parse((await api.call('POST', '/requests', { subject_name: 'Bench Subject', justification: 'Benchmarking the verified close', recipients: [owner.email], ...link })).body).request.id as string;
      const before = (await deps.requests.get(id))!;
      const after = submit(before, deps.clock.now(), 0);
      const actor = { type: 'subject' as const, label: 'Bench Subject' };
      await deps.requests.submit(before, after, { envelope: { v: 1, ciphertext: 'YmVuY2g' }, attachments: [] }, {
        orgId: org.id, type: 'request.submitted', actor, clientId: after.client.id, requestId: id, data: { request: toRequestView(after, deps.urls), actor, details: {} },
      });
      return id;
    };

    const run = async (verified: boolean): Promise<CloseFigures> => {
      const samples: number[] = [];
      let calls = 0;
      let helpdeskCalls = 0;
      let destroyed = 0;
      for (let i = 0; i < options.closes; i++) {
        const ticket = verified ? String(100_000 + i) : `QUOTED-${newId()}`;
        if (verified) zendesk.setTicket(ticket, 'closed');
        const id = await submitted(verified ? { ticket_integration_id: integrationId, ticket_external_id: ticket } : { ticket_ref: ticket });
        const tableBefore = tableCalls;
        const helpdeskBefore = zendesk.history.length;
        const started = performance.now();
        await api.call('POST', `/tickets/${ticket}/status`, { status: 'closed' });
        if (verified) await checks.done(ticket);
        samples.push(performance.now() - started);
        calls += tableCalls - tableBefore;
        helpdeskCalls += zendesk.history.length - helpdeskBefore;
        const ended = await deps.requests.get(id);
        if (ended?.status === 'completed' && ended.purgeReason === 'ticket_closed' && !(await deps.requests.material(id))) destroyed += 1;
      }
      samples.sort((a, b) => a - b);
      return { closes: options.closes, p50: percentile(samples, 50), p99: percentile(samples, 99), tableCalls: calls / options.closes, helpdeskCalls: helpdeskCalls / options.closes, destroyed };
    };
    // The unverified first: the verified close's first read also fetches the OAuth token, once.
    const unverified = await run(false);
    const verified = await run(true);
    api.close();
    return { unverified, verified };
  } finally {
    await service.stop();
    await zendesk.close();
  }
};

export const helpdeskCloseReport = (result: HelpdeskCloseResult): string[] => {
  const row = (name: string, f: CloseFigures) =>
    `${name.padEnd(46)} p50 ${formatMs(f.p50).padStart(9)}  p99 ${formatMs(f.p99).padStart(9)}  table calls ${f.tableCalls.toFixed(1).padStart(5)}  helpdesk calls ${f.helpdeskCalls.toFixed(2)}  destroyed ${f.destroyed}/${f.closes}`;
  return [
    '\nClosing POST /v1/tickets/{ref}/status → credential destroyed, one at a time (the fake Zendesk on loopback):',
    row('unverified (quoted ticket, trusted statuses)', result.unverified),
    row('verified (linked ticket, read from the helpdesk)', result.verified),
    `A verified close costs ${(result.verified.p50 / result.unverified.p50).toFixed(2)}x the unverified one at p50, and ${(result.verified.tableCalls - result.unverified.tableCalls).toFixed(1)} more table calls.`,
  ];
};
