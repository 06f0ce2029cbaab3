import * as z from 'zod/mini';
import { notFound, validationFailed, WriteConflict } from '../../errors.ts';
import { isId, newId } from '../../ids.ts';
import type { Team } from '../../model.ts';
import { parseOrThrow, ulidString } from '../../validation.ts';
import { changeAudit, nameField, requireOrganisation, type Acting, type OrganisationDeps } from './acting.ts';

/**
 * Teams: named groups of members, added together as a request's recipients. Each member is checked
 * in the same transaction that writes the team, so a team never names someone who is not a member.
 */
/** One transaction checks each member: well within DynamoDB's 100 items with the team and its audit entry. */
export const MAX_TEAM_MEMBERS = 50;

const memberIdsField = () =>
  z
    .array(ulidString(), 'Must be an array of membership ids.')
    .check(
      z.maxLength(MAX_TEAM_MEMBERS, `A team has at most ${MAX_TEAM_MEMBERS} members.`),
      z.refine((ids) => new Set(ids).size === ids.length, 'Must not name a member twice.'),
    );
const teamInput = z.strictObject({ name: nameField(), member_ids: z._default(memberIdsField(), []) });
const teamMembersInput = z.strictObject({ member_ids: memberIdsField() });

/** 422 on `member_ids` when any id is not a member of the organisation. */
const requireMembers = async (deps: OrganisationDeps, orgId: string, memberIds: string[]) => {
  const members = new Set((await deps.directory.listMembers(orgId)).map((member) => member.id));
  const unknown = memberIds.filter((id) => !members.has(id));
  if (unknown.length) throw validationFailed({ member_ids: [`Not members of the organisation: ${unknown.join(', ')}.`] });
};

/** A member removed meanwhile fails the transaction's check: said as that member being unknown. */
const writingMembers = async (write: () => Promise<void>) => {
  try {
    await write();
  } catch (error) {
    if (error instanceof WriteConflict) throw validationFailed({ member_ids: ['A member named here no longer exists. Reload and try again.'] });
    throw error;
  }
};

/** {name, member_ids?} */
export const createTeam = async (deps: OrganisationDeps, acting: Acting, orgId: string, rawInput: unknown) => {
  await requireOrganisation(deps, orgId);
  const input = parseOrThrow(teamInput, rawInput ?? {});
  await requireMembers(deps, orgId, input.member_ids);
  const team: Team = { id: newId(), orgId, name: input.name, memberIds: input.member_ids, createdAt: deps.clock.now().toISOString() };
  const audit = changeAudit(orgId, acting, 'team.created', { details: { team_id: team.id, name: team.name, members: team.memberIds.length } });
  await writingMembers(() => deps.changes.putTeam(team, audit));
  return team;
};

/** {member_ids}: the team's members from now on (an empty team is allowed). */
export const setTeamMembers = async (deps: OrganisationDeps, acting: Acting, orgId: string, teamId: string, rawInput: unknown) => {
  await requireOrganisation(deps, orgId);
  const { member_ids: memberIds } = parseOrThrow(teamMembersInput, rawInput ?? {});
  const team = isId(teamId) ? await deps.directory.getTeam(orgId, teamId) : null;
  if (!team) throw notFound('No team with this id.');
  await requireMembers(deps, orgId, memberIds);
  const added = memberIds.filter((id) => !team.memberIds.includes(id));
  const removed = team.memberIds.filter((id) => !memberIds.includes(id));
  if (added.length === 0 && removed.length === 0) return team;
  const audit = changeAudit(orgId, acting, 'team.members_changed', { details: { team_id: team.id, name: team.name, members: memberIds.length, added, removed } });
  await writingMembers(() => deps.changes.setTeamMembers(team, memberIds, audit));
  return { ...team, memberIds };
};
