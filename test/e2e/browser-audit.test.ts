import { readFileSync } from 'node:fs';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumPresent, expectEveryControlNamed, expectNoSeriousAxeViolations, launch, signInInBrowser } from '../support/browser.ts';
import { startTestService, type TestOrganisation, type TestService } from '../support/test-service.ts';
import { auditEntries } from '../support/shapes.ts';
import { keys } from '../../lambdas/store/keys.ts';

/** The audit log page as an admin uses it, by keyboard: filters, the hash links, the exports; and its API reads tab. */
const haveChromium = chromiumPresent();

let service: TestService;
let browser: Browser;
let org: TestOrganisation;
let revokedId = '';

beforeAll(async () => {
  if (!haveChromium) return;
  service = await startTestService();
  org = await service.createOrganisation({ name: 'Audit Page Org' });
  for (const subject of ['Ann Audit', 'Bo Audit']) {
    const created = await service.call('POST', '/requests', { key: org.key, body: { subject_name: subject, justification: 'Audit page test request', recipients: [org.owner.email] } });
    revokedId = created.body.request.id;
  }
  await service.call('POST', `/requests/${revokedId}/revoke`, { key: org.key });
  browser = await launch();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await service?.stop();
});

const download = async (page: Page, id: string) => {
  const [file] = await Promise.all([page.waitForEvent('download'), page.focus(`#${id}`).then(() => page.keyboard.press('Enter'))]);
  return { name: file.suggestedFilename(), text: readFileSync((await file.path())!, 'utf8') };
};

