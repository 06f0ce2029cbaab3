import { membersById, unrecordedKeyChanges, type MembersById } from '../../recipient-health.ts';
import type { Actor, HandoffRequest } from '../../model.ts';
import { open } from '../../subject-flow.ts';
import { applyChange, readAgain } from '../apply-change.ts';
import { applyRecipientHealth } from '../recipient-health.ts';
import { assertLinkUsable, describeForSubject } from './describe.ts';
import { subjectAudit, type LinkHolder, type SubjectDeps } from './subject-context.ts';

/** Who flags a link found unusable when it is opened: the service, not the subject. */
const RECIPIENT_CHECK: Actor = { type: 'system', label: 'recipient check' };

/** The page's script, not the page load, opens the request: pending → opened once, audited. */
export const openLink = async (deps: SubjectDeps, holder: LinkHolder) => {
  const members = await membersById(deps.directory, holder.org.id);
  const opened = await applyChange(
    deps.requests,
    readAgain(deps.requests, holder.request),
    (current) => {
      assertLinkUsable(deps, current, holder);
      const after = open(current, deps.clock.now().toISOString());
      return after ? { after, audit: subjectAudit(deps, after, 'request.opened') } : null;
    },
    (current, change) => change?.after ?? current,
  );
  return describeForSubject(deps, { ...holder, request: await flagIfUnusable(deps, opened, members) }, members);
};

/**
 * A recipient's key change flags the requests it makes unusable, found through an index that lags
 * deployed: one made a moment before the change can be missed. The subject's page, which is about
 * to refuse to encrypt, is where that shows, so the flag (or, on a link already marked, the
 * change's entry) is written here if it is not yet.
 */
const flagIfUnusable = async (deps: SubjectDeps, request: HandoffRequest, members: MembersById) => {
  if (unrecordedKeyChanges(request, members).length === 0) return request;
  return applyRecipientHealth(deps, request, members, RECIPIENT_CHECK);
};
