import { createHash } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newIdentityPublicKey } from '../../lambdas/local/demo-identity.ts';
import { chromiumPresent, launch } from '../support/browser.ts';
import { emailedCodeSince, expireEmailedCode, outboxNow } from '../support/emailed-code.ts';
import { startTestService, type TestService } from '../support/test-service.ts';

/**
 * The subject's code step as a person uses it, with the keyboard: a code read out over the phone
 * and typed in groups, and the attempt that locks the link.
 */
const haveChromium = chromiumPresent();

let service: TestService;
let browser: Browser;
let apiKey: string;
const recipient = 'recipient@verify.example';

beforeAll(async () => {
  if (!haveChromium) return;
  service = await startTestService();
  const org = await service.admin.createOrganisation({ name: 'Verify MSP', plan: 'team' });
  await service.admin.addMember({ orgId: org.id, name: 'Rae Recipient', email: recipient, role: 'owner', identityKey: newIdentityPublicKey() });
  apiKey = await service.createKey(org.id, { name: 'Verify test key' });
  browser = await launch();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await service?.stop();
});

const newRequest = async () => {
  const created = await service.call('POST', '/requests', {
    key: apiKey,
    body: { subject_name: 'Sam Subject', justification: 'Mailbox password for the migration', recipients: [recipient], verification_mode: 'challenge' },
  });
  expect(created.status).toBe(201);
  return created.body as { link: string; challenge_code: string; request: { id: string } };
};

/** Opens the link and types `code` into the code field key by key, then presses Enter. */
const typeCode = async (page: Page, code: string) => {
  await page.focus('#challenge-code');
  await page.fill('#challenge-code', '');
  await page.keyboard.type(code);
  await page.keyboard.press('Enter');
};

