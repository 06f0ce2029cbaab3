import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportPublicKey, fingerprintOf, generateIdentityPair } from '../../web/crypto/identity.ts';
import { keys } from '../../lambdas/store/keys.ts';
import { chromiumPresent, expectEveryControlNamed, expectNoSeriousAxeViolations, launch, signInInBrowser, tabTo } from '../support/browser.ts';
import { startTestService, type TestService } from '../support/test-service.ts';

/**
 * The organisation's settings pages, by keyboard: an admin changes the policy's default TTL and
 * minimum verification and finds them saved after a reload (and a default below the minimum
 * refused under its field); creates a template and a preset, edits the preset, makes it the
 * organisation's default preset; and the new-request page opened with the preset shows its
 * defaults. Each state passes axe, and each page fits 320 px without scrolling sideways.
 */
const haveChromium = chromiumPresent();

let service: TestService;
let browser: Browser;
let orgId: string;
const adminEmail = 'ada@settings.example';
const colleagueEmail = 'cole@settings.example';

beforeAll(async () => {
  if (!haveChromium) return;
  service = await startTestService();
  const org = await service.admin.createOrganisation({ name: 'Settings MSP', plan: 'team' });
  orgId = org.id;
  await service.admin.addMember({ orgId, name: 'Ada Admin', email: adminEmail, role: 'admin' });
  const colleagueKey = await exportPublicKey((await generateIdentityPair()).publicKey);
  await service.admin.addMember({ orgId, name: 'Cole Colleague', email: colleagueEmail, role: 'member', identityKey: { publicKey: colleagueKey, fingerprint: await fingerprintOf(colleagueKey) } });
  browser = await launch();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await service?.stop();
});

const organisationItem = async () =>
  (await service.deps.db.send(new GetCommand({ TableName: service.deps.tableName, Key: keys.organisation(orgId), ConsistentRead: true }))).Item!;

const expectAccessible = async (page: Page) => {
  await expectEveryControlNamed(page);
  await expectNoSeriousAxeViolations(page);
};

/** At 320 px the page itself does not scroll sideways (wide tables scroll in their own box). */
const expectFitsNarrowScreen = async (page: Page) => {
  const size = page.viewportSize()!;
  await page.setViewportSize({ width: 320, height: 720 });
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  expect(overflow, 'horizontal scroll of the page at 320 px').toBeLessThanOrEqual(0);
  await expectNoSeriousAxeViolations(page);
  await page.setViewportSize(size);
};

const statusText = (page: Page) => page.textContent('#status');
const focusedId = (page: Page) => page.evaluate(() => document.activeElement?.id);

