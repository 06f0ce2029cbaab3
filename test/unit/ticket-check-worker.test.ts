/**
 * The helpdesk worker's dispatch (lambdas/workers/ticket-check.ts): SQS records of ticket checks
 * (one waiting past SQS's largest delay queued again for the rest, an unreadable one dropped, one
 * whose table work fails reported for redelivery) and the direct reply invocation, answered with
 * its result.
 */
import type { SQSEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import type { TicketCheck } from '../../lambdas/core/ticket-check.ts';
import { createHandler } from '../../lambdas/workers/ticket-check.ts';

const NOW = Date.parse('2026-11-26T10:00:00Z');
const CHECK = { orgId: '01horg0000000000000000001a', integrationId: '01hintegration000000000001', externalId: '35436', attempt: 0 };

const worker = (overrides: { findByTicket?: () => Promise<never> } = {}) => {
  const queued: Array<{ check: TicketCheck; delaySeconds: number }> = [];
  const logged: string[] = [];
  const integration = { id: CHECK.integrationId, orgId: CHECK.orgId, version: 1, helpdesk: { adapter: 'zendesk' } };
  const handler = createHandler({
    clock: { now: () => new Date(NOW) },
    logger: { info: (message: string) => void logged.push(message), error: (message: string) => void logged.push(message) },
    ticketChecks: { enqueue: async (check: TicketCheck, delaySeconds: number) => void queued.push({ check, delaySeconds }) },
    integrations: { get: async () => integration as never, recordActivity: async () => undefined },
    directory: { getOrganisation: async () => ({ id: CHECK.orgId }) as never },
    helpdesks: { adapterFor: async () => null },
    requests: { findByTicket: overrides.findByTicket ?? (async () => []), get: async () => null, update: async () => undefined as never },
    urls: { baseUrl: 'https://h.example/v1', appUrl: 'https://h.example' },
  } as never);
  return { handler, queued, logged };
};

const records = (...bodies: string[]): SQSEvent => ({ Records: bodies.map((body, i) => ({ messageId: `m${i + 1}`, body }) as never) });

describe('the ticket-check worker', () => {
  it('runs a due check (no live request linked: the helpdesk is not called) and reports no failure', async () => {
    const { handler, queued, logged } = worker();
    expect(await handler(records(JSON.stringify({ ...CHECK, notBefore: NOW - 1 })))).toEqual({ batchItemFailures: [] });
    expect(queued).toEqual([]);
    expect(logged).toEqual(['ticket check']);
  });

  it("queues a check whose Retry-After outlasts SQS's delay again for the rest, without reading", async () => {
    const { handler, queued } = worker({ findByTicket: async () => expect.fail('read too early') });
    expect(await handler(records(JSON.stringify({ ...CHECK, notBefore: NOW + 1_800_000 })))).toEqual({ batchItemFailures: [] });
    expect(queued).toEqual([{ check: CHECK, delaySeconds: 1_800 }]);
  });

  it('drops an unreadable message (logged) and reports a check whose table work failed, for SQS to hand over again', async () => {
    const { handler, logged } = worker({ findByTicket: async () => Promise.reject(new Error('table down')) });
    const answer = await handler(records('not json', JSON.stringify({ orgId: 1 }), JSON.stringify(CHECK)));
    expect(answer).toEqual({ batchItemFailures: [{ itemIdentifier: 'm3' }] });
    expect(logged).toEqual(['ticket check message unreadable; dropped', 'ticket check message unreadable; dropped', 'ticket check failed']);
  });

  it('answers a direct reply invocation with its result (here: the helpdesk connection cannot be opened)', async () => {
    const { handler, logged } = worker();
    const result = await handler({ replyInTicket: { orgId: CHECK.orgId, integrationId: CHECK.integrationId, externalId: '35436', text: 'link' } });
    expect(result).toEqual({ status: 'failed', reason: 'The integration is not connected to its helpdesk.', failure: 'not_connected', attempts: 0 });
    expect(logged).toEqual(['ticket reply']);
  });
});
