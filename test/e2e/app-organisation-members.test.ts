/**
 * The Organisation settings endpoints over real HTTP (docs/web-api.md, Organisation): owners and
 * admins invite members (the sign-in link emailed), change their roles, disable and enable them,
 * and make, rename and change clients and teams, through the operator CLI's own rules
 * (core/use-cases/organisation/), audited with the member as the actor; a plain member is refused.
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAdminCli } from '../support/admin-cli.ts';
import { latestSignInToken, MemberBrowser, signInEmailsTo, startSession } from '../support/member-browser.ts';
import { auditEntries, expectError, expectKeys, ULID } from '../support/shapes.ts';
import { startTestService, type TestOrganisation, type TestService } from '../support/test-service.ts';

let service: TestService;
let org: TestOrganisation;
let owner: MemberBrowser;
let admin: MemberBrowser;
let adminId: string;
let plain: MemberBrowser;

const MEMBER_FIELDS = ['membership_id', 'name', 'email', 'role', 'active', 'identity_key'];

let emails = 0;
const newEmail = (name: string) => `${name}-${(emails += 1)}-${org.orgId.slice(-6)}@example.com`;
let keys = 0;
const idem = () => ({ 'Idempotency-Key': `org-${(keys += 1)}-${Date.now()}` });

const item = async (sk: string) =>
  (await service.deps.db.send(new GetCommand({ TableName: service.deps.tableName, Key: { pk: `ORG#${org.orgId}`, sk }, ConsistentRead: true }))).Item as
    | Record<string, any>
    | undefined;
const lastEntry = async (type: string) => (await auditEntries(service, org.orgId)).filter((entry) => entry.type === type).pop()!;

const invite = (browser: MemberBrowser, body: Record<string, unknown>) => browser.call('POST', '/app/api/members', { body, headers: idem() });
/** A member the operator adds (no key), for the role and state tests. */
const added = (role: 'owner' | 'admin' | 'member', name = 'Rita Role') =>
  service.admin.addMember({ orgId: org.orgId, name, email: newEmail(name.split(' ')[0]!.toLowerCase()), role });

beforeAll(async () => {
  service = await startTestService();
  org = await service.createOrganisation({ name: 'Settings Org' });
  const adminMember = await service.admin.addMember({ orgId: org.orgId, name: 'Ada Admin', email: `ada-${org.orgId.slice(-6)}@example.com`, role: 'admin' });
  adminId = adminMember.id;
  owner = await MemberBrowser.signIn(service, org.owner.email);
  admin = await MemberBrowser.signIn(service, adminMember.email);
  plain = await MemberBrowser.signIn(service, org.member.email);
});
afterAll(() => service?.stop());

