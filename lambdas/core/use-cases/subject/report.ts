import * as z from 'zod/mini';
import { parseOrThrow } from '../../validation.ts';
import { applyChange, readAgain } from '../apply-change.ts';
import { subjectAudit, type LinkHolder, type SubjectDeps } from './subject-context.ts';

export const reportBody = z.strictObject({ reason: z.optional(z.string().check(z.trim(), z.maxLength(500, 'At most 500 characters.'))) });

/**
 * Reports recorded per request. A subject reports a request once, perhaps again with more to say;
 * whoever holds a forwarded or leaked link must not flood the organisation's audit chain, event
 * feed and webhook receivers with `request.reported`, so later reports get the same answer and
 * record nothing.
 */
export const MAX_SUBJECT_REPORTS = 3;

/**
 * "Report this request": recorded as `request.reported` for the organisation to look into, with a
 * count on the request written in the same transaction, so concurrent reports cannot pass the cap.
 */
export const reportRequest = async (deps: SubjectDeps, holder: LinkHolder, rawBody: unknown) => {
  const body = parseOrThrow(reportBody, rawBody ?? {});
  await applyChange(
    deps.requests,
    readAgain(deps.requests, holder.request),
    (current) => {
      const made = current.reportsMade ?? 0;
      if (made >= MAX_SUBJECT_REPORTS) return null;
      const after = { ...current, reportsMade: made + 1 };
      return { after, audit: subjectAudit(deps, after, 'request.reported', { reason: body.reason ?? null }) };
    },
    () => undefined,
  );
  return { reported: true };
};
