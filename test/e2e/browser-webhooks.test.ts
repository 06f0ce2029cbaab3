import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumPresent, expectStateUsable, launch, signInInBrowser, tabTo } from '../support/browser.ts';
import { startReceiver } from '../support/receiver.ts';
import { startTestService, type TestService } from '../support/test-service.ts';

/**
 * The Webhooks page, by keyboard: an admin adds a webhook to a receiver on loopback, copies the
 * secret the page shows once, pings it, sees the delivery delivered, redelivers it; the receiver
 * gets a second delivery of the same event with another webhook-id, and both verify with that
 * secret. A plain member has no Webhooks item in the nav. Every state passes axe, and the pages
 * fit a 320 px wide screen.
 */
const haveChromium = chromiumPresent();
const adminEmail = 'ada@webhooks.example';
const plainEmail = 'pat@webhooks.example';

let service: TestService;
let browser: Browser;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let secret = '';

beforeAll(async () => {
  if (!haveChromium) return;
  service = await startTestService({ allowLoopbackWebhooks: true, webhooks: true });
  const org = await service.admin.createOrganisation({ name: 'Webhook Desk', plan: 'team' });
  await service.admin.addMember({ orgId: org.id, name: 'Ada Admin', email: adminEmail, role: 'admin' });
  await service.admin.addMember({ orgId: org.id, name: 'Pat Plain', email: plainEmail, role: 'member' });
  // Verifies each delivery with the secret the page showed (a delivery that does not verify gets 400).
  receiver = await startReceiver({ secret: () => secret });
  browser = await launch();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await service?.stop();
  await receiver?.close();
});

/** Presses Refresh until the delivery in row `id` shows `status`. */
const waitForStatus = async (page: Page, id: string, status: string) => {
  await expect
    .poll(async () => {
      await page.click('#refresh-deliveries');
      await page.waitForSelector('#deliveries, #no-deliveries');
      return page.getAttribute(`tr[data-delivery-id="${id}"] [data-status]`, 'data-status', { timeout: 1_000 }).catch(() => null);
    }, { timeout: 30_000, interval: 500 })
    .toBe(status);
};

describe.skipIf(!haveChromium)('the Webhooks page', () => {
  it('adds a webhook by keyboard, pings it, and redelivers: two verified deliveries with different webhook-ids', async () => {
    const page = await (await browser.newContext()).newPage();
    await signInInBrowser(page, service.appUrl, service.outboxDir, adminEmail);
    await tabTo(page, 'sign-out');
    await page.click('#nav a[href="/app/webhooks"]');
    await page.waitForSelector('#no-webhooks');
    await expectStateUsable(page);

    await tabTo(page, 'webhook-url');
    await page.keyboard.type(`${receiver.url}/hooks/desk`);
    await tabTo(page, 'webhook-description');
    await page.keyboard.type('Service desk');
    await tabTo(page, 'event-request-created');
    await page.keyboard.press('Space');
    await tabTo(page, 'create-webhook');
    await page.keyboard.press('Enter');
    await page.waitForSelector('#webhook-created');
    secret = await page.inputValue('#webhook-secret');
    expect(secret).toMatch(/^whsec_/);
    await expectStateUsable(page);

    await tabTo(page, 'view-webhook');
    await page.keyboard.press('Enter');
    await page.waitForSelector('#no-deliveries');
    expect(await page.locator('#webhook-facts').textContent()).toContain(`${receiver.url}/hooks/desk`);
    await expectStateUsable(page);

    await tabTo(page, 'ping-webhook');
    await page.keyboard.press('Enter');
    await page.waitForSelector('#deliveries');
    // The page shown again keeps the keyboard on the button pressed, and says what happened.
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe('ping-webhook');
    expect(await page.textContent('#status')).toContain('Test ping queued');
    await tabTo(page, 'refresh-deliveries');
    await page.keyboard.press('Enter');
    await expect.poll(() => page.textContent('#status')).toBe('Deliveries refreshed: the list shows them as they are now.');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('refresh-deliveries');
    const first = (await page.getAttribute('#deliveries tbody tr', 'data-delivery-id'))!;
    await waitForStatus(page, first, 'delivered');
    expect(await page.locator(`tr[data-delivery-id="${first}"]`).textContent()).toContain('HTTP 204');
    await expectStateUsable(page);

    await tabTo(page, `redeliver-${first}`);
    await page.keyboard.press('Enter');
    await expect.poll(() => page.locator('#deliveries tbody tr').count(), { timeout: 10_000 }).toBe(2);
    const second = (await page.getAttribute('#deliveries tbody tr', 'data-delivery-id'))!;
    expect(second).not.toBe(first);
    await waitForStatus(page, second, 'delivered');
    await expectStateUsable(page);

    // Both verified with the secret the page showed (eventId is set only then), one event, two webhook-ids.
    const pings = receiver.receipts.filter((r) => r.headers['x-service-event'] === 'ping');
    expect(pings.map((r) => r.answer)).toEqual([204, 204]);
    expect(new Set(pings.map((r) => r.eventId)).size).toBe(1);
    expect(pings[0]!.eventId).toMatch(/^evt_/);
    expect(new Set(pings.map((r) => r.headers['webhook-id'])).size).toBe(2);
    expect(pings.map((r) => r.headers['x-service-delivery']).sort()).toEqual([first, second].sort());

    // The list shows the webhook with its health.
    await page.goto(`${service.appUrl}/app/webhooks`);
    await page.waitForSelector('#webhooks');
    expect(await page.locator('#webhooks tbody tr').textContent()).toContain('Delivered');
    await expectStateUsable(page);
  }, 180_000);

  it('rotates the secret (shown once) and deletes the webhook after a confirmation', async () => {
    const page = await (await browser.newContext()).newPage();
    await signInInBrowser(page, service.appUrl, service.outboxDir, adminEmail);
    await page.goto(`${service.appUrl}/app/webhooks`);
    await page.waitForSelector('#webhooks');
    await page.click('#webhooks a[data-webhook-id]');
    await page.waitForSelector('#rotate-form');

    await tabTo(page, 'rotate-secret');
    await page.keyboard.press('Enter');
    await page.waitForSelector('#rotated');
    const rotated = await page.inputValue('#rotated-secret');
    expect(rotated).toMatch(/^whsec_/);
    expect(rotated).not.toBe(secret);
    await expectStateUsable(page);

    await tabTo(page, 'delete-webhook');
    await page.keyboard.press('Enter');
    // Cancel has the focus: a second Enter does not delete.
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('cancel-delete-webhook');
    await expectStateUsable(page);
    await tabTo(page, 'confirm-delete-webhook');
    await page.keyboard.press('Enter');
    await page.waitForSelector('#no-webhooks');
    expect(await page.locator('#status').textContent()).toContain('deleted');
  }, 120_000);

  it('has no Webhooks item for a plain member', async () => {
    const page = await (await browser.newContext()).newPage();
    await signInInBrowser(page, service.appUrl, service.outboxDir, plainEmail);
    expect(await page.locator('#nav a[href="/app/webhooks"]').count()).toBe(0);
  }, 60_000);
});
