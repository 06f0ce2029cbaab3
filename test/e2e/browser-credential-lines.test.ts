import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumPresent, expectNoSeriousAxeViolations, launch, setUpKeyInBrowser, signInInBrowser } from '../support/browser.ts';
import { startTestService, type TestService } from '../support/test-service.ts';

/**
 * A credential of several lines (an SSH private key) pasted into the subject's page or a new
 * share, and revealed or opened at the other end: every line break arrives, and Copy copies it
 * exactly. A password field drops them silently; these pages must not.
 */
const haveChromium = chromiumPresent();

const OWNER_EMAIL = 'owner@lines.example';
const KEY = [
  '-----BEGIN OPENSSH PRIVATE KEY-----',
  'b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW',
  'QyNTUxOQAAACDk8cQ4Qq0w2VJgbB4lX4Ufq3n5m2Yl0n6cS8xk0dBfXAAAAJhY5hLZWOYS',
  '-----END OPENSSH PRIVATE KEY-----',
  '',
].join('\n');

let service: TestService;
let browser: Browser;
let member: BrowserContext;
let memberPage: Page;
let apiKey = '';

/** What a paste from the clipboard does: a paste event carrying the text. */
const paste = (page: Page, selector: string, text: string) =>
  page.evaluate(
    ([target, value]) => {
      const data = new DataTransfer();
      data.setData('text/plain', value);
      document.querySelector(target)!.dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }));
    },
    [selector, text] as const,
  );

const controlOf = (page: Page, selector: string) => page.evaluate((target) => document.querySelector(target)?.tagName ?? null, selector);

beforeAll(async () => {
  if (!haveChromium) return;
  service = await startTestService();
  const org = await service.admin.createOrganisation({ name: 'Lines MSP', plan: 'team' });
  await service.admin.addMember({ orgId: org.id, name: 'Olivia Owner', email: OWNER_EMAIL, role: 'owner' });
  apiKey = await service.createKey(org.id, { name: 'Lines key' });
  browser = await launch();
  member = await browser.newContext();
  await member.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: service.appUrl });
  memberPage = await member.newPage();
  await signInInBrowser(memberPage, service.appUrl, service.outboxDir, OWNER_EMAIL);
  await setUpKeyInBrowser(memberPage, service.appUrl);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await service?.stop();
});

describe.skipIf(!haveChromium)('a credential of several lines', () => {
  it("pasted on the subject's page, arrives whole, and the recipient reveals and copies it exactly", async () => {
    const created = await service.call('POST', '/requests', {
      key: apiKey,
      body: { subject_name: 'Sam Subject', justification: 'The deploy key for the build server', recipients: [OWNER_EMAIL], verification_mode: 'none' },
    });
    expect(created.status).toBe(201);
    const subject = await (await browser.newContext()).newPage();
    await subject.goto(created.body.link);
    await subject.waitForSelector('#credential');
    await paste(subject, '#credential', KEY);
    expect(await controlOf(subject, '#credential')).toBe('TEXTAREA');
    expect(await subject.inputValue('#credential')).toBe(KEY);
    expect(await subject.evaluate(() => document.activeElement?.id)).toBe('credential');
    expect(await subject.textContent('#status')).toBe('This credential has 5 lines, so it is shown as text to keep them.');
    await expectNoSeriousAxeViolations(subject);
    await subject.click('#submit');
    await subject.waitForSelector('#submitted');
    await subject.context().close();

    await memberPage.goto(`${service.appUrl}/app/requests/${created.body.request.id}`);
    await memberPage.click('#reveal');
    await memberPage.waitForSelector('#revealed-credential-masked');
    expect(await memberPage.textContent('#revealed-credential-masked')).toBe('Hidden: 5 lines. Choose Show to see them.');
    expect(await memberPage.locator('#revealed-credential').isVisible()).toBe(false);
    await memberPage.focus('#toggle-credential');
    await memberPage.keyboard.press('Enter');
    expect(await memberPage.locator('#revealed-credential').isVisible()).toBe(true);
    expect(await memberPage.inputValue('#revealed-credential')).toBe(KEY);
    await memberPage.click('#copy-credential');
    expect(await memberPage.evaluate(() => navigator.clipboard.readText())).toBe(KEY);
    await expectNoSeriousAxeViolations(memberPage);
  });

  it('pasted into a new share, opens whole for its recipient', async () => {
    await memberPage.goto(`${service.appUrl}/app/shares/new`);
    await memberPage.waitForSelector('#share-credential');
    await paste(memberPage, '#share-credential', KEY);
    expect(await controlOf(memberPage, '#share-credential')).toBe('TEXTAREA');
    expect(await memberPage.inputValue('#share-credential')).toBe(KEY);
    await memberPage.click('#create-share');
    await memberPage.waitForSelector('#share-link');
    const link = await memberPage.inputValue('#share-link');

    const recipient = await (await browser.newContext()).newPage();
    await recipient.goto(link);
    await recipient.click('#open');
    await recipient.waitForSelector('#share-opened');
    await recipient.click('#toggle-credential');
    expect(await recipient.inputValue('#share-credential')).toBe(KEY);
    await expectNoSeriousAxeViolations(recipient);
    await recipient.setViewportSize({ width: 320, height: 640 });
    expect(await recipient.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(320);
    await recipient.context().close();
  });
});
