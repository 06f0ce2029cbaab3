import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DeleteCommand, GetCommand } from '@aws-sdk/lib-dynamodb';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { swapIdentityKeyInTable } from '../support/key-swap.ts';
import { chromiumPresent, expectEveryControlNamed, launch, signInInBrowser } from '../support/browser.ts';
import { materialItems } from '../support/shapes.ts';
import { scanTable, startTestService, type TestService } from '../support/test-service.ts';

/**
 * The whole handoff in headless Chromium: a member signs in and sets up a key, a request is made
 * through the API, the subject opens the link, passes the challenge code and submits a credential
 * with a file, the member reveals and completes. At each step no table item may hold the
 * credential, the file's content or a private key.
 */
const haveChromium = chromiumPresent();

const CREDENTIAL = 'C0rrect-Horse-Battery-Staple!42';
const FILE_CONTENT = 'totally-secret-recovery-codes-6f1e';
/** A file name can itself be the secret: it is sealed with the contents. */
const FILE_NAME = 'vpn-password-Hunter2-9c4d.txt';

let service: TestService;
let browser: Browser;
let orgId: string;
let apiKey: string;
const ownerEmail = 'owner@browser.example';

const tableText = async () => JSON.stringify(await scanTable(service));

/** No plaintext credential, no file content, no private key anywhere in the table. */
const expectNoSecretsStored = async () => {
  const text = await tableText();
  expect(text).not.toContain(CREDENTIAL);
  expect(text).not.toContain(FILE_CONTENT);
  expect(text).not.toContain('Hunter2-9c4d');
  expect(text).not.toContain(Buffer.from(FILE_CONTENT).toString('base64'));
  expect(text).not.toMatch(/PRIVATE KEY|pkcs8|"d":"/);
};

const signIn = (page: Page) => signInInBrowser(page, service.appUrl, service.outboxDir, ownerEmail);

const requestItem = async (id: string) =>
  (await service.deps.db.send(new GetCommand({ TableName: service.deps.tableName, Key: { pk: `REQ#${id}`, sk: 'REQ' } }))).Item!;

beforeAll(async () => {
  if (!haveChromium) return;
  service = await startTestService();
  const org = await service.admin.createOrganisation({ name: 'Browser MSP', plan: 'team' });
  orgId = org.id;
  await service.admin.addMember({ orgId, name: 'Olivia Owner', email: ownerEmail, role: 'owner' });
  apiKey = await service.createKey(orgId, { name: 'Browser test key' });
  browser = await launch();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await service?.stop();
});

describe.skipIf(!haveChromium)('the handoff in a browser', () => {
  let member: BrowserContext;
  let memberPage: Page;

  it('hands a credential over end to end without the server ever holding it in plain text', async () => {
    member = await browser.newContext();
    memberPage = await member.newPage();
    await signIn(memberPage);

    // The member's browser makes the identity key; only the public half reaches the server.
    await memberPage.goto(`${service.appUrl}/app/key`);
    await memberPage.fill('#passphrase', 'a long passphrase for tests');
    await memberPage.fill('#passphrase-confirm', 'a long passphrase for tests');
    await memberPage.click('#create-key');
    await memberPage.waitForSelector('#backup-json', { state: 'attached' });
    await expect.poll(async () => (await service.admin.directory.listMembers(orgId))[0].identityKey?.state).toBe('verified');
    await expectNoSecretsStored();

    const created = await service.call('POST', '/requests', {
      key: apiKey,
      body: { subject_name: 'Jane Doe', justification: 'Recovery codes for the firewall', recipients: [ownerEmail], verification_mode: 'challenge', allow_attachments: true },
    });
    expect(created.status).toBe(201);
    const requestId: string = created.body.request.id;

    // The subject: a different browser, no session.
    const subject = await browser.newContext();
    const subjectPage = await subject.newPage();
    await subjectPage.goto(created.body.link);
    await subjectPage.waitForSelector('#challenge-code');
    expect((await requestItem(requestId)).status).toBe('opened');
    expect(await subjectPage.locator('#request-summary').textContent()).toContain('Recovery codes for the firewall');
    await subjectPage.fill('#challenge-code', created.body.challenge_code);
    await subjectPage.click('#verify');
    await subjectPage.waitForSelector('#credential');
    await subjectPage.fill('#credential', CREDENTIAL);
    const file = join(mkdtempSync(join(tmpdir(), 'handoff-file-')), FILE_NAME);
    writeFileSync(file, FILE_CONTENT);
    // The page says what is encrypted, file names included, and what is not.
    const notice = await subjectPage.locator('#encryption-notice').textContent();
    expect(notice).toContain('each file with its name and type');
    expect(notice).toContain('Not encrypted');
    await subjectPage.setInputFiles('#attachments', file);
    await subjectPage.click('#submit');
    await subjectPage.waitForSelector('#submitted');
    const submitted = await requestItem(requestId);
    expect(submitted.status).toBe('submitted');
    expect(submitted.attachmentsCount).toBe(1);
    await expectNoSecretsStored();
    await subject.close();

    // The recipient reveals in their own browser, with the key only it holds.
    await memberPage.goto(`${service.appUrl}/app/requests/${requestId}`);
    // The trail is in words: every entry so far (created, opened, verified, submitted) labelled, no raw type name.
    await memberPage.waitForSelector('#audit li[data-type="request.submitted"]');
    const trail = await memberPage.locator('#audit li strong').allTextContents();
    expect(trail).toEqual(expect.arrayContaining(['Created', 'Link opened', 'Subject verified', 'Credential submitted']));
    for (const label of trail) expect(label).not.toMatch(/^[a-z_]+\.[a-z_]+$/);
    await memberPage.click('#reveal');
    await memberPage.waitForSelector('#revealed-credential');
    expect(await memberPage.inputValue('#revealed-credential')).toBe(CREDENTIAL);
    expect(await memberPage.getAttribute('#revealed-credential', 'type')).toBe('password');
    await memberPage.click('#toggle-credential');
    expect(await memberPage.getAttribute('#revealed-credential', 'type')).toBe('text');
    await memberPage.waitForSelector('#revealed-attachments a[download]');
    expect(await memberPage.locator('#revealed-attachments a[download]').count()).toBe(1);
    expect(await memberPage.getAttribute('#revealed-attachments a[download]', 'download')).toBe(FILE_NAME);
    const afterReveal = await requestItem(requestId);
    expect(afterReveal.revealCount).toBe(1);
    expect(afterReveal.lastRevealedAt).toEqual(expect.any(String));
    await expectNoSecretsStored();

    // Completing destroys the credential for everyone: it waits for an explicit second choice.
    await memberPage.click('#complete');
    expect(await memberPage.getAttribute('#complete', 'aria-expanded')).toBe('true');
    expect(await memberPage.evaluate(() => document.activeElement?.id)).toBe('cancel-complete');
    expect((await requestItem(requestId)).status).toBe('submitted');
    await memberPage.click('#confirm-complete');
    await expect.poll(async () => (await requestItem(requestId)).status).toBe('completed');
    expect(await tableText()).not.toContain(`"sk":"MATERIAL#`);
    const api = await service.call('GET', `/requests/${requestId}`, { key: apiKey });
    expect(api.body).toMatchObject({ status: 'completed', reveal_count: 1, attachments_count: 1 });
    await expectNoSecretsStored();
  }, 180_000);

  it('leaves the request pending when the link is fetched without running its script', async () => {
    const created = await service.call('POST', '/requests', {
      key: apiKey,
      body: { subject_name: 'Scanner Test', justification: 'Email scanners must not open this', recipients: [ownerEmail] },
    });
    const page = await fetch(created.body.link.replace('localhost', '127.0.0.1'));
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<script');
    expect((await requestItem(created.body.request.id)).status).toBe('pending');
  });

  it('reads a link pasted with what followed it, and calls a link cut short incomplete, not tampered with', async () => {
    const created = await service.call('POST', '/requests', {
      key: apiKey,
      body: { subject_name: 'Paste Test', justification: 'A pasted link keeps working', recipients: [ownerEmail], verification_mode: 'none' },
    });
    const link: string = created.body.link;
    const context = await browser.newContext();
    const page = await context.newPage();
    for (const damaged of [`${link}.`, `${link}%20`, `${link}>`]) {
      await page.goto(damaged);
      await page.waitForSelector('#credential');
      expect(await page.locator('#refusal').count(), damaged).toBe(0);
    }
    await page.goto(link.slice(0, link.indexOf('#') + 13));
    await page.waitForSelector('#refusal');
    expect(await page.locator('#refusal').innerText()).toContain('This link is incomplete');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('refusal-heading');
    await context.close();
  }, 60_000);

  it('reports a request by keyboard, then keeps the focus in the report section, not at the top of the page', async () => {
    const created = await service.call('POST', '/requests', {
      key: apiKey,
      body: { subject_name: 'Report Test', justification: 'The subject did not expect this', recipients: [ownerEmail], verification_mode: 'none' },
    });
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(created.body.link);
    await page.waitForSelector('#credential');
    await page.focus('#report-reason');
    await page.keyboard.type('I did not ask for this');
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('report');
    await page.keyboard.press('Enter');
    await page.getByText('Thank you. The request was reported.').waitFor();
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('report-heading');
    await context.close();

    // The members hear of it: a word on the request's row, and a notice with the reason on its page.
    const id = created.body.request.id;
    await memberPage.goto(`${service.appUrl}/app/requests`);
    const row = memberPage.locator('#requests tr', { has: memberPage.locator(`a[data-request-id="${id}"]`) });
    expect(await row.innerText()).toContain('reported by the subject');
    await memberPage.goto(`${service.appUrl}/app/requests/${id}`);
    const notice = await memberPage.locator('#reported').innerText();
    expect(notice).toContain('The subject reported this request as unexpected on');
    expect(notice).toContain('They wrote: “I did not ask for this”');
  }, 60_000);

  it('refuses to show files when the stored record holds fewer than the subject sealed', async () => {
    const created = await service.call('POST', '/requests', {
      key: apiKey,
      body: { subject_name: 'Files Test', justification: 'Two files, one dropped later', recipients: [ownerEmail], verification_mode: 'none', allow_attachments: true },
    });
    const requestId: string = created.body.request.id;
    const subject = await browser.newContext();
    const subjectPage = await subject.newPage();
    await subjectPage.goto(created.body.link);
    await subjectPage.waitForSelector('#credential');
    await subjectPage.fill('#credential', CREDENTIAL);
    const folder = mkdtempSync(join(tmpdir(), 'handoff-files-'));
    const files = ['1-read-first.txt', '2-codes.txt'].map((name) => join(folder, name));
    for (const file of files) writeFileSync(file, FILE_CONTENT);
    await subjectPage.setInputFiles('#attachments', files);
    await subjectPage.click('#submit');
    await subjectPage.waitForSelector('#submitted');
    await subject.close();

    // Whoever holds the table drops the first file.
    const [first] = (await materialItems(service, requestId)).filter((item) => String(item.sk).startsWith('MATERIAL#attachment#')).sort((a, b) => String(a.sk).localeCompare(String(b.sk)));
    await service.deps.db.send(new DeleteCommand({ TableName: service.deps.tableName, Key: { pk: first.pk, sk: first.sk } }));
    await memberPage.goto(`${service.appUrl}/app/requests/${requestId}`);
    await memberPage.click('#reveal');
    await memberPage.getByText('The subject sent 2 files, but the service returned 1').waitFor();
    expect(await memberPage.locator('#revealed').count()).toBe(0);
  }, 60_000);

  it('refuses to encrypt when a recipient key was swapped after the request was made', async () => {
    const created = await service.call('POST', '/requests', {
      key: apiKey,
      body: { subject_name: 'Tamper Test', justification: 'A swapped key must be caught', recipients: [ownerEmail], verification_mode: 'none' },
    });
    const [owner] = await service.admin.directory.listMembers(orgId);
    await swapIdentityKeyInTable(service, orgId, owner.id);
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(created.body.link);
    await page.waitForSelector('#refusal');
    expect(await page.locator('#credential').count()).toBe(0);
    // Nothing was sealed; the link was opened, and the service, checking the keys again, flags it for a new link.
    const item = await requestItem(created.body.request.id);
    expect([item.status, item.needsRelink, item.submittedAt ?? null]).toEqual(['opened', true, null]);
    await context.close();
  }, 60_000);

  it('works by keyboard alone, and every control has a name a screen reader can read', async () => {
    const created = await service.call('POST', '/requests', {
      key: apiKey,
      body: { subject_name: 'Keyboard Test', justification: 'Keyboard and labels check', recipients: [ownerEmail], verification_mode: 'challenge' },
    });
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(created.body.link);
    await page.waitForSelector('#challenge-code');
    await expectEveryControlNamed(page);

    const tabTo = async (id: string) => {
      for (let presses = 0; presses < 40; presses++) {
        if ((await page.evaluate(() => document.activeElement?.id)) === id) return;
        await page.keyboard.press('Tab');
      }
      throw new Error(`#${id} cannot be reached with Tab`);
    };
    await tabTo('challenge-code');
    await page.keyboard.type(created.body.challenge_code);
    await page.keyboard.press('Enter');
    await page.waitForSelector('#credential');
    await expectEveryControlNamed(page);
    await tabTo('credential');
    await page.keyboard.type('typed-by-keyboard-only');
    await tabTo('submit');
    await page.keyboard.press('Enter');
    await page.waitForSelector('#submitted');
    expect((await requestItem(created.body.request.id)).status).toBe('submitted');
    await context.close();

    await expectEveryControlNamed(memberPage);
    await memberPage.goto(`${service.appUrl}/app/key`);
    await memberPage.waitForSelector('#key-status');
    await expectEveryControlNamed(memberPage);
  }, 90_000);
});
