import type { MemberCaller } from '../../member-access.ts';
import type { Client, Member, Team } from '../../model.ts';
import { emailSignInLink, type SignInDeps } from '../member-sign-in.ts';
import { managedMemberView } from '../member-keys.ts';
import { managerActing, type OrganisationDeps } from './acting.ts';
import { addMember } from './members.ts';

/**
 * The member application's Organisation settings (docs/web-api.md, Organisation): owners and
 * admins (403 for anyone else) list and change clients, teams and members through the same use
 * cases as the operator CLI, audited with the member as the actor.
 */
const byName = <T extends { name: string; id: string }>(a: T, b: T) => a.name.localeCompare(b.name) || a.id.localeCompare(b.id);

export const clientView = (client: Client, defaultClientId: string) => ({
  id: client.id,
  name: client.name,
  default: client.id === defaultClientId,
  created_at: client.createdAt,
});

const teamMemberView = (member: Member) => ({ membership_id: member.id, name: member.name, email: member.email, active: member.active });

export const teamView = (team: Team, members: ReadonlyMap<string, Member>) => ({
  id: team.id,
  name: team.name,
  members: team.memberIds.flatMap((id) => {
    const member = members.get(id);
    return member ? [teamMemberView(member)] : [];
  }),
  created_at: team.createdAt,
});

/** GET /app/api/clients */
export const listClients = async (deps: Pick<OrganisationDeps, 'directory'>, caller: MemberCaller) => {
  managerActing(caller, 'manage clients');
  const clients = (await deps.directory.listClients(caller.org.id)).sort(byName);
  return { data: clients.map((client) => clientView(client, caller.org.defaultClientId)) };
};

/** GET /app/api/teams: the teams with their members, and the members a team may be made of. */
export const listTeams = async (deps: Pick<OrganisationDeps, 'directory'>, caller: MemberCaller) => {
  managerActing(caller, 'manage teams');
  const [teams, members] = await Promise.all([deps.directory.listTeams(caller.org.id), deps.directory.listMembers(caller.org.id)]);
  const byId = new Map(members.map((member) => [member.id, member]));
  return { data: teams.sort(byName).map((team) => teamView(team, byId)), members: members.sort(byName).map(teamMemberView) };
};

/** A team's member who no longer exists is dropped from its view; the view needs the members read. */
export const teamAnswer = async (deps: Pick<OrganisationDeps, 'directory'>, team: Team) =>
  teamView(team, new Map((await deps.directory.listMembers(team.orgId)).map((member) => [member.id, member])));

/**
 * POST /app/api/members: adds the member and emails them the sign-in link the sign-in page sends;
 * their first sign-in leads them to set up their key. `invitation_sent` false: the member exists,
 * but the email could not be sent (they can ask for a link on the sign-in page).
 * `prepared` is given the answer just before the member is stored, with `invitation_sent: false`
 * (the email goes after): a retry whose first answer was lost replays that, and the invited person
 * asks for a link on the sign-in page, as when the email could not be sent.
 */
export const inviteMember = async (
  deps: OrganisationDeps & Pick<SignInDeps, 'access' | 'notifier' | 'urls' | 'onDeliveryFailure'>,
  caller: MemberCaller,
  rawBody: unknown,
  prepared?: (answer: { member: ReturnType<typeof managedMemberView>; invitation_sent: boolean }) => void,
) => {
  const acting = managerActing(caller, 'invite members');
  const member = await addMember(deps, acting, caller.org.id, rawBody, {
    prepared: prepared && ((made) => prepared({ member: managedMemberView(made), invitation_sent: false })),
  });
  // The member is made: a link that could not be stored or sent is reported, not raised, so the
  // answer says so (invitation_sent: false) and the invited person asks for a link on the sign-in
  // page, rather than a retry meeting 409 member_exists with no email ever sent.
  const sent = await emailSignInLink(deps, member, caller.org, deps.clock.now(), { by: caller.member.name }).catch(() => false);
  return { member: managedMemberView(member), invitation_sent: sent };
};
