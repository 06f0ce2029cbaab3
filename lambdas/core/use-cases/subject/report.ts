import * as z from 'zod/mini';
import { parseOrThrow } from '../../validation.ts';
import { subjectAudit, type LinkHolder, type SubjectDeps } from './subject-context.ts';

export const reportBody = z.strictObject({ reason: z.optional(z.string().check(z.trim(), z.maxLength(500, 'At most 500 characters.'))) });

/** "Report this request": recorded as `request.reported` for the organisation to look into. */
export const reportRequest = async (deps: SubjectDeps, { request }: LinkHolder, rawBody: unknown) => {
  const body = parseOrThrow(reportBody, rawBody ?? {});
  await deps.audit.record(subjectAudit(deps, request, 'request.reported', { reason: body.reason ?? null }));
  return { reported: true };
};
