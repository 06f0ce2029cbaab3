/**
 * The purge worker and the sweep as deployed: wired by their own `deployedDeps()` from the
 * function's environment (here pointed at the run's DynamoDB Local), not with the local runtime's
 * adapters. Both complete requests whose ticket's grace period has ended, and have no Scheduler
 * client or rights: the request's expiry schedule is left to fire once, so a purge must neither
 * fail to cancel it nor log a schedule failure (which would claim the sweep covers a gap that is
 * not there). Arming a schedule stays refused.
 */
import { afterAll, afterEach, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { rateTableNameOf } from '../../lambdas/store/table.ts';
import { expectCreationResult, materialItems, type RequestObject } from '../support/shapes.ts';
import { submitAsSubject } from '../support/submission.ts';
import { startTestService, type TestOrganisation, type TestService } from '../support/test-service.ts';
import { movableClock } from '../support/webhooks.ts';

const MINUTE = 60_000;
const GRACE_MINUTES = 30;

describe('the purge worker and the sweep, wired as deployed', () => {
  // The closes happen two hours ago, so their purges are due by the deployed workers' real clock.
  const clock = movableClock();
  let service: TestService;
  let org: TestOrganisation;
  let ticketsKey: string;
  const savedEnv = { ...process.env };

  beforeAll(async () => {
    clock.set(Date.now() - 120 * MINUTE);
    service = await startTestService({ clock });
    org = await service.createOrganisation({ name: 'Deployed Purge Org' });
    ticketsKey = await service.createKey(org.orgId, { scopes: ['tickets:write'], name: 'Helpdesk sync' });
    await service.admin.setPolicy(org.orgId, { ticket: { trustUnverifiedWebhooks: true, gracePeriodMinutes: GRACE_MINUTES } as never });
    Object.assign(process.env, {
      TABLE_NAME: service.deps.tableName,
      RATE_TABLE_NAME: rateTableNameOf(service.deps.tableName),
      BASE_URL: service.deps.urls.baseUrl,
      APP_URL: service.deps.urls.appUrl,
      DYNAMODB_ENDPOINT: inject('dynamoEndpoint'),
      // Queued only for a ticket check, which a grace-period purge never makes.
      TICKET_CHECK_QUEUE_URL: 'http://127.0.0.1:9/000000000000/ticket-checks',
      AWS_REGION: 'eu-west-2',
      AWS_ACCESS_KEY_ID: 'local',
      AWS_SECRET_ACCESS_KEY: 'local',
    });
  });
  afterEach(() => vi.resetModules()); // each worker's module wires itself once, as a cold start does
  afterAll(async () => {
    process.env = savedEnv;
    await service?.stop();
  });

  /** A submitted request whose ticket closed (trusted) two hours ago: its purge is long due. */
  const closedLongAgo = async (ticketRef: string): Promise<RequestObject> => {
    const created = await service.call('POST', '/requests', {
      key: org.key,
      body: { subject_name: 'Jane Doe', justification: 'Need the VPN admin password', recipients: [org.owner.email], ticket_ref: ticketRef },
    });
    expect(created.status, created.text).toBe(201);
    const request = expectCreationResult(created.body).request;
    await submitAsSubject(service, request.id, clock, {
      envelope: { v: 1, ciphertext: `sealed-${request.id}`, recipients: [] },
      attachments: [{ iv: 'aXY', ciphertext: `sealed-${request.id}` }],
    });
    const closed = await service.call('POST', `/tickets/${ticketRef}/status`, { key: ticketsKey, body: { status: 'closed' } });
    expect(closed.status, closed.text).toBe(202);
    const read = await service.call('GET', `/requests/${request.id}`, { key: org.key });
    expect((read.body as RequestObject).purge_scheduled_at).toBe(new Date(clock.now().getTime() + GRACE_MINUTES * MINUTE).toISOString());
    return request;
  };

  const completed = async (requestId: string) => {
    const read = await service.call('GET', `/requests/${requestId}`, { key: org.key });
    expect(read.body).toMatchObject({ status: 'completed', purge_reason: 'ticket_closed' });
    expect(await materialItems(service, requestId)).toEqual([]);
  };

  it('the purge worker purges, leaving the expiry schedule to fire, and logs no schedule failure', async () => {
    const request = await closedLongAgo(`INC-DEPLOYED-PURGE-${Date.now()}`);
    const { createHandler, deployedDeps } = await import('../../lambdas/workers/purge.ts');
    const deps = deployedDeps();
    const warnings = vi.spyOn(deps.logger, 'warn').mockImplementation(() => undefined);
    expect(await createHandler(deps)({ requestId: request.id })).toEqual({ requestId: request.id, outcome: 'purged' });
    await completed(request.id);
    expect(warnings.mock.calls).toEqual([]);
    await expect(deps.scheduler.cancel(request.id)).resolves.toBeUndefined();
    await expect(deps.scheduler.schedule(request.id, new Date().toISOString())).rejects.toThrow('this function does not arm schedules');
  });

  it('the sweep purges what is due, leaving the expiry schedules to fire, and logs no schedule failure', async () => {
    const request = await closedLongAgo(`INC-DEPLOYED-SWEEP-${Date.now()}`);
    const { createHandler, deployedDeps } = await import('../../lambdas/workers/sweep.ts');
    const deps = deployedDeps();
    const warnings = vi.spyOn(deps.logger, 'warn').mockImplementation(() => undefined);
    expect(await createHandler(deps)()).toMatchObject({ purged: 1, failed: 0 });
    await completed(request.id);
    expect(warnings.mock.calls).toEqual([]);
    await expect(deps.scheduler.cancel(request.id)).resolves.toBeUndefined();
  });
});
