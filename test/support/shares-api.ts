/**
 * The ground the share tests share: a test service on a movable clock with two organisations,
 * members of each role signed in (the creator, another member, an admin, the owner, and the owner
 * of the other organisation), shares made through the member endpoint and noted with their secrets,
 * and readings of what the table and the audit chain hold of a share. A file calls
 * useShareService() before its tests, which fills the bindings below.
 */
import { afterAll, beforeAll, expect } from 'vitest';
import { MemberBrowser } from './member-browser.ts';
import { auditEntries, itemsUnder, type AuditItem } from './shapes.ts';
import { createShareAs, type CreatedShare } from './shares.ts';
import { startTestService, type TestOrganisation, type TestService } from './test-service.ts';
import { movableClock } from './webhooks.ts';

export const MINUTE = 60_000;
export const UNKNOWN_ID = '01hzzzzzzzzzzzzzzzzzzzzzzz';
export const SHARE_VIEW_FIELDS = [
  'id',
  'object',
  'status',
  'label',
  'ticket_ref',
  'created_by',
  'sealed_to_fingerprint',
  'view_limit',
  'views',
  'expires_at',
  'created_at',
  'last_viewed_at',
  'ended_at',
  'end_reason',
  'purge_scheduled_at',
];

export type ShareAudit = AuditItem & { shareId?: string | null };

export const clock = movableClock();
export let service: TestService;
export let org: TestOrganisation;
let other: TestOrganisation;
/** The share's creator, a plain member. */
export let tom: MemberBrowser;
/** Another plain member of the same organisation. */
export let mia: MemberBrowser;
export let miaId: string;
/** An admin and the owner: managers, who see every share of the organisation. */
export let ada: MemberBrowser;
export let owner: MemberBrowser;
/** The owner of another organisation. */
export let stranger: MemberBrowser;
/** Every share made here, with its secrets (link, token, envelope pieces). */
export const made: CreatedShare[] = [];

/** The service, its organisations and signed-in members, started before the file's tests and stopped after them. */
export const useShareService = () => {
  beforeAll(async () => {
    service = await startTestService({ clock });
    org = await service.createOrganisation({ name: 'Share Org' });
    other = await service.createOrganisation({ name: 'Other Share Org' });
    const suffix = org.orgId.slice(-6);
    const miaMember = await service.admin.addMember({ orgId: org.orgId, name: 'Mia Member', email: `mia-${suffix}@example.com`, role: 'member' });
    miaId = miaMember.id;
    await service.admin.addMember({ orgId: org.orgId, name: 'Ada Admin', email: `ada-${suffix}@example.com`, role: 'admin' });
    // One at a time: a sign-in reads the outbox folder, where another sign-in's email may be half written.
    tom = await MemberBrowser.signIn(service, org.member.email);
    mia = await MemberBrowser.signIn(service, `mia-${suffix}@example.com`);
    ada = await MemberBrowser.signIn(service, `ada-${suffix}@example.com`);
    owner = await MemberBrowser.signIn(service, org.owner.email);
    stranger = await MemberBrowser.signIn(service, other.owner.email);
  });
  afterAll(() => service?.stop());
};

export const share = async (browser: MemberBrowser = tom, body: Record<string, unknown> = {}) => {
  const created = await createShareAs(browser, body);
  made.push(created);
  return created;
};

/** Every item under the share's partition (the share itself, its envelope and its trail). */
export const itemsUnderShare = (id: string) => itemsUnder(service, `SHARE#${id}`);

export const envelopeItem = async (id: string) => (await itemsUnderShare(id)).find((item) => item.sk === 'MATERIAL#envelope');

export const shareEntries = async (id: string) => ((await auditEntries(service, org.orgId)) as ShareAudit[]).filter((entry) => entry.shareId === id);

export const read = async (id: string, browser: MemberBrowser = tom) => {
  const answer = await browser.call('GET', `/app/api/shares/${id}`);
  expect(answer.status, answer.text).toBe(200);
  return answer.body;
};
