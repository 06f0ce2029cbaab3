import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumPresent, expectNoSeriousAxeViolations, launch, setUpKeyInBrowser, signInInBrowser } from '../support/browser.ts';
import { startTestService, type TestService } from '../support/test-service.ts';

/**
 * What people type, at 320 px: real long surnames and addresses, a pasted recovery key, a client
 * named without spaces, and text in a right-to-left script or carrying a stray direction
 * override. The page never scrolls sideways, and a name cannot reorder the words around it.
 */
const haveChromium = chromiumPresent();

const OWNER_EMAIL = 'maximiliana.wolfeschlegelsteinhausenbergerdorff@contoso-international.example.com';
const LONG_NAME = 'Maximiliana Wolfeschlegelsteinhausenbergerdorff-Montgomery';
const UNBROKEN = 'x'.repeat(120);
const PASTED_KEY = 'RK-' + 'A1b2C3d4'.repeat(40);
const ARABIC = 'كلمة مرور الراوتر للمكتب الرئيسي (INC-42) — مطلوب اليوم';
const OVERRIDDEN = 'Bob \u202eSmith';

let service: TestService;
let browser: Browser;
let page: Page;
let longRequest = '';
let overriddenRequest = '';

const widthAt = async (width: number) => {
  await page.setViewportSize({ width, height: 700 });
  return page.evaluate(() => document.documentElement.scrollWidth);
};

beforeAll(async () => {
  if (!haveChromium) return;
  service = await startTestService();
  const org = await service.admin.createOrganisation({ name: 'Long Text MSP', plan: 'team' });
  await service.admin.addMember({ orgId: org.id, name: LONG_NAME, email: OWNER_EMAIL, role: 'owner' });
  await service.admin.createClient(org.id, 'C'.repeat(100));
  const apiKey = await service.createKey(org.id, { name: 'Long text key' });
  browser = await launch();
  page = await (await browser.newContext()).newPage();
  await signInInBrowser(page, service.appUrl, service.outboxDir, OWNER_EMAIL);
  await setUpKeyInBrowser(page, service.appUrl);

  const create = async (subjectName: string, justification: string) => {
    const created = await service.call('POST', '/requests', {
      key: apiKey,
      body: { subject_name: subjectName, justification, recipients: [OWNER_EMAIL], verification_mode: 'none' },
    });
    expect(created.status, created.text).toBe(201);
    return created.body as { link: string; request: { id: string } };
  };
  const long = await create(UNBROKEN, ARABIC);
  longRequest = long.request.id;
  const subject = await (await browser.newContext()).newPage();
  await subject.goto(long.link);
  await subject.fill('#credential', 'a credential');
  await subject.fill('#note', PASTED_KEY);
  await subject.click('#submit');
  await subject.waitForSelector('#submitted');
  await subject.context().close();

  const overridden = await create(OVERRIDDEN, 'Router admin password');
  overriddenRequest = overridden.request.id;
  const opener = await (await browser.newContext()).newPage();
  await opener.goto(overridden.link);
  await opener.waitForSelector('#credential');
  await opener.context().close();
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await service?.stop();
});

describe.skipIf(!haveChromium)('long and right-to-left text', () => {
  it("a request whose subject's name has no spaces, and its revealed note a pasted key, fit 320 px", async () => {
    await page.goto(`${service.appUrl}/app/requests/${longRequest}`);
    await page.waitForSelector('#reveal');
    expect(await widthAt(320)).toBeLessThanOrEqual(320);
    await page.click('#reveal');
    await page.waitForSelector('#revealed-note');
    expect(await page.textContent('#revealed-note')).toBe(PASTED_KEY);
    expect(await widthAt(320)).toBeLessThanOrEqual(320);
    expect(await widthAt(1280)).toBeLessThanOrEqual(1280);
    // The Arabic justification takes its own direction: it reads from the right, in order.
    const direction = await page.evaluate((text) => {
      const value = Array.from(document.querySelectorAll('.facts dd')).find((dd) => dd.textContent === text);
      return value ? getComputedStyle(value).unicodeBidi : null;
    }, ARABIC);
    expect(direction).toBe('plaintext');
  });

  it('a member with a long address fits 320 px on New request, and inviting another shows its message within the page', async () => {
    await page.setViewportSize({ width: 320, height: 700 });
    await page.goto(`${service.appUrl}/app/requests/new`);
    await page.waitForSelector('#request-form');
    expect(await widthAt(320)).toBeLessThanOrEqual(320);

    await page.goto(`${service.appUrl}/app/members`);
    await page.waitForSelector('#invite-form');
    await page.fill('#invite-name', 'Second Person');
    await page.fill('#invite-email', 'second.person.with.a.long.address@contoso-international.example.com');
    await page.click('#invite');
    await page.waitForSelector('#members tr:has-text("Second Person")');
    expect(await page.textContent('#status')).toContain('second.person.with.a.long.address@contoso-international.example.com');
    expect(await widthAt(320)).toBeLessThanOrEqual(320);
  });

  it('a client named without spaces fits 320 px on Presets and templates', async () => {
    await page.setViewportSize({ width: 320, height: 700 });
    await page.goto(`${service.appUrl}/app/organisation/presets`);
    await page.waitForSelector('#preset-form');
    expect(await widthAt(320)).toBeLessThanOrEqual(320);
  });

  it('a subject named without spaces in My requests leaves the other columns on a desktop screen', async () => {
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(`${service.appUrl}/app/requests`);
    await page.waitForSelector(`#requests a[data-request-id="${longRequest}"]`);
    const widths = await page.evaluate(() => {
      const table = document.querySelector('#requests')!.closest('table') ?? document.querySelector('#requests table')!;
      return { table: table.scrollWidth, wrap: table.parentElement!.clientWidth };
    });
    expect(widths.table).toBeLessThanOrEqual(widths.wrap);
  });

  it("a name carrying a direction override stays in its own box in the request's trail", async () => {
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(`${service.appUrl}/app/requests/${overriddenRequest}`);
    await page.waitForSelector('#audit li[data-type="request.opened"]');
    const isolated = await page.evaluate((name) => {
      const entry = document.querySelector('#audit li[data-type="request.opened"]')!;
      const label = Array.from(entry.querySelectorAll('bdi')).find((element) => element.textContent === name);
      // What follows the name is outside the isolate, so the override cannot reach it.
      return label ? label.nextSibling?.textContent : null;
    }, OVERRIDDEN);
    expect(isolated).toBe(' (subject)');
    await expectNoSeriousAxeViolations(page);
  });

  it("counts a name's length in characters as the service does: 120 emoji are a whole subject's name, the 121st character is cut", async () => {
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(`${service.appUrl}/app/requests/new`);
    await page.waitForSelector('#subject-name');
    const characters = () => page.evaluate(() => [...(document.getElementById('subject-name') as HTMLInputElement).value].length);
    // An emoji is two UTF-16 units: a maxlength of 120 kept only 60 of them.
    await page.fill('#subject-name', '\u{1F600}'.repeat(120));
    expect(await characters()).toBe(120);
    await page.fill('#subject-name', '\u{1F600}'.repeat(60));
    await page.keyboard.type('\u{1F600}');
    expect(await characters()).toBe(61);
    // Past the limit in characters, what goes over is cut (these are one unit each).
    await page.fill('#subject-name', '中'.repeat(121));
    expect(await page.inputValue('#subject-name')).toBe('中'.repeat(120));
    await page.fill('#justification', '\u{20BB7}'.repeat(1000));
    expect(await page.evaluate(() => [...(document.getElementById('justification') as HTMLTextAreaElement).value].length)).toBe(1000);
  });
});
