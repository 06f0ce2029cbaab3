import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATOR_ACTOR } from '../../lambdas/core/model.ts';
import { connectIntegration } from '../../lambdas/core/use-cases/integrations/manage-integration.ts';
import { chromiumPresent, expectStateUsable, launch, signInInBrowser } from '../support/browser.ts';
import { startTestService, type TestService } from '../support/test-service.ts';

/**
 * The pages with preset controls, for an admin of a Free organisation (presets are Team and above,
 * lambdas/core/plans.ts): the presets page keeps its templates and says why there are no presets,
 * the new-request page (also opened from a ticket's link naming a preset kept from the Team plan)
 * and an integration's settings say so where the preset control would be. Each state passes axe,
 * names every control and fits 320 px.
 */
const haveChromium = chromiumPresent();

const ADMIN_EMAIL = 'ada@free-plan.example';
const NOTE = 'Presets are part of the Team plan and above';

let service: TestService;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let integrationId = '';

beforeAll(async () => {
  if (!haveChromium) return;
  service = await startTestService();
  const org = await service.admin.createOrganisation({ name: 'Free MSP', plan: 'team' });
  await service.admin.addMember({ orgId: org.id, name: 'Ada Admin', email: ADMIN_EMAIL, role: 'admin' });
  // Saved while on Team, then the organisation moved to Free.
  await service.admin.savePreset(org.id, 'vpn-reset', 'VPN reset', { justification: 'Reset of the VPN credentials' });
  integrationId = (await connectIntegration(service.deps, OPERATOR_ACTOR, { orgId: org.id, name: 'Support desk' })).integration.id;
  await service.admin.setPlan(org.id, 'free');
  browser = await launch();
  context = await browser.newContext();
  page = await context.newPage();
  await signInInBrowser(page, service.appUrl, service.outboxDir, ADMIN_EMAIL);
}, 120_000);

afterAll(async () => {
  await context?.close();
  await browser?.close();
  await service?.stop();
});

describe.skipIf(!haveChromium)('preset controls on the Free plan', () => {
  it('the presets page offers templates only, and says why there are no presets', async () => {
    await page.goto(`${service.appUrl}/app/organisation/presets`);
    await page.waitForSelector('#template-form');
    expect(await page.textContent('#presets-plan-note')).toContain(NOTE);
    expect(await page.$('#preset-form')).toBeNull();
    expect(await page.$('#default-presets')).toBeNull();
    await expectStateUsable(page);
  });

  it("the new-request page, opened from a ticket's link naming a preset, has no preset control and says why", async () => {
    await page.goto(`${service.appUrl}/app/requests/new?ticket=T-1&preset=vpn-reset`);
    await page.waitForSelector('#request-form');
    expect(await page.textContent('#preset-plan-note')).toContain(NOTE);
    expect(await page.$('#preset')).toBeNull();
    // The preset's defaults were not filled in; the ticket was.
    expect(await page.inputValue('#justification')).toBe('');
    expect(await page.inputValue('#ticket-ref')).toBe('T-1');
    await expectStateUsable(page);
  });

  it("an integration's settings have no default preset control and say why", async () => {
    await page.goto(`${service.appUrl}/app/integrations/${integrationId}`);
    await page.waitForSelector('#settings-form');
    expect(await page.textContent('#settings-preset-plan-note')).toContain(NOTE);
    expect(await page.$('#settings-default-preset')).toBeNull();
    await expectStateUsable(page);
  });

  it('the webhooks page has no form to add one, and says why', async () => {
    await page.goto(`${service.appUrl}/app/webhooks`);
    await page.waitForSelector('#webhooks-plan-note');
    expect(await page.textContent('#webhooks-plan-note')).toContain('Sending events to your systems is part of the Team plan and above');
    expect(await page.$('#webhook-form')).toBeNull();
    await expectStateUsable(page);
  });
});
