import { createHash } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newIdentityPublicKey } from '../../lambdas/local/demo-identity.ts';
import { chromiumPresent, launch } from '../support/browser.ts';
import { startTestService, type TestService } from '../support/test-service.ts';

/** Where the subject page keeps the subject pass: this tab's sessionStorage only, never localStorage or a URL. */
const haveChromium = chromiumPresent();

let service: TestService;
let browser: Browser;
let apiKey: string;
const recipient = 'recipient@pass.example';

beforeAll(async () => {
  if (!haveChromium) return;
  service = await startTestService();
  const org = await service.admin.createOrganisation({ name: 'Pass MSP', plan: 'team' });
  await service.admin.addMember({ orgId: org.id, name: 'Rae Recipient', email: recipient, role: 'owner', identityKey: newIdentityPublicKey() });
  apiKey = await service.createKey(org.id, { name: 'Pass test key' });
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

const typeCode = async (page: Page, code: string) => {
  await page.fill('#challenge-code', '');
  await page.focus('#challenge-code');
  await page.keyboard.type(code);
  await page.keyboard.press('Enter');
};

describe.skipIf(!haveChromium)('the subject pass in the page', () => {
  it('is kept in this tab\'s sessionStorage only: not in localStorage, a cookie or the address, and it is the one the service holds', async () => {
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
