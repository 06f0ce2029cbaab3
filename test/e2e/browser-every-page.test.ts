import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumPresent, expectEveryControlNamed, expectNoSeriousAxeViolations, launch, setUpKeyInBrowser, signInInBrowser } from '../support/browser.ts';
import { startTestService, type TestService } from '../support/test-service.ts';

/**
 * Every page of the member application, the subject's page and a share's page, each in the state
 * a person first meets it (and the request page with a credential waiting): axe finds no serious
 * or critical violation, every control is named, and at 320 px wide the page itself does not
 * scroll sideways. Pages with forms of their own are driven through in their own test files; this
 * one holds the rule for all of them, so a page added later is added to PAGES below.
 */
const haveChromium = chromiumPresent();

const OWNER_EMAIL = 'owner@every-page.example';

let service: TestService;
let browser: Browser;
let member: BrowserContext;
let memberPage: Page;
let requestId = '';
let subjectLink = '';
let shareLink = '';
let shareId = '';
let webhookId = '';

interface PageCase {
  name: string;
  /** The address, read when the case runs (ids are known only after setup). */
  path: () => string;
  /** What shows once the page has rendered. */
  ready: string;
  /** A page for people without a session: opened in a fresh browser context. */
  signedOut?: boolean;
}

const PAGES: PageCase[] = [
  { name: 'sign-in', path: () => '/app/sign-in', ready: '#sign-in-form', signedOut: true },
  { name: 'verify (signed out)', path: () => '/app/verify', ready: '#verify-form', signedOut: true },
  { name: "subject's page", path: () => subjectLink, ready: '#challenge-code', signedOut: true },
  { name: "a share's page", path: () => shareLink, ready: '#share-describe', signedOut: true },
  { name: 'my requests', path: () => '/app/requests', ready: '#requests' },
  { name: 'a request with a credential waiting', path: () => `/app/requests/${requestId}`, ready: '#reveal' },
  { name: 'new request', path: () => '/app/requests/new', ready: '#request-form' },
  { name: 'my key', path: () => '/app/key', ready: '#key-status' },
  { name: 'shares', path: () => '/app/shares', ready: '#shares' },
  { name: 'new share', path: () => '/app/shares/new', ready: '#share-form' },
  { name: 'a share', path: () => `/app/shares/${shareId}`, ready: '#share-facts' },
  { name: 'verify', path: () => '/app/verify', ready: '#verify-form' },
  { name: 'members', path: () => '/app/members', ready: '#members' },
  { name: 'audit log', path: () => '/app/audit', ready: '#audit-log' },
  { name: 'webhooks', path: () => '/app/webhooks', ready: '#webhook-form' },
  { name: 'a webhook', path: () => `/app/webhooks/${webhookId}`, ready: '#webhook-facts' },
  { name: 'API keys', path: () => '/app/keys', ready: '#api-key-form' },
  { name: 'integrations', path: () => '/app/integrations', ready: '#integration-form' },
  { name: 'organisation policy', path: () => '/app/organisation/policy', ready: '#policy-form' },
  { name: 'presets and templates', path: () => '/app/organisation/presets', ready: '#preset-form' },
  { name: 'clients and teams', path: () => '/app/organisation/clients', ready: '#team-form' },
  { name: 'page not found', path: () => '/app/no-such-page', ready: 'h1:text("Page not found")' },
  { name: 'a request that does not exist', path: () => '/app/requests/01hzzzzzzzzzzzzzzzzzzzzzzz', ready: 'h1:text-is("Not found")' },
  { name: 'a share that does not exist', path: () => '/app/shares/01hzzzzzzzzzzzzzzzzzzzzzzz', ready: 'h1:text-is("Not found")' },
];

const url = (path: string) => (path.startsWith('http') ? path : `${service.appUrl}${path}`);

beforeAll(async () => {
  if (!haveChromium) return;
  service = await startTestService();
  const org = await service.admin.createOrganisation({ name: 'Every Page MSP', plan: 'team' });
  await service.admin.addMember({ orgId: org.id, name: 'Olivia Owner', email: OWNER_EMAIL, role: 'owner' });
  const apiKey = await service.createKey(org.id, { name: 'Every page key' });
  browser = await launch();
  member = await browser.newContext();
  memberPage = await member.newPage();
  await signInInBrowser(memberPage, service.appUrl, service.outboxDir, OWNER_EMAIL);
  await setUpKeyInBrowser(memberPage, service.appUrl);

  // One request the subject has answered (so the request page offers Reveal), one still unopened.
  const answered = await service.call('POST', '/requests', {
    key: apiKey,
    body: { subject_name: 'Jane Doe', justification: 'Router admin password', recipients: [OWNER_EMAIL], verification_mode: 'none' },
  });
  requestId = answered.body.request.id;
  const subject = await browser.newContext();
  const subjectPage = await subject.newPage();
  await subjectPage.goto(answered.body.link);
  await subjectPage.fill('#credential', 'a credential for the page test');
  await subjectPage.click('#submit');
  await subjectPage.waitForSelector('#submitted');
  await subject.close();
  const unopened = await service.call('POST', '/requests', {
    key: apiKey,
    body: { subject_name: 'Sam Subject', justification: 'Mailbox password', recipients: [OWNER_EMAIL], verification_mode: 'challenge' },
  });
  subjectLink = unopened.body.link;
  const webhook = await service.call('POST', '/webhooks', { key: apiKey, body: { url: 'https://hooks.example.com/every-page', events: ['request.created'] } });
  webhookId = webhook.body.id;

  await memberPage.goto(url('/app/shares/new'));
  await memberPage.fill('#share-credential', 'a shared credential for the page test');
  await memberPage.click('#create-share');
  await memberPage.waitForSelector('#share-link');
  shareLink = await memberPage.inputValue('#share-link');
  shareId = (await memberPage.getAttribute('#view-share', 'href'))!.split('/').pop()!;
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await service?.stop();
});

describe.skipIf(!haveChromium)('every page', () => {
  it.each(PAGES.map((page) => [page.name, page] as const))('%s: no serious axe violation, every control named, fits 320 px', async (_name, pageCase) => {
    const context = pageCase.signedOut ? await browser.newContext() : member;
    const page = pageCase.signedOut ? await context.newPage() : memberPage;
    try {
      await page.setViewportSize({ width: 1280, height: 800 });
      await page.goto(url(pageCase.path()));
      await page.waitForSelector(pageCase.ready);
      await expectEveryControlNamed(page);
      await expectNoSeriousAxeViolations(page);
      await page.setViewportSize({ width: 320, height: 640 });
      expect(await page.evaluate(() => document.documentElement.scrollWidth), `${pageCase.name} at 320 px`).toBeLessThanOrEqual(320);
      await expectNoSeriousAxeViolations(page);
    } finally {
      if (pageCase.signedOut) await context.close();
    }
  });
});
