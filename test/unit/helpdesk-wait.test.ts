/**
 * A helpdesk's Retry-After holds for every read of the integration's tickets, not only the read
 * that met it: a check of another ticket, queued by a new status or made by the reconciliation
 * meanwhile, does not call the helpdesk before then, and is queued again for when it may.
 */
import { describe, expect, it } from 'vitest';
import { HelpdeskCallFailed } from '../../lambdas/core/helpdesk.ts';
import type { Integration } from '../../lambdas/core/integration.ts';
import type { TicketCheck } from '../../lambdas/core/ticket-check.ts';
import { runTicketCheck } from '../../lambdas/core/use-cases/tickets/verify-ticket.ts';
import { makeOrg, makeRequest } from './support/fakes.ts';

const ORG = '01horg0000000000000000wait';
const INTEGRATION = '01hintegration0000000000wt';

describe('the helpdesk\u2019s Retry-After', () => {
  it('keeps every read of the integration\u2019s tickets away from the helpdesk until it has passed', async () => {
    let now = Date.parse('2026-11-27T10:00:00Z');
    let waitUntil: string | null = null;
    const reads: string[] = [];
    const queued: Array<[string, number]> = [];
    const deps = {
      clock: { now: () => new Date(now) },
      integrations: {
        get: async () => ({ id: INTEGRATION, orgId: ORG, name: 'Zendesk', clientId: null, helpdesk: { adapter: 'zendesk' } }) as unknown as Integration,
        recordActivity: async () => undefined,
      },
      helpdeskWaits: {
        until: async (_id: string, at: Date) => (waitUntil && Date.parse(waitUntil) > at.getTime() ? waitUntil : null),
        hold: async (_id: string, until: string) => void (waitUntil = until),
      },
      directory: { getOrganisation: async () => makeOrg({ id: ORG }) },
      requests: {
        findByTicket: async (_org: string, externalId: string) => [makeRequest({ orgId: ORG, status: 'submitted', ticket: { ref: null, url: null, externalId, integrationId: INTEGRATION, status: null } as never })],
      },
      helpdesks: {
        adapterFor: async () => ({
          readTicket: async (externalId: string) => {
            reads.push(externalId);
            throw new HelpdeskCallFailed('rate_limited', 'Zendesk ShowTicket', { status: 429, retryAfterSeconds: 120 });
          },
        }),
      },
      ticketChecks: { enqueue: async (check: TicketCheck, delay: number) => void queued.push([check.externalId, delay]) },
    };
    const check = (externalId: string): TicketCheck => ({ orgId: ORG, integrationId: INTEGRATION, externalId, attempt: 0 });

    expect(await runTicketCheck(deps as never, check('100'))).toMatchObject({ kind: 'failed', reason: 'rate_limited' });
    expect(reads).toEqual(['100']);
    expect(waitUntil).toBe('2026-11-27T10:02:00.000Z');

    now += 30_000;
    expect(await runTicketCheck(deps as never, check('200'))).toEqual({ kind: 'failed', reason: 'rate_limited', retryAfterSeconds: 90 });
    expect(reads).toEqual(['100']);
    expect(queued).toEqual([
      ['100', 120],
      ['200', 90],
    ]);

    now += 90_000;
    await runTicketCheck(deps as never, check('200'));
    expect(reads).toEqual(['100', '200']);
  });
});
