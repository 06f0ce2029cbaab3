/**
 * The member app's webhooks (docs/web-api.md, Webhooks): owners and admins manage the
 * organisation's subscriptions with the same rules as /v1/webhooks, and ping, redeliver and
 * rotate as the operator's CLI does, audited with the member as actor. The local runtime delivers
 * to a receiver on loopback that verifies every delivery with the secret the app showed.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { MemberBrowser } from '../support/member-browser.ts';
import { startReceiver } from '../support/receiver.ts';
import { auditEntries, expectError, ULID } from '../support/shapes.ts';
import { scanTable, startTestService, type TestOrganisation, type TestService } from '../support/test-service.ts';

let service: TestService;
let org: TestOrganisation;
let admin: MemberBrowser;
let plain: MemberBrowser;
let adminId: string;
let secret = '';
let receiver: Awaited<ReturnType<typeof startReceiver>>;

const signedIn = async (name: string, role: 'member' | 'admin') => {
  const email = `${name.toLowerCase().replace(/\W+/g, '.')}-${org.orgId.slice(-6)}@example.com`;
  await service.admin.addMember({ orgId: org.orgId, name, email, role });
  return MemberBrowser.signIn(service, email);
};

beforeAll(async () => {
  service = await startTestService({ allowLoopbackWebhooks: true, webhooks: true });
  org = await service.createOrganisation({ name: 'Webhook Org' });
  admin = await signedIn('Ada Admin', 'admin');
  adminId = admin.session!.body.member.membership_id;
  plain = await signedIn('Pat Plain', 'member');
  // Verifies every delivery with the secret the app showed last (400 if it does not verify).
  receiver = await startReceiver({ secret: () => secret });
});
afterAll(async () => {
  await service?.stop();
  await receiver?.close();
});

const WEBHOOK_KEYS = ['id', 'object', 'url', 'description', 'events', 'is_active', 'client_id', 'created_via', 'failing_since', 'last_delivered_at', 'created_at'];
const create = (key: string, body: Record<string, unknown> = {}) =>
  admin.call('POST', '/app/api/webhooks', { body: { url: `${receiver.url}/hook`, events: ['request.created'], description: 'Ticket desk', ...body }, headers: { 'Idempotency-Key': key } });
const deliveriesOf = async (id: string) => {
  const listed = await admin.call('GET', `/app/api/webhooks/${id}/deliveries`);
  expect(listed.status, listed.text).toBe(200);
  return listed.body.data as Array<Record<string, unknown>>;
};
/** Waits until the delivery worker has delivered `deliveryId`, as the page shows it. */
const delivered = (webhookId: string, deliveryId: string) =>
  vi.waitFor(async () => {
    const found = (await deliveriesOf(webhookId)).find((d) => d.id === deliveryId);
    expect(found?.status).toBe('delivered');
    return found!;
  }, { timeout: 15_000, interval: 200 });

