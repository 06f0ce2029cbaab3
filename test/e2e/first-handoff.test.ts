import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemoService } from '../../lambdas/local/demo-service.ts';
import { walkthroughRecorder } from '../../web/walkthrough/recorder.ts';
import { chromiumPresent, download, expectNoSeriousAxeViolations, launch } from '../support/browser.ts';

/**
 * The README's "Your first handoff", step by step in headless Chromium, as a newcomer follows it
 * after `npm start`: the demo organisation as `npm start` seeds it, nothing done outside the
 * browser (the sign-in email is read on the local mailbox page, the key is made in the browser and
 * replaces the one the demo's seed made, with no approval), up to a revealed credential, a
 * completed request, and its certificate checked with the single-file verifier. Each step's
 * screenshot is written to FIRST_HANDOFF_SHOTS (docs/screenshots to refresh the README's; a
 * temporary folder otherwise), after the page's basics are checked.
 */
const haveChromium = chromiumPresent();
const CREDENTIAL = 'Spring-Tulip-Ladder-93';
const shotsDir = process.env.FIRST_HANDOFF_SHOTS ? resolve(process.env.FIRST_HANDOFF_SHOTS) : mkdtempSync(join(tmpdir(), 'first-handoff-shots-'));
const dataDir = mkdtempSync(join(tmpdir(), 'first-handoff-'));

let started: Awaited<ReturnType<typeof startDemoService>>;
let browser: Browser;
let tech: Page;
let shot: (page: Page, name: string) => Promise<void>;

beforeAll(async () => {
  if (!haveChromium) return;
  mkdirSync(shotsDir, { recursive: true });
  started = await startDemoService({ dataDir, announce: () => undefined, outboxPage: true, tableAccess: { enforce: true } });
  shot = walkthroughRecorder(shotsDir, join(dataDir, 'outbox')).shot;
  browser = await launch();
  // Requests the API example makes before the technician has a key of their own (sealed to the
  // seed's key): one the subject answers at once, one still waiting.
  early = await createWithDemoKey('Early Subject');
  await submitInBrowser(early.link, early.challenge_code, 'sealed-to-the-seed-key');
  waiting = await createWithDemoKey('Waiting Subject');
  tech = await (await browser.newContext({ acceptDownloads: true, viewport: { width: 1100, height: 800 } })).newPage();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await started?.service.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

const appUrl = () => started.service.appUrl;
let link = '';
let code = '';
let requestId = '';
type Created = { request: { id: string }; link: string; challenge_code: string };
let early: Created;
let waiting: Created;

/** The README's curl example: a request with the demo preset, made with the demo API key. */
const createWithDemoKey = async (subjectName: string): Promise<Created> => {
  const answer = await fetch(`${started.service.baseUrl}/requests`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${started.key.secret}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ subject_name: subjectName, preset: started.demo.presetSlug }),
  });
  expect(answer.status).toBe(201);
  return answer.json();
};

/** The subject's part, in a window of their own. */
const submitInBrowser = async (subjectLink: string, challengeCode: string, credential: string, shots?: { code: string; credential: string; done: string }) => {
  const subject = await (await browser.newContext({ viewport: { width: 900, height: 800 } })).newPage();
  await subject.goto(subjectLink);
  await subject.waitForSelector('#challenge-code');
  await subject.fill('#challenge-code', challengeCode);
  if (shots) await shot(subject, shots.code);
  await subject.click('#verify');
  await subject.waitForSelector('#credential');
  await subject.fill('#credential', credential);
  if (shots) await shot(subject, shots.credential);
  await subject.click('#submit');
  await subject.waitForSelector('#submitted');
  if (shots) await shot(subject, shots.done);
  await subject.context().close();
};

