import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumPresent, expectEveryControlNamed, expectNoSeriousAxeViolations, launch, signInInBrowser } from '../support/browser.ts';
import { MemberBrowser } from '../support/member-browser.ts';
import { startTestService, type TestService } from '../support/test-service.ts';

/**
 * The API keys page in headless Chromium: an admin creates a key by keyboard, copies it from the
 * page, the key calls /v1; the admin revokes it after the confirmation and /v1 refuses it at once.
 * A plain member has no such page. axe-core on the list, the created key and the confirmation; the
 * page fits a 320 px wide screen.
 */
const haveChromium = chromiumPresent();

const ADMIN_EMAIL = 'ada@keys.example';
const MEMBER_EMAIL = 'tom@keys.example';
const KEY_NAME = 'Browser integration';

let service: TestService;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let api: MemberBrowser;

beforeAll(async () => {
  if (!haveChromium) return;
  service = await startTestService();
  const org = await service.admin.createOrganisation({ name: 'Keys MSP', plan: 'team' });
  await service.admin.addMember({ orgId: org.id, name: 'Ada Admin', email: ADMIN_EMAIL, role: 'admin' });
  await service.admin.addMember({ orgId: org.id, name: 'Tom Technician', email: MEMBER_EMAIL, role: 'member' });
  api = await MemberBrowser.signIn(service, ADMIN_EMAIL);
  // A key made earlier, so the list is a table from the start.
  const earlier = await api.call('POST', '/app/api/keys', { body: { name: 'Earlier key', scopes: ['events:read'] } });
  expect(earlier.status, earlier.text).toBe(201);
  browser = await launch();
  context = await browser.newContext({ permissions: ['clipboard-read', 'clipboard-write'] });
  page = await context.newPage();
  await signInInBrowser(page, service.appUrl, service.outboxDir, ADMIN_EMAIL);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await service?.stop();
});

/** Presses Tab (or Shift+Tab) until `id` has the focus: the page is used by keyboard, not clicked. */
const tabTo = async (id: string, key: 'Tab' | 'Shift+Tab' = 'Tab') => {
  for (let presses = 0; presses < 80; presses++) {
    if ((await page.evaluate(() => document.activeElement?.id)) === id) return;
    await page.keyboard.press(key);
  }
  throw new Error(`#${id} was not reached by ${key}`);
};

const rowOf = (name: string) => page.locator('#api-keys tbody tr', { has: page.locator('th', { hasText: name }) });
const fits = async (what: string) => expect(await page.evaluate(() => document.documentElement.scrollWidth), what).toBeLessThanOrEqual(320);