describe('POST /app/api/members (invite)', () => {
  it('adds the member, emails the sign-in link that signs them in, audited with the inviting member as the actor', async () => {
    const email = newEmail('nina');
    const answer = await invite(admin, { name: 'Nina New', email: email.toUpperCase(), role: 'member' });
    expect(answer.status, answer.text).toBe(201);
    expect(answer.headers.get('cache-control')).toBe('no-store');
    expectKeys(answer.body, ['member', 'invitation_sent'], 'invitation');
    expectKeys(answer.body.member, MEMBER_FIELDS, 'member');
    expect(answer.body).toEqual({
      member: { membership_id: expect.stringMatching(ULID), name: 'Nina New', email, role: 'member', active: true, identity_key: null },
      invitation_sent: true,
    });
    const id = answer.body.member.membership_id;
    expect(await item(`MEMBER#${id}`)).toMatchObject({ role: 'member', active: true, email, identityKey: null });
    expect(await item(`EMAIL#${email}`)).toMatchObject({ memberId: id });

    const [mail] = signInEmailsTo(service, email);
    expect(mail!.subject).toBe('You are invited to Settings Org');
    expect(mail!.text).toContain('Ada Admin invited you to Settings Org');
    const session = await startSession(service, latestSignInToken(service, email));
    expect(session.status, session.text).toBe(200);
    expect(session.body.member).toMatchObject({ membership_id: id, identity_key: null });

    const entry = await lastEntry('member.added');
    expect(entry.actor).toEqual({ type: 'member', label: 'Ada Admin', id: adminId });
    expect(entry.data).toMatchObject({ member: { membership_id: id, email }, details: { role: 'member' }, actor: { type: 'member', label: 'Ada Admin' } });
  });

  it('answers 409 member_exists for an email already a member, and adds nothing', async () => {
    const before = (await auditEntries(service, org.orgId)).length;
    expectError(await invite(owner, { name: 'Tom Again', email: org.member.email.toUpperCase(), role: 'member' }), 409, 'member_exists');
    expect((await auditEntries(service, org.orgId)).length).toBe(before);
  });

  it('refuses bad input by field (422), and an admin inviting an owner (403)', async () => {
    expectError(await invite(admin, { name: '', email: 'not an email', role: 'boss' }), 422, 'validation_failed', ['name', 'email', 'role']);
    expectError(await invite(admin, { name: 'X', email: newEmail('x'), extra: 1 }), 422, 'validation_failed', ['extra']);
    expectError(await invite(admin, { name: 'Olga Owner', email: newEmail('olga'), role: 'owner' }), 403, 'forbidden');
    const made = await invite(owner, { name: 'Olga Owner', email: newEmail('olga'), role: 'owner' });
    expect(made.status, made.text).toBe(201);
  });

  it('refuses a plain member (403), a missing CSRF token (403) and another origin (403)', async () => {
    expectError(await invite(plain, { name: 'Pat', email: newEmail('pat') }), 403, 'forbidden');
    expectError(await admin.call('POST', '/app/api/members', { body: { name: 'Pat', email: newEmail('pat') }, csrf: false }), 403, 'forbidden');
    expectError(await admin.call('POST', '/app/api/members', { body: { name: 'Pat', email: newEmail('pat') }, headers: { Origin: 'https://evil.example' } }), 403, 'forbidden');
    expectError(await plain.call('GET', '/app/api/clients'), 403, 'forbidden');
    expectError(await plain.call('GET', '/app/api/teams'), 403, 'forbidden');
  });
});

describe('POST /app/api/members/{id}/role', () => {
  const role = (browser: MemberBrowser, id: string, body: unknown) => browser.call('POST', `/app/api/members/${id}/role`, { body });

  it('changes a role: 200 the member, stored, audited with from and to', async () => {
    const member = await added('member');
    const answer = await role(admin, member.id, { role: 'admin' });
    expect(answer.status, answer.text).toBe(200);
    expectKeys(answer.body, MEMBER_FIELDS, 'member');
    expect(answer.body).toMatchObject({ membership_id: member.id, role: 'admin', active: true });
    expect(await item(`MEMBER#${member.id}`)).toMatchObject({ role: 'admin' });
    const entry = await lastEntry('member.role_changed');
    expect(entry.actor).toEqual({ type: 'member', label: 'Ada Admin', id: adminId });
    expect(entry.data.details).toEqual({ from: 'member', to: 'admin' });
  });

  it('lets only owners make owners or change owners', async () => {
    const member = await added('member');
    const another = await added('owner', 'Oscar Owner');
    expectError(await role(admin, member.id, { role: 'owner' }), 403, 'forbidden');
    expectError(await role(admin, another.id, { role: 'member' }), 403, 'forbidden');
    expect((await role(owner, member.id, { role: 'owner' })).status).toBe(200);
    expect((await role(owner, member.id, { role: 'member' })).status).toBe(200);
  });

  it('never demotes the last active owner, themselves included (409 last_owner)', async () => {
    const solo = await service.createOrganisation({ name: 'Solo Org' });
    const soloOwner = await MemberBrowser.signIn(service, solo.owner.email);
    expectError(await role(soloOwner, solo.owner.id, { role: 'admin' }), 409, 'last_owner');
    expectError(await soloOwner.call('POST', `/app/api/members/${solo.owner.id}/disable`), 403, 'forbidden');
    // With a second owner, the first may step down; the second is then the last.
    const second = await service.admin.addMember({ orgId: solo.orgId, name: 'Sam Second', email: `sam-${solo.orgId.slice(-6)}@example.com`, role: 'owner' });
    expect((await role(soloOwner, solo.owner.id, { role: 'admin' })).status).toBe(200);
    expectError(await soloOwner.call('POST', `/app/api/members/${second.id}/disable`), 403, 'forbidden');
    const secondBrowser = await MemberBrowser.signIn(service, second.email);
    expectError(await role(secondBrowser, second.id, { role: 'member' }), 409, 'last_owner');
  });

  it('refuses bad input (422), an unknown member (404), and a plain member (403)', async () => {
    const member = await added('member');
    expectError(await role(admin, member.id, { role: 'king' }), 422, 'validation_failed', ['role']);
    expectError(await role(admin, member.id, {}), 422, 'validation_failed', ['role']);
    expectError(await role(admin, '01aaaaaaaaaaaaaaaaaaaaaaaa', { role: 'admin' }), 404, 'not_found');
    expectError(await role(admin, 'nope', { role: 'admin' }), 404, 'not_found');
    expectError(await role(plain, member.id, { role: 'admin' }), 403, 'forbidden');
  });
});

