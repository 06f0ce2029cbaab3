import { readFileSync } from 'node:fs';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseJwks, verifyCertificate } from '../../lambdas/core/custody/verify.ts';
import { makeShareKey, sealShare } from '../../web/crypto/share-key.ts';
import { chromiumPresent, expectEveryControlNamed, latestSignInLink, launch, download } from '../support/browser.ts';
import { MemberBrowser } from '../support/member-browser.ts';
import { scanTable, startTestService, type TestService } from '../support/test-service.ts';
import { runVerifier, withOneByteChanged } from '../support/verifier-cli.ts';

/**
 * Shares in headless Chromium: a member makes a share in the app (by keyboard), another person
 * opens the one-time link in a browser of their own, the share ends on its last view, and its
 * custody certificate downloads and verifies. A link whose fragment holds another key is refused
 * before anything is opened. The server never holds the credential or the one-time private key.
 */
const haveChromium = chromiumPresent();

const CREDENTIAL = 'Sh4red-VPN-passw0rd!for-Dana';
const OWNER_EMAIL = 'olivia@shares.example';
const LINK = /^(http:\/\/[^/]+\/s\/[A-Za-z0-9_-]{43})#([A-Za-z0-9_-]{43}\.[A-Za-z0-9_-]{43}\.[A-Za-z0-9_-]{43})$/;

let service: TestService;
let browser: Browser;
let member: BrowserContext;
let memberPage: Page;
let api: MemberBrowser;

const signIn = async (page: Page) => {
  await page.goto(`${service.appUrl}/app/sign-in`);
  await page.fill('#email', OWNER_EMAIL);
  await page.click('#sign-in');
  await page.waitForSelector('#check-email');
  await page.goto(latestSignInLink(service.outboxDir));
  await page.waitForSelector('#sign-out');
};

const tabTo = async (page: Page, id: string) => {
  for (let presses = 0; presses < 60; presses++) {
    if ((await page.evaluate(() => document.activeElement?.id)) === id) return;
    await page.keyboard.press('Tab');
  }
  throw new Error(`#${id} cannot be reached with Tab`);
};

const shareOf = async (id: string) => {
  const answer = await api.call('GET', `/app/api/shares/${id}`);
  expect(answer.status, answer.text).toBe(200);
  return answer.body;
};

/** A share made the way the app makes one (a real one-time key and envelope), through the member endpoint. */
const createSealedShare = async (credential: string, body: Record<string, unknown> = {}) => {
  const key = await makeShareKey();
  const envelope = await sealShare({ credential }, key);
  const answer = await api.call('POST', '/app/api/shares', { body: { envelope, sealed_to_fingerprint: key.fingerprint, ...body } });
  expect(answer.status, answer.text).toBe(201);
  return { id: answer.body.share.id as string, link: `${answer.body.link}#${key.fragment}`, bare: answer.body.link as string, key };
};

beforeAll(async () => {
  if (!haveChromium) return;
  service = await startTestService();
  const org = await service.admin.createOrganisation({ name: 'Share MSP', plan: 'team' });
  await service.admin.addMember({ orgId: org.id, name: 'Olivia Owner', email: OWNER_EMAIL, role: 'owner' });
  browser = await launch();
  member = await browser.newContext();
  memberPage = await member.newPage();
  await signIn(memberPage);
  api = await MemberBrowser.signIn(service, OWNER_EMAIL);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await service?.stop();
});

