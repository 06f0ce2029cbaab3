import { mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumPresent, expectNoSeriousAxeViolations, signInInBrowser, tabTo } from '../support/browser.ts';
import { ownerInBrowser, type OwnerInBrowser } from '../support/owner-in-browser.ts';
import { identityKey, type TestOrganisation, type TestService } from '../support/test-service.ts';

/**
 * Approving a member's replaced key from the Members page approves the key whose fingerprint the
 * page showed, and no other: a key registered after the page was shown (another browser, or
 * whoever holds the member's session) is refused, and stays awaiting approval. A key the member
 * cannot confirm is refused from the same row, after a confirmation.
 */
const haveChromium = chromiumPresent();

let world: OwnerInBrowser;
let service: TestService;
let org: TestOrganisation;
let page: Page;

beforeAll(async () => {
  if (!haveChromium) return;
  world = await ownerInBrowser('Approve MSP');
  ({ service, org, page } = world);
}, 120_000);

afterAll(() => world?.stop());

const stateOfMember = async () => (await service.deps.directory.listMembers(org.orgId)).find((m) => m.id === org.member.id)!.identityKey!;

describe.skipIf(!haveChromium)('approving a replaced key', () => {
  it('refuses when the key awaiting approval is no longer the one shown, and approves the one shown', async () => {
    const reviewed = identityKey();
    await service.admin.setIdentityKey(org.orgId, org.member.id, reviewed);
    await page.goto(`${service.appUrl}/app/members`);
    await page.waitForSelector(`#approve-${org.member.id}`);

    // Another key replaces it after the page showed the first.
    const swapped = identityKey();
    await service.admin.setIdentityKey(org.orgId, org.member.id, swapped);
    await page.focus(`#approve-${org.member.id}`);
    await page.keyboard.press('Enter');
    await expect.poll(() => page.locator('#error').textContent()).not.toBe('');
    expect(await stateOfMember()).toMatchObject({ fingerprint: swapped.fingerprint, state: 'replaced_pending_approval' });

    // Shown again, the page shows the key now awaiting approval, and approving approves that one.
    await page.goto(`${service.appUrl}/app/members`);
    await page.waitForSelector(`#approve-${org.member.id}`);
    await page.click(`#approve-${org.member.id}`);
    await expect.poll(() => page.locator('#status').textContent()).toContain('is approved');
    expect(await stateOfMember()).toMatchObject({ fingerprint: swapped.fingerprint, state: 'verified' });
    await expectNoSeriousAxeViolations(page);
  });

  it('refuses a replaced key by keyboard, after a confirmation, and only the one shown', async () => {
    const unknown = identityKey();
    await service.admin.setIdentityKey(org.orgId, org.member.id, unknown);
    await page.goto(`${service.appUrl}/app/members`);
    await page.waitForSelector(`#refuse-${org.member.id}`);
    await tabTo(page, `refuse-${org.member.id}`);
    await page.keyboard.press('Enter');
    await page.waitForSelector('#member-action-confirmation:not([hidden])');
    expect(await page.locator('#member-action-confirmation').textContent()).toContain(`fingerprint starting ${unknown.fingerprint.slice(0, 4)} ${unknown.fingerprint.slice(4, 8)}`);
    await expectNoSeriousAxeViolations(page);
    const shot = join(mkdtempSync(join(tmpdir(), 'refuse-key-shots-')), 'members-refuse-key.png');
    await page.screenshot({ path: shot, fullPage: true });
    expect(statSync(shot).size).toBeGreaterThan(1000);
    // Nothing changes until it is confirmed.
    expect(await stateOfMember()).toMatchObject({ fingerprint: unknown.fingerprint, state: 'replaced_pending_approval' });

    await tabTo(page, 'confirm-member-action');
    await page.keyboard.press('Enter');
    await expect.poll(() => page.locator('#status').textContent()).toContain('is refused');
    expect(await stateOfMember()).toMatchObject({ fingerprint: unknown.fingerprint, state: 'refused' });
    const row = page.locator(`tr[data-member-id="${org.member.id}"]`);
    expect(await row.textContent()).toContain('Refused by an owner or admin; a new key is needed');
    expect(await page.locator(`#refuse-${org.member.id}`).count()).toBe(0);
    await expectNoSeriousAxeViolations(page);
  });

  it("tells the member on their key page that their key was refused, and offers a new one first", async () => {
    const memberPage = await (await world.browser.newContext()).newPage();
    await signInInBrowser(memberPage, service.appUrl, service.outboxDir, org.member.email);
    await memberPage.goto(`${service.appUrl}/app/key`);
    await memberPage.waitForSelector('#refused-key-notice');
    expect(await memberPage.locator('#refused-key-notice').textContent()).toContain('An owner or admin refused this key, so no request is sealed to it.');
    expect(await memberPage.locator('#key-status').textContent()).toContain('Refused by an owner or admin; a new key is needed');
    // Setting up a new key comes before importing a backup (of the refused key, it would not help).
    const order = await memberPage.evaluate(() => [document.getElementById('create-key-form'), document.getElementById('import-form')].map((el) => el?.getBoundingClientRect().top ?? -1));
    expect(order[0]).toBeLessThan(order[1]);
    await expectNoSeriousAxeViolations(memberPage);
    await memberPage.context().close();
  });

  it('sends a key registration answered 503 again by itself, the same key, not leaving the member to make another', async () => {
    const posted: string[] = [];
    let refused = false;
    await page.route('**/app/api/identity-key', async (route) => {
      posted.push(JSON.parse(route.request().postData() ?? '{}').public_key);
      if (refused) return route.continue();
      refused = true;
      await route.fulfill({
        status: 503,
        headers: { 'Content-Type': 'application/json', 'Retry-After': '1' },
        body: JSON.stringify({ code: 'service_unavailable', message: 'The change was made, but marking the requests it affects did not finish.' }),
      });
    });
    await page.goto(`${service.appUrl}/app/key`);
    await page.fill('#passphrase', 'a long passphrase for tests');
    await page.fill('#passphrase-confirm', 'a long passphrase for tests');
    await page.click('#create-key');
    await expect.poll(() => page.locator('#status').textContent(), { timeout: 15_000 }).toMatch(/^Your (new )?key is set up/);
    await page.unroute('**/app/api/identity-key');
    expect(posted).toHaveLength(2);
    expect(posted[1]).toBe(posted[0]);
    expect(await page.locator('#error').textContent()).toBe('');
    const owner = (await service.admin.directory.getMember(org.orgId, org.owner.id))!;
    expect(owner.identityKey!.publicKey).toBe(posted[0]);
  });
});
