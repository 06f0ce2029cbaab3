import { open } from '../../subject-flow.ts';
import { applyChange } from '../apply-change.ts';
import { assertLinkUsable, describeForSubject } from './describe.ts';
import { subjectAudit, type LinkHolder, type SubjectDeps } from './subject-context.ts';

/** The page's script, not the page load, opens the request: pending → opened once, audited. */
export const openLink = async (deps: SubjectDeps, holder: LinkHolder) => {
  const request = await applyChange(
    deps.requests,
    async () => (await deps.requests.get(holder.request.id)) ?? holder.request,
    (current) => {
      assertLinkUsable(deps, current);
      const after = open(current, deps.clock.now().toISOString());
      return after ? { after, audit: subjectAudit(deps, after, 'request.opened') } : null;
    },
    (current, change) => change?.after ?? current,
  );
  return describeForSubject(deps, { ...holder, request });
};
