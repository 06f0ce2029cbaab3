import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATOR_ACTOR } from '../../lambdas/core/model.ts';
import { connectIntegration } from '../../lambdas/core/use-cases/integrations/manage-integration.ts';
import { chromiumPresent, expectStateUsable, launch, signInInBrowser, tabTo } from '../support/browser.ts';
import { startFakeZendesk, type FakeZendesk } from '../support/fake-zendesk.ts';
import { recordShownSecrets } from '../support/shown-secrets.ts';
import { scanTable, startTestService, type TestOrganisation, type TestService } from '../support/test-service.ts';

/**
 * An integration's helpdesk connection on its page, by keyboard, against a fake Zendesk on
 * loopback: an owner connects it (a helpdesk URL with a path is refused at its field; the form
 * shows only the fields Zendesk takes), the client secret is cleared from its field and appears
 * nowhere in the page or in plain text in the table; a test read says what the ticket's status
 * means, and a failed read says why; a failed read of the verified close is listed in the
 * activity; disconnecting asks first. Every state passes axe and fits a 320 px wide screen.
 */
const haveChromium = chromiumPresent();
const CLIENT_ID = 'handoff-browser-zd';
const CLIENT_SECRET = 'zd-browser-secret-7c41e09b2d6a48f3';

let service: TestService;
let fake: FakeZendesk;
let org: TestOrganisation;
let integrationId: string;
let browser: Browser;
let context: BrowserContext;
let page: Page;

beforeAll(async () => {
  if (!haveChromium) return;
  recordShownSecrets([CLIENT_SECRET]);
  fake = await startFakeZendesk({ clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, now: () => Date.now() });
  // Helpdesk addresses follow the webhook targets' rules: http://127.0.0.1 only where loopback receivers are allowed.
  service = await startTestService({ allowLoopbackWebhooks: true });
  org = await service.createOrganisation({ name: 'Helpdesk Desk' });
  integrationId = (await connectIntegration(service.deps, OPERATOR_ACTOR, { orgId: org.orgId, name: 'Zendesk desk', recipe: 'zendesk' })).integration.id;
  browser = await launch();
  context = await browser.newContext();
  page = await context.newPage();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await service?.stop();
  await fake?.close();
});

/** Where a text shows in the page: element ids of form fields whose value holds it, and whether the markup or visible text does. */
const whereShown = (text: string) =>
  page.evaluate((secret) => {
    const fields = [...document.querySelectorAll<HTMLInputElement | HTMLTextAreaElement>('input, textarea')].filter((f) => f.value.includes(secret)).map((f) => f.id);
    return { fields, markup: document.documentElement.outerHTML.includes(secret), text: document.body.innerText.includes(secret) };
  }, text);

const focusedId = () => page.evaluate(() => document.activeElement?.id);
const visible = (selector: string) => page.locator(selector).isVisible();

/** Every credential and setting field the form has, in its order. */
const HELPDESK_FIELDS = ['client-id', 'client-secret', 'email', 'api-token', 'username', 'password', 'company-id', 'public-key', 'private-key', 'integration-code', 'closed-status-names', 'tenant', 'resolved-status-ids', 'closed-status-ids'];
/** The fields the form shows for the chosen helpdesk. */
const shownFields = async () => {
  const shown: string[] = [];
  for (const name of HELPDESK_FIELDS) if (await visible(`#helpdesk-${name}`)) shown.push(name);
  return shown;
};

