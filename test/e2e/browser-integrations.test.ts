import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumPresent, expectStateUsable, launch, signInInBrowser, tabTo } from '../support/browser.ts';
import { startTestService, type TestService } from '../support/test-service.ts';

/**
 * The Integrations pages, by keyboard: an admin connects an integration, copies each URL from
 * its own shown-once box (the secrets appear nowhere else in the page), a helpdesk posts an
 * unusable body to the webhook URL, and the admin sees it in the activity view with its reason;
 * the status words are edited and saved, and one is removed after a confirmation; the URLs are
 * rotated after a confirmation. A plain member has no Integrations item. Every state passes axe
 * and fits a 320 px wide screen.
 */
const haveChromium = chromiumPresent();
const adminEmail = 'ada@integrations.example';
const plainEmail = 'pat@integrations.example';

let service: TestService;
let browser: Browser;
let context: BrowserContext;

beforeAll(async () => {
  if (!haveChromium) return;
  service = await startTestService();
  const org = await service.admin.createOrganisation({ name: 'Integration Desk', plan: 'team' });
  await service.admin.addMember({ orgId: org.id, name: 'Ada Admin', email: adminEmail, role: 'admin' });
  await service.admin.addMember({ orgId: org.id, name: 'Pat Plain', email: plainEmail, role: 'member' });
  await service.admin.savePreset(org.id, 'vpn-reset', 'VPN reset', {});
  browser = await launch();
  context = await browser.newContext({ permissions: ['clipboard-read', 'clipboard-write'] });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await service?.stop();
});

/** Where a text shows in the page: element ids of form fields whose value holds it, and whether the markup or visible text does. */
const whereShown = (page: Page, text: string) =>
  page.evaluate((secret) => {
    const fields = [...document.querySelectorAll<HTMLInputElement | HTMLTextAreaElement>('input, textarea')].filter((f) => f.value.includes(secret)).map((f) => f.id);
    return { fields, markup: document.documentElement.outerHTML.includes(secret), text: document.body.innerText.includes(secret) };
  }, text);

const pressCopy = async (page: Page, id: string) => {
  await tabTo(page, id);
  await page.keyboard.press('Enter');
  await expect.poll(() => page.locator('#status').textContent()).toContain('copied');
  return page.evaluate(() => navigator.clipboard.readText());
};

