/**
 * The member application's sign-in, session, CSRF and identity-key endpoints over real HTTP
 * (docs/web-api.md, Member endpoints): the emailed one-time link, the session cookie, the
 * same-origin and CSRF checks, key registration and approval, and that no token is stored in plain.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Clock } from '../../lambdas/core/clock.ts';
import { generateDemoIdentityKey } from '../../lambdas/local/demo-identity.ts';
import { exportPublicKey, fingerprintOf, generateIdentityPair } from '../../web/crypto/identity.ts';
import {
  latestSignInToken,
  MemberBrowser,
  requestSignIn,
  sessionCookieOf,
  SIGN_IN_LINK,
  signInEmailsTo,
  startSession,
} from '../support/member-browser.ts';
import { expectError } from '../support/shapes.ts';
import { identityKey, scanTable, startTestService, type TestOrganisation, type TestService } from '../support/test-service.ts';

/** A clock the tests move forward; everything else runs in real time. */
let offsetMs = 0;
const clock: Clock = { now: () => new Date(Date.now() + offsetMs) };

let service: TestService;
let org: TestOrganisation;
/** Every token the tests saw, to look for in the table at the end. */
const seenSecrets = new Set<string>();

beforeAll(async () => {
  service = await startTestService({ clock });
  org = await service.createOrganisation({ name: 'Session Org' });
});
afterAll(() => service?.stop());

const remember = (browser: MemberBrowser) => {
  seenSecrets.add(browser.cookie!.split('=')[1]);
  seenSecrets.add(browser.csrf!);
  return browser;
};
const signIn = async (email: string) => remember(await MemberBrowser.signIn(service, email));

/** A new member of the organisation (through AdminStore.addMember, as the CLI and seed do). */
const addMember = async (name: string, role: 'owner' | 'admin' | 'member' = 'member', withKey = false) => {
  const email = `${name.toLowerCase().replace(/\W+/g, '.')}-${Math.random().toString(36).slice(2, 8)}@example.com`;
  return service.admin.addMember({ orgId: org.orgId, name, email, role, identityKey: withKey ? identityKey() : undefined });
};

/** A new member, signed in (each test its own, as sign-in links are limited per email). */
const freshBrowser = async (name: string, role: 'owner' | 'admin' | 'member' = 'member') => signIn((await addMember(name, role, true)).email);

const newPublicKey = async () => {
  const pair = await generateIdentityPair();
  const publicKey = await exportPublicKey(pair.publicKey);
  return { publicKey, fingerprint: await fingerprintOf(publicKey) };
};

describe('sign-in', () => {
  it('answers 202 for an unknown email and sends nothing', async () => {
    const before = signInEmailsTo(service, 'nobody-here@example.com').length;
    const answer = await requestSignIn(service, 'nobody-here@example.com');
    expect(answer.status).toBe(202);
    expect(answer.body).toEqual({ accepted: true });
    expect(signInEmailsTo(service, 'nobody-here@example.com').length).toBe(before);
  });

  it('answers exactly the same for a known email, and emails a one-time link to the app', async () => {
    const member = await addMember('Linda Link');
    const known = await requestSignIn(service, member.email.toUpperCase());
    const unknown = await requestSignIn(service, 'someone-else@example.com');
    expect(known.status).toBe(202);
    expect(known.text).toBe(unknown.text);
    const emails = signInEmailsTo(service, member.email);
    expect(emails).toHaveLength(1);
    const match = SIGN_IN_LINK.exec(emails[0].text)!;
    expect(match[1]).toBe(service.appUrl);
    expect(emails[0].subject).toContain('Session Org');
  });

  it('refuses a malformed body with 422', async () => {
    expectError(await service.call('POST', '/app/api/sign-in', { body: { email: 'not an email' } }), 422, 'validation_failed', ['email']);
    expectError(await service.call('POST', '/app/api/sign-in', { body: {} }), 422, 'validation_failed', ['email']);
  });

  it('sends nothing to a disabled member', async () => {
    const member = await addMember('Dora Disabled');
    await service.admin.setMemberActive(org.orgId, member.id, false);
    expect((await requestSignIn(service, member.email)).status).toBe(202);
    expect(signInEmailsTo(service, member.email)).toHaveLength(0);
  });

  it('sends at most 5 links per email within 15 minutes, still answering 202', async () => {
    const member = await addMember('Rhea Ratelimit');
    for (let i = 0; i < 7; i++) expect((await requestSignIn(service, member.email)).status).toBe(202);
    expect(signInEmailsTo(service, member.email)).toHaveLength(5);
    offsetMs += 16 * 60_000;
    try {
      expect((await requestSignIn(service, member.email)).status).toBe(202);
      expect(signInEmailsTo(service, member.email)).toHaveLength(6);
    } finally {
      offsetMs -= 16 * 60_000;
    }
  });
});

