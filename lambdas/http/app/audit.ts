import { auditViews } from '#core/use-cases/audit-views.ts';
import { DynamoApiReadReader } from '#store/api-read-reader.ts';
import { DynamoAuditReader } from '#store/audit-reader.ts';
import type { AppDeps } from '../../app-deps.ts';
import { wiring } from '../../wiring.ts';
import { lazyHandler } from '../lazy-handler.ts';
import { json } from '../responses.ts';
import { sessionHandler } from './session-handler.ts';

/**
 * GET /app/api/audit (owners and admins): the organisation's audit chain, newest first, filtered;
 * with `view=api_reads`, the records of reads through API keys instead.
 */
export const createHandler = (deps: AppDeps) => {
  const readers = { clock: deps.clock, auditReader: new DynamoAuditReader(deps.db, deps.tableName), apiReadReader: new DynamoApiReadReader(deps.db, deps.tableName) };
  return sessionHandler(deps, async ({ caller, event }) => json(200, await auditViews(readers, caller, event.queryStringParameters ?? {})), { readsQuery: true });
};

export const handler = lazyHandler(() => createHandler(wiring()));
