import { mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newIdentityPublicKey } from '../../lambdas/local/demo-identity.ts';
import { chromiumPresent, expectNoSeriousAxeViolations, launch } from '../support/browser.ts';
import { startTestService, type TestService } from '../support/test-service.ts';

/**
 * A subject whose link runs out while they look for the password: the page warns two minutes
 * before, and ends only when the service says the link is closed. The browser's clock is moved
 * forward (Playwright's clock) while the service keeps real time.
 */
const haveChromium = chromiumPresent();
const shotsDir = mkdtempSync(join(tmpdir(), 'subject-expiry-shots-'));

let service: TestService;
let browser: Browser;
let apiKey: string;
const recipient = 'recipient@expiry.example';

beforeAll(async () => {
  if (!haveChromium) return;
  service = await startTestService();
  const org = await service.admin.createOrganisation({ name: 'Expiry MSP', plan: 'team' });
  await service.admin.addMember({ orgId: org.id, name: 'Rae Recipient', email: recipient, role: 'owner', identityKey: newIdentityPublicKey() });
  apiKey = await service.createKey(org.id, { name: 'Expiry test key' });
  browser = await launch();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await service?.stop();
});

const openCredentialStep = async (page: Page) => {
  const created = await service.call('POST', '/requests', {
    key: apiKey,
    body: { subject_name: 'Sam Subject', justification: 'Mailbox password for the migration', recipients: [recipient], verification_mode: 'none' },
  });
  expect(created.status).toBe(201);
  const body = created.body as { link: string; request: { id: string; link_expires_at: string } };
  await page.clock.install({ time: Date.now() });
  await page.goto(body.link);
  await page.waitForSelector('#credential');
  return { id: body.request.id, expiresAt: Date.parse(body.request.link_expires_at) };
};

/** Moves the page's clock to `offsetMs` from the link's expiry, past the watch's next check. */
const moveTo = async (page: Page, expiresAt: number, offsetMs: number) => {
  const pageNow = await page.evaluate(() => Date.now());
  await page.clock.fastForward(Math.max(0, expiresAt + offsetMs - pageNow) + 11_000);
};

describe.skipIf(!haveChromium)("the subject's link running out", () => {
  it('warns two minutes before, keeps what was typed, and ends the page only on the service\'s word', async () => {
    const page = await browser.newPage();
    const { id, expiresAt } = await openCredentialStep(page);
    await page.focus('#credential');
    await page.keyboard.type('half-typed');

    // Times say their zone: the emails and certificates write the same instant in UTC.
    const validUntil = await page.evaluate(() => {
      const label = Array.from(document.querySelectorAll('#request-summary dt')).find((dt) => dt.textContent === 'Link valid until');
      return label?.nextElementSibling?.textContent ?? null;
    });
    expect(validUntil).toMatch(/^\d{1,2} \w{3} \d{4}, \d{2}:\d{2} (UTC|GMT|[A-Z]{2,5}|GMT[+-]\d{1,2})$/);

    // Three minutes before: nothing said yet.
    await moveTo(page, expiresAt, -3 * 60_000);
    expect(await page.locator('#expiry-warning').textContent()).toBe('');

    await moveTo(page, expiresAt, -2 * 60_000);
    await expect.poll(() => page.locator('#expiry-warning').textContent()).toMatch(/^This link expires at .+, in less than two minutes\./);
    expect(await page.locator('#expiry-warning').getAttribute('role')).toBe('alert');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('credential');
    expect(await page.inputValue('#credential')).toBe('half-typed');
    await expectNoSeriousAxeViolations(page);
    const shot = join(shotsDir, 'subject-link-expiring.png');
    await page.screenshot({ path: shot, fullPage: true });
    expect(statSync(shot).size).toBeGreaterThan(1000);

    // The browser's clock past the expiry, the service's not: the link still works, nothing ends.
    await moveTo(page, expiresAt, 0);
    await page.waitForTimeout(300);
    expect(await page.locator('#credential-step').count()).toBe(1);

    // Once the service says the link is closed, the page says so and the warning goes.
    const revoked = await service.call('POST', `/requests/${id}/revoke`, { key: apiKey, body: {} });
    expect(revoked.status).toBe(200);
    await page.clock.fastForward(31_000);
    await page.waitForSelector('#link-closed[data-reason="revoked"]');
    expect(await page.locator('#expiry-warning').textContent()).toBe('');
    expect(await page.locator('#credential').count()).toBe(0);
    await page.close();
  });
});
