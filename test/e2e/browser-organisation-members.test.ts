import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumPresent, expectEveryControlNamed, expectNoSeriousAxeViolations, launch, setUpKeyInBrowser, signInInBrowser, tabTo } from '../support/browser.ts';
import { latestSignInToken } from '../support/member-browser.ts';
import { startTestService, type TestService } from '../support/test-service.ts';

/**
 * Clients and teams, and Members, in headless Chromium, by keyboard: an admin adds a client and a
 * team, renames a team, invites a member, whose emailed sign-in link signs them in and who sets up their key; the
 * admin disables them after the confirmation and their session ends. axe-core on each state; both
 * pages fit a 320 px wide screen.
 */
const haveChromium = chromiumPresent();

const ADMIN_EMAIL = 'ada@settings.example';
const INVITED_EMAIL = 'ivy@settings.example';

let service: TestService;
let browser: Browser;
let page: Page;
let orgId: string;
let technicianId: string;

beforeAll(async () => {
  if (!haveChromium) return;
  service = await startTestService();
  const org = await service.admin.createOrganisation({ name: 'Settings MSP', plan: 'team' });
  orgId = org.id;
  await service.admin.addMember({ orgId: org.id, name: 'Olivia Owner', email: 'olivia@settings.example', role: 'owner' });
  await service.admin.addMember({ orgId: org.id, name: 'Ada Admin', email: ADMIN_EMAIL, role: 'admin' });
  technicianId = (await service.admin.addMember({ orgId: org.id, name: 'Tom Technician', email: 'tom@settings.example', role: 'member' })).id;
  browser = await launch();
  page = await (await browser.newContext()).newPage();
  await signInInBrowser(page, service.appUrl, service.outboxDir, ADMIN_EMAIL);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await service?.stop();
});

const checked = async (what: string) => {
  await expectEveryControlNamed(page);
  await expectNoSeriousAxeViolations(page);
  await page.setViewportSize({ width: 320, height: 640 });
  expect(await page.evaluate(() => document.documentElement.scrollWidth), `${what} at 320 px`).toBeLessThanOrEqual(320);
  await expectNoSeriousAxeViolations(page);
  await page.setViewportSize({ width: 1280, height: 800 });
};
const statusText = () => page.textContent('#status');