describe('POST /app/api/members/{id}/disable and /enable', () => {
  it('disables: their session ends at once, they get no sign-in link; enabled again they can sign in', async () => {
    const member = await added('member', 'Vic Vanishing');
    const victim = await MemberBrowser.signIn(service, member.email);
    const answer = await admin.call('POST', `/app/api/members/${member.id}/disable`);
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body).toMatchObject({ membership_id: member.id, active: false });
    expect(await item(`MEMBER#${member.id}`)).toMatchObject({ active: false });
    expectError(await victim.call('GET', '/app/api/me'), 401, 'unauthenticated');
    const entry = await lastEntry('member.disabled');
    expect(entry.actor).toEqual({ type: 'member', label: 'Ada Admin', id: adminId });
    expect(entry.data).toMatchObject({ member: { membership_id: member.id }, details: {} });

    // Again: nothing changes, no second entry.
    const count = (await auditEntries(service, org.orgId)).filter((e) => e.type === 'member.disabled').length;
    expect((await admin.call('POST', `/app/api/members/${member.id}/disable`)).status).toBe(200);
    expect((await auditEntries(service, org.orgId)).filter((e) => e.type === 'member.disabled').length).toBe(count);

    const enabled = await admin.call('POST', `/app/api/members/${member.id}/enable`);
    expect(enabled.body).toMatchObject({ active: true });
    expect((await lastEntry('member.enabled')).data.member.membership_id).toBe(member.id);
    // The session from before the disable stays dead: a cookie taken then must not come back.
    expect((await item(`MEMBER#${member.id}`))?.sessionsValidFrom).toEqual(expect.any(String));
    expectError(await victim.call('GET', '/app/api/me'), 401, 'unauthenticated');
    expect((await (await MemberBrowser.signIn(service, member.email)).call('GET', '/app/api/me')).status).toBe(200);
  });

  it('refuses disabling yourself, an admin disabling an owner, and a plain member', async () => {
    const another = await added('owner', 'Otto Owner');
    expectError(await admin.call('POST', `/app/api/members/${adminId}/disable`), 403, 'forbidden');
    expectError(await admin.call('POST', `/app/api/members/${another.id}/disable`), 403, 'forbidden');
    // An owner's row is refused to an admin even when the change is already so.
    expectError(await admin.call('POST', `/app/api/members/${another.id}/enable`), 403, 'forbidden');
    expectError(await plain.call('POST', `/app/api/members/${another.id}/disable`), 403, 'forbidden');
    expectError(await admin.call('POST', `/app/api/members/${another.id}/enable`, { csrf: 'wrong' }), 403, 'forbidden');
    expect((await owner.call('POST', `/app/api/members/${another.id}/disable`)).status).toBe(200);
  });
});