describe.skipIf(!haveChromium)("the subject's code step", () => {
  it('an empty credential is refused on its field: marked, described by the message, with the keyboard in it', async () => {
    const created = await newRequest();
    const page = await browser.newPage();
    await page.goto(created.link);
    await page.waitForSelector('#challenge-code');
    await typeCode(page, created.challenge_code);
    await page.waitForSelector('#credential');
    await page.focus('#submit');
    await page.keyboard.press('Enter');
    await expect.poll(() => page.locator('#error').textContent()).toBe('Enter the password or secret first.');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('credential');
    expect(await page.locator('#credential').getAttribute('aria-invalid')).toBe('true');
    expect((await page.locator('#credential').getAttribute('aria-describedby'))!.split(' ')).toContain('error');
    // Typing takes the mark away.
    await page.keyboard.type('x');
    expect(await page.locator('#credential').getAttribute('aria-invalid')).toBeNull();
    await page.close();
  });

  it('"Enter a code first" marks the code field and puts the keyboard in it', async () => {
    const created = await newRequest();
    const page = await browser.newPage();
    await page.goto(created.link);
    await page.waitForSelector('#challenge-code');
    await page.focus('#verify');
    await page.keyboard.press('Enter');
    await expect.poll(() => page.locator('#error').textContent()).toBe('Enter a code first.');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('challenge-code');
    expect(await page.locator('#challenge-code').getAttribute('aria-invalid')).toBe('true');
    await page.close();
  });

  it('accepts a spoken code typed in groups, with a space or a dash, and keeps every digit', async () => {
    for (const separator of [' ', '-', '  ']) {
      const created = await newRequest();
      const page = await browser.newPage();
      await page.goto(created.link);
      await page.waitForSelector('#challenge-code');
      const code = created.challenge_code;
      await typeCode(page, `${code.slice(0, 3)}${separator}${code.slice(3)}`);
      await page.waitForSelector('#credential');
      await page.close();
    }
  });

  it('accepts the code typed in the digits of an Arabic, Persian or full-width keyboard', async () => {
    const scripts = [0x0660, 0x06f0, 0xff10];
    for (const zero of scripts) {
      const created = await newRequest();
      const page = await browser.newPage();
      await page.goto(created.link);
      await page.waitForSelector('#challenge-code');
      await typeCode(page, Array.from(created.challenge_code, (digit) => String.fromCodePoint(zero + Number(digit))).join(''));
      await page.waitForSelector('#credential');
      await page.close();
    }
  });

  it('a code that is not six digits is refused on its field in plain words, spending no attempt', async () => {
    const created = await newRequest();
    const page = await browser.newPage();
    await page.goto(created.link);
    await page.waitForSelector('#challenge-code');
    await typeCode(page, created.challenge_code.slice(0, 5));
    await expect.poll(() => page.locator('#error').textContent()).toBe('A code is six digits. Check what you typed and try again.');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('challenge-code');
    expect(await page.locator('#challenge-code').getAttribute('aria-invalid')).toBe('true');
    expect(await page.locator('#attempts-left').textContent()).toBe('5 attempts left before this link locks.');
    await page.close();
  });

  it('an emailed code typed too late says so, offers a new one, and spends no attempt', async () => {
    const created = await service.call('POST', '/requests', {
      key: apiKey,
      body: { subject_name: 'Sam Subject', justification: 'Mailbox password for the migration', recipients: [recipient], verification_mode: 'email_otp', subject_email: 'sam@verify.example' },
    });
    expect(created.status).toBe(201);
    const page = await browser.newPage();
    await page.goto(created.body.link);
    await page.waitForSelector('#send-email-code');
    const before = outboxNow(service);
    await page.click('#send-email-code');
    await expect.poll(() => emailedCodeSince(service, before)).toMatch(/^[0-9]{6}$/);
    const code = emailedCodeSince(service, before)!;
    await expireEmailedCode(service, created.body.request.id);
    await page.focus('#email-code');
    await page.keyboard.type(code);
    await page.keyboard.press('Enter');
    await expect.poll(() => page.locator('#error').textContent()).toBe('That code has expired. Choose “Email me a code” for a new one. 5 attempts left before this link locks.');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('email-code');
    await page.close();
  });

  it('after the fifth wrong code says the link is locked and offers nothing more to try', async () => {
    const created = await newRequest();
    const wrong = created.challenge_code === '000000' ? '111111' : '000000';
    const page = await browser.newPage();
    await page.goto(created.link);
    await page.waitForSelector('#challenge-code');
    for (let attempt = 1; attempt <= 4; attempt++) {
      await typeCode(page, wrong);
      await expect.poll(() => page.locator('#error').textContent()).toContain(`${5 - attempt} ${5 - attempt === 1 ? 'attempt' : 'attempts'} left`);
      // The keyboard stays in the code field, marked wrong and tied to the message and the attempts left.
      expect(await page.evaluate(() => document.activeElement?.id)).toBe('challenge-code');
      expect(await page.locator('#challenge-code').getAttribute('aria-invalid')).toBe('true');
      expect((await page.locator('#challenge-code').getAttribute('aria-describedby'))!.split(' ')).toEqual(expect.arrayContaining(['error', 'attempts-left']));
    }
    await typeCode(page, wrong);
    await page.waitForSelector('#link-closed[data-reason="locked"]');
    expect(await page.locator('#page-title').textContent()).toBe('This link is locked');
    // The page that ends the flow says so in its title and h1, and its heading has the focus.
    expect(await page.title()).toBe('This link is locked');
    expect(await page.locator('h1').textContent()).toBe('This link is locked');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('page-title');
    // Said once: no second heading below the h1, and the status region does not repeat the message.
    expect(await page.getByText('This link is locked', { exact: true }).count()).toBe(1);
    expect(await page.locator('#status').textContent()).toBe('');
    expect(await page.locator('#verify').count()).toBe(0);
    expect(await page.locator('#challenge-code').count()).toBe(0);
    expect(await page.locator('body').textContent()).not.toContain('0 attempts left');
    // The service agrees: the link is locked, the right code no longer helps.
    const token = new URL(created.link).pathname.split('/').pop()!;
    const again = await service.call('POST', '/subject/verify', { headers: { 'X-Link-Token': token }, body: { challenge_code: created.challenge_code } });
    expect(again.status).toBe(410);
    expect(again.body.reason).toBe('locked');
    await page.close();
  });
  it('the code passed in one browser unlocks it there only: a reload keeps it, a new tab or browser with the link is asked for the code again', async () => {
    const created = await newRequest();
    const first = await browser.newContext();
    const second = await browser.newContext();
    try {
      const a = await first.newPage();
      await a.goto(created.link);
      await a.waitForSelector('#challenge-code');
      await typeCode(a, created.challenge_code);
      await a.waitForSelector('#credential');
      // A reload of the same tab keeps what it passed.
      await a.reload();
      await a.waitForSelector('#credential');

      // Another tab of the same browser, and a fresh browser, hold only the link: the code is asked again.
      const tab = await first.newPage();
      await tab.goto(created.link);
      await tab.waitForSelector('#challenge-code');
      expect(await tab.locator('#credential').count()).toBe(0);
      await tab.close();
      const b = await second.newPage();
      await b.goto(created.link);
      await b.waitForSelector('#challenge-code');
      expect(await b.locator('#credential').count()).toBe(0);
      expect(await b.locator('#attempts-left').textContent()).toBe('5 attempts left before this link locks.');

      // The fresh browser passes the code too: the first one's pass stops working, and its page asks for the code again.
      await typeCode(b, created.challenge_code);
      await b.waitForSelector('#credential');
      await a.fill('#credential', 'typed-in-the-first-browser');
      await a.click('#submit');
      await expect.poll(() => a.locator('#error').textContent()).toBe('Verify with the code first.');
      await a.waitForSelector('#challenge-code');
      expect((await service.call('GET', `/requests/${created.request.id}`, { key: apiKey })).body.status).not.toBe('submitted');

      // The browser that passed last sends it.
      await b.fill('#credential', 'typed-in-the-second-browser');
      await b.click('#submit');
      await b.waitForSelector('#submitted');
      expect((await service.call('GET', `/requests/${created.request.id}`, { key: apiKey })).body.status).toBe('submitted');
    } finally {
      await first.close();
      await second.close();
    }
  });

  it('keeps the subject pass in this tab\'s sessionStorage only: not in localStorage, a cookie or the address, and it is the one the service holds', async () => {
    const created = await newRequest();
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      const sentPasses: string[] = [];
      page.on('request', (r) => {
        const pass = r.headers()['x-subject-pass'];
        if (pass) sentPasses.push(pass);
        expect(r.url()).not.toMatch(/subject[-_]pass/i);
      });
      await page.goto(created.link);
      await page.waitForSelector('#challenge-code');
      await typeCode(page, created.challenge_code);
      await page.waitForSelector('#credential');
      const storage = await page.evaluate(() => ({
        local: Object.keys(localStorage).length,
        session: Object.entries(sessionStorage),
        cookie: document.cookie,
        href: location.href,
      }));
      expect(storage.local).toBe(0);
      expect(storage.cookie).toBe('');
      expect(storage.href).toBe(created.link);
      expect(storage.session).toHaveLength(1);
      const pass = storage.session[0]![1];
      expect(pass).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(storage.href).not.toContain(pass);
      const item = (await service.deps.db.send(new GetCommand({ TableName: service.deps.tableName, Key: { pk: `REQ#${created.request.id}`, sk: 'REQ' } }))).Item!;
      expect(item.verification.passHash).toBe(createHash('sha256').update(pass).digest('hex'));
      // Not in the page either.
      expect(await page.content()).not.toContain(pass);
      // Sent on the calls after the verify.
      await page.reload();
      await page.waitForSelector('#credential');
      expect(sentPasses).toContain(pass);
    } finally {
      await context.close();
    }
  });
});
