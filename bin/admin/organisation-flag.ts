import { isId } from '#core/ids.ts';
import type { Organisation } from '#core/model.ts';
import type { AdminStore } from '#store/admin-store.ts';
import { text, UsageError, type Flags } from './flags.ts';

const LIST_ORGS = 'npm run admin -- list-orgs';

/** The organisation --org names; a value that cannot be an id is refused before the table is read. */
export const organisationOf = async (admin: AdminStore, flags: Flags): Promise<Organisation> => {
  const orgId = text(flags, 'org');
  if (!isId(orgId)) throw new UsageError(`--org takes an organisation's id (26 lower-case letters and digits), not "${orgId}": ${LIST_ORGS} shows them`);
  const organisation = await admin.directory.getOrganisation(orgId);
  if (!organisation) throw new UsageError(`--org ${orgId}: no such organisation (${LIST_ORGS} shows them)`);
  return organisation;
};