describe('webhooks in the member app', () => {
  it('creates a subscription made in the UI, its secret shown once and null in a replay; lists it', async () => {
    const created = await create('webhook-create-1');
    expect(created.status, created.text).toBe(201);
    expect(Object.keys(created.body).sort()).toEqual([...WEBHOOK_KEYS, 'secret'].sort());
    expect(created.body).toMatchObject({ object: 'webhook', url: `${receiver.url}/hook`, events: ['request.created'], created_via: 'ui', client_id: null, is_active: true, failing_since: null, last_delivered_at: null });
    expect(created.body.secret).toMatch(/^whsec_/);
    expect(created.headers.get('location')).toMatch(new RegExp(`/app/api/webhooks/${created.body.id}$`));
    expect(created.headers.get('cache-control')).toBe('no-store');

    const replay = await create('webhook-create-1');
    expect(replay.status).toBe(201);
    expect(replay.body).toEqual({ ...created.body, secret: null });

    const listed = await admin.call('GET', '/app/api/webhooks');
    expect(listed.status, listed.text).toBe(200);
    const mine = listed.body.data.filter((w: { id: string }) => w.id === created.body.id);
    expect(mine).toHaveLength(1);
    expect(Object.keys(mine[0]).sort()).toEqual([...WEBHOOK_KEYS].sort());
    // The creation's Location leads to the subscription as the list shows it, never its secret.
    const located = await admin.call('GET', new URL(created.headers.get('location')!).pathname);
    expect(located.status, located.text).toBe(200);
    expect(located.body).toEqual(mine[0]);

    const audited = (await auditEntries(service, org.orgId)).filter((e) => e.type === 'webhook.created' && e.data.details.webhook_id === created.body.id);
    expect(audited).toHaveLength(1);
    expect(audited[0]).toMatchObject({ actor: { type: 'member', id: adminId, label: 'Ada Admin' } });
    expect(JSON.stringify(await scanTable(service))).not.toContain(created.body.secret);
  });

  it('pings: the delivery appears, delivered and verified; a redelivery is a new delivery with a new webhook-id and the same event', async () => {
    const created = await create('webhook-create-2');
    secret = created.body.secret;
    const id = created.body.id as string;

    const ping = await admin.call('POST', `/app/api/webhooks/${id}/ping`);
    expect(ping.status, ping.text).toBe(202);
    expect(ping.body).toMatchObject({ event_type: 'ping', webhook_id: id, delivery_id: expect.stringMatching(ULID), message_id: expect.stringMatching(ULID), outcome: 'queued' });
    const first = await delivered(id, ping.body.delivery_id);
    expect(first).toMatchObject({ object: 'webhook_delivery', event_id: ping.body.event_id, event_type: 'ping', message_id: ping.body.message_id, attempts: 1, last_status: 204, next_attempt_at: null });
    expect(receiver.receipts.filter((r) => r.headers['webhook-id'] === ping.body.message_id).map((r) => [r.eventId, r.answer])).toEqual([[ping.body.event_id, 204]]);

    const again = await admin.call('POST', `/app/api/webhooks/${id}/deliveries/${ping.body.delivery_id}/redeliver`);
    expect(again.status, again.text).toBe(202);
    expect(again.body).toMatchObject({ event_id: ping.body.event_id, webhook_id: id, outcome: 'queued' });
    expect(again.body.delivery_id).not.toBe(ping.body.delivery_id);
    expect(again.body.message_id).not.toBe(ping.body.message_id);
    await delivered(id, again.body.delivery_id);
    const receipts = receiver.receipts.filter((r) => r.eventId === ping.body.event_id);
    expect(receipts.map((r) => r.headers['webhook-id']).sort()).toEqual([ping.body.message_id, again.body.message_id].sort());
    expect((await deliveriesOf(id)).map((d) => d.id)).toEqual([again.body.delivery_id, ping.body.delivery_id]);

    const listed = await admin.call('GET', '/app/api/webhooks');
    expect(listed.body.data.find((w: { id: string }) => w.id === id).last_delivered_at).toEqual(expect.any(String));
    const audited = (await auditEntries(service, org.orgId)).filter((e) => ['ping', 'webhook.redelivered'].includes(e.type) && e.data.details.webhook_id === id);
    expect(audited.map((e) => [e.type, e.actor])).toEqual([
      ['ping', { type: 'member', id: adminId, label: 'Ada Admin' }],
      ['webhook.redelivered', { type: 'member', id: adminId, label: 'Ada Admin' }],
    ]);

    // A delivery of another webhook, or none at all, is not found under this one.
    const other = await create('webhook-create-3');
    expectError(await admin.call('POST', `/app/api/webhooks/${other.body.id}/deliveries/${ping.body.delivery_id}/redeliver`), 404, 'not_found');
    expectError(await admin.call('POST', `/app/api/webhooks/${id}/deliveries/not-an-id/redeliver`), 404, 'not_found');
  });

  it('rotates the secret: the new one shown once, the old one still sent for the overlap', async () => {
    const created = await create('webhook-create-4');
    const id = created.body.id as string;
    const rotated = await admin.call('POST', `/app/api/webhooks/${id}/rotate-secret`, { body: { overlap_hours: 2 } });
    expect(rotated.status, rotated.text).toBe(200);
    expect(rotated.body.secret).toMatch(/^whsec_/);
    expect(rotated.body.secret).not.toBe(created.body.secret);
    expect(rotated.body).toMatchObject({ id, object: 'webhook', old_secret_expires_at: expect.any(String) });
    expect(Date.parse(rotated.body.old_secret_expires_at) - Date.now()).toBeGreaterThan(2 * 3_600_000 - 60_000);

    // Deliveries verify with the new secret.
    secret = rotated.body.secret;
    const ping = await admin.call('POST', `/app/api/webhooks/${id}/ping`);
    await delivered(id, ping.body.delivery_id);

    const audited = (await auditEntries(service, org.orgId)).filter((e) => e.type === 'webhook.secret_rotated' && e.data.details.webhook_id === id);
    expect(audited.map((e) => e.actor)).toEqual([{ type: 'member', id: adminId, label: 'Ada Admin' }]);
    expect(JSON.stringify(audited)).not.toContain(rotated.body.secret);
    expectError(await admin.call('POST', `/app/api/webhooks/${id}/rotate-secret`, { body: { overlap_hours: 721 } }), 422, 'validation_failed');
  });

  it('deletes: 204, then 404 for it everywhere', async () => {
    const created = await create('webhook-create-5');
    const id = created.body.id as string;
    const deleted = await admin.call('POST', `/app/api/webhooks/${id}/delete`);
    expect(deleted.status, deleted.text).toBe(204);
    expect((await admin.call('GET', '/app/api/webhooks')).body.data.map((w: { id: string }) => w.id)).not.toContain(id);
    expectError(await admin.call('GET', `/app/api/webhooks/${id}`), 404, 'not_found');
    expectError(await admin.call('POST', `/app/api/webhooks/${id}/delete`), 404, 'not_found');
    expectError(await admin.call('POST', `/app/api/webhooks/${id}/ping`), 404, 'not_found');
    expectError(await admin.call('GET', `/app/api/webhooks/${id}/deliveries`), 404, 'not_found');
    expect((await auditEntries(service, org.orgId)).filter((e) => e.type === 'webhook.deleted' && e.data.details.webhook_id === id).map((e) => e.actor.type)).toEqual(['member']);
  });

  it('answers 422 by field for a bad URL or event type, writing nothing', async () => {
    const before = (await admin.call('GET', '/app/api/webhooks')).body.data.length;
    const bad = await create('webhook-create-6', { url: 'ftp://example.com/hook', events: ['no.such'] });
    expectError(bad, 422, 'validation_failed');
    expect(Object.keys(bad.body.errors).sort()).toEqual(['events', 'url']);
    expect((await admin.call('GET', '/app/api/webhooks')).body.data).toHaveLength(before);
  });

  it('refuses a plain member (403) on every endpoint, and a POST without the CSRF header', async () => {
    const someId = (await admin.call('GET', '/app/api/webhooks')).body.data[0].id;
    const calls: Array<[string, string, unknown?]> = [
      ['GET', '/app/api/webhooks'],
      ['GET', `/app/api/webhooks/${someId}`],
      ['POST', '/app/api/webhooks', { url: `${receiver.url}/x`, events: ['request.created'] }],
      ['POST', `/app/api/webhooks/${someId}/delete`],
      ['POST', `/app/api/webhooks/${someId}/ping`],
      ['GET', `/app/api/webhooks/${someId}/deliveries`],
      ['POST', `/app/api/webhooks/${someId}/rotate-secret`, {}],
    ];
    for (const [method, path, body] of calls) {
      expectError(await plain.call(method, path, { body, headers: { 'Idempotency-Key': `plain-${path}` } }), 403, 'forbidden');
    }
    expectError(await admin.call('POST', `/app/api/webhooks/${someId}/ping`, { csrf: false }), 403, 'forbidden');
    expectError(await service.call('GET', '/app/api/webhooks'), 401, 'unauthenticated');
  });
});