describe.skipIf(!haveChromium)('your first handoff', () => {
  it('1. the address npm start prints leads to the app; the technician asks for a sign-in link', async () => {
    await tech.goto(`${appUrl()}/`);
    await tech.waitForSelector('#sign-in-form');
    expect(new URL(tech.url()).pathname).toBe('/app/sign-in');
    await tech.fill('#email', started.demo.memberEmail);
    await shot(tech, 'first-handoff-01-sign-in');
    await tech.press('#email', 'Enter');
    await tech.waitForSelector('#check-email');
  });

  it('2. the sign-in email is on the local mailbox page; its link signs the technician in', async () => {
    await tech.goto(`${appUrl()}/local/outbox`);
    await tech.waitForSelector('#outbox');
    await expectNoSeriousAxeViolations(tech);
    await shot(tech, 'first-handoff-02-mailbox');
    // The address typed with a closing slash is the same page.
    const slashed = await fetch(`${appUrl()}/local/outbox/`);
    expect(slashed.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await slashed.text()).toContain('id="outbox"');
    await tech.click('#outbox li:first-child a[href*="/app/"]');
    await tech.waitForSelector('#sign-out');
  });

  it("3. My key: the seed's key is the operator's; the technician's own key replaces it at once", async () => {
    await tech.goto(`${appUrl()}/app/key`);
    await tech.waitForSelector('#operator-key-notice');
    await tech.fill('#passphrase', 'correct horse battery staple');
    await tech.fill('#passphrase-confirm', 'correct horse battery staple');
    await tech.click('#create-key');
    await tech.waitForSelector('#backup-json', { state: 'attached' });
    await tech.waitForFunction(() => document.querySelector('#key-status')?.textContent?.includes('Present, and it is the registered key'));
    expect(await tech.locator('#key-status').textContent()).toContain('Verified');
    await shot(tech, 'first-handoff-03-key');
  });

  it('4. a new request with the demo preset: the technician is a recipient; the link and code are shown once', async () => {
    await tech.goto(`${appUrl()}/app/requests/new`);
    await tech.waitForSelector('#request-form');
    await tech.fill('#subject-name', 'Jane Doe');
    await tech.selectOption('#preset', started.demo.presetSlug);
    await shot(tech, 'first-handoff-04-new-request');
    await tech.click('#check-recipients');
    await tech.waitForSelector('#confirm-recipients');
    // The requester can always read what they asked for.
    expect(await tech.locator('#confirm-recipients').textContent()).toContain('Tom Technician');
    await tech.click('#create-request');
    await tech.waitForSelector('#request-created');
    link = await tech.inputValue('#request-link');
    code = await tech.inputValue('#challenge-code');
    requestId = (await tech.getAttribute('#view-request', 'href'))!.split('/').pop()!;
    await shot(tech, 'first-handoff-05-link-and-code');
  });

  it('5. the subject, in a second window, opens the link, types the code and submits the credential', async () => {
    await submitInBrowser(link, code, CREDENTIAL, {
      code: 'first-handoff-06-subject-code',
      credential: 'first-handoff-07-subject-credential',
      done: 'first-handoff-08-subject-done',
    });
  });

  it('6. the technician reveals the credential with the key only this browser holds', async () => {
    await tech.goto(`${appUrl()}/app/requests/${requestId}`);
    await tech.waitForSelector('#reveal');
    expect(await tech.locator('#sealed-key-notice').count()).toBe(0);
    await tech.click('#reveal');
    await tech.waitForSelector('#revealed-credential');
    await tech.click('#toggle-credential');
    expect(await tech.inputValue('#revealed-credential')).toBe(CREDENTIAL);
    await shot(tech, 'first-handoff-09-revealed');
  });

  it('7. completing destroys the stored credential; the request page then offers its certificate', async () => {
    // As README step 7 says: press Complete and destroy, and confirm.
    await tech.click('#complete');
    await tech.waitForSelector('#complete-confirmation:not([hidden])');
    await shot(tech, 'first-handoff-10-confirm-complete');
    await tech.click('#confirm-complete');
    await tech.waitForSelector('#download-certificate-json');
    await shot(tech, 'first-handoff-11-completed');
  });

  it('8. the certificate, downloaded, is checked with the single-file verifier and the saved public keys', async () => {
    const certificate = await download(tech, '#download-certificate-json');
    const folder = mkdtempSync(join(tmpdir(), 'first-handoff-verify-'));
    // As an auditor does: the verifier copied out of the repository, the keys saved from the service.
    copyFileSync('tools/verify-custody-certificate.mjs', join(folder, 'verify-custody-certificate.mjs'));
    writeFileSync(join(folder, 'jwks.json'), await (await fetch(`${appUrl()}/.well-known/jwks.json`)).text());
    writeFileSync(join(folder, certificate.name), certificate.bytes);
    const verdict = await new Promise<{ code: number; out: string }>((done) =>
      execFile(process.execPath, ['verify-custody-certificate.mjs', '--jwks', 'jwks.json', certificate.name], { cwd: folder }, (error, stdout, stderr) =>
        done({ code: error ? Number(error.code ?? 1) : 0, out: `${stdout}${stderr}` }),
      ),
    );
    expect(verdict.code, verdict.out).toBe(0);
    expect(certificate.bytes.toString('utf8')).toContain(requestId);
  });
});

describe.skipIf(!haveChromium)('requests sent before the technician set up their key', () => {
  it('say plainly why they cannot be opened in this browser, offer no reveal, and what to do', async () => {
    await tech.goto(`${appUrl()}/app/requests/${early.request.id}`);
    await tech.waitForSelector('#sealed-key-notice');
    expect(await tech.locator('#sealed-key-notice').textContent()).toMatch(/^This credential is sealed to the key an operator made for you .* so it cannot be opened here/);
    // Their own key is in this browser already: the notice does not send them to set one up.
    expect(await tech.locator('#sealed-key-notice').textContent()).toContain('Your own key, in this browser, came after this request');
    expect(await tech.locator('#sealed-key-notice').textContent()).not.toContain('Set up your own key');
    expect(await tech.locator('#reveal').count()).toBe(0);
    await expectNoSeriousAxeViolations(tech);
    await shot(tech, 'first-handoff-12-sealed-to-the-seed-key');

    // Still waiting: its link cannot lead to a submission any more (the key changed); a new link seals it to the new key.
    await tech.goto(`${appUrl()}/app/requests/${waiting.request.id}`);
    await tech.waitForSelector('#sealed-key-notice');
    expect(await tech.locator('#sealed-key-notice').textContent()).toMatch(/^Its link seals the credential to the key an operator made for you .* give it a new link, which seals the credential to your own key/);
    // Beside the notice that the link can no longer be used, nothing promises a submission.
    expect(await tech.locator('main').textContent()).not.toContain('When submitted');
    expect(await tech.locator('#relink').count()).toBe(1);
  });
});
