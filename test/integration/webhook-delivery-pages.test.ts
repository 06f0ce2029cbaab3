/**
 * A subscription's deliveries a page at a time (lambdas/store/webhook-delivery-pages.ts, behind
 * the member app's GET /app/api/webhooks/{id}/deliveries) against DynamoDB Local: newest first,
 * the pages together exactly the whole list (nothing twice, nothing skipped, ties of the same
 * instant included), the last page saying there is no more, deliveries made meanwhile never
 * shifting the pages already begun, and a cursor that is no delivery of this subscription refused.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../lambdas/core/ids.ts';
import { DeliveryStore, pendingDelivery, type Delivery } from '../../lambdas/store/deliveries.ts';
import { startTestService, type TestService } from '../support/test-service.ts';
import { deliveryStoreOf } from '../support/webhooks.ts';

let service: TestService;
let store: DeliveryStore;
const orgId = newId();
const otherOrgId = newId();
const webhookId = newId();
const siblingWebhookId = newId();
const otherOrgWebhookId = newId();

beforeAll(async () => {
  service = await startTestService();
  store = deliveryStoreOf(service);
});
afterAll(() => service?.stop());

let seq = 0;
/** A finished delivery made at `createdAt` (finished, so no sweep would ever pick it up). */
const delivery = (owner: { orgId: string; webhookId: string }, createdAt: string): Delivery => ({
  ...pendingDelivery({ id: newId(), ...owner, clientId: null, eventSeq: ++seq, eventType: 'request.created' }, createdAt),
  status: 'delivered',
  attempts: 1,
});

const stored = async (deliveries: Delivery[]) => {
  const { created, failed } = await store.createAll(deliveries);
  expect(failed).toEqual([]);
  expect(created).toHaveLength(deliveries.length);
  return deliveries;
};

/** Newest first: by when each was made, then by id, as the page's list is ordered. */
const newestFirst = (deliveries: Delivery[]) => {
  const sortKey = (d: Delivery) => `${d.createdAt}#${d.id}`;
  return [...deliveries].sort((a, b) => (sortKey(a) < sortKey(b) ? 1 : -1)).map((d) => d.id);
};

/** Every page of the subscription's list, following next_before, with the cursor each page gave. */
const allPages = async (owner: { orgId: string; webhookId: string }, limit: number) => {
  const pages: Array<{ ids: string[]; nextBefore: string | null }> = [];
  let before: string | undefined;
  do {
    const page = await store.listForWebhook({ ...owner, limit, before });
    expect(page).not.toBeNull();
    pages.push({ ids: page!.deliveries.map((d) => d.id), nextBefore: page!.nextBefore });
    before = page!.nextBefore ?? undefined;
  } while (before && pages.length < 50);
  return pages;
};

const minute = (n: number) => new Date(Date.UTC(2030, 0, 1, 12, n)).toISOString();

describe('a subscription’s deliveries, page by page', () => {
  const owner = { orgId, webhookId };
  let made: Delivery[] = [];

  beforeAll(async () => {
    // 23 deliveries: 20 a minute apart, and 3 more made in the same instant as the 11th, so a page
    // boundary falls inside a tie. Stored in no particular order.
    const spaced = Array.from({ length: 20 }, (_, i) => delivery(owner, minute(i)));
    const tied = Array.from({ length: 3 }, () => delivery(owner, minute(10)));
    made = await stored([...tied, ...spaced.reverse()]);
    await stored([delivery({ orgId, webhookId: siblingWebhookId }, minute(30)), delivery({ orgId: otherOrgId, webhookId: otherOrgWebhookId }, minute(30))]);
  });

  it('lists newest first; the pages together are the whole list, each delivery once, and only the last says there is no more', async () => {
    const pages = await allPages(owner, 5);
    expect(pages.map((page) => page.ids.length)).toEqual([5, 5, 5, 5, 3]);
    const ids = pages.flatMap((page) => page.ids);
    expect(ids).toEqual(newestFirst(made));
    expect(new Set(ids).size).toBe(made.length);
    // Each page's cursor is its own last delivery; the last page has none.
    for (const page of pages.slice(0, -1)) expect(page.nextBefore).toBe(page.ids[page.ids.length - 1]);
    expect(pages[pages.length - 1]!.nextBefore).toBeNull();
  });

  it('ends on a full page when the list does: no empty page to ask for', async () => {
    const pages = await allPages(owner, made.length);
    expect(pages).toEqual([{ ids: newestFirst(made), nextBefore: null }]);
    const inTwo = await allPages(owner, 23 - 8);
    expect(inTwo.map((page) => page.ids.length)).toEqual([15, 8]);
    expect(inTwo[1]!.nextBefore).toBeNull();
  });

  it('goes on from a cursor unchanged by deliveries made after the first page was read', async () => {
    const ownOrder = { orgId, webhookId: newId() };
    const before = await stored(Array.from({ length: 6 }, (_, i) => delivery(ownOrder, minute(i))));
    const first = await store.listForWebhook({ ...ownOrder, limit: 4 });
    await stored([delivery(ownOrder, minute(40)), delivery(ownOrder, minute(41))]);
    const second = await store.listForWebhook({ ...ownOrder, limit: 4, before: first!.nextBefore! });
    expect([...first!.deliveries, ...second!.deliveries].map((d) => d.id)).toEqual(newestFirst(before));
    expect(second!.nextBefore).toBeNull();
  });

  it('has an empty last page for a subscription with no deliveries', async () => {
    expect(await store.listForWebhook({ orgId, webhookId: newId(), limit: 25 })).toEqual({ deliveries: [], nextBefore: null });
  });

  it('finds no place to go on from for a cursor of another subscription, another organisation, or no delivery at all', async () => {
    const sibling = await store.listForWebhook({ orgId, webhookId: siblingWebhookId, limit: 1 });
    const otherOrg = await store.listForWebhook({ orgId: otherOrgId, webhookId: otherOrgWebhookId, limit: 1 });
    for (const before of [sibling!.deliveries[0]!.id, otherOrg!.deliveries[0]!.id, newId()]) {
      expect(await store.listForWebhook({ ...owner, limit: 5, before }), before).toBeNull();
    }
    // The same subscription id under another organisation reads nothing of this one's.
    const mine = (await store.listForWebhook({ ...owner, limit: 1 }))!.deliveries[0]!.id;
    expect(await store.listForWebhook({ orgId: otherOrgId, webhookId, limit: 5, before: mine })).toBeNull();
    expect(await store.listForWebhook({ orgId: otherOrgId, webhookId, limit: 5 })).toEqual({ deliveries: [], nextBefore: null });
  });
});
