import { describe, expect, it } from 'vitest';
import { ApiError } from '../../lambdas/core/errors.ts';
import { memberActor } from '../../lambdas/core/member-access.ts';
import { OPERATOR_ACTOR, type Client, type Team } from '../../lambdas/core/model.ts';
import type { AuditEntryInput } from '../../lambdas/core/ports.ts';
import { operatorActing, type Acting, type OrganisationChanges, type OrganisationDeps, type TeamChange } from '../../lambdas/core/use-cases/organisation/acting.ts';
import { changeTeam, renameTeam } from '../../lambdas/core/use-cases/organisation/teams.ts';
import { FakeDirectory, fixedClock, makeMember, ORG_ID } from './support/fakes.ts';

/**
 * Renaming a team (core/use-cases/organisation/teams.ts), the rule the operator's `rename-team`
 * and the member application's POST /app/api/teams/{id} share: the name read as on creation, one
 * write with its `team.renamed` entry, nothing written for the same name or a refusal.
 */
const TEAM_ID = '01hzzzzzzzzzzzzzzzzzzzzte1';

/** One call of changeTeam: the team as read, what was set, and the audit entries written with it. */
interface TeamWrite {
  team: Team;
  change: TeamChange;
  audits: AuditEntryInput[];
}

class FakeOrganisationChanges implements OrganisationChanges {
  readonly teamWrites: TeamWrite[] = [];
  async memberIdByEmail() {
    return null;
  }
  async addMember() {}
  async updateMember() {}
  async putClient() {}
  async renameClient() {}
  async putTeam() {}
  async changeTeam(team: Team, change: TeamChange, audits: AuditEntryInput[]) {
    this.teamWrites.push({ team, change, audits });
  }
}

class OrganisationDirectory extends FakeDirectory {
  async getMember(orgId: string, memberId: string) {
    return this.members.find((member) => member.orgId === orgId && member.id === memberId) ?? null;
  }
  async listClients(orgId: string): Promise<Client[]> {
    return this.clients.filter((client) => client.orgId === orgId);
  }
  async listTeams(orgId: string) {
    return this.teams.filter((team) => team.orgId === orgId);
  }
}

const setUp = () => {
  const ann = makeMember('Ann Admin');
  const bob = makeMember('Bob Tech');
  const directory = new OrganisationDirectory();
  directory.members = [ann, bob];
  directory.teams = [{ id: TEAM_ID, orgId: ORG_ID, name: 'Service desk', memberIds: [ann.id], createdAt: '2024-01-01T00:00:00.000Z' }];
  const changes = new FakeOrganisationChanges();
  const deps: OrganisationDeps = { directory, changes, clock: fixedClock() };
  return { deps, changes, ann, bob };
};

