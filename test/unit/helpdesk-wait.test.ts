/**
 * A helpdesk's Retry-After holds for every call to it through the integration, not only the call
 * that met it: a check of another ticket, queued by a new status or made by the reconciliation
 * meanwhile, does not call the helpdesk before then, and is queued again for when it may; a post
 * of a request's link it refused holds the reads too, and a post during a wait is not sent.
 */
import { describe, expect, it } from 'vitest';
import { HelpdeskCallFailed } from '../../lambdas/core/helpdesk.ts';
import type { Integration } from '../../lambdas/core/integration.ts';
import type { TicketCheck } from '../../lambdas/core/ticket-check.ts';
import { runTicketCheck } from '../../lambdas/core/use-cases/tickets/verify-ticket.ts';
import { replyInTicket } from '../../lambdas/core/use-cases/reply-in-ticket.ts';
import { makeOrg, makeRequest } from './support/fakes.ts';

const ORG = '01horg0000000000000000wait';
const INTEGRATION = '01hintegration0000000000wt';

/**
 * The use cases' dependencies around one Zendesk integration with a submitted request on every
 * ticket: a clock at `now()`, a kept wait, and the helpdesk adapter the test gives.
 */
const depsAround = (now: () => number, adapter: object, options: { onActivity?: (reason: string) => void; onQueued?: (check: TicketCheck, delay: number) => void } = {}) => {
  let waitUntil: string | null = null;
  return {
    waitUntil: () => waitUntil,
    deps: {
      clock: { now: () => new Date(now()) },
      integrations: {
        get: async () => ({ id: INTEGRATION, orgId: ORG, name: 'Zendesk', clientId: null, helpdesk: { adapter: 'zendesk' } }) as unknown as Integration,
        recordActivity: async (_id: string, entry: { reason: string }) => void options.onActivity?.(entry.reason),
      },
      helpdeskWaits: {
        until: async (_id: string, at: Date) => (waitUntil && Date.parse(waitUntil) > at.getTime() ? waitUntil : null),
        hold: async (_id: string, until: string) => void (waitUntil = until),
      },
      directory: { getOrganisation: async () => makeOrg({ id: ORG }) },
      requests: {
        findByTicket: async (_org: string, externalId: string) => [makeRequest({ orgId: ORG, status: 'submitted', ticket: { ref: null, url: null, externalId, integrationId: INTEGRATION, status: null } as never })],
      },
      helpdesks: { adapterFor: async () => adapter },
      ticketChecks: { enqueue: async (check: TicketCheck, delay: number) => void options.onQueued?.(check, delay) },
    } as never,
  };
};

