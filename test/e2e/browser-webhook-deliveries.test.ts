import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumPresent, expectStateUsable, launch, signInInBrowser, tabTo } from '../support/browser.ts';
import { MemberBrowser } from '../support/member-browser.ts';
import { startReceiver } from '../support/receiver.ts';
import { startTestService, type TestService } from '../support/test-service.ts';

/**
 * A webhook's page pages its deliveries, by keyboard: the 25 newest first, then **Show older
 * deliveries** adds the next 25 and the 2 left under them, each time moving the focus to the first
 * row it added; the button goes once there are no older ones. Every delivery is shown once, in the
 * order the service lists them, and every state passes axe and fits a 320 px wide screen.
 */
const haveChromium = chromiumPresent();
const adminEmail = 'ada@webhook-pages.example';
const PINGS = 52;

let service: TestService;
let browser: Browser;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let webhookId = '';
/** The ping deliveries, newest first, as the service lists them. */
let newestFirst: string[] = [];

beforeAll(async () => {
  if (!haveChromium) return;
  service = await startTestService({ allowLoopbackWebhooks: true, webhooks: true });
  const org = await service.admin.createOrganisation({ name: 'Webhook Pages', plan: 'team' });
  await service.admin.addMember({ orgId: org.id, name: 'Ada Admin', email: adminEmail, role: 'admin' });
  let secret = '';
  receiver = await startReceiver({ secret: () => secret });
  // The deliveries are made through the app's own endpoints, one ping each.
  const admin = await MemberBrowser.signIn(service, adminEmail);
  const created = await admin.call('POST', '/app/api/webhooks', { body: { url: `${receiver.url}/hooks/pages`, events: ['request.created'], description: 'Paged desk' } });
  expect(created.status, created.text).toBe(201);
  webhookId = created.body.id;
  secret = created.body.secret;
  const pinged: string[] = [];
  for (let i = 0; i < PINGS; i++) {
    const ping = await admin.call('POST', `/app/api/webhooks/${webhookId}/ping`);
    expect(ping.status, ping.text).toBe(202);
    pinged.push(ping.body.delivery_id);
  }
  newestFirst = pinged.reverse();
  browser = await launch();
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await service?.stop();
  await receiver?.close();
});

const shownIds = (page: Page) => page.locator('#deliveries tbody tr').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-delivery-id')));
const focusedRowId = (page: Page) => page.evaluate(() => document.activeElement?.getAttribute('data-delivery-id') ?? document.activeElement?.id ?? null);

describe.skipIf(!haveChromium)('a webhook’s deliveries, page by page', () => {
  it('shows older deliveries by keyboard, focus on the first row added, until there are no more', async () => {
    const page = await (await browser.newContext()).newPage();
    await signInInBrowser(page, service.appUrl, service.outboxDir, adminEmail);
    await page.goto(`${service.appUrl}/app/webhooks/${webhookId}`);
    await page.waitForSelector('#deliveries');
    expect(await shownIds(page)).toEqual(newestFirst.slice(0, 25));
    expect(await page.isVisible('#load-older')).toBe(true);
    expect(await page.locator('#load-older').textContent()).toBe('Show older deliveries');
    await expectStateUsable(page);

    await tabTo(page, 'load-older');
    await page.keyboard.press('Enter');
    await expect.poll(() => page.locator('#deliveries tbody tr').count(), { timeout: 10_000 }).toBe(50);
    expect(await shownIds(page)).toEqual(newestFirst.slice(0, 50));
    await expect.poll(() => focusedRowId(page)).toBe(newestFirst[25]);
    expect(await page.locator('#status').textContent()).toContain('25 older deliveries shown.');
    // From the row the focus landed on, Tab goes on to that row's own action.
    await page.keyboard.press('Tab');
    expect(await focusedRowId(page)).toBe(`redeliver-${newestFirst[25]}`);
    await expectStateUsable(page);

    await tabTo(page, 'load-older');
    await page.keyboard.press('Enter');
    await expect.poll(() => page.locator('#deliveries tbody tr').count(), { timeout: 10_000 }).toBe(PINGS);
    const all = await shownIds(page);
    expect(all).toEqual(newestFirst);
    expect(new Set(all).size).toBe(PINGS);
    // The button is gone; the focus is on the first row the last page added, not lost to the page.
    expect(await page.isHidden('#load-older')).toBe(true);
    await expect.poll(() => focusedRowId(page)).toBe(newestFirst[50]);
    expect(await page.locator('#status').textContent()).toContain('2 older deliveries shown; there are no older ones.');
    await expectStateUsable(page);
  }, 180_000);
});