describe('session', () => {
  it('trades the link for the session cookie, exactly once', async () => {
    await requestSignIn(service, org.member.email);
    const token = latestSignInToken(service, org.member.email);
    seenSecrets.add(token);
    const answer = await startSession(service, token);
    expect(answer.status, answer.text).toBe(200);
    expect(Object.keys(answer.body).sort()).toEqual(['csrf_token', 'member', 'organisation']);
    expect(answer.body.member).toEqual({
      membership_id: org.member.id,
      name: org.member.name,
      email: org.member.email,
      role: 'member',
      identity_key: { fingerprint: expect.stringMatching(/^[0-9a-f]{64}$/), state: 'verified', made_by: 'member' },
    });
    expect(answer.body.organisation).toEqual({ id: org.orgId, name: 'Session Org' });
    expect(answer.body.csrf_token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(answer.headers.get('cache-control')).toBe('no-store');

    const cookie = sessionCookieOf(answer)!;
    expect(cookie.header).toMatch(/^handoff_session=[A-Za-z0-9_-]{43}; HttpOnly; Secure; SameSite=Strict; Path=\/app; Max-Age=43200$/);
    seenSecrets.add(cookie.pair.split('=')[1]);
    seenSecrets.add(answer.body.csrf_token);

    expectError(await startSession(service, token), 401, 'unauthenticated');
  });

  it('lets only one of two simultaneous uses of a link win', async () => {
    await requestSignIn(service, org.owner.email);
    const token = latestSignInToken(service, org.owner.email);
    const answers = await Promise.all([startSession(service, token), startSession(service, token), startSession(service, token)]);
    expect(answers.map((a) => a.status).sort()).toEqual([200, 401, 401]);
  });

  it('refuses an expired link, and an unknown or malformed one', async () => {
    const member = await addMember('Eddie Expired');
    await requestSignIn(service, member.email);
    const token = latestSignInToken(service, member.email);
    offsetMs += 15 * 60_000 + 1_000;
    try {
      expectError(await startSession(service, token), 401, 'unauthenticated');
    } finally {
      offsetMs -= 15 * 60_000 + 1_000;
    }
    // Used up by the failed attempt as well.
    expectError(await startSession(service, token), 401, 'unauthenticated');
    expectError(await startSession(service, 'A'.repeat(43)), 401, 'unauthenticated');
    expectError(await startSession(service, 'short'), 401, 'unauthenticated');
    expectError(await service.call('POST', '/app/api/session', { body: {} }), 422, 'validation_failed', ['token']);
  });

  it('answers GET /app/api/me with the member, the organisation and the same CSRF token', async () => {
    const browser = await freshBrowser('Mia Me');
    const me = await browser.call('GET', '/app/api/me');
    expect(me.status).toBe(200);
    expect(me.body).toEqual(browser.session!.body);
    expect(me.headers.get('cache-control')).toBe('no-store');
  });

  it('answers 401 without a session, with an unknown one, and clears the cookie', async () => {
    const none = await service.call('GET', '/app/api/me');
    expectError(none, 401, 'unauthenticated');
    expect(sessionCookieOf(none)!.header).toContain('Max-Age=0');
    expectError(await service.call('GET', '/app/api/me', { headers: { Cookie: `handoff_session=${'x'.repeat(43)}` } }), 401, 'unauthenticated');
    expectError(await service.call('GET', '/app/api/me', { headers: { Cookie: 'other=1' } }), 401, 'unauthenticated');
  });

  it('ends after 12 hours', async () => {
    const browser = await freshBrowser('Tim Twelve');
    offsetMs += 12 * 60 * 60_000 + 1_000;
    try {
      expectError(await browser.call('GET', '/app/api/me'), 401, 'unauthenticated');
    } finally {
      offsetMs -= 12 * 60 * 60_000 + 1_000;
    }
    expect((await browser.call('GET', '/app/api/me')).status).toBe(200);
  });

  it('ends when the member is disabled', async () => {
    const member = await addMember('Vic Vanishing');
    const browser = await signIn(member.email);
    expect((await browser.call('GET', '/app/api/me')).status).toBe(200);
    await service.admin.setMemberActive(org.orgId, member.id, false);
    expectError(await browser.call('GET', '/app/api/me'), 401, 'unauthenticated');
  });

  it('signs out: 204, the cookie cleared, the session gone', async () => {
    const browser = await freshBrowser('Otto Out');
    const out = await browser.call('POST', '/app/api/sign-out');
    expect(out.status).toBe(204);
    expect(sessionCookieOf(out)!.header).toBe('handoff_session=; HttpOnly; Secure; SameSite=Strict; Path=/app; Max-Age=0');
    expectError(await browser.call('GET', '/app/api/me'), 401, 'unauthenticated');
    expectError(await browser.call('POST', '/app/api/sign-out'), 401, 'unauthenticated');
  });
});

describe('cross-site protection', () => {
  it('refuses a POST without the CSRF header, or with a wrong one, with 403', async () => {
    const browser = await freshBrowser('Cora Csrf');
    const { publicKey } = await newPublicKey();
    expectError(await browser.call('POST', '/app/api/identity-key', { body: { public_key: publicKey }, csrf: false }), 403, 'forbidden');
    expectError(await browser.call('POST', '/app/api/identity-key', { body: { public_key: publicKey }, csrf: 'A'.repeat(43) }), 403, 'forbidden');
    expectError(await browser.call('POST', '/app/api/sign-out', { csrf: false }), 403, 'forbidden');
    // Another session's token is no good either.
    const other = await freshBrowser('Oscar Other');
    expectError(await browser.call('POST', '/app/api/sign-out', { csrf: other.csrf! }), 403, 'forbidden');
    expect((await browser.call('GET', '/app/api/me')).status).toBe(200);
  });

  it('refuses a POST from another origin with 403, and takes one from the app itself', async () => {
    const browser = await freshBrowser('Orla Origin');
    expectError(await browser.call('POST', '/app/api/sign-out', { headers: { Origin: 'https://evil.example' } }), 403, 'forbidden');
    expectError(await browser.call('POST', '/app/api/sign-out', { headers: { 'Sec-Fetch-Site': 'cross-site' } }), 403, 'forbidden');
    expectError(await requestSignIn(service, org.member.email, { Origin: 'https://evil.example' }), 403, 'forbidden');
    expect((await browser.call('GET', '/app/api/me')).status).toBe(200);
    const out = await browser.call('POST', '/app/api/sign-out', { headers: { Origin: new URL(service.appUrl).origin, 'Sec-Fetch-Site': 'same-origin' } });
    expect(out.status).toBe(204);
  });
});

describe('identity keys', () => {
  const createRequest = (recipients: string[]) =>
    service.call('POST', '/requests', {
      key: org.key,
      body: { subject_name: 'Jane Doe', justification: 'The firewall admin password', recipients },
    });

  it('verifies a first key, holds a replacement for approval, and an admin approval brings the member back', async () => {
    const member = await addMember('Kim Keyless');
    const browser = await signIn(member.email);
    expect(browser.session!.body.member.identity_key).toBeNull();

    const first = await newPublicKey();
    const registered = await browser.call('POST', '/app/api/identity-key', { body: { public_key: first.publicKey } });
    expect(registered.status, registered.text).toBe(200);
    expect(registered.body).toEqual({ fingerprint: first.fingerprint, state: 'verified', made_by: 'member' });
    const included = await createRequest([member.email, org.owner.email]);
    expect(included.status, included.text).toBe(201);
    expect(included.body.excluded_recipients).toEqual([]);
    expect(included.body.request.recipients.map((r: any) => r.membership_id)).toContain(member.id);

    // The same key again changes nothing (and records nothing).
    const audited = (await service.deps.db.send(new ScanCommand({ TableName: service.deps.tableName }))).Items!.filter((i) => i.kind === 'audit').length;
    const again = await browser.call('POST', '/app/api/identity-key', { body: { public_key: first.publicKey } });
    expect(again.body).toEqual({ fingerprint: first.fingerprint, state: 'verified', made_by: 'member' });
    expect((await service.deps.db.send(new ScanCommand({ TableName: service.deps.tableName }))).Items!.filter((i) => i.kind === 'audit').length).toBe(audited);

    const second = await newPublicKey();
    const replaced = await browser.call('POST', '/app/api/identity-key', { body: { public_key: second.publicKey } });
    expect(replaced.body).toEqual({ fingerprint: second.fingerprint, state: 'replaced_pending_approval', made_by: 'member' });
    expect((await browser.call('GET', '/app/api/me')).body.member.identity_key).toEqual({ fingerprint: second.fingerprint, state: 'replaced_pending_approval', made_by: 'member' });
    const excluded = await createRequest([member.email, org.owner.email]);
    expect(excluded.status, excluded.text).toBe(201);
    expect(excluded.body.excluded_recipients).toEqual(['Kim Keyless']);
    expect(excluded.body.request.recipients.map((r: any) => r.membership_id)).not.toContain(member.id);

    // The member cannot approve their own key, nor can a plain member.
    expectError(await browser.call('POST', `/app/api/members/${member.id}/approve-key`), 403, 'forbidden');

    const owner = await signIn(org.owner.email);
    const listed = await owner.call('GET', '/app/api/members');
    expect(listed.status).toBe(200);
    expect(listed.body.data.find((m: any) => m.membership_id === member.id)).toEqual({
      membership_id: member.id,
      name: 'Kim Keyless',
      email: member.email,
      role: 'member',
      active: true,
      identity_key: { fingerprint: second.fingerprint, state: 'replaced_pending_approval', made_by: 'member' },
    });
    // Approving a fingerprint other than the one awaiting approval is refused.
    expectError(
      await owner.call('POST', `/app/api/members/${member.id}/approve-key`, { body: { fingerprint: first.fingerprint } }),
      409,
      'illegal_transition',
    );
    const approved = await owner.call('POST', `/app/api/members/${member.id}/approve-key`, { body: { fingerprint: second.fingerprint } });
    expect(approved.status, approved.text).toBe(200);
    expect(approved.body.identity_key).toEqual({ fingerprint: second.fingerprint, state: 'verified', made_by: 'member' });
    expectError(await owner.call('POST', `/app/api/members/${member.id}/approve-key`), 409, 'illegal_transition');

    const back = await createRequest([member.email, org.owner.email]);
    expect(back.body.excluded_recipients).toEqual([]);
    expect(back.body.request.recipients.map((r: any) => r.membership_id)).toContain(member.id);

    // Each change is audited with the member who made it.
    const audit = (await service.deps.db.send(new ScanCommand({ TableName: service.deps.tableName }))).Items!
      .filter((i) => i.kind === 'audit' && (i.data as any)?.member?.membership_id === member.id && String(i.type).startsWith('member.key_'))
      .sort((a, b) => a.seq - b.seq);
    expect(audit.map((i) => [i.type, i.actor.type, i.actor.label])).toEqual([
      ['member.key_registered', 'member', 'Kim Keyless'],
      ['member.key_replaced', 'member', 'Kim Keyless'],
      ['member.key_approved', 'member', 'Olivia Owner'],
    ]);
  });

  it("replaces a key an operator made (CLI --generate-key, the demo's seed) with the member's own at once; the next replacement waits for approval", async () => {
    const email = `olga.operator-${Math.random().toString(36).slice(2, 8)}@example.com`;
    const made = generateDemoIdentityKey(join(mkdtempSync(join(tmpdir(), 'operator-key-')), 'olga.pem'));
    const member = await service.admin.addMember({ orgId: org.orgId, name: 'Olga Operatorkey', email, role: 'member', identityKey: made });
    const sealedToOperatorKey = await createRequest([email]);
    expect(sealedToOperatorKey.status, sealedToOperatorKey.text).toBe(201);

    const browser = await signIn(email);
    expect(browser.session!.body.member.identity_key).toEqual({ fingerprint: made.fingerprint, state: 'verified', made_by: 'operator' });
    // The request page's data tells the browser which key the request is sealed to, before any reveal.
    const detail = await browser.call('GET', `/app/api/requests/${sealedToOperatorKey.body.request.id}`);
    expect(detail.body.your_key).toEqual({ fingerprint: made.fingerprint, made_by: 'operator' });

    const own = await newPublicKey();
    const registered = await browser.call('POST', '/app/api/identity-key', { body: { public_key: own.publicKey } });
    expect(registered.body).toEqual({ fingerprint: own.fingerprint, state: 'verified', made_by: 'member' });
    const included = await createRequest([email]);
    expect(included.status, included.text).toBe(201);
    expect(included.body.excluded_recipients).toEqual([]);
    expect((await browser.call('GET', `/app/api/requests/${included.body.request.id}`)).body.your_key).toEqual({ fingerprint: own.fingerprint, made_by: 'member' });

    // The member's own key is theirs to guard: another replacement waits for an owner or admin.
    const next = await newPublicKey();
    expect((await browser.call('POST', '/app/api/identity-key', { body: { public_key: next.publicKey } })).body).toEqual({
      fingerprint: next.fingerprint,
      state: 'replaced_pending_approval',
      made_by: 'member',
    });
    const audit = (await service.deps.db.send(new ScanCommand({ TableName: service.deps.tableName }))).Items!
      .filter((i) => i.kind === 'audit' && (i.data as any)?.member?.membership_id === member.id && String(i.type).startsWith('member.key_'))
      .sort((a, b) => a.seq - b.seq);
    expect(audit.map((i) => [i.type, (i.data as any).details])).toEqual([
      ['member.key_replaced', { fingerprint: own.fingerprint, state: 'verified', replaced_operator_key: made.fingerprint }],
      ['member.key_replaced', { fingerprint: next.fingerprint, state: 'replaced_pending_approval' }],
    ]);
  });

  it('refuses a replaced key: never sealed to, not offered again, and the next key waits for approval too', async () => {
    const member = await addMember('Rita Refused', 'member', true);
    const browser = await signIn(member.email);
    const stranger = await newPublicKey();
    expect((await browser.call('POST', '/app/api/identity-key', { body: { public_key: stranger.publicKey } })).body.state).toBe('replaced_pending_approval');
    // Nobody decides on their own key; a plain member decides on nobody's.
    expectError(await browser.call('POST', `/app/api/members/${member.id}/refuse-key`), 403, 'forbidden');

    const owner = await signIn(org.owner.email);
    const other = await newPublicKey();
    expectError(await owner.call('POST', `/app/api/members/${member.id}/refuse-key`, { body: { fingerprint: other.fingerprint } }), 409, 'illegal_transition');
    const refused = await owner.call('POST', `/app/api/members/${member.id}/refuse-key`, { body: { fingerprint: stranger.fingerprint } });
    expect(refused.status, refused.text).toBe(200);
    expect(refused.body.identity_key).toEqual({ fingerprint: stranger.fingerprint, state: 'refused', made_by: 'member' });
    expectError(await owner.call('POST', `/app/api/members/${member.id}/approve-key`, { body: { fingerprint: stranger.fingerprint } }), 409, 'illegal_transition');
    expectError(await owner.call('POST', `/app/api/members/${member.id}/refuse-key`), 409, 'illegal_transition');

    // Named in the field's error when listed by email; left out of nothing silently.
    const listed = await createRequest([member.email, org.owner.email]);
    expectError(listed, 422, 'validation_failed', ['recipients.0']);
    expect(listed.body.errors['recipients.0']).toEqual([`${member.email}'s new key was refused; they must set up another.`]);
    // The refused key offered again stays refused.
    expect((await browser.call('POST', '/app/api/identity-key', { body: { public_key: stranger.publicKey } })).body.state).toBe('refused');
    // A refusal never opens the way to a key verified at once: the next one waits for approval.
    const next = await newPublicKey();
    expect((await browser.call('POST', '/app/api/identity-key', { body: { public_key: next.publicKey } })).body.state).toBe('replaced_pending_approval');
    // Nor does the refused key come back behind another one.
    const offeredAgain = expectError(await browser.call('POST', '/app/api/identity-key', { body: { public_key: stranger.publicKey } }), 422, 'validation_failed', ['public_key']);
    expect(offeredAgain.errors.public_key).toEqual(['An owner or admin refused this key: make a new one (it waits for their approval).']);
    expect((await browser.call('GET', '/app/api/me')).body.member.identity_key.fingerprint).toBe(next.fingerprint);

    const audit = (await service.deps.db.send(new ScanCommand({ TableName: service.deps.tableName }))).Items!
      .filter((i) => i.kind === 'audit' && (i.data as any)?.member?.membership_id === member.id && String(i.type).startsWith('member.key_'))
      .sort((a, b) => a.seq - b.seq);
    expect(audit.map((i) => [i.type, i.actor.label, (i.data as any).details.fingerprint])).toEqual([
      ['member.key_replaced', 'Rita Refused', stranger.fingerprint],
      ['member.key_refused', 'Olivia Owner', stranger.fingerprint],
      ['member.key_replaced', 'Rita Refused', next.fingerprint],
    ]);
  });

  it("refuses another member's key (a colleague's backup imported), without naming whose, and changes nothing", async () => {
    const holder = await addMember('Hana Holder', 'member', true);
    const holderBrowser = await signIn(holder.email);
    const key = await newPublicKey();
    expect((await holderBrowser.call('POST', '/app/api/identity-key', { body: { public_key: key.publicKey } })).status).toBe(200);

    const colleague = await freshBrowser('Carl Colleague');
    const before = colleague.session!.body.member.identity_key;
    const refused = expectError(await colleague.call('POST', '/app/api/identity-key', { body: { public_key: key.publicKey } }), 422, 'validation_failed', ['public_key']);
    expect(refused.errors.public_key).toEqual(["This is another member's key (imported from their backup?): each member needs a key of their own."]);
    expect(JSON.stringify(refused)).not.toContain('Hana');
    expect((await colleague.call('GET', '/app/api/me')).body.member.identity_key).toEqual(before);
    // The holder registering it again is no change.
    expect((await holderBrowser.call('POST', '/app/api/identity-key', { body: { public_key: key.publicKey } })).body.fingerprint).toBe(key.fingerprint);
  });

  it("waits for approval after a key an operator made as a replacement, refused or not: only a verified operator's key is replaced at once", async () => {
    const member = await addMember('Otto Operator', 'member', true);
    const browser = await signIn(member.email);
    const owner = await signIn(org.owner.email);
    for (const refuseFirst of [false, true]) {
      const made = await service.admin.setIdentityKey(org.orgId, member.id, { ...identityKey(), madeBy: 'operator' });
      expect(made.state).toBe('replaced_pending_approval');
      if (refuseFirst) expect((await owner.call('POST', `/app/api/members/${member.id}/refuse-key`, { body: { fingerprint: made.fingerprint } })).status).toBe(200);
      const own = await newPublicKey();
      expect((await browser.call('POST', '/app/api/identity-key', { body: { public_key: own.publicKey } })).body).toEqual({
        fingerprint: own.fingerprint,
        state: 'replaced_pending_approval',
        made_by: 'member',
      });
      expect((await owner.call('POST', `/app/api/members/${member.id}/approve-key`, { body: { fingerprint: own.fingerprint } })).status).toBe(200);
    }
  });

  it('refuses a key that is not an EC P-256 public key with 422 on public_key', async () => {
    const browser = await freshBrowser('Ben Badkey');
    for (const public_key of ['not base64 at all', Buffer.from('hello').toString('base64'), '']) {
      expectError(await browser.call('POST', '/app/api/identity-key', { body: { public_key } }), 422, 'validation_failed', ['public_key']);
    }
    expectError(await browser.call('POST', '/app/api/identity-key', { body: {} }), 422, 'validation_failed', ['public_key']);
  });

  it('keeps the members endpoints to owners and admins', async () => {
    const plain = await signIn(org.member.email);
    expect(plain.session!.body.member.role).toBe('member');
    expectError(await plain.call('GET', '/app/api/members'), 403, 'forbidden');
    expectError(await plain.call('POST', `/app/api/members/${org.owner.id}/approve-key`), 403, 'forbidden');
    const admin = await addMember('Ada Admin', 'admin', true);
    const adminBrowser = await signIn(admin.email);
    expect((await adminBrowser.call('GET', '/app/api/members')).status).toBe(200);
    expectError(await adminBrowser.call('POST', `/app/api/members/${org.member.id}/approve-key`), 409, 'illegal_transition');
    expectError(await adminBrowser.call('POST', '/app/api/members/01hzzzzzzzzzzzzzzzzzzzzzzz/approve-key'), 404, 'not_found');
  });
});

describe('storage', () => {
  it('holds no sign-in token, session token or CSRF token in plain text', async () => {
    // One more full round, so there are live sign-in tokens in the table too.
    await requestSignIn(service, org.owner.email);
    seenSecrets.add(latestSignInToken(service, org.owner.email));
    expect(seenSecrets.size).toBeGreaterThan(10);
    const items = await scanTable(service);
    const table = JSON.stringify(items);
    for (const secret of seenSecrets) expect(table.includes(secret), 'a token stored in plain text').toBe(false);
    // The kinds of item sign-in leaves behind: hashes under their keys.
    expect(items.some((item) => item.kind === 'session' && /^SESSION#[0-9a-f]{64}$/.test(String(item.pk)))).toBe(true);
    expect(items.some((item) => item.kind === 'sign_in_token' && /^SIGNIN#[0-9a-f]{64}$/.test(String(item.pk)))).toBe(true);
  });
});