describe('clients', () => {
  it('lists, creates (201, Idempotency-Key) and renames clients, audited with the member', async () => {
    const list = await admin.call('GET', '/app/api/clients');
    expect(list.status).toBe(200);
    expect(list.body.data).toEqual([{ id: org.defaultClientId, name: 'Settings Org (internal)', default: true, created_at: expect.any(String) }]);

    const headers = idem();
    const created = await admin.call('POST', '/app/api/clients', { body: { name: '  Acme Ltd ' }, headers });
    expect(created.status, created.text).toBe(201);
    expect(created.body).toEqual({ id: expect.stringMatching(ULID), name: 'Acme Ltd', default: false, created_at: expect.any(String) });
    const replay = await admin.call('POST', '/app/api/clients', { body: { name: '  Acme Ltd ' }, headers });
    expect(replay.body.id).toBe(created.body.id);
    expect(await item(`CLIENT#${created.body.id}`)).toMatchObject({ name: 'Acme Ltd' });
    expect((await lastEntry('client.created')).actor).toMatchObject({ type: 'member', id: adminId });

    const renamed = await admin.call('POST', `/app/api/clients/${created.body.id}`, { body: { name: 'Acme Group' } });
    expect(renamed.status, renamed.text).toBe(200);
    expect(renamed.body).toMatchObject({ id: created.body.id, name: 'Acme Group' });
    expect(await item(`CLIENT#${created.body.id}`)).toMatchObject({ name: 'Acme Group' });
    expect((await lastEntry('client.renamed')).data.details).toEqual({ client_id: created.body.id, name: 'Acme Group', previous_name: 'Acme Ltd' });
  });

  it('refuses bad input (422), an unknown client (404), a plain member (403)', async () => {
    expectError(await admin.call('POST', '/app/api/clients', { body: { name: '   ' }, headers: idem() }), 422, 'validation_failed', ['name']);
    expectError(await admin.call('POST', '/app/api/clients', { body: { name: 'x'.repeat(101) }, headers: idem() }), 422, 'validation_failed', ['name']);
    expectError(await admin.call('POST', '/app/api/clients', { body: [], headers: idem() }), 422, 'validation_failed');
    expectError(await admin.call('POST', '/app/api/clients/01aaaaaaaaaaaaaaaaaaaaaaaa', { body: { name: 'Y' } }), 404, 'not_found');
    expectError(await plain.call('POST', '/app/api/clients', { body: { name: 'Z' }, headers: idem() }), 403, 'forbidden');
  });
});

