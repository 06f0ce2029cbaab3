/**
 * What every step of the docs pages' walkthrough (web/screenshots.ts) shares: a step that logs what it
 * saw and goes on after a failure, a screenshot taken only after the page's basics are checked,
 * and the link in the newest email the local service wrote to its outbox.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';

export type Step = (name: string, work: () => Promise<void>, page?: Page) => Promise<void>;
export type Shot = (page: Page, name: string) => Promise<void>;

export const walkthroughRecorder = (outDir: string, outbox: string) => {
  const problems: string[] = [];
  const step = async (name: string, work: () => Promise<void>, page?: Page) => {
    try {
      await work();
      console.log(`ok    ${name}`);
    } catch (error) {
      problems.push(name);
      console.log(`FAIL  ${name}: ${(error as Error).message.split('\n')[0]}`);
      if (page) console.log(`      the page said: ${(await page.textContent('main').catch(() => ''))?.replace(/\s+/g, ' ').slice(0, 400)}`);
    }
  };

  /** Saves a screenshot, after checking the page's basics: every control named, one h1, lang. */
  const shot = async (page: Page, name: string) => {
    const issues = await page.evaluate(() => {
      const found: string[] = [];
      for (const control of Array.from(document.querySelectorAll('input, textarea, select'))) {
        // A control in a table row may be named by aria-label (its row says which member it changes).
        const named = (control.id && document.querySelector(`label[for="${control.id}"]`)) || control.getAttribute('aria-label') || control.getAttribute('aria-labelledby');
        if (!named) found.push(`unlabelled ${control.outerHTML.slice(0, 60)}`);
      }
      if (document.querySelectorAll('h1').length !== 1) found.push(`${document.querySelectorAll('h1').length} h1 elements`);
      if (document.documentElement.lang !== 'en') found.push('no lang="en"');
      const ids = Array.from(document.querySelectorAll('[id]'), (element) => element.id);
      const duplicate = ids.find((id, i) => ids.indexOf(id) !== i);
      if (duplicate) found.push(`duplicate id ${duplicate}`);
      return found;
    });
    if (issues.length) throw new Error(`${name}: ${issues.join('; ')}`);
    await page.screenshot({ path: join(outDir, `${name}.png`), fullPage: false });
  };

  /** The newest outbox email to `to` holding `pattern`: what it matched. */
  const mailLink = async (to: string, pattern: RegExp) => {
    for (let i = 0; i < 50; i++) {
      const files = readdirSync(outbox, { withFileTypes: true }).filter((f) => f.isFile() && f.name.includes('-email-')).map((f) => f.name).sort().reverse();
      for (const file of files) {
        const message = JSON.parse(readFileSync(join(outbox, file), 'utf8')) as { to: string; text: string };
        const found = message.to === to ? pattern.exec(message.text) : null;
        if (found) return found[0];
      }
      await new Promise((done) => setTimeout(done, 100));
    }
    throw new Error(`no email to ${to} matching ${pattern}`);
  };

  return { problems, step: step as Step, shot: shot as Shot, mailLink };
};
