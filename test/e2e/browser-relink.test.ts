import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumPresent, expectStateUsable, tabTo } from '../support/browser.ts';
import { systemClock } from '../../lambdas/core/clock.ts';
import { MemberBrowser } from '../support/member-browser.ts';
import { submitAsSubject } from '../support/submission.ts';
import { ownerInBrowser, type OwnerInBrowser } from '../support/owner-in-browser.ts';
import { identityKey, type TestOrganisation, type TestService } from '../support/test-service.ts';

/**
 * Revoke and a new link on a request's page in headless Chromium, by keyboard: each asks first
 * (Cancel focused), the revoked link's page says it was withdrawn, the new link and code are shown
 * once and work on the subject's page, and the old link's page says it was replaced. A locked
 * link shows why it needs a new one, and a credential nobody can open any more says so. axe-core and a 320 px width on every state.
 */
const haveChromium = chromiumPresent();

let world: OwnerInBrowser;
let service: TestService;
let org: TestOrganisation;
let page: Page;

beforeAll(async () => {
  if (!haveChromium) return;
  world = await ownerInBrowser('Relink MSP');
  ({ service, org, page } = world);
}, 120_000);

afterAll(() => world?.stop());

const createRequest = async () => {
  const answer = await service.call('POST', '/requests', {
    key: org.key,
    body: { subject_name: 'Jane Doe', justification: 'The firewall admin password', recipients: [org.owner.email], verification_mode: 'challenge' },
  });
  expect(answer.status, answer.text).toBe(201);
  return { id: answer.body.request.id as string, link: answer.body.link as string, code: answer.body.challenge_code as string };
};
const statusOf = async (id: string) => (await service.call('GET', `/requests/${id}`, { key: org.key })).body.status;
const tokenOf = (link: string) => new URL(link).pathname.split('/').pop()!;

const openRequestPage = async (id: string) => {
  await page.goto(`${service.appUrl}/app/requests/${id}`);
  await page.waitForSelector('#request-facts');
};

/** Opens the confirmation by keyboard: the opener is reached by Tab and pressed; Cancel has the focus. */
const askFor = async (id: string) => {
  await tabTo(page, id);
  await page.keyboard.press('Enter');
  await page.waitForSelector(`#${id}-confirmation:not([hidden])`);
  expect(await page.evaluate(() => document.activeElement?.id)).toBe(`cancel-${id}`);
  expect(await page.getAttribute(`#${id}`, 'aria-expanded')).toBe('true');
};

