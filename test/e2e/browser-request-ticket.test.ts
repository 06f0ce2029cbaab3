import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumPresent, expectStateUsable, launch, signInInBrowser } from '../support/browser.ts';
import { MemberBrowser } from '../support/member-browser.ts';
import { startTestService, type TestOrganisation, type TestService } from '../support/test-service.ts';

/**
 * A request's page shows its ticket in headless Chromium: the reference, the helpdesk's id, the
 * last status, a link to the ticket, and the integration it is linked through (a link for an
 * owner); a ticket linked through an integration alone, with no reference typed, shows too.
 */
const haveChromium = chromiumPresent();

let service: TestService;
let org: TestOrganisation;
let browser: Browser;
let page: Page;
let integrationId: string;

beforeAll(async () => {
  if (!haveChromium) return;
  service = await startTestService();
  org = await service.createOrganisation({ name: 'Ticket MSP' });
  const owner = await MemberBrowser.signIn(service, org.owner.email);
  const connected = await owner.call('POST', '/app/api/integrations', { body: { name: 'Service desk' } });
  expect(connected.status, connected.text).toBe(201);
  integrationId = connected.body.integration.id;
  browser = await launch();
  page = await (await browser.newContext()).newPage();
  await signInInBrowser(page, service.appUrl, service.outboxDir, org.owner.email);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await service?.stop();
});

const createRequest = async (ticket: Record<string, string>) => {
  const answer = await service.call('POST', '/requests', {
    key: org.key,
    body: { subject_name: 'Jane Doe', justification: 'The firewall admin password', recipients: [org.owner.email], ...ticket },
  });
  expect(answer.status, answer.text).toBe(201);
  return answer.body.request.id as string;
};

const ticketShown = async (id: string) => {
  await page.goto(`${service.appUrl}/app/requests/${id}`);
  await page.waitForSelector('#request-facts');
  return page.textContent('#request-ticket');
};

describe.skipIf(!haveChromium)('the ticket on a request page', () => {
  it('shows the reference, the helpdesk id, the status, the ticket link and the integration', async () => {
    const id = await createRequest({
      ticket_ref: 'INC-4711',
      ticket_url: 'https://desk.example.com/tickets/4711',
      ticket_external_id: '4711',
      ticket_integration_id: integrationId,
    });
    expect((await service.call('POST', '/tickets/INC-4711/status', { key: org.key, body: { status: 'pending' } })).status).toBe(202);
    const text = await ticketShown(id);
    expect(text).toContain('INC-4711 (helpdesk id 4711), pending');
    expect(await page.getAttribute('#ticket-link', 'href')).toBe('https://desk.example.com/tickets/4711');
    expect(await page.getAttribute('#ticket-integration', 'href')).toBe(`/app/integrations/${integrationId}`);
    await expectStateUsable(page);
  });

  it('shows a ticket linked through an integration with no reference typed', async () => {
    const id = await createRequest({ ticket_external_id: '4712', ticket_integration_id: integrationId });
    expect(await ticketShown(id)).toContain('4712');
    expect(await page.locator('#ticket-link').count()).toBe(0);
    expect(await page.locator('#ticket-integration').count()).toBe(1);
  });
});
