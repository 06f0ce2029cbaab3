import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportPublicKey, fingerprintOf, generateIdentityPair } from '../../web/crypto/identity.ts';
import { chromiumPresent, expectEveryControlNamed, expectNoSeriousAxeViolations, latestSignInLink, launch, setUpKeyInBrowser, signInInBrowser } from '../support/browser.ts';
import { swapIdentityKeyInTable } from '../support/key-swap.ts';
import { startTestService, type TestService } from '../support/test-service.ts';

/**
 * A request made in the technician's browser, from a ticket's deep link, by keyboard: the browser
 * fetches the recipients' keys, shows the fingerprints it computed, commits to them; the subject
 * submits; the technician reveals and completes. Then the same page's request with a recipient
 * key swapped in the table afterwards: the subject's page refuses to encrypt.
 */
const haveChromium = chromiumPresent();
const CREDENTIAL = 'Tr0ub4dor&3-for-the-firewall';

let service: TestService;
let browser: Browser;
let orgId: string;
const techEmail = 'tess@newrequest.example';
const colleagueEmail = 'cole@newrequest.example';

const requestItem = async (id: string) =>
  (await service.deps.db.send(new GetCommand({ TableName: service.deps.tableName, Key: { pk: `REQ#${id}`, sk: 'REQ' } }))).Item!;

beforeAll(async () => {
  if (!haveChromium) return;
  service = await startTestService();
  const org = await service.admin.createOrganisation({ name: 'Deep Link MSP', plan: 'team' });
  orgId = org.id;
  await service.admin.addMember({ orgId, name: 'Tess Technician', email: techEmail, role: 'member' });
  const colleagueKey = await exportPublicKey((await generateIdentityPair()).publicKey);
  await service.admin.addMember({ orgId, name: 'Cole Colleague', email: colleagueEmail, role: 'member', identityKey: { publicKey: colleagueKey, fingerprint: await fingerprintOf(colleagueKey) } });
  await service.admin.savePreset(orgId, 'vpn-reset', 'VPN reset', { justification: 'The VPN password after the reset', verification_mode: 'challenge', recipients: [colleagueEmail], ttl_minutes: 1440 });
  browser = await launch();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await service?.stop();
});

/** Presses Tab until `id` has the focus (the page is used by keyboard, not clicked). */
const tabTo = async (page: Page, id: string) => {
  for (let presses = 0; presses < 80; presses++) {
    if ((await page.evaluate(() => document.activeElement?.id)) === id) return;
    await page.keyboard.press('Tab');
  }
  throw new Error(`#${id} was not reached by Tab`);
};