describe.skipIf(!haveChromium)('the API keys page', () => {
  let secret = '';
  let keyId = '';

  it('an admin creates a key by keyboard and copies it from the page; the key calls /v1', async () => {
    await page.click('#nav a[href="/app/keys"]');
    await page.waitForSelector('#api-keys');
    expect(await page.getAttribute('#nav a[href="/app/keys"]', 'aria-current')).toBe('page');
    expect(await rowOf('Earlier key').locator('.badge').textContent()).toBe('Active');
    await expectEveryControlNamed(page);
    await expectNoSeriousAxeViolations(page);

    await tabTo('api-key-name');
    await page.keyboard.type(KEY_NAME);
    await tabTo('scope-requests-read');
    await page.keyboard.press('Space');
    await tabTo('scope-events-read');
    await page.keyboard.press('Space');
    await tabTo('api-key-allowlist');
    await page.keyboard.type('127.0.0.1');
    await page.keyboard.press('Enter');
    await page.keyboard.type('::1');
    await tabTo('create-api-key');
    await page.keyboard.press('Enter');

    await page.waitForSelector('#api-key-created');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('created-heading');
    secret = await page.inputValue('#api-key-secret');
    expect(secret).toMatch(/^chs_live_[A-Za-z0-9_-]{43}$/);
    expect(await page.textContent('#api-key-created')).toContain('shown only this once');
    expect(await page.textContent('#api-key-created-facts')).toContain('requests:read, events:read');

    // The Copy button puts exactly the field's value on the clipboard.
    await tabTo('copy-api-key');
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => document.getElementById('status')?.textContent?.includes('copied'));
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret);
    await expectEveryControlNamed(page);
    await expectNoSeriousAxeViolations(page);

    // The list shows the new key (never the key itself), and the key works against the API.
    const row = rowOf(KEY_NAME);
    await row.waitFor();
    keyId = (await row.getAttribute('data-key-id'))!;
    expect(await row.locator('.badge').textContent()).toBe('Active');
    expect(await row.textContent()).toContain(`${secret.slice(0, 15)}…`);
    expect(await row.textContent()).toContain('127.0.0.1');
    expect(await page.locator('#api-keys').textContent()).not.toContain(secret);
    const pinged = await service.call('GET', '/ping', { key: secret });
    expect(pinged.status, pinged.text).toBe(200);
    expect(pinged.body.key).toMatchObject({ name: KEY_NAME, scopes: ['requests:read', 'events:read'] });

    // Done: the key leaves the page for good.
    await tabTo('api-key-done');
    await page.keyboard.press('Enter');
    await page.waitForSelector('#api-key-form');
    expect(await page.locator('#api-key-secret').count()).toBe(0);
    // Its use is recorded once an hour: the list says it was used then or up to an hour later.
    await page.reload();
    await rowOf(KEY_NAME).waitFor();
    expect(await rowOf(KEY_NAME).locator('td.nowrap').textContent()).toMatch(/UTC\s*or up to an hour later$/);
  }, 120_000);

  it('the admin revokes it after the confirmation; /v1 then refuses it with 401', async () => {
    await tabTo(`revoke-${keyId}`);
    await page.keyboard.press('Enter');
    await page.waitForSelector('#revoke-confirmation:not([hidden])');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('cancel-revoke');
    expect(await page.textContent('#revoke-question')).toContain(KEY_NAME);
    expect(await page.getAttribute(`#revoke-${keyId}`, 'aria-expanded')).toBe('true');
    await expectEveryControlNamed(page);
    await expectNoSeriousAxeViolations(page);

    // Escape steps back without revoking, to the key's own button.
    await page.keyboard.press('Escape');
    expect(await page.isHidden('#revoke-confirmation')).toBe(true);
    expect(await page.evaluate(() => document.activeElement?.id)).toBe(`revoke-${keyId}`);
    expect((await service.call('GET', '/ping', { key: secret })).status).toBe(200);

    await page.keyboard.press('Enter');
    await page.waitForSelector('#revoke-confirmation:not([hidden])');
    await tabTo('confirm-revoke', 'Shift+Tab');
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => document.getElementById('status')?.textContent?.includes('is revoked'));
    expect(await rowOf(KEY_NAME).locator('.badge').textContent()).toBe('Revoked');
    expect(await page.locator(`#revoke-${keyId}`).count()).toBe(0);

    const refused = await service.call('GET', '/ping', { key: secret });
    expect(refused.status).toBe(401);
    expect(refused.body.code).toBe('unauthenticated');
  }, 60_000);

  it('shows a refused allowlist entry at its field', async () => {
    await page.fill('#api-key-name', 'Fenced key');
    await page.check('#scope-tickets-write');
    await page.fill('#api-key-allowlist', '192.0.2.0/24\n10.0.0.0/33');
    await page.click('#create-api-key');
    await page.waitForSelector('#api-key-allowlist-error:not([hidden])');
    expect(await page.textContent('#api-key-allowlist-error')).toContain('"10.0.0.0/33" is not an IP address or CIDR block');
    expect(await page.getAttribute('#api-key-allowlist', 'aria-invalid')).toBe('true');
    expect(await page.getAttribute('#api-key-allowlist', 'aria-describedby')).toContain('api-key-allowlist-error');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('api-key-allowlist');
    expect(await rowOf('Fenced key').count()).toBe(0);
    await expectNoSeriousAxeViolations(page);
  }, 60_000);

  it('fits a 320 px wide screen: the list with the form, a created key, the confirmation', async () => {
    await page.setViewportSize({ width: 320, height: 640 });
    try {
      await page.goto(`${service.appUrl}/app/keys`);
      await page.waitForSelector('#api-key-form');
      await fits('the list and the form');
      await page.fill('#api-key-name', 'Narrow screen key with a rather long name for a small phone');
      await page.check('#scope-webhooks-write');
      await page.fill('#api-key-allowlist', '2001:db8:1234:5678:9abc:def0:1234:5678/128');
      await page.click('#create-api-key');
      await page.waitForSelector('#api-key-created');
      await fits('the created key');
      const id = await rowOf('Narrow screen key').getAttribute('data-key-id');
      await page.click(`#revoke-${id}`);
      await page.waitForSelector('#revoke-confirmation:not([hidden])');
      await fits('the confirmation');
    } finally {
      await page.setViewportSize({ width: 1280, height: 720 });
    }
  }, 60_000);

  it('is not offered to a plain member, whose own page says it is for owners and admins', async () => {
    const other = await browser.newContext();
    const memberPage = await other.newPage();
    await signInInBrowser(memberPage, service.appUrl, service.outboxDir, MEMBER_EMAIL);
    expect(await memberPage.locator('#nav a[href="/app/keys"]').count()).toBe(0);
    expect(await memberPage.locator('#nav a[href="/app/requests"]').count()).toBe(1);
    await memberPage.goto(`${service.appUrl}/app/keys`);
    await memberPage.waitForSelector('h1:text("API keys")');
    expect(await memberPage.textContent('#content')).toContain('Only owners and admins can see this page.');
    expect(await memberPage.locator('#api-key-form').count()).toBe(0);
    await other.close();
  }, 60_000);
});
