import { mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumPresent, expectEveryControlNamed, expectNoSeriousAxeViolations, launch, signInInBrowser, tabTo } from '../support/browser.ts';
import { latestSignInToken, requestSignIn, startSession } from '../support/member-browser.ts';
import { expectError } from '../support/shapes.ts';
import { startTestService, type TestOrganisation, type TestService } from '../support/test-service.ts';

/**
 * The emailed sign-in link against login CSRF: a link this browser did not ask for (someone else's
 * own, unused link, sent to the reader) says whom it signs in and to which organisation and waits
 * for the reader to confirm, by keyboard, instead of signing the reader in to the sender's account
 * at once; a link this browser asked for signs in at once, as before. Over real HTTP, the
 * preview answers whom a token signs in without using it up.
 */
const haveChromium = chromiumPresent();
const shotsDir = mkdtempSync(join(tmpdir(), 'sign-in-link-shots-'));

let service: TestService;
let org: TestOrganisation;
let attacker: TestOrganisation;

beforeAll(async () => {
  service = await startTestService();
  org = await service.createOrganisation({ name: 'Victim MSP' });
  attacker = await service.createOrganisation({ name: 'Victim MSP Ltd' });
});
afterAll(() => service?.stop());

/** A fresh, unused sign-in token of `email`'s, as its owner could send it to someone else. */
const unusedToken = async (email: string) => {
  expect((await requestSignIn(service, email)).status).toBe(202);
  return latestSignInToken(service, email);
};

describe('POST /app/api/session with preview', () => {
  it('says whom the token signs in, to which organisation, and leaves the token usable', async () => {
    const token = await unusedToken(attacker.owner.email);
    const preview = await service.call('POST', '/app/api/session', { body: { token, preview: true } });
    expect(preview.status, preview.text).toBe(200);
    expect(preview.body).toEqual({ member: { name: attacker.owner.name, email: attacker.owner.email }, organisation: { name: 'Victim MSP Ltd' } });
    expect(preview.headers.get('set-cookie')).toBeNull();
    const session = await startSession(service, token);
    expect(session.status, session.text).toBe(200);
    // Used now: neither a preview nor a session.
    expectError(await service.call('POST', '/app/api/session', { body: { token, preview: true } }), 401, 'unauthenticated');
    expectError(await service.call('POST', '/app/api/session', { body: { token: 'A'.repeat(43), preview: true } }), 401, 'unauthenticated');
    expectError(await service.call('POST', '/app/api/session', { body: { token, preview: 'yes' } }), 422, 'validation_failed', ['preview']);
  });
});

describe.skipIf(!haveChromium)('the sign-in link in a browser', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launch();
  });
  afterAll(() => browser?.close());

  const signedInEmail = async (page: Page) => page.evaluate(async () => (await (await fetch('/app/api/me')).json()).member?.email ?? null);

  it('asks before a link this browser did not ask for signs anyone in, and signs in once confirmed by keyboard', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    // The reader is signed in to their own organisation.
    await signInInBrowser(page, service.appUrl, service.outboxDir, org.owner.email);
    // Someone sends them a link of their own.
    const token = await unusedToken(attacker.owner.email);
    await page.goto(`${service.appUrl}/app/sign-in#token=${token}`);
    await page.waitForSelector('#confirm-sign-in');
    expect(new URL(page.url()).hash).toBe('');
    const text = await page.textContent('#content');
    expect(text).toContain(`Sign in as ${attacker.owner.email}?`);
    expect(text).toContain(`This link signs in ${attacker.owner.name} (${attacker.owner.email}) to Victim MSP Ltd.`);
    expect(text).toContain(`You are signed in as ${org.owner.email} now`);
    expect(await page.evaluate(() => document.activeElement?.tagName)).toBe('H1');
    await expectEveryControlNamed(page);
    await expectNoSeriousAxeViolations(page);
    const shot = join(shotsDir, 'sign-in-link-confirm.png');
    await page.screenshot({ path: shot, fullPage: true });
    expect(statSync(shot).size).toBeGreaterThan(1000);
    // Nothing changed yet: the reader is still themselves, and the token is unused.
    expect(await signedInEmail(page)).toBe(org.owner.email);

    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('confirm-sign-in');
    await page.keyboard.press('Enter');
    await page.waitForSelector('#sign-out');
    expect(await signedInEmail(page)).toBe(attacker.owner.email);
    await context.close();
  });

  it('"This is not me" leaves the token unused and offers the reader their own link', async () => {
    const page = await (await browser.newContext()).newPage();
    const token = await unusedToken(attacker.member.email);
    await page.goto(`${service.appUrl}/app/sign-in#token=${token}`);
    await page.click('#not-me');
    await page.waitForSelector('#sign-in-form');
    expect(await signedInEmail(page)).toBeNull();
    expect((await service.call('POST', '/app/api/session', { body: { token, preview: true } })).status).toBe(200);
    await page.context().close();
  });

  it('shows an address the service refuses under the field, tied to it, the focus on it', async () => {
    const page = await (await browser.newContext()).newPage();
    await page.goto(`${service.appUrl}/app/sign-in`);
    await page.waitForSelector('#sign-in-form');
    const expectRefused = async (message: string) => {
      await page.waitForFunction(() => document.getElementById('email')?.getAttribute('aria-invalid') === 'true');
      expect(await page.textContent('#email-error')).toBe(message);
      expect((await page.getAttribute('#email', 'aria-describedby'))!.split(' ')).toContain('email-error');
      expect(await page.evaluate(() => document.activeElement?.id)).toBe('email');
      expect(await page.textContent('#error')).not.toContain('email:');
    };
    await tabTo(page, 'email');
    await page.keyboard.press('Enter');
    await expectRefused('Enter your work email address.');
    // The browser takes an address without a dot in its domain; the service does not.
    await page.keyboard.type('technician@example');
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => document.getElementById('email-error')?.textContent === 'Must be an email address.');
    await expectRefused('Must be an email address.');
    await expectEveryControlNamed(page);
    await expectNoSeriousAxeViolations(page);
    await page.keyboard.type('.com');
    await page.keyboard.press('Enter');
    await page.waitForSelector('#check-email');
    await page.context().close();
  });

  it('signs in at once with the link this browser asked for', async () => {
    const page = await (await browser.newContext()).newPage();
    await signInInBrowser(page, service.appUrl, service.outboxDir, org.member.email);
    expect(await signedInEmail(page)).toBe(org.member.email);
    // Arriving from the email, the page says as whom, and the landing page's heading has the focus.
    expect(await page.textContent('#status')).toBe(`Signed in as ${org.member.email} to Victim MSP.`);
    expect(await page.evaluate(() => document.activeElement?.tagName)).toBe('H1');
    await page.context().close();
  });
});