describe.skipIf(!haveChromium)('shares in a browser', () => {
  let shareId = '';
  let link = '';

  it('a member makes a share by keyboard; another person opens it once; the app shows it destroyed', async () => {
    await memberPage.click('#nav a[href="/app/shares"]');
    await memberPage.waitForSelector('#no-shares');
    await memberPage.click('#new-share');
    await memberPage.waitForSelector('#share-form');
    await expectEveryControlNamed(memberPage);

    // Generate: a random password of the chosen length, made in the browser.
    await tabTo(memberPage, 'generate-length');
    await memberPage.keyboard.press('ControlOrMeta+A');
    await memberPage.keyboard.type('32');
    await tabTo(memberPage, 'generate');
    await memberPage.keyboard.press('Enter');
    const generated = await memberPage.inputValue('#share-credential');
    expect(generated).toHaveLength(32);
    expect(await memberPage.getAttribute('#share-credential', 'type')).toBe('text');

    // The member's own credential instead, and the rest of the form, by keyboard.
    await tabTo(memberPage, 'share-credential');
    await memberPage.keyboard.press('ControlOrMeta+A');
    await memberPage.keyboard.type(CREDENTIAL);
    await tabTo(memberPage, 'share-label');
    await memberPage.keyboard.type('VPN for Dana at Acme');
    await tabTo(memberPage, 'share-ticket');
    await memberPage.keyboard.type('T-815');
    await tabTo(memberPage, 'share-expiry');
    await memberPage.keyboard.press('ArrowDown'); // 1 day → 7 days
    expect(await memberPage.inputValue('#share-expiry')).toBe('10080');
    await tabTo(memberPage, 'create-share');
    await memberPage.keyboard.press('Enter');

    await memberPage.waitForSelector('#share-link');
    link = await memberPage.inputValue('#share-link');
    expect(link).toMatch(LINK);
    expect(await memberPage.locator('#share-credential').count()).toBe(0); // the form and its credential are gone
    expect(await memberPage.textContent('#share-created')).toContain('shown only this once');
    shareId = (await memberPage.getAttribute('#view-share', 'href'))!.split('/').pop()!;
    const created = await shareOf(shareId);
    expect(created).toMatchObject({ status: 'active', label: 'VPN for Dana at Acme', ticket_ref: 'T-815', view_limit: 1, views: 0 });
    expect((await memberPage.textContent('#share-fingerprint'))!.replace(/\s/g, '')).toBe(created.sealed_to_fingerprint);
    expect(Date.parse(created.expires_at) - Date.parse(created.created_at)).toBe(7 * 24 * 60 * 60_000);
    await expectEveryControlNamed(memberPage);

    // Neither the credential nor the one-time private key reached the server.
    const stored = JSON.stringify(await scanTable(service));
    expect(stored).not.toContain(CREDENTIAL);
    expect(stored).not.toContain(LINK.exec(link)![2].split('.')[0]);

    // Another person, another browser: the page describes first and opens nothing by itself.
    const recipient = await browser.newContext();
    const page = await recipient.newPage();
    await page.goto(link);
    await page.waitForSelector('#share-describe');
    expect(page.url()).not.toContain('#'); // the key left the address bar
    const summary = await page.textContent('#share-summary');
    expect(summary).toContain('Olivia Owner');
    expect(summary).toContain('1 more time');
    expect((await shareOf(shareId)).views).toBe(0);
    await expectEveryControlNamed(page);

    await tabTo(page, 'open');
    await page.keyboard.press('Enter');
    await page.waitForSelector('#share-opened');
    expect(await page.inputValue('#share-credential')).toBe(CREDENTIAL);
    expect(await page.textContent('#share-destroyed')).toContain('This was the last view: the service has destroyed its copy.');
    await expectEveryControlNamed(page);
    expect(await shareOf(shareId)).toMatchObject({ status: 'purged', views: 1, end_reason: 'view_limit_reached' });

    // Opening the link again: gone.
    await page.goto('about:blank');
    await page.goto(link);
    await page.waitForSelector('#share-gone[data-reason="purged"]');
    await page.reload();
    await page.waitForSelector('#share-gone');
    await recipient.close();

    // The member's list shows it destroyed.
    await memberPage.click('#nav a[href="/app/shares"]');
    const row = memberPage.locator('#shares tr', { has: memberPage.locator(`a[data-share-id="${shareId}"]`) });
    await row.waitFor();
    expect(await row.locator('.badge').textContent()).toBe('Destroyed');
    expect(await row.textContent()).toContain('T-815');
    expect(await row.textContent()).toContain('1 of 1');
  }, 120_000);

  it("the share's detail downloads its custody certificate, which verifies against the service's keys", async () => {
    await memberPage.click(`a[data-share-id="${shareId}"]`);
    await memberPage.waitForSelector('#share-facts');
    expect(await memberPage.locator('#destroy-share').count()).toBe(0);
    expect(await memberPage.textContent('#share-facts')).toContain('Opened as many times as allowed');
    await expectEveryControlNamed(memberPage);

    const json = await download(memberPage, '#download-certificate-json');
    expect(json.name).toBe(`custody-certificate-${shareId}.json`);
    const certificate = JSON.parse(json.bytes.toString('utf8'));
    const jwks = parseJwks(await (await fetch(`${service.appUrl}/.well-known/jwks.json`)).json());
    const outcome = await verifyCertificate(certificate, jwks);
    expect(outcome.ok, outcome.ok ? '' : outcome.reason).toBe(true);
    expect(certificate).toMatchObject({ subject_kind: 'share', final: true, share: { id: shareId, status: 'purged', views: 1 } });
    expect(json.bytes.toString('utf8')).not.toContain(CREDENTIAL);

    const pdf = await download(memberPage, '#download-certificate-pdf');
    expect(pdf.name).toBe(`custody-certificate-${shareId}.pdf`);
    expect(pdf.bytes.subarray(0, 5).toString('latin1')).toBe('%PDF-');

    // The published command accepts both, and refuses the JSON with one byte changed.
    const accepted = await runVerifier([json.bytes], jwks);
    expect(accepted.code, accepted.stderr).toBe(0);
    expect(accepted.stdout).toMatch(new RegExp(`^valid: share ${shareId} `));
    expect((await runVerifier([pdf.bytes], jwks, { pdf: true })).code).toBe(0);
    const refused = await runVerifier([withOneByteChanged(json.bytes, json.bytes.indexOf('"issued_at"') + 20)], jwks);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^invalid: /);
  }, 60_000);

  it('refuses a link whose fragment is missing, damaged or another key, without opening the share', async () => {
    const share = await createSealedShare('second-credential-7Qx', { view_limit: 2 });
    const other = await makeShareKey();
    const context = await browser.newContext();
    const page = await context.newPage();
    // Missing first: once this tab has opened the link with its key, a link without one reads as a reload.
    for (const [fragment, problem] of [
      ['', 'missing'],
      [`#${other.fragment}`, 'mismatch'],
      ['#not-a-key', 'malformed'],
      [`#${share.key.fragment.split('.').slice(0, 2).join('.')}.${other.fragment.split('.')[2]}`, 'malformed'],
    ] as const) {
      await page.goto('about:blank');
      await page.goto(`${share.bare}${fragment}`);
      await page.waitForSelector(`#refusal[data-problem="${problem}"]`);
      expect(await page.locator('#open').count()).toBe(0);
    }
    expect(await shareOf(share.id)).toMatchObject({ status: 'active', views: 0 });

    // The right key opens it; one view of two leaves it live.
    await page.goto('about:blank');
    await page.goto(share.link);
    await page.click('#open');
    await page.waitForSelector('#share-opened');
    expect(await page.inputValue('#share-credential')).toBe('second-credential-7Qx');
    expect(await page.textContent('#share-remaining')).toContain('1 more time');
    expect(await shareOf(share.id)).toMatchObject({ status: 'active', views: 1 });
    // A reload has no key (the page took it out of the address): it says so, not that the link was cut short.
    await page.reload();
    await page.waitForSelector('#refusal[data-problem="reloaded"]');
    expect(await page.textContent('#refusal')).toContain('a reload cannot bring it back');
    expect(await shareOf(share.id)).toMatchObject({ status: 'active', views: 1 });

    // The member destroys it from its detail page, after confirming; the link is gone at once.
    await memberPage.goto(`${service.appUrl}/app/shares/${share.id}`);
    await memberPage.click('#destroy-share');
    await memberPage.click('#cancel-destroy');
    expect(await memberPage.isVisible('#confirm-destroy')).toBe(false);
    expect((await shareOf(share.id)).status).toBe('active');
    await memberPage.click('#destroy-share');
    await memberPage.click('#confirm-destroy');
    await memberPage.waitForFunction(() => document.querySelector('.badge')?.textContent === 'Destroyed');
    expect(await shareOf(share.id)).toMatchObject({ status: 'purged', end_reason: 'purged_by_member' });
    await page.goto('about:blank');
    await page.goto(share.link);
    await page.waitForSelector('#share-gone');

    // An unknown token: not a valid link.
    await page.goto(`${service.appUrl}/s/${'A'.repeat(43)}#${other.fragment}`);
    await page.waitForSelector('#share-invalid');
    await context.close();
  }, 60_000);

  it('a create whose answer was lost is retried with the same Idempotency-Key, so it makes one share, not two', async () => {
    const before = (await api.call('GET', '/app/api/shares')).body.data.length;
    await memberPage.goto(`${service.appUrl}/app/shares/new`);
    await memberPage.waitForSelector('#share-form');
    await memberPage.fill('#share-credential', 'lost-answer-credential');
    await memberPage.fill('#share-label', 'Lost answer');
    const keys: string[] = [];
    let lose = true;
    await memberPage.route('**/app/api/shares', async (route) => {
      keys.push(route.request().headers()['idempotency-key']);
      if (!lose) return route.continue();
      lose = false;
      await route.fetch(); // the service makes the share; the page never hears back
      await route.abort('connectionreset');
    });
    await memberPage.click('#create-share');
    await memberPage.waitForFunction(() => document.getElementById('error')?.textContent?.includes('press the button again'));
    expect(await memberPage.inputValue('#share-credential')).toBe(''); // sealed, and gone from the page
    await memberPage.click('#create-share');
    await memberPage.waitForSelector('#share-replayed');
    await memberPage.unroute('**/app/api/shares');
    expect(keys).toHaveLength(2);
    expect(keys[0]).toMatch(/^[\w-]{16,}$/);
    expect(keys[1]).toBe(keys[0]);
    const after = (await api.call('GET', '/app/api/shares')).body.data;
    expect(after.length).toBe(before + 1);
    expect(after[0].label).toBe('Lost answer');
    expect(await memberPage.getAttribute('#view-share', 'href')).toBe(`/app/shares/${after[0].id}`);
  }, 60_000);

  it('every new page fits a 320 px wide screen', async () => {
    const share = await createSealedShare('narrow-screen-credential');
    const context = await browser.newContext({ viewport: { width: 320, height: 640 } });
    const page = await context.newPage();
    const fits = async () => expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(320);
    await page.goto(share.link);
    await page.waitForSelector('#share-describe');
    await fits();
    await page.click('#open');
    await page.waitForSelector('#share-opened');
    await fits();
    await context.close();

    await memberPage.setViewportSize({ width: 320, height: 640 });
    try {
      for (const [path, ready] of [
        ['/app/shares/new', '#share-form'],
        ['/app/shares', '#shares'],
        [`/app/shares/${share.id}`, '#share-facts'],
        ['/app/verify', '#certificate-file'],
      ]) {
        await memberPage.goto(`${service.appUrl}${path}`);
        await memberPage.waitForSelector(ready);
        expect(await memberPage.evaluate(() => document.documentElement.scrollWidth), path).toBeLessThanOrEqual(320);
      }
    } finally {
      await memberPage.setViewportSize({ width: 1280, height: 720 });
    }
  }, 60_000);
});
