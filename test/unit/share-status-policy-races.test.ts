/**
 * A status applied to a share is decided again each time the organisation's policy changed before
 * the share's write. A policy that keeps changing ends as contention (WriteConflict, answered 503
 * with Retry-After, so the sender retries), never as an unexplained 500.
 */
import { expect, it } from 'vitest';
import { WriteConflict } from '../../lambdas/core/errors.ts';
import type { Organisation } from '../../lambdas/core/model.ts';
import { DEFAULT_POLICY } from '../../lambdas/core/policy.ts';
import type { Share } from '../../lambdas/core/share.ts';
import type { ShareDeps } from '../../lambdas/core/use-cases/shares/share-ports.ts';
import { applyTicketStatusToShares, PolicyChanged } from '../../lambdas/core/use-cases/tickets/apply-share-ticket-status.ts';
import { MAX_STATUS_RACES } from '../../lambdas/core/use-cases/tickets/status-races.ts';

const at = '2026-11-28T10:00:00.000Z';
const share: Share = {
  id: 'share-1',
  orgId: 'org-1',
  status: 'active',
  label: null,
  ticketRef: 'INC-1',
  createdBy: { membershipId: 'm-1', name: null, email: null },
  sealedToFingerprint: 'f'.repeat(64),
  viewLimit: 1,
  views: 0,
  expiresAt: '2026-11-29T10:00:00.000Z',
  createdAt: at,
  lastViewedAt: null,
  endedAt: null,
  endReason: null,
  purgeScheduledAt: null,
  updatedAt: at,
  version: 1,
};

it('answers contention when the policy changes before every one of the share write attempts', async () => {
  const org = { id: 'org-1', policy: DEFAULT_POLICY, policyVersion: 0 } as unknown as Organisation;
  let writes = 0;
  const deps = {
    shares: {
      findByTicket: async () => [share],
      get: async () => share,
      update: async () => {
        writes += 1;
        throw new WriteConflict('condition failed');
      },
    },
  } as unknown as ShareDeps;
  const condition = {
    conditions: { policyVersion: 0 },
    onConflict: async () => {
      throw new PolicyChanged({ ...org, policyVersion: writes });
    },
  };
  const input = {
    org,
    ref: 'INC-1',
    status: 'pending' as const,
    verified: false,
    channel: { kind: 'integration' as const, name: 'Helpdesk', actor: { type: 'system' as const, label: 'Helpdesk' }, integrationId: 'int-1', integrationVersion: 1 },
    onlyIntegration: null,
    clientId: null,
  };

  const outcome = applyTicketStatusToShares(deps, input, false, condition as never);

  await expect(outcome).rejects.toBeInstanceOf(WriteConflict);
  await expect(outcome).rejects.toMatchObject({ cause: expect.any(PolicyChanged) });
  expect(writes).toBe(MAX_STATUS_RACES);
});