describe.skipIf(!haveChromium)('the helpdesk connection of an integration', () => {
  it('connects to Zendesk by keyboard; a wrong field is refused at it; the secret is cleared and shown nowhere', async () => {
    await signInInBrowser(page, service.appUrl, service.outboxDir, org.owner.email);
    await page.goto(`${service.appUrl}/app/integrations/${integrationId}`);
    await page.waitForSelector('#helpdesk-form');
    expect(await page.locator('#no-helpdesk').textContent()).toContain('Not connected');
    expect(await page.locator('#helpdesk-check-form').count()).toBe(0);
    await expectStateUsable(page);

    // Each helpdesk shows exactly the fields it takes.
    await tabTo(page, 'helpdesk-adapter');
    await page.keyboard.type('Jira');
    expect(await page.inputValue('#helpdesk-adapter')).toBe('jira');
    expect(await shownFields()).toEqual(['email', 'api-token', 'closed-status-names']);
    // The ones after Jira, in the list's order, by the arrow key.
    for (const [adapter, fields] of [
      ['halopsa', ['client-id', 'client-secret', 'tenant', 'resolved-status-ids']],
      ['servicenow', ['username', 'password']],
      ['zammad', ['api-token']],
      ['freshdesk', ['api-token']],
      ['freshservice', ['api-token']],
      ['connectwise', ['client-id', 'company-id', 'public-key', 'private-key']],
      ['autotask', ['username', 'password', 'integration-code', 'closed-status-ids']],
    ] as const) {
      await page.keyboard.press('ArrowDown');
      expect(await page.inputValue('#helpdesk-adapter')).toBe(adapter);
      expect(await shownFields(), adapter).toEqual(fields);
      expect(await page.locator('#helpdesk-adapter-hint').textContent()).toMatch(/^\S+/);
    }
    expect(await page.getAttribute('#helpdesk-password', 'type')).toBe('password');
    expect(await page.getAttribute('#helpdesk-private-key', 'type')).toBe('password');
    // Zendesk is the first: back up to it (typing its name at once would extend Jira's type-ahead).
    await page.keyboard.press('Home');
    expect(await page.inputValue('#helpdesk-adapter')).toBe('zendesk');
    expect(await shownFields()).toEqual(['client-id', 'client-secret']);
    expect(await page.getAttribute('#helpdesk-client-secret', 'type')).toBe('password');
    expect(await page.getAttribute('#helpdesk-client-secret', 'autocomplete')).toBe('off');

    // The address of a ticket page, not the site: refused at the URL field, which gets the focus.
    await tabTo(page, 'helpdesk-url');
    await page.keyboard.type(`${fake.url}/agent/tickets/1001`);
    await tabTo(page, 'helpdesk-client-id');
    await page.keyboard.type(CLIENT_ID);
    await tabTo(page, 'helpdesk-client-secret');
    await page.keyboard.type(CLIENT_SECRET);
    await tabTo(page, 'connect-helpdesk');
    await page.keyboard.press('Enter');
    await page.waitForSelector('#helpdesk-url-error:not([hidden])');
    expect(await page.locator('#helpdesk-url-error').textContent()).toContain('site address only');
    expect(await page.getAttribute('#helpdesk-url', 'aria-invalid')).toBe('true');
    expect(await focusedId()).toBe('helpdesk-url');
    expect(await page.locator('#helpdesk-client-secret-error').isHidden()).toBe(true);
    await expectStateUsable(page);

    await page.keyboard.press('Control+A');
    await page.keyboard.type(fake.url);
    await tabTo(page, 'connect-helpdesk');
    await page.keyboard.press('Enter');
    await page.waitForSelector('#helpdesk-facts');
    const shownFacts = await page.locator('#helpdesk-facts').textContent();
    expect(shownFacts).toContain('Zendesk');
    expect(shownFacts).toContain(fake.url);
    expect(shownFacts).toContain('never shown again');
    expect(await page.locator('#integration-facts').textContent()).toContain('Connected to Zendesk');
    expect(await page.locator('#status').textContent()).toContain('Connected to Zendesk');
    expect(await focusedId()).toBe('helpdesk-heading');
    expect(await page.locator('#connect-helpdesk').textContent()).toBe('Replace the connection');

    // The secret fields are empty, and the secret is nowhere in the page.
    expect(await page.inputValue('#helpdesk-client-secret')).toBe('');
    expect(await whereShown(CLIENT_SECRET)).toEqual({ fields: [], markup: false, text: false });
    expect(await page.content()).not.toContain(CLIENT_SECRET);
    await expectStateUsable(page);

    // Stored sealed: no plain client secret anywhere in the table.
    expect(JSON.stringify(await scanTable(service))).not.toContain(CLIENT_SECRET);
  }, 180_000);

  it('reads a ticket through the connection and says what its status means, or why the read failed', async () => {
    fake.setTicket('1001', 'solved');
    await tabTo(page, 'helpdesk-ticket');
    await page.keyboard.type('1001');
    await page.keyboard.press('Enter');
    await page.waitForSelector('#helpdesk-check-answer[data-ok="true"]');
    const answer = await page.locator('#helpdesk-check-answer').textContent();
    expect(answer).toBe('Zendesk says “solved”, which is resolved (counts as closed: a close would destroy).');
    expect(await page.getAttribute('#helpdesk-check-result', 'aria-live')).toBe('polite');
    expect(fake.callsTo('show').at(-1)?.path).toBe('/api/v2/tickets/1001');
    await expectStateUsable(page);

    fake.answerNext('show', { status: 503, body: {} });
    expect(await focusedId()).toBe('helpdesk-ticket');
    await page.keyboard.press('Enter');
    await page.waitForSelector('#helpdesk-check-answer[data-ok="false"]');
    expect(await page.getAttribute('#helpdesk-check-answer', 'data-reason')).toBe('unavailable');
    const failure = await page.locator('#helpdesk-check-result').textContent();
    expect(failure).toContain('Ticket 1001 was not read (unavailable).');
    expect(failure).toContain('HTTP 503');
    expect(failure).toContain('Try again later.');
    await expectStateUsable(page);

    // An empty ticket id is refused at its field, without a call.
    const reads = fake.callsTo('show').length;
    await page.keyboard.press('Control+A');
    await page.keyboard.press('Backspace');
    await page.keyboard.press('Enter');
    await page.waitForSelector('#helpdesk-ticket-error:not([hidden])');
    expect(await page.locator('#helpdesk-check-answer').count()).toBe(0);
    expect(fake.callsTo('show').length).toBe(reads);
    expect(await page.content()).not.toContain(CLIENT_SECRET);
  }, 120_000);

  it('lists a failed helpdesk read of the verified close in the activity', async () => {
    // As the verified close records one (lambdas/core/use-cases/tickets/verify-ticket.ts).
    await service.deps.integrations.recordActivity(integrationId, {
      at: new Date().toISOString(),
      purpose: 'helpdesk',
      reason: 'Reading the ticket failed, so nothing was destroyed: Zendesk ShowTicket: the helpdesk is unavailable (HTTP 503).',
      ticketId: '1001',
      statusWord: null,
    });
    await tabTo(page, 'refresh-activity');
    await page.keyboard.press('Enter');
    await page.waitForSelector('#activity tr[data-activity="helpdesk"]');
    const row = await page.locator('#activity tr[data-activity="helpdesk"]').textContent();
    expect(row).toContain('Helpdesk API (reading the ticket)');
    expect(row).toContain('nothing was destroyed');
    expect(row).toContain('1001');
    await expectStateUsable(page);
  }, 120_000);

  it('disconnects after a confirmation, and the credentials are gone', async () => {
    await tabTo(page, 'disconnect-helpdesk');
    await page.keyboard.press('Enter');
    // Cancel has the focus: a second Enter does not disconnect.
    expect(await focusedId()).toBe('cancel-disconnect-helpdesk');
    expect(await page.locator('#disconnect-helpdesk-question').textContent()).toContain('Disconnect Zendesk?');
    await expectStateUsable(page);
    await tabTo(page, 'confirm-disconnect-helpdesk');
    await page.keyboard.press('Enter');
    await page.waitForSelector('#no-helpdesk');
    expect(await page.locator('#status').textContent()).toContain('Disconnected from Zendesk');
    expect(await page.locator('#integration-facts').textContent()).toContain('Not connected');
    expect(await page.locator('#helpdesk-check-form').count()).toBe(0);
    expect(await page.locator('#disconnect-helpdesk').count()).toBe(0);
    expect(await focusedId()).toBe('helpdesk-heading');
    await expectStateUsable(page);

    expect((await service.deps.integrations.get(org.orgId, integrationId))?.helpdesk ?? null).toBeNull();
    expect(JSON.stringify(await scanTable(service))).not.toContain(CLIENT_SECRET);
  }, 120_000);
});
