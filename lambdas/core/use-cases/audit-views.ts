import { validationFailed } from '../errors.ts';
import { requireManager, type MemberCaller } from '../member-access.ts';
import { apiReadView } from './api-read-view.ts';
import { auditLogView } from './audit-log-view.ts';

type Deps = Parameters<typeof auditLogView>[0] & Parameters<typeof apiReadView>[0];

/**
 * GET /app/api/audit: `view` picks what the audit log shows, the organisation's hash chain
 * (`chain`, the default) or the records of reads through API keys (`api_reads`), which are kept
 * beside the chain, not on it; the rest of the query is that view's own. One route (and one
 * function) for both, so the page's filters, paging and export work the same on either.
 */
export const auditViews = (deps: Deps, caller: MemberCaller, rawQuery: Record<string, string | undefined> | null) => {
  requireManager(caller, 'read the audit log');
  const { view, ...query } = rawQuery ?? {};
  if (view === undefined || view === 'chain') return auditLogView(deps, caller, query);
  if (view === 'api_reads') return apiReadView(deps, caller, query);
  throw validationFailed({ view: ['Must be chain or api_reads.'] });
};