describe.skipIf(!haveChromium)('a new request in the member application', () => {
  let tech: BrowserContext;
  let page: Page;
  let link = '';
  let code = '';
  let requestId = '';

  it('is made from a ticket deep link by keyboard, with the commitment computed in the browser', async () => {
    tech = await browser.newContext();
    page = await tech.newPage();
    await signInInBrowser(page, service.appUrl, service.outboxDir, techEmail);
    await setUpKeyInBrowser(page, service.appUrl);

    // The helpdesk's ticket screen links here with its ticket and a preset.
    await page.goto(`${service.appUrl}/app/requests/new?ticket=T-4711&preset=vpn-reset`);
    await page.waitForSelector('#request-form');
    expect(await page.inputValue('#ticket-ref')).toBe('T-4711');
    expect(await page.inputValue('#justification')).toBe('The VPN password after the reset');
    expect(await page.inputValue('#verification')).toBe('challenge');
    expect(await page.isChecked(`#recipients input[data-email="${colleagueEmail}"]`)).toBe(true);
    await expectEveryControlNamed(page);
    await expectNoSeriousAxeViolations(page);

    await tabTo(page, 'subject-name');
    await page.keyboard.type('Dana Subject');
    await tabTo(page, 'check-recipients');
    await page.keyboard.press('Enter');
    await page.waitForSelector('#confirm-recipients');
    // The fingerprints shown are the ones this browser computed from the keys as served.
    const [colleague] = await service.admin.directory.listMembers(orgId).then((members) => members.filter((m) => m.email === colleagueEmail));
    expect(await page.locator(`#confirm-recipients li[data-membership-id="${colleague.id}"] .fingerprint`).textContent()).toBe(colleague.identityKey!.fingerprint.match(/.{1,4}/g)!.join(' '));
    expect(await page.locator('#confirm-recipients li').count()).toBe(2);
    await expectNoSeriousAxeViolations(page);
    await tabTo(page, 'create-request');
    await page.keyboard.press('Enter');

    await page.waitForSelector('#request-created');
    link = await page.inputValue('#request-link');
    code = await page.inputValue('#challenge-code');
    expect(code).toMatch(/^[0-9]{6}$/);
    expect(link).not.toContain(code);
    expect(await page.locator('#computed-by').textContent()).toContain('computed by this browser');
    requestId = (await page.getAttribute('#view-request', 'href'))!.split('/').pop()!;
    const stored = await requestItem(requestId);
    expect(new URL(link).hash).toBe(`#${stored.commit}`);
    expect(stored.ticket.ref).toBe('T-4711');
    await expectNoSeriousAxeViolations(page);

    // The address is now the request's, and reloading asks first: the link and code would be gone.
    expect(new URL(page.url()).pathname).toBe(`/app/requests/${requestId}`);
    const asked: string[] = [];
    page.once('dialog', (dialog) => {
      asked.push(dialog.type());
      void dialog.accept();
    });
    await page.reload();
    expect(asked).toEqual(['beforeunload']);
    await page.waitForSelector('#request-facts');
    expect(await page.locator('h1').innerText()).toBe('Request for Dana Subject');
  }, 120_000);

  it('keeps the deep link across a sign-in: the emailed link, opened in another tab, lands on the form with the ticket', async () => {
    const signedOut = await browser.newContext();
    const first = await signedOut.newPage();
    await first.goto(`${service.appUrl}/app/requests/new?ticket=T-4800&preset=vpn-reset`);
    await first.waitForSelector('#sign-in-form');
    await first.fill('#email', techEmail);
    await first.keyboard.press('Enter');
    await first.waitForSelector('#check-email');
    const second = await signedOut.newPage();
    await second.goto(latestSignInLink(service.outboxDir));
    await second.waitForSelector('#request-form');
    expect(new URL(second.url()).pathname).toBe('/app/requests/new');
    expect(await second.inputValue('#ticket-ref')).toBe('T-4800');
    await signedOut.close();
  }, 60_000);

  it('lets the subject submit, and the technician reveal and complete', async () => {
    const subject = await browser.newContext();
    const subjectPage = await subject.newPage();
    await subjectPage.goto(link);
    await subjectPage.waitForSelector('#challenge-code');
    await subjectPage.fill('#challenge-code', code);
    await subjectPage.keyboard.press('Enter');
    await subjectPage.waitForSelector('#credential');
    await subjectPage.fill('#credential', CREDENTIAL);
    await subjectPage.click('#submit');
    await subjectPage.waitForSelector('#submitted');
    await subject.close();

    await page.goto(`${service.appUrl}/app/requests/${requestId}`);
    await page.click('#reveal');
    await page.waitForSelector('#revealed-credential');
    expect(await page.inputValue('#revealed-credential')).toBe(CREDENTIAL);
    await page.click('#complete');
    await page.click('#confirm-complete');
    await expect.poll(async () => (await requestItem(requestId)).status).toBe('completed');
    // The page no longer shows a credential it says was destroyed.
    await page.waitForSelector('#status:has-text("Completed")');
    expect(await page.locator('#revealed-credential').count()).toBe(0);
    expect(await page.textContent('main')).not.toContain(CREDENTIAL);
  }, 120_000);

  it("shows the service's refusal under the field it is about, marked and tied to it, with the keyboard there", async () => {
    await page.goto(`${service.appUrl}/app/requests/new`);
    await page.waitForSelector('#request-form');
    await tabTo(page, 'check-recipients');
    await page.keyboard.press('Enter');
    // Checked in the page first: the subject's name.
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe('subject-name');
    expect(await page.getAttribute('#subject-name', 'aria-invalid')).toBe('true');
    expect(await page.textContent('#subject-name-error')).toBe('Enter the subject’s name.');

    await page.keyboard.type('Shor Tjustification');
    await tabTo(page, 'justification');
    await page.keyboard.type('Too short');
    await page.check(`#recipients input[data-email="${colleagueEmail}"]`);
    await tabTo(page, 'check-recipients');
    await page.keyboard.press('Enter');
    await page.waitForSelector('#confirm-recipients');
    // "Change the recipients" goes back to the choice, and the confirmation goes with it.
    await tabTo(page, 'change-recipients');
    await page.keyboard.press('Enter');
    await expect.poll(() => page.evaluate(() => (document.activeElement as HTMLInputElement | null)?.dataset.email)).toBe(colleagueEmail);
    expect(await page.locator('#confirm-recipients').count()).toBe(0);
    await tabTo(page, 'check-recipients');
    await page.keyboard.press('Enter');
    await page.waitForSelector('#confirm-recipients');
    await tabTo(page, 'create-request');
    await page.keyboard.press('Enter');
    // The service refused the justification: its message is under the field, which has the focus.
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe('justification');
    expect(await page.getAttribute('#justification', 'aria-invalid')).toBe('true');
    expect(await page.textContent('#justification-error')).toBe('Must be 10 to 1000 characters.');
    expect((await page.getAttribute('#justification', 'aria-describedby'))!.split(' ')).toContain('justification-error');
    expect(await page.getAttribute('#subject-name', 'aria-invalid')).toBeNull();
    await expectNoSeriousAxeViolations(page);
  }, 120_000);

  it('makes the subject page refuse to encrypt when a recipient key is swapped in the table afterwards', async () => {
    await page.goto(`${service.appUrl}/app/requests/new`);
    await page.waitForSelector('#request-form');
    await page.fill('#subject-name', 'Tamper Subject');
    await page.fill('#justification', 'A swapped key must be caught');
    await page.check(`#recipients input[data-email="${colleagueEmail}"]`);
    await page.click('#check-recipients');
    await page.click('#create-request');
    await page.waitForSelector('#request-created');
    const tamperLink = await page.inputValue('#request-link');

    const [colleague] = (await service.admin.directory.listMembers(orgId)).filter((m) => m.email === colleagueEmail);
    await swapIdentityKeyInTable(service, orgId, colleague.id);
    const subject = await browser.newContext();
    const subjectPage = await subject.newPage();
    await subjectPage.goto(tamperLink);
    await subjectPage.waitForSelector('#refusal');
    expect(await subjectPage.locator('#credential').count()).toBe(0);
    await subject.close();
    await tech.close();
  }, 120_000);
});
