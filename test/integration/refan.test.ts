/**
 * The operator's re-fan-out (`refan-events`, workers/refan.ts) against DynamoDB Local, with the
 * webhook pipeline off, so that only the re-fan-out makes deliveries: the audit chain read again
 * and run through the stream's own fan-out handler creates exactly the missing deliveries
 * (pending, due now), and nothing on a second run; non-events, types a subscription does not
 * take and events from before a subscription go nowhere; the range is capped and paged; failed
 * records are counted; refusals write nothing; and the real CLI answers with its exit code and JSON.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventId, isSubscribableEventType } from '../../lambdas/core/events.ts';
import { newId } from '../../lambdas/core/ids.ts';
import { deliveryIdFor } from '../../lambdas/store/deliveries.ts';
import { REFAN_MAX_ENTRIES, refanDeps, refanEvents, RefanRefused, type RefanDeps } from '../../lambdas/workers/refan.ts';
import { runAdminCli } from '../support/admin-cli.ts';
import { auditEntries, type AuditItem } from '../support/shapes.ts';
import { scanTable, startTestService, type TestOrganisation, type TestService } from '../support/test-service.ts';
import { movableClock, putSubscription, quietLogger } from '../support/webhooks.ts';

const clock = movableClock();
let service: TestService;

beforeAll(async () => {
  service = await startTestService({ clock });
});
afterAll(async () => {
  await service?.stop();
});

const deps = (overrides: Partial<RefanDeps> = {}): RefanDeps => ({ ...refanDeps(service.deps, quietLogger), ...overrides });

/** The organisation's deliveries as stored, by event sequence number. */
const deliveriesOf = async (orgId: string) =>
  (await scanTable(service))
    .filter((item) => item.kind === 'webhook_delivery' && item.orgId === orgId)
    .sort((a, b) => (a.eventSeq as number) - (b.eventSeq as number)) as Array<Record<string, any>>;

const headOf = async (orgId: string) => {
  const entries = await auditEntries(service, orgId);
  return entries[entries.length - 1]!.seq;
};

const createRequest = async (org: TestOrganisation) => {
  const answer = await service.call('POST', '/requests', {
    key: org.key,
    body: { subject_name: 'Jane Doe', justification: 'Need the router admin password', recipients: [org.owner.email] },
  });
  expect(answer.status, answer.text).toBe(201);
  return answer.body.request.id as string;
};

/** The entries after `afterSeq`, in chain order. */
const entriesAfter = async (orgId: string, afterSeq: number): Promise<AuditItem[]> =>
  (await auditEntries(service, orgId)).filter((entry) => entry.seq > afterSeq);