describe('teams', () => {
  it('creates a team with members (201), lists it with them, changes its members, audited', async () => {
    const created = await admin.call('POST', '/app/api/teams', { body: { name: 'Night shift', member_ids: [org.member.id, adminId] }, headers: idem() });
    expect(created.status, created.text).toBe(201);
    expectKeys(created.body, ['id', 'name', 'members', 'created_at'], 'team');
    expect(created.body.members.map((m: { membership_id: string }) => m.membership_id).sort()).toEqual([org.member.id, adminId].sort());
    expect(await item(`TEAM#${created.body.id}`)).toMatchObject({ name: 'Night shift', memberIds: [org.member.id, adminId] });
    expect((await lastEntry('team.created')).actor).toMatchObject({ type: 'member', id: adminId });

    const list = await admin.call('GET', '/app/api/teams');
    expect(list.status).toBe(200);
    expect(list.body.data.find((team: { id: string }) => team.id === created.body.id).members).toHaveLength(2);
    expect(list.body.members.map((m: { membership_id: string }) => m.membership_id)).toContain(org.owner.id);

    const changed = await admin.call('POST', `/app/api/teams/${created.body.id}`, { body: { member_ids: [org.owner.id] } });
    expect(changed.status, changed.text).toBe(200);
    expect(changed.body.members).toEqual([{ membership_id: org.owner.id, name: 'Olivia Owner', email: org.owner.email, active: true }]);
    expect(await item(`TEAM#${created.body.id}`)).toMatchObject({ memberIds: [org.owner.id] });
    expect((await lastEntry('team.members_changed')).data.details).toMatchObject({ team_id: created.body.id, added: [org.owner.id], removed: [org.member.id, adminId] });
  });

  it('renames a team as a client is renamed (POST {name}), audited team.renamed; the same name writes nothing; an Idempotency-Key replays', async () => {
    const created = await admin.call('POST', '/app/api/teams', { body: { name: 'Day shift', member_ids: [adminId] }, headers: idem() });
    expect(created.status, created.text).toBe(201);
    const id = created.body.id as string;
    const path = `/app/api/teams/${id}`;
    const renamesOf = async () => (await auditEntries(service, org.orgId)).filter((entry) => entry.type === 'team.renamed' && entry.data.details.team_id === id);

    const renamed = await admin.call('POST', path, { body: { name: '  Early shift ' } });
    expect(renamed.status, renamed.text).toBe(200);
    expectKeys(renamed.body, ['id', 'name', 'members', 'created_at'], 'team');
    expect(renamed.body).toMatchObject({ id, name: 'Early shift', members: [{ membership_id: adminId }] });
    expect(await item(`TEAM#${id}`)).toMatchObject({ name: 'Early shift', memberIds: [adminId] });
    const [entry] = await renamesOf();
    expect(entry!.actor).toMatchObject({ type: 'member', id: adminId });
    expect(entry!.data.details).toEqual({ team_id: id, name: 'Early shift', previous_name: 'Day shift' });
    const listed = (await admin.call('GET', '/app/api/teams')).body.data.find((team: { id: string }) => team.id === id);
    expect(listed.name).toBe('Early shift');

    // The same name again: 200, nothing written.
    expect((await admin.call('POST', path, { body: { name: 'Early shift' } })).body.name).toBe('Early shift');
    expect(await renamesOf()).toHaveLength(1);

    // The same key and body replays the first answer, renaming once.
    const headers = idem();
    const first = await admin.call('POST', path, { body: { name: 'Late shift' }, headers });
    const again = await admin.call('POST', path, { body: { name: 'Late shift' }, headers });
    expect(first.status, first.text).toBe(200);
    expect(again.headers.get('idempotency-replayed')).toBe('true');
    expect(again.text).toBe(first.text);
    expectError(await admin.call('POST', path, { body: { name: 'Other shift' }, headers }), 422, 'idempotency_key_reused');
    expect((await renamesOf()).map((e) => e.data.details.name)).toEqual(['Early shift', 'Late shift']);

    // A name and members at once: one transaction, an entry for each, one after the other.
    const both = await owner.call('POST', path, { body: { name: 'Night owls', member_ids: [org.owner.id] } });
    expect(both.status, both.text).toBe(200);
    expect(both.body).toMatchObject({ name: 'Night owls', members: [{ membership_id: org.owner.id }] });
    const entries = (await auditEntries(service, org.orgId)).filter((e) => e.data.details?.team_id === id).slice(-2);
    expect(entries.map((e) => [e.type, e.data.details.name])).toEqual([
      ['team.renamed', 'Night owls'],
      ['team.members_changed', 'Night owls'],
    ]);
    expect(entries[1]!.seq).toBe(entries[0]!.seq + 1);
  });

  it('changes made at once are each decided on the team as it is: no rename says it changed from a name already gone, no member change is lost', async () => {
    const created = await admin.call('POST', '/app/api/teams', { body: { name: 'Shift 0', member_ids: [] }, headers: idem() });
    const id = created.body.id as string;
    const path = `/app/api/teams/${id}`;
    // Five at once: each round of the retries lets one through, so the last wins in five attempts.
    const answers = await Promise.all([
      ...[1, 2, 3].map((n) => admin.call('POST', path, { body: { name: `Shift ${n}` } })),
      owner.call('POST', path, { body: { member_ids: [adminId] } }),
      owner.call('POST', path, { body: { member_ids: [adminId, org.owner.id] } }),
    ]);
    for (const answer of answers) expect(answer.status, answer.text).toBe(200);
    const entries = (await auditEntries(service, org.orgId)).filter((e) => e.data.details?.team_id === id);
    // Each rename starts from the name the one before it left, and the team ends with the last.
    const renames = entries.filter((e) => e.type === 'team.renamed').map((e) => e.data.details);
    expect(renames).toHaveLength(3);
    renames.forEach((rename, index) => expect(rename.previous_name).toBe(index === 0 ? 'Shift 0' : renames[index - 1]!.name));
    // Each member change is worked out from the members the one before it left.
    let members: string[] = [];
    for (const { data } of entries.filter((e) => e.type === 'team.members_changed')) {
      const { added, removed } = data.details as { added: string[]; removed: string[] };
      expect(added.every((member) => !members.includes(member)) && removed.every((member) => members.includes(member))).toBe(true);
      members = [...members.filter((member) => !removed.includes(member)), ...added];
    }
    const stored = await item(`TEAM#${id}`);
    expect(stored!.name).toBe(renames.at(-1)!.name);
    expect([...stored!.memberIds].sort()).toEqual([...members].sort());
  });

  it('refuses a rename by field (422, nothing written), an unknown team (404), a plain member (403)', async () => {
    const created = await admin.call('POST', '/app/api/teams', { body: { name: 'Weekend' }, headers: idem() });
    const path = `/app/api/teams/${created.body.id}`;
    expectError(await admin.call('POST', path, { body: { name: '   ' } }), 422, 'validation_failed', ['name']);
    expectError(await admin.call('POST', path, { body: { name: 'x'.repeat(101) } }), 422, 'validation_failed', ['name']);
    expectError(await admin.call('POST', path, { body: { name: 7 } }), 422, 'validation_failed', ['name']);
    expectError(await admin.call('POST', path, { body: { name: 'Weekend crew', colour: 'red' } }), 422, 'validation_failed', ['colour']);
    const neither = expectError(await admin.call('POST', path, { body: {} }), 422, 'validation_failed', ['name', 'member_ids']);
    expect(neither.errors).toEqual({ name: ['Required unless member_ids is given.'], member_ids: ['Required unless name is given.'] });
    // A good name with bad members changes neither.
    expectError(await admin.call('POST', path, { body: { name: 'Weekend crew', member_ids: ['01aaaaaaaaaaaaaaaaaaaaaaaa'] } }), 422, 'validation_failed', ['member_ids']);
    expect(await item(`TEAM#${created.body.id}`)).toMatchObject({ name: 'Weekend', memberIds: [] });
    expectError(await admin.call('POST', '/app/api/teams/01aaaaaaaaaaaaaaaaaaaaaaaa', { body: { name: 'Ghosts' } }), 404, 'not_found');
    expectError(await plain.call('POST', path, { body: { name: 'Mine now' } }), 403, 'forbidden');
    expect((await auditEntries(service, org.orgId)).filter((e) => e.type === 'team.renamed' && e.data.details.team_id === created.body.id)).toEqual([]);
  });

  it('refuses unknown members and bad input by field (422), an unknown team (404)', async () => {
    expectError(
      await admin.call('POST', '/app/api/teams', { body: { name: 'Ghosts', member_ids: ['01aaaaaaaaaaaaaaaaaaaaaaaa'] }, headers: idem() }),
      422,
      'validation_failed',
      ['member_ids'],
    );
    expectError(await admin.call('POST', '/app/api/teams', { body: { name: '', member_ids: 'all' }, headers: idem() }), 422, 'validation_failed', ['name', 'member_ids']);
    expectError(await admin.call('POST', '/app/api/teams', { body: { name: 'Twice', member_ids: [adminId, adminId] }, headers: idem() }), 422, 'validation_failed', ['member_ids']);
    expectError(await admin.call('POST', '/app/api/teams/01aaaaaaaaaaaaaaaaaaaaaaaa', { body: { member_ids: [] } }), 404, 'not_found');
    expectError(await plain.call('POST', '/app/api/teams', { body: { name: 'No' }, headers: idem() }), 403, 'forbidden');
  });
});