describe.skipIf(!haveChromium)('the organisation settings pages', () => {
  let context: BrowserContext;
  let page: Page;

  beforeAll(async () => {
    if (!haveChromium) return;
    context = await browser.newContext();
    page = await context.newPage();
    await signInInBrowser(page, service.appUrl, service.outboxDir, adminEmail);
  });
  afterAll(() => context?.close());

  it('changes the default TTL and the minimum verification, saved after a reload', async () => {
    await page.goto(`${service.appUrl}/app/organisation`);
    await page.waitForSelector('#policy-form');
    expect(await page.getAttribute('nav.tabs a[href="/app/organisation/policy"]', 'aria-current')).toBe('page');
    expect(await page.inputValue('#default-ttl')).toBe('1440');
    await expectAccessible(page);

    await tabTo(page, 'default-ttl');
    await page.keyboard.press('ArrowUp'); // 1 day → 1 hour
    expect(await page.inputValue('#default-ttl')).toBe('60');
    await tabTo(page, 'minimum-verification');
    await page.keyboard.press('ArrowDown'); // none → challenge
    expect(await page.inputValue('#minimum-verification')).toBe('challenge');
    await tabTo(page, 'save-policy');
    await page.keyboard.press('Enter');
    await page.waitForSelector('#policy-changes');
    expect(await page.textContent('#policy-changes li[data-field="default_ttl_minutes"]')).toContain('1 hour');
    expect(await page.textContent('#policy-changes li[data-field="minimum_verification"]')).toContain('challenge');
    expect(await statusText(page)).toContain('2 changes');
    // The keyboard is where it was: a button busy while the page saved keeps the focus (aria-disabled, not disabled).
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('save-policy');
    expect((await organisationItem()).policy).toMatchObject({ defaultTtlMinutes: 60, minimumVerification: 'challenge' });
    await expectAccessible(page);

    // A minimum above the default is refused under the default's field, where the focus goes.
    await tabTo(page, 'minimum-verification');
    for (let press = 0; press < 3; press++) await page.keyboard.press('ArrowDown'); // → both
    expect(await page.inputValue('#minimum-verification')).toBe('both');
    await tabTo(page, 'save-policy');
    await page.keyboard.press('Enter');
    await page.waitForSelector('#default-verification-error:not([hidden])');
    expect(await page.textContent('#default-verification-error')).toContain('minimum');
    expect(await page.getAttribute('#default-verification', 'aria-invalid')).toBe('true');
    expect(await focusedId(page)).toBe('default-verification');
    expect(await page.textContent('#error')).toContain('Some fields need attention');
    expect((await organisationItem()).policy.minimumVerification).toBe('challenge');
    await expectAccessible(page);

    await page.reload();
    await page.waitForSelector('#policy-form');
    expect(await page.inputValue('#default-ttl')).toBe('60');
    expect(await page.inputValue('#minimum-verification')).toBe('challenge');
    await expectFitsNarrowScreen(page);
  });

  it('creates a template and a preset, makes it the default, and the new-request page shows its defaults', async () => {
    await page.goto(`${service.appUrl}/app/organisation/presets`);
    await page.waitForSelector('#preset-form');
    expect(await page.isVisible('#no-presets')).toBe(true);
    expect(await page.isVisible('#no-templates')).toBe(true);
    await expectAccessible(page);

    // A template.
    await tabTo(page, 'template-name');
    await page.keyboard.type('VPN access');
    await page.keyboard.press('Tab');
    await page.keyboard.type('We need the VPN password to finish your ticket.');
    await tabTo(page, 'create-template');
    await page.keyboard.press('Enter');
    await page.waitForSelector('#templates tr[data-template-id]');
    expect(await statusText(page)).toContain('VPN access is created');
    await expectAccessible(page);

    // A preset refused first (a slug with capitals), the refusal under the slug.
    await tabTo(page, 'preset-slug');
    await page.keyboard.type('VPN Reset');
    await page.keyboard.press('Tab');
    await page.keyboard.type('VPN reset');
    await tabTo(page, 'save-preset');
    await page.keyboard.press('Enter');
    await page.waitForSelector('#preset-slug-error:not([hidden])');
    expect(await focusedId(page)).toBe('preset-slug');
    await expectAccessible(page);

    await page.keyboard.press('Control+A');
    await page.keyboard.type('vpn-reset');
    await tabTo(page, 'preset-justification');
    await page.keyboard.type('The VPN password after the reset.');
    await tabTo(page, 'preset-ttl');
    await page.keyboard.press('ArrowDown'); // not set → 1 hour
    await tabTo(page, 'preset-verification');
    await page.keyboard.press('ArrowDown'); // not set → challenge (the only modes left are challenge and both)
    await tabTo(page, 'preset-template');
    await page.keyboard.press('ArrowDown'); // none → VPN access
    const colleagueBox = await page.getAttribute(`#preset-recipients input[data-email="${colleagueEmail}"]`, 'id');
    await tabTo(page, colleagueBox!);
    await page.keyboard.press('Space');
    await tabTo(page, 'save-preset');
    await page.keyboard.press('Enter');
    await page.waitForSelector('#presets tr[data-slug="vpn-reset"]');
    expect(await statusText(page)).toContain('vpn-reset) is created');
    await expectAccessible(page);

    // Edit: the same slug saved again replaces it.
    await tabTo(page, 'edit-preset-vpn-reset');
    await page.keyboard.press('Enter');
    expect(await page.inputValue('#preset-slug')).toBe('vpn-reset');
    expect(await page.inputValue('#preset-ttl')).toBe('60');
    await tabTo(page, 'preset-name');
    await page.keyboard.press('Control+A');
    await page.keyboard.type('VPN reset after lockout');
    await tabTo(page, 'save-preset');
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => document.querySelector('#status')?.textContent?.includes('is saved'));
    expect(await page.textContent('#presets tr[data-slug="vpn-reset"] th')).toContain('VPN reset after lockout');

    // The organisation's default preset.
    await tabTo(page, 'org-default-preset');
    await page.keyboard.press('ArrowDown'); // none → vpn-reset
    await tabTo(page, 'save-org-default');
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => document.querySelector('#status')?.textContent?.includes('is now vpn-reset'));
    expect(await page.inputValue('#org-default-preset')).toBe('vpn-reset');
    expect((await organisationItem()).defaultPreset).toBe('vpn-reset');
    await expectAccessible(page);
    await expectFitsNarrowScreen(page);

    // A new request opened with the preset starts from its defaults.
    await page.goto(`${service.appUrl}/app/requests/new?preset=vpn-reset`);
    await page.waitForSelector('#request-form');
    expect(await page.inputValue('#preset')).toBe('vpn-reset');
    expect(await page.inputValue('#justification')).toBe('The VPN password after the reset.');
    expect(await page.inputValue('#ttl')).toBe('60');
    expect(await page.inputValue('#verification')).toBe('challenge');
    expect(await page.$eval('#template', (select) => (select as HTMLSelectElement).selectedOptions[0]?.textContent)).toBe('VPN access');
    expect(await page.isChecked(`#recipients input[data-email="${colleagueEmail}"]`)).toBe(true);
  });

  it('tells a plain member the pages are for owners and admins', async () => {
    const other = await browser.newContext();
    const memberPage = await other.newPage();
    await signInInBrowser(memberPage, service.appUrl, service.outboxDir, colleagueEmail);
    await memberPage.goto(`${service.appUrl}/app/organisation/presets`);
    await memberPage.waitForFunction(() => document.querySelector('h1')?.textContent === 'Presets and templates');
    expect(await memberPage.textContent('#content')).toContain('Only owners and admins');
    await other.close();
  });
});
