import * as z from 'zod/mini';
import { notFound, retryOnConflict, validationFailed, WriteConflict } from '../../errors.ts';
import { isId, newId } from '../../ids.ts';
import type { Team } from '../../model.ts';
import type { AuditEntryInput } from '../../ports.ts';
import { parseOrThrow, ulidString } from '../../validation.ts';
import { changeAudit, nameField, nameInput, requireOrganisation, type Acting, type OrganisationDeps, type TeamChange } from './acting.ts';

/**
 * Teams: named groups of members, added together as a request's recipients. Each member is checked
 * in the same transaction that writes the team, so a team never names someone who is not a member.
 * Made, renamed and given other members; like clients, any name is allowed twice.
 */
/** One transaction checks each member: well within DynamoDB's 100 items with the team and its audit entries. */
export const MAX_TEAM_MEMBERS = 50;

const memberIdsField = () =>
  z
    .array(ulidString(), 'Must be an array of membership ids.')
    .check(
      z.maxLength(MAX_TEAM_MEMBERS, `A team has at most ${MAX_TEAM_MEMBERS} members.`),
      z.refine((ids) => new Set(ids).size === ids.length, 'Must not name a member twice.'),
    );
const teamInput = z.strictObject({ name: nameField(), member_ids: z._default(memberIdsField(), []) });
const teamChangeInput = z.strictObject({ name: z.optional(nameField()), member_ids: z.optional(memberIdsField()) }).check(
  z.superRefine((input, context) => {
    if (input.name !== undefined || input.member_ids !== undefined) return;
    // Nothing to change: said on both fields, since either one would do.
    context.addIssue({ code: 'custom', path: ['name'], message: 'Required unless member_ids is given.' });
    context.addIssue({ code: 'custom', path: ['member_ids'], message: 'Required unless name is given.' });
  }),
);

/** 422 on `member_ids` when any id is not a member of the organisation. */
const requireMembers = async (deps: OrganisationDeps, orgId: string, memberIds: string[]) => {
  const members = new Set((await deps.directory.listMembers(orgId)).map((member) => member.id));
  const unknown = memberIds.filter((id) => !members.has(id));
  if (unknown.length) throw validationFailed({ member_ids: [`Not members of the organisation: ${unknown.join(', ')}.`] });
};

/** A member removed meanwhile fails the transaction's check: said as that member being unknown. */
const writingMembers = async <Written>(write: () => Promise<Written>): Promise<Written> => {
  try {
    return await write();
  } catch (error) {
    if (error instanceof WriteConflict) throw validationFailed({ member_ids: ['A member named here no longer exists. Reload and try again.'] });
    throw error;
  }
};

/**
 * Creates a team from {name, member_ids?}.
 * `prepared` is given the team just before it is stored (a caller's Idempotency-Key keeps its answer in that transaction).
 */
export const createTeam = async (deps: OrganisationDeps, acting: Acting, orgId: string, rawInput: unknown, prepared?: (team: Team) => Promise<void>) => {
  await requireOrganisation(deps, orgId);
  const input = parseOrThrow(teamInput, rawInput ?? {});
  await requireMembers(deps, orgId, input.member_ids);
  const team: Team = { id: newId(), orgId, name: input.name, memberIds: input.member_ids, createdAt: deps.clock.now().toISOString() };
  const audit = changeAudit(orgId, acting, 'team.created', { details: { team_id: team.id, name: team.name, members: team.memberIds.length } });
  await prepared?.(team);
  await writingMembers(() => deps.changes.putTeam(team, audit));
  return team;
};

/** The team, or 404 when the organisation has none with this id. */
const requireTeam = async (deps: OrganisationDeps, orgId: string, teamId: string) => {
  const team = isId(teamId) ? await deps.directory.getTeam(orgId, teamId) : null;
  if (!team) throw notFound('No team with this id.');
  return team;
};

type TeamChangeInput = { name?: string; member_ids?: string[] };

/**
 * Changes what the body, read by `schema`, gives that differs from the team: one transaction
 * writes the team with an audit entry for each kind of change (`team.renamed`,
 * `team.members_changed`), so the log says the same whichever way the change was asked for.
 * What is already so writes nothing.
 */
const changeTeamBy = async (schema: z.core.$ZodType<TeamChangeInput>, deps: OrganisationDeps, acting: Acting, orgId: string, teamId: string, rawInput: unknown) => {
  await requireOrganisation(deps, orgId);
  const input = parseOrThrow(schema, rawInput ?? {});
  // Two changes at once (two tabs, the app and the CLI): the one that loses reads the team again and
  // decides afresh, so neither is lost and each audit entry says what it changed from.
  // A member removed meanwhile is found by the read again (422 on member_ids); conflicts that outlast
  // the retries are said as writingMembers says them.
  return writingMembers(() => retryOnConflict(() => changeTeamOnce(deps, acting, orgId, teamId, input)));
};

const changeTeamOnce = async (deps: OrganisationDeps, acting: Acting, orgId: string, teamId: string, input: TeamChangeInput) => {
  const team = await requireTeam(deps, orgId, teamId);
  const change: TeamChange = {};
  const audits: AuditEntryInput[] = [];
  if (input.name !== undefined && input.name !== team.name) {
    change.name = input.name;
    audits.push(changeAudit(orgId, acting, 'team.renamed', { details: { team_id: team.id, name: input.name, previous_name: team.name } }));
  }
  const memberIds = input.member_ids;
  if (memberIds !== undefined) {
    await requireMembers(deps, orgId, memberIds);
    const added = memberIds.filter((id) => !team.memberIds.includes(id));
    const removed = team.memberIds.filter((id) => !memberIds.includes(id));
    if (added.length || removed.length) {
      change.memberIds = memberIds;
      const details = { team_id: team.id, name: change.name ?? team.name, members: memberIds.length, added, removed };
      audits.push(changeAudit(orgId, acting, 'team.members_changed', { details }));
    }
  }
  if (audits.length === 0) return team;
  await deps.changes.changeTeam(team, change, audits);
  return { ...team, ...change };
};

/** {name}: the team renamed (the operator's `rename-team`); the same name again changes nothing. */
export const renameTeam = (deps: OrganisationDeps, acting: Acting, orgId: string, teamId: string, rawInput: unknown) =>
  changeTeamBy(nameInput, deps, acting, orgId, teamId, rawInput);

/**
 * {name?, member_ids?}, at least one (the member application's POST /app/api/teams/{id}): a new
 * name, the team's members from now on (an empty team is allowed), or both at once.
 */
export const changeTeam = (deps: OrganisationDeps, acting: Acting, orgId: string, teamId: string, rawInput: unknown) =>
  changeTeamBy(teamChangeInput, deps, acting, orgId, teamId, rawInput);