/** The refusal's status, code and errors by field. */
const refusal = async (attempt: Promise<unknown>) => {
  const error = await attempt.then(
    () => null,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(ApiError);
  const { status, code, errors } = error as ApiError;
  return { status, code, errors };
};

describe('renameTeam', () => {
  it('renames the team (the name trimmed) in one write with its team.renamed entry, the old and new name in its details', async () => {
    const { deps, changes, ann } = setUp();
    const acting: Acting = { actor: memberActor(ann), member: ann };
    const renamed = await renameTeam(deps, acting, ORG_ID, TEAM_ID, { name: '  Night shift ' });
    expect(renamed).toMatchObject({ id: TEAM_ID, name: 'Night shift', memberIds: [ann.id] });
    expect(changes.teamWrites).toHaveLength(1);
    const [write] = changes.teamWrites;
    expect(write!.change).toEqual({ name: 'Night shift' });
    expect(write!.audits).toHaveLength(1);
    expect(write!.audits[0]).toMatchObject({
      orgId: ORG_ID,
      type: 'team.renamed',
      actor: { type: 'member', id: ann.id },
      requestId: null,
      data: { details: { team_id: TEAM_ID, name: 'Night shift', previous_name: 'Service desk' } },
    });
  });

  it('the same name again changes nothing', async () => {
    const { deps, changes } = setUp();
    const same = await renameTeam(deps, operatorActing(OPERATOR_ACTOR), ORG_ID, TEAM_ID, { name: ' Service desk' });
    expect(same.name).toBe('Service desk');
    expect(changes.teamWrites).toEqual([]);
  });

  it('refuses a name as creating a team does, by field, and writes nothing', async () => {
    const { deps, changes } = setUp();
    const rename = (body: unknown) => refusal(renameTeam(deps, operatorActing(OPERATOR_ACTOR), ORG_ID, TEAM_ID, body));
    for (const body of [{ name: '   ' }, { name: 'x'.repeat(101) }, { name: 42 }, {}, null]) {
      const { status, code, errors } = await rename(body);
      expect({ status, code, fields: Object.keys(errors ?? {}) }, JSON.stringify(body)).toEqual({ status: 422, code: 'validation_failed', fields: ['name'] });
    }
    expect((await rename({ name: 'Night shift', member_ids: [] })).errors).toEqual({ member_ids: ['Unknown field.'] });
    expect(changes.teamWrites).toEqual([]);
  });

  it('answers 404 for a team the organisation does not have, or an id that cannot be one', async () => {
    const { deps, changes } = setUp();
    for (const teamId of ['01hzzzzzzzzzzzzzzzzzzzzte9', 'service-desk']) {
      expect(await refusal(renameTeam(deps, operatorActing(OPERATOR_ACTOR), ORG_ID, teamId, { name: 'Night shift' }))).toMatchObject({ status: 404, code: 'not_found' });
    }
    expect(changes.teamWrites).toEqual([]);
  });
});

describe('changeTeam (the endpoint: {name?, member_ids?})', () => {
  it('a new name and new members at once: one write holding both, an entry for each', async () => {
    const { deps, changes, ann, bob } = setUp();
    const changed = await changeTeam(deps, operatorActing(OPERATOR_ACTOR), ORG_ID, TEAM_ID, { name: 'Night shift', member_ids: [bob.id] });
    expect(changed).toMatchObject({ name: 'Night shift', memberIds: [bob.id] });
    expect(changes.teamWrites).toHaveLength(1);
    const [write] = changes.teamWrites;
    expect(write!.change).toEqual({ name: 'Night shift', memberIds: [bob.id] });
    expect(write!.audits.map((audit) => [audit.type, audit.data.details])).toEqual([
      ['team.renamed', { team_id: TEAM_ID, name: 'Night shift', previous_name: 'Service desk' }],
      ['team.members_changed', { team_id: TEAM_ID, name: 'Night shift', members: 1, added: [bob.id], removed: [ann.id] }],
    ]);
  });

  it('only a name renames; only members changes the members; neither refuses on both fields', async () => {
    const { deps, changes, ann, bob } = setUp();
    const acting = operatorActing(OPERATOR_ACTOR);
    await changeTeam(deps, acting, ORG_ID, TEAM_ID, { name: 'Night shift' });
    await changeTeam(deps, acting, ORG_ID, TEAM_ID, { member_ids: [ann.id, bob.id] });
    expect(changes.teamWrites.map((write) => [write.change, write.audits.map((audit) => audit.type)])).toEqual([
      [{ name: 'Night shift' }, ['team.renamed']],
      [{ memberIds: [ann.id, bob.id] }, ['team.members_changed']],
    ]);
    expect((await refusal(changeTeam(deps, acting, ORG_ID, TEAM_ID, {}))).errors).toEqual({
      name: ['Required unless member_ids is given.'],
      member_ids: ['Required unless name is given.'],
    });
    expect(Object.keys((await refusal(changeTeam(deps, acting, ORG_ID, TEAM_ID, { name: '', member_ids: 'all' }))).errors ?? {})).toEqual(['name', 'member_ids']);
    expect(changes.teamWrites).toHaveLength(2);
  });

  it('what is already so writes nothing: the same name and the same members', async () => {
    const { deps, changes, ann } = setUp();
    const same = await changeTeam(deps, operatorActing(OPERATOR_ACTOR), ORG_ID, TEAM_ID, { name: 'Service desk', member_ids: [ann.id] });
    expect(same).toMatchObject({ name: 'Service desk', memberIds: [ann.id] });
    expect(changes.teamWrites).toEqual([]);
  });
});