describe('the helpdesk\u2019s Retry-After', () => {
  it('keeps every read of the integration\u2019s tickets away from the helpdesk until it has passed', async () => {
    let now = Date.parse('2026-11-27T10:00:00Z');
    const reads: string[] = [];
    const queued: Array<[string, number]> = [];
    const adapter = {
      readTicket: async (externalId: string) => {
        reads.push(externalId);
        throw new HelpdeskCallFailed('rate_limited', 'Zendesk ShowTicket', { status: 429, retryAfterSeconds: 120 });
      },
    };
    const { deps, waitUntil } = depsAround(() => now, adapter, { onQueued: (check, delay) => void queued.push([check.externalId, delay]) });
    const check = (externalId: string): TicketCheck => ({ orgId: ORG, integrationId: INTEGRATION, externalId, attempt: 0 });

    expect(await runTicketCheck(deps, check('100'))).toMatchObject({ kind: 'failed', reason: 'rate_limited' });
    expect(reads).toEqual(['100']);
    expect(waitUntil()).toBe('2026-11-27T10:02:00.000Z');

    now += 30_000;
    expect(await runTicketCheck(deps, check('200'))).toEqual({ kind: 'failed', reason: 'rate_limited', retryAfterSeconds: 90, held: true });
    expect(reads).toEqual(['100']);
    expect(queued).toEqual([
      ['100', 120],
      ['200', 90],
    ]);

    now += 90_000;
    await runTicketCheck(deps, check('200'));
    expect(reads).toEqual(['100', '200']);
  });

  it('holds a check that already failed twice for the rest of the wait only, as the same attempt (no read was made)', async () => {
    let now = Date.parse('2026-11-27T10:00:00Z');
    const queued: TicketCheck[] = [];
    const delays: number[] = [];
    const adapter = {
      readTicket: async () => {
        throw new HelpdeskCallFailed('rate_limited', 'Zendesk ShowTicket', { status: 429, retryAfterSeconds: 7 });
      },
    };
    const { deps } = depsAround(() => now, adapter, { onQueued: (check, delay) => void (queued.push(check), delays.push(delay)) });
    await runTicketCheck(deps, { orgId: ORG, integrationId: INTEGRATION, externalId: '100', attempt: 0 });
    now += 2_000;
    // Another ticket's check, two reads of it failed before (a 401 each): held, not failed a third time.
    expect(await runTicketCheck(deps, { orgId: ORG, integrationId: INTEGRATION, externalId: '8420', attempt: 2 })).toMatchObject({ held: true, retryAfterSeconds: 5 });
    expect(queued[1]).toEqual({ orgId: ORG, integrationId: INTEGRATION, externalId: '8420', attempt: 2 });
    expect(delays[1]).toBe(5);
  });

  it('is kept by a post of the link the helpdesk refused, and keeps later posts and reads from it until it has passed', async () => {
    let now = Date.parse('2026-11-27T10:00:00Z');
    const calls: string[] = [];
    const activity: string[] = [];
    const adapter = {
      replyPublicly: async (externalId: string) => {
        calls.push(`reply ${externalId}`);
        // ServiceNow's rate-limit answer asks for an hour; longer than a post waits, so it fails at once.
        throw new HelpdeskCallFailed('rate_limited', 'Zendesk UpdateTicket', { status: 429, retryAfterSeconds: 3600 });
      },
      readTicket: async (externalId: string) => {
        calls.push(`read ${externalId}`);
        // Made, which is what this test asks; what it answers is the verified-close tests' business.
        throw new HelpdeskCallFailed('unavailable', 'Zendesk ShowTicket', { status: 500 });
      },
    };
    const { deps, waitUntil } = depsAround(() => now, adapter, { onActivity: (reason) => void activity.push(reason) });
    const reply = (externalId: string) => replyInTicket(deps, { orgId: ORG, integrationId: INTEGRATION, externalId, text: 'Your link' });

    expect(await reply('100')).toMatchObject({ status: 'failed', failure: 'rate_limited', attempts: 1 });
    expect(waitUntil()).toBe('2026-11-27T11:00:00.000Z');

    now += 60_000;
    expect(await reply('200')).toEqual({
      status: 'failed',
      failure: 'rate_limited',
      attempts: 0,
      reason: 'the helpdesk asked not to be called before 2026-11-27T11:00:00.000Z (its Retry-After), so nothing was sent.',
    });
    expect(await runTicketCheck(deps, { orgId: ORG, integrationId: INTEGRATION, externalId: '300', attempt: 0 })).toMatchObject({ kind: 'failed', reason: 'rate_limited', retryAfterSeconds: 3540 });
    expect(calls).toEqual(['reply 100']);
    expect(activity).toHaveLength(2);
    expect(activity[1]).toMatch(/^Posting the request link in the ticket failed: the helpdesk asked not to be called before/);
    expect(activity[1]).toMatch(/\. The caller has the link in the creation answer; a trigger emails it to the requester\.$/);

    now += 3_540_000;
    await runTicketCheck(deps, { orgId: ORG, integrationId: INTEGRATION, externalId: '300', attempt: 0 });
    expect(calls).toEqual(['reply 100', 'read 300']);
  });
});
