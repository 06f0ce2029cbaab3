/**
 * What the headless Chromium tests share: where Chromium is and whether it may be missing, how it
 * is launched, the newest emailed sign-in link, and the accessibility check every page must pass.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { chromium, type Page } from 'playwright-core';
import { expect } from 'vitest';

/** Debian's chromium, which .ci/run installs. */
export const CHROMIUM = '/usr/bin/chromium';

/** Whether Chromium is here; under CI its absence is an error rather than a reason to skip. */
export const chromiumPresent = (): boolean => {
  const present = existsSync(CHROMIUM);
  if (!present && process.env.CI) throw new Error(`${CHROMIUM} is missing: .ci/run installs Debian's chromium`);
  return present;
};

/** Headless Chromium with no network of its own (no updates, sync or QUIC) and no sandbox. */
export const launch = () =>
  chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });

/** The link in the newest sign-in email in the service's outbox folder. */
export const latestSignInLink = (outboxDir: string): string => {
  const messages = readdirSync(outboxDir)
    .sort()
    .map((file) => JSON.parse(readFileSync(join(outboxDir, file), 'utf8')))
    .filter((message) => message.purpose === 'sign_in');
  return /(http\S+\/app\/sign-in#token=\S+)/.exec(messages.pop().text)![1];
};

/**
 * Every visible form control has a label or an ARIA name, every button and link says what it
 * does, the page has a language and exactly one h1.
 */
export const expectEveryControlNamed = async (page: Page) => {
  const unnamed = await page.evaluate(() => {
    const visible = (el: Element) => (el as HTMLElement).offsetParent !== null;
    const problems: string[] = [];
    for (const control of Array.from(document.querySelectorAll('input, textarea, select'))) {
      const input = control as HTMLInputElement;
      if (!visible(input) || input.type === 'hidden') continue;
      const named = (input.labels?.length ?? 0) > 0 || input.getAttribute('aria-label') || input.getAttribute('aria-labelledby');
      if (!named) problems.push(`${control.tagName}#${control.id}`);
    }
    for (const button of Array.from(document.querySelectorAll('button, a[href]'))) {
      if (visible(button) && !(button.textContent?.trim() || button.getAttribute('aria-label'))) problems.push(`${button.tagName}#${button.id}`);
    }
    if (!document.documentElement.lang) problems.push('html without lang');
    if (document.querySelectorAll('h1').length !== 1) problems.push(`${document.querySelectorAll('h1').length} h1 elements`);
    return problems;
  });
  expect(unnamed).toEqual([]);
};

/** Clicks `selector` and answers the file the page downloads: its suggested name and bytes. */
export const download = async (page: Page, selector: string) => {
  const [file] = await Promise.all([page.waitForEvent('download'), page.click(selector)]);
  return { name: file.suggestedFilename(), bytes: readFileSync((await file.path())!) };
};

/**
 * axe-core run in the page as it stands: no serious or critical violation. The page's CSP allows
 * only its own scripts, so axe is evaluated through the DevTools protocol, not a script tag.
 */
export const expectNoSeriousAxeViolations = async (page: Page) => {
  const source = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
  await page.evaluate(source);
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(context: Document, options: object): Promise<{ violations: Array<{ id: string; impact: string | null; nodes: Array<{ target: unknown[] }> }> }> } }).axe;
    const result = await axe.run(document, { resultTypes: ['violations'] });
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, targets: v.nodes.map((n) => n.target.join(' ')).slice(0, 5) }));
  });
  expect(violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')).toEqual([]);
};

/** Signs `email` in through the emailed link, in `page`, as a member does. */
export const signInInBrowser = async (page: Page, appUrl: string, outboxDir: string, email: string) => {
  await page.goto(`${appUrl}/app/sign-in`);
  await page.fill('#email', email);
  await page.click('#sign-in');
  await page.waitForSelector('#check-email');
  await page.goto(latestSignInLink(outboxDir));
  await page.waitForSelector('#sign-out');
};

/** Makes the member's identity key on My key, in `page`, and waits until the service holds it as verified. */
export const setUpKeyInBrowser = async (page: Page, appUrl: string) => {
  await page.goto(`${appUrl}/app/key`);
  await page.fill('#passphrase', 'a long passphrase for tests');
  await page.fill('#passphrase-confirm', 'a long passphrase for tests');
  await page.click('#create-key');
  await page.waitForSelector('#backup-json', { state: 'attached' });
  await page.waitForFunction(() => document.querySelector('#key-status')?.textContent?.includes('Verified'));
};

/** Presses Tab until `id` has the focus (a page used by keyboard, not clicked). */
export const tabTo = async (page: Page, id: string) => {
  for (let presses = 0; presses < 120; presses++) {
    if ((await page.evaluate(() => document.activeElement?.id)) === id) return;
    await page.keyboard.press('Tab');
  }
  throw new Error(`#${id} was not reached by Tab`);
};

/** One state of a page: axe, named controls, and no horizontal scroll of the page itself at 320 px wide. */
export const expectStateUsable = async (page: Page) => {
  await expectEveryControlNamed(page);
  await expectNoSeriousAxeViolations(page);
  const size = page.viewportSize()!;
  await page.setViewportSize({ width: 320, height: 720 });
  expect(await page.evaluate(() => document.documentElement.scrollWidth), 'page width at 320 px').toBeLessThanOrEqual(320);
  await page.setViewportSize(size);
};