describe.skipIf(!haveChromium)('the audit log page', () => {
  it('shows the chain with its hash links, filters by type, and exports what it shows', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await signInInBrowser(page, service.appUrl, service.outboxDir, org.owner.email);
    await page.click('#nav a[href="/app/audit"]');
    await page.waitForSelector('#audit-log');
    await expectEveryControlNamed(page);
    await expectNoSeriousAxeViolations(page);
    const rows = page.locator('#audit-log tbody tr');
    expect(await rows.count()).toBeGreaterThanOrEqual(3);
    // Every entry but the oldest shown links to the one before it.
    const links = await page.locator('#audit-log td.chain').evaluateAll((cells) => cells.map((cell) => cell.getAttribute('data-linked')));
    expect(links.slice(0, -1).every((linked) => linked === 'true')).toBe(true);
    expect(await rows.first().locator('th').textContent()).toContain('Revoked');
    // Every entry, about a request or not, is named in words, its stored type under them for the Type filter.
    const named = await page.locator('#audit-log tbody th').evaluateAll((cells) => cells.map((cell) => [cell.firstChild?.textContent ?? '', cell.querySelector('code')?.textContent ?? '']));
    expect(named.length).toBe(await rows.count());
    for (const [words, type] of named) {
      expect(words).not.toMatch(/^[a-z_]+\.[a-z_]+$/);
      expect(type).toMatch(/^[a-z_]+\.[a-z_]+$/);
    }
    expect(named.map(([words]) => words)).toEqual(expect.arrayContaining(['Revoked', 'Created', 'Organisation created', 'Member added', 'API key created']));
    // The whole hash opens by keyboard, in the page, not in a hover-only tooltip.
    const newest = (await auditEntries(service, org.orgId)).reduce((a, b) => ((a.seq as number) > (b.seq as number) ? a : b));
    expect(await page.locator('#audit-log td.chain [title]').count()).toBe(0);
    await page.focus('#audit-log tbody tr:first-child td.chain summary');
    expect(await page.locator('#audit-log tbody tr:first-child .whole-hash').isVisible()).toBe(false);
    await page.keyboard.press('Enter');
    expect(await page.locator('#audit-log tbody tr:first-child .whole-hash').isVisible()).toBe(true);
    expect(await page.locator('#audit-log tbody tr:first-child .whole-hash').textContent()).toBe(newest.hash);
    // The entry that ended a request offers its custody certificate, and only that one does.
    expect(await page.locator('button[data-certificate]').evaluateAll((buttons) => buttons.map((b) => b.getAttribute('data-certificate')))).toEqual([revokedId]);
    const [certificate] = await Promise.all([page.waitForEvent('download'), page.focus(`button[data-certificate="${revokedId}"]`).then(() => page.keyboard.press('Enter'))]);
    expect(certificate.suggestedFilename()).toMatch(/\.pdf$/);
    expect(readFileSync((await certificate.path())!).subarray(0, 5).toString()).toBe('%PDF-');

    await page.focus('#filter-type');
    await page.keyboard.type('request.created');
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/app\/audit\?type=request\.created/);
    await page.waitForFunction(() => Array.from(document.querySelectorAll('#audit-log tbody th')).every((cell) => cell.textContent?.includes('request.created')));
    expect(await page.locator('#audit-log tbody tr').count()).toBe(2);
    // Filtering says what it found, in the status region.
    expect(await page.textContent('#status')).toBe('Showing the entries that match these filters, newest first.');

    const csv = await download(page, 'export-csv');
    expect(csv.name).toBe('audit-log.csv');
    const lines = csv.text.trim().split(/\r\n/);
    expect(lines[0]).toBe('seq,occurred_at,type,actor_type,actor_label,request_id,share_id,member_id,member_email,details,prev_hash,hash,hash_matches');
    expect(lines).toHaveLength(3);
    expect(lines.slice(1).every((line) => line.includes(',request.created,'))).toBe(true);
    const json = await download(page, 'export-json');
    const exported = JSON.parse(json.text);
    expect(exported.entries.map((entry: { type: string }) => entry.type)).toEqual(['request.created', 'request.created']);
    // The file says with which filters it was made, and when: a filtered file's gaps are the filter's.
    expect(exported.filters).toEqual({ type: 'request.created' });
    expect(Date.now() - Date.parse(exported.exported_at)).toBeLessThan(60_000);

    await page.setViewportSize({ width: 320, height: 640 });
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(320);
    await page.goto(`${service.appUrl}/app/audit?from=2000-01-01&to=2000-01-01`);
    await page.waitForSelector('#no-entries');
    expect(await page.textContent('#status')).toBe('No entries match these filters.');
    await expectNoSeriousAxeViolations(page);
    await context.close();
  }, 120_000);

  it('takes a request id as people paste it, and shows a refused filter under its field, the filters kept', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await signInInBrowser(page, service.appUrl, service.outboxDir, org.owner.email);
    await page.click('#nav a[href="/app/audit"]');
    await page.waitForSelector('#audit-log');
    const focusedId = () => page.evaluate(() => document.activeElement?.id);
    // Pasted into Request id, then Enter: with a space before it, in capitals, or as the request page's address.
    const showRequest = async (pasted: string) => {
      await page.focus('#filter-request');
      await page.keyboard.press('ControlOrMeta+A');
      await page.keyboard.insertText(pasted);
      await page.keyboard.press('Enter');
      await page.waitForURL(`${service.appUrl}/app/audit?request_id=${revokedId}`);
      await page.waitForFunction(() => document.getElementById('status')?.textContent?.startsWith('Showing the entries that match'));
      const rows = page.locator('#audit-log tbody tr');
      expect(await rows.count()).toBeGreaterThanOrEqual(2);
      expect(await page.locator(`#audit-log tbody tr a[href="/app/requests/${revokedId}"]`).count()).toBe(await rows.count());
      expect(await page.inputValue('#filter-request')).toBe(revokedId);
      expect(await page.textContent('#error')).toBe('');
      // Once the URL is back to the plain log, the next paste starts from there.
      await page.goto(`${service.appUrl}/app/audit`);
      await page.waitForSelector('#audit-log');
    };
    await showRequest(` ${revokedId}`);
    await showRequest(revokedId.toUpperCase());
    await showRequest(`${service.appUrl}/app/requests/${revokedId}`);

    // What the page can check is refused before anything is sent: under the field, tied to it, the focus on it.
    const expectRefused = async (id: string, message: string) => {
      await page.waitForFunction((control) => document.getElementById(control)?.getAttribute('aria-invalid') === 'true', id);
      expect(await page.textContent(`#${id}-error`)).toBe(message);
      expect((await page.getAttribute(`#${id}`, 'aria-describedby'))!.split(' ')).toContain(`${id}-error`);
      expect(await focusedId()).toBe(id);
      expect(await page.textContent('#error')).toContain('see the message under each');
    };
    await page.focus('#filter-request');
    await page.keyboard.insertText('request 42');
    await page.keyboard.press('Enter');
    await expectRefused('filter-request', 'Must be a request’s 26-character id, or the address of its page.');
    expect(page.url()).toBe(`${service.appUrl}/app/audit`);
    await page.keyboard.press('ControlOrMeta+A');
    await page.keyboard.press('Delete');
    await page.fill('#filter-from', '2026-02-01');
    await page.fill('#filter-to', '2026-01-01');
    await page.focus('#apply-filters');
    await page.keyboard.press('Enter');
    await expectRefused('filter-from', 'Must be on or before To.');
    expect(page.url()).toBe(`${service.appUrl}/app/audit`);
    expect(await page.locator('#audit-log').count()).toBe(1);
    expect(await page.getAttribute('#filter-request', 'aria-invalid')).toBeNull();

    // A bookmarked address the service refuses: each refusal under its filter, the filters as they
    // were, the focus on the first refused one; fixed there, the log shows.
    await page.goto(`${service.appUrl}/app/audit?type=Request.Created&request_id=NOT-AN-ID&from=2026-02-01&to=2026-01-01`);
    await page.waitForSelector('#filters-refused');
    expect(await page.textContent('h1')).toBe('Audit log');
    expect(await page.title()).toBe('Audit log · Credential Handoff');
    await expectRefused('filter-type', 'Must be an audit type such as request.created.');
    expect(await page.textContent('#filter-request-error')).toBe('Must be a 26-character lower-case ULID.');
    expect(await page.inputValue('#filter-request')).toBe('NOT-AN-ID');
    expect(await page.locator('#audit-log, #export-csv').count()).toBe(0);
    await expectEveryControlNamed(page);
    await expectNoSeriousAxeViolations(page);
    await page.goto(`${service.appUrl}/app/audit?from=2026-02-01&to=2026-01-01`);
    await expectRefused('filter-from', 'Must be on or before to.');
    expect(await page.inputValue('#filter-to')).toBe('2026-01-01');
    await page.fill('#filter-from', '2000-01-01');
    await page.focus('#apply-filters');
    await page.keyboard.press('Enter');
    await page.waitForURL(/from=2000-01-01&to=2026-01-01/);
    await page.waitForSelector('#no-entries');
    expect(await page.locator('[aria-invalid]').count()).toBe(0);

    // The API reads tab takes its request filter the same way.
    await page.goto(`${service.appUrl}/app/audit?view=api_reads&request_id=NOT-AN-ID`);
    await page.waitForSelector('#filters-refused');
    await expectRefused('filter-request', 'Must be a 26-character lower-case ULID.');
    await page.keyboard.press('ControlOrMeta+A');
    await page.keyboard.insertText(` ${service.appUrl}/app/requests/${revokedId.toUpperCase()}`);
    await page.keyboard.press('Enter');
    await page.waitForURL(`${service.appUrl}/app/audit?view=api_reads&request_id=${revokedId}`);
    await page.waitForSelector('#api-reads, #no-reads');
    expect(await page.locator('[aria-invalid]').count()).toBe(0);
    await context.close();
  }, 120_000);

  it('tells a plain member the page is for owners and admins', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await signInInBrowser(page, service.appUrl, service.outboxDir, org.member.email);
    expect(await page.locator('#nav a[href="/app/audit"]').count()).toBe(0);
    for (const path of ['/app/audit', '/app/audit?view=api_reads']) {
      await page.goto(`${service.appUrl}${path}`);
      await page.waitForSelector('h1:text("Audit log")');
      expect(await page.textContent('#content')).toContain('Only owners and admins can see this page.');
      expect(await page.title()).toBe('Audit log · Credential Handoff');
      expect(await page.textContent('#error')).toBe('');
    }
    await context.close();
  }, 120_000);

  it('marks an entry edited in the table after it was chained, whose links still hold', async () => {
    const first = (await auditEntries(service, org.orgId)).find((entry) => entry.type === 'request.created')!;
    await service.deps.db.send(
      new UpdateCommand({
        TableName: service.deps.tableName,
        Key: keys.auditEntry(org.orgId, first.seq as number),
        UpdateExpression: 'SET actor.label = :label',
        ExpressionAttributeValues: { ':label': 'Someone else' },
      }),
    );
    const context = await browser.newContext();
    const page = await context.newPage();
    await signInInBrowser(page, service.appUrl, service.outboxDir, org.owner.email);
    await page.goto(`${service.appUrl}/app/audit`);
    await page.waitForSelector('#audit-log');
    const edited = page.locator(`#audit-log tr[data-seq="${first.seq}"] td.chain`);
    expect(await edited.getAttribute('data-content')).toBe('edited');
    expect(await edited.textContent()).toContain('edited: its content does not match its hash');
    const marks = await page.locator('#audit-log td.chain').evaluateAll((cells) => cells.map((cell) => cell.getAttribute('data-content')));
    expect(marks.filter((mark) => mark === 'edited')).toHaveLength(1);
    await expectNoSeriousAxeViolations(page);
    await context.close();
  }, 120_000);

  it('shows the reads through API keys on their own tab, filters them by key, and exports what it shows', async () => {
    const reader = await service.createKey(org.orgId, { name: 'Nightly report', scopes: ['requests:read'] });
    expect((await service.call('GET', '/requests', { key: reader })).status).toBe(200);
    expect((await service.call('GET', `/requests/${revokedId}`, { key: reader })).status).toBe(200);
    // Another key's read, for the key filter to leave out.
    expect((await service.call('GET', '/events', { key: org.key })).status).toBe(200);
    await service.apiReadsSettled();

    const context = await browser.newContext();
    const page = await context.newPage();
    await signInInBrowser(page, service.appUrl, service.outboxDir, org.owner.email);
    await page.click('#nav a[href="/app/audit"]');
    await page.waitForSelector('#audit-log');
    await page.focus('#audit-tabs a[href="/app/audit?view=api_reads"]');
    await page.keyboard.press('Enter');
    await page.waitForSelector('#api-reads');
    expect(await page.locator('#audit-tabs a[aria-current="page"]').textContent()).toBe('API reads');
    await expectEveryControlNamed(page);
    await expectNoSeriousAxeViolations(page);
    const rows = page.locator('#api-reads tbody tr');
    expect(await rows.count()).toBe(3);
    const newestOfReader = rows.nth(1);
    expect(await newestOfReader.locator('th').textContent()).toBe('Nightly report');
    expect(await newestOfReader.locator('td code').first().textContent()).toBe('GET /v1/requests/{id}');
    expect(await newestOfReader.locator(`a[href="/app/requests/${revokedId}"]`).count()).toBe(1);
    expect(await newestOfReader.locator('td[data-status]').textContent()).toBe('Read');

    await page.selectOption('#filter-key', { label: 'Nightly report' });
    await page.focus('#apply-filters');
    await page.keyboard.press('Enter');
    await page.waitForURL(/view=api_reads&key_id=/);
    await page.waitForFunction(() => document.querySelectorAll('#api-reads tbody tr').length === 2);
    expect(await page.locator('#api-reads tbody th').allTextContents()).toEqual(['Nightly report', 'Nightly report']);

    const csv = await download(page, 'export-csv');
    expect(csv.name).toBe('api-reads.csv');
    const lines = csv.text.trim().split(/\r\n/);
    expect(lines[0]).toBe('id,occurred_at,key_id,key_name,route,status,client_id,source_ip,requests,shares,webhooks,events_count,events_first,events_last,omitted');
    expect(lines).toHaveLength(3);
    expect(lines[1]).toContain(`,Nightly report,GET /v1/requests/{id},200,,127.0.0.1,${revokedId},`);
    expect(lines[2]).toContain(',Nightly report,GET /v1/requests,200,');
    const json = await download(page, 'export-json');
    expect(json.name).toBe('api-reads.json');
    const reads = JSON.parse(json.text).api_reads as Array<{ key: { name: string }; route: string; records: { requests: string[] } }>;
    expect(reads.map((read) => [read.key.name, read.route])).toEqual([
      ['Nightly report', 'GET /v1/requests/{id}'],
      ['Nightly report', 'GET /v1/requests'],
    ]);
    expect(reads[1]!.records.requests).toContain(revokedId);

    await page.setViewportSize({ width: 320, height: 640 });
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(320);
    await context.close();
  }, 120_000);
});