describe('refanEvents', () => {
  it('creates exactly one pending delivery, due now, per subscribed event, and nothing more on a second run', async () => {
    const org = await service.createOrganisation();
    const subscription = await putSubscription(service, org.orgId, { events: ['request.created'], createdAt: clock.now().toISOString() });
    const before = await headOf(org.orgId);
    clock.advance(1_000);
    for (let i = 0; i < 3; i++) await createRequest(org);
    const produced = await entriesAfter(org.orgId, before);
    const created = produced.filter((entry) => entry.type === 'request.created');
    expect(created).toHaveLength(3);
    // The pipeline is off: nothing fanned these out.
    expect(await deliveriesOf(org.orgId)).toEqual([]);

    clock.advance(60_000);
    const now = clock.now().toISOString();
    const result = await refanEvents(deps(), { orgId: org.orgId, from: eventId(before + 1) });
    const last = produced[produced.length - 1]!.seq;
    expect(result).toEqual({
      organisation_id: org.orgId,
      from: eventId(before + 1),
      to: eventId(last),
      entries_read: produced.length,
      events: produced.filter((entry) => isSubscribableEventType(entry.type)).length,
      deliveries_created: 3,
      failed_records: 0,
      next_from: null,
      note: expect.stringContaining('delivery sweep sends the created deliveries within its period'),
    });

    const stored = await deliveriesOf(org.orgId);
    expect(stored).toHaveLength(3);
    for (const [index, entry] of created.entries()) {
      expect(stored[index]).toMatchObject({
        id: deliveryIdFor(subscription.id, entry.seq, entry.occurredAt),
        webhookId: subscription.id,
        orgId: org.orgId,
        clientId: org.defaultClientId,
        eventSeq: entry.seq,
        eventType: 'request.created',
        status: 'pending',
        attempts: 0,
        nextAttemptAt: now,
        createdAt: now,
        lastAttemptAt: null,
      });
      // In the due index, where the delivery sweep finds it.
      expect(stored[index]!.gsi6pk).toMatch(/^DELIVERY_DUE#/);
      expect(stored[index]!.gsi6sk).toBe(`${now}#${stored[index]!.id}`);
    }

    // Again, over the same range and a wider one: the deliveries are there already and are left alone.
    clock.advance(60_000);
    const again = await refanEvents(deps(), { orgId: org.orgId, from: 'evt_1', to: eventId(last) });
    expect(again).toMatchObject({ from: 'evt_1', to: eventId(last), entries_read: last, deliveries_created: 0, failed_records: 0 });
    expect(await deliveriesOf(org.orgId)).toEqual(stored);
    expect((await deliveriesOf(org.orgId)).map((d) => d.webhookMessageId)).toEqual(stored.map((d) => d.webhookMessageId));
  });

  it('creates nothing for non-event entries, for types the subscription does not take, or for events before the subscription', async () => {
    const org = await service.createOrganisation();
    await putSubscription(service, org.orgId, { events: ['request.completed'], createdAt: clock.now().toISOString() });
    clock.advance(1_000);
    const requestId = await createRequest(org); // request.created: taken by nobody yet
    const revoked = await service.call('POST', `/requests/${requestId}/revoke`, { key: org.key }); // request.revoked: taken by nobody
    expect(revoked.status, revoked.text).toBe(200);
    clock.advance(1_000);
    // webhook.created (not an event), by a subscription to request.created made after that event.
    const hooks = await service.call('POST', '/webhooks', { key: org.key, body: { url: 'https://hooks.example.com/handoff', events: ['request.created'] } });
    expect(hooks.status, hooks.text).toBe(201);
    const entries = await auditEntries(service, org.orgId);
    const head = entries[entries.length - 1]!.seq;
    expect(entries.map((entry) => entry.type)).toEqual(expect.arrayContaining(['request.created', 'request.revoked', 'webhook.created']));
    expect(entries[entries.length - 1]!.type).toBe('webhook.created');

    const result = await refanEvents(deps(), { orgId: org.orgId, from: 'evt_1', to: eventId(head) });
    expect(result).toMatchObject({ entries_read: head, deliveries_created: 0, failed_records: 0 });
    expect(result.events).toBe(entries.filter((entry) => isSubscribableEventType(entry.type)).length);
    expect(result.events).toBeGreaterThanOrEqual(2);
    expect(await deliveriesOf(org.orgId)).toEqual([]);

    // The same run does create a delivery for an event the new subscription takes.
    clock.advance(1_000);
    await createRequest(org);
    const after = await refanEvents(deps(), { orgId: org.orgId, from: eventId(head + 1) });
    expect(after.deliveries_created).toBe(1);
    const stored = await deliveriesOf(org.orgId);
    expect(stored).toHaveLength(1);
    expect(stored[0]).toMatchObject({ webhookId: hooks.body.id, eventType: 'request.created', status: 'pending' });
    expect(stored[0]!.eventSeq).toBeGreaterThan(head);
  });

  it('caps a run at its entry limit, says where to go on, and reads the range in pages and batches', async () => {
    expect(REFAN_MAX_ENTRIES).toBe(10_000);
    const org = await service.createOrganisation();
    const subscription = await putSubscription(service, org.orgId, { events: ['request.created'], createdAt: clock.now().toISOString() });
    const before = await headOf(org.orgId);
    clock.advance(1_000);
    for (let i = 0; i < 5; i++) await createRequest(org);
    const created = (await entriesAfter(org.orgId, before)).filter((entry) => entry.type === 'request.created');
    const small = deps({ limits: { maxEntries: 3, page: 2, batch: 2 } });

    const first = await refanEvents(small, { orgId: org.orgId, from: eventId(created[0]!.seq) });
    expect(first).toMatchObject({ from: eventId(created[0]!.seq), to: eventId(created[0]!.seq + 2), entries_read: 3, next_from: eventId(created[0]!.seq + 3) });
    expect(first.note).toContain(`capped at 3 entries: run again with --from ${first.next_from}`);
    const afterFirst = await deliveriesOf(org.orgId);
    expect(afterFirst.map((d) => d.eventSeq)).toEqual(created.filter((e) => e.seq <= created[0]!.seq + 2).map((e) => e.seq));
    expect(first.deliveries_created).toBe(afterFirst.length);

    // Going on from next_from until it is null covers the rest, once each.
    let from: string | null = first.next_from;
    while (from) from = (await refanEvents(small, { orgId: org.orgId, from })).next_from;
    const stored = await deliveriesOf(org.orgId);
    expect(stored.map((d) => d.eventSeq)).toEqual(created.map((e) => e.seq));
    expect(new Set(stored.map((d) => d.webhookId))).toEqual(new Set([subscription.id]));
  });

  it('counts the records the fan-out failed on, and creates their deliveries on a later run', async () => {
    const org = await service.createOrganisation();
    await putSubscription(service, org.orgId, { events: ['request.created'], createdAt: clock.now().toISOString() });
    const before = await headOf(org.orgId);
    clock.advance(1_000);
    await createRequest(org);
    await createRequest(org);
    const produced = await entriesAfter(org.orgId, before);
    const broken = deps({ webhooks: { listForOrg: async () => Promise.reject(new Error('storage trouble')) } });
    const failed = await refanEvents(broken, { orgId: org.orgId, from: eventId(before + 1) });
    // Every event the fan-out would look at failed (it reads the subscriptions for those only).
    const looked = produced.filter((entry) => isSubscribableEventType(entry.type)).length;
    expect(failed).toMatchObject({ deliveries_created: 0, failed_records: looked });
    expect(failed.note).toContain(`${looked} record(s) failed`);
    expect(await deliveriesOf(org.orgId)).toEqual([]);

    const retried = await refanEvents(deps(), { orgId: org.orgId, from: eventId(before + 1) });
    expect(retried).toMatchObject({ deliveries_created: 2, failed_records: 0 });
    expect(await deliveriesOf(org.orgId)).toHaveLength(2);
  });

  it('refuses a malformed event id, --to before --from, a range beyond the chain and an unknown organisation, writing nothing', async () => {
    const org = await service.createOrganisation();
    await putSubscription(service, org.orgId, { events: ['request.created'], createdAt: clock.now().toISOString() });
    clock.advance(1_000);
    await createRequest(org);
    const head = await headOf(org.orgId);
    const table = await scanTable(service);

    const refusals: Array<[Parameters<typeof refanEvents>[1], RegExp]> = [
      [{ orgId: org.orgId, from: '3' }, /--from 3 is not an event id/],
      [{ orgId: org.orgId, from: 'evt_0' }, /--from evt_0 is not an event id/],
      [{ orgId: org.orgId, from: 'evt_1', to: 'evt_x' }, /--to evt_x is not an event id/],
      [{ orgId: org.orgId, from: 'evt_1', to: 'evt_1 ' }, /--to evt_1  is not an event id/],
      [{ orgId: org.orgId, from: eventId(head), to: 'evt_1' }, /--to evt_1 is before --from/],
      [{ orgId: org.orgId, from: eventId(head + 1) }, new RegExp(`has no ${eventId(head + 1)} \\(--from\\): its audit chain ends at ${eventId(head)}`)],
      [{ orgId: org.orgId, from: 'evt_1', to: eventId(head + 5) }, new RegExp(`has no ${eventId(head + 5)} \\(--to\\)`)],
      [{ orgId: newId(), from: 'evt_1' }, /^no organisation /],
    ];
    for (const [range, message] of refusals) {
      const refused = refanEvents(deps(), range);
      await expect(refused, JSON.stringify(range)).rejects.toBeInstanceOf(RefanRefused);
      await expect(refused).rejects.toThrow(message);
    }
    expect(await scanTable(service)).toEqual(table);
    expect(await deliveriesOf(org.orgId)).toEqual([]);
  });
});

describe('npm run admin -- refan-events', () => {
  const cli = (args: string[]) => runAdminCli(service.deps.tableName, 'refan-events', args);

  it('prints the counts as JSON, and refuses with exit 1 and a message, writing nothing', async () => {
    const org = await service.createOrganisation();
    const subscription = await putSubscription(service, org.orgId, { events: ['request.created'], createdAt: clock.now().toISOString() });
    clock.advance(1_000);
    await createRequest(org);
    const head = await headOf(org.orgId);
    const table = await scanTable(service);

    for (const [args, message] of [
      [['--org', org.orgId, '--from', 'evt_one'], /--from evt_one is not an event id/],
      [['--org', org.orgId, '--from', eventId(head), '--to', 'evt_1'], /--to evt_1 is before --from/],
      [['--org', newId(), '--from', 'evt_1'], /no organisation/],
      [['--org', org.orgId], /--from is required/],
    ] as Array<[string[], RegExp]>) {
      const answer = await cli(args);
      expect(answer.code, answer.stderr).toBe(1);
      expect(answer.stderr).toMatch(message);
      expect(answer.stdout).toBe('');
    }
    expect(await scanTable(service)).toEqual(table);

    const answer = await cli(['--org', org.orgId, '--from', 'evt_1']);
    expect(answer.code, answer.stderr).toBe(0);
    const printed = JSON.parse(answer.stdout);
    expect(Object.keys(printed)).toEqual(['organisation_id', 'from', 'to', 'entries_read', 'events', 'deliveries_created', 'failed_records', 'next_from', 'note']);
    expect(printed).toMatchObject({ organisation_id: org.orgId, from: 'evt_1', to: eventId(head), entries_read: head, deliveries_created: 1, failed_records: 0, next_from: null });
    expect(printed.note).toMatch(/delivery sweep sends the created deliveries within its period/);
    expect(await deliveriesOf(org.orgId)).toEqual([expect.objectContaining({ webhookId: subscription.id, status: 'pending', eventType: 'request.created' })]);
  });
});
