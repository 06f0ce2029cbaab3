import { readFileSync } from 'node:fs';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumPresent, launch, download, setUpKeyInBrowser, signInInBrowser } from '../support/browser.ts';
import { startTestService, type TestService } from '../support/test-service.ts';
import { runVerifier, withOneByteChanged } from '../support/verifier-cli.ts';

/**
 * Custody certificates in headless Chromium: a request goes the whole way (the subject submits in
 * a browser, the member reveals and completes), the member downloads its certificate from the
 * request's page, and the Verify page checks it in the browser: the genuine JSON and PDF are
 * Valid, a copy with one changed byte is Not valid with a reason. The page also works signed out.
 */
const haveChromium = chromiumPresent();

const OWNER_EMAIL = 'vera@verify.example';
const ORG_NAME = 'Verify MSP';

let service: TestService;
let browser: Browser;
let member: BrowserContext;
let memberPage: Page;
let apiKey: string;

const upload = async (page: Page, name: string, mimeType: string, buffer: Buffer) => {
  await page.evaluate(() => document.getElementById('verify-result')?.remove());
  await page.setInputFiles('#certificate-file', { name, mimeType, buffer });
  await page.waitForSelector('#verify-result');
  return page.getAttribute('#verify-result', 'data-valid');
};

beforeAll(async () => {
  if (!haveChromium) return;
  service = await startTestService();
  const org = await service.admin.createOrganisation({ name: ORG_NAME, plan: 'team' });
  await service.admin.addMember({ orgId: org.id, name: 'Vera Owner', email: OWNER_EMAIL, role: 'owner' });
  apiKey = await service.createKey(org.id, { name: 'Verify test key' });
  browser = await launch();
  member = await browser.newContext();
  memberPage = await member.newPage();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await service?.stop();
});