/** POSTs JSON to an inbound URL as a helpdesk would. */
const postTo = async (url: string, body: unknown) => {
  const response = await fetch(url.replace('localhost', '127.0.0.1'), { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  await response.text();
  return response.status;
};

describe.skipIf(!haveChromium)('the Integrations pages', () => {
  let integrationPath = '';

  it('connects an integration by keyboard; each URL is shown once in its own box, and nowhere else', async () => {
    const page = await context.newPage();
    await signInInBrowser(page, service.appUrl, service.outboxDir, adminEmail);
    await tabTo(page, 'sign-out');
    await page.click('#nav a[href="/app/integrations"]');
    await page.waitForSelector('#no-integrations');
    await expectStateUsable(page);

    // A missing name is refused at its field.
    await tabTo(page, 'connect-integration');
    await page.keyboard.press('Enter');
    await page.waitForSelector('#integration-name-error:not([hidden])');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('integration-name');
    await expectStateUsable(page);

    await page.keyboard.type('Support desk');
    await tabTo(page, 'integration-recipe');
    await page.keyboard.type('Freshdesk');
    expect(await page.inputValue('#integration-recipe')).toBe('freshdesk');
    await tabTo(page, 'connect-integration');
    await page.keyboard.press('Enter');
    await page.waitForSelector('#integration-connected');
    const webhookUrl = await page.inputValue('#webhook-url');
    const triggerUrl = await page.inputValue('#trigger-url');
    expect(webhookUrl).toMatch(/\/inbound\/ticket-status\/[A-Za-z0-9_-]{43}$/);
    expect(triggerUrl).toMatch(/\/inbound\/ticket-trigger\/[A-Za-z0-9_-]{43}$/);
    expect(await page.locator('#recipe-setup').textContent()).toContain('Freshdesk');
    await expectStateUsable(page);

    // Each Copy button copies its own URL only; the secrets are in those two boxes and nowhere else.
    expect(await pressCopy(page, 'copy-webhook-url')).toBe(webhookUrl);
    expect(await pressCopy(page, 'copy-trigger-url')).toBe(triggerUrl);
    for (const url of [webhookUrl, triggerUrl]) {
      const secret = url.split('/').pop()!;
      const shown = await whereShown(page, secret);
      expect(shown.fields).toEqual([url === webhookUrl ? 'webhook-url' : 'trigger-url']);
      expect(shown.markup).toBe(false);
    }

    await tabTo(page, 'view-integration');
    await page.keyboard.press('Enter');
    await page.waitForSelector('#no-activity');
    integrationPath = new URL(page.url()).pathname;
    for (const url of [webhookUrl, triggerUrl]) {
      expect(await whereShown(page, url.split('/').pop()!)).toEqual({ fields: [], markup: false, text: false });
    }
    await expectStateUsable(page);

    // A helpdesk posts a body without a ticket id: answered 202, listed with its reason.
    expect(await postTo(webhookUrl, { status: 'closed' })).toBe(202);
    await tabTo(page, 'refresh-activity');
    await page.keyboard.press('Enter');
    await page.waitForSelector('#activity');
    const row = await page.locator('#activity tbody tr').first().textContent();
    expect(row).toContain('Webhook URL');
    expect(row).toContain('No ticket id at freshdesk_webhook.ticket_id, ticket_id.');
    await expectStateUsable(page);

    // The deep link template for the ticket screen holds no secret.
    expect(await pressCopy(page, 'copy-deep-link')).toBe(`${service.appUrl}/app/requests/new?ticket={{ticket.id}}`);

    await page.goto(`${service.appUrl}/app/integrations`);
    await page.waitForSelector('#integrations');
    const listed = await page.locator('#integrations tbody tr').textContent();
    expect(listed).toContain('Support desk');
    expect(listed).toContain('Freshdesk');
    expect(listed).toContain('Enabled');
    await expectStateUsable(page);
  }, 180_000);

  it('saves status words, the default preset and a write-only secret; rotates after a confirmation', async () => {
    const page = await context.newPage();
    await signInInBrowser(page, service.appUrl, service.outboxDir, adminEmail);
    await page.goto(`${service.appUrl}${integrationPath}`);
    await page.waitForSelector('#status-map-form');

    // A bad pair is refused at the field; a good one is saved and listed.
    await tabTo(page, 'status-map-changes');
    await page.keyboard.type('Parked=sleeping');
    await tabTo(page, 'save-status-map');
    await page.keyboard.press('Enter');
    await page.waitForSelector('#status-map-changes-error:not([hidden])');
    expect(await page.locator('#status-map-changes-error').textContent()).toContain('Parked=sleeping');
    await expectStateUsable(page);
    await page.fill('#status-map-changes', 'Parked=pending\nWaiting on customer=pending');
    await tabTo(page, 'save-status-map');
    await page.keyboard.press('Enter');
    await page.waitForSelector('#status-map tr[data-word="waiting on customer"]');
    expect(await page.locator('#status-map tr[data-word="parked"]').textContent()).toContain('pending');
    expect(await page.locator('#status').textContent()).toContain('saved');

    await page.selectOption('#settings-default-preset', 'vpn-reset');
    await tabTo(page, 'save-settings');
    await page.keyboard.press('Enter');
    await expect.poll(() => page.inputValue('#deep-link')).toBe(`${service.appUrl}/app/requests/new?ticket={{ticket.id}}&preset=vpn-reset`);

    await page.selectOption('#auth-mode', 'header');
    await page.fill('#auth-header-name', 'X-Desk-Secret');
    await page.fill('#auth-secret', 'a-shared-value-of-some-length');
    await tabTo(page, 'save-auth');
    await page.keyboard.press('Enter');
    await expect.poll(() => page.locator('#integration-facts').textContent()).toContain('X-Desk-Secret');
    expect(await page.inputValue('#auth-secret')).toBe('');
    expect(await whereShown(page, 'a-shared-value-of-some-length')).toEqual({ fields: [], markup: false, text: false });
    await expectStateUsable(page);

    await tabTo(page, 'rotate-urls');
    await page.keyboard.press('Enter');
    // Cancel has the focus: a second Enter does not rotate.
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('cancel-rotate-urls');
    await expectStateUsable(page);
    await tabTo(page, 'confirm-rotate-urls');
    await page.keyboard.press('Enter');
    await page.waitForSelector('#rotated');
    expect(await page.inputValue('#webhook-url')).toMatch(/\/inbound\/ticket-status\/[A-Za-z0-9_-]{43}$/);
    expect(await page.inputValue('#trigger-url')).toMatch(/\/inbound\/ticket-trigger\/[A-Za-z0-9_-]{43}$/);
    await expectStateUsable(page);
  }, 180_000);

  it("removes a status word by keyboard after a confirmation; its button is named with the word", async () => {
    const page = await context.newPage();
    await signInInBrowser(page, service.appUrl, service.outboxDir, adminEmail);
    await page.goto(`${service.appUrl}${integrationPath}`);
    await page.waitForSelector('#status-map tr[data-word="parked"]');
    const removeId = await page.locator('#status-map tr[data-word="parked"] button').getAttribute('id');
    expect(removeId).toMatch(/^remove-status-word-\d+$/);
    expect(await page.getByRole('button', { name: 'Remove the word parked', exact: true }).getAttribute('id')).toBe(removeId);

    // Cancel has the focus, so a second Enter removes nothing; Escape gives the focus back.
    await tabTo(page, removeId!);
    await page.keyboard.press('Enter');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('cancel-remove-status-word');
    expect(await page.locator('#remove-status-word-question').textContent()).toContain('“parked” (now pending)');
    await expectStateUsable(page);
    await page.keyboard.press('Escape');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe(removeId);
    expect(await page.locator('#remove-status-word-confirmation').isHidden()).toBe(true);

    await page.keyboard.press('Enter');
    await tabTo(page, 'confirm-remove-status-word');
    await page.keyboard.press('Enter');
    await page.waitForSelector('#status-map tr[data-word="parked"]', { state: 'detached' });
    expect(await page.locator('#status').textContent()).toContain('“parked” is removed');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('status-map-form-heading');
    expect(await page.locator('#status-map tr[data-word="waiting on customer"]').count()).toBe(1);
    await expectStateUsable(page);
  }, 180_000);

  it('has no Integrations item for a plain member', async () => {
    const page = await (await browser.newContext()).newPage();
    await signInInBrowser(page, service.appUrl, service.outboxDir, plainEmail);
    expect(await page.locator('#nav a[href="/app/integrations"]').count()).toBe(0);
  }, 60_000);
});