describe.skipIf(!haveChromium)('revoke and relink on the request page', () => {
  it('revokes after a confirmation; Escape cancels without a change', async () => {
    const created = await createRequest();
    await openRequestPage(created.id);
    await askFor('revoke');
    await expectStateUsable(page);
    await page.keyboard.press('Escape');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('revoke');
    expect(await statusOf(created.id)).toBe('pending');

    await askFor('revoke');
    await tabTo(page, 'confirm-revoke');
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => document.querySelector('#status')?.textContent?.includes('Revoked'));
    expect(await statusOf(created.id)).toBe('revoked');
    expect(await page.locator('#revoke').count()).toBe(0);
    expect(await page.locator('#audit li[data-type="request.revoked"]').count()).toBe(1);
    // Why it ended in words, the same on the facts and the trail; the stored code only in a title.
    expect(await page.textContent('#request-facts')).toContain('Why it endedRevoked by a member');
    expect(await page.textContent('#audit li[data-type="request.revoked"]')).toContain('(revoked reason: revoked by a member)');
    expect(await page.textContent('main')).not.toContain('revoked_by_member');

    const subject = await page.context().newPage();
    await subject.goto(created.link);
    await subject.waitForSelector('#link-closed[data-reason="revoked"]');
    await subject.close();
  });

  it('gives the revoked request a new link shown once; it works, and the old link says it was replaced', async () => {
    const created = await createRequest();
    await service.call('POST', `/requests/${created.id}/revoke`, { key: org.key });
    await openRequestPage(created.id);
    await askFor('relink');
    await tabTo(page, 'confirm-relink');
    await page.keyboard.press('Enter');
    await page.waitForSelector('#relinked');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('request-link');
    const link = await page.inputValue('#request-link');
    const code = await page.inputValue('#challenge-code');
    expect(link).toMatch(/\/r\/[A-Za-z0-9_-]{43}#[A-Za-z0-9_-]{22}$/);
    expect(tokenOf(link)).not.toBe(tokenOf(created.link));
    expect(code).toMatch(/^[0-9]{6}$/);
    expect(await statusOf(created.id)).toBe('pending');
    expect(await page.locator('#audit li[data-type="request.relinked"]').count()).toBe(1);
    // The cause and the status before in words; nobody was left out, so the trail does not name an empty list.
    const relinkedLine = await page.textContent('#audit li[data-type="request.relinked"]');
    expect(relinkedLine).toContain('(cause: the request had been revoked; previous status: revoked)');
    expect(relinkedLine).not.toContain('excluded');
    await expectStateUsable(page);

    const subject = await page.context().newPage();
    await subject.goto(link);
    await subject.waitForSelector('#verify-form');
    await subject.fill('#challenge-code', code);
    await subject.click('#verify');
    await subject.waitForSelector('#credential-form');
    await subject.goto(created.link);
    await subject.waitForSelector('#link-closed[data-reason="replaced"]');
    expect(await subject.textContent('#page-title')).toBe('This link was replaced by a newer one');
    await subject.close();

    // Shown once: another visit of the page has no link to show.
    await openRequestPage(created.id);
    expect(await page.locator('#relinked').count()).toBe(0);
  });

  it('says why a locked link needs a new one', async () => {
    const created = await createRequest();
    const wrong = created.code === '000000' ? '111111' : '000000';
    for (let attempt = 0; attempt < 5; attempt++) {
      await service.call('POST', '/subject/verify', { headers: { 'X-Link-Token': tokenOf(created.link) }, body: { challenge_code: wrong } });
    }
    await openRequestPage(created.id);
    await page.waitForSelector('#needs-relink');
    // The trail says which of the two it was: the notice names that one alone.
    expect(await page.textContent('#needs-relink')).toContain('It was locked after too many wrong codes. Send a new link.');
    await expectStateUsable(page);
    await askFor('relink');
    await tabTo(page, 'confirm-relink');
    await page.keyboard.press('Enter');
    await page.waitForSelector('#relinked');
    expect(await page.locator('#needs-relink').count()).toBe(0);
    const relinkedLine = await page.textContent('#audit li[data-type="request.relinked"]');
    expect(relinkedLine).toMatch(/\(cause: the link was locked after too many wrong codes; previous status: (pending|opened)\)/);
    expect(relinkedLine).not.toMatch(/excluded|_/);
  });

  // Last: it replaces the owner's key, which the other cases need as it is.
  it('tells the requester when nobody can open the stored credential any more', async () => {
    const answer = await service.call('POST', '/requests', {
      key: org.key,
      body: { subject_name: 'Jane Doe', justification: 'The firewall admin password', recipients: [org.owner.email, org.member.email] },
    });
    const id = answer.body.request.id as string;
    await submitAsSubject(service, id, systemClock, { envelope: { sealed: 'ciphertext' }, attachments: [] });
    const owner = await MemberBrowser.signIn(service, org.owner.email);
    expect((await owner.call('POST', `/app/api/members/${org.member.id}/disable`)).status).toBe(200);
    expect((await owner.call('POST', '/app/api/identity-key', { body: { public_key: identityKey().publicKey } })).status).toBe(200);

    await page.goto(`${service.appUrl}/app/requests`);
    await page.waitForSelector(`a[data-request-id="${id}"]`);
    expect(await page.locator('#requests tr', { has: page.locator(`a[data-request-id="${id}"]`) }).textContent()).toContain('nobody can open it');
    await openRequestPage(id);
    await page.waitForSelector('#unrecoverable');
    expect(await page.textContent('#unrecoverable')).toContain('No recipient can open this credential any more, unless one still has an old key.');
    // A replaced key may live on elsewhere: the notice does not send the reader straight to destroying it.
    expect(await page.textContent('#unrecoverable')).toContain('A recipient who still has a key it was sealed to, in another browser or a backup, can open it there');
    // The trail says who and why in words, never as stored JSON or codes.
    const entry = await page.textContent('#audit li[data-type="request.unrecoverable"]');
    expect(entry).toContain(`${org.owner.name} (key replaced)`);
    expect(entry).toContain(`${org.member.name} (disabled)`);
    expect(entry).toContain('reason: recipients keys replaced or disabled');
    expect(entry).not.toContain('membership_id');
    await expectStateUsable(page);
  });
});