describe.skipIf(!haveChromium)('Clients and teams, and Members', () => {
  let invitedId = '';

  it('an admin adds a client, renames it, and makes a team of chosen members, by keyboard', async () => {
    await page.goto(`${service.appUrl}/app/organisation/clients`);
    await page.waitForSelector('#clients');
    expect(await page.getAttribute('.tabs a[href="/app/organisation/clients"]', 'aria-current')).toBe('page');
    expect(await page.isVisible('#no-teams')).toBe(true);
    await checked('empty teams');

    await tabTo(page, 'client-name');
    await page.keyboard.type('Acme Ltd');
    await page.keyboard.press('Enter');
    await page.waitForSelector('#clients tr:has-text("Acme Ltd")');
    expect(await statusText()).toContain('The client “Acme Ltd” is added.');

    const clientId = (await page.getAttribute('#clients tr:has-text("Acme Ltd")', 'data-client-id'))!;
    await tabTo(page, `rename-${clientId}`);
    await page.keyboard.press('Enter');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('rename-client-name');
    await page.keyboard.press('Control+A');
    await page.keyboard.type('Acme Group');
    await page.keyboard.press('Enter');
    await page.waitForSelector('#clients tr:has-text("Acme Group")');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe(`rename-${clientId}`);

    // An empty name is refused at its field.
    await tabTo(page, 'team-name');
    await page.keyboard.press('Enter');
    await page.waitForSelector('#team-name-error:not([hidden])');
    expect(await page.getAttribute('#team-name', 'aria-invalid')).toBe('true');
    await checked('a refused team');

    await page.keyboard.type('Night shift');
    await tabTo(page, `team-members-${technicianId}`);
    await page.keyboard.press('Space');
    await tabTo(page, 'create-team');
    await page.keyboard.press('Enter');
    await page.waitForSelector('#teams tr:has-text("Night shift")');
    expect(await page.textContent('#teams tr:has-text("Night shift")')).toContain('Tom Technician');
    expect(await statusText()).toContain('with 1 member');
    await checked('a team');

    const teamId = (await page.getAttribute('#teams tr:has-text("Night shift")', 'data-team-id'))!;
    await tabTo(page, `edit-team-${teamId}`);
    await page.keyboard.press('Enter');
    expect(await page.evaluate(() => document.activeElement?.getAttribute('name'))).toBe('member');
    await checked('changing a team');
    await tabTo(page, `edit-team-members-${technicianId}`);
    await page.keyboard.press('Space');
    await tabTo(page, 'save-edit-team');
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => document.querySelector('#teams tbody tr')?.textContent?.includes('No members'));
    expect(await statusText()).toContain('The members of “Night shift” are saved.');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe(`edit-team-${teamId}`);
  });

  it('an admin renames a team by keyboard: the name filled in and focused, a blank one refused under the field, Escape closes', async () => {
    const team = await service.admin.createTeam(orgId, 'Weekend cover', [technicianId]);
    const opener = `rename-team-${team.id}`;
    const focusedId = () => page.evaluate(() => document.activeElement?.id);
    await page.goto(`${service.appUrl}/app/organisation/clients`);
    await page.waitForSelector(`#${opener}`);
    expect(await page.getAttribute(`#${opener}`, 'aria-label')).toBe('Rename the team Weekend cover');

    await tabTo(page, opener);
    await page.keyboard.press('Enter');
    expect(await focusedId()).toBe('rename-team-name');
    expect(await page.inputValue('#rename-team-name')).toBe('Weekend cover');
    expect(await page.textContent('#rename-team-heading')).toBe('Rename “Weekend cover”');
    expect(await page.textContent('label[for="rename-team-name"]')).toBe('New name');

    await page.keyboard.press('Control+A');
    await page.keyboard.press('Backspace');
    await page.keyboard.press('Enter');
    await page.waitForSelector('#rename-team-name-error:not([hidden])');
    expect(await page.getAttribute('#rename-team-name', 'aria-invalid')).toBe('true');
    expect(await page.getAttribute('#rename-team-name', 'aria-describedby')).toContain('rename-team-name-error');
    expect(await focusedId()).toBe('rename-team-name');
    await checked('a refused team name');

    await page.keyboard.type('Weekend on-call');
    await page.keyboard.press('Enter');
    await page.waitForSelector('#teams tr:has-text("Weekend on-call")');
    expect(await statusText()).toContain('The team is now called “Weekend on-call”.');
    expect(await focusedId()).toBe(opener);
    expect(await page.textContent(`#teams tr[data-team-id="${team.id}"]`)).toContain('Tom Technician');
    expect((await service.admin.directory.getTeam(orgId, team.id))?.name).toBe('Weekend on-call');
    await checked('a renamed team');

    // Opened again, Escape closes the form and gives the focus back to the row's button.
    await page.keyboard.press('Enter');
    expect(await focusedId()).toBe('rename-team-name');
    await page.keyboard.press('Escape');
    expect(await page.isHidden('#rename-team-form')).toBe(true);
    expect(await focusedId()).toBe(opener);
  });

  it('an admin invites a member, whose emailed link signs them in to set up their key', async () => {
    await page.goto(`${service.appUrl}/app/members`);
    await page.waitForSelector('#members');
    // An admin gets no controls on an owner's row and cannot invite an owner.
    expect(await page.locator('#members tr:has-text("Olivia Owner") select').count()).toBe(0);
    expect(await page.locator('#invite-role option[value="owner"]').count()).toBe(0);
    await checked('members');

    await tabTo(page, 'invite-name');
    await page.keyboard.type('Ivy Invited');
    await page.keyboard.press('Tab');
    await page.keyboard.type(INVITED_EMAIL);
    await tabTo(page, 'invite');
    await page.keyboard.press('Enter');
    await page.waitForSelector('#members tr:has-text("Ivy Invited")');
    expect(await statusText()).toContain('a sign-in link is on its way');
    invitedId = (await page.getAttribute('#members tr:has-text("Ivy Invited")', 'data-member-id'))!;

    const invited = await (await browser.newContext()).newPage();
    await invited.goto(`${service.appUrl}/app/sign-in#token=${latestSignInToken(service, INVITED_EMAIL)}`);
    // An invitation is a link this browser did not ask for: it says whom it signs in first.
    await invited.waitForSelector('#confirm-sign-in');
    expect(await invited.textContent('h1')).toBe(`Sign in as ${INVITED_EMAIL}?`);
    await invited.click('#confirm-sign-in');
    await invited.waitForSelector('#sign-out');
    expect(await invited.locator('a[href="/app/key"]').count()).toBeGreaterThan(0);
    await setUpKeyInBrowser(invited, service.appUrl);

    // Disabled after the confirmation (Cancel is focused first), the invited member's session ends.
    await page.reload();
    await page.waitForSelector(`#disable-${invitedId}`);
    await tabTo(page, `disable-${invitedId}`);
    await page.keyboard.press('Enter');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('cancel-member-action');
    expect(await page.textContent('#member-action-question')).toContain('Disable Ivy Invited?');
    await checked('the disable confirmation');
    await page.keyboard.press('Shift+Tab');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('confirm-member-action');
    await page.keyboard.press('Enter');
    await page.waitForSelector(`#enable-${invitedId}`);
    expect(await page.textContent(`#members tr[data-member-id="${invitedId}"]`)).toContain('Disabled');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe(`enable-${invitedId}`);
    await checked('a disabled member');

    await invited.goto(`${service.appUrl}/app/requests`);
    await invited.waitForSelector('#email');
    expect(new URL(invited.url()).pathname).toBe('/app/sign-in');
    await invited.context().close();
  });
});