describe('paging a webhook’s deliveries', () => {
  type Page = { object: string; data: Array<{ id: string }>; has_more: boolean; next_before: string | null };
  const page = async (member: MemberBrowser, webhookId: string, query: string) => {
    const answer = await member.call('GET', `/app/api/webhooks/${webhookId}/deliveries${query}`);
    expect(answer.status, answer.text).toBe(200);
    return answer.body as Page;
  };
  /** A new webhook of `member`'s organisation with `count` pings: its delivery ids, oldest first. */
  const pinged = async (member: MemberBrowser, key: string, count: number) => {
    const created = await member.call('POST', '/app/api/webhooks', { body: { url: `${receiver.url}/paged`, events: ['request.created'] }, headers: { 'Idempotency-Key': key } });
    expect(created.status, created.text).toBe(201);
    secret = created.body.secret;
    const deliveryIds: string[] = [];
    for (let i = 0; i < count; i++) {
      const ping = await member.call('POST', `/app/api/webhooks/${created.body.id}/ping`);
      expect(ping.status, ping.text).toBe(202);
      deliveryIds.push(ping.body.delivery_id);
    }
    return { webhookId: created.body.id as string, deliveryIds };
  };

  it('pages newest first with before and limit: every delivery once, and the last page says there is no more', async () => {
    const { webhookId, deliveryIds } = await pinged(admin, 'webhook-paging-1', 7);
    const newestFirst = [...deliveryIds].reverse();

    const whole = await page(admin, webhookId, '');
    expect(whole).toMatchObject({ object: 'list', has_more: false, next_before: null });
    expect(whole.data.map((d) => d.id)).toEqual(newestFirst);

    const pages: Page[] = [];
    let before: string | null = null;
    do {
      const next: Page = await page(admin, webhookId, `?limit=3${before ? `&before=${before}` : ''}`);
      pages.push(next);
      before = next.next_before;
    } while (before && pages.length < 10);
    expect(pages.map((p) => [p.data.length, p.has_more])).toEqual([[3, true], [3, true], [1, false]]);
    expect(pages.map((p) => p.next_before)).toEqual([pages[0]!.data[2]!.id, pages[1]!.data[2]!.id, null]);
    expect(pages.flatMap((p) => p.data.map((d) => d.id))).toEqual(newestFirst);

    // A limit that ends exactly on the last delivery: no more, rather than an empty page to ask for.
    expect(await page(admin, webhookId, '?limit=7')).toMatchObject({ has_more: false, next_before: null });
    // The limit's bounds are the audit log's.
    expect((await page(admin, webhookId, '?limit=200')).data).toHaveLength(7);
    expect((await page(admin, webhookId, '?limit=1')).data.map((d) => d.id)).toEqual([newestFirst[0]]);
  });

  it('refuses a malformed cursor, a bad limit and an unknown parameter by field (422)', async () => {
    const { webhookId } = await pinged(admin, 'webhook-paging-2', 1);
    const path = `/app/api/webhooks/${webhookId}/deliveries`;
    for (const before of ['x', 'evt_1', '0'.repeat(27), 'ABCDEFGHJKMNPQRSTVWXYZ0123', '%00', '../../etc']) {
      expectError(await admin.call('GET', `${path}?before=${encodeURIComponent(before)}`), 422, 'validation_failed', ['before']);
    }
    for (const limit of ['0', '201', 'ten', '-1', '2.5', '']) {
      expectError(await admin.call('GET', `${path}?limit=${limit}`), 422, 'validation_failed', ['limit']);
    }
    const unknown = expectError(await admin.call('GET', `${path}?page=2&cursor=x`), 422, 'validation_failed', ['cursor', 'page']);
    expect(unknown.errors.page).toEqual(['Unknown query parameter.']);
    expectError(await admin.call('GET', `${path}?before=x&limit=0`), 422, 'validation_failed', ['before', 'limit']);
    // A well-formed id that names no delivery at all has no place in the list either.
    expectError(await admin.call('GET', `${path}?before=01j0000000000000000000000x`), 422, 'validation_failed', ['before']);
  });

  it('refuses a cursor of another webhook or another organisation (422), showing nothing of theirs', async () => {
    const mine = await pinged(admin, 'webhook-paging-3', 2);
    const sibling = await pinged(admin, 'webhook-paging-4', 1);
    const otherOrg = await service.createOrganisation({ name: 'Other Webhook Org' });
    const otherOwner = await MemberBrowser.signIn(service, otherOrg.owner.email);
    const theirs = await pinged(otherOwner, 'webhook-paging-5', 2);

    const refused = (member: MemberBrowser, webhookId: string, before: string) =>
      member.call('GET', `/app/api/webhooks/${webhookId}/deliveries?before=${before}`).then((answer) => {
        const body = expectError(answer, 422, 'validation_failed', ['before']);
        expect(answer.text).not.toContain(before.slice(10));
        return body;
      });
    // Another webhook of the same organisation: its deliveries are not this list's.
    await refused(admin, mine.webhookId, sibling.deliveryIds[0]!);
    // Another organisation's delivery, either way round.
    await refused(admin, mine.webhookId, theirs.deliveryIds[1]!);
    await refused(otherOwner, theirs.webhookId, mine.deliveryIds[1]!);
    // Their webhook is not found from here at all, with or without a cursor.
    expectError(await admin.call('GET', `/app/api/webhooks/${theirs.webhookId}/deliveries?before=${theirs.deliveryIds[1]}`), 404, 'not_found');
    // Each organisation's own cursor still works on its own list.
    expect((await page(otherOwner, theirs.webhookId, `?before=${theirs.deliveryIds[1]}`)).data.map((d) => d.id)).toEqual([theirs.deliveryIds[0]]);
    expect((await page(admin, mine.webhookId, `?before=${mine.deliveryIds[1]}`)).data.map((d) => d.id)).toEqual([mine.deliveryIds[0]]);
  });

  it('on a plan without outbound webhooks: subscribing, pinging and redelivering answer 403 plan_required; listing says so, and deleting still works', async () => {
    const created = await create('webhook-create-plan');
    expect(created.status, created.text).toBe(201);
    await service.admin.setPlan(org.orgId, 'free');
    try {
      expectError(await create('webhook-create-on-free'), 403, 'plan_required');
      expectError(await admin.call('POST', `/app/api/webhooks/${created.body.id}/ping`), 403, 'plan_required');
      const listed = await admin.call('GET', '/app/api/webhooks');
      expect(listed.status, listed.text).toBe(200);
      expect(listed.body.webhook_access).toBe(false);
      expect((await admin.call('POST', `/app/api/webhooks/${created.body.id}/delete`)).status).toBe(204);
    } finally {
      await service.admin.setPlan(org.orgId, 'team');
    }
    expect((await admin.call('GET', '/app/api/webhooks')).body.webhook_access).toBe(true);
  });
});
