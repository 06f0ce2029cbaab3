/**
 * Drives both pages in headless Chromium against a throw-away local service and saves the screenshots
 * of the docs pages' walkthrough:
 *
 *   npx tsx web/screenshots.ts [outdir=docs/screenshots] [chromium=/usr/bin/chromium]
 *
 * Needs Java (DynamoDB Local) and a Chromium (Debian: apt-get install chromium). It is a
 * walkthrough, not a test: each step logs what it saw and the script goes on where it can.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { startDemoService } from '../lambdas/local/demo-service.ts';
import { organisationSettingsSteps } from './walkthrough/organisation-settings.ts';
import { walkthroughRecorder } from './walkthrough/recorder.ts';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
process.env.LOG_LEVEL ??= 'ERROR';

const outDir = resolve(process.argv[2] ?? 'docs/screenshots');
const executablePath = process.argv[3] ?? '/usr/bin/chromium';
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const VIEWPORT = { width: 1000, height: 700 };
const PASSPHRASE = 'correct horse battery staple';

const dataDir = mkdtempSync(join(tmpdir(), 'handoff-walkthrough-'));
const outbox = join(dataDir, 'outbox');
mkdirSync(outDir, { recursive: true });

const { problems, step, shot, mailLink } = walkthroughRecorder(outDir, outbox);

const main = async () => {
  mkdirSync(outbox, { recursive: true });
  // Loopback receivers and helpdesks, as under npm start: the walkthrough connects a helpdesk on loopback.
  const { service, demo, key } = await startDemoService({ dataDir, outboxDir: outbox, announce: () => undefined, allowLoopbackWebhooks: true });
  const { secret } = key;
  // A recipient with no key yet: her browser sets the first one up (verified at once).
  const ritaEmail = 'rita@example.com';
  await service.admin.addMember({ orgId: demo.orgId, name: 'Rita Recipient', email: ritaEmail, role: 'admin' });
  const app = service.appUrl;
  console.log(`service at ${app}`);

  const api = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${service.baseUrl}${path}`, {
      method,
      headers: { Authorization: `Bearer ${secret}`, 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = (await response.json()) as Record<string, unknown>;
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(json)}`);
    return json;
  };

  let browser: Browser | undefined;

  try {
    browser = await chromium.launch({ executablePath, args: ARGS, headless: true });
    const context = (): Promise<BrowserContext> => browser!.newContext({ viewport: VIEWPORT, locale: 'en-GB', timezoneId: 'Europe/London' });
    const consoleOf = (page: Page, who: string) => {
      page.on('pageerror', (error) => console.log(`  [${who} page error] ${error.message}`));
      page.on('console', (message) => message.type() === 'error' && console.log(`  [${who} console] ${message.text()}`));
    };

    // --- Rita signs in and sets up her key -----------------------------------------------------
    const rita = await (await context()).newPage();
    consoleOf(rita, 'rita');
    const signIn = async (page: Page, email: string) => {
      await page.goto(`${app}/app`);
      await page.waitForSelector('#email');
      await page.fill('#email', email);
      await page.press('#email', 'Enter');
      await page.waitForSelector('#check-email');
      await page.goto(await mailLink(email, /http\S+\/app\/sign-in#token=\S+/));
      await page.waitForSelector('#sign-out');
    };
    await step('app: sign-in page', async () => {
      await rita.goto(`${app}/app`);
      await rita.waitForSelector('#email');
      await rita.keyboard.press('Tab');
      const focused = await rita.evaluate(() => document.activeElement?.outerHTML.slice(0, 80));
      if (!focused?.includes('skip-link')) throw new Error(`the first Tab reaches ${focused}, not the skip link`);
      await rita.fill('#email', ritaEmail);
      await shot(rita, 'app-sign-in');
      await rita.click('#sign-in');
      await rita.waitForSelector('#check-email');
      await shot(rita, 'app-sign-in-sent');
    }, rita);
    await step('app: emailed link signs in', async () => {
      await rita.goto(await mailLink(ritaEmail, /http\S+\/app\/sign-in#token=\S+/));
      await rita.waitForSelector('#sign-out');
      if (rita.url().includes('token=')) throw new Error('the token stayed in the address bar');
    }, rita);
    await step('app: key set-up', async () => {
      await rita.click('a[href="/app/key"]');
      await rita.waitForSelector('#passphrase');
      await rita.fill('#passphrase', PASSPHRASE);
      await rita.fill('#passphrase-confirm', PASSPHRASE);
      await rita.click('#create-key');
      await rita.waitForSelector('#download-backup', { timeout: 30_000 });
      const backup = await rita.textContent('#backup-json');
      if (!backup?.includes('handoff-identity-backup/v1')) throw new Error('no backup text');
      await rita.waitForFunction(() => document.querySelector('#key-status')?.textContent?.includes('Verified'));
      await rita.evaluate(() => window.scrollTo(0, 0));
      await shot(rita, 'app-key-setup');
    }, rita);

    // --- Rita makes a request in her browser, from a ticket's deep link --------------------------
    await step('app: new request from a ticket deep link', async () => {
      await rita.goto(`${app}/app/requests/new?ticket=T-4713&preset=${demo.presetSlug}`);
      await rita.waitForSelector('#request-form');
      await rita.fill('#subject-name', 'Lee Customer');
      await rita.fill('#subject-email', 'lee@customer.example');
      await shot(rita, 'app-new-request');
    }, rita);
    await step('app: new request, the recipients and the fingerprints this browser computed', async () => {
      await rita.click('#check-recipients');
      await rita.waitForSelector('#confirm-recipients');
      await rita.locator('#confirm-recipients').scrollIntoViewIfNeeded();
      await shot(rita, 'app-new-request-confirm');
    }, rita);
    await step('app: new request made, the link and the code each shown once', async () => {
      await rita.click('#create-request');
      await rita.waitForSelector('#request-created');
      if (!(await rita.inputValue('#request-link')).includes('#')) throw new Error('a link without its fragment');
      await shot(rita, 'app-new-request-created');
    }, rita);

    // --- A request for Rita, created through the API ---------------------------------------------
    let link = '';
    let challenge = '';
    let requestId = '';
    await step('api: create a request', async () => {
      const created = await api('POST', '/requests', {
        subject_name: 'Jane Doe',
        subject_email: 'jane@customer.example',
        justification: 'We need the router admin password to finish ticket #4711.',
        recipients: [ritaEmail],
        client_id: demo.clientId,
        ticket_ref: 'T-4711',
        verification_mode: 'challenge',
        allow_attachments: true,
      });
      link = created.link as string;
      challenge = created.challenge_code as string;
      requestId = (created.request as { id: string }).id;
    });

    await step('api: two more requests for the list', async () => {
      await api('POST', '/requests', { subject_name: 'Sam Smith', justification: 'Wi-Fi key for the new office access point.', recipients: [ritaEmail], verification_mode: 'none' });
      const revoked = await api('POST', '/requests', { subject_name: 'Ali Khan', justification: 'Domain registrar login for the DNS move.', recipients: [ritaEmail], client_id: demo.clientId });
      await api('POST', `/requests/${(revoked.request as { id: string }).id}/revoke`);
    });

    // --- The subject ----------------------------------------------------------------------------
    const subject = await (await context()).newPage();
    consoleOf(subject, 'subject');
    await step('subject: a fetch of the HTML alone changes nothing', async () => {
      await fetch(link.split('#')[0]);
      const request = await api('GET', `/requests/${requestId}`);
      if (request.status !== 'pending') throw new Error(`status ${String(request.status)} after a plain GET`);
    });
    await step('subject: tampered fragment is refused', async () => {
      await subject.goto(link.replace(/#.*/, '#AAAAAAAAAAAAAAAAAAAAAA'));
      await subject.waitForSelector('#refusal');
      if (await subject.$('#credential')) throw new Error('credential form shown');
      await shot(subject, 'subject-refused');
      // Nothing is sealed; the page still tells the service the link was opened, so that a key
      // change it missed flags the request for a new link (web/subject/main.ts).
      const request = await api('GET', `/requests/${requestId}`);
      if (request.status !== 'opened') throw new Error(`status ${String(request.status)} after a refused page`);
    }, subject);
    await step('subject: verify step', async () => {
      await subject.goto('about:blank');
      await subject.goto(link);
      await subject.waitForSelector('#challenge-code');
      await subject.fill('#challenge-code', challenge === '000000' ? '111111' : '000000');
      await subject.click('#verify');
      await subject.waitForFunction(() => !!document.getElementById('error')?.textContent);
      await subject.fill('#challenge-code', challenge);
      await shot(subject, 'subject-verify');
      const request = await api('GET', `/requests/${requestId}`);
      if (request.status !== 'opened') throw new Error(`status ${String(request.status)} after the page's script ran`);
    }, subject);
    await step('subject: credential step', async () => {
      await subject.press('#challenge-code', 'Enter');
      await subject.waitForSelector('#credential');
      await subject.fill('#credential', 'Tr0ub4dor&3-router');
      await subject.fill('#note', 'User name: admin. The router is in the server room.');
      await subject.setInputFiles('#attachments', { name: 'router-config.txt', mimeType: 'text/plain', buffer: Buffer.from('hostname edge-1\n') });
      await subject.click('#toggle-credential');
      await shot(subject, 'subject-credential');
      await subject.click('#toggle-credential');
    }, subject);
    await step('subject: success', async () => {
      await subject.click('#submit');
      await subject.waitForSelector('#submitted', { timeout: 20_000 });
      await shot(subject, 'subject-success');
    }, subject);
    await step('subject: closed link', async () => {
      await subject.goto('about:blank');
      await subject.goto(link);
      await subject.waitForSelector('#link-closed');
      await shot(subject, 'subject-closed');
    }, subject);

    await step('subject: both codes (spoken and emailed), then a report', async () => {
      const created = await api('POST', '/requests', {
        subject_name: 'Bo Both',
        subject_email: 'bo@customer.example',
        justification: 'Backup service credentials for the nightly job.',
        recipients: [ritaEmail],
        verification_mode: 'both',
      });
      const page = await (await context()).newPage();
      consoleOf(page, 'bo');
      await page.goto(created.link as string);
      await page.waitForSelector('#challenge-code');
      await page.fill('#challenge-code', created.challenge_code as string);
      await page.click('#verify');
      await page.waitForSelector('#send-email-code');
      await page.waitForFunction(() => !document.getElementById('challenge-code'));
      await page.click('#send-email-code');
      const code = await mailLink('bo@customer.example', /\b\d{6}\b/);
      await page.fill('#email-code', code);
      await page.press('#email-code', 'Enter');
      await page.waitForSelector('#credential');
      await page.fill('#report-reason', 'I do not know this company.');
      await page.click('#report');
      await page.waitForFunction(() => document.getElementById('status')?.textContent?.includes('reported'));
    });

    // --- Rita's requests, the detail, the reveal ------------------------------------------------
    await step('app: my requests', async () => {
      await rita.click('a[href="/app/requests"]');
      await rita.waitForSelector(`a[data-request-id="${requestId}"]`);
      await shot(rita, 'app-requests');
    }, rita);
    await step('app: request detail with audit trail', async () => {
      await rita.click(`a[data-request-id="${requestId}"]`);
      await rita.waitForSelector('#audit');
      await shot(rita, 'app-request-detail');
    }, rita);
    await step('app: reveal', async () => {
      await rita.click('#reveal');
      await rita.waitForSelector('#revealed-credential');
      const value = await rita.inputValue('#revealed-credential');
      if (value !== 'Tr0ub4dor&3-router') throw new Error(`revealed ${JSON.stringify(value)}`);
      await rita.click('#toggle-credential');
      await rita.locator('#revealed').scrollIntoViewIfNeeded();
      await shot(rita, 'app-revealed');
      const attachment = await rita.getAttribute('#revealed-attachments a', 'download');
      if (attachment !== 'router-config.txt') throw new Error('attachment missing');
    }, rita);
    await step('app: complete and destroy', async () => {
      await rita.click('#complete');
      await rita.waitForSelector('#complete-confirmation:not([hidden])');
      await rita.click('#confirm-complete');
      await rita.waitForFunction(() => document.querySelector('.badge')?.textContent === 'Completed');
    }, rita);

    // --- Custody certificates and the Verify page -----------------------------------------------
    let certificate = '';
    await step('app: the ended request offers its certificate', async () => {
      await rita.waitForSelector('#download-certificate-json');
      certificate = await rita.evaluate(async (id) => (await fetch(`/app/api/requests/${id}/certificate?format=json`)).text(), requestId);
      if (!certificate.includes('service-custody/v1')) throw new Error('no certificate JSON');
    }, rita);
    await step('app: the certificate as PDF, first page as PNG (needs pdftoppm from poppler-utils)', async () => {
      const pdf = await rita.evaluate(async (id) => {
        const bytes = new Uint8Array(await (await fetch(`/app/api/requests/${id}/certificate?format=pdf`)).arrayBuffer());
        return Array.from(bytes);
      }, requestId);
      const file = join(dataDir, 'certificate.pdf');
      writeFileSync(file, Buffer.from(pdf));
      // -singlefile writes <prefix>.png for the first page only.
      execFileSync('pdftoppm', ['-png', '-r', '80', '-singlefile', file, join(outDir, 'certificate-pdf')]);
    }, rita);
    await step('app: verify page, valid', async () => {
      await rita.click('a[href="/app/verify"]');
      await rita.waitForSelector('#certificate-file');
      await rita.setInputFiles('#certificate-file', { name: `custody-certificate-${requestId}.json`, mimeType: 'application/json', buffer: Buffer.from(certificate) });
      await rita.waitForSelector('#verify-result[data-valid="true"]');
      await rita.evaluate(() => window.scrollTo(0, 0));
      await shot(rita, 'app-verify-valid');
    }, rita);
    await step('app: verify page, a changed byte', async () => {
      const changed = certificate.replace(/"subject_name":"Jane Doe"/, '"subject_name":"Jane Dot"');
      if (changed === certificate) throw new Error('nothing to change');
      await rita.setInputFiles('#certificate-file', { name: 'custody-certificate-edited.json', mimeType: 'application/json', buffer: Buffer.from(changed) });
      await rita.waitForSelector('#verify-result[data-valid="false"]');
      await rita.evaluate(() => window.scrollTo(0, 0));
      await shot(rita, 'app-verify-invalid');
    }, rita);

    await step('app: a revoked request given a new link', async () => {
      const created = (await api('POST', '/requests', {
        subject_name: 'Bo Customer',
        justification: 'The new VPN account password',
        recipients: [ritaEmail],
        verification_mode: 'challenge',
      })) as { request: { id: string } };
      await api('POST', `/requests/${created.request.id}/revoke`);
      await rita.goto(`${app}/app/requests/${created.request.id}`);
      await rita.click('#relink');
      await rita.click('#confirm-relink');
      await rita.waitForSelector('#relinked');
      await shot(rita, 'app-request-relinked');
    }, rita);
    await step('app: webhooks, a receiver added and its secret shown once', async () => {
      await rita.click('a[href="/app/webhooks"]');
      await rita.waitForSelector('#webhook-form');
      await rita.fill('#webhook-url', 'https://hooks.example.com/handoff');
      await rita.check('input[name="events"][value="request.submitted"]');
      await rita.click('#create-webhook');
      await rita.waitForSelector('#webhook-created');
      await shot(rita, 'app-webhook-created');
    }, rita);
    await step('app: a webhook, its deliveries and actions', async () => {
      await rita.click('#view-webhook');
      await rita.waitForSelector('h1');
      await shot(rita, 'app-webhook-detail');
    }, rita);
    await step('app: the audit log', async () => {
      await rita.click('a[href="/app/audit"]');
      await rita.waitForSelector('#audit-log');
      await shot(rita, 'app-audit');
    }, rita);
    await step('app: the audit log, reads through API keys', async () => {
      await rita.click('#audit-tabs a[href="/app/audit?view=api_reads"]');
      await rita.waitForSelector('#api-reads');
      await shot(rita, 'app-audit-api-reads');
    }, rita);

    // --- A share: made in the app, opened by someone outside -------------------------------------
    let shareLink = '';
    await step('app: new share', async () => {
      await rita.click('a[href="/app/shares"]');
      await rita.waitForSelector('#new-share');
      await rita.click('#new-share');
      await rita.waitForSelector('#share-form');
      await rita.fill('#share-credential', 'Fr0nt-desk-WiFi-2026!');
      await rita.fill('#share-label', 'Wi-Fi for the Acme front desk');
      await rita.fill('#share-ticket', 'T-4712');
      await rita.selectOption('#share-expiry', '10080');
      await shot(rita, 'app-share-new');
    }, rita);
    await step('app: the share link, shown once', async () => {
      await rita.press('#share-ticket', 'Enter');
      await rita.waitForSelector('#share-link');
      shareLink = await rita.inputValue('#share-link');
      if (!/\/s\/[\w-]{43}#[\w-]{43}\.[\w-]{43}\.[\w-]{43}$/.test(shareLink)) throw new Error(`link ${shareLink}`);
      await rita.evaluate(() => window.scrollTo(0, 0));
      await shot(rita, 'app-share-created');
    }, rita);
    const recipient = await (await context()).newPage();
    consoleOf(recipient, 'recipient');
    await step('share: the recipient page before opening', async () => {
      await recipient.goto(shareLink);
      await recipient.waitForSelector('#share-describe');
      if (recipient.url().includes('#')) throw new Error('the key stayed in the address bar');
      await shot(recipient, 'share-describe');
    }, recipient);
    await step('share: opened, last view', async () => {
      await recipient.click('#open');
      await recipient.waitForSelector('#share-destroyed');
      await recipient.click('#toggle-credential');
      await shot(recipient, 'share-opened');
    }, recipient);
    await step('share: the link again', async () => {
      await recipient.goto('about:blank');
      await recipient.goto(shareLink);
      await recipient.waitForSelector('#share-gone');
      await shot(recipient, 'share-gone');
    }, recipient);
    await step('app: shares list and detail', async () => {
      await rita.click('a[href="/app/shares"]');
      await rita.click('#new-share');
      await rita.waitForSelector('#share-form');
      await rita.fill('#share-credential', 'nas-admin-0ne-t1me');
      await rita.fill('#share-label', 'Backup NAS admin for Bo');
      await rita.selectOption('#share-views', '3');
      await rita.click('#create-share');
      await rita.waitForSelector('#share-link');
      await rita.click('a[href="/app/shares"]');
      await rita.waitForSelector('#shares');
      await shot(rita, 'app-shares');
      await rita.click('#shares a[data-share-id]:text("Wi-Fi for the Acme front desk")');
      await rita.waitForSelector('#download-certificate-json');
      await shot(rita, 'app-share-detail');
    }, rita);

    // --- A replaced key, approved by an admin ---------------------------------------------------
    // The demo member's first key in a browser is registered at once (a newcomer can reveal as
    // the demo members); a key made in a second browser replaces it and waits for an admin.
    const tomFirst = await (await context()).newPage();
    const tom = await (await context()).newPage();
    consoleOf(tomFirst, 'tom');
    consoleOf(tom, 'tom');
    let tomId = '';
    const setUpKey = async (page: Page) => {
      await signIn(page, demo.memberEmail);
      await page.goto(`${app}/app/key`);
      await page.waitForSelector('#passphrase');
      await page.fill('#passphrase', PASSPHRASE);
      await page.fill('#passphrase-confirm', PASSPHRASE);
      await page.click('#create-key');
      await page.waitForSelector('#download-backup', { timeout: 30_000 });
    };
    await step('app: a replacement key waits for approval', async () => {
      await setUpKey(tomFirst);
      await setUpKey(tom);
      await tom.waitForFunction(() => document.querySelector('#key-status')?.textContent?.includes('waiting'));
    }, tom);
    await step('app: admin approves the key', async () => {
      await rita.goto(`${app}/app/members`);
      await rita.waitForSelector('#members');
      const button = await rita.waitForSelector('button[id^="approve-"]');
      tomId = (await button.getAttribute('id'))!.replace('approve-', '');
      await shot(rita, 'app-admin-approve');
      await rita.click(`#approve-${tomId}`);
      await rita.waitForFunction((id) => !document.getElementById(`approve-${id}`), tomId);
    }, rita);
    await organisationSettingsSteps(rita, { step, shot });
    await step('app: sign out', async () => {
      await rita.click('#sign-out');
      await rita.waitForSelector('#email');
    });
  } finally {
    await browser?.close();
    await service.stop();

    rmSync(dataDir, { recursive: true, force: true });
  }
  console.log(problems.length ? `${problems.length} step(s) failed: ${problems.join('; ')}` : `all steps passed; screenshots in ${outDir}`);
  process.exit(problems.length ? 1 : 0);
};

await main();