describe.skipIf(!haveChromium)('the Verify page', () => {
  let json: Buffer;
  let pdf: Buffer;
  let requestId = '';

  it('an ended request offers its certificate as JSON and PDF', async () => {
    await signInInBrowser(memberPage, service.appUrl, service.outboxDir, OWNER_EMAIL);
    await setUpKeyInBrowser(memberPage, service.appUrl);

    const created = await service.call('POST', '/requests', {
      key: apiKey,
      body: { subject_name: 'Jane Doe', justification: 'Router admin password', recipients: [OWNER_EMAIL], verification_mode: 'none' },
    });
    expect(created.status, created.text).toBe(201);
    requestId = created.body.request.id;

    const subject = await browser.newContext();
    const subjectPage = await subject.newPage();
    await subjectPage.goto(created.body.link);
    await subjectPage.waitForSelector('#credential');
    await subjectPage.fill('#credential', 'router-admin-Pa55');
    await subjectPage.click('#submit');
    await subjectPage.waitForSelector('#submitted');
    await subject.close();

    await memberPage.goto(`${service.appUrl}/app/requests/${requestId}`);
    await memberPage.waitForSelector('#reveal');
    expect(await memberPage.locator('#certificate').count()).toBe(0); // not ended yet
    await memberPage.click('#reveal');
    await memberPage.waitForSelector('#revealed-credential');
    await memberPage.click('#complete');
    await memberPage.click('#confirm-complete');
    await memberPage.waitForSelector('#download-certificate-json');
    // The request's page says why it ended in words, on the facts and the trail alike.
    expect(await memberPage.textContent('#request-facts')).toContain('Why it endedCompleted by a member');
    expect(await memberPage.getAttribute('#request-facts span[title="completed_by_member"]', 'title')).toBe('completed_by_member');
    expect(await memberPage.textContent('#audit li[data-type="request.completed"]')).toContain('Completed; credential destroyed by');
    expect(await memberPage.textContent('#audit li[data-type="request.completed"]')).toContain('(purge reason: completed by a member)');
    expect(await memberPage.textContent('main')).not.toContain('completed_by_member');

    const fromJson = await download(memberPage, '#download-certificate-json');
    expect(fromJson.name).toBe(`custody-certificate-${requestId}.json`);
    json = fromJson.bytes;
    expect(JSON.parse(json.toString('utf8'))).toMatchObject({ subject_kind: 'request', final: true, request: { id: requestId, status: 'completed' } });
    const fromPdf = await download(memberPage, '#download-certificate-pdf');
    expect(fromPdf.name).toBe(`custody-certificate-${requestId}.pdf`);
    pdf = fromPdf.bytes;
    expect(pdf.subarray(0, 5).toString('latin1')).toBe('%PDF-');

    // The published command accepts both, offline against the service's JWKS, and refuses a changed byte with a reason.
    const jwks = await (await fetch(`${service.appUrl}/.well-known/jwks.json`)).json();
    const accepted = await runVerifier([json], jwks);
    expect(accepted.code, accepted.stderr).toBe(0);
    expect(accepted.stdout).toMatch(new RegExp(`^valid: request ${requestId} .*\\(final\\)`));
    const fromThePdf = await runVerifier([pdf], jwks, { pdf: true });
    expect(fromThePdf.code, fromThePdf.stderr).toBe(0);
    const refused = await runVerifier([withOneByteChanged(json, json.indexOf('"issued_at"') + 20)], jwks);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^invalid: .+: .+/);

    // The same certificate through the API (GET /v1/requests/{id}/certificate, JSON and PDF): accepted too, and agreeing with the app's.
    const viaApi = await service.call('GET', `/requests/${requestId}/certificate`, { key: apiKey });
    expect(viaApi.status, viaApi.text).toBe(200);
    const pdfViaApi = Buffer.from(await (await fetch(`${service.baseUrl.replace('localhost', '127.0.0.1')}/requests/${requestId}/certificate?format=pdf`, { headers: { Authorization: `Bearer ${apiKey}` } })).arrayBuffer());
    const both = await runVerifier([viaApi.text, json], jwks);
    expect(both.code, both.stderr).toBe(0);
    expect(both.stdout).toMatch(/agree/);
    expect((await runVerifier([pdfViaApi], jwks, { pdf: true })).code).toBe(0);
  }, 120_000);

  it('says Valid for the genuine JSON and PDF, and Not valid, with the reason, for a changed byte', async () => {
    await memberPage.click('#nav a[href="/app/verify"]');
    await memberPage.waitForSelector('#certificate-file');
    // The file input is reached by keyboard.
    for (let presses = 0; presses < 40 && (await memberPage.evaluate(() => document.activeElement?.id)) !== 'certificate-file'; presses++) {
      await memberPage.keyboard.press('Tab');
    }
    expect(await memberPage.evaluate(() => document.activeElement?.id)).toBe('certificate-file');

    expect(await upload(memberPage, 'certificate.json', 'application/json', json)).toBe('true');
    const facts = await memberPage.textContent('#certificate-facts');
    expect(facts).toContain(ORG_NAME);
    expect(facts).toContain(`Request ${requestId}`);
    expect(facts).toContain('Yes: it had ended');
    expect(await memberPage.textContent('#verify-summary')).toContain(`request ${requestId}`);
    const kid = JSON.parse(json.toString('utf8')).signature.kid;
    expect(await memberPage.textContent('#verify-key')).toBe(kid);
    const events = await memberPage.locator('#certificate-timeline tbody tr').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-type')));
    expect(events).toEqual(expect.arrayContaining(['request.created', 'request.submitted', 'request.revealed', 'request.completed']));
    // Why the credential was destroyed, in the words the request's page uses; the stored reason stays in a title.
    expect(facts).toMatch(/Credential destroyedYes, .+ \(completed by a member\)/);
    const completed = memberPage.locator('#certificate-timeline tr[data-type="request.completed"]');
    expect(await completed.locator('th').textContent()).toBe('Completed; credential destroyed');
    expect(await completed.locator('td').last().textContent()).toBe('Completed by a member');
    expect(await completed.locator('td').last().locator('span').getAttribute('title')).toBe('completed_by_member');
    expect(await memberPage.textContent('#verify-result')).not.toContain('completed_by_member');

    const changed = Buffer.from(json);
    const at = changed.indexOf(ORG_NAME);
    changed[at + ORG_NAME.length - 1] = 'Q'.charCodeAt(0); // "Verify MSP" → "Verify MSQ"
    expect(await upload(memberPage, 'changed.json', 'application/json', changed)).toBe('false');
    expect(await memberPage.textContent('#verify-reason')).toContain('signature does not verify');
    expect(await memberPage.textContent('#verify-result h2')).toContain('Not valid');

    expect(await upload(memberPage, 'certificate.pdf', 'application/pdf', pdf)).toBe('true');
    expect(await memberPage.textContent('#verify-result')).toContain('attached to the PDF');

    expect(await upload(memberPage, 'notes.txt', 'text/plain', Buffer.from('not a certificate'))).toBe('false');
    expect(await memberPage.textContent('#verify-reason')).toContain('not JSON');
  }, 60_000);

  it('works signed out, and reads the file without uploading it anywhere', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const posts: string[] = [];
    page.on('request', (request) => {
      if (request.method() !== 'GET') posts.push(request.url());
    });
    await page.goto(`${service.appUrl}/app/verify`);
    await page.waitForSelector('#certificate-file');
    expect(new URL(page.url()).pathname).toBe('/app/verify');
    expect(await page.isVisible('#nav')).toBe(false);
    expect(await upload(page, 'certificate.json', 'application/json', json)).toBe('true');
    expect(posts).toEqual([]);
    await context.close();
  }, 60_000);
});