describe("the operator's rename-team", () => {
  const renameTeam = (...args: string[]) => runAdminCli(service.deps.tableName, 'rename-team', ['--org', org.orgId, ...args]);

  it('renames a team found by its name or its id, through the same rule, audited team.renamed with the operator as actor', async () => {
    const team = await service.admin.createTeam(org.orgId, 'Service desk', [org.member.id]);
    const byName = await renameTeam('--team', 'Service desk', '--name', ' Service desk (EU) ');
    expect(byName.code, byName.stderr).toBe(0);
    expect(JSON.parse(byName.stdout)).toMatchObject({ id: team.id, name: 'Service desk (EU)', members: [expect.objectContaining({ membership_id: org.member.id })] });
    const byId = await renameTeam('--team', team.id, '--name', 'Help desk');
    expect(byId.code, byId.stderr).toBe(0);
    expect(await item(`TEAM#${team.id}`)).toMatchObject({ name: 'Help desk' });
    const renames = (await auditEntries(service, org.orgId)).filter((entry) => entry.type === 'team.renamed' && entry.data.details.team_id === team.id);
    expect(renames.map((entry) => entry.data.details)).toEqual([
      { team_id: team.id, name: 'Service desk (EU)', previous_name: 'Service desk' },
      { team_id: team.id, name: 'Help desk', previous_name: 'Service desk (EU)' },
    ]);
    for (const entry of renames) expect(entry.actor).toMatchObject({ type: 'system', label: 'operator' });
  });

  it('refuses what the page refuses, in the same words; a team it cannot find, or a name two teams share, is named', async () => {
    const team = await service.admin.createTeam(org.orgId, 'Second line', []);
    const blank = await renameTeam('--team', team.id, '--name', '   ');
    expect(blank).toMatchObject({ code: 1, stdout: '' });
    expect(blank.stderr).toBe('The request is invalid.\n  name: Required.\n');
    const unknownId = await renameTeam('--team', '01aaaaaaaaaaaaaaaaaaaaaaaa', '--name', 'Ghosts');
    expect(unknownId.stderr).toBe('No team with this id.\n');
    const unknownName = await renameTeam('--team', 'Third line', '--name', 'Ghosts');
    expect(unknownName).toMatchObject({ code: 1, stderr: 'no team called "Third line"\n' });
    const twin = await service.admin.createTeam(org.orgId, 'Second line', []);
    const shared = await renameTeam('--team', 'Second line', '--name', 'Escalations');
    expect(shared.code).toBe(1);
    expect(shared.stderr).toContain('2 teams are called "Second line": give the id of one');
    for (const id of [team.id, twin.id]) expect(shared.stderr).toContain(id);
    expect(await item(`TEAM#${team.id}`)).toMatchObject({ name: 'Second line' });
  });
});

describe('GET /app/api/members after the changes', () => {
  it('lists every member with role and state', async () => {
    const answer = await owner.call('GET', '/app/api/members');
    expect(answer.status).toBe(200);
    for (const member of answer.body.data) expectKeys(member, MEMBER_FIELDS, 'member');
    expect(answer.body.data.some((m: { active: boolean }) => !m.active)).toBe(true);
  });
});
