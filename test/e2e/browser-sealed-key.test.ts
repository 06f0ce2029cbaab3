import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumPresent, expectNoSeriousAxeViolations, launch, setUpKeyInBrowser, signInInBrowser } from '../support/browser.ts';
import { identityKey, startTestService, type TestService } from '../support/test-service.ts';

/**
 * A request sealed to a member's key, opened in another browser that made a key of its own: the
 * page says to open it where the old key is, and what importing the old key's backup here would
 * cost (this browser's key replaced, awaiting approval), not to import it as if that were free.
 */
const haveChromium = chromiumPresent();
const OWNER_EMAIL = 'owner@sealed-key.example';

let service: TestService;
let browser: Browser;
let apiKey = '';

beforeAll(async () => {
  if (!haveChromium) return;
  service = await startTestService();
  const org = await service.admin.createOrganisation({ name: 'Sealed Key MSP', plan: 'team' });
  await service.admin.addMember({ orgId: org.id, name: 'Olivia Owner', email: OWNER_EMAIL, role: 'owner' });
  apiKey = await service.createKey(org.id, { name: 'Sealed key test' });
  browser = await launch();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await service?.stop();
});

describe.skipIf(!haveChromium)('a credential sealed to a key this browser does not hold', () => {
  it('says to open it in a browser that still holds that key, and what importing its backup here would do', async () => {
    const laptop = await (await browser.newContext()).newPage();
    await signInInBrowser(laptop, service.appUrl, service.outboxDir, OWNER_EMAIL);
    await setUpKeyInBrowser(laptop, service.appUrl);
    const created = await service.call('POST', '/requests', {
      key: apiKey,
      body: { subject_name: 'Sam Subject', justification: 'Router admin password', recipients: [OWNER_EMAIL], verification_mode: 'none' },
    });
    expect(created.status).toBe(201);
    const subject = await (await browser.newContext()).newPage();
    await subject.goto(created.body.link);
    await subject.fill('#credential', 'a credential');
    await subject.click('#submit');
    await subject.waitForSelector('#submitted');

    // A second browser makes a key of its own (a replacement, awaiting approval).
    const other = await (await browser.newContext()).newPage();
    await signInInBrowser(other, service.appUrl, service.outboxDir, OWNER_EMAIL);
    await other.goto(`${service.appUrl}/app/key`);
    await other.fill('#passphrase', 'a long passphrase for tests');
    await other.fill('#passphrase-confirm', 'a long passphrase for tests');
    await other.click('#create-key');
    await other.waitForSelector('#backup-json', { state: 'attached' });

    await other.goto(`${service.appUrl}/app/requests/${created.body.request.id}`);
    await other.waitForSelector('#sealed-key-notice');
    const notice = await other.textContent('#sealed-key-notice');
    expect(notice).toContain('not to the key this browser holds');
    expect(notice).toContain('Open it in a browser that still holds that key.');
    expect(notice).toContain('Importing its backup here would replace this browser’s key with it');
    await expectNoSeriousAxeViolations(other);
  });

  it("a link whose recipient's key changed unseen is flagged for a new link when its subject's page refuses it", async () => {
    const org = await service.createOrganisation({ name: 'Unseen Change MSP' });
    const created = await service.call('POST', '/requests', {
      key: org.key,
      body: { subject_name: 'Sam Subject', justification: 'Router admin password', recipients: [org.member.email], verification_mode: 'none' },
    });
    expect(created.status).toBe(201);
    // The member's key is replaced and approved without the refresh that flags their requests (as a
    // request made in the instant before a change, missed through the lagging index, stays).
    await service.admin.setIdentityKey(org.orgId, org.member.id, identityKey());
    await service.admin.decideIdentityKey(org.orgId, org.member.id, 'approve');
    expect((await service.call('GET', `/requests/${created.body.request.id}`, { key: org.key })).body.needs_relink).toBe(false);

    const subject = await (await browser.newContext()).newPage();
    await subject.goto(created.body.link);
    await subject.waitForSelector('#refusal');
    await expect.poll(async () => (await service.call('GET', `/requests/${created.body.request.id}`, { key: org.key })).body.needs_relink).toBe(true);
    expect(await subject.locator('#credential').count()).toBe(0);
    await subject.context().close();
  });
});
