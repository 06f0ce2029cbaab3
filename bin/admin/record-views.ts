import type { Organisation, Team } from '#core/model.ts';
import { rateLimitsView } from '#core/rate-limits-view.ts';
import { clientView, teamView } from '#core/use-cases/organisation/member-app.ts';
import { policyView } from '#core/use-cases/organisation/policy.ts';
import type { AdminStore } from '#store/admin-store.ts';

/**
 * What the commands that make or change a record print: the record as the member application
 * and the API show it (snake_case, the views they use), never the stored item with its own field
 * names, so a script reads `.id` or `.default_client_id` from any command alike.
 */

/** A new organisation: what show-org --json shows of it, less the counts (none yet). */
export const newOrganisationView = (org: Organisation) => ({
  id: org.id,
  name: org.name,
  plan: org.plan,
  created_at: org.createdAt,
  policy: policyView(org.policy),
  rate_limits: rateLimitsView(org.rateLimits),
  default_client_id: org.defaultClientId,
});

/** A client as the organisation's clients page lists it: `default` is read from the organisation as it is. */
export const clientOfOrganisation = async (admin: AdminStore, orgId: string, client: Parameters<typeof clientView>[0]) => {
  const org = await admin.directory.getOrganisation(orgId);
  return clientView(client, org?.defaultClientId ?? '');
};

/** A team as the teams page lists it: its members by name and email, not bare ids. */
export const teamOfOrganisation = async (admin: AdminStore, orgId: string, team: Team) => {
  const members = new Map((await admin.directory.listMembers(orgId)).map((member) => [member.id, member]));
  return teamView(team, members);
};
