/**
 * What the headless Chromium tests share: where Chromium is and whether it may be missing, how it
 * is launched, the newest emailed sign-in link, and the accessibility check every page must pass.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
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
