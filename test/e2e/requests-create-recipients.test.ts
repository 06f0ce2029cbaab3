/**
 * POST /requests over real HTTP, its recipients and requester: who may be named, how teams and the
 * requester join the recipients, who is left out (and named in excluded_recipients), and the 422
 * by field for everyone who cannot be a recipient; the commitment covers exactly the recipients.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recipientCommitment } from '../../lambdas/core/commitment.ts';
import { requestCreation } from '../support/request-creation.ts';
import { expectError } from '../support/shapes.ts';
import { identityKey, startTestService, type TestOrganisation, type TestService } from '../support/test-service.ts';

const JUSTIFICATION = 'Need the VPN password to finish the migration';

let service: TestService;
let org: TestOrganisation;
let writer: string;

beforeAll(async () => {
  service = await startTestService();
  org = await service.createOrganisation({ name: 'Northwind Recipients' });
  writer = await service.createKey(org.orgId, { scopes: ['requests:write'], name: 'Recipients writer key' });
});
afterAll(() => service?.stop());

const { base, create, created, fingerprintOf, addMember } = requestCreation(() => ({ service, org, writer, justification: JUSTIFICATION }));

describe('POST /requests: recipients and requester', () => {
  it('defaults the requester to the first recipient', async () => {
    const { request } = await created(base({ recipients: [org.member.email, org.owner.email] }));
    expect(request.requester).toEqual({ membership_id: org.member.id, name: org.member.name, email: org.member.email });
    expect(request.recipients).toEqual([
      { label: org.member.name, membership_id: org.member.id },
      { label: org.owner.name, membership_id: org.owner.id },
    ]);
  });

  it('matches recipient emails regardless of capitals', async () => {
    const { request } = await created(base({ recipients: [org.member.email.toUpperCase()] }));
    expect(request.recipients).toEqual([{ label: org.member.name, membership_id: org.member.id }]);
  });

  it('adds a requester who is not listed as a recipient, and commits to both', async () => {
    const result = await created(base({ recipients: [org.member.email], requester: org.owner.email }));
    expect(result.request.requester).toEqual({ membership_id: org.owner.id, name: org.owner.name, email: org.owner.email });
    expect(result.request.recipients.map((x) => x.membership_id).sort()).toEqual([org.member.id, org.owner.id].sort());
    expect(result.commit).toBe(
      recipientCommitment([
        { membershipId: org.member.id, fingerprint: await fingerprintOf(org.orgId, org.member.id) },
        { membershipId: org.owner.id, fingerprint: await fingerprintOf(org.orgId, org.owner.id) },
      ]),
    );
  });

  it('lists a recipient once however often named', async () => {
    const { request } = await created(base({ recipients: [org.owner.email, org.owner.email], requester: org.owner.email }));
    expect(request.recipients).toEqual([{ label: org.owner.name, membership_id: org.owner.id }]);
  });

  it('leaves out a member whose replaced key awaits approval and names them in excluded_recipients', async () => {
    const pending = await addMember('Paula Pending');
    await service.admin.setIdentityKey(org.orgId, pending.id, identityKey());
    expect((await service.deps.directory.getMember(org.orgId, pending.id))!.identityKey!.state).toBe('replaced_pending_approval');

    const result = await created(base({ recipients: [org.owner.email, pending.email] }));
    expect(result.excluded_recipients).toEqual(['Paula Pending']);
    expect(result.request.recipients).toEqual([{ label: org.owner.name, membership_id: org.owner.id }]);
    expect(result.commit).toBe(
      recipientCommitment([{ membershipId: org.owner.id, fingerprint: await fingerprintOf(org.orgId, org.owner.id) }]),
    );

    // Once approved, the member is included again.
    await service.admin.decideIdentityKey(org.orgId, pending.id, 'approve');
    const again = await created(base({ recipients: [org.owner.email, pending.email] }));
    expect(again.excluded_recipients).toEqual([]);
    expect(again.request.recipients.map((x) => x.membership_id)).toEqual([org.owner.id, pending.id]);
  });

  it('keeps the requester among the recipients when the first recipient is left out', async () => {
    const pending = await addMember('Rita Replaced');
    await service.admin.setIdentityKey(org.orgId, pending.id, identityKey());

    // By default the requester is the first recipient who is included.
    const result = await created(base({ recipients: [pending.email, org.member.email, org.owner.email] }));
    expect(result.excluded_recipients).toEqual(['Rita Replaced']);
    expect(result.request.requester).toEqual({ membership_id: org.member.id, name: org.member.name, email: org.member.email });
    expect(result.request.recipients.map((x) => x.membership_id)).toEqual([org.member.id, org.owner.id]);

    // A requester named outright cannot be left out, so cannot be one whose key awaits approval.
    const named = await create(base({ recipients: [org.owner.email], requester: pending.email }));
    expectError(named, 422, 'validation_failed', ['requester']);

    // Nobody left to receive it.
    expectError(await create(base({ recipients: [pending.email] })), 422, 'validation_failed', ['recipients']);
  });

  it('answers 422 on requester for a requester without an identity key', async () => {
    const keyless = await addMember('Quinn Nokey', false);
    expectError(await create(base({ requester: keyless.email })), 422, 'validation_failed', ['requester']);
  });

  it('answers 422 on recipients.N for a member without an identity key', async () => {
    const keyless = await addMember('Kim Keyless', false);
    const answer = await create(base({ recipients: [org.owner.email, keyless.email] }));
    const body = expectError(answer, 422, 'validation_failed', ['recipients.1']);
    expect(body.errors['recipients.1'][0]).toContain(keyless.email);
  });

  it('answers 422 on recipients.N for an unknown email', async () => {
    const answer = await create(base({ recipients: [org.owner.email, org.member.email, 'nobody@example.com'] }));
    expectError(answer, 422, 'validation_failed', ['recipients.2']);
  });

  it('answers 422 on recipients.N for a disabled member', async () => {
    const leaver = await addMember('Larry Leaver');
    await service.admin.setMemberActive(org.orgId, leaver.id, false);
    const answer = await create(base({ recipients: [org.owner.email, leaver.email] }));
    expectError(answer, 422, 'validation_failed', ['recipients.1']);
  });

  it('answers 422 on requester for an unknown requester', async () => {
    const answer = await create(base({ requester: 'ghost@example.com' }));
    expectError(answer, 422, 'validation_failed', ['requester']);
  });

  it('does not take recipients from another organisation', async () => {
    const other = await service.createOrganisation({ name: 'Other Org' });
    const answer = await create(base({ recipients: [org.owner.email, other.owner.email] }));
    expectError(answer, 422, 'validation_failed', ['recipients.1']);
  });

  it('expands teams into recipients', async () => {
    const alice = await addMember('Alice Teamer');
    const bob = await addMember('Bob Teamer');
    const team = await service.admin.createTeam(org.orgId, 'Network team', [alice.id, bob.id, org.owner.id]);
    const result = await created(base({ recipients: [org.owner.email], teams: [team.id] }));
    expect(result.request.requester.membership_id).toBe(org.owner.id);
    expect(result.request.recipients).toEqual([
      { label: org.owner.name, membership_id: org.owner.id },
      { label: 'Alice Teamer', membership_id: alice.id },
      { label: 'Bob Teamer', membership_id: bob.id },
    ]);
    expect(result.excluded_recipients).toEqual([]);
    const fingerprints = await Promise.all([org.owner.id, alice.id, bob.id].map((id) => fingerprintOf(org.orgId, id)));
    expect(result.commit).toBe(
      recipientCommitment([org.owner.id, alice.id, bob.id].map((membershipId, i) => ({ membershipId, fingerprint: fingerprints[i] }))),
    );
  });

  it('accepts teams without listed recipients when a requester is named', async () => {
    const carol = await addMember('Carol Teamer');
    const team = await service.admin.createTeam(org.orgId, 'Carol team', [carol.id]);
    const result = await created({ subject_name: 'Jane Doe', justification: JUSTIFICATION, teams: [team.id], requester: org.owner.email });
    expect(result.request.requester.membership_id).toBe(org.owner.id);
    expect(result.request.recipients.map((x) => x.membership_id).sort()).toEqual([carol.id, org.owner.id].sort());
  });

  it('leaves a keyless team member out and names them', async () => {
    const dave = await addMember('Dave Nokey', false);
    const team = await service.admin.createTeam(org.orgId, 'Dave team', [dave.id, org.member.id]);
    const result = await created(base({ teams: [team.id] }));
    expect(result.request.recipients.map((x) => x.membership_id)).toEqual([org.owner.id, org.member.id]);
    expect(result.excluded_recipients).toEqual(['Dave Nokey']);
  });

  it('answers 422 on teams.N for an unknown team', async () => {
    const team = await service.admin.createTeam(org.orgId, 'Real team', [org.member.id]);
    const answer = await create(base({ teams: [team.id, '01h00000000000000000000000'] }));
    expectError(answer, 422, 'validation_failed', ['teams.1']);
  });
});
