/**
 * The walkthrough's administration pages, as Rita (an admin, signed in) uses them: an API key,
 * a helpdesk integration with a post it could not use and its helpdesk API connected, and the
 * organisation's settings tabs.
 */
import type { Page } from 'playwright-core';
import type { Shot, Step } from './recorder.ts';
import { startFakeZendesk } from '../../test/support/fake-zendesk.ts';

export const organisationSettingsSteps = async (rita: Page, { step, shot }: { step: Step; shot: Shot }) => {
  await step('app: an admin creates an API key', async () => {
    await rita.click('a[href="/app/keys"]');
    await rita.waitForSelector('#api-key-form');
    await rita.fill('#api-key-name', 'Zendesk integration');
    for (const scope of ['requests-read', 'requests-write', 'tickets-write']) await rita.check(`#scope-${scope}`);
    await rita.fill('#api-key-allowlist', '203.0.113.0/24');
    await rita.click('#create-api-key');
    await rita.waitForSelector('#api-key-created');
    await shot(rita, 'app-api-key-created');
  }, rita);
  let integrationWebhookUrl = '';
  await step('app: an admin connects a helpdesk; its URLs shown once', async () => {
    await rita.click('a[href="/app/integrations"]');
    await rita.waitForSelector('#integration-form');
    await rita.fill('#integration-name', 'Zendesk');
    await rita.selectOption('#integration-recipe', 'zendesk');
    await rita.click('#connect-integration');
    await rita.waitForSelector('#integration-connected');
    integrationWebhookUrl = await rita.inputValue('#webhook-url');
    await shot(rita, 'app-integration-connected');
  }, rita);
  await step("app: an integration's settings and the posts it could not use", async () => {
    // A post the helpdesk got wrong: no ticket id where the recipe looks for one.
    await fetch(integrationWebhookUrl, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ detail: {}, event: { current: 'SOLVED' } }) });
    await rita.click('#view-integration');
    await rita.waitForSelector('#activity');
    await rita.locator('#activity').scrollIntoViewIfNeeded();
    await shot(rita, 'app-integration-detail');
  }, rita);
  await step("app: an admin connects the integration's helpdesk API and reads a ticket", async () => {
    // A Zendesk account on loopback, as the contract tests use: the page talks to it as to Zendesk.
    const zendesk = await startFakeZendesk({ clientId: 'credential-handoff', clientSecret: 'walkthrough-zendesk-secret-0123', now: () => Date.now() });
    try {
      zendesk.setTicket('35436', 'solved');
      await rita.locator('#helpdesk-section').scrollIntoViewIfNeeded();
      await rita.selectOption('#helpdesk-adapter', 'zendesk');
      await rita.fill('#helpdesk-url', zendesk.url);
      await rita.fill('#helpdesk-client-id', 'credential-handoff');
      await rita.fill('#helpdesk-client-secret', 'walkthrough-zendesk-secret-0123');
      await rita.click('#connect-helpdesk');
      await rita.waitForSelector('#helpdesk-check-form');
      await rita.fill('#helpdesk-ticket', '35436');
      await rita.click('#check-helpdesk');
      await rita.waitForSelector('#helpdesk-check-answer');
      await rita.locator('#helpdesk-section').scrollIntoViewIfNeeded();
      await shot(rita, 'app-integration-helpdesk');
    } finally {
      await zendesk.close();
    }
  }, rita);
  await step("app: the organisation's policy", async () => {
    await rita.click('a[href="/app/organisation/policy"]');
    await rita.waitForSelector('#policy-form');
    await shot(rita, 'app-organisation-policy');
  }, rita);
  await step('app: presets and templates', async () => {
    await rita.click('.tabs a[href="/app/organisation/presets"]');
    await rita.waitForSelector('#presets');
    await shot(rita, 'app-organisation-presets');
  }, rita);
  await step('app: clients and teams', async () => {
    await rita.click('.tabs a[href="/app/organisation/clients"]');
    await rita.waitForSelector('#team-form');
    await shot(rita, 'app-organisation-clients');
  }, rita);
  await step('app: members, and an invitation', async () => {
    await rita.click('.tabs a[href="/app/members"]');
    await rita.waitForSelector('#invite-form');
    await rita.fill('#invite-name', 'Ines Invited');
    await rita.fill('#invite-email', 'ines@example.com');
    await rita.click('#invite');
    await rita.waitForSelector('#members tr:has-text("Ines Invited")');
    await rita.evaluate(() => window.scrollTo(0, 0));
    await shot(rita, 'app-members');
  }, rita);
};
