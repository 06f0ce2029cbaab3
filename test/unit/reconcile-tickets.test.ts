/**
 * The reconciliation across integrations: one integration whose tickets cannot be read (its
 * sealed credentials refused, a table error) is listed in its own activity view and the run goes
 * on to the others, instead of failing every run on the same integration.
 */
import { describe, expect, it } from 'vitest';
import type { IntegrationActivity } from '../../lambdas/core/integration.ts';
import { reconcileTickets } from '../../lambdas/core/use-cases/tickets/reconcile-tickets.ts';
import { makeOrg } from './support/fakes.ts';

const ORG = '01horg0000000000000000001a';
const BROKEN = '01hintegration00000000000a';
const HEALTHY = '01hintegration00000000000b';

describe('reconcileTickets', () => {
  it("goes on past an integration whose tickets cannot be read, and lists the failure in that integration's activity view", async () => {
    const read: string[] = [];
    const activity: Array<[string, IntegrationActivity]> = [];
    const summary = await reconcileTickets({
      helpdeskLinks: {
        connectedIntegrations: async () => [
          { orgId: ORG, integrationId: BROKEN },
          { orgId: ORG, integrationId: HEALTHY },
        ],
        linkedTickets: async (_org: string, integrationId: string) => {
          if (integrationId === BROKEN) throw Object.assign(new Error('refused'), { name: 'AccessDeniedException' });
          read.push(integrationId);
          return ['35436'];
        },
      },
      integrations: { get: async () => null, recordActivity: async (id: string, entry: IntegrationActivity) => void activity.push([id, entry]) },
      directory: { getOrganisation: async () => makeOrg({ id: ORG }) },
      clock: { now: () => new Date('2026-11-26T10:00:00Z') },
    } as never);
    expect(read).toEqual([HEALTHY]);
    expect(summary).toEqual({ integrations: 2, read: 0, failed: 1, changed: 0 });
    expect(activity).toEqual([
      [BROKEN, { at: '2026-11-26T10:00:00.000Z', purpose: 'helpdesk', reason: "The reconciliation could not read this integration's tickets (AccessDeniedException); nothing was destroyed.", ticketId: null, statusWord: null }],
    ]);
  });
});
